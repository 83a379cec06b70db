#pragma once
// The kernel optimizations codegen applies after simplifying ranges: tinygrad's codegen/opt/postrange.py
// Scheduler with apply_opt / shift_to, and Opt. A range is split into two; the new one gets an axis type
// the later stages read: UPCAST/UNROLL become vector lanes (expander.hpp), THREAD becomes core_id
// (gpudims.hpp). heuristic.hpp picks the opts. Also the kernel's default name, tinygrad's r_4_4 / E_16.
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <string>
#include <vector>

#include "../core/uop.hpp"
#include "ranges.hpp"
#include "simplify.hpp"
#include "target.hpp"

namespace mg::detail {

template <class = void> int axis_to_pos(AxisType t) {
  switch (t) {
    case AxisType::LOOP: return -1;
    case AxisType::THREAD: case AxisType::GLOBAL: return 0;
    case AxisType::WARP: return 1;
    case AxisType::LOCAL: case AxisType::GROUP_REDUCE: return 2;
    case AxisType::UPCAST: return 3;
    case AxisType::REDUCE: return 4;
    case AxisType::UNROLL: return 5;
    default: return 6;
  }
}

// the ranges of the kernel, ordered by axis type then id (tinygrad's Scheduler.rngs)
template <class = void> std::vector<UOp> kernel_rngs(const UOp& ast) {
  std::vector<UOp> out;
  for (const Node* u : topo_nodes(ast.node())) if (u->op == Ops::RANGE && Borrowed(u).get().vmax() > 0) out.push_back(UOp::from_node(u));
  auto key = [](const UOp& r) {
    std::vector<std::int64_t> k{axis_to_pos(range_type(r))};
    for (std::size_t i = 0; i + 1 < r.arg().size(); ++i) k.push_back(r.arg()[i].as_int());
    return k;
  };
  stable_sort_by(out, [&](const UOp& a, const UOp& b) { return key(a) < key(b); });
  return out;
}

// the LOOP ranges of the kernel's outputs (those its END nodes close): the ones a THREAD split may take
template <class = void> std::vector<UOp> globalizable_rngs(const UOp& ast) {
  std::vector<UOp> out;
  for (const UOp& s : ast.src()) {
    if (s.op() != Ops::END) continue;
    std::vector<UOp> rs(s.src().begin() + 1, s.src().end());
    for (const UOp& r : ranges_of(UOp::sink(rs)))
      if (range_type(r) == AxisType::LOOP && !in_list(out, r)) out.push_back(r);
  }
  return out;
}

template <class = void> std::string range_size_str(const UOp& r) {
  const UOp& e = r.src(0);
  return e.op() == Ops::CONST && e.arg().is_int() ? std::to_string(e.arg().as_int()) : e.render();
}

// tinygrad's kernel name without the colors: r_ for a reduce kernel, E_ for elementwise, then the sizes
template <class = void> std::string default_kernel_name(const UOp& ast) {
  bool reduce = false;
  for (const Node* u : topo_nodes(ast.node())) reduce = reduce || u->op == Ops::REDUCE;
  std::string name = reduce ? "r" : "E";
  for (const UOp& r : kernel_rngs(ast)) name += "_" + range_size_str(r);
  return name;  // to_program makes it a C identifier (a symbolic size has operators in it)
}

}  // namespace mg::detail

namespace mg {

// tinygrad's OptOps (codegen/opt/__init__.py), in its order
enum class OptOps : std::uint8_t { TC, UPCAST, UNROLL, LOCAL, THREAD, GROUP, GROUPTOP, NOLOCALS, PADTO, SWAP };
template <class = void> const char* optops_name(OptOps o) {
  static constexpr const char* names[] = {"TC", "UPCAST", "UNROLL", "LOCAL", "THREAD", "GROUP", "GROUPTOP", "NOLOCALS", "PADTO", "SWAP"};
  return names[std::size_t(o)];
}

// one optimization: tinygrad's Opt(op, axis, arg). axis -1 is tinygrad's None; arg 0 means "the whole axis"
struct Opt {
  OptOps op = OptOps::UPCAST;
  std::int64_t axis = -1;
  std::int64_t arg = 0;
  friend bool operator==(const Opt&, const Opt&) = default;
  std::string repr() const {
    return std::string("Opt(op=OptOps.") + optops_name(op) + ", axis=" + (axis < 0 ? std::string("None") : std::to_string(axis)) +
           ", arg=" + std::to_string(arg) + ")";
  }
};

// an opt that does not apply to this kernel (tinygrad's KernelOptError): the heuristic tries the next one
struct KernelOptError : Error {
  using Error::Error;
};

namespace detail {
template <class = void> void opt_check(bool cond, const Opt& opt, const std::string& why) {
  if (!cond) throw KernelOptError("apply_opt " + opt.repr() + ": " + why);
}
}  // namespace detail

// tinygrad's Scheduler (codegen/opt/postrange.py): the kernel AST and the opts applied to it so far.
// A template so that only translation units that optimize kernels compile it.
template <std::same_as<UOp> U>
class BasicScheduler {
 public:
  U ast;
  Target ren;
  std::vector<Opt> applied_opts;
  bool dont_use_locals = false;

  BasicScheduler(U a, Target t) : ast(std::move(a)), ren(std::move(t)) {
    for (const detail::Node* u : detail::topo_nodes(ast.node()))
      if (u->op == Ops::RANGE) next_axis_ = std::max(next_axis_, u->arg[0].as_int() + 1);
  }

  // (kept for the ast it was computed for: the optimizer asks many times between two changes of ast)
  std::vector<U> rngs() const {
    if (rngs_ast_ != ast) rngs_ = detail::kernel_rngs(ast), rngs_ast_ = ast;
    return rngs_;
  }
  std::size_t shape_len() const { return rngs().size(); }
  // the size of each range; -1 where it is symbolic
  std::vector<std::int64_t> full_shape() const {
    std::vector<std::int64_t> out;
    for (const UOp& r : rngs()) out.push_back(r.src(0).op() == Ops::CONST ? r.src(0).arg().as_int() : -1);
    return out;
  }
  std::vector<AxisType> axis_types() const {
    std::vector<AxisType> out;
    for (const UOp& r : rngs()) out.push_back(detail::range_type(r));
    return out;
  }
  std::vector<std::size_t> axes_of(std::initializer_list<AxisType> ts) const {
    std::vector<std::size_t> out;
    const auto at = axis_types();
    for (std::size_t i = 0; i < at.size(); ++i) if (std::find(ts.begin(), ts.end(), at[i]) != ts.end()) out.push_back(i);
    return out;
  }
  std::vector<U> ranges_of(std::initializer_list<AxisType> ts) const {
    std::vector<U> out;
    for (const UOp& r : rngs()) if (std::find(ts.begin(), ts.end(), detail::range_type(r)) != ts.end()) out.push_back(r);
    return out;
  }
  std::int64_t upcast_size() const {
    std::int64_t n = 1;
    const auto fs = full_shape();
    for (std::size_t a : axes_of({AxisType::UPCAST, AxisType::UNROLL})) n *= std::max<std::int64_t>(fs[a], 1);
    return n;
  }
  // the LOOP/GLOBAL/LOCAL axes of constant size > 1 (tinygrad's upcastable_dims)
  std::vector<std::size_t> upcastable_dims() const { return sized_axes({AxisType::GLOBAL, AxisType::LOCAL, AxisType::LOOP}); }
  std::vector<std::size_t> unrollable_dims() const { return sized_axes({AxisType::GROUP_REDUCE, AxisType::REDUCE}); }
  // the kernel's output shape: 1 on reduce axes, -1 where symbolic
  std::vector<std::int64_t> output_shape() const {
    auto fs = full_shape();
    const auto at = axis_types();
    for (std::size_t i = 0; i < fs.size(); ++i)
      if (at[i] == AxisType::REDUCE || at[i] == AxisType::UNROLL || at[i] == AxisType::GROUP_REDUCE) fs[i] = 1;
    return fs;
  }
  std::size_t upcasted() const { return axes_of({AxisType::UPCAST, AxisType::UNROLL}).size(); }
  std::vector<U> reduceops() const {
    std::vector<U> out;
    for (const detail::Node* u : detail::topo_nodes(ast.node())) if (u->op == Ops::REDUCE) out.push_back(UOp::from_node(u));
    return out;
  }
  // the INDEX nodes of the kernel, last first (tinygrad's bufs)
  std::vector<U> bufs() const {
    std::vector<U> out;
    for (const detail::Node* u : detail::topo_nodes(ast.node())) if (u->op == Ops::INDEX) out.push_back(UOp::from_node(u));
    std::reverse(out.begin(), out.end());
    return out;
  }

  // split rng into (rng/amount, amount): the new range of type t is the inner one, or the outer one when top
  std::pair<U, U> shift_to(const U& rng, std::int64_t amount, AxisType t, bool top = false) {
    auto old_sz = rng.src(0).divides(amount);
    if (!old_sz) throw KernelOptError("shift_to: " + std::to_string(amount) + " does not divide range " + rng.src(0).render() + " (axis " +
                                      std::to_string(detail::range_axis(rng)) + ")");
    U nr = U::range(amount, next_axis_++, t);
    U replaced = rng.replace({.src = std::vector<UOp>{*old_sz}});
    U sub = top ? nr * *old_sz + replaced : replaced * UOp::const_(dtypes::weakint, amount) + nr;
    ast = ast.substitute({{rng, sub}});
    return {replaced, nr};
  }

  // tinygrad's Scheduler.apply_opt for the opts a target without locals or tensor cores has
  void apply_opt(const Opt& opt, bool append_opt = true) {
    using detail::opt_check;
    if (opt.op == OptOps::NOLOCALS) {
      for (AxisType t : axis_types())
        opt_check(t != AxisType::WARP && t != AxisType::LOCAL && t != AxisType::GROUP_REDUCE, opt, "no locals can't have locals");
      if (append_opt) applied_opts.push_back(opt);
      dont_use_locals = true;
      return;
    }
    if (opt.op == OptOps::LOCAL || opt.op == OptOps::GROUP || opt.op == OptOps::GROUPTOP)
      opt_check(ren.has_local, opt, "locals needed for opt (device " + ren.device + " has none)");
    if (opt.op == OptOps::TC) throw KernelOptError("apply_opt " + opt.repr() + ": no tensor cores on device " + ren.device);
    const std::vector<U> rs = rngs();
    const std::int64_t real = real_axis(opt, rs.size());
    if (real < 0) throw KernelOptError("apply_opt " + opt.repr() + ": the opt needs an axis");
    const U rng = rs[std::size_t(real)];
    const AxisType rt = detail::range_type(rng);
    if (opt.op == OptOps::SWAP || opt.op == OptOps::PADTO) {
      if (opt.op == OptOps::SWAP) swap(opt, rs, rng);
      else padto(opt, rng);
      if (append_opt) applied_opts.push_back(opt);
      return;
    }
    const std::int64_t amt = opt.arg == 0 ? rng.vmax().clamped_int64() + 1 : opt.arg;
    opt_check(amt > 0, opt, "amount " + std::to_string(amt) + " must be positive");
    AxisType nt = AxisType::UPCAST;
    switch (opt.op) {
      case OptOps::UNROLL:
        opt_check(amt <= 32, opt, "don't unroll more than 32");
        opt_check(rt == AxisType::GROUP_REDUCE || rt == AxisType::REDUCE, opt, "unroll is for GROUP_REDUCE/REDUCE");
        nt = AxisType::UNROLL;
        break;
      case OptOps::UPCAST:
        opt_check(amt <= 16, opt, "don't upcast more than 16");
        opt_check(rt == AxisType::GLOBAL || rt == AxisType::LOCAL || rt == AxisType::LOOP, opt,
                  "upcast is for GLOBAL/LOCAL/LOOP, not " + std::string(axis_type_names[std::size_t(rt)]));
        nt = AxisType::UPCAST;
        break;
      case OptOps::THREAD: {
        opt_check(ren.threads > 1, opt, "target does not support threads");
        opt_check(amt <= ren.threads, opt, "too many threads (" + std::to_string(amt) + " > " + std::to_string(ren.threads) + ")");
        for (AxisType t : axis_types()) opt_check(t != AxisType::THREAD, opt, "already threaded");
        opt_check(detail::in_list(detail::globalizable_rngs(ast), rng), opt, "can't apply range to this dim");
        nt = AxisType::THREAD;
        break;
      }
      default: throw KernelOptError("apply_opt " + opt.repr() + ": unsupported on device " + ren.device);
    }
    shift_to(rng, amt, nt, opt.op == OptOps::THREAD);
    if (append_opt) applied_opts.push_back(opt);
  }

  // tinygrad's SWAP: two axes of one type trade places in the loop nest (their axis numbers), for GLOBAL
  // axes as in tinygrad and for LOOP axes, a CPU's
  void swap(const Opt& opt, const std::vector<U>& rs, const U& rng) {
    detail::opt_check(opt.arg >= 0 && std::size_t(opt.arg) < rs.size(), opt, "invalid axis to swap with (the kernel has " + std::to_string(rs.size()) + ")");
    const U alt = rs[std::size_t(opt.arg)];
    const AxisType rt = detail::range_type(rng);
    detail::opt_check(rt == detail::range_type(alt) && (rt == AxisType::GLOBAL || rt == AxisType::LOOP), opt, "swap only for two GLOBAL or two LOOP axes");
    auto with_axis_of = [](const U& r, const U& from) {
      ArgTuple a = from.arg().as_tuple();
      a.back() = r.arg().as_tuple().back();
      return r.replace({.arg = Arg(std::move(a)), .tag = Arg("swap")});
    };
    // tagged first: two ranges of one size would otherwise become each other mid-substitution
    const U r2 = with_axis_of(rng, alt), a2 = with_axis_of(alt, rng);
    ast = ast.substitute({{rng, r2}, {alt, a2}});
    ast = ast.substitute({{r2, r2.rtag(Arg())}, {a2, a2.rtag(Arg())}});
  }

  // tinygrad's PADTO: an output axis grows to a multiple of arg (so that it upcasts by arg); every buffer
  // access along it is gated to the old size (loads read 0, stores are skipped). Reduce axes are not padded
  // (tinygrad pads them only where every op on the way is safe to pad).
  void padto(const Opt& opt, const U& rng) {
    const AxisType rt = detail::range_type(rng);
    detail::opt_check(rt == AxisType::GLOBAL || rt == AxisType::LOOP, opt, "pad is for GLOBAL or LOOP axes, not " + std::string(axis_type_names[std::size_t(rt)]));
    detail::opt_check(rng.src(0).op() == Ops::CONST, opt, "only pad const");
    detail::opt_check(opt.arg > 1, opt, "pad to a multiple of at least 2");
    const std::int64_t sz = rng.src(0).arg().as_int(), padded = (sz + opt.arg - 1) / opt.arg * opt.arg;
    detail::opt_check(padded < 4 * sz, opt, "pad adds more than quadruple the work (" + std::to_string(sz) + " to " + std::to_string(padded) + ")");
    if (padded == sz) return;
    const U valid = rng < UOp::const_(dtypes::weakint, sz);
    std::vector<std::pair<UOp, UOp>> gated;
    for (const UOp& b : bufs()) {
      if (b.nsrc() < 2) continue;
      const UOp i = detail::get_idx(b.src(1));
      if (!detail::in_list(i.toposort(), rng)) continue;  // the toposort has i itself
      std::vector<UOp> src(b.src().begin(), b.src().end());
      src[1] = (valid & detail::get_valid(b.src(1))).where(i, UOp::invalid(i.dtype().count));
      gated.emplace_back(b, b.replace({.src = std::move(src)}));
    }
    ast = ast.substitute(gated);
    ast = ast.substitute({{rng, rng.replace({.src = std::vector<UOp>{UOp::const_(dtypes::weakint, padded)}})}});
  }

  // the AST with ranges flattened, ready for the expander
  U get_optimized_ast() const { return graph_rewrite(ast, pm_flatten_range); }

 private:
  std::int64_t next_axis_ = 0;
  mutable U rngs_ast_;  // the ast rngs_ was computed for
  mutable std::vector<U> rngs_;

  std::vector<std::size_t> sized_axes(std::initializer_list<AxisType> ts) const {
    std::vector<std::size_t> out;
    const auto fs = full_shape();
    for (std::size_t i : axes_of(ts)) if (fs[i] > 1) out.push_back(i);
    return out;
  }
  std::int64_t real_axis(const Opt& opt, std::size_t n) const {
    if (opt.axis < 0) return -1;
    if (opt.op == OptOps::UNROLL) {
      const auto u = unrollable_dims();
      if (std::size_t(opt.axis) >= u.size())
        throw KernelOptError("apply_opt " + opt.repr() + ": there are " + std::to_string(u.size()) + " unrollable axes");
      return std::int64_t(u[std::size_t(opt.axis)]);
    }
    if (opt.op == OptOps::GROUP || opt.op == OptOps::GROUPTOP) {
      const auto r = axes_of({AxisType::REDUCE});
      if (std::size_t(opt.axis) >= r.size())
        throw KernelOptError("apply_opt " + opt.repr() + ": there are " + std::to_string(r.size()) + " reduce axes");
      return std::int64_t(r[std::size_t(opt.axis)]);
    }
    detail::opt_check(std::size_t(opt.axis) < n, opt, "invalid axis (the kernel has " + std::to_string(n) + ")");
    return opt.axis;
  }
};
using Scheduler = BasicScheduler<UOp>;

}  // namespace mg
