#pragma once
// Fused kernels built while the user's program compiles.
//
//   auto k = mg::static_kernel<mg::input<float, 1024, 512>, mg::input<float, 512>>(
//       [](auto a, auto b) { return (a * b).relu().sum(mg::axes<1>{}); });
//   std::vector<float> out = k(a, b);          // or k(out_ptr, a_ptr, b_ptr)
//
// The lambda runs in constant evaluation on tensors whose shapes are types (static/tensor.hpp). Its
// expression is lowered into a ct::Graph of index arithmetic, ranges, loads, ALU ops and reduces;
// the rule sets rewrite that graph in constant evaluation: `symbolic_simple` and `symbolic_fold` (the
// runtime's own rule sets, both parts of `symbolic`; their rules whose callbacks are generic run on
// compile-time nodes, and every generic one of `symbolic` is in them) and `static_index_rules` below.
// The graph is compacted into a Program, and Emit instantiates one inlined function per node of it:
// the loop nest the compiler sees is plain C++ over the caller's pointers, with no graph, JIT or
// LLVM at run time.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/cmath.hpp"
#include "../core/error.hpp"
#include "../core/print.hpp"
#include "../symbolic/symbolic.hpp"
#include "graph.hpp"
#include "tensor.hpp"

namespace mg {

// the type of a static kernel's argument: element type and shape
template <class T, std::int64_t... D>
struct input {
  using value_type = T;
  using shape_t = shape<D...>;
  static constexpr std::size_t size = std::size_t(shape_t::numel);
  template <int Slot> static constexpr auto tensor() { return st::input_tensor<Slot, T, D...>(); }
};

namespace st {

// ---- the rules for index arithmetic a static kernel adds to `symbolic_simple` ----
namespace detail {
template <class = void> constexpr bool int_like(DType d) { return !d.is_float(); }
template <class = void> constexpr std::int64_t fold_int(Ops o, std::int64_t a, std::int64_t b) {
  switch (o) {
    case Ops::ADD: return std::int64_t(std::uint64_t(a) + std::uint64_t(b));
    case Ops::MUL: return std::int64_t(std::uint64_t(a) * std::uint64_t(b));
    case Ops::FLOORDIV: return mg::detail::py_floordiv(a, b);
    case Ops::FLOORMOD: return mg::detail::py_floormod(a, b);
    case Ops::MAX: return a > b ? a : b;
    case Ops::CMPLT: return a < b;
    case Ops::CMPNE: return a != b;
    case Ops::AND: return a & b;
    case Ops::OR: return a | b;
    case Ops::XOR: return a ^ b;
    default: return 0;
  }
}
// the terms of a sum: coefficient * node (node null for the constant term)
struct Term {
  CN x;
  std::int64_t k;
};
struct Terms {
  std::array<Term, 32> t{};
  int n = 0;
  std::int64_t c = 0;
  bool ok = true;
};
template <class = void> constexpr void split_terms(CN x, std::int64_t k, Terms& out) {
  if (x.op() == Ops::ADD) return split_terms(x.src(0), k, out), split_terms(x.src(1), k, out);
  if (x.op() == Ops::CONST) {
    out.c += k * x.arg().as_int();
    return;
  }
  if (x.op() == Ops::MUL && x.src(1).op() == Ops::CONST) return split_terms(x.src(0), k * x.src(1).arg().as_int(), out);
  if (out.n == 32) {
    out.ok = false;
    return;
  }
  out.t[std::size_t(out.n++)] = {x, k};
}
template <class = void> constexpr CN sum_terms(CN like, const Term* t, int n, std::int64_t c) {
  CN out{};
  for (int i = 0; i < n; ++i) {
    if (t[i].k == 0) continue;
    CN term = t[i].k == 1 ? t[i].x : t[i].x * t[i].k;
    out = out ? out + term : term;
  }
  if (!out) return like.const_like(CArg(c));
  return c == 0 ? out : out + c;
}
// x // c and x % c for c > 0 when x = c*q + r with 0 <= r < c known from bounds: each term's
// coefficient splits into its quotient and remainder by c (tinygrad's fold_divmod_general, its
// simplest case: the remainder sum is a valid remainder)
template <class = void> constexpr CN fold_divmod(CN d, CN x, CN c) {
  const std::int64_t cv = c.arg().as_int();
  if (cv <= 0 || !int_like(x.dtype())) return {};
  Terms ts;
  split_terms(x, 1, ts);
  if (!ts.ok) return {};
  std::array<Term, 32> q{}, r{};
  for (int i = 0; i < ts.n; ++i) {
    const std::int64_t k = ts.t[std::size_t(i)].k, kq = mg::detail::py_floordiv(k, cv);
    q[std::size_t(i)] = {ts.t[std::size_t(i)].x, kq};
    r[std::size_t(i)] = {ts.t[std::size_t(i)].x, k - kq * cv};
  }
  const std::int64_t cq = mg::detail::py_floordiv(ts.c, cv), cr = ts.c - cq * cv;
  CN rem = sum_terms(x, r.data(), ts.n, cr);
  if (rem.vmin() < 0 || rem.vmax() >= cv) return {};
  return d.op() == Ops::FLOORMOD ? rem : sum_terms(x, q.data(), ts.n, cq);
}
// (x//c)*c + x%c -> x, among the terms of a sum
template <class = void> constexpr CN fold_recombine(CN a) {
  if (!int_like(a.dtype())) return {};
  Terms ts;
  split_terms(a, 1, ts);
  if (!ts.ok) return {};
  for (int i = 0; i < ts.n; ++i) {
    const Term ti = ts.t[std::size_t(i)];
    if (ti.x.op() != Ops::FLOORDIV || ti.x.src(1).op() != Ops::CONST) continue;
    const CN x = ti.x.src(0), c = ti.x.src(1);
    for (int j = 0; j < ts.n; ++j) {
      const Term tj = ts.t[std::size_t(j)];
      if (tj.x.op() != Ops::FLOORMOD || !(tj.x.src(0) == x) || !(tj.x.src(1) == c) || ti.k != tj.k * c.arg().as_int()) continue;
      std::array<Term, 33> rest{};
      int n = 0;
      for (int m = 0; m < ts.n; ++m)
        if (m != i && m != j) rest[std::size_t(n++)] = ts.t[std::size_t(m)];
      rest[std::size_t(n++)] = {x, tj.k};
      return sum_terms(a, rest.data(), n, ts.c);
    }
  }
  return {};
}
template <class D_ = void>
struct static_index_rules_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    using mg::rule;
    return rules(
        // constant folding of integer ops (symbolic's fold_const_alu evaluates runtime values)
        rule(op<Ops::ADD, Ops::MUL, Ops::FLOORDIV, Ops::FLOORMOD, Ops::MAX, Ops::CMPLT, Ops::CMPNE, Ops::AND, Ops::OR, Ops::XOR>(
                 cvar<"a">, cvar<"b">).named("r"_n),
             [](const auto& r, const auto& a, const auto& b) -> std::decay_t<decltype(r)> {
               if (!int_like(a.dtype()) || ((r.op() == Ops::FLOORDIV || r.op() == Ops::FLOORMOD) && b.arg().as_int() == 0)) return {};
               return r.const_like(CArg(fold_int(r.op(), a.arg().as_int(), b.arg().as_int())));
             }),
        // division and modulo by a positive constant, from bounds
        rule(op<Ops::FLOORDIV, Ops::FLOORMOD>(var<"x">, cvar<"c">).named("d"_n), [](const auto& d, const auto& x, const auto& c) { return fold_divmod(d, x, c); }),
        rule(op<Ops::ADD>.named("a"_n), [](const auto& a) { return fold_recombine(a); }),
        // a reduce over a range of one value (symbolic_fold made it the constant 0) is its value
        rule(op<Ops::REDUCE>(var<"x">, op<Ops::CONST>), [](const auto& x) { return x; }));
  }
};
}  // namespace detail
inline constexpr LazyRules<detail::static_index_rules_def<>> static_index_rules{};

// ---- the compacted kernel: nodes in topological order, with what the emitter needs ----
struct PNode {
  Ops op = Ops::NOOP;
  DType dtype{};
  std::int64_t i = 0;  // integer arg (CONST, PARAM slot, RANGE id, REDUCE's op as int)
  double f = 0;        // float arg
  bool fl = false;     // the arg is a float
  int nsrc = 0;
  std::array<int, 4> src{};
  std::int64_t vmin = 0, vmax = 0;
  int slot = -1;   // RANGE: its index in the loop counters; REDUCE: its hoisted slot, -1 if computed inline
  int level = -1;  // hoisted REDUCE: computed before the loop over output range `level` (== nout: per lane group)
  std::uint64_t free = 0;  // the range counters this node reads
  bool nests = false;      // a reduce computed inline is below this node
  bool guarded = false;    // evaluating it where its value is not used could read out of bounds or divide by 0
  bool split = false;      // a reduce per lane whose loads do not walk the lanes' counter with unit stride
  constexpr bool operator==(const PNode&) const = default;
};

inline constexpr std::size_t program_cap = 512;
inline constexpr std::size_t max_ranges = 32;

struct Program {
  std::array<PNode, program_cap> n{};
  int size = 0;
  int store = -1;  // the STORE node
  int nout = 0;    // output ranges (the output's dims): counters 0..nout-1
  std::array<std::int64_t, max_ranges> bound{};
  int nrange = 0;
  int nhoist = 0;
  std::array<int, program_cap> hoisted{};  // node index of each hoisted slot, in topological order
  constexpr bool operator==(const Program& o) const {
    if (size != o.size || store != o.store || nout != o.nout) return false;
    for (int k = 0; k < size; ++k)
      if (!(n[std::size_t(k)] == o.n[std::size_t(k)])) return false;
    return true;
  }
  // the node of the value stored, and of the index it is stored at
  constexpr int value() const { return n[std::size_t(store)].src[1]; }
  constexpr int store_index() const { return n[std::size_t(n[std::size_t(store)].src[0])].src[1]; }
};

namespace detail {
// the coefficient of loop counter `slot` in integer node k: through ADD, MUL by a constant, RANGE
// and CONST; -1 when the node reads the counter some other way (a division, a comparison)
template <class = void> constexpr std::int64_t coefficient(const Program& p, int k, int slot) {
  const PNode& q = p.n[std::size_t(k)];
  if (!(q.free >> slot & 1)) return 0;
  if (q.op == Ops::RANGE) return 1;
  const std::int64_t a = coefficient(p, q.src[0], slot);
  if (a < 0) return -1;
  if (q.op == Ops::ADD) {
    const std::int64_t b = coefficient(p, q.src[1], slot);
    return b < 0 ? -1 : a + b;
  }
  if (q.op == Ops::MUL && p.n[std::size_t(q.src[1])].op == Ops::CONST) return a * p.n[std::size_t(q.src[1])].i;
  return -1;
}
// the nodes below node k (k included): sources come before their users in a program
template <class = void> constexpr std::array<bool, program_cap> below(const Program& p, int k) {
  std::array<bool, program_cap> in{};
  in[std::size_t(k)] = true;
  for (int j = k; j >= 0; --j)
    if (in[std::size_t(j)])
      for (int s = 0; s < p.n[std::size_t(j)].nsrc; ++s) in[std::size_t(p.n[std::size_t(j)].src[s])] = true;
  return in;
}
// whether every load below node k reads counter `slot` with a stride of 0 or 1: lanes along that
// counter then load whole vectors (a matmul's column block, a column sum), where a row sum's lanes
// would each read their own row
template <class = void> constexpr bool unit_stride(const Program& p, int k, int slot) {
  const std::array<bool, program_cap> in = below(p, k);
  for (int j = 0; j <= k; ++j)
    if (in[std::size_t(j)] && p.n[std::size_t(j)].op == Ops::INDEX) {
      const std::int64_t c = coefficient(p, p.n[std::size_t(j)].src[1], slot);
      if (c != 0 && c != 1) return false;
    }
  return true;
}
template <class = void> constexpr void topo(CN x, std::array<int, graph_cap>& map, Program& p) {
  if (map[std::size_t(x.index())] >= 0) return;
  for (std::size_t k = 0; k < x.nsrc(); ++k) topo(x.src(k), map, p);
  if (std::size_t(p.size) == program_cap) throw Error("static kernel: more than 512 nodes after simplification");
  PNode& q = p.n[std::size_t(p.size)];
  q.op = x.op(), q.dtype = x.dtype(), q.nsrc = int(x.nsrc());
  const CArg& a = x.arg();
  q.fl = a.is_float(), q.f = a.f, q.i = a.kind == CArg::Kind::op ? std::int64_t(a.o) : a.i;
  for (std::size_t k = 0; k < x.nsrc(); ++k) q.src[k] = map[std::size_t(x.src(k).index())];
  if (!x.dtype().is_ptr && x.dtype() != dtypes::void_ && !x.dtype().is_float()) q.vmin = x.vmin(), q.vmax = x.vmax();
  map[std::size_t(x.index())] = p.size++;
}
template <class = void> constexpr Program compact(CN sink, int nout, const std::array<std::int64_t, max_ranges>& out_bound) {
  Program p;
  std::array<int, graph_cap> map{};
  for (int& m : map) m = -1;
  topo(sink, map, p);
  p.nout = nout;
  for (int k = 0; k < nout; ++k) p.bound[std::size_t(k)] = out_bound[std::size_t(k)];
  p.nrange = nout;
  for (int k = 0; k < p.size; ++k) {
    PNode& q = p.n[std::size_t(k)];
    if (q.op == Ops::STORE) p.store = k;
    if (q.op == Ops::RANGE) {
      if (q.i < 64) q.slot = int(q.i);  // an output range: its axis
      else {
        if (std::size_t(p.nrange) == max_ranges) throw Error("static kernel: more than 32 loops");
        p.bound[std::size_t(p.nrange)] = p.n[std::size_t(q.src[0])].i;
        q.slot = p.nrange++;
      }
      q.free = std::uint64_t(1) << q.slot;
    } else if (q.op == Ops::REDUCE) {
      const PNode& r = p.n[std::size_t(q.src[1])];
      q.free = p.n[std::size_t(q.src[0])].free & ~r.free;
    } else {
      for (int s = 0; s < q.nsrc; ++s) q.free |= p.n[std::size_t(q.src[s])].free;
    }
  }
  // a reduce that reads only output counters is computed once per iteration of the innermost of
  // them, before that loop's body (softmax's row max and row sum once per row); one that reads
  // another reduce's counter runs inline in that reduce's loop. One that reads the innermost output
  // counter is computed for a block of lanes along it: the lanes are the vector when its loads walk
  // that counter with unit stride (a matmul's columns, a column sum); otherwise (a row sum) each
  // lane has its own partial results along the reduce's counter (`split`)
  const std::uint64_t out_mask = nout == 0 ? 0 : (std::uint64_t(1) << nout) - 1;
  for (int k = 0; k < p.size; ++k) {
    PNode& q = p.n[std::size_t(k)];
    if (q.op != Ops::REDUCE || (q.free & ~out_mask) != 0) continue;
    int level = 0;
    for (int b = 0; b < nout; ++b)
      if (q.free >> b & 1) level = b + 1;
    if (level == nout && nout > 0) q.split = !unit_stride(p, q.src[0], nout - 1);
    q.level = level;
    q.slot = p.nhoist;
    p.hoisted[std::size_t(p.nhoist++)] = k;
  }
  for (int k = 0; k < p.size; ++k) {
    PNode& q = p.n[std::size_t(k)];
    for (int s = 0; s < q.nsrc; ++s) {
      const PNode& c = p.n[std::size_t(q.src[s])];
      q.nests = q.nests || c.nests || (c.op == Ops::REDUCE && c.slot < 0);
      q.guarded = q.guarded || c.guarded;
    }
    // a load whose index may leave the buffer (a pad's), an integer division whose divisor may be 0
    if (q.op == Ops::INDEX) {
      const PNode& ix = p.n[std::size_t(q.src[1])];
      q.guarded = q.guarded || ix.vmin < 0 || ix.vmax >= p.n[std::size_t(q.src[0])].dtype.size;
    }
    if ((q.op == Ops::FLOORDIV || q.op == Ops::FLOORMOD || q.op == Ops::CDIV || q.op == Ops::CMOD) && !q.dtype.is_float()) {
      const PNode& d = p.n[std::size_t(q.src[1])];
      q.guarded = q.guarded || (d.vmin <= 0 && d.vmax >= 0);
    }
  }
  return p;
}
}  // namespace detail

// a string built in constant evaluation (GCC 12's std::string cannot be compared in a static_assert)
struct Text {
  std::array<char, 480> c{};
  std::size_t n = 0;
  constexpr Text() = default;
  constexpr Text(std::string_view s) { *this += s; }
  constexpr Text& operator+=(std::string_view s) {
    for (char ch : s)
      if (n < c.size()) c[n++] = ch;
    return *this;
  }
  constexpr Text& operator+=(const Text& t) { return *this += t.view(); }
  constexpr std::string_view view() const { return {c.data(), n}; }
  friend constexpr Text operator+(Text a, const Text& b) { return a += b; }
  friend constexpr Text operator+(Text a, std::string_view b) { return a += b; }
  friend constexpr Text operator+(std::string_view a, const Text& b) { return Text(a) += b; }
  friend constexpr bool operator==(const Text& a, std::string_view b) { return a.view() == b; }
  std::string str() const { return std::string(view()); }
};

// the infix render of a program's integer node, as UOp::render writes index math ((r0*4)+r1);
// ranges are r<counter>, a load is p<slot>[index]. Usable in a static_assert.
template <class = void> constexpr Text render(const Program& p, int k) {
  auto num = [](std::int64_t v) {
    std::array<char, 24> d{};
    std::size_t m = d.size();
    const bool neg = v < 0;
    std::uint64_t u = neg ? 0 - std::uint64_t(v) : std::uint64_t(v);
    do d[--m] = char('0' + u % 10), u /= 10; while (u);
    if (neg) d[--m] = '-';
    return Text(std::string_view(d.data() + m, d.size() - m));
  };
  auto prec = [](Ops o) { return mg::detail::render_precedence(o); };
  auto sym = [](Ops o) -> std::string_view { const char* c = mg::detail::render_sym(o); return c ? c : ""; };
  const PNode& n = p.n[std::size_t(k)];
  auto child = [&](int s, bool strip) {
    Text c = render(p, n.src[std::size_t(s)]);
    if (strip && c.n > 1 && c.c[0] == '(' && !sym(p.n[std::size_t(n.src[std::size_t(s)])].op).empty())
      return Text(c.view().substr(1, c.n - 2));
    return c;
  };
  switch (n.op) {
    case Ops::CONST: return n.fl ? Text("<float>") : num(n.i);
    case Ops::RANGE: return "r" + num(n.slot);
    case Ops::LOAD: {
      const PNode& ix = p.n[std::size_t(n.src[0])];
      return "p" + num(p.n[std::size_t(ix.src[0])].i) + "[" + render(p, ix.src[1]) + "]";
    }
    case Ops::WHERE: return "(" + child(1, false) + " if " + child(0, false) + " else " + child(2, false) + ")";
    default: break;
  }
  if (const std::string_view o = sym(n.op); !o.empty() && n.nsrc == 2) {
    const int pr = prec(n.op);
    const int p0 = prec(p.n[std::size_t(n.src[0])].op), p1 = prec(p.n[std::size_t(n.src[1])].op);
    return "(" + child(0, pr != 99 && p0 <= pr) + o + child(1, pr != 99 && p1 < pr) + ")";
  }
  return Text(op_name(n.op)) + "(...)";
}

namespace detail {
// lower the output expression with its dims grouped into loops (group[d]: dim d's loop, groups of
// adjacent dims in order) and rewrite it with the rules. A loop over a group of dims is one range
// over their product, each dim's index its part of it: (r // inner) % dim
template <class E, class RS>
constexpr Program lower_grouped(const E& expr, const RS& rs, const std::array<int, E::shape_t::ndim>& group) {
  using S = typename E::shape_t;
  constexpr std::size_t N = S::ndim;
  CG g;
  Idxs<N> idx{};
  std::array<std::int64_t, max_ranges> bound{};
  int ngroup = 0;
  for (std::size_t d = 0; d < N; ++d) {
    const int k = group[d];
    ngroup = k + 1;
    bound[std::size_t(k)] = (d > 0 && group[d - 1] == k ? bound[std::size_t(k)] : 1) * S::dims[d];
  }
  std::array<CN, max_ranges> r{};
  for (int k = 0; k < ngroup; ++k)
    r[std::size_t(k)] = g.make(Ops::RANGE, dtypes::weakint, {g.const_(dtypes::weakint, bound[std::size_t(k)])}, CArg(std::int64_t(k)));
  for (std::size_t d = 0; d < N; ++d) {
    std::int64_t inner = 1;
    for (std::size_t e = d + 1; e < N && group[e] == group[d]; ++e) inner *= S::dims[e];
    CN x = r[std::size_t(group[d])];
    if (inner > 1) x = x / inner;
    if (d > 0 && group[d - 1] == group[d]) x = x % S::dims[d];
    idx[d] = x;
  }
  CN v = expr.lower(g, idx);
  CN buf = g.make(Ops::PARAM, E::dtype.ptr(S::numel), {}, CArg(0));
  CN store = g.make(Ops::STORE, dtypes::void_, {g.make(Ops::INDEX, E::dtype.ptr(S::numel), {buf, linear_index<S>(g, idx)}), v});
  CN sink = ct::graph_rewrite(g.make(Ops::SINK, dtypes::void_, {store}), rs);
  return compact(sink, ngroup, bound);
}
template <class = void> constexpr int count_divmod(const Program& p) {
  int n = 0;
  for (int k = 0; k < p.size; ++k) n += p.n[std::size_t(k)].op == Ops::FLOORDIV || p.n[std::size_t(k)].op == Ops::FLOORMOD;
  return n;
}
}  // namespace detail

// lower a kernel's output expression and rewrite it with the rules: the whole compile-time pipeline.
// Adjacent output dims become one loop when the rules then leave no more div/mod than before (the
// runtime's simplify_merge_adjacent, codegen/simplify.hpp): an elementwise kernel over contiguous
// buffers is one loop over all of them, one with a broadcast row keeps its two loops
template <class E, class RS>
constexpr Program build_program(const E& expr, const RS& rs) {
  constexpr std::size_t N = E::shape_t::ndim;
  std::array<int, N> group{};
  for (std::size_t d = 0; d < N; ++d) group[d] = int(d);
  Program best = detail::lower_grouped(expr, rs, group);
  for (std::size_t d = 1; d < N; ++d) {
    std::array<int, N> merged = group;
    for (std::size_t e = d; e < N; ++e) --merged[e];
    Program p = detail::lower_grouped(expr, rs, merged);
    if (detail::count_divmod(p) <= detail::count_divmod(best)) best = p, group = merged;
  }
  return best;
}

// ---- float32 exp2 and log2 as arithmetic the vectorizer takes (libm's are calls, one per element) ----
namespace detail {
// 2^x: round x to an integer k (by adding 1.5*2^23: the low bits then hold it) and a fraction t in
// [-1/2, 1/2]; 2^t = e^(t ln2) by its Taylor series to degree 7 (truncation below 1e-8), 2^k by the
// exponent bits, in two halves so that k from -150 to 128 gives denormals and infinity as powers of
// two do. Written without branches or float-to-int conversions, so that loops over it vectorize.
template <class = void> float exp2_f32(float x) {
  float c = x > 128.f ? 128.f : x;
  c = c < -150.f ? -150.f : c;
  c = c == c ? c : 0.f;
  const float big = c + 12582912.f;
  const std::int32_t k = std::bit_cast<std::int32_t>(big) - 0x4B400000;
  const float t = (c - (big - 12582912.f)) * 0.693147180559945309f;
  float p = 1.f / 5040;
  p = p * t + 1.f / 720, p = p * t + 1.f / 120, p = p * t + 1.f / 24, p = p * t + 1.f / 6, p = p * t + 0.5f, p = p * t + 1.f;
  p = p * t + 1.f;
  const std::int32_t k1 = k >> 1, k2 = k - k1;
  const float r = p * std::bit_cast<float>(std::uint32_t(k1 + 127) << 23) * std::bit_cast<float>(std::uint32_t(k2 + 127) << 23);
  return x == x ? r : x;
}
// log2(x) = e + log2(m) with m in [sqrt(1/2), sqrt(2)): log(m) = 2 atanh(s), s = (m-1)/(m+1), by its
// series to s^11; denormals are scaled up first
template <class = void> float log2_f32(float x) {
  const bool den = x < 1.17549435e-38f;
  const float y = den ? x * 16777216.f : x;
  const std::int32_t b = std::bit_cast<std::int32_t>(y);
  std::int32_t e = ((b >> 23) & 0xff) - 127;
  float m = std::bit_cast<float>((b & 0x007fffff) | 0x3f800000);
  const bool big = m > 1.41421356f;
  m = big ? m * 0.5f : m;
  e += std::int32_t(big);
  const float s = (m - 1.f) / (m + 1.f), s2 = s * s;
  float q = 1.f / 11;
  q = q * s2 + 1.f / 9, q = q * s2 + 1.f / 7, q = q * s2 + 1.f / 5, q = q * s2 + 1.f / 3, q = q * s2 + 1.f;
  const float r = float(e - (den ? 24 : 0)) + 2.f * s * q * 1.44269504088896341f;
  return x != x || x == __builtin_inff() ? x : x < 0.f ? __builtin_nanf("") : x == 0.f ? -__builtin_inff() : r;
}
}  // namespace detail

// ---- the emitter: the program as inlined C++ ----
#define MG_ST_INLINE [[gnu::always_inline]] inline

template <class K>
struct Emit {
  static constexpr const Program& P = K::program;
  using Ptrs = typename K::ptrs;
  static constexpr int NR = P.nrange > 0 ? P.nrange : 1;
  static constexpr int inner = P.nout - 1;  // the innermost output counter: lanes run along it
  static constexpr int outer = P.nout - 2;  // and along this one too, when it is upcast
  using OutT = typename K::value_type;
  // lanes along the innermost counter: a 64-byte vector of the output type (two when a reduce runs per
  // lane, as in a matmul), fewer when the dim is shorter
  static constexpr bool lane_reduce = [] {
    for (int k = 0; k < P.size; ++k)
      if (P.n[std::size_t(k)].op == Ops::REDUCE && P.n[std::size_t(k)].slot >= 0 && P.n[std::size_t(k)].level == P.nout && P.nout > 0) return true;
    return false;
  }();
  // a reduce per lane with its own partial results per lane (a row sum): lanes are rows of the input
  static constexpr bool split_lanes = [] {
    for (int k = 0; k < P.size; ++k)
      if (P.n[std::size_t(k)].op == Ops::REDUCE && P.n[std::size_t(k)].slot >= 0 && P.n[std::size_t(k)].level == P.nout &&
          P.n[std::size_t(k)].split)
        return true;
    return false;
  }();
  // lanes along the next counter out: 8 rows at once when a reduce runs per lane and no reduce is
  // computed per row (a matmul's register block: 8 rows x 2 vectors, 16 accumulators)
  static constexpr std::int64_t lanes_out = [] {
    if (!lane_reduce || split_lanes || P.nout < 2 || P.bound[std::size_t(outer)] < 8) return std::int64_t(1);
    for (int k = 0; k < P.size; ++k)
      if (P.n[std::size_t(k)].op == Ops::REDUCE && P.n[std::size_t(k)].slot >= 0 && P.n[std::size_t(k)].level == P.nout - 1) return std::int64_t(1);
    return std::int64_t(8);
  }();
  // two vectors of the output type: the lanes of one row of a register block
  static constexpr std::int64_t vec2 = std::int64_t(64 / sizeof(OutT)) * 2;
  static constexpr std::int64_t lanes_in = [] {
    if (P.nout == 0) return std::int64_t(1);
    // no reduce per lane: the whole row is one loop for the vectorizer (one alias check per row)
    if (!lane_reduce) return P.bound[std::size_t(inner)];
    // split lanes: 4 input rows at once, 8 vectors of partial results, 4 streams from memory. A block
    // of rows (a matmul): two vectors per row, the block in registers. One row of lanes (a column
    // sum, a vector-matrix product): 1 KiB of the output at once, its partial results in L1, so that
    // each step of the reduce reads 1 KiB of an input row instead of 128 bytes (column sums of 4096^2:
    // 9.2 ms -> 3.6)
    std::int64_t w = split_lanes ? 4 : lanes_out > 1 ? vec2 : std::int64_t(1024 / sizeof(OutT));
    return P.bound[std::size_t(inner)] < w ? P.bound[std::size_t(inner)] : w;
  }();

  static constexpr std::int64_t lanes = lanes_in * lanes_out;  // lane L is row L / lanes_in, column L % lanes_in

  // the C++ type of node I's value: a PARAM or INDEX is the argument's pointer (const for inputs)
  template <int I> static constexpr auto type_of() {
    constexpr PNode n = P.n[std::size_t(I)];
    if constexpr (n.op == Ops::PARAM) return std::type_identity<std::tuple_element_t<std::size_t(n.i), Ptrs>>{};
    else if constexpr (n.op == Ops::INDEX) return type_of<n.src[0]>();
    else return std::type_identity<ctype<n.dtype>>{};
  }
  template <int I> using T = typename decltype(type_of<I>())::type;
  template <int S> static constexpr bool lane_slot = (P.n[std::size_t(P.hoisted[std::size_t(S)])].level == P.nout) && (P.nout > 0);
  template <int S> using slot_t = std::conditional_t<lane_slot<S>, std::array<T<P.hoisted[std::size_t(S)]>, std::size_t(lanes)>,
                                                     T<P.hoisted[std::size_t(S)]>>;
  template <int S> struct Leaf { slot_t<S> v; };
  template <class Seq> struct Slots;
  template <std::size_t... S> struct Slots<std::index_sequence<S...>> : Leaf<int(S)>... {};
  struct Env {
    Ptrs p;
    std::array<std::int64_t, NR> r{};
    Slots<std::make_index_sequence<std::size_t(P.nhoist)>> h{};
  };
  template <int S> MG_ST_INLINE static auto& hv(Env& e) { return static_cast<Leaf<S>&>(e.h).v; }
  // offsets added to the counters in a lane loop: the innermost output counter (i), the next one out
  // (o), and the counter rs of a reduce split into partial results (r)
  struct Lane {
    std::int64_t o = 0, i = 0, r = 0;
    int rs = -1;
  };

  template <int I> static constexpr auto identity() {
    using V = T<I>;
    if constexpr (Ops(P.n[std::size_t(I)].i) == Ops::ADD) return V(0);
    else if constexpr (std::is_floating_point_v<V>) return -std::numeric_limits<V>::infinity();
    else return std::numeric_limits<V>::lowest();
  }
  template <int I, class V> MG_ST_INLINE static V combine(V a, V b) {
    if constexpr (Ops(P.n[std::size_t(I)].i) == Ops::ADD) return V(a + b);
    else return a < b ? b : a;
  }

  // the value of node I at the counters in e, offset by lane l. The lane loops below are plain loops
  // of a constant trip count over l, with the node math inlined: the shape GCC's vectorizer takes
  template <int I>
  MG_ST_INLINE static T<I> ev(Env& e, Lane l) {
    constexpr PNode n = P.n[std::size_t(I)];
    using V = T<I>;
    constexpr int s0 = n.src[0], s1 = n.src[1], s2 = n.src[2];
    if constexpr (n.op == Ops::CONST) return n.fl ? V(n.f) : V(n.i);
    else if constexpr (n.op == Ops::RANGE)
      return e.r[std::size_t(n.slot)] + (n.slot == inner ? l.i : 0) + (n.slot == outer ? l.o : 0) + (n.slot == l.rs ? l.r : 0);
    else if constexpr (n.op == Ops::PARAM) return std::get<std::size_t(n.i)>(e.p);
    else if constexpr (n.op == Ops::INDEX) return ev<s0>(e, l) + ev<s1>(e, l);
    else if constexpr (n.op == Ops::LOAD) return *ev<s0>(e, l);
    else if constexpr (n.op == Ops::REDUCE) {
      if constexpr (n.slot >= 0) {
        if constexpr (n.level == P.nout && P.nout > 0) return hv<n.slot>(e)[std::size_t(l.o * lanes_in + l.i)];
        else return hv<n.slot>(e);
      } else return reduce_one<I>(e, l);
    } else if constexpr (n.op == Ops::WHERE) {
      // a select of two values computed either way (vectorizes); a branch when one must not be
      if constexpr (P.n[std::size_t(s1)].guarded || P.n[std::size_t(s2)].guarded) return ev<s0>(e, l) ? ev<s1>(e, l) : ev<s2>(e, l);
      else {
        const bool c = ev<s0>(e, l);
        const V a = ev<s1>(e, l), b = ev<s2>(e, l);
        return c ? a : b;
      }
    }
    else if constexpr (n.op == Ops::CAST) return V(ev<s0>(e, l));
    else if constexpr (n.op == Ops::BITCAST) return std::bit_cast<V>(ev<s0>(e, l));
    else if constexpr (n.op == Ops::EXP2) {
      if constexpr (std::is_same_v<V, float>) return detail::exp2_f32(ev<s0>(e, l));
      else return cmath::exp2(ev<s0>(e, l));
    } else if constexpr (n.op == Ops::LOG2) {
      if constexpr (std::is_same_v<V, float>) return detail::log2_f32(ev<s0>(e, l));
      else return cmath::log2(ev<s0>(e, l));
    }
    else if constexpr (n.op == Ops::SQRT) return cmath::sqrt(ev<s0>(e, l));
    else if constexpr (n.op == Ops::SIN) return cmath::sin(ev<s0>(e, l));
    else if constexpr (n.op == Ops::TRUNC) return cmath::trunc(ev<s0>(e, l));
    else if constexpr (n.op == Ops::RECIPROCAL) return V(1) / ev<s0>(e, l);
    else if constexpr (n.op == Ops::NEG) return V(-ev<s0>(e, l));
    else if constexpr (n.op == Ops::ADD) return V(ev<s0>(e, l) + ev<s1>(e, l));
    else if constexpr (n.op == Ops::MUL) return V(ev<s0>(e, l) * ev<s1>(e, l));
    else if constexpr (n.op == Ops::MAX) {
      auto a = ev<s0>(e, l), b = ev<s1>(e, l);
      return a < b ? b : a;
    } else if constexpr (n.op == Ops::CMPLT) return ev<s0>(e, l) < ev<s1>(e, l);
    else if constexpr (n.op == Ops::CMPNE) return ev<s0>(e, l) != ev<s1>(e, l);
    else if constexpr (n.op == Ops::CMPEQ) return ev<s0>(e, l) == ev<s1>(e, l);
    else if constexpr (n.op == Ops::AND || n.op == Ops::OR || n.op == Ops::XOR) {
      // bools as ints: both sides are evaluated (no short circuit), as the vectorizer wants
      using W = std::conditional_t<std::is_same_v<V, bool>, int, V>;
      const W a = W(ev<s0>(e, l)), b = W(ev<s1>(e, l));
      return V(n.op == Ops::AND ? W(a & b) : n.op == Ops::OR ? W(a | b) : W(a ^ b));
    }
    else if constexpr (n.op == Ops::SHL) return V(ev<s0>(e, l) << ev<s1>(e, l));
    else if constexpr (n.op == Ops::SHR) return V(ev<s0>(e, l) >> ev<s1>(e, l));
    else if constexpr (n.op == Ops::CDIV) return V(ev<s0>(e, l) / ev<s1>(e, l));
    else if constexpr (n.op == Ops::CMOD) return V(ev<s0>(e, l) % ev<s1>(e, l));
    else if constexpr (n.op == Ops::FLOORDIV || n.op == Ops::FLOORMOD) {
      const V a = ev<s0>(e, l), b = ev<s1>(e, l);
      // both known non-negative: C++'s division is Python's
      constexpr bool pos = P.n[std::size_t(s0)].vmin >= 0 && P.n[std::size_t(s1)].vmin > 0;
      if constexpr (n.op == Ops::FLOORDIV) return pos ? V(a / b) : mg::detail::py_floordiv(a, b);
      else return pos ? V(a % b) : mg::detail::py_floormod(a, b);
    } else static_assert(mg::detail::always_false<K>, "static kernel: an op the emitter does not know");
  }

  // a reduce computed as one value: partial results when its loop is the innermost and long
  template <int I>
  MG_ST_INLINE static T<I> reduce_one(Env& e, Lane l) {
    constexpr PNode n = P.n[std::size_t(I)];
    constexpr std::int64_t W = std::int64_t(64 / sizeof(T<I>)) * 2;
    if constexpr (!n.nests && P.bound[std::size_t(P.n[std::size_t(n.src[1])].slot)] >= 2 * W)
      return reduce_split<I>(e, l);
    else return reduce_seq<I>(e, l);
  }
  // one accumulator
  template <int I>
  MG_ST_INLINE static T<I> reduce_seq(Env& e, Lane l) {
    constexpr PNode n = P.n[std::size_t(I)];
    constexpr int rs = P.n[std::size_t(n.src[1])].slot;
    T<I> acc = identity<I>();
    for (std::int64_t j = 0; j < P.bound[std::size_t(rs)]; ++j) {
      e.r[std::size_t(rs)] = j;
      acc = combine<I>(acc, ev<n.src[0]>(e, l));
    }
    return acc;
  }
  // W partial results over interleaved elements: the inner loop over them vectorizes, and each vector
  // register of them is an independent accumulator
  template <int I>
  MG_ST_INLINE static T<I> reduce_split(Env& e, Lane l) {
    T<I> out[1];
    reduce_partial<I, 1, 1>(e, l, out);
    return out[0];
  }
  // the first load below reduce I whose index walks the reduce's counter with unit stride (-1: none)
  template <int I> static constexpr int stream = [] {
    constexpr int rs = P.n[std::size_t(P.n[std::size_t(I)].src[1])].slot;
    const std::array<bool, program_cap> in = detail::below(P, P.n[std::size_t(I)].src[0]);
    for (int k = 0; k < I; ++k)
      if (in[std::size_t(k)] && P.n[std::size_t(k)].op == Ops::INDEX && !P.n[std::size_t(k)].guarded &&
          detail::coefficient(P, P.n[std::size_t(k)].src[1], rs) == 1)
        return k;
    return -1;
  }();
  // reduce I for NO x NI lanes from l, W partial results each over interleaved elements of the reduce's
  // loop. The loop starts at the first 64-byte aligned element of its first unit-stride load (an
  // unaligned 64-byte load touches two cache lines: a row sum ran at 0.6x Eigen's speed), the
  // elements before it and the last ones go into the first partial result
  template <int I, std::int64_t NO, std::int64_t NI>
  MG_ST_INLINE static void reduce_partial(Env& e, Lane l, T<I>* out) {
    constexpr PNode n = P.n[std::size_t(I)];
    constexpr int rs = P.n[std::size_t(n.src[1])].slot;
    constexpr std::int64_t B = P.bound[std::size_t(rs)];
    using V = T<I>;
    constexpr std::int64_t U = std::int64_t(64 / sizeof(V)) * 2;
    alignas(64) V acc[NO * NI][U];
    for (std::int64_t k = 0; k < NO * NI; ++k)
      for (std::int64_t u = 0; u < U; ++u) acc[k][u] = identity<I>();
    std::int64_t peel = 0;
    if constexpr (constexpr int st = stream<I>; st >= 0 && B >= 4 * U) {
      e.r[std::size_t(rs)] = 0;
      const auto addr = reinterpret_cast<std::uintptr_t>(ev<st>(e, l));
      peel = std::int64_t((0 - addr) % 64 / sizeof(*ev<st>(e, l)));
    }
    auto one = [&](std::int64_t j) {
      e.r[std::size_t(rs)] = j;
#pragma GCC unroll 16
      for (std::int64_t o = 0; o < NO; ++o)
#pragma GCC unroll 16
        for (std::int64_t i = 0; i < NI; ++i) acc[o * NI + i][0] = combine<I>(acc[o * NI + i][0], ev<n.src[0]>(e, Lane{l.o + o, l.i + i}));
    };
    for (std::int64_t j = 0; j < peel; ++j) one(j);
    const std::int64_t end = B - (B - peel) % U;
    // the lane loops unrolled: without it GCC interchanges them with the reduce loop (one row at a
    // time, the partial results kept in memory)
    for (std::int64_t j = peel; j < end; j += U) {
      e.r[std::size_t(rs)] = j;
#pragma GCC unroll 16
      for (std::int64_t o = 0; o < NO; ++o)
#pragma GCC unroll 16
        for (std::int64_t i = 0; i < NI; ++i)
          for (std::int64_t u = 0; u < U; ++u) acc[o * NI + i][u] = combine<I>(acc[o * NI + i][u], ev<n.src[0]>(e, Lane{l.o + o, l.i + i, u, rs}));
    }
    for (std::int64_t j = end; j < B; ++j) one(j);
    // the partial results of each lane combined as a tree, the halving steps unrolled so that each is
    // a vector operation
#pragma GCC unroll 16
    for (std::int64_t k = 0; k < NO * NI; ++k) {
      V* a = acc[k];
#pragma GCC unroll 8
      for (std::int64_t w = U / 2; w > 0; w /= 2)
        for (std::int64_t m = 0; m < w; ++m) a[m] = combine<I>(a[m], a[m + w]);
      out[k] = a[0];
    }
  }
  // a hoisted reduce of the innermost output counter, for NO rows by NI columns of lanes: one
  // accumulator per lane, the columns the inner loop; a split one: W partial results per lane
  template <int I, std::int64_t NO, std::int64_t NI>
  MG_ST_INLINE static void reduce_lanes(Env& e, std::array<T<I>, std::size_t(lanes)>& out) {
    constexpr PNode n = P.n[std::size_t(I)];
    constexpr int rs = P.n[std::size_t(n.src[1])].slot;
    using V = T<I>;
    constexpr std::int64_t U = std::int64_t(64 / sizeof(V)) * 2, B = P.bound[std::size_t(rs)];
    if constexpr (n.split && B >= 2 * U) {
      V r[NO * NI];
      reduce_partial<I, NO, NI>(e, Lane{}, r);
      for (std::int64_t o = 0; o < NO; ++o)
        for (std::int64_t i = 0; i < NI; ++i) out[std::size_t(o * lanes_in + i)] = r[o * NI + i];
      return;
    }
    alignas(64) T<I> acc[NO][NI];
    for (std::int64_t o = 0; o < NO; ++o)
      for (std::int64_t i = 0; i < NI; ++i) acc[o][i] = identity<I>();
    for (std::int64_t j = 0; j < P.bound[std::size_t(rs)]; ++j) {
      e.r[std::size_t(rs)] = j;
      for (std::int64_t o = 0; o < NO; ++o)
        for (std::int64_t i = 0; i < NI; ++i) acc[o][i] = combine<I>(acc[o][i], ev<n.src[0]>(e, Lane{o, i}));
    }
    for (std::int64_t o = 0; o < NO; ++o)
      for (std::int64_t i = 0; i < NI; ++i) out[std::size_t(o * lanes_in + i)] = acc[o][i];
  }

  // the hoisted reduces computed at loop depth D, in topological order
  template <int D, bool Lanes, std::int64_t NO, std::int64_t NI>
  MG_ST_INLINE static void hoist(Env& e) {
    [&]<std::size_t... S>(std::index_sequence<S...>) {
      (([&] {
         constexpr int I = P.hoisted[S];
         if constexpr (P.n[std::size_t(I)].level == D) {
           if constexpr (Lanes) reduce_lanes<I, NO, NI>(e, hv<int(S)>(e));
           else hv<int(S)>(e) = reduce_one<I>(e, Lane{});
         }
       }()),
       ...);
    }(std::make_index_sequence<std::size_t(P.nhoist)>{});
  }

  // a group of NO rows by NI columns of lanes: their reduces, then each lane's value stored
  template <std::int64_t NO, std::int64_t NI>
  MG_ST_INLINE static void group(Env& e) {
    if constexpr (P.nout > 0) hoist<P.nout, true, NO, NI>(e);
    constexpr int st = P.store, idx = P.n[std::size_t(st)].src[0], val = P.n[std::size_t(st)].src[1];
    for (std::int64_t o = 0; o < NO; ++o)
      for (std::int64_t i = 0; i < NI; ++i) *ev<idx>(e, Lane{o, i}) = ev<val>(e, Lane{o, i});
  }

  // the innermost loop of a kernel with no reduce per lane: one loop over the row, after the lanes
  // before the first 64-byte aligned output element. Buffers that share their offset from a 64-byte
  // boundary (as malloc's large blocks do) then have every stream of the loop aligned: unaligned
  // 64-byte accesses cost an elementwise kernel about 9% (Eigen peels the same way)
  MG_ST_INLINE static void row(Env& e) {
    constexpr std::int64_t B = P.bound[std::size_t(inner)];
    constexpr int st = P.store, idx = P.n[std::size_t(st)].src[0], val = P.n[std::size_t(st)].src[1];
    e.r[std::size_t(inner)] = 0;
    std::int64_t peel = 0;
    if constexpr (B * std::int64_t(sizeof(OutT)) >= 256) {
      const auto addr = reinterpret_cast<std::uintptr_t>(ev<idx>(e, Lane{}));
      peel = std::int64_t((0 - addr) % 64 / sizeof(OutT));
    }
    for (std::int64_t i = 0; i < peel; ++i) *ev<idx>(e, Lane{0, i}) = ev<val>(e, Lane{0, i});
    for (std::int64_t i = peel; i < B; ++i) *ev<idx>(e, Lane{0, i}) = ev<val>(e, Lane{0, i});
  }

  // the innermost loop, for NO rows at once
  template <std::int64_t NO>
  MG_ST_INLINE static void columns(Env& e) {
    constexpr std::int64_t B = P.bound[std::size_t(inner)];
    // blocks of wide lanes, then blocks of two vectors, then single lanes; the bounds of each part
    // are constants (with a running counter GCC -O3 reports the last loop's iterations as overflowing)
    constexpr std::int64_t full = B - B % lanes_in;
    constexpr std::int64_t mid = lanes_in > vec2 && !split_lanes ? full + (B - full) / vec2 * vec2 : full;
    for (std::int64_t i = 0; i < full; i += lanes_in) {
      e.r[std::size_t(inner)] = i;
      group<NO, lanes_in>(e);
    }
    if constexpr (mid > full)
      for (std::int64_t i = full; i < mid; i += vec2) {
        e.r[std::size_t(inner)] = i;
        group<NO, vec2>(e);
      }
    if constexpr (B > mid)
      for (std::int64_t i = mid; i < B; ++i) {
        e.r[std::size_t(inner)] = i;
        group<NO, 1>(e);
      }
  }

  template <int D>
  MG_ST_INLINE static void loop(Env& e) {
    if constexpr (D < P.nout || P.nout == 0) hoist<D, false, 1, 1>(e);
    if constexpr (P.nout == 0) group<1, 1>(e);
    else if constexpr (D == inner) {
      if constexpr (lane_reduce) columns<1>(e);
      else row(e);
    }
    else if constexpr (D == outer && lanes_out > 1) {
      constexpr std::int64_t B = P.bound[std::size_t(D)];
      for (std::int64_t i = 0; i < B - B % lanes_out; i += lanes_out) {
        e.r[std::size_t(D)] = i;
        columns<lanes_out>(e);
      }
      if constexpr (B % lanes_out != 0)
        for (std::int64_t i = B - B % lanes_out; i < B; ++i) {
          e.r[std::size_t(D)] = i;
          columns<1>(e);
        }
    } else {
      for (std::int64_t i = 0; i < P.bound[std::size_t(D)]; ++i) {
        e.r[std::size_t(D)] = i;
        loop<D + 1>(e);
      }
    }
  }

  // the kernel is a function of its own, as a compiled kernel is: inlined into a large caller, its
  // loops compete with the caller's values for registers (an elementwise loop inlined into a benchmark's
  // main reloaded its four pointers from the stack every iteration, 5% slower)
  [[gnu::noinline]] static void run(Ptrs p) {
    Env e{p};
    loop<0>(e);
  }
};
#undef MG_ST_INLINE

template <class F, class... In>
class Kernel {
  static_assert(std::is_default_constructible_v<F>,
                "static kernel: the lambda must capture nothing (it runs while the program compiles)");
  static constexpr auto make_expr() {
    return [&]<std::size_t... I>(std::index_sequence<I...>) { return F{}(In::template tensor<int(I) + 1>()...); }(
        std::index_sequence_for<In...>{});
  }
  using out_tensor = decltype(make_expr());
  static_assert(is_tensor<out_tensor>::value, "static kernel: the lambda must return a tensor built from its arguments");

 public:
  using value_type = ctype<out_tensor::dtype>;
  using shape_t = typename out_tensor::shape_t;
  static constexpr std::size_t size = std::size_t(shape_t::numel);
  static constexpr DType dtype = out_tensor::dtype;
  using ptrs = std::tuple<value_type*, const typename In::value_type*...>;
  // get<F>: the rule sets named so that they depend on F, or every includer would build them.
  // symbolic_simple and symbolic_fold, not all of symbolic: the rest of symbolic is UOp-only, and
  // building its rule set for compile-time nodes cost the first kernel of a translation unit 4.4 s
  static constexpr Program program =
      build_program(make_expr().e, symbolic_simple.template get<F>() + symbolic_fold.template get<F>() + static_index_rules.template get<F>());

  // write the result to out
  void operator()(value_type* out, const typename In::value_type*... in) const { Emit<Kernel>::run(ptrs{out, in...}); }
  // spans, vectors and arrays: sizes are checked
  void run(std::span<value_type> out, std::span<const typename In::value_type>... in) const {
    check(out.size(), size, 0);
    int k = 1;
    (check(in.size(), In::size, k++), ...);
    (*this)(out.data(), in.data()...);
  }
  std::vector<value_type> operator()(std::span<const typename In::value_type>... in) const {
    std::vector<value_type> out(size);
    run(out, in...);
    return out;
  }

 private:
  static void check(std::size_t got, std::size_t want, int arg) {
    if (got != want)
      throw Error("static kernel: argument " + std::to_string(arg) + (arg == 0 ? " (the output)" : "") + " has " +
                  std::to_string(got) + " elements, its shape has " + std::to_string(want));
  }
};

}  // namespace st

// a kernel over inputs In... (mg::input<T, dims...>), built at compile time from f
template <class... In, class F>
constexpr st::Kernel<F, In...> static_kernel(F) {
  return {};
}

}  // namespace mg
