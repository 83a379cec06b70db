#pragma once
// A UOp graph that lives in constant evaluation, and graph_rewrite over it. The same pattern and
// rule objects that rewrite runtime UOps rewrite these nodes while the program is being compiled:
//   constexpr bool ok = [] { ct::Graph<64> g; auto x = g.variable("x", 0, 9); return ct::graph_rewrite(x + 0, fold) == x; }();
// Callbacks written as generic lambdas ([](auto x) { ... }) work on both kinds of node.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <string_view>

#include "../core/arg.hpp"
#include "../core/dtype.hpp"
#include "../core/error.hpp"
#include "../core/ops.hpp"
#include "../core/symval.hpp"
#include "../pattern/rules.hpp"

namespace mg::ct {

// the arg of a compile-time node: nothing, an integer, a float, a bool, an op or a name
struct CArg {
  enum class Kind : std::uint8_t { none, int_, float_, bool_, op, str } kind = Kind::none;
  std::int64_t i = 0;
  double f = 0;
  Ops o = Ops::NOOP;
  std::string_view s{};
  constexpr CArg() = default;
  template <class I> requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  constexpr CArg(I v) : kind(Kind::int_), i(std::int64_t(v)) {}
  constexpr CArg(double v) : kind(Kind::float_), f(v) {}
  constexpr CArg(bool v) : kind(Kind::bool_), i(v) {}
  constexpr CArg(Ops v) : kind(Kind::op), o(v) {}
  constexpr CArg(std::string_view v) : kind(Kind::str), s(v) {}
  constexpr CArg(const char* v) : kind(Kind::str), s(v) {}

  constexpr bool is_none() const { return kind == Kind::none; }
  constexpr bool is_int() const { return kind == Kind::int_; }
  constexpr bool is_float() const { return kind == Kind::float_; }
  constexpr bool is_number() const { return kind == Kind::int_ || kind == Kind::float_ || kind == Kind::bool_; }
  constexpr std::int64_t as_int() const { return is_float() ? std::int64_t(f) : i; }
  constexpr double as_float() const { return is_float() ? f : double(i); }
  constexpr std::string_view as_str() const { return s; }
  constexpr bool as_bool() const { return is_float() ? f != 0 : i != 0; }
  // identity, as interning needs it
  constexpr bool operator==(const CArg& b) const {
    return kind == b.kind && i == b.i && (f == b.f || (f != f && b.f != b.f)) && o == b.o && s == b.s;
  }
  // Python's ==, as a pattern's arg filter uses it
  constexpr bool py_equals(const CArg& b) const {
    if (is_number() && b.is_number()) return (is_float() || b.is_float()) ? as_float() == b.as_float() : as_int() == b.as_int();
    return *this == b;
  }
};

template <std::size_t Cap> class Node;

// a constant's value for its dtype, as the runtime's normalize_const makes it (normalize_number)
constexpr CArg normalize_const(DType dt, const CArg& v) { return v.is_number() ? normalize_number(dt, v) : v; }

template <std::size_t Cap, std::size_t MaxSrc = 4>
struct Graph {
  struct N {
    Ops op = Ops::NOOP;
    DType dtype{};
    CArg arg{}, tag{};
    std::uint8_t nsrc = 0;
    std::array<int, MaxSrc> src{};
  };
  std::array<N, Cap> nodes{};
  int size = 0;
  // vmin/vmax of integer nodes, computed on first use (nodes never change)
  std::array<std::int64_t, Cap> lo{}, hi{};
  std::array<bool, Cap> bounded{};

  // hash-consing: a structurally equal node is the same index (an open-addressing table, so a
  // kernel's graph of a few hundred nodes interns in constant evaluation without a quadratic scan)
  std::array<int, 2 * Cap> table{};  // node index + 1; 0 = empty

  static constexpr std::uint64_t mix(std::uint64_t h, std::uint64_t v) { return (h ^ v) * 0x100000001b3ull + (h >> 29); }
  static constexpr std::uint64_t hash_arg(const CArg& a) {
    std::uint64_t h = mix(std::uint64_t(a.kind), std::uint64_t(a.i));
    h = mix(h, a.f == a.f ? std::bit_cast<std::uint64_t>(a.f + 0.0) : 1);
    h = mix(h, std::uint64_t(a.o));
    for (char c : a.s) h = mix(h, std::uint64_t(std::uint8_t(c)));
    return h;
  }
  static constexpr std::uint64_t hash(const N& n) {
    std::uint64_t h = mix(std::uint64_t(n.op) + 1, n.dtype.hash());
    h = mix(mix(h, hash_arg(n.arg)), hash_arg(n.tag));
    for (std::size_t j = 0; j < n.nsrc; ++j) h = mix(h, std::uint64_t(n.src[j]));
    return h ^ (h >> 31);
  }
  static constexpr bool same(const N& m, const N& n) {
    if (m.op != n.op || !(m.dtype == n.dtype) || !(m.arg == n.arg) || !(m.tag == n.tag) || m.nsrc != n.nsrc) return false;
    for (std::size_t j = 0; j < n.nsrc; ++j)
      if (m.src[j] != n.src[j]) return false;
    return true;
  }
  constexpr int intern(const N& n) {
    std::size_t slot = std::size_t(hash(n) % (2 * Cap));
    for (; table[slot] != 0; slot = (slot + 1) % (2 * Cap))
      if (same(nodes[std::size_t(table[slot] - 1)], n)) return table[slot] - 1;
    if (std::size_t(size) == Cap) throw Error("ct::Graph: out of node capacity (make the graph larger)");
    nodes[std::size_t(size)] = n;
    table[slot] = size + 1;
    return size++;
  }
  constexpr Node<Cap> make(Ops op, DType dt, std::initializer_list<Node<Cap>> src = {}, CArg arg = {}, CArg tag = {});
  constexpr Node<Cap> const_(DType dt, CArg v) { return make(Ops::CONST, dt, {}, normalize_const(dt, v)); }
  constexpr Node<Cap> variable(std::string_view name, std::int64_t lo, std::int64_t hi, DType dt = dtypes::weakint) {
    // the bounds ride in the node's sources as CONSTs, since a compile-time arg holds one value
    return make(Ops::DEFINE_VAR, dt, {const_(dt, lo), const_(dt, hi)}, name);
  }
};

template <std::size_t Cap>
class Node {
 public:
  using G = Graph<Cap>;
  constexpr Node() = default;
  constexpr Node(G* g, int i) : g_(g), i_(i) {}
  constexpr Ops op() const { return n().op; }
  constexpr DType dtype() const { return n().dtype; }
  constexpr const CArg& arg() const { return n().arg; }
  constexpr const CArg& tag() const { return n().tag; }
  constexpr std::size_t nsrc() const { return n().nsrc; }
  constexpr Node src(std::size_t k) const { return {g_, n().src[k]}; }
  constexpr int index() const { return i_; }
  constexpr G* graph() const { return g_; }
  explicit constexpr operator bool() const { return g_ && i_ >= 0; }
  friend constexpr bool operator==(const Node& a, const Node& b) { return a.g_ == b.g_ && a.i_ == b.i_; }

  constexpr Node const_like(CArg v) const { return g_->const_(dtype().base(), v); }
  // tinygrad's vmin/vmax for integer and bool nodes (a float node gives the int64 range)
  constexpr std::int64_t vmin() const { return bounds().first; }
  constexpr std::int64_t vmax() const { return bounds().second; }
  constexpr std::pair<std::int64_t, std::int64_t> bounds() const;
  constexpr Node alu(Ops o, std::initializer_list<Node> more = {}) const {
    std::array<Node, 4> s{};
    std::size_t k = 0;
    s[k++] = *this;
    for (const Node& m : more) s[k++] = m;
    DType dt = GroupOp::Comparison.contains(o) ? dtypes::bool_ : s[k - 1].dtype();
    if (k == 1) return g_->make(o, dt, {s[0]});
    if (k == 2) return g_->make(o, dt, {s[0], s[1]});
    return g_->make(o, dt, {s[0], s[1], s[2]});
  }
  constexpr Node floordiv(Node b) const { return alu(Ops::FLOORDIV, {b}); }
  constexpr Node cast(DType dt) const { return dt == dtype() ? *this : g_->make(Ops::CAST, dt, {*this}); }
  constexpr Node where(Node a, Node b) const { return alu(Ops::WHERE, {a, b}); }
  constexpr Node maximum(Node b) const { return alu(Ops::MAX, {b}); }
  constexpr Node ne(Node b) const { return alu(Ops::CMPNE, {b}); }
  constexpr Node ne(CArg b) const { return ne(const_like(b)); }
  constexpr Node logical_not() const { return cast(dtypes::bool_).ne(CArg(true)); }
  constexpr Node exp2() const { return alu(Ops::EXP2); }
  constexpr Node log2() const { return alu(Ops::LOG2); }
  constexpr Node sqrt() const { return alu(Ops::SQRT); }
  constexpr Node sin() const { return alu(Ops::SIN); }
  constexpr Node reciprocal() const { return alu(Ops::RECIPROCAL); }
  constexpr Node trunc() const { return alu(Ops::TRUNC); }
  constexpr Node neg() const { return dtype().is_bool() ? logical_not() : *this * const_like(CArg(-1)); }
  friend constexpr Node operator-(const Node& a) { return a.neg(); }
  friend constexpr Node operator-(const Node& a, const Node& b) { return a + (-b); }
  constexpr Node replace_src(std::initializer_list<Node> s) const { return g_->make(op(), dtype(), s, arg(), tag()); }

#define MG_CT_BINOP(SYM, OP)                                                                            \
  friend constexpr Node operator SYM(const Node& a, const Node& b) { return a.alu(OP, {b}); }            \
  template <class C> requires std::is_arithmetic_v<C>                                                    \
  friend constexpr Node operator SYM(const Node& a, C c) { return a.alu(OP, {a.const_like(CArg(c))}); }  \
  template <class C> requires std::is_arithmetic_v<C>                                                    \
  friend constexpr Node operator SYM(C c, const Node& b) { return b.const_like(CArg(c)).alu(OP, {b}); }
  MG_CT_BINOP(+, Ops::ADD) MG_CT_BINOP(*, Ops::MUL) MG_CT_BINOP(/, Ops::FLOORDIV) MG_CT_BINOP(%, Ops::FLOORMOD)
  MG_CT_BINOP(<, Ops::CMPLT) MG_CT_BINOP(&, Ops::AND) MG_CT_BINOP(|, Ops::OR) MG_CT_BINOP(^, Ops::XOR)
  MG_CT_BINOP(<<, Ops::SHL) MG_CT_BINOP(>>, Ops::SHR)
#undef MG_CT_BINOP

 private:
  constexpr const typename G::N& n() const { return g_->nodes[std::size_t(i_)]; }
  G* g_ = nullptr;
  int i_ = -1;
};

template <std::size_t Cap, std::size_t MS>
constexpr Node<Cap> Graph<Cap, MS>::make(Ops op, DType dt, std::initializer_list<Node<Cap>> src, CArg arg, CArg tag) {
  N n{op, dt, arg, tag, std::uint8_t(src.size()), {}};
  std::size_t k = 0;
  for (const Node<Cap>& s : src) n.src[k++] = s.index();
  return {this, intern(n)};
}

namespace detail {
constexpr std::int64_t clamp64(__int128 v) {
  return v > __int128(INT64_MAX) ? INT64_MAX : v < __int128(INT64_MIN) ? INT64_MIN : std::int64_t(v);
}
}  // namespace detail

// bounds as tinygrad's _min_max computes them, for the ops a static kernel's index math uses; any
// other op gets its dtype's range
template <std::size_t Cap>
constexpr std::pair<std::int64_t, std::int64_t> Node<Cap>::bounds() const {
  auto& g = *g_;
  const std::size_t k = std::size_t(i_);
  if (g.bounded[k]) return {g.lo[k], g.hi[k]};
  const DType dt = dtype().scalar();
  std::int64_t lo = dt.is_float() ? INT64_MIN : dt.imin(), hi = dt.is_float() ? INT64_MAX : dt.imax();
  auto b = [&](std::size_t j) { return src(j).bounds(); };
  using detail::clamp64;
  if (!dt.is_float()) switch (op()) {
    case Ops::CONST: lo = hi = arg().as_int(); break;
    case Ops::RANGE: lo = 0, hi = src(0).vmax() - 1; break;
    case Ops::DEFINE_VAR: lo = src(0).vmin(), hi = src(1).vmax(); break;
    case Ops::ADD: lo = clamp64(__int128(b(0).first) + b(1).first), hi = clamp64(__int128(b(0).second) + b(1).second); break;
    case Ops::MUL: {
      auto [a0, a1] = b(0);
      auto [b0, b1] = b(1);
      const __int128 c[4] = {__int128(a0) * b0, __int128(a0) * b1, __int128(a1) * b0, __int128(a1) * b1};
      __int128 mn = c[0], mx = c[0];
      for (__int128 v : c) mn = v < mn ? v : mn, mx = v > mx ? v : mx;
      lo = clamp64(mn), hi = clamp64(mx);
      break;
    }
    case Ops::FLOORDIV:
      if (auto [c0, c1] = b(1); c0 == c1 && c0 > 0) {
        auto [a0, a1] = b(0);
        lo = mg::detail::py_floordiv(a0, c0), hi = mg::detail::py_floordiv(a1, c0);
      }
      break;
    case Ops::FLOORMOD:
      if (auto [c0, c1] = b(1); c0 == c1 && c0 > 0) {
        auto [a0, a1] = b(0);
        if (a0 >= 0 && a1 < c0) lo = a0, hi = a1;
        else lo = 0, hi = c0 - 1;
      }
      break;
    case Ops::MAX:
      lo = b(0).first > b(1).first ? b(0).first : b(1).first, hi = b(0).second > b(1).second ? b(0).second : b(1).second;
      break;
    case Ops::WHERE:
      lo = b(1).first < b(2).first ? b(1).first : b(2).first, hi = b(1).second > b(2).second ? b(1).second : b(2).second;
      break;
    // a comparison is fixed when the bounds of its sides decide it (tinygrad's _min_max)
    case Ops::CMPLT:
      if (src(0).dtype().is_float()) break;
      lo = b(0).second < b(1).first, hi = b(0).first < b(1).second;
      break;
    case Ops::CMPNE: {
      if (src(0).dtype().is_float()) break;
      auto [a0, a1] = b(0);
      auto [c0, c1] = b(1);
      if (a1 < c0 || c1 < a0) lo = hi = 1;
      else if (a0 == a1 && c0 == c1 && a0 == c0) lo = hi = 0;
      break;
    }
    case Ops::CAST: {
      auto [a0, a1] = b(0);
      if (!src(0).dtype().is_float() && a0 >= lo && a1 <= hi) lo = a0, hi = a1;
      break;
    }
    default: break;
  }
  g.lo[k] = lo, g.hi[k] = hi, g.bounded[k] = true;
  return {lo, hi};
}

// a node whose bounds are one value, as a constant: the compile-time side of the min == max rule
// (symbolic.hpp's const_if_fixed)
template <std::size_t Cap> constexpr std::optional<Node<Cap>> const_if_fixed(const Node<Cap>& x) {
  if (x.dtype().is_float() || x.dtype().is_ptr || x.dtype() == dtypes::void_) return std::nullopt;
  auto [lo, hi] = x.bounds();
  if (lo != hi) return std::nullopt;
  return x.const_like(CArg(lo));
}

template <std::size_t Cap> constexpr Node<Cap> to_handle(Node<Cap> n) { return n; }
template <std::size_t Cap> constexpr Node<Cap> to_view(Node<Cap> n) { return n; }

namespace detail {
template <std::size_t Cap, class RS, class Ctx>
constexpr Node<Cap> rewrite_rec(Node<Cap> n, const RS& rs, Ctx* ctx, std::array<int, Cap>& memo, int depth) {
  if (depth > 64) throw Error("ct::graph_rewrite: rules did not settle");
  if (memo[std::size_t(n.index())] >= 0) return {n.graph(), memo[std::size_t(n.index())]};
  // sources first
  std::array<Node<Cap>, 4> s{};
  bool changed = false;
  for (std::size_t k = 0; k < n.nsrc(); ++k) {
    s[k] = rewrite_rec(n.src(k), rs, ctx, memo, depth);
    changed = changed || !(s[k] == n.src(k));
  }
  Node<Cap> cur = n;
  if (changed) {
    auto* g = n.graph();
    switch (n.nsrc()) {
      case 1: cur = g->make(n.op(), n.dtype(), {s[0]}, n.arg(), n.tag()); break;
      case 2: cur = g->make(n.op(), n.dtype(), {s[0], s[1]}, n.arg(), n.tag()); break;
      case 3: cur = g->make(n.op(), n.dtype(), {s[0], s[1], s[2]}, n.arg(), n.tag()); break;
      default: cur = g->make(n.op(), n.dtype(), {s[0], s[1], s[2], s[3]}, n.arg(), n.tag()); break;
    }
    // the rebuilt node may be one already rewritten (x*1 under (x*1)*1): reuse its result, as the runtime engine does
    if (const int done = memo[std::size_t(cur.index())]; done >= 0) {
      memo[std::size_t(n.index())] = done;
      return {n.graph(), done};
    }
  }
  // then the node, to a fixed point; a replacement's new parts are rewritten too
  Node<Cap> out = cur;
  if (auto r = rs.rewrite_view(cur, ctx)) out = rewrite_rec(*r, rs, ctx, memo, depth + 1);
  memo[std::size_t(n.index())] = out.index();
  return out;
}
}  // namespace detail

template <std::size_t Cap, class RS, class Ctx = NoCtx>
constexpr Node<Cap> graph_rewrite(Node<Cap> root, const RS& rs, Ctx* ctx = nullptr) {
  std::array<int, Cap> memo{};
  for (auto& m : memo) m = -1;
  return detail::rewrite_rec(root, rs, ctx, memo, 0);
}

}  // namespace mg::ct
