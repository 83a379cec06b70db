#pragma once
// to_program: a kernel AST (a SINK of ENDed STOREs over RANGEs, as the scheduler makes it) to the linear
// Program every backend consumes. tinygrad's full_rewrite_to_sink (codegen/__init__.py) then linearize:
// each stage is a graph_rewrite with a rule set, in tinygrad's order.
//
// Kernel name: the SINK's arg when it is a string (anything not a C identifier character becomes '_'),
// else tinygrad's default, r_4_4 / E_16 (reduce or elementwise, then the loop sizes).
// PARAMs may carry UOp::param's NOOP source; the Program's PARAMs have none, as tinygrad's kernels.
#include <cctype>
#include <concepts>
#include <string>
#include <vector>

#include "../core/env.hpp"
#include "../core/extern_engine.hpp"
#include "../pattern/graph_rewrite.hpp"
#include "../symbolic/decompositions.hpp"
#include "../symbolic/sym.hpp"
#include "devectorizer.hpp"
#include "estimates.hpp"
#include "expander.hpp"
#include "gater.hpp"
#include "gpudims.hpp"
#include "heuristic.hpp"
#include "late_rewrite.hpp"
#include "linearizer.hpp"
#include "lower_index.hpp"
#include "opts.hpp"
#include "program.hpp"
#include "simplify.hpp"
#include "spec.hpp"
#include "target.hpp"

namespace mg {

namespace detail {
// early clean-up: the parts of tinygrad's pm_syntactic_sugar and rangeify_codegen a kernel AST needs
template <class D_ = void>
struct pm_early_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        // kernel PARAMs have no sources (UOp::param gives them a NOOP)
        rule(op<Ops::PARAM>(op<Ops::NOOP>).named("p"_n), [](const UOp& p) { return p.replace({.src = std::vector<UOp>{}}); }),
        // no NOOP in the kernel graph
        rule(op<Ops::NOOP>(var<"x">, etc), [](const UOp& x) { return x; }),
        // INDEX on a pointer INDEX concatenates them
        rule(op<Ops::INDEX>(op<Ops::INDEX>.named("i1"_n), etc).named("i2"_n), [](const UOp& i2, const UOp& i1) -> std::optional<UOp> {
          if (!i1.dtype().is_ptr || i2.dtype().is_ptr) return std::nullopt;
          std::vector<UOp> src(i1.src().begin(), i1.src().end());
          src.insert(src.end(), i2.src().begin() + 1, i2.src().end());
          return i2.replace({.src = std::move(src)});
        }),
        // early rangeify: an INDEX of an elementwise op indexes its sources
        rule(op<Ops::INDEX>(op<GroupOp::Elementwise | OpSet{Ops::CONST}>.named("x"_n), etc).named("idx"_n), [](const UOp& idx, const UOp& x) {
          std::vector<UOp> rest(idx.src().begin() + 1, idx.src().end()), src;
          for (const UOp& s : x.src()) src.push_back(s.index(rest));
          return x.replace({.src = std::move(src)});
        }));
  }
};
template <class = void> bool spec_on() {
#ifndef NDEBUG
  return true;
#else
  return getenv_int("SPEC", 0) > 0;
#endif
}
template <class = void> bool has_expand_ranges(const UOp& sink) {
  for (const UOp& u : sink.toposort())
    if (u.op() == Ops::RANGE && (range_type(u) == AxisType::UPCAST || range_type(u) == AxisType::UNROLL)) return true;
  return false;
}
template <class = void> std::string c_identifier(std::string s) {
  for (char& c : s) if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "k_" + s;
  return s;
}
}  // namespace detail
inline constexpr LazyRules<detail::pm_early_def<>> pm_early{};

// tinygrad's full_rewrite_to_sink: the kernel AST lowered to the graph linearize orders. threads gets
// the number of threads the kernel was split over (1 if not).
// opts: apply exactly these (tinygrad's KernelInfo.opts_to_apply) instead of the heuristic; applied gets the
// opts that were applied.
template <std::same_as<UOp> U>
U full_rewrite_to_sink(const U& ast, const Target& target, std::int64_t* threads = nullptr, const std::vector<Opt>* opts = nullptr,
                       std::vector<Opt>* applied = nullptr) {
  if (!ast || ast.op() != Ops::SINK) throw Error("to_program: the kernel AST must be a SINK, got " + (ast ? op_repr(ast.op()) : std::string("a null UOp")));
  Target ren = target;
  ren.noopt = ren.noopt || getenv_int("NOOPT", 0) > 0;
  std::int64_t nthreads = 1;
  U sink = graph_rewrite(ast, pm_early, RewriteOptions{.bottom_up = true});
  if (ast.tag().is_none()) {
    // a sum over one-hot masks of a loaded value is a load (indexing a tensor by a tensor)
    sink = graph_rewrite(sink, pm_load_collapse);
    // split ranges used as r % c, simplify, merge and shrink ranges
    detail::RangeSubCtx split;
    sink = graph_rewrite(sink, pm_split_ranges.template get<U>() + pm_flatten_range.template get<U>(), split);
    sink = graph_rewrite(graph_rewrite(sink, sym), pm_flatten_range);
    detail::RangeSubCtx simp;
    sink = graph_rewrite(sink, pm_flatten_range.template get<U>() + pm_simplify_ranges.template get<U>(), simp);
    // optimizations: the given opts, or tinygrad's hand_coded_optimizations unless NOOPT
    const BasicScheduler<U> k = apply_opts(sink, ren, opts);
    sink = k.get_optimized_ast();
    if (applied) *applied = k.applied_opts;
  }
  for (const UOp& u : sink.toposort())
    if (u.op() == Ops::RANGE && detail::range_type(u) == AxisType::THREAD) nthreads = u.vmax().clamped_int64() + 1;
  if (!sink.arg().template is<std::string>() || sink.arg().as_str().empty() || sink.arg().as_str() == "test")
    sink = sink.replace({.arg = Arg(detail::default_kernel_name(sink))});
  sink = graph_rewrite(sink, sym);  // postopt symbolic
  // expand: UPCAST/UNROLL ranges become vector lanes
  const bool expanded = detail::has_expand_ranges(sink);
  if (expanded) sink = graph_rewrite(sink, sym.template get<U>() + pm_pre_expander.template get<U>() + expander.template get<U>());
  // REDUCE -> accumulator in a DEFINE_REG
  detail::ReduceContext rctx{.partial_sums = ren.partial_sums};
  sink = graph_rewrite(sink, pm_reduce.template get<U>() + gep_pushing.template get<U>(), rctx);
  sink = detail::add_gpudims(sink);
  sink = graph_rewrite(sink, pm_add_loads);
  // devectorize (scalar code: vector ALUs split, gated indices simplified), then symbolic
  // with vector lanes, in one rewrite with sym as tinygrad (the lanes' offsets must be simplified to fold);
  // scalar kernels rewrite exactly as before
  if (expanded)
    sink = graph_rewrite(sink, sym.template get<U>() + devectorize.template get<U>() + devectorize_buf_and_index.template get<U>() +
                                   load_store_folding.template get<U>() + correct_load_store.template get<U>(), ren);
  else sink = graph_rewrite(graph_rewrite(sink, devectorize), sym);
  // weakint -> int32 / int64
  sink = graph_rewrite(sink, pm_lower_index_dtype);
  sink = graph_rewrite(sink, gep_pushing);
  sink = graph_rewrite(sink, symbolic);  // post index symbolic
  // decompositions for what the backend does not render
  sink = graph_rewrite(sink, symbolic_simple.template get<U>() + pm_late_rewrite.template get<U>(), ren);
  // tinygrad's pm_dtype_decomps: the fp8s the backend lacks are kept as bytes and computed in float32
  sink = do_dtype_decomps(sink, ren.supported_dtypes);
  sink = graph_rewrite(sink, symbolic_simple.template get<U>() + get_transcendental_patterns<U>(ren.ops, false));
  sink = graph_rewrite(sink, pm_move_gates_from_index);
  sink = graph_rewrite(sink, symbolic_simple.template get<U>() + pm_late_rewrite.template get<U>() + pm_render.template get<U>() + pm_split_ends.template get<U>(), ren);  // final rewrite
  if (ren.extra_matcher) sink = ren.extra_matcher(sink);
  detail::CFGContext cfg(sink);
  sink = graph_rewrite(sink, pm_add_control_flow, cfg, RewriteOptions{.bottom_up = true});
  if (threads) *threads = nthreads;
  return sink;
}

// the kernel AST as a linear Program for target (verified when SPEC=1, and always without NDEBUG)
template <std::same_as<UOp> U>  // a template parameter, so that only callers instantiate codegen
Program to_program(const U& ast, const Target& target, const std::vector<Opt>* opts = nullptr) {
  Program p;
  const U sink = full_rewrite_to_sink(ast, target, &p.threads, opts);
  p.name = detail::c_identifier(sink.arg().as_str());
  p.uops = add_ifs(linearize(sink));
  for (const UOp& u : p.uops) {
    if (u.op() == Ops::PARAM) p.params.push_back(u);
    if (u.op() == Ops::DEFINE_VAR) p.vars.push_back(u);
  }
  std::sort(p.params.begin(), p.params.end(), [](const UOp& a, const UOp& b) { return a.arg().as_param().slot < b.arg().as_param().slot; });
  // a slot may be missing: an input whose every read folded away (a mask that is never true)
  for (std::size_t i = 0; i < p.params.size(); ++i)
    if (p.params[i].arg().as_param().slot < 0 || (i && p.params[i].arg().as_param().slot == p.params[i - 1].arg().as_param().slot))
      throw Error("to_program: kernel " + p.name + " has PARAM slot " + std::to_string(p.params[i].arg().as_param().slot) + " twice or negative");
  // tinygrad sorts vars by their arg (name, min, max)
  std::sort(p.vars.begin(), p.vars.end(), [](const UOp& a, const UOp& b) {
    const Arg &x = a.arg(), &y = b.arg();
    if (x[0].as_str() != y[0].as_str()) return x[0].as_str() < y[0].as_str();
    if (x[1].as_int() != y[1].as_int()) return x[1].as_int() < y[1].as_int();
    return x[2].as_int() < y[2].as_int();
  });
  for (const UOp& u : p.uops) {
    const DType d = u.dtype().is_ptr ? u.dtype().base().scalar() : u.dtype().scalar();
    auto is_fp8 = [](DType x) { return x.scalar().is_fp8(); };
    // fp8 bytes may be loaded and stored; converting or computing in an fp8 the target lacks is left
    // to do_dtype_decomps: one still here is a codegen bug, named as such
    const bool fp8_math = (GroupOp::ALU.contains(u.op()) || (u.op() == Ops::CAST && !u.dtype().is_ptr)) &&
                          (is_fp8(d) || (u.nsrc() && is_fp8(u.src(0).dtype())));
    const DType fp8 = is_fp8(d) ? d : u.nsrc() ? u.src(0).dtype().scalar() : d;
    if (fp8_math && !target.supported_dtypes.contains(fp8))
      throw Error("to_program: kernel " + p.name + " still computes in " + fp8.repr() + " (in " + op_repr(u.op()) +
                  ") after its emulation on device " + target.device);
    if ((d == dtypes::float16 || d == dtypes::bfloat16) && !target.supported_dtypes.contains(d))
      throw Error("to_program: kernel " + p.name + " uses " + d.repr() + " (in " + op_repr(u.op()) + "), which device " + target.device +
                  " does not support");
  }
  detail::estimate(p);
  if (detail::spec_on()) verify(p);
  return p;
}

MG_ENGINE_TEMPLATE(UOp full_rewrite_to_sink<UOp>(const UOp&, const Target&, std::int64_t*, const std::vector<Opt>*, std::vector<Opt>*))
MG_ENGINE_TEMPLATE(Program to_program<UOp>(const UOp&, const Target&, const std::vector<Opt>*))

}  // namespace mg
