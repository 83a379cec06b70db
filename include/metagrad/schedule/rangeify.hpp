#pragma once
// The scheduler: tinygrad's rangeify (schedule/indexing.py run_rangeify, schedule/rangeify.py). It turns
// the tensor graph under a set of roots into kernels.
//
// 1. Ranges. Walking from the roots to the leaves, every node gets the index expressions its output is
//    read at (its "out ranges", UOps over RANGEs) and passes index expressions to its sources (its
//    "in ranges"): movement ops rewrite them (apply_movement_op), a REDUCE opens new REDUCE ranges.
// 2. Realize decisions, as run_rangeify makes them: roots, CONTIGUOUS, COPY and COPY's source are
//    always realized; a node whose consumers read it at different indices is realized; an elementwise
//    op or REDUCE under an EXPAND that drops a range (the range "ends" there) is realized. A realized
//    node that was not forced is then inlined again (tinygrad's remove_bufferize cost function) unless
//    it reads more than 3 buffers or holds a REDUCE that reads a buffer: cheap elementwise work is
//    recomputed, reductions are not.
// 3. Kernels. Each realized node becomes one kernel AST in tinygrad's form:
//    SINK(END(STORE(INDEX(PARAM 0, idx), value), ranges...)), where the value indexes its inputs with
//    INDEX(PARAM i, idx) (a load; a padded index is `valid.where(idx, Invalid)`), REDUCE(value, ranges)
//    reduces, and ranges are renumbered from 0 so that identical kernels are the same interned UOp.
//
// 0. Before all that, tinygrad's split_reduceop: a reduce of at least REDUCEOP_SPLIT_THRESHOLD (32768;
//    16384 for a CPU schedule, see split_threshold) inputs per output becomes two kernels, the first with
//    up to 256 outputs, so that it runs on several threads (SPLIT_REDUCEOP=0 turns it off, as in tinygrad).
//
// A root may be given a target BUFFER (tinygrad's assign: a STORE into the target): its kernel writes
// there instead of into a new buffer.
//
// 4. The kernel buffer limit (MAX_KERNEL_BUFFERS, tinygrad's limit_bufs): where a kernel would read more
//    buffers than the limit allows, the elementwise sources of the binary and ternary op that goes over
//    it are realized, and steps 1 and 2 run again with them.
//
// Differences from tinygrad, on purpose for now: a node read at different indices is realized whole
// (tinygrad with PCONTIG=0 does the same), never into a LOCAL buffer.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../core/env.hpp"
#include "../core/error.hpp"
#include "../core/extern_engine.hpp"
#include "../core/ptr_map.hpp"
#include "../core/uop.hpp"
#include "../codegen/ranges.hpp"  // ranges_of, and get_idx / get_valid of `valid.where(idx, Invalid)`
#include "../codegen/simplify.hpp"  // pm_reduce_simplify
#include "../symbolic/symbolic.hpp"
#include "../tensor/graph.hpp"

namespace mg {

// One step of a schedule: a kernel (ast is a SINK; bufs[i] is bound to PARAM slot i, slot 0 is the
// output) or a copy between devices (ast is a COPY; bufs is {destination, source}).
// The memory planner (engine/memory.hpp) may bind several buffers to one arena: offsets[i], when
// present, is the byte offset of bufs[i]'s data in it.
struct ScheduleItem {
  UOp ast;
  std::vector<UOp> bufs;
  std::string device;
  std::vector<std::int64_t> offsets;
};

struct Schedule {
  std::vector<ScheduleItem> items;
  std::vector<UOp> outputs;  // for each root, the BUFFER that holds its value, row-major in its shape
};

namespace detail {

template <class = void> UOp windex(std::int64_t v) { return UOp::const_(dtypes::weakint, Arg(v)); }

// tinygrad's apply_movement_op: the index expressions of the source from those of the output
template <class T = void>
std::vector<UOp> apply_movement_op(const UOp& x, const Shape& in_shape, const Shape& out_shape, std::vector<UOp> rngs) {
  switch (x.op()) {
    case Ops::SHRINK: {
      const auto pairs = mop_pairs(x);
      for (std::size_t i = 0; i < rngs.size(); ++i)
        if (pairs[i].first != 0) rngs[i] = rngs[i] + windex(pairs[i].first);
      return rngs;
    }
    case Ops::PERMUTE: {
      const ArgTuple& perm = x.arg().as_tuple();
      std::vector<UOp> out(rngs.size());
      for (std::size_t i = 0; i < perm.size(); ++i) out[std::size_t(perm[i].as_int())] = rngs[i];
      return out;
    }
    case Ops::FLIP: {
      const ArgTuple& flip = x.arg().as_tuple();
      for (std::size_t i = 0; i < rngs.size(); ++i)
        if (flip[i].as_bool()) rngs[i] = windex(in_shape[i] - 1) - rngs[i];
      return rngs;
    }
    case Ops::EXPAND:
      for (std::size_t i = 0; i < rngs.size(); ++i)
        if (in_shape[i] != out_shape[i]) rngs[i] = windex(0);
      return rngs;
    case Ops::PAD: {
      const auto pairs = mop_pairs(x);
      for (std::size_t i = 0; i < rngs.size(); ++i) {
        const auto [off, sz] = pairs[i];
        if (sz == in_shape[i] && off == 0) continue;
        const UOp& r = rngs[i];
        const UOp valid = simplify((r >= windex(off)) & (r < windex(in_shape[i] + off)));
        rngs[i] = valid.where(r - windex(off), UOp::invalid());
      }
      return rngs;
    }
    case Ops::RESHAPE: {
      // flatten the output indices, then split the flat index by the input shape; symbolic folds the
      // divisions and remainders away where the shapes line up (tinygrad's _apply_reshape)
      // Done per group of axes whose sizes multiply to the same product (size-1 axes index 0): a
      // reshape that adds or drops ones, or merges or splits a few axes, gives small expressions, which
      // symbolic folds far faster than one flat index over the whole shape.
      auto split = [&](std::size_t o0, std::size_t o1, std::size_t i0, std::size_t i1, std::vector<UOp>& axes) {
        UOp combined = windex(0);
        std::int64_t acc = 1;
        for (std::size_t i = o1; i-- > o0;) {
          combined = combined + rngs[i] * windex(acc);
          acc *= out_shape[i];
        }
        for (std::size_t i = i1; i-- > i0;) {
          axes[i] = combined % windex(in_shape[i]);
          combined = i == i0 ? combined : combined.floordiv(windex(in_shape[i]));
        }
      };
      std::vector<UOp> axes(in_shape.size(), windex(0));
      if (axes.empty()) return axes;
      const bool grouped = std::none_of(in_shape.begin(), in_shape.end(), [](std::int64_t d) { return d == 0; }) &&
                           std::none_of(out_shape.begin(), out_shape.end(), [](std::int64_t d) { return d == 0; });
      if (!grouped) split(0, out_shape.size(), 0, in_shape.size(), axes);
      for (std::size_t i = 0, o = 0; grouped;) {
        while (i < in_shape.size() && in_shape[i] == 1) ++i;
        while (o < out_shape.size() && out_shape[o] == 1) ++o;
        if (i == in_shape.size() || o == out_shape.size()) break;
        std::size_t i1 = i + 1, o1 = o + 1;
        std::int64_t pi = in_shape[i], po = out_shape[o];
        while (pi != po) {
          if (pi < po && i1 < in_shape.size()) pi *= in_shape[i1++];
          else if (po < pi && o1 < out_shape.size()) po *= out_shape[o1++];
          else throw Error("apply_movement_op: reshape of " + shape_str(in_shape) + " into " + shape_str(out_shape) + " changes the size");
        }
        if (i1 - i == 1 && o1 - o == 1) axes[i] = rngs[o];
        else split(o, o1, i, i1, axes);
        i = i1, o = o1;
      }
      const UOp s = simplify(UOp::sink(axes));
      return std::vector<UOp>(s.src().begin(), s.src().end());
    }
    default: throw Error("apply_movement_op: " + op_repr(x.op()) + " is not a movement op");
  }
}

// A target a kernel can store through (tinygrad's assign into a view): a BUFFER, or RESHAPE, PERMUTE,
// SHRINK and FLIP ops over one, so that each element of the view is one element of the buffer. (A PAD has
// elements that are no buffer's; an EXPAND writes one element several times.)
template <class = void> bool store_view_ok(const UOp& target) {
  const UOp* u = &target;
  for (; u->op() != Ops::BUFFER; u = &u->src(0))
    if (!OpSet{Ops::RESHAPE, Ops::PERMUTE, Ops::SHRINK, Ops::FLIP}.contains(u->op())) return false;
  return true;
}

template <class T = void>
class Rangeify {
 public:
  Rangeify(const std::vector<UOp>& roots, std::string device, std::vector<UOp> targets = {})
      : roots_(roots), default_device_(std::move(device)), targets_(std::move(targets)) {
    targets_.resize(roots_.size());
  }

  Schedule run() {
    Schedule sched;
    for (const UOp& r : roots_)
      if (!r) throw Error("schedule: a root is a null UOp");
    for (std::size_t i = 0; i < roots_.size(); ++i) {
      if (!targets_[i]) continue;
      const std::optional<Shape> rs = shape_of(roots_[i]);
      const bool whole = targets_[i].op() == Ops::BUFFER && rs && targets_[i].arg().as_int() == shape_prod(*rs);
      if (!whole && !(store_view_ok(targets_[i]) && rs && shape_of(targets_[i]) == rs))
        throw Error("schedule: the target of root " + std::to_string(i) + " is neither a BUFFER of its size nor a view of one in its shape " +
                    "(RESHAPE, PERMUTE, SHRINK, FLIP over a BUFFER)");
    }
    topo_ = UOp::sink(roots_).toposort();
    if (split_reduces()) topo_ = UOp::sink(roots_).toposort();
    topo_.pop_back();  // the SINK
    info_.resize(topo_.size());
    for (std::size_t k = 0; k < topo_.size(); ++k) index_.set(topo_[k].node(), k);
    analyse();
    for (std::size_t i = 0; i < roots_.size(); ++i)
      if (buffer_of(roots_[i]).op() != Ops::BUFFER || targets_[i]) at(roots_[i]).realize = Forced;
    assign_ranges();
    decide_inlining();
    // the kernel buffer limit: realize more nodes, then decide ranges and inlining again with them
    if (const std::size_t max_bufs = kernel_buffer_limit()) {
      std::vector<Realize> forced(info_.size());
      for (std::size_t k = 0; k < info_.size(); ++k) forced[k] = info_[k].realize == Forced ? Forced : None;
      while (limit_buffers(max_bufs, forced)) {
        next_range_ = 0;
        for (std::size_t k = 0; k < info_.size(); ++k) {
          Info& in = info_[k];
          in.has_rngs = false, in.in.clear(), in.out.clear(), in.ending.clear();
          in.realize = forced[k], in.inlined = false;
        }
        assign_ranges();
        decide_inlining();
      }
    }
    for (std::size_t k = 0; k < topo_.size(); ++k) {
      Info& in = info_[k];
      if (!in.kept()) continue;
      emit(topo_[k], sched);
    }
    for (const UOp& r : roots_) sched.outputs.push_back(buffer_of(r).op() == Ops::BUFFER ? buffer_of(r) : at(r).buffer);
    return sched;
  }

  // tinygrad's split_reduceop over the whole graph: rebuilds the roots when a reduce is split
  bool split_reduces() {
    static const bool on = getenv_int("SPLIT_REDUCEOP", 1) != 0;
    if (!on || std::none_of(topo_.begin(), topo_.end(), [](const UOp& u) { return u.op() == Ops::REDUCE; })) return false;
    detail::PtrMap<std::optional<Shape>> shapes;
    detail::PtrMap<UOp> repl;
    bool changed = false;
    for (const UOp& n : topo_) {
      std::vector<const std::optional<Shape>*> src_shapes;
      std::vector<UOp> src;
      bool moved = false;
      for (const UOp& s : n.src()) {
        src_shapes.push_back(shapes.find(s.node()));
        const UOp* r = repl.find(s.node());
        src.push_back(r ? *r : s);
        moved = moved || r;
      }
      const std::optional<Shape> shape = detail::node_shape(n, src_shapes);
      // a copy: the pointers into `shapes` do not survive the set below (the map may grow)
      const std::optional<Shape> xshape = n.op() == Ops::REDUCE && src_shapes[0] ? *src_shapes[0] : std::nullopt;
      shapes.set(n.node(), shape);
      UOp m = moved ? n.replace({.src = std::move(src)}) : n;
      if (n.op() == Ops::REDUCE && shape && xshape)
        if (std::optional<UOp> sp = split_reduceop(m, *shape, *xshape, shapes)) m = *sp;
      if (m != n) {
        shapes.set(m.node(), shape);
        repl.set(n.node(), m);
        changed = true;
      }
    }
    if (!changed) return false;
    for (std::size_t i = 0; i < roots_.size(); ++i)
      if (const UOp* r = repl.find(roots_[i].node())) roots_[i] = *r;
    return true;
  }
  // tinygrad's REDUCEOP_SPLIT_THRESHOLD: the inputs per output from which a reduce is split, 32768. metagrad
  // splits from 16384 on the CPU: its CPU kernels have no grouped (LOCAL) reductions, so an unsplit reduce
  // streams all of its inputs once per tile of outputs (beautiful_mnist's conv4 weight gradient, 18,432 per
  // output over 12.7 MB of inputs, ran 143 -> 63 ms on one thread split). The variable, when set, is used
  // on every device.
  std::int64_t split_threshold() const {
    static const std::int64_t env = getenv_int("REDUCEOP_SPLIT_THRESHOLD", -1);
    if (env >= 0) return env;
    return default_device_ == "CPU" || default_device_.rfind("CPU:", 0) == 0 ? 16384 : 32768;
  }
  std::optional<UOp> split_reduceop(const UOp& reduce, const Shape& rshape, const Shape& xshape, detail::PtrMap<std::optional<Shape>>& shapes) const {
    static const std::int64_t split_size = getenv_int("REDUCEOP_SPLIT_SIZE", 22);
    const std::int64_t rprod = shape_prod(rshape);
    if (rprod == 0 || shape_prod(xshape) / rprod < split_threshold()) return std::nullopt;
    // which axes of x reach its base (the first non-movement node below it): an expanded axis does not,
    // and splitting it would reduce copies of the same values in the first kernel
    const UOp& x = reduce.src(0);
    std::vector<UOp> idx;
    for (std::size_t i = 0; i < xshape.size(); ++i) idx.push_back(xshape[i] > 1 ? UOp::range(xshape[i], std::int64_t(i)) : windex(0));
    for (UOp cur = x; GroupOp::Movement.contains(cur.op()); cur = cur.src(0)) {
      const auto* in_shape = shapes.find(cur.src(0).node());
      const auto* out_shape = shapes.find(cur.node());
      if (!in_shape || !*in_shape || !out_shape || !*out_shape) return std::nullopt;
      idx = apply_movement_op(cur, **in_shape, **out_shape, idx);
    }
    std::vector<bool> reaches(xshape.size(), false);
    if (!idx.empty())
      for (const UOp& r : ranges_of(UOp::sink(idx))) reaches[std::size_t(r.arg()[0].as_int())] = true;
    const std::int64_t max_div = std::min<std::int64_t>(256, (std::int64_t(1) << split_size) / rprod);
    std::optional<std::pair<std::size_t, std::int64_t>> cand;
    for (const Arg& a : reduce.arg()[1].as_tuple()) {
      const std::size_t i = std::size_t(a.as_int());
      for (std::int64_t d = max_div; d >= 8 && !cand; --d)
        if (xshape[i] % d == 0 && reaches[i]) cand = {i, d};
      if (cand) break;
    }
    if (!cand) return std::nullopt;
    const auto [dim, divisor] = *cand;
    Shape split_shape(xshape.begin(), xshape.begin() + std::ptrdiff_t(dim));
    split_shape.push_back(divisor);
    split_shape.push_back(xshape[dim] / divisor);
    split_shape.insert(split_shape.end(), xshape.begin() + std::ptrdiff_t(dim) + 1, xshape.end());
    std::vector<std::int64_t> perm;
    for (std::size_t d = 0; d < split_shape.size(); ++d)
      if (d != dim) perm.push_back(std::int64_t(d));
    perm.push_back(std::int64_t(dim));
    const UOp reshaped = mop_reshape(x, split_shape), splitted = mop_permute(reshaped, perm);
    Shape permuted;
    for (std::int64_t d : perm) permuted.push_back(split_shape[std::size_t(d)]);
    shapes.set(reshaped.node(), split_shape);
    shapes.set(splitted.node(), permuted);
    // reduce the original axes (those of size 1 drop out, as tinygrad's _rop), then the split one; the
    // first reduce is split again while it is still big (tinygrad's rewrite reaches it too)
    std::vector<std::int64_t> axes;
    Shape inner_shape = permuted;
    for (const Arg& a : reduce.arg()[1].as_tuple()) {
      const std::size_t i = std::size_t(a.as_int());
      if (permuted[i] != 1) axes.push_back(a.as_int());
      inner_shape[i] = 1;
    }
    const Ops op = reduce.arg()[0].as_op();
    UOp inner = rop(splitted, op, axes);
    if (inner.op() == Ops::REDUCE)
      if (std::optional<UOp> sp = split_reduceop(inner, inner_shape, permuted, shapes)) inner = *sp;
    const UOp first = UOp(Ops::CONTIGUOUS, reduce.dtype(), {inner});
    return mop_reshape(rop(first, op, {std::int64_t(rshape.size())}), rshape);
  }

 private:
  enum Realize : std::uint8_t { None, Forced, Realized };
  struct Info {
    std::optional<Shape> shape;
    std::string device;
    std::vector<std::size_t> consumers;
    bool has_rngs = false;
    std::vector<UOp> in, out;  // index expressions given to the sources / of the output
    std::vector<UOp> ending;   // ranges that end at an EXPAND above
    Realize realize = None;
    bool inlined = false;  // realized, then recomputed in place by its consumers
    UOp buffer;            // the BUFFER a kept realized node is stored into
    UOp expr;              // its value in terms of `out` (memoized)
    bool kept() const { return realize != None && !inlined; }
  };

  std::vector<UOp> roots_;
  std::string default_device_;
  std::vector<UOp> targets_;  // per root: the BUFFER its kernel stores into, or null for a new one
  std::vector<UOp> topo_;
  std::vector<Info> info_;
  detail::PtrMap<std::size_t> index_;
  std::int64_t next_range_ = 0;

  std::size_t idx(const UOp& u) const { return *index_.find(u.node()); }
  Info& at(const UOp& u) { return info_[idx(u)]; }

  // a root that only reshapes a BUFFER is that buffer, row-major already: no kernel
  static UOp buffer_of(UOp r) {
    while (r.op() == Ops::RESHAPE) r = r.src(0);
    return r;
  }
  static bool is_index_node(const UOp& u) { return u.dtype().scalar() == dtypes::weakint; }
  static bool passthrough(Ops op) { return op == Ops::CONTIGUOUS || op == Ops::DETACH || op == Ops::CONTIGUOUS_BACKWARD; }
  static bool is_elementwise(Ops op) { return GroupOp::ALU.contains(op) || op == Ops::CAST || op == Ops::BITCAST; }
  // the sources that carry values (movement ops' shape arguments, devices and uniques do not)
  static std::size_t nvalue_srcs(const UOp& u) {
    switch (u.op()) {
      case Ops::BUFFER: case Ops::CONST: case Ops::DEVICE: case Ops::UNIQUE: return 0;
      case Ops::COPY: return 1;
      default: break;
    }
    if (GroupOp::Movement.contains(u.op())) return 1;
    return u.nsrc();
  }

  UOp new_range(std::int64_t size, AxisType t = AxisType::LOOP) {
    if (size == 1) return windex(0);
    return UOp::range(size, next_range_++, t);
  }

  // shapes, devices, consumers; rejects what the scheduler cannot run
  void analyse() {
    static const std::optional<Shape> no_shape;
    for (std::size_t k = 0; k < topo_.size(); ++k) {
      const UOp& u = topo_[k];
      Info& in = info_[k];
      const Ops op = u.op();
      if (op == Ops::DEVICE || op == Ops::UNIQUE || is_index_node(u)) continue;
      std::vector<const std::optional<Shape>*> src_shapes;
      for (const UOp& s : u.src()) src_shapes.push_back(index_.find(s.node()) ? &info_[idx(s)].shape : &no_shape);
      in.shape = node_shape(u, src_shapes);
      if (op == Ops::BUFFER || op == Ops::COPY) in.device = u.src(1).arg().as_str();
      else if (op == Ops::CONST && u.nsrc() && u.src(0).op() == Ops::DEVICE) in.device = u.src(0).arg().as_str();
      else
        for (const UOp& s : u.src())
          if (index_.find(s.node()) && !info_[idx(s)].device.empty()) { in.device = info_[idx(s)].device; break; }
      if (in.device.empty()) in.device = default_device_;
      const bool supported = op == Ops::BUFFER || op == Ops::CONST || op == Ops::COPY || op == Ops::CONTIGUOUS ||
                             op == Ops::DETACH || op == Ops::CONTIGUOUS_BACKWARD || op == Ops::REDUCE || GroupOp::Movement.contains(op) || is_elementwise(op);
      if (!supported) throw Error("schedule: cannot schedule " + op_repr(op) + " (" + u.dtype().repr() + ")");
      if (u.dtype().count != 1) throw Error("schedule: " + op_repr(op) + " has vector dtype " + u.dtype().repr());
      for (std::size_t i = 0; i < nvalue_srcs(u); ++i) info_[idx(u.src(i))].consumers.push_back(k);
      if (op == Ops::CONTIGUOUS) in.realize = Forced;
      if (op == Ops::COPY) {
        in.realize = Forced;
        if (u.src(0).op() != Ops::BUFFER) at(u.src(0)).realize = Forced;
      }
    }
  }

  // tinygrad's run_rangeify: ranges from the roots down, with the realize decisions
  void assign_ranges() {
    for (std::size_t k = topo_.size(); k-- > 0;) {
      const UOp& x = topo_[k];
      Info& in = info_[k];
      const Ops op = x.op();
      if (!in.shape || op == Ops::BUFFER || op == Ops::CONST || shape_prod(*in.shape) == 0) continue;
      const Shape& shape = *in.shape;
      for (std::size_t c : in.consumers) {
        const auto& e = info_[c].ending;
        in.ending.insert(in.ending.end(), e.begin(), e.end());
      }
      std::vector<const std::vector<UOp>*> consumer_rngs;
      for (std::size_t c : in.consumers)
        if (info_[c].has_rngs) consumer_rngs.push_back(&info_[c].in);

      std::vector<UOp> out;
      if (in.realize != None) {
        out = fresh_ranges(shape);
        in.ending.clear();
      } else if (consumer_rngs.empty()) {
        continue;
      } else if (consumer_rngs.size() == 1) {
        out = *consumer_rngs[0];
      } else {
        bool all_same = true;
        for (std::size_t i = 0; all_same && i < shape.size(); ++i)
          for (const auto* cr : consumer_rngs) all_same = all_same && get_idx((*cr)[i]) == get_idx((*consumer_rngs[0])[i]);
        if (all_same) {
          for (std::size_t i = 0; i < shape.size(); ++i) {
            UOp valid = UOp::const_(dtypes::bool_, Arg(false));
            for (const auto* cr : consumer_rngs) valid = valid | get_valid((*cr)[i]);
            out.push_back(simplify(valid.where(get_idx((*consumer_rngs[0])[i]), UOp::invalid())));
          }
        } else {
          in.realize = Realized;
          out = fresh_ranges(shape);
        }
      }
      // an elementwise op or a reduce below an EXPAND that ends a range is realized
      if (!in.ending.empty() && (is_elementwise(op) || op == Ops::REDUCE)) {
        if (in.realize == None && !shape.empty()) {
          in.realize = Realized;
          out = fresh_ranges(shape);
        }
        in.ending.clear();
      }

      std::vector<UOp> rngs = out;
      if (GroupOp::Movement.contains(op)) {
        const Shape& src_shape = *info_[idx(x.src(0))].shape;
        rngs = apply_movement_op(x, src_shape, shape, rngs);
        if (op == Ops::EXPAND)
          for (std::size_t i = 0; i < rngs.size(); ++i)
            if (rngs[i] != out[i])
              for (const UOp& r : ranges_of(out[i])) in.ending.push_back(r);
      }
      if (op == Ops::REDUCE) {
        const Shape& src_shape = *info_[idx(x.src(0))].shape;
        for (const Arg& a : x.arg()[1].as_tuple()) {
          const std::size_t i = std::size_t(a.as_int());
          rngs[i] = new_range(src_shape[i], AxisType::REDUCE);
        }
      }
      in.in = std::move(rngs);
      in.out = std::move(out);
      in.has_rngs = true;
    }
  }
  std::vector<UOp> fresh_ranges(const Shape& shape) {
    std::vector<UOp> out;
    for (std::int64_t s : shape) out.push_back(new_range(s));
    return out;
  }

  // tinygrad's remove_bufferize: a realized node that was not forced is recomputed by its consumers
  // unless it reads more than 3 buffers or one of its reductions reads a buffer
  void decide_inlining() {
    for (std::size_t k = 0; k < topo_.size(); ++k) {
      if (info_[k].realize != Realized) continue;
      std::vector<UOp> buffers, reduces;
      walk_inputs(topo_[k], buffers, &reduces);
      bool reduce_reads = false;
      for (const UOp& r : reduces) {
        std::vector<UOp> b;
        walk_inputs(r, b, nullptr);
        reduce_reads = reduce_reads || !b.empty();
      }
      info_[k].inlined = buffers.size() <= 3 && !reduce_reads;
    }
  }
  // tinygrad's MAX_KERNEL_BUFFERS: at most this many buffers in one kernel, the output included (0: no
  // limit, as on every device here; tinygrad's own limits are METAL's 31 and WEBGPU's 8). Read at every
  // schedule, as tinygrad reads its context variable.
  static std::size_t kernel_buffer_limit() {
    const std::int64_t v = getenv_int("MAX_KERNEL_BUFFERS", 0);
    if (v != 0 && v < 3)
      throw Error("schedule: MAX_KERNEL_BUFFERS=" + std::to_string(v) + " is too small: a kernel of a binary op needs its output and two inputs (at least 3; 0 means no limit)");
    return std::size_t(v);
  }
  // tinygrad's limit_bufs: a binary or ternary op whose kernel would read more than max_bufs - 1 buffers
  // has its elementwise sources realized (marked in `forced`), each a kernel of its own. Sources come
  // before consumers in topo_, so the lowest such op splits first and the ops above it count the new
  // buffers. A kernel whose inputs cannot be split further (a ternary op over three buffers with a limit
  // of 3) keeps them, as in tinygrad. Returns whether anything was marked.
  bool limit_buffers(std::size_t max_bufs, std::vector<Realize>& forced) {
    bool changed = false;
    for (std::size_t k = 0; k < topo_.size(); ++k) {
      const UOp& x = topo_[k];
      if (!info_[k].shape || !(GroupOp::Binary.contains(x.op()) || GroupOp::Ternary.contains(x.op()))) continue;
      std::vector<UOp> buffers;
      walk_inputs(x, buffers, nullptr);
      if (buffers.size() < max_bufs) continue;
      for (const UOp& s : x.src()) {
        Info& si = at(s);
        if (!is_elementwise(s.op()) || si.kept() || !si.shape || shape_prod(*si.shape) == 0) continue;
        si.realize = Forced, si.inlined = false;  // the walks of the ops above see it as a buffer now
        forced[idx(s)] = Forced;
        changed = true;
      }
    }
    return changed;
  }

  // the buffers (BUFFERs and kept realized nodes) x's computation reads, and its REDUCEs
  void walk_inputs(const UOp& x, std::vector<UOp>& buffers, std::vector<UOp>* reduces) {
    std::vector<UOp> stack;
    detail::PtrMap<std::uint8_t> seen;
    for (std::size_t i = 0; i < nvalue_srcs(x); ++i) stack.push_back(x.src(i));
    if (reduces && x.op() == Ops::REDUCE) reduces->push_back(x);
    while (!stack.empty()) {
      UOp u = stack.back();
      stack.pop_back();
      if (seen.contains(u.node())) continue;
      seen.set(u.node(), 1);
      const Info& in = at(u);
      if (u.op() == Ops::BUFFER || in.kept()) {
        buffers.push_back(u);
        continue;
      }
      if (reduces && u.op() == Ops::REDUCE) reduces->push_back(u);
      for (std::size_t i = 0; i < nvalue_srcs(u); ++i) stack.push_back(u.src(i));
    }
  }

  // the flat index into a row-major buffer of `shape` from per-axis index expressions
  static UOp flat_index(const std::vector<UOp>& rngs, const Shape& shape) {
    UOp valid = UOp::const_(dtypes::bool_, Arg(true)), e = windex(0);
    std::int64_t stride = 1;
    for (std::size_t i = rngs.size(); i-- > 0;) {
      e = e + get_idx(rngs[i]) * windex(stride);
      stride *= shape[i];
      const UOp v = get_valid(rngs[i]);
      if (!(v.op() == Ops::CONST && v.arg().py_equals(Arg(true)))) valid = valid & v;
    }
    return simplify(valid.where(e, UOp::invalid()));
  }

  // x's value at its out ranges
  UOp expr(const UOp& x) {
    Info& in = at(x);
    if (in.expr) return in.expr;
    const Ops op = x.op();
    const Shape& shape = *in.shape;
    UOp r;
    if (shape_prod(shape) == 0) {
      r = UOp::const_(x.dtype(), Arg(std::int64_t(0)));
    } else if (op == Ops::CONST) {
      r = UOp::const_(x.dtype(), x.arg());
    } else if (op == Ops::REDUCE) {
      const Ops rop = x.arg()[0].as_op();
      if (shape_prod(*at(x.src(0)).shape) == 0) {
        r = UOp::const_(x.dtype(), identity_element(rop, x.dtype()));
      } else {
        std::vector<UOp> rr;
        for (const Arg& a : x.arg()[1].as_tuple())
          if (in.in[std::size_t(a.as_int())].op() == Ops::RANGE) rr.push_back(in.in[std::size_t(a.as_int())]);
        r = src_value(x, x.src(0)).reduce(rop, rr);
      }
    } else if (op == Ops::PAD) {
      UOp valid = UOp::const_(dtypes::bool_, Arg(true));
      for (const UOp& rg : in.in) valid = valid & get_valid(rg);
      r = simplify(valid).where(src_value(x, x.src(0)), UOp::const_(x.dtype(), Arg(std::int64_t(0))));
    } else if (GroupOp::Movement.contains(op) || op == Ops::CONTIGUOUS || op == Ops::DETACH || op == Ops::CONTIGUOUS_BACKWARD) {
      r = src_value(x, x.src(0));
    } else if (is_elementwise(op)) {
      std::vector<UOp> src;
      for (const UOp& s : x.src()) src.push_back(src_value(x, s));
      r = x.replace({.src = std::move(src)});
    } else {
      throw Error("schedule: no kernel form for " + op_repr(op));
    }
    return in.expr = r;
  }

  // source s of x, read at x's in ranges
  UOp src_value(const UOp& x, const UOp& s) {
    const Info& xi = at(x);
    const Info& si = at(s);
    if (s.op() == Ops::BUFFER) return s.index({xi.in.at(0)});
    if (s.op() == Ops::CONST) return expr(s);
    if (si.kept()) return si.buffer.index({flat_index(xi.in, *si.shape)});
    if (si.inlined) {
      std::vector<std::pair<UOp, UOp>> sub;
      for (std::size_t i = 0; i < si.out.size(); ++i)
        if (si.out[i].op() == Ops::RANGE && !is_invalid(xi.in[i])) sub.emplace_back(si.out[i], xi.in[i]);
      return expr(s).substitute(sub);
    }
    return expr(s);
  }

  UOp root_target(const UOp& x) const {
    for (std::size_t i = 0; i < roots_.size(); ++i)
      if (targets_[i] && roots_[i] == x) return targets_[i];
    return UOp();
  }

  void emit(const UOp& x, Schedule& sched) {
    Info& in = at(x);
    const Shape& shape = *in.shape;
    const DType dt = x.dtype();
    if (shape_prod(shape) == 0) {
      in.buffer = new_buffer(in.device, 0, dt);
      return;
    }
    UOp target = root_target(x);
    if (target && target.op() != Ops::BUFFER && x.op() == Ops::COPY) target = UOp();  // a copy writes whole buffers
    // a CONTIGUOUS (or a root) of a node already stored whole is that node's buffer: no copy kernel
    if (!target && passthrough(x.op()) && at(x.src(0)).kept() && *at(x.src(0)).shape == shape) {
      in.buffer = at(x.src(0)).buffer;
      return;
    }
    // a view target: the kernel stores into its buffer at the view's index, as a load through it reads
    UOp view_index;
    if (target && target.op() != Ops::BUFFER) {
      std::vector<UOp> chain;  // the movement ops, top to bottom
      for (const UOp* u = &target; u->op() != Ops::BUFFER; u = &u->src(0)) chain.push_back(*u);
      std::vector<UOp> rngs = in.out;
      for (const UOp& m : chain) rngs = apply_movement_op(m, *shape_of(m.src(0)), *shape_of(m), std::move(rngs));
      view_index = rngs.at(0);
      target = chain.back().src(0);
    }
    in.buffer = target ? target : new_buffer(in.device, shape_prod(shape), dt);
    if (x.op() == Ops::COPY) {
      const UOp& s = x.src(0);
      sched.items.push_back({x, {in.buffer, s.op() == Ops::BUFFER ? s : at(s).buffer}, in.device, {}});
      return;
    }
    const UOp value = expr(x);
    const UOp store = in.buffer.index({view_index ? view_index : flat_index(in.out, shape)}).store(value);
    std::vector<UOp> ends;
    for (const UOp& r : in.out)
      if (r.op() == Ops::RANGE) ends.push_back(r);
    // symbolic and reduce_simplify first, as tinygrad runs them on the rangeified graph: they fold
    // what makes a buffer unused (an arange summed over a mask is a clamp: reduce_collapse), and
    // codegen's range merging expects reduces without unused ranges
    UOp ast = graph_rewrite(UOp::sink(store.end(ends)), symbolic.template get<T>() + pm_reduce_simplify.template get<T>());
    // buffers become PARAMs (the output is slot 0), ranges are renumbered from 0
    std::vector<UOp> bufs{in.buffer};
    std::vector<std::pair<UOp, UOp>> sub;
    // the output's ranges first, in the order of its dims (tinygrad numbers them on the store's
    // multi-dim INDEX: the loops nest as the output's axes, batch outermost), then the others
    std::int64_t next_axis = 0;
    std::vector<std::pair<UOp, UOp>> sub2;
    auto number = [&](const UOp& r) {
      if (std::any_of(sub.begin(), sub.end(), [&](const auto& p) { return p.first == r; })) return;
      sub.emplace_back(r, r.replace({.arg = ArgTuple{Arg((std::int64_t(1) << 40) + next_axis), r.arg()[1]}}));
      sub2.emplace_back(sub.back().second, r.replace({.arg = ArgTuple{Arg(next_axis++), r.arg()[1]}}));
    };
    const std::vector<UOp> topo = ast.toposort();
    for (const UOp& r : ends)
      if (std::find(topo.begin(), topo.end(), r) != topo.end()) number(r);
    for (const UOp& u : topo) {
      if (u.op() == Ops::BUFFER) {
        if (u != in.buffer) bufs.push_back(u);
      } else if (u.op() == Ops::RANGE) {
        number(u);
      }
    }
    for (std::size_t i = 0; i < bufs.size(); ++i)
      sub.emplace_back(bufs[i], UOp::param(std::int64_t(i), bufs[i].dtype().ptr(bufs[i].arg().as_int())));
    sched.items.push_back({ast.substitute(sub).substitute(sub2), std::move(bufs), in.device, {}});
  }
};

}  // namespace detail

// The kernels that compute roots (tensor-graph nodes), in an order that runs producers first.
// Nodes with no device of their own (a bare CONST) get `device`.
template <class T = void>
Schedule create_schedule(const std::vector<UOp>& roots, const std::string& device = "CPU") {
  return detail::Rangeify<T>(roots, device).run();
}
// The same, with the kernel of roots[i] storing into targets[i] (where not null) rather than into a new
// buffer: tinygrad's assign. A target is a BUFFER of the root's element count, or a view of a BUFFER in
// the root's shape (store_view_ok: the kernel writes the viewed elements, the others keep theirs); the
// root's output is then that BUFFER. The caller checks the hazard (the kernel reading the target at other
// indices than it writes, see engine/realize.hpp).
template <class T = void>
Schedule create_schedule_into(const std::vector<UOp>& roots, const std::vector<UOp>& targets, const std::string& device = "CPU") {
  return detail::Rangeify<T>(roots, device, targets).run();
}

MG_ENGINE_TEMPLATE(Schedule create_schedule<void>(const std::vector<UOp>&, const std::string&))
MG_ENGINE_TEMPLATE(Schedule create_schedule_into<void>(const std::vector<UOp>&, const std::vector<UOp>&, const std::string&))

}  // namespace mg
