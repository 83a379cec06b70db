// Tests of tensor/gradient.hpp (compute_gradient and pm_gradient). Each op's gradient is checked
// against values worked out by hand and against central differences of sum(root) computed with
// reference_eval on perturbed float64 inputs. Values at ties and at zeros, where differences say
// nothing, were printed by tinygrad at the reference commit (Tensor.gradient), as the comments say.
#include <catch2/catch.hpp>
#include <metagrad/tensor/gradient.hpp>
#include <metagrad/tensor/reference.hpp>
#include <metagrad/tensor/tensor.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

using namespace mg;

namespace {
constexpr double INF = std::numeric_limits<double>::infinity();
using F = std::vector<double>;

// a flat BUFFER of dt holding vals
UOp buffer(const F& vals, DType dt = dtypes::float64) {
  HostArray a(dt, {std::int64_t(vals.size())});
  for (std::size_t i = 0; i < vals.size(); ++i) a.set(std::int64_t(i), dt.is_int() ? Arg(std::int64_t(vals[i])) : Arg(vals[i]));
  const UOp b = new_buffer("CPU", std::int64_t(vals.size()), dt);
  host_buffer(b).bytes.assign(a.bytes.begin(), a.bytes.end());
  return b;
}
// a constant as a tensor of shape: CONST on a device, reshaped to (1, ..., 1) and expanded
UOp full(DType dt, Arg v, const Shape& shape) {
  const UOp c(Ops::CONST, dt, {device_uop("CPU")}, normalize_const(dt, v));
  if (shape.empty()) return c;
  return mop_expand(mop_reshape(c, Shape(shape.size(), 1)), shape);
}
UOp ones_like(const UOp& u) { return full(u.dtype(), Arg(1), *shape_of(u)); }
F eval(const UOp& u) { return reference_eval(u).to_vector<double>(); }
Shape shape(const UOp& u) { return *shape_of(u); }
UOp sum_all(const UOp& u) {
  std::vector<std::int64_t> axes;
  for (std::size_t i = 0; i < shape(u).size(); ++i) axes.push_back(std::int64_t(i));
  return rop(u, Ops::ADD, axes);
}

// d(sum(root))/d(target) for each target, evaluated
std::vector<F> grad_values(const UOp& root, const std::vector<UOp>& targets) {
  const auto g = compute_gradient(root, ones_like(root), targets);
  std::vector<F> out;
  for (const UOp& t : targets) {
    REQUIRE(g.count(t) == 1);
    out.push_back(eval(g.at(t)));
  }
  return out;
}

double sum_of(const UOp& u) {
  double s = 0;
  for (double v : eval(u)) s += v;
  return s;
}
// compares compute_gradient with central differences of sum(root) in every element of every float64 BUFFER
void check_numeric(const UOp& root, const std::vector<UOp>& bufs, double eps = 1e-6, double tol = 1e-5) {
  const std::vector<F> got = grad_values(root, bufs);
  for (std::size_t b = 0; b < bufs.size(); ++b) {
    auto& bytes = host_buffer(bufs[b]).bytes;
    REQUIRE(got[b].size() * sizeof(double) == bytes.size());
    for (std::size_t j = 0; j < got[b].size(); ++j) {
      double x;
      std::memcpy(&x, bytes.data() + j * sizeof(double), sizeof(double));
      auto at = [&](double v) {
        std::memcpy(bytes.data() + j * sizeof(double), &v, sizeof(double));
        return sum_of(root);
      };
      const double numeric = (at(x + eps) - at(x - eps)) / (2 * eps);
      at(x);
      INFO("buffer " << b << " element " << j << " at " << x);
      CHECK(got[b][j] == Approx(numeric).epsilon(tol).margin(tol));
    }
  }
}
// every ALU node in u's graph has sources of its own shape: no constant broadcasts implicitly
bool shapes_explicit(const UOp& u) {
  for (const UOp& n : u.toposort()) {
    if (!GroupOp::ALU.contains(n.op())) continue;
    for (const UOp& s : n.src()) if (shape(s) != shape(n)) return false;
  }
  return true;
}
std::string gradient_error(const UOp& root, const std::vector<UOp>& targets) {
  try {
    compute_gradient(root, ones_like(root), targets);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("gradient: MUL gives each source the other times the incoming gradient", "[gradient]") {
  const UOp x = buffer({1.5, -2, 3}, dtypes::float32), y = buffer({4, 0.25, -1}, dtypes::float32);
  const auto g = compute_gradient(x * y, buffer({1, 2, 3}, dtypes::float32), {x, y});
  CHECK(eval(g.at(x)) == F{4, 0.5, -3});
  CHECK(eval(g.at(y)) == F{1.5, -4, 9});
  CHECK(g.at(x).dtype() == dtypes::float32);
  CHECK(shapes_explicit(g.at(x)));
}

TEST_CASE("gradient: ADD, SUB and NEG", "[gradient]") {
  const UOp x = buffer({1, 2, 3}, dtypes::float32), y = buffer({4, 5, 6}, dtypes::float32);
  const UOp up = buffer({1, -2, 0.5}, dtypes::float32);
  auto g = compute_gradient(x + y, up, {x, y});
  CHECK(eval(g.at(x)) == F{1, -2, 0.5});
  CHECK(eval(g.at(y)) == F{1, -2, 0.5});
  g = compute_gradient(x.sub(y), up, {x, y});  // one SUB node
  CHECK(eval(g.at(x)) == F{1, -2, 0.5});
  CHECK(eval(g.at(y)) == F{-1, 2, -0.5});
  g = compute_gradient(x.alu(Ops::NEG), up, {x});
  CHECK(eval(g.at(x)) == F{-1, 2, -0.5});
}

TEST_CASE("gradient: unary ops against their derivatives", "[gradient]") {
  const F xs{0.3, 1.25, 2.5};
  const UOp x = buffer(xs);
  auto d = [&](const UOp& root) { return grad_values(root, {x})[0]; };
  const F recip = d(x.reciprocal()), sin = d(x.sin()), log2 = d(x.log2()), exp2 = d(x.exp2()), sqrt = d(x.sqrt());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double v = xs[i];
    CHECK(recip[i] == Approx(-1 / (v * v)));
    CHECK(sin[i] == Approx(std::cos(v)));
    CHECK(log2[i] == Approx(1 / (v * std::numbers::ln2)));
    CHECK(exp2[i] == Approx(std::exp2(v) * std::numbers::ln2));
    CHECK(sqrt[i] == Approx(0.5 / std::sqrt(v)));
  }
  for (const UOp& root : {x.reciprocal(), x.sin(), x.log2(), x.exp2(), x.sqrt()}) {
    check_numeric(root, {x});
    CHECK(shapes_explicit(compute_gradient(root, ones_like(root), {x}).at(x)));
  }
  // TRUNC: zero almost everywhere, as a constant of x's shape
  const auto t = compute_gradient(x.trunc(), ones_like(x), {x});
  CHECK(eval(t.at(x)) == F{0, 0, 0});
  CHECK(shape(t.at(x)) == Shape{3});
}

TEST_CASE("gradient: CAST casts the gradient back", "[gradient]") {
  const UOp x = buffer({1, 2, 3}, dtypes::float32);
  const UOp root = x.cast(dtypes::float64) * buffer({0.5, 0.25, 2});
  const auto g = compute_gradient(root, ones_like(root), {x});
  CHECK(g.at(x).dtype() == dtypes::float32);
  CHECK(eval(g.at(x)) == F{0.5, 0.25, 2});
  const UOp y = buffer({0.3, -1.7, 2.2});
  check_numeric(y.cast(dtypes::float32).cast(dtypes::float64).exp2(), {y}, 1e-3, 1e-3);  // float32 in the middle
}

TEST_CASE("gradient: comparisons, integer division and bitcast give no gradient", "[gradient]") {
  const UOp x = buffer({1, 5, 3}), y = buffer({2, 4, 3});
  // x and y reach root only through a comparison: no entry for them
  for (const UOp& c : {x < y, x.ne(y), x.cmpeq(y)}) {
    const UOp root = c.cast(dtypes::float64);
    CHECK(compute_gradient(root, ones_like(root), {x, y}).empty());
  }
  const UOp i = buffer({7, -7, 8}, dtypes::int32), j = buffer({2, 2, 3}, dtypes::int32);
  for (const UOp& q : {i.floordiv(j), i.cdiv(j)}) {
    const UOp root = q.cast(dtypes::float32);
    CHECK(compute_gradient(root, ones_like(root), {i, j}).empty());
  }
  const UOp root = x.bitcast(dtypes::int64).cast(dtypes::float64);
  CHECK(compute_gradient(root, ones_like(root), {x}).empty());
  // where(x<y, x, y): the gradient flows through the branches only
  const auto g = compute_gradient((x < y).where(x, y), ones_like(x), {x, y});
  CHECK(eval(g.at(x)) == F{1, 0, 0});
  CHECK(eval(g.at(y)) == F{0, 1, 1});
}

TEST_CASE("gradient: WHERE routes the gradient by the condition", "[gradient]") {
  const UOp c = buffer({1, 0, 1, 0}, dtypes::bool_), x = buffer({1, 2, 3, 4}, dtypes::float32), y = buffer({5, 6, 7, 8}, dtypes::float32);
  const UOp up = buffer({10, 20, 30, 40}, dtypes::float32);
  const auto g = compute_gradient(c.where(x, y), up, {c, x, y});
  CHECK(g.count(c) == 0);
  CHECK(eval(g.at(x)) == F{10, 0, 30, 0});
  CHECK(eval(g.at(y)) == F{0, 20, 0, 40});
  CHECK(shapes_explicit(g.at(x)));
}

TEST_CASE("gradient: MAX splits the gradient between equal values", "[gradient]") {
  // tinygrad: x.maximum(y).sum().gradient(x, y) -> [0.5, 1.0, 0.5, 0.0] [0.5, 0.0, 0.5, 1.0]
  const UOp x = buffer({1, 3, 3, 2}, dtypes::float32), y = buffer({1, 2, 3, 5}, dtypes::float32);
  const auto g = grad_values(x.maximum(y), {x, y});
  CHECK(g[0] == F{0.5, 1, 0.5, 0});
  CHECK(g[1] == F{0.5, 0, 0.5, 1});
  const UOp a = buffer({0.5, -1, 2}), b = buffer({0.25, 3, -4});
  check_numeric(a.maximum(b) * a, {a, b});
}

TEST_CASE("gradient: POW", "[gradient]") {
  const UOp b = buffer({0.5, 1.5, 2, 3}), e = buffer({2, -1.5, 0.5, 3});
  check_numeric(b.pow(e), {b, e});
  // at a zero base, tinygrad: (b**e).sum().gradient(b, e) for b=[0,0,0,2,0.5], e=[2,0,-1,3,-2]
  // -> [0.0, 0.0, -inf, 12.0, -16.0] [0.0, 0.0, -inf, 5.545177444479562, -2.772588722239781]
  const UOp b0 = buffer({0, 0, 0, 2, 0.5}), e0 = buffer({2, 0, -1, 3, -2});
  const auto g = grad_values(b0.pow(e0), {b0, e0});
  CHECK(g[0] == F{0, 0, -INF, 12, -16});
  CHECK(g[1][0] == 0);
  CHECK(g[1][1] == 0);
  CHECK(g[1][2] == -INF);
  CHECK(g[1][3] == Approx(5.545177444479562));
  CHECK(g[1][4] == Approx(-2.772588722239781));
}

TEST_CASE("gradient: REDUCE ADD over axes of a 2x3x4", "[gradient]") {
  F v;
  for (int i = 0; i < 24; ++i) v.push_back(0.1 * i - 1);
  const UOp x = buffer(v), w = buffer(F(v.rbegin(), v.rend()));
  const UOp x3 = mop_reshape(x, {2, 3, 4});
  for (const std::vector<std::int64_t>& axes : {std::vector<std::int64_t>{0}, {1, 2}, {0, 2}, {0, 1, 2}}) {
    const UOp r = rop(x3, Ops::ADD, axes);
    // every element gets the gradient of the sum it went into: all ones
    CHECK(grad_values(r, {x})[0] == F(24, 1));
    // weighted: (sum over axes) * something of the reduced shape, squared so the gradient varies
    const UOp root = r * r;
    check_numeric(root, {x});
    CHECK(shapes_explicit(compute_gradient(root, ones_like(root), {x}).at(x)));
  }
  check_numeric(rop(mop_reshape(x * w, {2, 3, 4}), Ops::ADD, {1}).exp2(), {x, w});
}

TEST_CASE("gradient: REDUCE MAX splits between tied maxima", "[gradient]") {
  const UOp a = buffer({1, 3, 3, 2, 2, 2}, dtypes::float32), a2 = mop_reshape(a, {2, 3});
  // tinygrad: (a.max(axis=1)*Tensor([1.0,6.0])).sum().gradient(a) -> [[0.0, 0.5, 0.5], [2.0, 2.0, 2.0]]
  const UOp m = rop(a2, Ops::MAX, {1});
  const UOp root = m * mop_reshape(buffer({1, 6}, dtypes::float32), {2, 1});
  CHECK(grad_values(root, {a})[0] == F{0, 0.5, 0.5, 2, 2, 2});
  // tinygrad: a.max().gradient(a) -> [[0.0, 0.5, 0.5], [0.0, 0.0, 0.0]]
  CHECK(grad_values(rop(a2, Ops::MAX, {0, 1}), {a})[0] == F{0, 0.5, 0.5, 0, 0, 0});
  // no ties: differences agree
  const UOp x = buffer({0.5, -1, 2, 4, 0.25, -3, 1, 1.5, 3, -2, 0.75, 5});
  check_numeric(rop(mop_reshape(x, {3, 4}), Ops::MAX, {1}) * mop_reshape(buffer({1, -2, 3}), {3, 1}), {x});
}

TEST_CASE("gradient: REDUCE MUL", "[gradient]") {
  // tinygrad: a.prod(axis=0).sum().gradient(a) for a=[[1,3,3],[2,2,2]] -> [[2.0, 2.0, 2.0], [1.0, 3.0, 3.0]]
  const UOp a = buffer({1, 3, 3, 2, 2, 2}, dtypes::float32);
  CHECK(grad_values(rop(mop_reshape(a, {2, 3}), Ops::MUL, {0}), {a})[0] == F{2, 2, 2, 1, 3, 3});
  const UOp x = buffer({0.5, -1.5, 2, 1.25, 0.75, -3});
  check_numeric(rop(mop_reshape(x, {2, 3}), Ops::MUL, {1}).sin(), {x});
}

TEST_CASE("gradient: RESHAPE and EXPAND", "[gradient]") {
  const UOp x = buffer({1, 2, 3}), w = buffer({0.5, 1, -1, 2, 3, -0.25});
  // EXPAND sums over the expanded axis
  const UOp e = mop_expand(mop_reshape(x, {1, 3}), {2, 3});
  const auto g = compute_gradient(e, mop_reshape(w, {2, 3}), {x});
  CHECK(eval(g.at(x)) == F{2.5, 4, -1.25});
  CHECK(shape(g.at(x)) == Shape{3});
  // expand then reduce: sum_j (x_i * w_ji)^2
  const UOp root = rop(mop_reshape(mop_expand(mop_reshape(x, {3, 1}), {3, 2}), {6}) * w, Ops::ADD, {0});
  check_numeric(root * root, {x, w});
  check_numeric(mop_reshape(mop_expand(mop_reshape(x, {1, 3, 1}), {2, 3, 2}), {12}).exp2(), {x});
}

TEST_CASE("gradient: PERMUTE, PAD, SHRINK and FLIP", "[gradient]") {
  F v;
  for (int i = 0; i < 24; ++i) v.push_back(std::sin(0.7 * i));
  const UOp x = buffer(v), x3 = mop_reshape(x, {2, 3, 4});
  F wv;
  for (int i = 0; i < 24; ++i) wv.push_back(1 + 0.1 * i);
  const UOp w = buffer(wv);
  // a permutation that is not its own inverse: the gradient must use the inverse
  const UOp p = mop_permute(x3, {1, 2, 0});  // (3, 4, 2)
  check_numeric(mop_reshape(p, {24}) * w, {x});
  const auto gp = compute_gradient(p, mop_reshape(w, {3, 4, 2}), {x});
  // element (i, j, k) of x sits at (j, k, i) of p: its gradient is w[j*8 + k*2 + i]
  const F gpv = eval(gp.at(x));
  CHECK(gpv[0 * 12 + 1 * 4 + 3] == wv[1 * 8 + 3 * 2 + 0]);
  CHECK(gpv[1 * 12 + 2 * 4 + 0] == wv[2 * 8 + 0 * 2 + 1]);
  // PAD: the padding gets nothing back; SHRINK: what was cut off gets zero
  const UOp pad = mop_pad(x3, {{1, 4}, {0, 3}, {2, 7}});  // (4, 3, 7)
  check_numeric(pad * pad.sin(), {x});
  const UOp shr = mop_shrink(x3, {{1, 1}, {1, 2}, {0, 3}});  // (1, 2, 3)
  check_numeric(shr * shr, {x});
  const F gs = grad_values(shr, {x})[0];
  CHECK(gs[0] == 0);                  // (0, 0, 0) was cut off
  CHECK(gs[1 * 12 + 1 * 4 + 0] == 1);  // (1, 1, 0) was kept
  CHECK(gs[1 * 12 + 1 * 4 + 3] == 0);  // (1, 1, 3) was cut off
  const UOp fl = mop_flip(x3, {true, false, true});
  check_numeric(mop_reshape(fl, {24}) * w, {x});
  // a chain of all four
  const UOp chain = mop_flip(mop_shrink(mop_pad(mop_permute(x3, {2, 0, 1}), {{0, 5}, {1, 4}, {1, 5}}), {{1, 4}, {0, 3}, {2, 2}}),
                             {false, true, true});  // (4,2,3) -> pad (5,4,5) -> shrink (4,3,2) -> flip
  check_numeric(mop_reshape(chain, {24}) * w * mop_reshape(chain, {24}), {x, w});
}

TEST_CASE("gradient: a chain through where, exp2 and a reduction", "[gradient]") {
  // sum(where(x>0, x, 0) * y).exp2(), with x away from 0
  const UOp x = buffer({0.3, -0.2, 0.5, -0.7, 0.1, 0.4}), y = buffer({0.5, 1, -0.25, 2, 0.75, -0.5});
  const UOp x2 = mop_reshape(x, {2, 3}), y2 = mop_reshape(y, {2, 3});
  const UOp relu = (full(dtypes::float64, 0.0, {2, 3}) < x2).where(x2, full(dtypes::float64, 0.0, {2, 3}));
  const UOp root = sum_all(relu * y2).exp2();
  check_numeric(root, {x, y});
  const auto g = compute_gradient(root, ones_like(root), {x, y});
  const double s = std::exp2(0.3 * 0.5 + 0.5 * -0.25 + 0.1 * 0.75 + 0.4 * -0.5) * std::numbers::ln2;
  const F gx = eval(g.at(x));
  CHECK(gx[1] == 0);  // x < 0: relu stops it
  CHECK(gx[0] == Approx(0.5 * s));
  CHECK(eval(g.at(y))[3] == 0);
  CHECK(eval(g.at(y))[2] == Approx(0.5 * s));
}

TEST_CASE("gradient: CONTIGUOUS passes the gradient, DETACH stops it", "[gradient]") {
  const UOp x = buffer({1, 2, 3}, dtypes::float32);
  const UOp c = UOp(Ops::CONTIGUOUS, x.dtype(), {x * x});
  CHECK(grad_values(c, {x})[0] == F{2, 4, 6});
  const UOp cb = UOp(Ops::CONTIGUOUS_BACKWARD, x.dtype(), {x * x});
  const auto g = compute_gradient(cb, ones_like(cb), {x});
  CHECK(eval(g.at(x)) == F{2, 4, 6});
  const UOp d = UOp(Ops::DETACH, x.dtype(), {x});
  CHECK(grad_values(x * d, {x})[0] == F{1, 2, 3});  // only the undetached x counts
  CHECK(compute_gradient(d, ones_like(d), {x}).empty());
}

TEST_CASE("gradient: COPY copies the gradient back to the source's device", "[gradient]") {
  const UOp x = buffer({1, 2, 3}, dtypes::float32);
  const UOp cp = UOp(Ops::COPY, x.dtype(), {x, device_uop("CL")});
  const auto g = compute_gradient(cp * cp, full(dtypes::float32, 1, {3}), {x});
  CHECK(eval(g.at(x)) == F{2, 4, 6});
  CHECK(g.at(x).op() == Ops::COPY);
  CHECK(g.at(x).src(1) == device_uop("CPU"));
}

TEST_CASE("gradient: a node used twice accumulates", "[gradient]") {
  const UOp x = buffer({1, -2, 3}, dtypes::float32);
  CHECK(grad_values(x * x, {x})[0] == F{2, -4, 6});
  CHECK(grad_values(x * x + x, {x})[0] == F{3, -3, 7});
  const UOp y = buffer({0.5, 1.5, -2});
  const UOp s = y.sin();
  check_numeric(s * s.exp2() + s, {y});  // s reaches root through three users
}

TEST_CASE("gradient: targets", "[gradient]") {
  const UOp x = buffer({1, 2}, dtypes::float32), y = buffer({3, 4}, dtypes::float32), z = buffer({5, 6}, dtypes::float32);
  const UOp root = x * y;
  const auto g = compute_gradient(root, ones_like(root), {x, z});
  CHECK(g.size() == 1);  // root does not depend on z: no entry
  CHECK(g.count(z) == 0);
  CHECK(eval(g.at(x)) == F{3, 4});
  // root itself: the gradient it was given; an intermediate node: the gradient reaching it
  const UOp up = buffer({7, 8}, dtypes::float32);
  const UOp sq = x * x, r = sq * y;
  const auto h = compute_gradient(r, up, {r, sq, x});
  CHECK(h.at(r) == up);
  CHECK(eval(h.at(sq)) == F{21, 32});
  CHECK(eval(h.at(x)) == F{42, 128});
}

TEST_CASE("gradient: an implicitly broadcast source gets its gradient summed back", "[gradient]") {
  // graph.hpp lets ALU sources broadcast (a () CONST, a (3,) next to a (2, 3)): the gradient is summed to the source's shape
  const UOp x = buffer({1, 2, 3}), y = buffer({1, 2, 3, 4, 5, 6});
  const UOp root = x * mop_reshape(y, {2, 3});
  const auto g = grad_values(root, {x, y});
  CHECK(g[0] == F{5, 7, 9});
  CHECK(g[1] == F{1, 2, 3, 1, 2, 3});
  check_numeric(root.sin(), {x, y});
  CHECK(grad_values(x * 2.0, {x})[0] == F{2, 2, 2});  // x * CONST 2.0 of shape ()
}

TEST_CASE("gradient: errors", "[gradient]") {
  const UOp x = buffer({1, 2}), y = buffer({3, 4});
  // no gradient rule: the error names the op
  const std::string mod = gradient_error(x.floormod(y), {x});
  CHECK(mod.find("Ops.FLOORMOD") != std::string::npos);
  CHECK(mod.find("no gradient rule") != std::string::npos);
  const UOp i = buffer({1, 2}, dtypes::int32);
  CHECK(gradient_error((i ^ i).cast(dtypes::float32), {i}).find("Ops.XOR") != std::string::npos);
  // a root_grad of another shape
  CHECK_THROWS_WITH(compute_gradient(x * y, buffer({1, 2, 3}), {x}), Catch::Contains("root_grad of shape (3,)"));
  CHECK_THROWS_AS(compute_gradient(UOp{}, x, {x}), Error);
}

TEST_CASE("gradient: pm_gradient returns one slot per source, NOOP for none", "[gradient]") {
  const UOp c = buffer({1, 0}, dtypes::bool_), x = buffer({1, 2}), y = buffer({3, 4});
  const UOp w = c.where(x, y);
  const ForwardGraph fwd(w);
  const GradientCtx ctx{fwd, w, buffer({5, 6})};
  const std::optional<UOp> t = pm_gradient.rewrite(w, &ctx);
  REQUIRE(t);
  CHECK(t->op() == Ops::TUPLE);
  REQUIRE(t->nsrc() == 3);
  CHECK(t->src(0).op() == Ops::NOOP);
  CHECK(eval(t->src(1)) == F{5, 0});
  CHECK(eval(t->src(2)) == F{0, 6});
  // a movement op's shape arguments have slots too
  const UOp r = mop_reshape(x, {2, 1});
  const ForwardGraph fr(r);
  const GradientCtx rc{fr, r, full(dtypes::float64, 1, {2, 1})};
  const std::optional<UOp> rt = pm_gradient.rewrite(r, &rc);
  REQUIRE(rt);
  REQUIRE(rt->nsrc() == 2);
  CHECK(shape(rt->src(0)) == Shape{2});
  CHECK(rt->src(1).op() == Ops::NOOP);
  // no rule: nothing
  const UOp m = x.floormod(y);
  const ForwardGraph fm(m);
  const GradientCtx mc{fm, m, buffer({1, 1})};
  CHECK_FALSE(pm_gradient.rewrite(m, &mc));
}

TEST_CASE("gradient: the gradient graph has no implicit broadcasts", "[gradient]") {
  // constants the rules make are shaped like the node they combine with
  const UOp x = buffer({0.5, 1.5, 2.5, 0.25, 0.75, 1.25});
  const UOp x2 = mop_reshape(x, {2, 3});
  const UOp root = rop((x2.sqrt() + x2.reciprocal()).log2() * x2.exp2().sin(), Ops::MAX, {1});
  const auto g = compute_gradient(root, ones_like(root), {x});
  CHECK(shapes_explicit(g.at(x)));
  check_numeric(root, {x});
}

TEST_CASE("gradient: through a graph the Tensor built", "[gradient]") {
  const Tensor a = Tensor::from(F{0.3, -0.2, 0.5, -0.7, 0.1, 0.4}, {2, 3}, dtypes::float64);
  const Tensor b = Tensor::from(F{0.5, 1, -0.25, 2, 0.75, -0.5}, {2, 3}, dtypes::float64);
  const Tensor c = Tensor::from(F{1.5, -0.5}, {2}, dtypes::float64);
  const UOp abuf = a.uop().src(0), bbuf = b.uop().src(0), cbuf = c.uop();
  REQUIRE(abuf.op() == Ops::BUFFER);
  REQUIRE(cbuf.op() == Ops::BUFFER);
  const Tensor loss = (((a * b).relu().sum(1) - a.min(1)) * c).exp().mean() + (a.T() / (b.T() * b.T() + 1)).sigmoid().sum();
  check_numeric(loss.uop(), {abuf, bbuf, cbuf});
  CHECK(shapes_explicit(compute_gradient(loss.uop(), ones_like(loss.uop()), {abuf}).at(abuf)));
}

TEST_CASE("gradient: a 100,000-deep chain", "[gradient]") {
  // the walk is iterative: no recursion over the graph's depth
  const UOp x = buffer({0.5, 1.5});
  UOp y = x;
  for (int i = 0; i < 100000; ++i) y = (i % 2) ? y.sin() : y * x;
  const auto g = compute_gradient(y, ones_like(y), {x});
  REQUIRE(g.count(x) == 1);
  CHECK(shape(g.at(x)) == Shape{2});
}
