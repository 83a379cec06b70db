#pragma once
// UPat as C++ types. A pattern is a small value whose type spells its shape:
//   (var<"x"> + cvar<"c1">) + var<"y">     op<Ops::CAST>(var<"x">).named<"c">()
// Matching is a constexpr template function over any node view N (op(), dtype(), arg(), tag(),
// src(i), nsrc()), written in continuation-passing style so that alternatives, commutative
// permutations and repeated sources backtrack exactly like tinygrad's UPat.match.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include "../core/arg.hpp"
#include "../core/dtype.hpp"
#include "../core/fixed_string.hpp"
#include "../core/ops.hpp"

namespace mg {

namespace detail {
template <fixed_string S> struct name_t { static constexpr auto value = S; };
}  // namespace detail
// "x"_n names a capture where the name is an argument: p.named("x"_n) is p.named<"x">()
template <fixed_string S> constexpr detail::name_t<S> operator""_n() { return {}; }

// ---- filters a pattern carries (empty types cost nothing) ----
struct NoDType {};
template <std::size_t N> struct DTypeIn { std::array<DType, N> d; };
struct NoArg {};
template <class T> struct ArgIs { T v; };
struct NoTag {};
template <class T> struct TagIs { T v; };

// A minimal tuple for a pattern's sources: an aggregate with one base per element. std::tuple's
// constructor constraints cost seconds of compile time over a rule set of a hundred patterns.
namespace detail {
template <std::size_t I, class T> struct TupLeaf { T v; };
template <class Seq, class... T> struct TupBase;
template <std::size_t... I, class... T> struct TupBase<std::index_sequence<I...>, T...> : TupLeaf<I, T>... {};
}  // namespace detail
template <class... T> struct Tup : detail::TupBase<std::index_sequence_for<T...>, T...> {
  static constexpr std::size_t size = sizeof...(T);
};
template <std::size_t I, class T> constexpr const T& tget(const detail::TupLeaf<I, T>& l) { return l.v; }
template <class... T> constexpr Tup<T...> make_tup(T... v) { return {{{v}...}}; }

// ---- how a pattern's sources are given ----
struct NoSrc {};                                           // src=None: any sources
template <class... P> struct Ordered { Tup<P...> p; };   // src=(a, b): in this order
template <class... P> struct Permuted { Tup<P...> p; };  // src=[a, b]: in any order
template <class P> struct Repeated { P p; };                    // src=a: every source matches a
struct etc_t {};                                           // trailing marker: allow_any_len
inline constexpr etc_t etc{};

template <class... P> constexpr Permuted<P...> any_order(P... p) { return {make_tup(p...)}; }
template <class P> constexpr Repeated<P> repeat(P p) { return {p}; }

namespace detail {
template <class S> inline constexpr bool is_repeated = false;
template <class P> inline constexpr bool is_repeated<Repeated<P>> = true;
template <class S> inline constexpr bool is_permuted = false;
template <class... P> inline constexpr bool is_permuted<Permuted<P...>> = true;

// all orderings of M sources, in itertools.permutations order
template <std::size_t M> constexpr auto make_permutations() {
  constexpr std::size_t count = [] { std::size_t f = 1; for (std::size_t i = 2; i <= M; ++i) f *= i; return f; }();
  std::array<std::array<std::size_t, M>, count> out{};
  std::array<std::size_t, M> p{};
  for (std::size_t i = 0; i < M; ++i) p[i] = i;
  for (std::size_t j = 0; j < count; ++j, std::next_permutation(p.begin(), p.end())) out[j] = p;
  return out;
}
template <std::size_t M> inline constexpr auto permutations_v = make_permutations<M>();
}  // namespace detail

template <OpSet O, fixed_string Name, class Src, class DT = NoDType, class AF = NoArg, class TF = NoTag, bool AnyLen = false>
struct Pat;
template <class... Alts> struct AnyOf;

template <class T> struct is_pattern : std::false_type {};
template <OpSet O, fixed_string Name, class Src, class DT, class AF, class TF, bool AL>
struct is_pattern<Pat<O, Name, Src, DT, AF, TF, AL>> : std::true_type {};
template <class... A> struct is_pattern<AnyOf<A...>> : std::true_type {};
template <class T> concept Pattern = is_pattern<std::remove_cvref_t<T>>::value;

// ---- captured names, in order of first appearance (a pattern's own name, then its sources) ----
namespace detail {
using boost::mp11::mp_list;
template <class P> struct names_of_impl;
template <class P> using names_of = typename names_of_impl<std::remove_cvref_t<P>>::type;
template <class... L> using names_concat = boost::mp11::mp_unique<boost::mp11::mp_append<mp_list<>, L...>>;

template <class S> struct src_names { using type = mp_list<>; };
template <class... P> struct src_names<Ordered<P...>> { using type = names_concat<names_of<P>...>; };
template <class... P> struct src_names<Permuted<P...>> { using type = names_concat<names_of<P>...>; };
template <class P> struct src_names<Repeated<P>> { using type = names_of<P>; };

template <OpSet O, fixed_string Name, class Src, class DT, class AF, class TF, bool AL>
struct names_of_impl<Pat<O, Name, Src, DT, AF, TF, AL>> {
  using own = std::conditional_t<Name.empty(), mp_list<>, mp_list<name_t<Name>>>;
  using type = names_concat<own, typename src_names<Src>::type>;
};
template <class... A> struct names_of_impl<AnyOf<A...>> { using type = names_concat<names_of<A>...>; };

// captured nodes, one slot per name; a null view means unbound
template <class N, std::size_t K> struct Captures {
  std::array<N, K> v{};
};

// how an arg / tag filter compares to a node's arg: Python's == (numbers by value)
template <class A, class T> constexpr bool arg_eq(const A& a, const T& v) { return a.py_equals(v); }

// the set of ops a pattern's root can have (empty = any op)
template <class P> struct root_ops;
template <OpSet O, fixed_string Name, class Src, class DT, class AF, class TF, bool AL>
struct root_ops<Pat<O, Name, Src, DT, AF, TF, AL>> { static constexpr OpSet value = O; };
template <class... A> struct root_ops<AnyOf<A...>> {
  static constexpr OpSet value = ((root_ops<A>::value.empty()) || ...) ? OpSet{} : (root_ops<A>::value | ... | OpSet{});
};
// whether a source with op o can match a pattern whose root ops are s (empty: any op)
constexpr bool op_may_match(OpSet s, Ops o) { return s.empty() || s.contains(o); }
// the first-level sources' part of Pat::may_match: their ops against their patterns' root ops, in order,
// or both orders of two permuted sources (more permuted sources: no test)
template <class S> struct src_ops_filter {
  template <class N> static constexpr bool test(const N&) { return true; }
};
template <class... P> struct src_ops_filter<Ordered<P...>> {
  template <class N> static constexpr bool test(const N& n) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return ((root_ops<P>::value.empty() || root_ops<P>::value.contains(n.src(I).op())) && ...);
    }(std::index_sequence_for<P...>{});
  }
};
template <class A, class B> struct src_ops_filter<Permuted<A, B>> {
  template <class N> static constexpr bool test(const N& n) {
    constexpr OpSet a = root_ops<A>::value, b = root_ops<B>::value;
    if constexpr (a.empty() && b.empty()) return true;
    else {
      const Ops o0 = n.src(0).op(), o1 = n.src(1).op();
      return (op_may_match(a, o0) && op_may_match(b, o1)) || (op_may_match(b, o0) && op_may_match(a, o1));
    }
  }
};
}  // namespace detail

// ---- text of a pattern, for errors and the viewer: tinygrad's UPat repr ----
namespace detail {
inline std::string opset_str(OpSet o) {
  if (o.size() == 1) return op_repr(o.first());
  std::string s = "(";
  for (std::size_t i = 0, k = 0; i < num_ops; ++i) if (o.contains(Ops(i))) s += (k++ ? ", " : "") + op_repr(Ops(i));
  return s + ")";
}
template <class P> std::string pattern_str(const P& p);
template <class... P, std::size_t... I> std::string srcs_str(const Tup<P...>& t, std::index_sequence<I...>) {
  std::string s;
  ((s += (I ? ", " : "") + pattern_str(tget<I>(t))), ...);
  return s;
}
}  // namespace detail

template <OpSet O, fixed_string Name, class Src, class DT, class AF, class TF, bool AnyLen>
struct Pat {
  Src src{};
  DT dt{};
  AF argf{};
  TF tagf{};
  using names = detail::names_of<Pat>;
  static constexpr OpSet ops = O;

  // ---- refinements ----
  template <fixed_string N2> constexpr Pat<O, N2, Src, DT, AF, TF, AnyLen> named() const { return {src, dt, argf, tagf}; }
  // the deduced form, p.named("x"_n): needs no `template` keyword where p's type is dependent
  template <fixed_string N2> constexpr Pat<O, N2, Src, DT, AF, TF, AnyLen> named(detail::name_t<N2>) const { return {src, dt, argf, tagf}; }
  template <class... D> constexpr Pat<O, Name, Src, DTypeIn<sizeof...(D)>, AF, TF, AnyLen> dtype(D... d) const {
    return {src, {{DType(d)...}}, argf, tagf};
  }
  template <class T> constexpr auto arg(T v) const {
    using V = std::conditional_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, std::int64_t,
                                 std::conditional_t<std::is_floating_point_v<T>, double, T>>;
    return Pat<O, Name, Src, DT, ArgIs<V>, TF, AnyLen>{src, dt, {V(v)}, tagf};
  }
  template <class T> constexpr auto tag(T v) const {
    using V = std::conditional_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, std::int64_t, T>;
    return Pat<O, Name, Src, DT, AF, TagIs<V>, AnyLen>{src, dt, argf, {V(v)}};
  }
  constexpr Pat<O, Name, Src, DT, AF, TF, true> allow_any_len() const { return {src, dt, argf, tagf}; }

  // op<Ops::X>(a, b) gives the sources in order; op<Ops::X>(any_order(a, b)), op<Ops::X>(repeat(a)), op<Ops::X>(a, etc)
  template <class... S> constexpr auto operator()(S... s) const;

  // ---- matching ----
  // A necessary condition for a match on a node whose op this pattern allows, reading only the node's
  // dtype, its source count and its sources' ops: a rule set tests it inline before it calls a rule's
  // matcher out of line, so that a rule that cannot match costs a few instructions, not a call
  template <class N> constexpr bool may_match(const N& n) const {
    if constexpr (!std::is_same_v<DT, NoDType>) if (!dtype_ok(n.dtype())) return false;
    if constexpr (std::is_same_v<Src, NoSrc> || detail::is_repeated<Src>) return true;
    else {
      constexpr std::size_t M = decltype(src.p)::size;
      if (AnyLen ? n.nsrc() < M : n.nsrc() != M) return false;
      if constexpr (AnyLen) return true;
      else return detail::src_ops_filter<Src>::test(n);
    }
  }
  template <class Names, class N, class C, class K>
  constexpr bool match(const N& n, C& caps, K&& k) const {
    if constexpr (!O.empty()) if (!O.contains(n.op())) return false;
    if constexpr (!std::is_same_v<DT, NoDType>) if (!dtype_ok(n.dtype())) return false;
    if constexpr (!std::is_same_v<AF, NoArg>) if (!detail::arg_eq(n.arg(), argf.v)) return false;
    if constexpr (!std::is_same_v<TF, NoTag>) if (!detail::arg_eq(n.tag(), tagf.v)) return false;
    if constexpr (Name.empty()) return match_src<Names>(n, caps, k);
    else {
      // one call of match_src: the sources' matching code is instantiated and inlined here once
      constexpr std::size_t I = boost::mp11::mp_find<Names, detail::name_t<Name>>::value;
      const bool bind = !caps.v[I];
      if (!bind && !(caps.v[I] == n)) return false;  // the same name binds the same node
      if (bind) caps.v[I] = n;
      if (match_src<Names>(n, caps, k)) return true;
      if (bind) caps.v[I] = N{};
      return false;
    }
  }

  std::string str() const {
    std::string s = "UPat(";
    auto sep = [&] { if (s.size() > 5) s += ", "; };
    if constexpr (!O.empty()) s += detail::opset_str(O);
    if constexpr (!std::is_same_v<DT, NoDType>) {
      sep();
      s += "dtype=";
      if (dt.d.size() == 1) s += dt.d[0].repr();
      else { s += "("; for (std::size_t i = 0; i < dt.d.size(); ++i) s += (i ? ", " : "") + dt.d[i].repr(); s += ")"; }
    }
    if constexpr (!std::is_same_v<AF, NoArg>) { sep(); s += "arg=" + Arg(argf.v).repr(); }
    if constexpr (!std::is_same_v<TF, NoTag>) { sep(); s += "tag=" + Arg(tagf.v).repr(); }
    if constexpr (!Name.empty()) { sep(); s += "name=" + py_str_repr(std::string(Name.view())); }
    if constexpr (AnyLen) { sep(); s += "allow_any_len=True"; }
    if constexpr (!std::is_same_v<Src, NoSrc>) {
      sep();
      s += "src=";
      s += src_str(src);
    }
    return s + ")";
  }

 private:
  constexpr bool dtype_ok(const DType& nd) const {
    bool ok = false;  // both tests need the scalar kind to agree: that first, as the cheap reject
    for (const DType& d : dt.d) ok = ok || (nd.scalar_ == d.scalar_ && (nd == d || nd.scalar() == d));
    return ok;
  }
  template <class... P> static std::string src_str(const Ordered<P...>& o) {
    return "(" + detail::srcs_str(o.p, std::index_sequence_for<P...>{}) + (sizeof...(P) == 1 ? ",)" : ")");
  }
  template <class... P> static std::string src_str(const Permuted<P...>& o) {
    return "[" + detail::srcs_str(o.p, std::index_sequence_for<P...>{}) + "]";
  }
  template <class P> static std::string src_str(const Repeated<P>& r) { return detail::pattern_str(r.p); }

  // sources in the given order, each continuing into the next
  template <class Names, std::size_t I, class N, class C, class K, class... P>
  static constexpr bool match_seq(const Tup<P...>& ps, const N& n, const std::array<std::size_t, sizeof...(P)>& perm,
                                  C& caps, K& k) {
    if constexpr (I == sizeof...(P)) return k();
    else return tget<I>(ps).template match<Names>(n.src(perm[I]), caps,
                                                      [&] { return match_seq<Names, I + 1>(ps, n, perm, caps, k); });
  }
  template <class Names, class N, class C, class K, class P>
  static constexpr bool match_rep(const P& p, const N& n, std::size_t i, C& caps, K& k) {
    if (i == n.nsrc()) return k();
    return p.template match<Names>(n.src(i), caps, [&] { return match_rep<Names>(p, n, i + 1, caps, k); });
  }
  template <std::size_t M> static constexpr std::array<std::size_t, M> identity() {
    std::array<std::size_t, M> a{};
    for (std::size_t i = 0; i < M; ++i) a[i] = i;
    return a;
  }

  template <class Names, class N, class C, class K>
  constexpr bool match_src(const N& n, C& caps, K& k) const {
    if constexpr (std::is_same_v<Src, NoSrc>) return k();
    else if constexpr (detail::is_repeated<Src>) return match_rep<Names>(src.p, n, 0, caps, k);
    else {
      constexpr std::size_t M = decltype(src.p)::size;
      if (AnyLen ? n.nsrc() < M : n.nsrc() != M) return false;
      if constexpr (detail::is_permuted<Src>) {
        // every ordering of the sources, first to last (tinygrad's itertools.permutations order),
        // listed at compile time and unrolled
        return [&]<std::size_t... J>(std::index_sequence<J...>) {
          return (match_seq<Names, 0>(src.p, n, detail::permutations_v<M>[J], caps, k) || ...);
        }(std::make_index_sequence<detail::permutations_v<M>.size()>{});
      } else {
        constexpr auto perm = identity<M>();
        return match_seq<Names, 0>(src.p, n, perm, caps, k);
      }
    }
  }
};

// tinygrad's UPat.any: the first alternative that matches (and whose rule accepts) wins
template <class... Alts>
struct AnyOf {
  Tup<Alts...> alts;
  using names = detail::names_of<AnyOf>;
  template <class N> static constexpr bool may_match(const N&) { return true; }
  template <class Names, class N, class C, class K>
  constexpr bool match(const N& n, C& caps, K&& k) const {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return (tget<I>(alts).template match<Names>(n, caps, k) || ...);
    }(std::index_sequence_for<Alts...>{});
  }
  std::string str() const { return "UPat.any(" + detail::srcs_str(alts, std::index_sequence_for<Alts...>{}) + ")"; }
};
template <Pattern... P> constexpr AnyOf<std::remove_cvref_t<P>...> any_of(P... p) { return {make_tup(p...)}; }

namespace detail {
template <class P> std::string pattern_str(const P& p) { return p.str(); }
}

// ---- building patterns ----
namespace detail {
template <auto X> constexpr OpSet to_opset() {
  if constexpr (std::is_same_v<decltype(X), Ops>) return OpSet{X};
  else return OpSet(X);
}
template <class... S> constexpr bool last_is_etc() {
  if constexpr (sizeof...(S) == 0) return false;
  else return std::is_same_v<boost::mp11::mp_back<boost::mp11::mp_list<S...>>, etc_t>;
}
// a plain number in a pattern is a CONST with that arg (and the dtype filter of its neighbour)
template <class DT, class T> constexpr auto const_pat(const DT& dt, T v);
template <class T> constexpr auto to_pat(T v) {
  if constexpr (Pattern<T>) return v;
  else return const_pat(NoDType{}, v);
}
template <std::size_t... I, class T> constexpr auto tuple_head(const T& t, std::index_sequence<I...>) {
  return make_tup(to_pat(tget<I>(t))...);
}
template <class P> constexpr const P& last_of(const P& p) { return p; }
template <class P, class... Q> constexpr decltype(auto) last_of(const P&, const Q&... q) { return last_of(q...); }
}  // namespace detail

template <OpSet O, fixed_string Name, class Src, class DT, class AF, class TF, bool AnyLen>
template <class... S>
constexpr auto Pat<O, Name, Src, DT, AF, TF, AnyLen>::operator()(S... s) const {
  static_assert(std::is_same_v<Src, NoSrc>, "this pattern already has sources");
  constexpr int arity = O.empty() ? -1 : op_arity(O.first());
  // every op in the set must share the arity for the check to apply
  constexpr bool fixed = [] {
    if (O.empty()) return false;
    for (std::size_t i = 0; i < num_ops; ++i) if (O.contains(Ops(i)) && op_arity(Ops(i)) != arity) return false;
    return arity >= 0;
  }();
  if constexpr (sizeof...(S) == 1 && (detail::is_permuted<S> || ...)) {
    using P = boost::mp11::mp_front<boost::mp11::mp_list<S...>>;
    constexpr int n = int(decltype(P::p)::size);
    static_assert(!fixed || (AnyLen ? n <= arity : n == arity),
                  "wrong number of sources for this op: a unary op takes 1, a binary op 2, a ternary op 3");
    return Pat<O, Name, S..., DT, AF, TF, AnyLen>{s..., dt, argf, tagf};
  } else if constexpr (sizeof...(S) == 1 && (detail::is_repeated<S> || ...)) {
    return Pat<O, Name, S..., DT, AF, TF, AnyLen>{s..., dt, argf, tagf};
  } else {
    constexpr bool any_len = detail::last_is_etc<S...>();
    constexpr std::size_t n = sizeof...(S) - (any_len ? 1 : 0);
    static_assert(!fixed || ((any_len || AnyLen) ? int(n) <= arity : int(n) == arity),
                  "wrong number of sources for this op: a unary op takes 1, a binary op 2, a ternary op 3");
    auto head = detail::tuple_head(make_tup(s...), std::make_index_sequence<n>{});
    using Head = decltype(head);
    using Src2 = boost::mp11::mp_rename<Head, Ordered>;
    return Pat<O, Name, Src2, DT, AF, TF, AnyLen || any_len>{Src2{head}, dt, argf, tagf};
  }
}

// UPat(): matches any node.  var<"x">: any node, captured as x.  cvar<"c">: a CONST, captured as c.
inline constexpr Pat<OpSet{}, "", NoSrc> upat{};
template <fixed_string N> inline constexpr Pat<OpSet{}, N, NoSrc> var{};
template <fixed_string N> inline constexpr Pat<OpSet{Ops::CONST}, N, NoSrc> cvar{};
// op<Ops::ADD>, op<Ops::CONST, Ops::CAST>, op<GroupOp::ALU>: a node with one of these ops
template <auto... X> inline constexpr Pat<(detail::to_opset<X>() | ... | OpSet{}), "", NoSrc> op{};

namespace detail {
template <class DT, class T> constexpr auto const_pat(const DT& dt, T v) {
  using V = std::conditional_t<std::is_same_v<T, bool>, bool,
                               std::conditional_t<std::is_integral_v<T>, std::int64_t, std::conditional_t<std::is_floating_point_v<T>, double, T>>>;
  return Pat<OpSet{Ops::CONST}, "", NoSrc, DT, ArgIs<V>>{{}, dt, {V(v)}, {}};
}
template <class P> constexpr auto dtype_of(const P& p) {
  if constexpr (requires { p.dt; }) return p.dt;
  else return NoDType{};
}
template <class Self, class X> constexpr auto ufix(const Self& self, const X& x) {
  if constexpr (Pattern<X>) return x;
  else return const_pat(dtype_of(self), x);
}
// tinygrad's UPat.alu: commutative ops match their sources in any order; comparisons are bool;
// otherwise the dtype filter is the last source's
template <Ops OP, class... P> constexpr auto alu(const P&... ps) {
  using Src = std::conditional_t<GroupOp::Commutative.contains(OP), Permuted<P...>, Ordered<P...>>;
  if constexpr (OP == Ops::CMPLT || OP == Ops::CMPNE) {
    return Pat<OpSet{OP}, "", Src, DTypeIn<1>>{Src{make_tup(ps...)}, {{dtypes::bool_}}, {}, {}};
  } else {
    auto dt = dtype_of(last_of(ps...));
    return Pat<OpSet{OP}, "", Src, decltype(dt)>{Src{make_tup(ps...)}, dt, {}, {}};
  }
}
template <Ops OP, class A, class B> constexpr auto binop(const A& a, const B& b) {
  if constexpr (Pattern<A>) return alu<OP>(a, ufix(a, b));
  else return alu<OP>(ufix(b, a), b);
}
}  // namespace detail

// ---- operators and methods mirroring the UOp builders ----
#define MG_UPAT_BINOP(SYM, OP)                                                                     \
  template <class A, class B> requires(Pattern<A> || Pattern<B>)                                  \
  constexpr auto operator SYM(const A& a, const B& b) { return detail::binop<OP>(a, b); }
MG_UPAT_BINOP(+, Ops::ADD)
MG_UPAT_BINOP(*, Ops::MUL)
MG_UPAT_BINOP(/, Ops::FLOORDIV)  // Python's //
MG_UPAT_BINOP(%, Ops::FLOORMOD)
MG_UPAT_BINOP(&, Ops::AND)
MG_UPAT_BINOP(|, Ops::OR)
MG_UPAT_BINOP(^, Ops::XOR)
MG_UPAT_BINOP(<<, Ops::SHL)
MG_UPAT_BINOP(>>, Ops::SHR)
MG_UPAT_BINOP(<, Ops::CMPLT)
#undef MG_UPAT_BINOP
template <class A, class B> requires(Pattern<A> || Pattern<B>)
constexpr auto operator>(const A& a, const B& b) { return detail::binop<Ops::CMPLT>(b, a); }
// tinygrad: -x is x*-1 and a-b is a+(-b)
template <Pattern A> constexpr auto operator-(const A& a) { return a * -1; }
template <class A, class B> requires(Pattern<A> || Pattern<B>)
constexpr auto operator-(const A& a, const B& b) {
  if constexpr (Pattern<B>) return a + (-b);
  else return a + (-detail::ufix(a, b));
}

template <Pattern A, class B> constexpr auto ne(const A& a, const B& b) { return detail::binop<Ops::CMPNE>(a, b); }
template <Pattern A, class B> constexpr auto maximum(const A& a, const B& b) { return detail::binop<Ops::MAX>(a, b); }
template <Pattern C, class X, class Y> constexpr auto where(const C& c, const X& x, const Y& y) {
  return detail::alu<Ops::WHERE>(c, detail::to_pat(x), detail::to_pat(y));
}
template <Ops OP, Pattern... P> constexpr auto alu(const P&... p) { return detail::alu<OP>(p...); }

// tinygrad's or_casted / or_broadcasted / or_after: this, or it under a CAST / STACK / AFTER
template <fixed_string N = "", Pattern P> constexpr auto or_casted(const P& p) {
  if constexpr (N.empty()) return any_of(p, op<Ops::CAST>(p));
  else return any_of(p.template named<N>(), op<Ops::CAST>(p).template named<N>());
}
template <Pattern P> constexpr auto or_broadcasted(const P& p) {
  return any_of(p, Pat<OpSet{Ops::STACK}, "", Repeated<P>, decltype(detail::dtype_of(p))>{{p}, detail::dtype_of(p), {}, {}});
}
template <fixed_string N = "", Pattern P> constexpr auto or_after(const P& p) {
  if constexpr (N.empty()) return any_of(p, op<Ops::AFTER>(p, etc));
  else return any_of(p.template named<N>(), op<Ops::AFTER>(p, etc).template named<N>());
}
template <Pattern P> constexpr auto cast(const P& p) { return op<Ops::CAST>(p); }
template <Pattern P, class... D> constexpr auto cast(const P& p, D... d) { return op<Ops::CAST>(p).dtype(d...); }
template <Pattern P> constexpr auto bitcast(const P& p) { return op<Ops::BITCAST>(p); }
template <Pattern P> constexpr auto gep(const P& p) { return op<Ops::GEP>(p); }
template <Pattern... P> constexpr auto sink(const P&... p) { return op<Ops::SINK>(p...).dtype(dtypes::void_); }
template <Pattern P, Pattern... S> constexpr auto index(const P& p, const S&... s) { return op<Ops::INDEX>(p, s...); }
template <Pattern P, Pattern... S> constexpr auto load(const P& p, const S&... s) { return op<Ops::LOAD>(p, s...); }
template <Pattern P, Pattern... S> constexpr auto store(const P& p, const S&... s) { return op<Ops::STORE>(p, s...); }
template <Pattern P> constexpr auto broadcast(const P& p) {
  return Pat<OpSet{Ops::STACK}, "", Repeated<P>, decltype(detail::dtype_of(p))>{{p}, detail::dtype_of(p), {}, {}};
}
template <Pattern P, Pattern... S> constexpr auto after(const P& p, const S&... s) { return op<Ops::AFTER>(p, s...); }
template <Pattern P, Pattern... S> constexpr auto end(const P& p, const S&... s) { return op<Ops::END>(p, s...); }
template <Pattern P, Pattern... S> constexpr auto reduce(const P& p, const S&... s) { return op<Ops::REDUCE>(p, s...); }

}  // namespace mg
