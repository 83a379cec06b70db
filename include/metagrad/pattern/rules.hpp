#pragma once
// Rules and rule sets. rule(pattern, callback) pairs a pattern with what to build from its captures;
// rules(...) makes a set whose dispatch table by root op is computed at compile time, so a node
// only tries the rules that can match its op. Sets compose with +.
//
// The callback receives one parameter per named capture, in order of first appearance in the
// pattern (a pattern's own name first, then its sources left to right), optionally preceded by the
// ctx. It returns a replacement, or nothing: a null UOp or std::nullopt.
#include <array>
#include <cstddef>
#include <optional>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>

#include "../core/uop.hpp"
#include "upat.hpp"

namespace mg {


namespace detail {
template <class... N> struct capture_names_are {};  // shows up in errors: the names a callback must take

template <class F, class = void> struct fixed_arity : std::integral_constant<int, -1> {};  // generic lambda: unknown
template <class F> struct fixed_arity<F, std::void_t<decltype(&F::operator())>> {
  template <class R, class C, class... A> static constexpr int count(R (C::*)(A...) const) { return int(sizeof...(A)); }
  template <class R, class C, class... A> static constexpr int count(R (C::*)(A...)) { return int(sizeof...(A)); }
  static constexpr int value = count(&F::operator());
};
template <class R, class... A> struct fixed_arity<R (*)(A...), void> : std::integral_constant<int, int(sizeof...(A))> {};

template <class Names, int Arity> constexpr bool check_callback_arity() {
  constexpr int k = int(boost::mp11::mp_size<Names>::value);
  static_assert(Arity < 0 || Arity == k || Arity == k + 1,
                "rule callback: it must take one parameter per named capture of its pattern, in order of first "
                "appearance (the pattern's own name, then its sources left to right), optionally preceded by ctx");
  return true;
}

// turn what a callback returned into optional<handle>
template <class H, class R> constexpr std::optional<H> as_result(R&& r) {
  using T = std::remove_cvref_t<R>;
  if constexpr (std::is_same_v<T, std::optional<H>>) return std::forward<R>(r);
  else if constexpr (std::is_same_v<T, std::nullopt_t>) return std::nullopt;
  else if constexpr (std::is_convertible_v<R, H>) {
    H h = std::forward<R>(r);
    if (!h) return std::nullopt;
    return h;
  } else {
    static_assert(std::is_convertible_v<R, H>, "rule callback: return a node (null for no rewrite) or std::optional of a node");
    return std::nullopt;
  }
}
template <class> inline constexpr bool always_false = false;
}  // namespace detail

template <class P, class F>
struct Rule {
  P pat;
  F fn;
  std::source_location loc;
  using names = typename P::names;
  static constexpr std::size_t ncap = boost::mp11::mp_size<names>::value;

  std::string location() const { return std::string(loc.file_name()) + ":" + std::to_string(loc.line()); }

  // match n; on each match call fn with the captures (and ctx); the first non-null result wins and is
  // written to `out`, which a rule that does not fire leaves alone (no optional moved per rule tried)
  // whether the callback takes nodes of handle type H (with or without ctx). A rule written for UOp
  // alone ([](UOp x) {...}) is skipped on the nodes of a compile-time graph, unmatched: a rule set
  // such as `symbolic` rewrites a ct::Graph with those of its rules whose callbacks are generic
  // (each question asked only when the one before is no: asking a generic lambda whether it takes
  // (ctx, nodes...) instantiates its body with them)
  template <class H, class Ctx> static constexpr bool takes() {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      if constexpr (std::is_invocable_v<const F&, decltype((void)I, std::declval<H>())...>) return true;
      else if constexpr (!std::is_same_v<Ctx, NoCtx>) return std::is_invocable_v<const F&, Ctx&, decltype((void)I, std::declval<H>())...>;
      else return false;
    }(std::make_index_sequence<ncap>{});
  }

  template <class N, class Ctx, class H>
  constexpr bool apply_into(const N& n, Ctx* ctx, std::optional<H>& out) const {
    if constexpr (std::is_same_v<H, UOp>) return apply_matched(n, ctx, out);  // a UOp callback that does not fit is an error
    else if constexpr (takes<H, Ctx>()) return apply_matched(n, ctx, out);
    else return false;
  }

 private:
  template <class N, class Ctx, class H>
  constexpr bool apply_matched(const N& n, Ctx* ctx, std::optional<H>& out) const {
    detail::Captures<N, ncap> caps{};
    bool hit = pat.template match<names>(n, caps, [&]() -> bool {
      out = call<H>(caps, ctx, std::make_index_sequence<ncap>{});
      return out.has_value();
    });
    // returning the node itself is no rewrite, and (as in tinygrad) ends this rule's matching
    if (hit && to_view(*out) == n) out.reset(), hit = false;
    return hit;
  }
  // A runtime node's captures reach the callback as borrowed handles (no reference count touched): a
  // callback taking const UOp& costs nothing per capture, one taking UOp copies it (an atomic increment
  // and decrement each)
  template <class H, class N, class Ctx, std::size_t... I>
  constexpr std::optional<H> call(const detail::Captures<N, ncap>& caps, Ctx* ctx, std::index_sequence<I...>) const {
    if constexpr (std::is_same_v<N, NodeRef>) {
      const std::array<detail::Borrowed, ncap> b{detail::Borrowed(caps.v[I])...};
      if constexpr (std::is_invocable_v<const F&, decltype((void)I, std::declval<const UOp&>())...>)
        return detail::as_result<H>(fn(b[I].get()...));
      else if constexpr (!std::is_same_v<Ctx, NoCtx> && std::is_invocable_v<const F&, Ctx&, decltype((void)I, std::declval<const UOp&>())...>)
        return detail::as_result<H>(fn(*ctx, b[I].get()...));
      else return call_handles<H>(caps, ctx, std::index_sequence<I...>{});
    } else return call_handles<H>(caps, ctx, std::index_sequence<I...>{});
  }
  template <class H, class N, class Ctx, std::size_t... I>
  constexpr std::optional<H> call_handles(const detail::Captures<N, ncap>& caps, Ctx* ctx, std::index_sequence<I...>) const {
    if constexpr (std::is_invocable_v<const F&, decltype((void)I, std::declval<H>())...>)
      return detail::as_result<H>(fn(to_handle(caps.v[I])...));
    else if constexpr (!std::is_same_v<Ctx, NoCtx> && std::is_invocable_v<const F&, Ctx&, decltype((void)I, std::declval<H>())...>)
      return detail::as_result<H>(fn(*ctx, to_handle(caps.v[I])...));
    else {
      static_assert(detail::always_false<detail::capture_names_are<names>>,
                    "rule callback cannot be called with this pattern's captures: it must take one node per named "
                    "capture, in order of first appearance, optionally preceded by the ctx type graph_rewrite was given");
      return std::nullopt;
    }
  }
};

template <Pattern P, class F>
constexpr Rule<P, F> rule(P p, F f, std::source_location loc = std::source_location::current()) {
  static_assert(detail::check_callback_arity<typename P::names, detail::fixed_arity<F>::value>());
  return {p, f, loc};
}

namespace detail {
// A rule set's rules live in a Tup (upat.hpp: one base per element). Every access expands the indices
// and the rule types in lockstep, so no lookup of "the type of rule I" is ever instantiated: with a
// hundred large rule types, std::tuple or an mp_at_c per access cost tens of seconds of compile time.
template <class R> inline constexpr OpSet rule_root = root_ops<decltype(R::pat)>::value;
template <class R> constexpr bool rule_may_match(Ops o) { return rule_root<R>.empty() || rule_root<R>.contains(o); }
}  // namespace detail

template <class... R>
struct RuleSet {
  Tup<R...> list;
  static constexpr std::size_t size = sizeof...(R);

  // Rewrite one node with the first rule that matches and returns something. `fired` gets its index.
  template <class N, class Ctx = NoCtx, class H = decltype(to_handle(std::declval<N>()))>
  constexpr std::optional<H> rewrite_view(const N& n, Ctx* ctx = nullptr, int* fired = nullptr) const {
    // runtime UOps always take the per-op table; nodes of a constexpr graph walk the rules in order
    if constexpr (std::is_same_v<N, NodeRef>) return table_rewrite<N, Ctx, H>(n, ctx, fired);
    else {
      if (std::is_constant_evaluated()) return fold_rewrite<H>(n, ctx, fired, std::index_sequence_for<R...>{});
      return table_rewrite<N, Ctx, H>(n, ctx, fired);
    }
  }
  template <class Ctx = NoCtx>
  std::optional<UOp> rewrite(const UOp& u, Ctx* ctx = nullptr, int* fired = nullptr) const {
    return rewrite_view(to_view(u), ctx, fired);
  }

  // "file:line  UPat(...)" for rule i, for errors and the viewer
  std::string describe(std::size_t i) const {
    std::string out;
    for_each_rule([&](std::size_t k, const auto& r) { if (k == i) out = r.location() + "  " + r.pat.str(); });
    return out;
  }
  std::source_location location(std::size_t i) const {
    std::source_location out;
    for_each_rule([&](std::size_t k, const auto& r) { if (k == i) out = r.loc; });
    return out;
  }
  // how many rules a node of op o tries (the rest are dropped at compile time)
  static constexpr int rules_for(Ops o) { return (int(detail::rule_may_match<R>(o)) + ... + 0); }
  // f(index, rule) for every rule, in order
  template <class F> constexpr void for_each_rule(F&& f) const { for_each_impl(f, std::index_sequence_for<R...>{}); }

 private:
  template <class F, std::size_t... I> constexpr void for_each_impl(F& f, std::index_sequence<I...>) const {
    (f(I, static_cast<const detail::TupLeaf<I, R>&>(list).v), ...);
  }
  // At run time a node goes through one function per op, made at compile time: the rules whose root
  // can have that op, tried in order, inlined one after another (no loop over a rule list).
  template <class N, class Ctx, class H>
  std::optional<H> table_rewrite(const N& n, Ctx* ctx, int* fired) const {
    static constexpr auto table = op_table<N, Ctx, H>(std::make_index_sequence<num_ops>{});
    return table[std::size_t(n.op())](*this, n, ctx, fired);
  }
  template <class N, class Ctx, class H>
  using OpFn = std::optional<H> (*)(const RuleSet&, const N&, Ctx*, int*);
  template <class N, class Ctx, class H, std::size_t... O>
  static constexpr std::array<OpFn<N, Ctx, H>, num_ops> op_table(std::index_sequence<O...>) {
    return {pick_op_fn<N, Ctx, H, O>()...};
  }
  template <class N, class Ctx, class H, std::size_t O>
  static constexpr OpFn<N, Ctx, H> pick_op_fn() {
    if constexpr ((detail::rule_may_match<R>(Ops(O)) || ...)) return &op_rewrite<N, Ctx, H, O>;
    else return &no_rule<N, Ctx, H>;
  }
  template <class N, class Ctx, class H>
  static std::optional<H> no_rule(const RuleSet&, const N&, Ctx*, int*) { return std::nullopt; }
  template <class N, class Ctx, class H, std::size_t O>
  static std::optional<H> op_rewrite(const RuleSet& rs, const N& n, Ctx* ctx, int* fired) {
    std::optional<H> out;
    rs.op_fold<O>(n, ctx, fired, out, std::index_sequence_for<R...>{});
    return out;
  }
  // the rules that cannot match op O drop out at compile time; each rule's matcher is one function
  template <std::size_t O, class N, class Ctx, class H, std::size_t... I>
  void op_fold(const N& n, Ctx* ctx, int* fired, std::optional<H>& out, std::index_sequence<I...>) const {
    (void)((detail::rule_may_match<R>(Ops(O)) && prefilter<I, R>(n) && try_rule<I, R>(n, ctx, fired, out)) || ...);
  }
  // the inline test before a rule's out-of-line matcher (Pat::may_match), on runtime nodes
  template <std::size_t I, class Rl, class N> constexpr bool prefilter(const N& n) const {
    if constexpr (std::is_same_v<N, NodeRef>) return static_cast<const detail::TupLeaf<I, Rl>&>(list).v.pat.may_match(n);
    else return true;
  }
  // one out-of-line function per rule, however many ops its root allows: inlining a matcher into the
  // function of every op it can match multiplies the compiler's work for a few percent at run time
  template <std::size_t I, class Rl, class N, class Ctx, class H>
  [[gnu::noinline]] constexpr bool try_rule(const N& n, Ctx* ctx, int* fired, std::optional<H>& out) const {
    const bool hit = static_cast<const detail::TupLeaf<I, Rl>&>(list).v.apply_into(n, ctx, out);
    if (hit && fired) *fired = int(I);
    return hit;
  }
  template <class H, class N, class Ctx, std::size_t... I>
  constexpr std::optional<H> fold_rewrite(const N& n, Ctx* ctx, int* fired, std::index_sequence<I...>) const {
    std::optional<H> out;
    (void)((detail::rule_may_match<R>(n.op()) && prefilter<I, R>(n) && try_rule<I, R>(n, ctx, fired, out)) || ...);
    return out;
  }
};

template <class... R> constexpr RuleSet<R...> rules(R... r) { return {make_tup(r...)}; }
// one pack expansion, no std::tuple_cat: concatenating big rule sets must stay cheap to compile
template <class... A, class... B> constexpr RuleSet<A..., B...> operator+(const RuleSet<A...>& a, const RuleSet<B...>& b) {
  return [&]<std::size_t... I, std::size_t... J>(std::index_sequence<I...>, std::index_sequence<J...>) {
    return RuleSet<A..., B...>{make_tup(static_cast<const detail::TupLeaf<I, A>&>(a.list).v...,
                                        static_cast<const detail::TupLeaf<J, B>&>(b.list).v...)};
  }(std::index_sequence_for<A...>{}, std::index_sequence_for<B...>{});
}

// ---- rule sets a library defines at namespace scope ----
// A rule set's type spells out every pattern in it, and instantiating a pattern type costs a translation
// unit a few milliseconds whether or not it ever rewrites with it: a hundred rules defined as
// namespace-scope variables cost every includer most of a second. LazyRules<Def> is an empty object
// standing for the rule set Def::make<Def>() returns. make is a function template, so its rules are
// instantiated, and the set built (once, in constant evaluation), only by a translation unit that uses
// it. It acts as that RuleSet: graph_rewrite, +, rewrite, rewrite_view, describe, location,
// for_each_rule and rules_for take it; get() is the RuleSet itself.
//   namespace detail { struct my_rules_def { template <class> static constexpr auto make() { return rules(...); } }; }
//   inline constexpr LazyRules<detail::my_rules_def<>> my_rules{};
namespace detail {
template <class Def> inline constexpr auto lazy_rules_v = Def::template make<Def>();
template <class T, class> struct delayed { using type = T; };  // T, named in a way that depends on the second
template <class D, class V> constexpr V dependent(const V& v) { return v; }  // v, as an expression that depends on D
}  // namespace detail

// Deferring the patterns themselves. A template's body is checked where it is written, and an
// expression in it that depends on no template parameter (var<"x"> + 0 in make) is built there:
// Clang instantiates every pattern operator and type of a rule set while parsing the header, which
// cost an include-only translation unit a quarter of its time. In a def that is a class template,
// MG_RULE_LEAVES(D) declares var, cvar, op and upat again as members whose values depend on D, so
// every pattern built from them depends on it and waits for make's instantiation. The rules read the
// same:
//   namespace detail { template <class D = void> struct my_rules_def { MG_RULE_LEAVES(D)
//     template <class> static constexpr auto make() { return rules(rule(var<"x"> + 0, ...)); } }; }
//   inline constexpr LazyRules<detail::my_rules_def<>> my_rules{};
#define MG_RULE_LEAVES(D)                                                                                        \
  template <::mg::fixed_string N_> static constexpr auto var = ::mg::detail::dependent<D>(::mg::var<N_>);   \
  template <::mg::fixed_string N_> static constexpr auto cvar = ::mg::detail::dependent<D>(::mg::cvar<N_>); \
  template <auto... X_> static constexpr auto op = ::mg::detail::dependent<D>(::mg::op<X_...>);             \
  static constexpr auto upat = ::mg::detail::dependent<D>(::mg::upat);

template <class Def>
struct LazyRules {
  // the rule set. D only delays instantiation to the first use: a rule set that builds on this one
  // calls get<T>() with its own make's parameter
  template <class D = Def> static constexpr const auto& get() { return detail::lazy_rules_v<typename detail::delayed<Def, D>::type>; }

  template <class N, class Ctx = NoCtx, class D = Def>
  constexpr auto rewrite_view(const N& n, Ctx* ctx = nullptr, int* fired = nullptr) const {
    return get<D>().rewrite_view(n, ctx, fired);
  }
  template <class Ctx = NoCtx, class D = Def>
  std::optional<UOp> rewrite(const UOp& u, Ctx* ctx = nullptr, int* fired = nullptr) const {
    return get<D>().rewrite(u, ctx, fired);
  }
  template <class D = Def> std::string describe(std::size_t i) const { return get<D>().describe(i); }
  template <class D = Def> std::source_location location(std::size_t i) const { return get<D>().location(i); }
  template <class D = Def> static constexpr int rules_for(Ops o) { return std::remove_cvref_t<decltype(get<D>())>::rules_for(o); }
  template <class F, class D = Def> constexpr void for_each_rule(F&& f) const { get<D>().for_each_rule(f); }
};

template <class A, class... B> constexpr auto operator+(const LazyRules<A>& a, const RuleSet<B...>& b) { return a.get() + b; }
template <class... A, class B> constexpr auto operator+(const RuleSet<A...>& a, const LazyRules<B>& b) { return a + b.get(); }
template <class A, class B> constexpr auto operator+(const LazyRules<A>& a, const LazyRules<B>& b) { return a.get() + b.get(); }

}  // namespace mg
