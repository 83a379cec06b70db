// bench_rewrite: graph_rewrite throughput of a compile-time rule set against interpreted matchers.
//
// The same 24 tinygrad-symbolic-style rules are written twice: once with metagrad's compile-time
// patterns (mg::rules), once as pattern trees for an interpreter kept here in bench/ only, which
// walks the tree at run time for every node exactly as tinygrad's UPat.match does (all matching
// capture stores, returned as a list). Both are driven by the same graph_rewrite engine
// (mg::detail::RewriteEngine) over the same graph of about a million nodes, and must return the
// same (interned, so pointer-equal) result node. A second interpreter, a backtracking walk over the
// same pattern trees that allocates nothing, is measured too: the best a run-time interpreter does.
//
//   meson compile -C build-gcc bench/bench_rewrite && ./build-gcc/bench/bench_rewrite [nodes] [rounds]
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <metagrad/metagrad.hpp>

#include "timing.hpp"

using namespace mg;

// ---- what the rules build: shared by both engines, so a difference in results is a matcher bug ----
namespace build {
inline bool truthy(const Arg& a) { return a.is_bool() ? a.as_bool() : a.as_float() != 0.0; }
inline UOp false_() { return UOp::const_(dtypes::bool_, false); }
inline UOp fold_add(const UOp& x, const UOp& c1, const UOp& c2) { return x + x.const_like(c1.arg().as_int() + c2.arg().as_int()); }
inline UOp fold_mul(const UOp& x, const UOp& c1, const UOp& c2) { return x * x.const_like(c1.arg().as_int() * c2.arg().as_int()); }
inline UOp where_const(const UOp& gate, const UOp& a, const UOp& b) { return truthy(gate.arg()) ? a : b; }
// b.cast(a).cast(b) -> b when a holds every value of b (integers only here)
inline UOp cast_cast(const UOp& b, const UOp& a, const UOp& x) {
  DType xd = x.dtype(), ad = a.dtype();
  bool lossless = xd.is_int() && ad.is_int() && ad.bitsize() >= xd.bitsize() && (ad.is_unsigned() == xd.is_unsigned());
  return xd == b.dtype() && lossless ? x : UOp();
}
inline UOp cast_const(const UOp& root, const UOp& c) { return root.const_like(c.arg()); }
// constant folding of a binary op, with Python's // and % (floor) semantics
inline UOp fold_binary(const UOp& alu, const UOp& a, const UOp& b) {
  const std::int64_t x = a.arg().as_int(), y = b.arg().as_int();
  auto floordiv = [](std::int64_t p, std::int64_t q) { return p / q - ((p % q != 0) && ((p < 0) != (q < 0))); };
  switch (alu.op()) {
    case Ops::ADD: return alu.const_like(x + y);
    case Ops::MUL: return alu.const_like(x * y);
    case Ops::MAX: return alu.const_like(std::max(x, y));
    case Ops::XOR: return alu.const_like(x ^ y);
    case Ops::AND: return alu.const_like(x & y);
    case Ops::OR: return alu.const_like(x | y);
    case Ops::CMPLT: return alu.const_like(x < y);
    case Ops::CMPNE: return alu.const_like(x != y);
    case Ops::FLOORDIV: return y == 0 ? UOp() : alu.const_like(floordiv(x, y));
    case Ops::FLOORMOD: return y == 0 ? UOp() : alu.const_like(x - y * floordiv(x, y));
    default: return UOp();
  }
}
}  // namespace build

// ---- the rules, compiled: every pattern is a type, every rule straight-line matching code ----
inline constexpr auto foldable = OpSet{Ops::ADD, Ops::MUL, Ops::MAX, Ops::XOR, Ops::AND, Ops::OR,
                                       Ops::CMPLT, Ops::CMPNE, Ops::FLOORDIV, Ops::FLOORMOD};
inline constexpr auto compiled_rules = rules(
    rule(var<"x"> + 0, [](const UOp& x) { return x; }),                             // x+0 -> x
    rule(var<"x"> * 1, [](const UOp& x) { return x; }),                             // x*1 -> x
    rule(var<"x"> * 0, [](const UOp& x) { return x.const_like(0); }),               // x*0 -> 0
    rule(var<"x"> / 1, [](const UOp& x) { return x; }),                             // x//1 -> x
    rule(var<"x"> % 1, [](const UOp& x) { return x.const_like(0); }),               // x%1 -> 0
    rule(var<"x"> ^ 0, [](const UOp& x) { return x; }),                             // x^0 -> x
    rule(var<"x"> ^ var<"x">, [](const UOp& x) { return x.const_like(0); }),        // x^x -> 0
    rule(var<"x"> & 0, [](const UOp& x) { return x.const_like(0); }),               // x&0 -> 0
    rule(op<Ops::OR, Ops::AND, Ops::MAX>(var<"x">, var<"x">), [](const UOp& x) { return x; }),  // idempotent
    rule((var<"x"> * -1) * -1, [](const UOp& x) { return x; }),                     // -(-x) -> x
    rule((var<"x"> + cvar<"c1">) + cvar<"c2">, build::fold_add),                   // (x+c1)+c2 -> x+(c1+c2)
    rule((var<"x"> * cvar<"c1">) * cvar<"c2">, build::fold_mul),                   // (x*c1)*c2 -> x*(c1*c2)
    rule(var<"x"> < var<"x">, [](const UOp&) { return build::false_(); }),          // x<x -> False
    rule(ne(var<"x">, var<"x">), [](const UOp&) { return build::false_(); }),      // x!=x -> False
    rule(where(cvar<"gate">, var<"a">, var<"b">), build::where_const),             // const gate
    rule(where(upat, var<"v">, var<"v">), [](const UOp& v) { return v; }),          // same either way
    rule(cast(cast(var<"x">).named<"a">()).named<"b">(), build::cast_cast),        // cast of cast
    rule(cast(cvar<"c">).named<"root">(), build::cast_const),                      // cast of a const
    rule(op<foldable>(cvar<"a">, cvar<"b">).named<"alu">(), build::fold_binary),   // constant folding
    rule(var<"x"> / var<"x">, [](const UOp& x) { return x.const_like(1); }),        // x//x -> 1
    rule(var<"x"> % var<"x">, [](const UOp& x) { return x.const_like(0); }),        // x%x -> 0
    rule((upat % var<"y">).named<"base">() % var<"y">, [](const UOp& base, const UOp&) { return base; }),  // (x%y)%y -> x%y
    rule((var<"x"> ^ var<"y">) ^ var<"y">, [](const UOp& x, const UOp&) { return x; }),  // (x^y)^y -> x
    rule(var<"x"> + var<"x">, [](const UOp& x) { return x * 2; }));                 // x+x -> x*2

// ---- the same rules, interpreted: a pattern tree walked at run time, as tinygrad's UPat.match ----
namespace interp {

// tinygrad's dict[str, UOp]: captured (name, node) pairs
using Store = std::vector<std::pair<std::string_view, NodeRef>>;
inline NodeRef lookup(const Store& s, std::string_view name) {
  for (const auto& [k, v] : s) if (k == name) return v;
  return {};
}
inline UOp get(const Store& s, std::string_view name) { return to_handle(lookup(s, name)); }

struct IPat {
  enum class Src { none, tuple, permute, repeat };
  std::optional<OpSet> op;                  // None: any op
  std::optional<std::vector<DType>> dtype;  // None: any dtype
  std::optional<Arg> arg;                   // compared with Python's ==
  std::string name;                         // "": not captured
  Src kind = Src::none;
  std::vector<IPat> src;
  bool allow_any_len = false, is_any = false;
  // derived, as tinygrad's UPat.__init__ computes them
  std::vector<std::vector<std::uint8_t>> orders;  // the source orders to try (every permutation for a list)
  std::size_t required_len = 0;
  bool strict_length = false;
  OpSet early_reject;  // ops the node's sources must include

  IPat named(std::string n) const { IPat p = *this; p.name = std::move(n); return p; }
  IPat& finish();
  bool same(const IPat& o) const {
    if (op != o.op || dtype != o.dtype || name != o.name || kind != o.kind || allow_any_len != o.allow_any_len ||
        is_any != o.is_any || src.size() != o.src.size())
      return false;
    if (arg.has_value() != o.arg.has_value() || (arg && !(*arg == *o.arg))) return false;
    for (std::size_t i = 0; i < src.size(); ++i) if (!src[i].same(o.src[i])) return false;
    return true;
  }
};

inline IPat& IPat::finish() {
  orders.clear();
  std::vector<std::uint8_t> id(src.size());
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = std::uint8_t(i);
  bool all_same = std::all_of(src.begin(), src.end(), [&](const IPat& p) { return p.same(src[0]); });
  if (kind == Src::permute && !all_same) do orders.push_back(id); while (std::next_permutation(id.begin(), id.end()));
  else if (kind != Src::none) orders.push_back(id);
  strict_length = !(allow_any_len || kind == Src::repeat || kind == Src::none);
  required_len = kind == Src::repeat || kind == Src::none ? 0 : src.size();
  early_reject = {};
  for (const IPat& s : src) if (s.op && s.op->size() == 1) early_reject.add(s.op->first());
  return *this;
}

// builders mirroring tinygrad's UPat API
inline IPat P(std::optional<OpSet> op, std::vector<IPat> src = {}, IPat::Src kind = IPat::Src::tuple, std::string name = "") {
  IPat p;
  p.op = op, p.src = std::move(src), p.name = std::move(name);
  p.kind = p.src.empty() && kind != IPat::Src::repeat ? IPat::Src::none : kind;
  return std::move(p.finish());
}
inline IPat var(std::string name = "") { return P(std::nullopt, {}, IPat::Src::none, std::move(name)); }
inline IPat cvar(std::string name = "") { return P(OpSet{Ops::CONST}, {}, IPat::Src::none, std::move(name)); }
inline IPat konst(Arg v) { IPat p = P(OpSet{Ops::CONST}); p.arg = std::move(v); return p; }
// UPat.alu: commutative ops take their sources in any order; comparisons are bool, others take the
// last source's dtype filter
inline IPat alu(Ops op, std::vector<IPat> src) {
  std::optional<std::vector<DType>> dt = src.back().dtype;
  if (op == Ops::CMPLT || op == Ops::CMPNE) dt = std::vector<DType>{dtypes::bool_};
  IPat p = P(OpSet{op}, std::move(src), GroupOp::Commutative.contains(op) ? IPat::Src::permute : IPat::Src::tuple);
  p.dtype = dt;
  return p;
}
inline IPat ufix(const IPat& self, Arg v) { IPat k = konst(std::move(v)); k.dtype = self.dtype; return k; }
#define MG_IPAT_BINOP(SYM, OP)                                                                   \
  inline IPat operator SYM(const IPat& a, const IPat& b) { return alu(OP, {a, b}); }             \
  inline IPat operator SYM(const IPat& a, std::int64_t b) { return alu(OP, {a, ufix(a, b)}); }
MG_IPAT_BINOP(+, Ops::ADD)
MG_IPAT_BINOP(*, Ops::MUL)
MG_IPAT_BINOP(/, Ops::FLOORDIV)
MG_IPAT_BINOP(%, Ops::FLOORMOD)
MG_IPAT_BINOP(^, Ops::XOR)
MG_IPAT_BINOP(&, Ops::AND)
MG_IPAT_BINOP(<, Ops::CMPLT)
#undef MG_IPAT_BINOP
inline IPat ne(const IPat& a, const IPat& b) { return alu(Ops::CMPNE, {a, b}); }
inline IPat where(const IPat& c, const IPat& x, const IPat& y) { return alu(Ops::WHERE, {c, x, y}); }
inline IPat cast(const IPat& x) { return P(OpSet{Ops::CAST}, {x}); }
inline IPat any_of(std::vector<IPat> alts) {  // UPat.any
  IPat p;
  p.src = std::move(alts), p.is_any = true;
  return p;
}

// tinygrad's UPat.match: every store under which the pattern matches uop, in order
inline std::vector<Store> match(const IPat& p, NodeRef u, Store store) {
  if (p.is_any) {
    std::vector<Store> res;
    for (const IPat& alt : p.src) for (Store& s : match(alt, u, store)) res.push_back(std::move(s));
    return res;
  }
  if (p.op && !p.op->contains(u.op())) return {};
  if (!p.name.empty()) {
    NodeRef b = lookup(store, p.name);
    if (!b) store.emplace_back(p.name, u);
    else if (!(b == u)) return {};
  }
  if (p.dtype && std::none_of(p.dtype->begin(), p.dtype->end(), [&](DType d) { return u.dtype() == d || u.dtype().scalar() == d; }))
    return {};
  if (p.arg && !p.arg->py_equals(u.arg())) return {};
  if (u.nsrc() < p.required_len || (p.strict_length && u.nsrc() != p.required_len)) return {};
  if (p.kind == IPat::Src::none) return {std::move(store)};
  std::vector<Store> res;
  const std::size_t n = p.kind == IPat::Src::repeat ? u.nsrc() : std::min(u.nsrc(), p.src.size());
  for (const auto& order : p.orders) {
    std::vector<Store> stores{store}, next;
    for (std::size_t i = 0; i < n && !stores.empty(); ++i) {
      const IPat& sp = p.kind == IPat::Src::repeat ? p.src[0] : p.src[order[i]];
      for (Store& s : stores) for (Store& m : match(sp, u.src(i), std::move(s))) next.push_back(std::move(m));
      std::swap(stores, next);
      next.clear();
    }
    for (Store& s : stores) res.push_back(std::move(s));
  }
  return res;
}

// The same walk over the same pattern trees, but backtracking into a continuation with one capture
// stack instead of building lists of stores: no allocation per match attempt.
struct Cont {
  bool (*f)(const void*);
  const void* d;
  bool operator()() const { return f(d); }
};
template <class F> Cont cont(const F& f) { return {[](const void* d) { return (*static_cast<const F*>(d))(); }, &f}; }

inline bool match_bt(const IPat& p, NodeRef u, Store& st, Cont k);
inline bool match_seq(const IPat& p, const std::vector<std::uint8_t>& order, std::size_t i, std::size_t n, NodeRef u, Store& st, Cont k) {
  if (i == n) return k();
  const IPat& sp = p.kind == IPat::Src::repeat ? p.src[0] : p.src[order[i]];
  auto next = [&] { return match_seq(p, order, i + 1, n, u, st, k); };
  return match_bt(sp, u.src(i), st, cont(next));
}
inline bool match_bt(const IPat& p, NodeRef u, Store& st, Cont k) {
  if (p.is_any) {
    for (const IPat& alt : p.src) if (match_bt(alt, u, st, k)) return true;
    return false;
  }
  if (p.op && !p.op->contains(u.op())) return false;
  if (p.dtype && std::none_of(p.dtype->begin(), p.dtype->end(), [&](DType d) { return u.dtype() == d || u.dtype().scalar() == d; }))
    return false;
  if (p.arg && !p.arg->py_equals(u.arg())) return false;
  if (u.nsrc() < p.required_len || (p.strict_length && u.nsrc() != p.required_len)) return false;
  bool bound = false;
  if (!p.name.empty()) {
    NodeRef b = lookup(st, p.name);
    if (!b) st.emplace_back(p.name, u), bound = true;
    else if (!(b == u)) return false;
  }
  bool ok = false;
  if (p.kind == IPat::Src::none) ok = k();
  else {
    const std::size_t n = p.kind == IPat::Src::repeat ? u.nsrc() : std::min(u.nsrc(), p.src.size());
    for (const auto& order : p.orders) if ((ok = match_seq(p, order, 0, n, u, st, k))) break;
  }
  if (!ok && bound) st.pop_back();
  return ok;
}

// tinygrad's PatternMatcher: rules in order, a dict from root op to the rules that can match it
using Callback = UOp (*)(const Store&);
struct Matcher {
  struct Entry {
    IPat pat;
    Callback fn;
    std::string text;
  };
  std::vector<Entry> rules;
  std::array<std::vector<std::uint16_t>, num_ops> pdict{};
  bool backtracking = false;
  mutable Store scratch;

  Matcher(std::vector<Entry> rs, bool bt) : rules(std::move(rs)), backtracking(bt) {
    for (std::size_t i = 0; i < rules.size(); ++i)
      for (std::size_t o = 0; o < num_ops; ++o)
        if (rules[i].pat.op->contains(Ops(o))) pdict[o].push_back(std::uint16_t(i));
  }

  // what mg::detail::RewriteEngine calls
  std::optional<UOp> rewrite_view(NodeRef n, NoCtx*, int* fired) const {
    const auto& pats = pdict[std::size_t(n.op())];
    if (pats.empty()) return std::nullopt;
    OpSet ler;  // the ops of n's sources (tinygrad caches this on the node)
    for (std::size_t i = 0; i < n.nsrc(); ++i) ler.add(n.src(i).op());
    for (std::uint16_t idx : pats) {
      const Entry& e = rules[idx];
      if ((e.pat.early_reject & ler) != e.pat.early_reject) continue;
      UOp out;
      if (backtracking) {
        scratch.clear();
        match_bt(e.pat, n, scratch, cont([&] {
          UOp r = e.fn(scratch);
          if (r && !(to_view(r) == n)) out = std::move(r);
          return bool(out);
        }));
      } else {
        for (const Store& m : match(e.pat, n, {})) {
          UOp r = e.fn(m);
          if (r && !(to_view(r) == n)) { out = std::move(r); break; }
        }
      }
      if (out) {
        if (fired) *fired = int(idx);
        return out;
      }
    }
    return std::nullopt;
  }
  std::optional<UOp> rewrite(const UOp& u) const { return rewrite_view(to_view(u), nullptr, nullptr); }
  std::string describe(std::size_t i) const { return "bench_rewrite.cpp interpreted rule " + rules[i].text; }
};

inline std::vector<Matcher::Entry> symbolic_rules() {
  auto x = var("x"), y = var("y"), v = var("v");
  return {
      {x + 0, [](const Store& s) { return get(s, "x"); }, "x+0"},
      {x * 1, [](const Store& s) { return get(s, "x"); }, "x*1"},
      {x * 0, [](const Store& s) { return get(s, "x").const_like(0); }, "x*0"},
      {x / 1, [](const Store& s) { return get(s, "x"); }, "x//1"},
      {x % 1, [](const Store& s) { return get(s, "x").const_like(0); }, "x%1"},
      {x ^ 0, [](const Store& s) { return get(s, "x"); }, "x^0"},
      {x ^ x, [](const Store& s) { return get(s, "x").const_like(0); }, "x^x"},
      {x & 0, [](const Store& s) { return get(s, "x").const_like(0); }, "x&0"},
      {P(OpSet{Ops::OR, Ops::AND, Ops::MAX}, {x, x}), [](const Store& s) { return get(s, "x"); }, "f(x,x) idempotent"},
      {(x * -1) * -1, [](const Store& s) { return get(s, "x"); }, "(x*-1)*-1"},
      {(x + cvar("c1")) + cvar("c2"), [](const Store& s) { return build::fold_add(get(s, "x"), get(s, "c1"), get(s, "c2")); }, "(x+c1)+c2"},
      {(x * cvar("c1")) * cvar("c2"), [](const Store& s) { return build::fold_mul(get(s, "x"), get(s, "c1"), get(s, "c2")); }, "(x*c1)*c2"},
      {x < x, [](const Store&) { return build::false_(); }, "x<x"},
      {ne(x, x), [](const Store&) { return build::false_(); }, "x!=x"},
      {where(cvar("gate"), var("a"), var("b")),
       [](const Store& s) { return build::where_const(get(s, "gate"), get(s, "a"), get(s, "b")); }, "where(const, a, b)"},
      {where(var(), v, v), [](const Store& s) { return get(s, "v"); }, "where(c, v, v)"},
      {cast(cast(x).named("a")).named("b"), [](const Store& s) { return build::cast_cast(get(s, "b"), get(s, "a"), get(s, "x")); }, "cast(cast(x))"},
      {cast(cvar("c")).named("root"), [](const Store& s) { return build::cast_const(get(s, "root"), get(s, "c")); }, "cast(const)"},
      {P(foldable, {cvar("a"), cvar("b")}, IPat::Src::tuple, "alu"),
       [](const Store& s) { return build::fold_binary(get(s, "alu"), get(s, "a"), get(s, "b")); }, "fold(c, c)"},
      {x / x, [](const Store& s) { return get(s, "x").const_like(1); }, "x//x"},
      {x % x, [](const Store& s) { return get(s, "x").const_like(0); }, "x%x"},
      {(var() % y).named("base") % y, [](const Store& s) { return get(s, "base"); }, "(x%y)%y"},
      {(x ^ y) ^ y, [](const Store& s) { return get(s, "x"); }, "(x^y)^y"},
      {x + x, [](const Store& s) { return get(s, "x") * 2; }, "x+x"},
  };
}

}  // namespace interp

// ---- the graph: random integer expressions (fuzz_symbolic style), a few with rewritable shapes ----
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  unsigned below(unsigned n) { return unsigned(next() % n); }
};

struct GraphGen {
  Rng rng{12345};
  int plant_permille = 30;  // how often an inner node is built in a rewritable shape
  std::vector<UOp> vars;
  std::vector<std::int64_t> consts{2, 3, 5, 7, 11, 13, 16, 100};  // no 0, 1, -1: those are planted

  GraphGen() {
    for (int i = 0; i < 8; ++i) vars.push_back(UOp::variable("v" + std::to_string(i), 0, 100 + 10 * i, dtypes::int32));
  }
  UOp c(std::int64_t v) { return UOp::const_(dtypes::int32, v); }
  UOp leaf() { return rng.below(100) < 70 ? vars[rng.below(unsigned(vars.size()))] : c(consts[rng.below(unsigned(consts.size()))]); }

  UOp expr(int depth) {
    if (depth <= 0 || rng.below(100) < 10) return leaf();
    if (int(rng.below(1000)) < plant_permille) return planted(depth);
    UOp a = expr(depth - 1);
    const unsigned k = rng.below(100);
    if (k < 30) return a + expr(depth - 1);
    if (k < 50) return rng.below(3) ? a * expr(depth - 1) : a * c(consts[rng.below(unsigned(consts.size()))]);
    if (k < 58) return a.floordiv(c(2 + rng.below(8)));
    if (k < 66) return a.floormod(c(2 + rng.below(8)));
    if (k < 76) return a.maximum(expr(depth - 1));
    if (k < 82) return a ^ expr(depth - 1);
    if (k < 86) return a & expr(depth - 1);
    UOp b = expr(depth - 1), t = expr(depth - 1), f = expr(depth - 1);  // in order: the graph is the same with every compiler
    return (rng.below(2) ? a < b : a.ne(b)).where(t, f);
  }
  // one of the shapes some rule rewrites, around a random subexpression
  UOp planted(int depth) {
    UOp x = expr(depth - 1);
    switch (rng.below(22)) {
      case 0: return x + 0;
      case 1: return x * 1;
      case 2: return x * 0;
      case 3: return x.floordiv(c(1));
      case 4: return x.floormod(c(1));
      case 5: return x ^ 0;
      case 6: return x ^ x;
      case 7: return x.maximum(x);
      case 8: return (x * -1) * -1;
      case 9: return (x + c(3)) + c(4);
      case 10: return (x * c(3)) * c(5);
      case 11: return (x < x).where(expr(depth - 1), x);
      case 12: return x.ne(x).where(x, expr(depth - 1));
      case 13: return UOp::const_(dtypes::bool_, rng.below(2) == 0).where(x, expr(depth - 1));
      case 14: return (x < expr(depth - 1)).where(x, x);
      case 15: return x.cast(dtypes::int64).cast(dtypes::int32);
      case 16: return c(7) + c(9) + x;
      case 17: return x.floormod(vars[0]).floormod(vars[0]);
      case 18: { UOp y = expr(depth - 1); return (x ^ y) ^ y; }
      case 19: return x.floordiv(x);
      case 20: return x.floormod(x);
      default: return x + x;
    }
  }
};


template <class RS> UOp run_rewrite(const RS& rs, const UOp& root) {
  NoCtx ctx;
  return detail::RewriteEngine<RS, NoCtx>(rs, &ctx, {}).run(root);
}

// counts what the engine asks of a rule set (for the statistics; never timed)
template <class RS> struct Counting {
  const RS& rs;
  mutable std::size_t calls = 0;
  mutable std::vector<std::size_t> hits = std::vector<std::size_t>(64);
  std::optional<UOp> rewrite_view(NodeRef n, NoCtx* ctx, int* fired) const {
    ++calls;
    int f = -1;
    auto r = rs.rewrite_view(n, ctx, &f);
    if (r) ++hits[std::size_t(f)];
    if (fired) *fired = f;
    return r;
  }
  std::string describe(std::size_t i) const { return rs.describe(i); }
};

int main(int argc, char** argv) {
  const std::size_t target = argc > 1 ? std::size_t(std::atoll(argv[1])) : 1'000'000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  const interp::Matcher tg(interp::symbolic_rules(), false), bt(interp::symbolic_rules(), true);
  // a set whose one rule no node of the graph can reach: what the driver costs by itself
  // (an empty rules() does not build with -Werror: rules.hpp's fold_rewrite warns on an empty pack)
  const auto empty = rules(rule(op<Ops::CUSTOM>.named<"x">(), [](const UOp&) { return UOp(); }));
  if (tg.rules.size() != compiled_rules.size) { std::puts("rule sets differ in size"); return 1; }

  // build the graph once: expressions under one SINK until the graph holds `target` nodes
  auto t0 = Clock::now();
  GraphGen gen;
  std::vector<UOp> exprs;
  detail::PtrMap<char> seen(target * 2);
  std::size_t count = 0;
  std::vector<const detail::Node*> stack;
  while (count + 1 < target) {
    exprs.push_back(gen.expr(9));
    stack.push_back(exprs.back().node());
    while (!stack.empty()) {  // count the nodes this expression added
      const detail::Node* n = stack.back();
      stack.pop_back();
      if (seen.contains(n)) continue;
      seen.set(n, 1);
      ++count;
      for (const UOp& s : n->src) stack.push_back(s.node());
    }
  }
  const UOp root = UOp::sink(exprs);
  const std::vector<UOp> topo = root.toposort();
  auto t1 = Clock::now();
  std::size_t edges = 0;
  for (const UOp& u : topo) edges += u.nsrc();
  std::printf("graph: %zu nodes in the toposort, %zu edges, %zu expressions under one SINK; built in %.2f s\n",
              topo.size(), edges, exprs.size(), secs(t0, t1));
  std::printf("rules: %zu, the same in both forms\n\n", compiled_rules.size);

  // BENCH_ONLY=compiled|tinygrad|backtracking|driver: just that rewrite, `rounds` times (for perf record)
  if (const char* only = std::getenv("BENCH_ONLY")) {
    const std::string w = only;
    if (w.starts_with("micro-")) {  // micro-compiled|micro-tinygrad|micro-backtracking: rewrite() per node
      std::size_t hits = 0;
      std::vector<UOp> nodes;
      for (const UOp& u : topo) if (!compiled_rules.rewrite(u)) nodes.push_back(u);  // matching only
      const int k = w == "micro-compiled" ? 0 : w == "micro-tinygrad" ? 1 : 2;
      for (int r = 0; r < rounds; ++r)
        for (const UOp& u : nodes)
          hits += (k == 0 ? compiled_rules.rewrite(u) : k == 1 ? tg.rewrite(u) : bt.rewrite(u)).has_value();
      std::printf("%s: %zu rewrites\n", only, hits);
      return 0;
    }
    for (int r = 0; r < rounds; ++r) {
      UOp out;
      Sample t = timed([&] {
        out = w == "compiled" ? run_rewrite(compiled_rules, root) : w == "tinygrad" ? run_rewrite(tg, root)
            : w == "backtracking" ? run_rewrite(bt, root) : run_rewrite(empty, root);
      });
      std::printf("%s: %.1f ms cpu, %.1f ms wall\n", only, t.cpu * 1e3, t.wall * 1e3);
    }
    return 0;
  }

  // correctness: same graph, same rules, same driver -> the same interned result node
  std::size_t out_nodes = 0;
  {
    Counting<decltype(compiled_rules)> cc{compiled_rules};
    Counting<interp::Matcher> ci{tg}, cb{bt};
    UOp rc = run_rewrite(cc, root), ri = run_rewrite(ci, root), rb = run_rewrite(cb, root);
    const std::vector<UOp> out_topo = rc.toposort();
    out_nodes = out_topo.size();
    std::size_t fresh = 0;
    for (const UOp& u : out_topo) fresh += !seen.contains(u.node());
    std::printf("result: compiled %p, interpreted %p, backtracking %p: %s (hash %016zx)\n", (const void*)rc.node(),
                (const void*)ri.node(), (const void*)rb.node(), rc == ri && rc == rb ? "the same node" : "MISMATCH", rc.hash());  // UOp::hash: per run, sources hash by identity
    if (!(rc == ri && rc == rb)) return 1;
    std::size_t fired = 0;
    for (std::size_t h : cc.hits) fired += h;
    std::printf("result graph: %zu nodes, %zu of them not in the input (rebuilt above a rewrite, or made by a rule)\n", out_nodes, fresh);
    std::printf("first expression: %s\n    -> %s\n", exprs[0].render().substr(0, 100).c_str(), rc.src(0).render().substr(0, 100).c_str());
    std::printf("engine asked for %zu node rewrites, %zu fired (%.1f%% of the input nodes)\n", cc.calls, fired,
                100.0 * double(fired) / double(topo.size()));
    if (cc.calls != ci.calls || cc.hits != ci.hits || cc.calls != cb.calls || cc.hits != cb.hits) {
      std::puts("MISMATCH in rule firing counts");
      return 1;
    }
    std::printf("fired per rule:");
    for (std::size_t i = 0; i < compiled_rules.size; ++i) std::printf(" %s=%zu", tg.rules[i].text.c_str(), cc.hits[i]);
    std::printf("\n\n");
  }

  // full graph_rewrite, best of `rounds`, engines interleaved; each result is dropped before the next run
  // node visits/s = nodes in the input graph's toposort / seconds for one whole graph_rewrite
  const char* names[5] = {"compiled (mg::rules)", "interpreted (tinygrad UPat.match)", "interpreted, backtracking",
                          "driver only (rule set never fires)", "UOp::toposort alone (a walk, no rewrite)"};
  Sample best[5];
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < 5; ++k) {
      UOp out;
      keep_best(best[k], timed([&] {
        if (k == 0) out = run_rewrite(compiled_rules, root);
        else if (k == 1) out = run_rewrite(tg, root);
        else if (k == 2) out = run_rewrite(bt, root);
        else if (k == 3) out = run_rewrite(empty, root);
        else if (root.toposort().size() != topo.size()) std::abort();
      }));
    }
  }
  std::printf("full graph_rewrite of %zu nodes, best of %d by CPU time (engines interleaved, each result dropped):\n", topo.size(), rounds);
  std::printf("  %-42s %9s %9s %14s %12s\n", "", "cpu ms", "wall ms", "M visits/s", "time/compiled");
  for (int k = 0; k < 5; ++k)
    std::printf("  %-42s %9.1f %9.1f %14.2f %11.2fx\n", names[k], best[k].cpu * 1e3, best[k].wall * 1e3,
                double(topo.size()) / best[k].cpu / 1e6, best[k].cpu / best[0].cpu);

  // rule matching alone: rs.rewrite on each node by itself, no driver. Once over every input node
  // (the few that match also run their callback, which builds nodes), once over the nodes no rule
  // rewrites (pure matching: every rule the dispatch offers is tried and fails).
  std::vector<UOp> nomatch;
  for (const UOp& u : topo) if (!compiled_rules.rewrite(u)) nomatch.push_back(u);
  auto micro = [&](const std::vector<UOp>& nodes, const char* title) {
    std::printf("\nrs.rewrite() alone on each of %zu %s, per node, best of %d by CPU time:\n", nodes.size(), title, rounds);
    Sample mbest[3];
    std::size_t hits[3] = {};
    for (int r = 0; r < rounds; ++r) {
      for (int k = 0; k < 3; ++k) {
        std::size_t h = 0;
        keep_best(mbest[k], timed([&] {
          for (const UOp& u : nodes) h += (k == 0 ? compiled_rules.rewrite(u) : k == 1 ? tg.rewrite(u) : bt.rewrite(u)).has_value();
        }));
        hits[k] = h;
      }
    }
    if (hits[0] != hits[1] || hits[0] != hits[2]) { std::puts("MISMATCH in single-node rewrites"); std::exit(1); }
    std::printf("  %-42s %9s %9s %14s %12s\n", "", "cpu ns", "wall ns", "rewritten", "time/compiled");
    for (int k = 0; k < 3; ++k)
      std::printf("  %-42s %9.1f %9.1f %14zu %11.2fx\n", names[k], mbest[k].cpu / double(nodes.size()) * 1e9,
                  mbest[k].wall / double(nodes.size()) * 1e9, hits[k], mbest[k].cpu / mbest[0].cpu);
  };
  micro(topo, "input nodes (matching + callbacks)");
  micro(nomatch, "input nodes that no rule rewrites (matching only)");

  // what a rewrite pays per node it rebuilds, in the intern table: 500k new ADD nodes (each with a
  // new CONST, so 1M new nodes), the same 500k ADDs looked up again, then all of them freed
  const std::size_t m = 500'000;
  Sample ibest[3];
  for (int r = 0; r < rounds; ++r) {
    std::vector<UOp> made;
    made.reserve(m);
    UOp v = UOp::variable("intern_bench", 0, 10, dtypes::int32);
    keep_best(ibest[0], timed([&] {
      for (std::size_t i = 0; i < m; ++i)
        made.push_back(UOp(Ops::ADD, dtypes::int32, {i % 4 == 0 ? v : made[i / 2], UOp::const_(dtypes::int32, std::int64_t(1'000'000 + i))}));
    }));
    keep_best(ibest[1], timed([&] {
      for (std::size_t i = 0; i < m; ++i) if (!(UOp(Ops::ADD, dtypes::int32, {made[i].src(0), made[i].src(1)}) == made[i])) std::abort();
    }));
    keep_best(ibest[2], timed([&] { made.clear(); }));
  }
  std::printf("\ninterning (shared by every engine), best of %d by CPU time:\n", rounds);
  std::printf("  a new node %.0f ns (ADD + its CONST, per node), an existing node found again %.0f ns, freeing %.0f ns per node\n",
              ibest[0].cpu / double(2 * m) * 1e9, ibest[1].cpu / double(m) * 1e9, ibest[2].cpu / double(2 * m) * 1e9);
}
