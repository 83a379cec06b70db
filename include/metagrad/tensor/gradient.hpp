#pragma once
// tinygrad's gradient.py: reverse-mode differentiation of a tensor graph (tensor/graph.hpp).
//
// pm_gradient is a rule set over forward nodes, one rule per op. A rule matches a node and returns
// the gradients of all its sources. The rule engine's callbacks return one node, so a rule returns a
// TUPLE with one source per source of the node, in order: the gradient of that source, or a NOOP
// where it gets none (tinygrad's None; tinygrad marks a missing gradient inside a TUPLE with a NOOP
// too). Shape arguments have slots like any source: RESHAPE gives (grad, NOOP), PAD (grad, NOOP, NOOP).
//
// The ctx is a GradientCtx: the gradient flowing into the node (tinygrad's ctx), the node, and the
// shapes and devices of the forward graph. tinygrad's UOp caches its shape and device; ours are found
// by walking the graph, so compute_gradient walks it once and the rules look them up.
//
// compute_gradient walks the nodes that lie between root and a target, users before sources, applies
// the rule to each with its gradient and sums what reaches a node from several users. DETACH stops
// the gradient. Gradients are built as tinygrad builds them; constants are shaped like the node they
// combine with (a CONST on its device, reshaped to ones and expanded, as Tensor::full makes them).
// An ALU op whose source broadcasts implicitly (shape_of allows a () CONST next to a (3,) tensor)
// gives that source the gradient summed back to its shape.
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../core/error.hpp"
#include "../core/extern_engine.hpp"
#include "../core/ptr_map.hpp"
#include "../core/uop.hpp"
#include "../core/uop_map.hpp"
#include "../pattern/rules.hpp"
#include "graph.hpp"

namespace mg {

// The forward graph under root: its nodes (sources first), their shapes and devices.
class ForwardGraph {
 public:
  template <class = void> explicit ForwardGraph(const UOp& root) : nodes_(root.toposort()) {
    for (const UOp& n : nodes_) {
      std::vector<const std::optional<Shape>*> src;
      for (const UOp& s : n.src()) src.push_back(shapes_.find(s.node()));
      shapes_.set(n.node(), detail::node_shape(n, src));
      // tinygrad's UOp.device: a DEVICE is one, COPY and BUFFER name theirs, others take their first source's
      UOp dev;
      if (n.op() == Ops::DEVICE) dev = n;
      else if ((n.op() == Ops::COPY || n.op() == Ops::BUFFER) && n.nsrc() > 1) dev = *devices_.find(n.src(1).node());
      else for (const UOp& s : n.src()) if ((dev = *devices_.find(s.node()))) break;
      devices_.set(n.node(), dev);
    }
  }
  const std::vector<UOp>& nodes() const { return nodes_; }
  const Shape& shape(const UOp& u) const {
    const std::optional<Shape>* s = shapes_.find(u.node());
    if (!s) throw Error("gradient: " + op_repr(u.op()) + " is not in the forward graph");
    if (!*s) throw Error("gradient: " + op_repr(u.op()) + " has no shape");
    return **s;
  }
  // the DEVICE node u lives on, null when none
  UOp device(const UOp& u) const {
    const UOp* d = devices_.find(u.node());
    return d ? *d : UOp{};
  }

 private:
  std::vector<UOp> nodes_;  // keeps the nodes the maps are keyed by alive
  detail::PtrMap<std::optional<Shape>> shapes_;
  detail::PtrMap<UOp> devices_;
};

// What a gradient rule is given: the gradient flowing into node, shaped like it.
struct GradientCtx {
  const ForwardGraph& fwd;
  UOp node, grad;

  const Shape& shape(const UOp& u) const { return fwd.shape(u); }
  // a constant shaped like node, on its device (tinygrad's const_like); of grad's dtype unless told
  template <class = void> UOp full(Arg v, std::optional<DType> dtype = std::nullopt) const {
    const DType dt = dtype.value_or(grad.dtype()).scalar();
    const UOp dev = fwd.device(node);
    const UOp c(Ops::CONST, dt, dev ? std::vector<UOp>{dev} : std::vector<UOp>{}, normalize_const(dt, v));
    const Shape& s = shape(node);
    if (s.empty()) return c;
    const UOp ones = mop_reshape(c, Shape(s.size(), 1));
    return s == Shape(s.size(), 1) ? ones : mop_expand(ones, s);
  }
  template <class = void> UOp neg(const UOp& u) const { return u * full(-1, u.dtype()); }  // u shaped like node
};

namespace detail {
// a rule's answer: one gradient per source, std::nullopt for none
template <class = void> UOp no_grad(std::nullopt_t) { return UOp(Ops::NOOP); }
template <class = void> UOp no_grad(const UOp& g) { return g; }
template <class... G> UOp grads(const G&... g) { return UOp(Ops::TUPLE, dtypes::void_, {no_grad(g)...}); }

// g of shape `from` summed to `to`, which broadcasts to `from` (aligned at the right): what EXPAND gives back
template <class = void> UOp sum_to(const UOp& g, const Shape& from, const Shape& to) {
  const Shape padded = [&] { Shape p(from.size() - to.size(), 1); p.insert(p.end(), to.begin(), to.end()); return p; }();
  std::vector<std::int64_t> axes;
  for (std::size_t i = 0; i < from.size(); ++i) if (padded[i] != from[i]) axes.push_back(std::int64_t(i));
  const UOp r = axes.empty() ? g : rop(g.cast(sum_acc_dtype(g.dtype())), Ops::ADD, axes).cast(g.dtype());
  return padded == to ? r : mop_reshape(r, to);
}
// u of a reduction's shape (reduced axes kept as 1) expanded back to the input's
template <class = void> UOp expand_to(const UOp& u, const Shape& from, const Shape& to) { return from == to ? u : mop_expand(u, to); }

template <class = void> std::optional<UOp> reduce_gradient(const GradientCtx& ctx, const UOp& ret, const UOp& x) {
  const Shape &out = ctx.shape(ret), &in = ctx.shape(x);
  auto to_input = [&](const UOp& u) { return expand_to(u, out, in); };
  switch (ret.arg()[0].as_op()) {
    case Ops::ADD: return grads(to_input(ctx.grad));
    case Ops::MAX: {  // the gradient is shared evenly by the elements equal to the max
      const UOp mask = x.cmpeq(to_input(ret)).cast(ctx.grad.dtype());
      std::vector<std::int64_t> axes;
      for (const Arg& a : ret.arg()[1].as_tuple()) axes.push_back(a.as_int());
      return grads(mask / to_input(rop(mask, Ops::ADD, axes)) * to_input(ctx.grad));
    }
    case Ops::MUL: return grads(to_input(ctx.grad * ret) / x);
    default: return std::nullopt;
  }
}
}  // namespace detail

// tinygrad's pm_gradient, plus rules it lacks for NEG, SUB, CMPEQ, and FLOORDIV and CDIV (no gradient:
// they are piecewise constant; tinygrad raises on them). x.eq(y) is one CMPEQ here, where tinygrad
// writes x.ne(y).logical_not().
namespace detail {
template <class D_ = void>
struct pm_gradient_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    using G = const GradientCtx&;
    constexpr double ln2 = std::numbers::ln2, inf = std::numeric_limits<double>::infinity();
    return rules(
        // elementwise
        rule(op<Ops::CAST>(var<"x">), [](G ctx, const UOp& x) { return grads(ctx.grad.cast(x.dtype())); }),
        rule(op<Ops::RECIPROCAL>.named("ret"_n), [](G ctx, const UOp& ret) { return grads(ctx.neg(ctx.grad) * ret * ret); }),
        rule(op<Ops::SIN>(var<"x">), [](G ctx, const UOp& x) {  // cos(x) = sin(pi/2 - x)
          return grads((ctx.full(std::numbers::pi / 2, x.dtype()) + ctx.neg(x)).sin() * ctx.grad);
        }),
        rule(op<Ops::LOG2>(var<"x">), [=](G ctx, const UOp& x) { return grads(ctx.grad / (x * ctx.full(ln2, x.dtype()))); }),
        rule(op<Ops::EXP2>.named("ret"_n), [=](G ctx, const UOp& ret) { return grads(ret * ctx.grad * ctx.full(ln2)); }),
        rule(op<Ops::SQRT>.named("ret"_n), [](G ctx, const UOp& ret) { return grads(ctx.grad / (ret * ctx.full(2, ret.dtype()))); }),
        rule(op<Ops::TRUNC>, [](G ctx) { return grads(ctx.full(0)); }),
        rule(op<Ops::NEG>, [](G ctx) { return grads(ctx.neg(ctx.grad)); }),
        // piecewise constant: comparisons, integer division, bitcast
        rule(op<Ops::CMPLT, Ops::CMPNE, Ops::CMPEQ, Ops::FLOORDIV, Ops::CDIV>, [](G) { return grads(std::nullopt, std::nullopt); }),
        rule(op<Ops::BITCAST>, [](G) { return grads(std::nullopt); }),
        rule(op<Ops::ADD>, [](G ctx) { return grads(ctx.grad, ctx.grad); }),
        rule(op<Ops::SUB>, [](G ctx) { return grads(ctx.grad, ctx.neg(ctx.grad)); }),
        rule(op<Ops::MUL>(var<"x">, var<"y">), [](G ctx, const UOp& x, const UOp& y) { return grads(y * ctx.grad, x * ctx.grad); }),
        // b**e: d/db = e*b**(e-1), d/de = b**e*ln(b), with tinygrad's values where b is 0
        rule(op<Ops::POW>(var<"b">, var<"e">).named("ret"_n), [=](G ctx, const UOp& ret, const UOp& b, const UOp& e) {
          const UOp b0 = b.cmpeq(ctx.full(0, b.dtype())), e0 = e.cmpeq(ctx.full(0, e.dtype()));
          const UOp db = (b0 & e0).where(e, e * b.pow(e + ctx.full(-1, e.dtype())));
          const UOp neg_e = e < ctx.full(0, e.dtype());
          const UOp de = b0.where(neg_e.where(ctx.full(-inf, ret.dtype()), ctx.full(0, ret.dtype())),
                                  ret * b.log2() * ctx.full(ln2, ret.dtype()));
          return grads(ctx.grad * db, ctx.grad * de);
        }),
        // max: the larger source gets the gradient, equal sources half each
        rule(op<Ops::MAX>(var<"x">, var<"y">), [](G ctx, const UOp& x, const UOp& y) {
          const UOp half = x.cmpeq(y).where(ctx.grad * ctx.full(0.5), ctx.full(0));
          return grads((y < x).where(ctx.grad, half), (x < y).where(ctx.grad, half));
        }),
        rule(op<Ops::WHERE>(var<"c">, upat, upat), [](G ctx, const UOp& c) {
          return grads(std::nullopt, c.where(ctx.grad, ctx.full(0)), c.where(ctx.full(0), ctx.grad));
        }),
        rule(op<Ops::REDUCE>(var<"x">).named("ret"_n), [](G ctx, const UOp& ret, const UOp& x) { return detail::reduce_gradient(ctx, ret, x); }),
        rule(op<Ops::CONTIGUOUS>, [](G ctx) { return grads(ctx.grad); }),
        rule(op<Ops::CONTIGUOUS_BACKWARD>, [](G ctx) { return grads(UOp(Ops::CONTIGUOUS, ctx.grad.dtype(), {ctx.grad})); }),
        rule(op<Ops::COPY>(var<"x">, upat), [](G ctx, const UOp& x) {
          return grads(UOp(Ops::COPY, ctx.grad.dtype(), {ctx.grad, ctx.fwd.device(x)}), std::nullopt);
        }),
        // movement: the inverse movement
        rule(op<Ops::RESHAPE>(var<"x">, upat), [](G ctx, const UOp& x) { return grads(mop_reshape(ctx.grad, ctx.shape(x)), std::nullopt); }),
        rule(op<Ops::EXPAND>(var<"x">, upat), [](G ctx, const UOp& x) {
          return grads(detail::sum_to(ctx.grad, ctx.shape(ctx.node), ctx.shape(x)), std::nullopt);
        }),
        rule(op<Ops::PAD>(var<"x">, upat, upat).named("ret"_n), [](G ctx, const UOp& ret, const UOp& x) {  // (offset, new size) -> (offset, old size)
          std::vector<std::pair<std::int64_t, std::int64_t>> s;
          for (std::size_t i = 0; auto [o, n] : mop_pairs(ret)) s.emplace_back(o, ctx.shape(x)[i++]);
          return grads(mop_shrink(ctx.grad, s), std::nullopt, std::nullopt);
        }),
        rule(op<Ops::SHRINK>(var<"x">, upat, upat).named("ret"_n), [](G ctx, const UOp& ret, const UOp& x) {  // (start, size) -> (start, old size)
          std::vector<std::pair<std::int64_t, std::int64_t>> p;
          for (std::size_t i = 0; auto [o, n] : mop_pairs(ret)) p.emplace_back(o, ctx.shape(x)[i++]);
          return grads(mop_pad(ctx.grad, p), std::nullopt, std::nullopt);
        }),
        rule(op<Ops::PERMUTE>.named("ret"_n), [](G ctx, const UOp& ret) {
          const ArgTuple& order = ret.arg().as_tuple();
          std::vector<std::int64_t> inverse(order.size());
          for (std::size_t i = 0; i < order.size(); ++i) inverse[std::size_t(order[i].as_int())] = std::int64_t(i);
          return grads(mop_permute(ctx.grad, inverse));
        }),
        rule(op<Ops::FLIP>.named("ret"_n), [](G ctx, const UOp& ret) {
          std::vector<bool> axes;
          for (const Arg& a : ret.arg().as_tuple()) axes.push_back(a.as_bool());
          return grads(mop_flip(ctx.grad, axes));
        }));
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::pm_gradient_def<>> pm_gradient{};

// tinygrad's compute_gradient: d(root)/d(target) for each target, given the gradient flowing into
// root (root_grad, shaped like root). A target root does not depend on gets no entry.
// A template, so that a translation unit that never differentiates never instantiates pm_gradient.
template <std::same_as<UOp> U>
UOpMap<U> compute_gradient(const U& root, const U& root_grad, const std::vector<U>& targets) {
  if (!root || !root_grad) throw Error("compute_gradient: null UOp");
  const ForwardGraph fwd(root);
  if (auto s = shape_of(root_grad); !s || *s != fwd.shape(root))
    throw Error("compute_gradient: root_grad of shape " + (s ? shape_str(*s) : "None") + " for a root of shape " + shape_str(fwd.shape(root)));
  detail::PtrMap<char> is_target, on_path;  // on_path: a source is a target or on the path
  for (const UOp& t : targets) if (t) is_target.set(t.node(), 1);
  auto wanted = [&](const UOp& u) { return is_target.contains(u.node()) || on_path.contains(u.node()); };
  for (const UOp& n : fwd.nodes())
    for (const UOp& s : n.src())
      if (wanted(s)) { on_path.set(n.node(), 1); break; }

  detail::PtrMap<UOp> grads;
  grads.set(root.node(), root_grad);
  const auto& nodes = fwd.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const U& t0 = *it;  // a dependent type: pm_gradient is instantiated with this function
    const UOp* g = grads.find(t0.node());
    if (!g || !on_path.contains(t0.node()) || t0.op() == Ops::DETACH) continue;
    const GradientCtx ctx{fwd, t0, *g};
    const std::optional<UOp> lgrads = pm_gradient.rewrite(t0, &ctx);
    if (!lgrads)
      throw Error("compute_gradient: no gradient rule for " + op_repr(t0.op()) + " (" + t0.dtype().repr() + " " + shape_str(fwd.shape(t0)) + ")");
    if (lgrads->op() != Ops::TUPLE || lgrads->nsrc() != t0.nsrc())
      throw Error("compute_gradient: the rule for " + op_repr(t0.op()) + " gave " + std::to_string(lgrads->nsrc()) + " gradients for " +
                  std::to_string(t0.nsrc()) + " sources");
    for (std::size_t i = 0; i < t0.nsrc(); ++i) {
      const UOp &k = t0.src(i), &v = lgrads->src(i);
      if (v.op() == Ops::NOOP || !wanted(k)) continue;
      const UOp fit = GroupOp::Elementwise.contains(t0.op()) ? detail::sum_to(v, fwd.shape(t0), fwd.shape(k)) : v;
      UOp& acc = grads.at(k.node());
      acc = acc ? acc + fit : fit;
    }
  }
  UOpMap<UOp> out;
  for (const UOp& t : targets)
    if (const UOp* g = t ? grads.find(t.node()) : nullptr) out.emplace(t, *g);
  return out;
}

MG_ENGINE_TEMPLATE(UOpMap<UOp> compute_gradient<UOp>(const UOp&, const UOp&, const std::vector<UOp>&))

}  // namespace mg
