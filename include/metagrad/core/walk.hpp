#pragma once
// Graph walks over UOps: toposort, substitute, addrspace. All iterative: a 100,000-deep chain is fine.
#include <optional>
#include <utility>
#include <vector>

#include "ptr_map.hpp"
#include "rewrite.hpp"
#include "uop.hpp"

namespace mg {

// Sources before users, each node once, in tinygrad's order (depth first, sources left to right).
inline std::vector<UOp> UOp::toposort() const {
  std::vector<UOp> out;
  if (!p_) return out;
  detail::PtrMap<char> seen;
  std::vector<std::pair<const detail::Node*, bool>> stack{{p_, false}};
  while (!stack.empty()) {
    auto [n, visited] = stack.back();
    stack.pop_back();
    if (seen.contains(n)) continue;
    if (visited) {
      seen.set(n, 1);
      out.push_back(from_node(n));
      continue;
    }
    stack.emplace_back(n, true);
    for (auto it = n->src.rbegin(); it != n->src.rend(); ++it)
      if (!seen.contains(it->node())) stack.emplace_back(it->node(), false);
  }
  return out;
}

namespace detail {
// substitute's rewriter: a node in the map becomes its value
struct SubstituteMap {
  PtrMap<UOp> map;
  std::optional<UOp> rewrite_view(NodeRef n, NoCtx*, int* fired) const {
    const UOp* r = map.find(n.p);
    if (!r) return std::nullopt;
    if (fired) *fired = 0;
    return *r;
  }
  std::string describe(std::size_t) const { return "substitute: the map leads from a node back to itself"; }
};
// an extra rewriter tried first, then the map (tinygrad's extra_pm + _substitute)
template <class RW> struct SubstituteWith {
  const RW& extra;
  const SubstituteMap& map;
  std::optional<UOp> rewrite_view(NodeRef n, NoCtx* ctx, int* fired) const {
    if (auto r = extra.rewrite_view(n, ctx, fired)) return r;
    if (auto r = map.rewrite_view(n, ctx, fired)) {
      if (fired) *fired = map_fired;
      return r;
    }
    return std::nullopt;
  }
  static constexpr int map_fired = 1 << 20;
  std::string describe(std::size_t i) const { return i == std::size_t(map_fired) ? map.describe(0) : extra.describe(i); }
};
// no extra rules
struct NoRules {
  std::optional<UOp> rewrite_view(NodeRef, NoCtx*, int*) const { return std::nullopt; }
  std::string describe(std::size_t) const { return {}; }
};
}  // namespace detail

// Replace nodes by others everywhere below this one, as tinygrad's substitute: a replaced node is
// replaced again while its replacement is in the map, and the replacement's sources are visited too.
// walk = true is tinygrad's substitute(walk=True): one pass, a replacement is left as it is.
inline UOp UOp::substitute(const std::vector<std::pair<UOp, UOp>>& map, bool walk) const {
  return substitute(map, detail::NoRules{}, walk);
}
template <class RW>
inline UOp UOp::substitute(const std::vector<std::pair<UOp, UOp>>& map, const RW& extra, bool walk) const {
  detail::SubstituteMap sm;
  for (const auto& [k, v] : map) if (!(k == v)) sm.map.set(k.node(), v);
  if (sm.map.size() == 0) return *this;
  const detail::SubstituteWith<RW> both{extra, sm};
  NoCtx none;
  return detail::RewriteEngine<detail::SubstituteWith<RW>, NoCtx>(both, &none, {.bottom_up = true, .walk = walk}).run(*this);
}

// The address space a value lives in (the seed's derivation): PARAM's own, BUFFER global, LOAD registers.
inline std::optional<AddrSpace> UOp::addrspace() const {
  std::optional<AddrSpace> result;
  detail::PtrMap<std::optional<AddrSpace>> memo;
  for (const UOp& u : toposort()) {
    std::optional<AddrSpace> r;
    const Ops o = u.op();
    if (o == Ops::PARAM) r = u.arg().is<ParamArg>() ? u.arg().as_param().addrspace : AddrSpace::GLOBAL;
    else if (o == Ops::BUFFER) r = AddrSpace::GLOBAL;
    else if (o == Ops::DEFINE_LOCAL) r = AddrSpace::LOCAL;
    else if (o == Ops::DEFINE_REG || o == Ops::LOAD) r = AddrSpace::REG;
    else if ((o == Ops::INDEX || o == Ops::CAST || o == Ops::AFTER || o == Ops::REDUCE || o == Ops::GEP ||
              GroupOp::Movement.contains(o)) && u.nsrc() > 0)
      r = *memo.find(u.src(0).node());
    else if (o == Ops::STACK || GroupOp::Elementwise.contains(o)) {
      bool same = true;
      for (const UOp& s : u.src()) {
        auto a = *memo.find(s.node());
        if (!a) continue;
        if (r && *r != *a) same = false;
        r = a;
      }
      if (!same) r.reset();
    }
    memo.set(u.node(), r);
    result = r;
  }
  return result;
}

}  // namespace mg
