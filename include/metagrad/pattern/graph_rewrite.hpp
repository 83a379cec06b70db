#pragma once
// graph_rewrite: apply a rule set to a whole graph, memoized, to a fixed point, iteratively.
//
// Default order (tinygrad's graph_rewrite): a node's sources are rewritten first, then the node,
// again and again until no rule applies. With bottom_up = true (tinygrad's flag of that name) a node is
// rewritten to a fixed point first, before its sources are visited. walk = true is tinygrad's
// single-pass walk (no re-traversal into rewritten subtrees).
//
// bidirectional(pm, bpm) runs both, as tinygrad's graph_rewrite(sink, pm, bpm=bpm): bpm on a node
// before its sources, pm after. A bpm callback may throw mg::BottomUpGate to keep a node and skip
// its sources. A rule set that never settles raises mg::RewriteError naming the rules that kept firing.
#include "../core/rewrite.hpp"
#include "../core/uop.hpp"
#include "rules.hpp"

namespace mg {

template <class... R, class Ctx>
UOp graph_rewrite(const UOp& root, const RuleSet<R...>& rs, Ctx& ctx, RewriteOptions opt = {}) {
  return detail::RewriteEngine<RuleSet<R...>, Ctx>(rs, &ctx, opt).run(root);
}
template <class... R> UOp graph_rewrite(const UOp& root, const RuleSet<R...>& rs, RewriteOptions opt = {}) {
  NoCtx none;
  return graph_rewrite(root, rs, none, opt);
}

// a library's rule set (LazyRules) rewrites as the RuleSet it stands for
template <class D, class Ctx>
UOp graph_rewrite(const UOp& root, const LazyRules<D>& rs, Ctx& ctx, RewriteOptions opt = {}) {
  return graph_rewrite(root, rs.get(), ctx, opt);
}
// a pure one (detail::PureRules) skips what an earlier rewrite by it settled
template <class D> UOp graph_rewrite(const UOp& root, const LazyRules<D>& rs, RewriteOptions opt = {}) {
  if constexpr (detail::PureRules<D>) {
    NoCtx none;
    detail::RewriteEngine<std::remove_cvref_t<decltype(rs.get())>, NoCtx> engine(rs.get(), &none, opt);
    engine.settle(detail::settle_bit<D>(), detail::settle_marks<D>());
    return engine.run(root);
  } else {
    return graph_rewrite(root, rs.get(), opt);
  }
}

template <class PM, class BPM>
struct Bidirectional {
  const PM& pm;
  const BPM& bpm;
};
template <class PM, class BPM> Bidirectional<PM, BPM> bidirectional(const PM& pm, const BPM& bpm) { return {pm, bpm}; }

template <class PM, class BPM, class Ctx>
UOp graph_rewrite(const UOp& root, Bidirectional<PM, BPM> rw, Ctx& ctx, RewriteOptions opt = {}) {
  return detail::RewriteEngine<PM, Ctx, BPM>(&rw.pm, &rw.bpm, &ctx, opt).run(root);
}
template <class PM, class BPM> UOp graph_rewrite(const UOp& root, Bidirectional<PM, BPM> rw, RewriteOptions opt = {}) {
  NoCtx none;
  return graph_rewrite(root, rw, none, opt);
}

}  // namespace mg
