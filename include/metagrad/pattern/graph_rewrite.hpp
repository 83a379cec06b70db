#pragma once
// graph_rewrite: apply a rule set to a whole graph, memoized, to a fixed point, iteratively.
//
// Default order (tinygrad's graph_rewrite): a node's sources are rewritten first, then the node,
// again and again until no rule applies. With bottom_up = true (tinygrad's flag of that name) a node is
// rewritten to a fixed point first, before its sources are visited. walk = true is tinygrad's
// single-pass walk (no re-traversal into rewritten subtrees).
//
// A rule set that never settles raises mg::RewriteError naming the rules that kept firing.
#include "../core/rewrite.hpp"
#include "../core/uop.hpp"
#include "rules.hpp"

namespace mg {

template <class... R>
UOp graph_rewrite(const UOp& root, const RuleSet<R...>& rs, RewriteOptions opt = {}) {
  NoCtx none;
  return detail::RewriteEngine<RuleSet<R...>, NoCtx>(rs, &none, opt).run(root);
}
template <class... R, class Ctx>
UOp graph_rewrite(const UOp& root, const RuleSet<R...>& rs, Ctx& ctx, RewriteOptions opt = {}) {
  return detail::RewriteEngine<RuleSet<R...>, Ctx>(rs, &ctx, opt).run(root);
}

}  // namespace mg
