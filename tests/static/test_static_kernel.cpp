// Static kernels (mg::static_kernel): the same rules fire at compile time (static_asserts), and every
// covered op gives the result the runtime path gives (Tensor on the default device: the CPU JIT, or
// INTERP under DEV=INTERP).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <metagrad/metagrad.hpp>
#include <metagrad/static/kernel.hpp>

#include "../tensor/check.hpp"

using namespace mg;
using mg::test::check_close;
using mg::test::ramp;

namespace {
using In57 = input<float, 5, 7>;

// ---- the rules fire at compile time ----

// x*1+0 compiles to the identity of x: node for node the kernel of `return x`
constexpr auto k_ident_rules = static_kernel<In57>([](auto x) { return x * 1 + 0; });
constexpr auto k_ident = static_kernel<In57>([](auto x) { return x; });
static_assert(decltype(k_ident_rules)::program == decltype(k_ident)::program, "x*1+0 folds to x at compile time");

// a permute then a reshape: the reshape's divisions and modulos fold away, leaving each output
// counter's stride in the input: out[i][j][k] reads in[k][i*2+j]. The output's first two dims, i
// and j, are contiguous in both buffers and become one loop r0 = i*2+j (r1 is k): p1[k*6 + r0]
constexpr auto k_perm_reshape = static_kernel<input<float, 4, 6>>([](auto a) { return a.permute(axes<1, 0>{}).reshape(shape<3, 2, 4>{}); });
using KPR = decltype(k_perm_reshape);
static_assert(st::render(KPR::program, KPR::program.value()) == "p1[(r1*6+r0)]");
static_assert(st::render(KPR::program, KPR::program.store_index()) == "(r1+r0*4)");
static_assert(KPR::program.nout == 2 && KPR::program.bound[0] == 6 && KPR::program.bound[1] == 4);

// reshape round trip: (flat//6)*6 + flat%6 recombines into flat, and the 6x4 output is one loop
constexpr auto k_reshape2 = static_kernel<input<float, 4, 6>>([](auto a) { return a.reshape(shape<24>{}).reshape(shape<6, 4>{}); });
static_assert(st::render(decltype(k_reshape2)::program, decltype(k_reshape2)::program.value()) == "p1[r0]");
static_assert(decltype(k_reshape2)::program.nout == 1 && decltype(k_reshape2)::program.bound[0] == 24);

// a broadcast row keeps the output's two loops: merging them would index the row by r0 % 7
constexpr auto k_bias = static_kernel<In57, input<float, 7>>([](auto x, auto b) { return x + b; });
static_assert(decltype(k_bias)::program.nout == 2);
static_assert(st::render(decltype(k_bias)::program, decltype(k_bias)::program.store_index()) == "(r0*7+r1)");

// softmax's row max appears twice in the expression and is one node, computed once per row
constexpr auto k_softmax = static_kernel<In57>([](auto a) { return a.softmax(); });
static_assert(decltype(k_softmax)::program.nhoist == 2, "one max and one sum per row");

// the same rule objects rewrite compile-time nodes and runtime UOps
static_assert([] {
  ct::Graph<64> g;
  auto x = g.variable("x", 0, 9);
  return ct::graph_rewrite(x * 1 + 0, symbolic) == x;
}());

// symbolic_fold and symbolic_simple's generic rules on compile-time nodes: two-stage folding, a
// comparison decided by bounds, AND with true, where of a constant gate, (x//c1)//c2, a cast of a
// constant (normalized for its dtype, as UOp::const_ does)
static_assert([] {
  st::CG g;  // the static kernels' graph size, which static_index_rules is written for
  auto x = g.variable("x", 0, 9);
  auto rs = symbolic_simple + symbolic_fold + st::static_index_rules;
  bool ok = ct::graph_rewrite((x + 3) + 4, rs) == x + 7;
  ok = ok && ct::graph_rewrite((x < 10) & (x < 20), rs).arg().as_bool() && ct::graph_rewrite(x < 10, rs).op() == Ops::CONST;
  ok = ok && ct::graph_rewrite((x < 10).where(x, x * 2), rs) == x;
  ok = ok && ct::graph_rewrite((x / 2) / 3, rs) == x / 6;
  ok = ok && g.const_(dtypes::float32, 3.75).cast(dtypes::int32) != g.const_(dtypes::int32, 3);
  ok = ok && ct::graph_rewrite(g.const_(dtypes::float32, 3.75).cast(dtypes::int32), rs) == g.const_(dtypes::int32, 3);
  ok = ok && g.const_(dtypes::int8, 300).arg().as_int() == 44 && g.const_(dtypes::bool_, 7).arg().as_bool();
  return ok;
}());

// a pad then a shrink back: the validity is decided by the bounds and the where folds away
constexpr auto k_pad_shrink = static_kernel<input<float, 4, 6>>([](auto a) { return a.pad(pairs<1, 1, 0, 2>{}).shrink(pairs<1, 5, 0, 6>{}); });
static_assert(st::render(decltype(k_pad_shrink)::program, decltype(k_pad_shrink)::program.value()) == "p1[r0]");

template <class T> std::vector<T> data(std::size_t n, float scale = 0.25f, float offset = -3.0f) {
  std::vector<T> out;
  for (float v : ramp(n, scale, offset)) out.push_back(T(v));
  return out;
}
Tensor T_(const std::vector<float>& v, Shape s) { return Tensor::from(v, s); }
}  // namespace

// a program's integer node as a UOp, its counters as variables r0, r1, ...
UOp to_uop(const st::Program& p, int k) {
  const st::PNode& n = p.n[std::size_t(k)];
  switch (n.op) {
    case Ops::CONST: return UOp::const_(dtypes::weakint, n.i);
    case Ops::RANGE: return UOp::variable("r" + std::to_string(n.slot), 0, p.bound[std::size_t(n.slot)] - 1);
    case Ops::LOAD: return to_uop(p, p.n[std::size_t(n.src[0])].src[1]);  // the index it reads
    default: return to_uop(p, n.src[0]).alu(n.op, to_uop(p, n.src[1]));
  }
}
std::vector<std::string> terms(const UOp& u) {
  std::vector<std::string> out;
  for (const UOp& t : u.split_uop(Ops::ADD)) out.push_back(t.render());
  std::sort(out.begin(), out.end());
  return out;
}

TEST_CASE("static kernels: simplified index math has the runtime symbolic's terms", "[static]") {
  // the raw index of the permute-reshape, the output counters as variables, simplified at run time:
  // the same terms as the compile-time rewrite left (association aside)
  // i = r0 // 2, j = r0 % 2 and k = r1: the merged loop's parts, as the static lowering writes them
  UOp r0 = UOp::variable("r0", 0, 5), r1 = UOp::variable("r1", 0, 3);
  UOp flat = (r0 / 2) * 8 + (r0 % 2) * 4 + r1;
  UOp raw = (flat % 4) * 6 + flat / 4;
  UOp at_compile_time = to_uop(KPR::program, KPR::program.value());
  REQUIRE(terms(simplify(raw)) == terms(at_compile_time));
  REQUIRE(terms(at_compile_time) == std::vector<std::string>{"(r1*6)", "r0"});
}

TEST_CASE("static kernels: elementwise chains with broadcasting and dtype promotion", "[static]") {
  auto a = ramp(35), b = ramp(7, 0.5f, -1.0f), c = ramp(5, 0.1f);
  auto k = static_kernel<In57, input<float, 7>, input<float, 5, 1>>([](auto x, auto y, auto z) { return (x * y + z).relu(); });
  check_close(k(a, b, c), ((T_(a, {5, 7}) * T_(b, {7}) + T_(c, {5, 1})).relu()).to_vector<float>());

  auto k2 = static_kernel<In57>([](auto x) { return (x - 1.5f) * 2 / (x.abs() + 1) - x.square(); });
  Tensor ta = T_(a, {5, 7});
  check_close(k2(a), ((ta - 1.5) * 2 / (ta.abs() + 1) - ta.square()).to_vector<float>());

  // int32 with a float tensor promotes to float; an int scalar keeps int; true division gives float
  auto ai = data<std::int32_t>(35, 1.0f, -11.0f);
  auto ki = static_kernel<input<std::int32_t, 5, 7>, input<float, 7>>([](auto x, auto y) { return x * 3 + y; });
  STATIC_REQUIRE(decltype(ki)::dtype == dtypes::float32);
  Tensor ti = Tensor::from(ai, {5, 7});
  check_close(ki(ai, b), (ti * 3 + T_(b, {7})).to_vector<float>());
  auto kint = static_kernel<input<std::int32_t, 5, 7>>([](auto x) { return x * 3 + 7; });
  STATIC_REQUIRE(decltype(kint)::dtype == dtypes::int32);
  REQUIRE(kint(ai) == (ti * 3 + 7).to_vector<std::int32_t>());
  auto kdiv = static_kernel<input<std::int32_t, 5, 7>>([](auto x) { return x / 4; });
  STATIC_REQUIRE(decltype(kdiv)::dtype == dtypes::float32);
  check_close(kdiv(ai), (ti / 4).to_vector<float>());
  // comparisons, where, maximum, minimum
  auto kw = static_kernel<In57, input<float, 7>>([](auto x, auto y) { return (x < y).where(x.maximum(y), x.minimum(0.5f)); });
  check_close(kw(a, b), ((ta < T_(b, {7})).where(ta.maximum(T_(b, {7})), ta.minimum(Tensor::full({1}, 0.5)))).to_vector<float>());
  // bitwise ops and equality on ints
  auto bi = data<std::int32_t>(35, 1.0f, -5.0f), ci = data<std::int32_t>(35, 2.0f, -20.0f);
  auto kb = static_kernel<input<std::int32_t, 5, 7>, input<std::int32_t, 5, 7>>(
      [](auto x, auto y) { return ((x & y) | (x ^ 3)) + (x == y).where(x, y) + (x != 0).cast(as<std::int32_t>); });
  Tensor tb = Tensor::from(bi, {5, 7}), tc = Tensor::from(ci, {5, 7});
  REQUIRE(kb(bi, ci) == (((tb & tc) | (tb ^ 3)) + tb.cmpeq(tc).where(tb, tc) + tb.cmpne(Tensor::full({5, 7}, 0, dtypes::int32)).cast(dtypes::int32))
                            .to_vector<std::int32_t>());
  auto kcast = static_kernel<In57>([](auto x) { return (x * 3).cast(as<std::int32_t>) + (x > 0).cast(as<std::int32_t>); });
  REQUIRE(kcast(a) == ((ta * 3).cast(dtypes::int32) + (ta > 0).cast(dtypes::int32)).to_vector<std::int32_t>());
}

TEST_CASE("static kernels: unary math", "[static]") {
  auto a = ramp(35, 0.2f, 0.1f);  // positive, for log and sqrt
  Tensor ta = T_(a, {5, 7});
  auto k = static_kernel<In57>([](auto x) { return x.exp() + x.log() + x.sqrt() + x.sigmoid() + x.reciprocal() - x.sin(); });
  check_close(k(a), (ta.exp() + ta.log() + ta.sqrt() + ta.sigmoid() + ta.reciprocal() - ta.sin()).to_vector<float>(), 1e-5, 1e-5);
  auto kn = static_kernel<In57>([](auto x) { return -x.exp2() + x.log2(); });
  check_close(kn(a), (-ta.exp2() + ta.log2()).to_vector<float>(), 1e-5, 1e-5);
}

TEST_CASE("static kernels: reductions", "[static]") {
  auto a = ramp(35);
  Tensor ta = T_(a, {5, 7});
  check_close(static_kernel<In57>([](auto x) { return x.sum(); })(a), ta.sum().to_vector<float>());
  check_close(static_kernel<In57>([](auto x) { return x.sum(axes<0>{}); })(a), ta.sum(0).to_vector<float>());
  check_close(static_kernel<In57>([](auto x) { return x.sum(axes<1>{}, keepdim); })(a), ta.sum(1, true).to_vector<float>());
  check_close(static_kernel<In57>([](auto x) { return x.max(axes<0>{}); })(a), ta.max(0).to_vector<float>());
  check_close(static_kernel<In57>([](auto x) { return x.max(axes<-1>{}, keepdim); })(a), ta.max(-1, true).to_vector<float>());
  check_close(static_kernel<In57>([](auto x) { return x.mean(); })(a), ta.mean().to_vector<float>());
  check_close(static_kernel<In57>([](auto x) { return x.mean(axes<1>{}, keepdim); })(a), ta.mean(1, true).to_vector<float>());
  // a reduce inside an elementwise op inside a reduce: sum over rows of (x - row max)^2
  check_close(static_kernel<In57>([](auto x) { return (x - x.max(axes<1>{}, keepdim)).square().sum(axes<1>{}); })(a),
              (ta - ta.max(1, true)).square().sum(1).to_vector<float>());
  // 3-d, two axes at once, and a long row (the split accumulators)
  auto b = ramp(2 * 3 * 40);
  Tensor tb = T_(b, {2, 3, 40});
  check_close(static_kernel<input<float, 2, 3, 40>>([](auto x) { return x.sum(axes<0, 2>{}); })(b), tb.sum({0, 2}).to_vector<float>());
  auto c = ramp(3 * 1000);
  check_close(static_kernel<input<float, 3, 1000>>([](auto x) { return x.sum(axes<1>{}); })(c), T_(c, {3, 1000}).sum(1).to_vector<float>(), 1e-4);
  // small ints sum as int32
  auto i8 = data<std::int8_t>(35, 1.0f, -11.0f);
  auto ks = static_kernel<input<std::int8_t, 5, 7>>([](auto x) { return x.sum(axes<1>{}); });
  STATIC_REQUIRE(decltype(ks)::dtype == dtypes::int32);
  REQUIRE(ks(i8) == Tensor::from(i8, {5, 7}, dtypes::int8).sum(1).to_vector<std::int32_t>());
}

TEST_CASE("static kernels: movement ops", "[static]") {
  auto a = ramp(2 * 3 * 4);
  Tensor ta = T_(a, {2, 3, 4});
  using In = input<float, 2, 3, 4>;
  check_close(static_kernel<In>([](auto x) { return x.reshape(shape<4, 6>{}); })(a), ta.reshape({4, 6}).to_vector<float>());
  check_close(static_kernel<In>([](auto x) { return x.permute(axes<2, 0, 1>{}); })(a), ta.permute({2, 0, 1}).to_vector<float>());
  check_close(static_kernel<In>([](auto x) { return x.permute(axes<1, 2, 0>{}).reshape(shape<12, 2>{}); })(a),
              ta.permute({1, 2, 0}).reshape({12, 2}).to_vector<float>());
  check_close(static_kernel<In>([](auto x) { return x.flip(axes<0, 2>{}); })(a), ta.flip({0, 2}).to_vector<float>());
  check_close(static_kernel<In>([](auto x) { return x.pad(pairs<0, 1, 2, 0, 1, 1>{}); })(a),
              ta.pad(std::vector<AxisPair>{{0, 1}, {2, 0}, {1, 1}}).to_vector<float>());
  check_close(static_kernel<In>([](auto x) { return x.shrink(pairs<1, 2, 0, 3, 1, 3>{}); })(a),
              ta.shrink({{1, 2}, {0, 3}, {1, 3}}).to_vector<float>());
  check_close(static_kernel<In>([](auto x) { return x.pad(pairs<1, 1, 1, 1, 1, 1>{}).shrink(pairs<1, 3, 0, 4, 2, 6>{}); })(a),
              ta.pad(std::vector<AxisPair>{{1, 1}, {1, 1}, {1, 1}}).shrink({{1, 3}, {0, 4}, {2, 6}}).to_vector<float>());
  auto v = ramp(4);
  check_close(static_kernel<input<float, 1, 4>>([](auto x) { return x.expand(shape<3, 4>{}) * 2; })(v),
              (T_(v, {1, 4}).expand({3, 4}) * 2).to_vector<float>());
  check_close(static_kernel<In>([](auto x) { return x.transpose().sum(axes<1>{}); })(a),
              ta.transpose().sum(1).to_vector<float>());
}

TEST_CASE("static kernels: matmul, softmax, log_softmax", "[static]") {
  auto a = ramp(7 * 5), b = ramp(5 * 3, 0.5f, -2.0f);
  check_close(static_kernel<input<float, 7, 5>, input<float, 5, 3>>([](auto x, auto y) { return x.matmul(y); })(a, b),
              T_(a, {7, 5}).matmul(T_(b, {5, 3})).to_vector<float>());
  auto c = ramp(35);
  Tensor tc = T_(c, {5, 7});
  check_close(static_kernel<In57>([](auto x) { return x.softmax(); })(c), tc.softmax().to_vector<float>());
  check_close(static_kernel<In57>([](auto x) { return x.softmax(axes<0>{}); })(c), tc.softmax(0).to_vector<float>());
  check_close(static_kernel<In57>([](auto x) { return x.log_softmax(); })(c), tc.log_softmax().to_vector<float>(), 1e-5);
  // rows longer than a lane group, with a tail (37 = 2*16 + 5)
  auto d = ramp(3 * 37);
  check_close(static_kernel<input<float, 3, 37>>([](auto x) { return x.softmax(); })(d), T_(d, {3, 37}).softmax().to_vector<float>());
  auto e = ramp(20 * 37), f = ramp(37 * 19, 0.1f);
  check_close(static_kernel<input<float, 20, 37>, input<float, 37, 19>>([](auto x, auto y) { return x.matmul(y).relu(); })(e, f),
              T_(e, {20, 37}).matmul(T_(f, {37, 19})).relu().to_vector<float>(), 1e-4);
}

TEST_CASE("static kernels: the pointer API and size errors", "[static]") {
  auto k = static_kernel<input<float, 4>, input<float, 4>>([](auto x, auto y) { return x + y; });
  const float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
  float out[4] = {};
  k(out, x, y);
  REQUIRE(std::vector<float>(out, out + 4) == std::vector<float>{11, 22, 33, 44});
  std::vector<float> shorter(3), o(4);
  REQUIRE_THROWS_WITH(k.run(o, shorter, std::vector<float>(4)), Catch::Contains("argument 1") && Catch::Contains("3 elements") &&
                                                                   Catch::Contains("has 4"));
  REQUIRE_THROWS_WITH(k(std::vector<float>(4), std::vector<float>(5)), Catch::Contains("argument 2"));
}

TEST_CASE("static kernels: the example of docs/static-kernels.md", "[static]") {
  using X = mg::input<float, 4, 6>;
  using W = mg::input<float, 6>;
  auto k = mg::static_kernel<X, W>([](auto x, auto w) {
    return (x * w + 1.0f).relu().sum(mg::axes<1>{});
  });
  std::vector<float> x(24, 0.5f), w(6, 2.0f);
  std::vector<float> out = k(x, w);
  REQUIRE(out == std::vector<float>{12, 12, 12, 12});
  STATIC_REQUIRE(decltype(k)::size == 4);
}

namespace {
// whether the program's reduce per lane has its own partial results per lane (a row sum)
constexpr bool split_reduce(const st::Program& p) {
  for (int k = 0; k < p.size; ++k)
    if (p.n[std::size_t(k)].op == Ops::REDUCE && p.n[std::size_t(k)].split) return true;
  return false;
}
}  // namespace

TEST_CASE("static kernels: row and column reduces, at every alignment of the input", "[static]") {
  // rows of 1003: each row starts at another alignment, so the aligned start of the reduce loop
  // differs per row; 7 rows: a block of 4 lanes, then 3 single ones
  using In = input<float, 7, 1003>;
  auto rsum = static_kernel<In>([](auto x) { return x.sum(axes<1>{}); });
  auto rmax = static_kernel<In>([](auto x) { return x.max(axes<1>{}) * 2 + 1; });
  auto csum = static_kernel<input<float, 300, 70>>([](auto x) { return x.sum(axes<0>{}); });
  static_assert(split_reduce(decltype(rsum)::program) && split_reduce(decltype(rmax)::program));
  static_assert(!split_reduce(decltype(csum)::program), "a column sum's lanes are the vector");
  auto a = ramp(7 * 1003, 0.01f, -20.0f), c = ramp(300 * 70, 0.001f, -5.0f);
  std::vector<float> want_sum = T_(a, {7, 1003}).sum(1).to_vector<float>(), want_max = (T_(a, {7, 1003}).max(1) * 2 + 1).to_vector<float>();
  std::vector<float> buf(a.size() + 16);
  for (std::size_t off = 0; off < 16; ++off) {
    std::copy(a.begin(), a.end(), buf.begin() + std::ptrdiff_t(off));
    std::vector<float> out(7);
    rsum(out.data(), buf.data() + off);
    check_close(out, want_sum, 1e-4);
    rmax(out.data(), buf.data() + off);
    check_close(out, want_max);
  }
  check_close(csum(c), T_(c, {300, 70}).sum(0).to_vector<float>(), 1e-4);
  // 600 columns: two blocks of 256 lanes, two of 32, then 24 single lanes; and a 4-row matmul (too
  // few rows for a block of 8): its rows of 300 in the same blocks
  auto csum2 = static_kernel<input<float, 5, 600>>([](auto x) { return x.sum(axes<0>{}); });
  auto d = ramp(5 * 600, 0.01f, -7.0f);
  check_close(csum2(d), T_(d, {5, 600}).sum(0).to_vector<float>(), 1e-4);
  auto mm = static_kernel<input<float, 4, 40>, input<float, 40, 300>>([](auto x, auto y) { return x.matmul(y); });
  auto m1 = ramp(4 * 40, 0.05f, -4.0f), m2 = ramp(40 * 300, 0.001f, -6.0f);
  check_close(mm(m1, m2), T_(m1, {4, 40}).matmul(T_(m2, {40, 300})).to_vector<float>(), 1e-4);
}

TEST_CASE("static kernels: rows longer than 64 bytes, at every alignment of the output", "[static]") {
  // the innermost loop peels the elements before the first 64-byte aligned output element
  auto k = static_kernel<input<float, 3, 300>, input<float, 300>>([](auto x, auto y) { return (x * 2 + y).relu(); });
  auto x = ramp(900), y = ramp(300, 0.5f, -2.0f);
  std::vector<float> want = ((T_(x, {3, 300}) * 2 + T_(y, {300})).relu()).to_vector<float>();
  std::vector<float> buf(900 + 16, -7.0f);
  for (std::size_t off = 0; off < 16; ++off) {
    std::fill(buf.begin(), buf.end(), -7.0f);
    k(buf.data() + off, x.data(), y.data());
    check_close(std::vector<float>(buf.begin() + std::ptrdiff_t(off), buf.begin() + std::ptrdiff_t(off + 900)), want);
    for (std::size_t i = 0; i < off; ++i) REQUIRE(buf[i] == -7.0f);  // nothing written before the output
    for (std::size_t i = off + 900; i < buf.size(); ++i) REQUIRE(buf[i] == -7.0f);
  }
  // without the broadcast row the 3x300 output is one loop of 900, peeled once
  auto flat = static_kernel<input<float, 3, 300>, input<float, 3, 300>>([](auto a, auto b) { return (a * 2 + b).relu(); });
  static_assert(decltype(flat)::program.nout == 1 && decltype(flat)::program.bound[0] == 900);
  auto x2 = ramp(900, 0.5f, -2.0f);
  want = ((T_(x, {3, 300}) * 2 + T_(x2, {3, 300})).relu()).to_vector<float>();
  for (std::size_t off = 0; off < 16; ++off) {
    std::fill(buf.begin(), buf.end(), -7.0f);
    flat(buf.data() + off, x.data(), x2.data());
    check_close(std::vector<float>(buf.begin() + std::ptrdiff_t(off), buf.begin() + std::ptrdiff_t(off + 900)), want);
    for (std::size_t i = 0; i < off; ++i) REQUIRE(buf[i] == -7.0f);
    for (std::size_t i = off + 900; i < buf.size(); ++i) REQUIRE(buf[i] == -7.0f);
  }
}
