// Kernel counts of the scheduler, ported from tinygrad's test/null/test_schedule.py (check_schedule).
// Each case builds the same tensor graph as the tinygrad test and checks create_schedule makes as many
// kernels as tinygrad does (counted by running tinygrad at the reference commit, DEV=NULL). Inputs are
// Tensor::empty buffers, as in tinygrad. tinygrad's Tensor.full/ones make a buffer unless buffer=False;
// metagrad's make a broadcast constant, so the constant cases compare against buffer=False.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "../scoped_env.hpp"
#include "../tensor/check.hpp"
#include "metagrad/metagrad.hpp"
#include "metagrad/schedule/rangeify.hpp"

using namespace mg;

namespace {

Tensor E(const Shape& s, DType dt = dtypes::float32) { return Tensor::empty(s, dt); }

Schedule sched(const std::vector<Tensor>& ts) {
  std::vector<UOp> roots;
  for (const Tensor& t : ts) roots.push_back(t.uop());
  return create_schedule(roots);
}
std::size_t kernels(const std::vector<Tensor>& ts) { return sched(ts).items.size(); }
std::size_t kernels(const Tensor& t) { return kernels(std::vector<Tensor>{t}); }

// the BUFFER under a Tensor::empty (a BUFFER, reshaped to the tensor's shape)
UOp buffer_of(const Tensor& t) {
  UOp u = t.uop();
  while (u.op() != Ops::BUFFER) u = u.src(0);
  return u;
}

// the ops of a kernel AST that are `op`
std::vector<UOp> ops_in(const UOp& ast, Ops op) {
  std::vector<UOp> out;
  for (const UOp& u : ast.toposort())
    if (u.op() == op) out.push_back(u);
  return out;
}
std::size_t count_op(const Schedule& s, Ops op) {
  std::size_t n = 0;
  for (const ScheduleItem& si : s.items) n += ops_in(si.ast, op).size();
  return n;
}

// tinygrad's image_conv_fusion helper p(x)
Tensor p(const Tensor& x) {
  return x.permute({1, 0}).contiguous().reshape({32, 16, 1}).expand({32, 16, 16}).sum(2).permute({1, 0});
}

}  // namespace

// ---- elementwise fusion ----

TEST_CASE("schedule: basic binop fusion a+b+c is one kernel", "[schedule]") {
  const Tensor a = E({10}), b = E({10}), c = E({10});
  CHECK(kernels(a + b + c) == 1);
}

TEST_CASE("schedule: basic binop fusion deep a+b+c+d", "[schedule]") {
  const Tensor a = E({10}), b = E({10}), c = E({10}), d = E({10});
  CHECK(kernels(a + b + c + d) == 1);
}

TEST_CASE("schedule: binop reshape fusion", "[schedule]") {
  const Tensor a = E({10}), b = E({10}), c = E({5, 2});
  CHECK(kernels((a + b).reshape({5, 2}) + c) == 1);
}

TEST_CASE("schedule: binop permute fusion", "[schedule]") {
  const Tensor a = E({2, 5}), b = E({2, 5}), c = E({5, 2});
  CHECK(kernels((a + b).permute({1, 0}) + c) == 1);
}

TEST_CASE("schedule: constants are embedded", "[schedule]") {
  CHECK(kernels(E({3, 3}) * 2) == 1);
}

TEST_CASE("schedule: elu is one kernel", "[schedule]") {
  CHECK(kernels(E({10}).elu()) == 1);
}

TEST_CASE("schedule: diamond folded", "[schedule]") {
  const Tensor a = E({10}), b = E({10}), c = E({10}), d = E({10});
  const Tensor ab = a + b;
  CHECK(kernels((ab + c) + (ab + d)) == 1);
}

TEST_CASE("schedule: children don't push", "[schedule]") {
  const Tensor a = E({10, 10, 1}), b = E({10, 10, 1});
  const Tensor d = (a + b).expand({10, 10, 10}), e = (a + b).permute({2, 1, 0});
  CHECK(kernels(d + e) == 1);
}

TEST_CASE("schedule: some permute fusion", "[schedule]") {
  const Tensor a = E({8192, 16}), b = E({1, 16});
  const Tensor d = a.T() + b.expand({8192, 16}).T();
  const Tensor c = a + b.expand({8192, 16});
  CHECK(kernels(c) == 1);
  CHECK(kernels(d.T()) == 1);
}

TEST_CASE("schedule: shrink fuse", "[schedule]") {
  const Tensor a = E({8192, 16}), b = E({8192, 16}), d = E({1, 16});
  const Tensor c = a * b;
  CHECK(kernels(c[0] * d) == 1);
}

TEST_CASE("schedule: expand fuse", "[schedule]") {
  const Tensor a = E({1, 16}), b = E({1, 16}), d = E({8192, 16});
  CHECK(kernels((a * b) * d) == 1);
}

TEST_CASE("schedule: push permute through reshape", "[schedule]") {
  const Tensor a = E({16, 16}), b = E({16, 16});
  CHECK(kernels((a + b).reshape({4, 4, 4, 4}).permute({2, 3, 0, 1}).contiguous()) == 1);
  const Tensor c = E({4, 4, 4, 4}), d = E({4, 4, 4, 4});
  CHECK(kernels((c + d).reshape({16, 16}).permute({1, 0}).contiguous()) == 1);
}

TEST_CASE("schedule: reorder expand alt (img*x)/y", "[schedule]") {
  const Tensor x = E({4, 1}), y = E({4, 1}), img = E({4, 4});
  CHECK(kernels((img * x) / y) == 1);
}

TEST_CASE("schedule: new buffer, new buffer view, new flat buffer", "[schedule]") {
  const Tensor a = E({4, 4}), b = E({4, 4});
  CHECK(kernels(a + b) == 1);
  CHECK(kernels((a + b).reshape({8, 2})) == 1);
  const Tensor c = E({4}), d = E({4});
  CHECK(kernels(c + d) == 1);
}

TEST_CASE("schedule: bitcast fuses", "[schedule]") {
  const Tensor x = E({1});
  const Tensor a = x.exp2().bitcast(dtypes::int32), b = x.bitcast(dtypes::int32);
  CHECK(kernels(a + b) == 1);
}

TEST_CASE("schedule: cast fusion", "[schedule]") {
  CHECK(kernels((E({4, 4}) + E({4, 4})).cast(dtypes::float16)) == 1);
  CHECK(kernels(E({4, 4}, dtypes::int32).cast(dtypes::float32).sum(0)) == 1);
}

TEST_CASE("schedule: where and cmp fusion", "[schedule]") {
  const Tensor a = E({4, 4}), b = E({4, 4});
  CHECK(kernels((a < b).where(a, b)) == 1);
  CHECK(kernels((a > 0).where(a, 0.5)) == 1);
}

TEST_CASE("schedule: sigmoid is one kernel", "[schedule]") { CHECK(kernels(E({8, 8}).sigmoid()) == 1); }

TEST_CASE("schedule: recursive add stays one kernel", "[schedule]") {
  Tensor a = E({4});
  for (int i = 0; i < 24; ++i) a = a + a;
  CHECK(kernels(a) == 1);
}

// ---- pad / shrink / flip ----

TEST_CASE("schedule: pad fuses into its consumer", "[schedule]") {
  const Tensor a = E({4, 4}), b = E({6, 4});
  CHECK(kernels(a.pad({{{1, 1}}, {{0, 0}}}) + b) == 1);
}

TEST_CASE("schedule: pad after elementwise", "[schedule]") {
  const Tensor a = E({4, 4}), b = E({4, 4});
  CHECK(kernels((a + b).pad({{{1, 1}}, {{2, 0}}})) == 1);
  CHECK(kernels(E({4, 4}).exp2().pad({{{1, 1}}, {{1, 1}}})) == 1);
}

TEST_CASE("schedule: shrink fuses into its consumer", "[schedule]") {
  const Tensor a = E({8, 8}), b = E({4, 4});
  CHECK(kernels(a.shrink({{{2, 6}}, {{1, 5}}}) + b) == 1);
}

TEST_CASE("schedule: flip fuses", "[schedule]") {
  const Tensor a = E({4, 4}), b = E({4, 4});
  CHECK(kernels(a.flip({0}) + b) == 1);
  CHECK(kernels((a + b).flip({1}).sum(1)) == 1);
}

TEST_CASE("schedule: cat and stack are one kernel", "[schedule]") {
  const Tensor a = E({4, 4}), b = E({4, 4});
  CHECK(kernels(a.cat(b, 0)) == 1);
  const Tensor c = E({2, 4}), d = E({2, 4}), e = E({4, 4});
  CHECK(kernels(c.cat(d, 0) + e) == 1);
  CHECK(kernels(Tensor::stack({E({4}), E({4})})) == 1);
}

TEST_CASE("schedule: triu is one kernel", "[schedule]") { CHECK(kernels(E({4, 4}).triu()) == 1); }

// ---- reductions ----

TEST_CASE("schedule: mulacc fusion", "[schedule]") {
  const Tensor a = E({10}), b = E({10});
  CHECK(kernels((a * b).sum()) == 1);
  CHECK(kernels((a * b).sum().relu()) == 1);
}

TEST_CASE("schedule: binop reshape reduce fusion", "[schedule]") {
  const Tensor a = E({100}), b = E({100});
  CHECK(kernels((a + b).reshape({10, 10}).sum(0, true)) == 1);
}

TEST_CASE("schedule: reduce reshape binop fusion", "[schedule]") {
  const Tensor a = E({10, 10}), b = E({10});
  CHECK(kernels(a.sum(0) + b) == 1);
}

TEST_CASE("schedule: reduce permute binop fusion", "[schedule]") {
  const Tensor a = E({10, 10, 10}), b = E({10, 10, 1});
  CHECK(kernels(a.sum(0, true).permute({2, 1, 0}) + b) == 1);
}

TEST_CASE("schedule: binop early reshape reduce fusion", "[schedule]") {
  const Tensor a = E({100}), b = E({100}), c = E({10, 10});
  CHECK(kernels(((a + b).reshape({10, 10}) + c).sum(0)) == 1);
}

TEST_CASE("schedule: cache two reduceops", "[schedule]") {
  const Tensor a = E({10});
  CHECK(kernels(a.sum() + a.sum()) == 1);
}

TEST_CASE("schedule: cache reduce parent", "[schedule]") {
  const Tensor x = E({32});
  const Tensor r0 = x.mean(0, true);
  const Tensor r1 = (x - r0).sum(0) / 2;
  const Schedule s = sched({r0 + r1});
  CHECK(s.items.size() == 2);
  CHECK(count_op(s, Ops::REDUCE) == 2);
}

TEST_CASE("schedule: fold double unary", "[schedule]") {
  CHECK(kernels(E({2}).sum({}, true).sqrt().neg()) == 1);
}

TEST_CASE("schedule: two sum", "[schedule]") {
  const Tensor img = E({64, 64});
  CHECK(kernels((img.sum(0) + img.sum(1)).relu()) == 1);
}

TEST_CASE("schedule: multi permute should collapse", "[schedule]") {
  const Tensor a = E({4, 4, 4, 4}), b = E({16});
  const Tensor c =
      a.sum({0, 1}).cast(dtypes::float16).permute({1, 0}).reshape({4, 4, 1}).permute({1, 0, 2}).reshape({16}) + b;
  CHECK(kernels(c) == 1);
}

TEST_CASE("schedule: fancy reshape fusion", "[schedule]") {
  const Tensor a = E({10}), b = E({10});
  const Tensor c = a + b, d = a.reshape({10, 1}) + b.reshape({10, 1});
  CHECK(kernels(c.sum() + d.sum()) == 1);
}

TEST_CASE("schedule: permute breaks fusion", "[schedule]") {
  const Tensor a = E({10, 10, 10}), b = E({10, 10});
  const Tensor c = (a.sum(2) + b).permute({1, 0});
  CHECK(kernels(c.permute({1, 0})) == 1);
}

TEST_CASE("schedule: reduce permute nofuse", "[schedule]") {
  const Tensor x = E({32, 32, 32}), y = E({32, 32});
  CHECK(kernels(x.sum(2).T() + y) == 1);
}

TEST_CASE("schedule: two elus sum", "[schedule]") {
  const Tensor x = E({32, 32}), y = E({32, 32});
  CHECK(kernels(x.sum(1).relu().elu() + y.sum(1).relu().elu()) == 1);
}

TEST_CASE("schedule: multistage reduce", "[schedule]") {
  CHECK(kernels(E({32, 32, 32}).sum(2).relu().sum(1)) == 1);
}

TEST_CASE("schedule: multistage reduce fork", "[schedule]") {
  const Tensor x = E({32, 32, 32}).sum(2);
  const Tensor out2 = x + 1;
  CHECK(kernels(x.relu().sum(1) + out2[0]) == 2);
}

TEST_CASE("schedule: double sum ref", "[schedule]") {
  const Tensor x = E({32, 32, 32}).sum(2);
  CHECK(kernels(x + x.getitem({slice(), 4})) == 2);
}

TEST_CASE("schedule: reduce shrink", "[schedule]") {
  const Tensor x = E({32, 32}), y = E({16});
  CHECK(kernels(x.sum(1).getitem({slice(std::nullopt, 16)}) + y) == 1);
}

TEST_CASE("schedule: reduce shrink child", "[schedule]") {
  const Tensor a = E({100, 100}), b = E({10});
  CHECK(kernels({a.sum() + b[0], a.sum() + 2}) == 2);
}

TEST_CASE("schedule: reduce multiple paths midshrink", "[schedule]") {
  const Tensor a = E({4, 4});
  const Tensor r = a.sum(1), out0 = r.exp2(), out1 = out0[0] + out0;
  CHECK(kernels({r, out0, out1}) == 3);
}

TEST_CASE("schedule: reduce shrink output", "[schedule]") {
  const Tensor a = E({4, 4});
  const Tensor r = a.sum({}, true), out0 = r.exp2(), out1 = out0[0] + E({1});
  CHECK(kernels({r, out0, out1}) == 3);
}

TEST_CASE("schedule: reduce simple chase", "[schedule]") {
  const Tensor a = E({4, 4, 4});
  const Tensor r = a.sum(0) + 6;
  CHECK(kernels({r.sum(0) * 4, r.sum(1) * 2}) == 3);
}

TEST_CASE("schedule: push permute chase", "[schedule]") {
  const Tensor a = E({4, 4, 4}), b = E({4, 4});
  const Tensor r = a.sum(2) + b, d = r.T() * 4;
  CHECK(kernels({d, r * d}) == 3);
}

TEST_CASE("schedule: push shrink chase", "[schedule]") {
  const Tensor a = E({16, 16}), b = E({4}), c = E({16});
  const Tensor r = a.sum(1) + c;
  CHECK(kernels(r.getitem({slice(std::nullopt, 4)}) * b) == 1);
}

TEST_CASE("schedule: midreduce nochase", "[schedule]") {
  const Tensor a = E({16, 16});
  CHECK(kernels((a.sum(0) + a.max(1)) + 2) == 1);
}

TEST_CASE("schedule: double reduce", "[schedule]") {
  CHECK(kernels(E({4, 4, 4}).sum(2).sum(1)) == 1);
  CHECK(kernels(E({4, 4}).max(1).max(0)) == 1);
  CHECK(kernels(E({4, 4}).sum()) == 1);
  CHECK(kernels(E({4, 4}).max(0) + E({4})) == 1);
  CHECK(kernels(E({8, 8}).mean(1)) == 1);
}

TEST_CASE("schedule: reduce, expand, elementwise is two kernels", "[schedule]") {
  const Tensor a = E({4, 4});
  CHECK(kernels(a - a.sum(1, true)) == 2);
  CHECK(kernels(a / a.sum(1, true)) == 2);
  CHECK(kernels((a - a.mean(1, true)).square().sum(1)) == 2);
  CHECK(kernels(E({8, 8}).var(1)) == 2);
}

TEST_CASE("schedule: expand then reduce and outer product", "[schedule]") {
  CHECK(kernels(E({4, 1}).expand({4, 4}).sum(1)) == 1);
  CHECK(kernels((E({4, 1}) * E({1, 4})).sum()) == 1);
  const Tensor a = E({4, 4, 4});
  CHECK(kernels((a.permute({2, 0, 1}).reshape({16, 4}) + E({16, 4})).sum(0)) == 1);
}

TEST_CASE("schedule: recursive reshape", "[schedule]") {
  const Tensor a = E({32, 32}), b = E({16, 2});
  Tensor r = a.sum(1);
  for (int i = 0; i < 24; ++i) r = r.reshape({16, 2}) + b;
  CHECK(kernels(r) == 1);
}

TEST_CASE("schedule: cumsum is one kernel", "[schedule]") { CHECK(kernels(E({8}).cumsum()) == 1); }

// ---- softmax, argmax, norms ----

TEST_CASE("schedule: softmax is three kernels", "[schedule]") {
  CHECK(kernels(E({32, 32}).softmax()) == 3);
  CHECK(kernels(E({2, 4, 8}).softmax(1)) == 3);
  CHECK(kernels(E({8, 16}).log_softmax()) == 3);
}

TEST_CASE("schedule: layernorm is three kernels", "[schedule]") { CHECK(kernels(E({8, 16}).layernorm()) == 3); }

TEST_CASE("schedule: argmax is two kernels", "[schedule]") {
  CHECK(kernels(E({10, 20}).argmax(0)) == 2);
  CHECK(kernels(E({10, 20}).argmax(1)) == 2);
}

TEST_CASE("schedule: scaled dot product attention", "[schedule]") {
  const Tensor x = E({32, 8, 16, 16}), y = E({32, 8, 16, 16}), z = E({32, 8, 16, 16}), m = E({32, 8, 16, 16});
  CHECK(kernels(x.scaled_dot_product_attention(y, z, m)) == 4);
  CHECK(kernels(x.scaled_dot_product_attention(y, z, std::nullopt, 0.0, true)) == 4);
}

TEST_CASE("schedule: batchnorm eval is one kernel", "[schedule]") {
  const Tensor x = E({2, 4, 3, 3}), w = E({4}), b = E({4}), m = E({4}), iv = E({4});
  CHECK(kernels(x.batchnorm(w, b, m, iv)) == 1);
}

// ---- matmul, conv, pooling ----

TEST_CASE("schedule: matmul is one kernel", "[schedule]") {
  const Tensor a = E({16, 16}), b = E({16, 16}), c = E({16, 16});
  CHECK(kernels(a.matmul(b)) == 1);
  CHECK(kernels(a.matmul(b).relu()) == 1);
  CHECK(kernels(a.matmul(b).matmul(c)) == 2);
}

TEST_CASE("schedule: linear + relu is one kernel", "[schedule]") {
  const Tensor x = E({4, 8}), w = E({16, 8}), b = E({16});
  CHECK(kernels(x.linear(w.T(), b).relu()) == 1);
}

TEST_CASE("schedule: conv + relu / elu fold", "[schedule]") {
  const Tensor img = E({2, 3, 64, 64}), w = E({16, 3, 3, 3}), b = E({16});
  CHECK(kernels(img.conv2d(w, b).relu()) == 1);
  CHECK(kernels(img.conv2d(w, b).elu()) == 1);
}

TEST_CASE("schedule: two convs are two kernels", "[schedule]") {
  const Tensor img = E({1, 4, 8, 8}), w1 = E({4, 4, 3, 3}), b1 = E({4}), w2 = E({4, 4, 3, 3}), b2 = E({4});
  CHECK(kernels(img.conv2d(w1, b1).relu().conv2d(w2, b2).relu()) == 2);
  CHECK(kernels(img.conv2d(w1).relu().conv2d(w2).relu()) == 2);
  CHECK(kernels(img.conv2d(w1, b1).elu().conv2d(w2, b2).elu()) == 2);
}

TEST_CASE("schedule: resnet conv2d", "[schedule]") {
  const Tensor x = E({1, 8, 32, 32}), w1 = E({8, 8, 3, 3}), w2 = E({8, 8, 1, 1});
  CHECK(kernels(x.conv2d(w1).conv2d(w2)) == 2);
}

TEST_CASE("schedule: pooling is one kernel", "[schedule]") {
  CHECK(kernels(E({1, 1, 8, 8}).max_pool2d()) == 1);
  CHECK(kernels(E({1, 1, 8, 8}).avg_pool2d()) == 1);
  CHECK(kernels(E({1, 1, 6, 6}).avg_pool2d({3, 3}, 3, 1, 1, true)) == 1);
}

TEST_CASE("schedule: image conv fusion more minimal", "[schedule]") {
  const Tensor b1 = E({16});
  const Tensor x = p(E({16, 32})) + b1.reshape({16, 1});
  CHECK(kernels(p(x)) == 3);
}

// ---- batchnorm, resnet, arange (parameters are Tensor::empty buffers, as tinygrad's realized ones) ----

namespace {
void bn_params(nn::BatchNorm& bn, std::int64_t n) {
  bn.weight = E({n}), bn.bias = E({n}), bn.running_mean = E({n}), bn.running_var = E({n});
}
}  // namespace

TEST_CASE("schedule: fold conv batchnorm (no training) is one kernel", "[schedule]") {
  const Tensor::Train train(false);
  const Tensor img = E({1, 3, 8, 8}), w = E({32, 3, 3, 3}), b = E({32});
  nn::BatchNorm bn(32);
  bn_params(bn, 32);
  CHECK(kernels(bn(img.conv2d(w, b)).relu()) == 1);
}

TEST_CASE("schedule: resnet block", "[schedule]") {
  const Tensor::Train train(false);
  const Tensor x = E({1, 64, 32, 32}), w1 = E({64, 64, 3, 3}), w2 = E({64, 64, 3, 3});
  nn::BatchNorm bn1(64), bn2(64);
  bn_params(bn1, 64);
  bn_params(bn2, 64);
  Tensor out = bn1(x.conv2d(w1, std::nullopt, 1, 1, 1, 1)).relu();
  out = bn2(out.conv2d(w2, std::nullopt, 1, 1, 1, 1));
  CHECK(kernels((out + x).relu()) == 2);
}

TEST_CASE("schedule: arange index shrink", "[schedule]") {
  const Tensor x = E({11});
  const Tensor a = Tensor::arange(22);
  CHECK(kernels((x + a.getitem({slice(std::nullopt, 11)})).sum()) == 1);
}

// ---- contiguous ----

TEST_CASE("schedule: contiguous of a view realizes", "[schedule]") {
  CHECK(kernels(E({4, 1}).expand({4, 4}).contiguous()) == 1);
  CHECK(kernels(E({4}).expand({4, 4}).contiguous()) == 1);
  CHECK(kernels(E({1, 64, 32, 32}).permute({0, 2, 3, 1}).contiguous()) == 1);
  CHECK(kernels(E({4, 8}).T().contiguous()) == 1);
}

TEST_CASE("schedule: contiguous add", "[schedule]") {
  const Tensor x = E({32}), y = E({32}), z = E({32});
  CHECK(kernels((x + y).contiguous() + z) == 2);
}

TEST_CASE("schedule: fold with contiguous", "[schedule]") {
  const Tensor a = E({16, 16, 16}), b = E({16, 16});
  CHECK(kernels((a.sum(2).contiguous() + b).contiguous()) == 2);
}

// ---- several outputs ----

TEST_CASE("schedule: dedup outputs", "[schedule]") {
  const Tensor a = E({4, 4}), b = E({4, 4});
  CHECK(kernels({a + b, a + b}) == 1);
}

TEST_CASE("schedule: two outputs", "[schedule]") {
  const Tensor a = E({4, 4}), b = E({4, 4});
  CHECK(kernels({a + b, a * b}) == 2);
  const Tensor c = a + b;
  CHECK(kernels({c.sum(0), c.sum(1)}) == 2);
}

// ---- constants and size 0 ----

TEST_CASE("schedule: constant roots", "[schedule]") {
  CHECK(kernels(Tensor::ones({4, 4}).contiguous()) == 1);
  CHECK(kernels(Tensor::full({4, 4}, 3.0) + E({4, 4})) == 1);
  CHECK(kernels(Tensor::ones({4, 4}) * 2 + 1) == 1);
  CHECK(kernels(E({2, 2}).full_like(10).contiguous()) == 1);
}

TEST_CASE("schedule: zero size", "[schedule]") {
  CHECK(kernels(E({2, 3, 0}) + 1) == 0);
  CHECK(kernels(E({135, 0, 9}).pad({std::nullopt, std::nullopt, {{18, 0}}})) == 0);
  CHECK(kernels(E({0}).contiguous()) == 0);
}

TEST_CASE("schedule: sum over a zero size axis is one kernel", "[schedule]") {
  CHECK(kernels(E({0, 4}).sum(0)) == 1);
}

// ---- kernel ASTs ----

TEST_CASE("schedule: (a*2).sum(1) kernel AST", "[schedule]") {
  const Tensor a = E({4, 4});
  const Schedule s = sched({(a * 2).sum(1)});
  REQUIRE(s.items.size() == 1);
  const ScheduleItem& k = s.items[0];
  CHECK(k.ast.op() == Ops::SINK);
  CHECK(ops_in(k.ast, Ops::REDUCE).size() == 1);
  CHECK(ops_in(k.ast, Ops::REDUCE)[0].arg()[0].as_op() == Ops::ADD);
  CHECK(ops_in(k.ast, Ops::STORE).size() == 1);
  const std::vector<UOp> params = ops_in(k.ast, Ops::PARAM);
  std::set<std::int64_t> slots;
  for (const UOp& u : params) slots.insert(u.arg().as_param().slot);
  CHECK(slots == std::set<std::int64_t>{0, 1});
  // slot 0 is the output (4 floats), slot 1 is a (16 floats)
  for (const UOp& u : params) CHECK(u.dtype() == dtypes::float32.ptr(u.arg().as_param().slot == 0 ? 4 : 16));
  REQUIRE(k.bufs.size() == 2);
  CHECK(k.bufs[1] == buffer_of(a));
  CHECK(k.bufs[0] == s.outputs[0]);
  CHECK(s.outputs[0].op() == Ops::BUFFER);
  CHECK(s.outputs[0].arg().as_int() == 4);
  // one LOOP range and one REDUCE range, numbered from 0
  const std::vector<UOp> rngs = ops_in(k.ast, Ops::RANGE);
  REQUIRE(rngs.size() == 2);
  std::set<std::int64_t> ids;
  std::multiset<AxisType> types;
  for (const UOp& r : rngs) ids.insert(r.arg()[0].as_int()), types.insert(r.arg()[1].as_axis_type());
  CHECK(ids == std::set<std::int64_t>{0, 1});
  CHECK(types == std::multiset<AxisType>{AxisType::LOOP, AxisType::REDUCE});
}

TEST_CASE("schedule: (a*b).sum(1) kernel has PARAM slots 0..2", "[schedule]") {
  const Tensor a = E({4, 4}), b = E({4, 4});
  const Schedule s = sched({(a * b).sum(1)});
  REQUIRE(s.items.size() == 1);
  std::set<std::int64_t> slots;
  for (const UOp& u : ops_in(s.items[0].ast, Ops::PARAM)) slots.insert(u.arg().as_param().slot);
  CHECK(slots == std::set<std::int64_t>{0, 1, 2});
  CHECK(ops_in(s.items[0].ast, Ops::REDUCE).size() == 1);
  CHECK(ops_in(s.items[0].ast, Ops::STORE).size() == 1);
  REQUIRE(s.items[0].bufs.size() == 3);
  CHECK(std::set<const void*>{s.items[0].bufs[1].node(), s.items[0].bufs[2].node()} ==
        std::set<const void*>{buffer_of(a).node(), buffer_of(b).node()});
}

TEST_CASE("schedule: softmax kernels read the earlier kernels' outputs", "[schedule]") {
  const Tensor x = E({8, 16});
  const Schedule s = sched({x.softmax()});
  REQUIRE(s.items.size() == 3);
  // each kernel's inputs are the graph's input or outputs of kernels before it
  std::set<const void*> ready{buffer_of(x).node()};
  for (const ScheduleItem& si : s.items) {
    for (std::size_t i = 1; i < si.bufs.size(); ++i) CHECK(ready.count(si.bufs[i].node()) == 1);
    ready.insert(si.bufs[0].node());
  }
  CHECK(s.items.back().bufs[0] == s.outputs[0]);
  // as tinygrad: the max kernel and the sum kernel reduce, the last kernel only divides
  REQUIRE(s.items.size() == 3);
  CHECK(ops_in(s.items[0].ast, Ops::REDUCE).size() == 1);
  CHECK(ops_in(s.items[1].ast, Ops::REDUCE).size() == 1);
  CHECK(ops_in(s.items[2].ast, Ops::REDUCE).size() == 0);
}

// ---- deduplication of kernels ----

TEST_CASE("schedule: same op on different buffers gives the same AST", "[schedule][dedup]") {
  const Tensor a = E({4, 4}), b = E({4, 4}), c = E({4, 4}), d = E({4, 4});
  const Schedule s1 = sched({a + b}), s2 = sched({c + d});
  REQUIRE(s1.items.size() == 1);
  REQUIRE(s2.items.size() == 1);
  CHECK(s1.items[0].ast == s2.items[0].ast);
  CHECK(s1.items[0].bufs[1] != s2.items[0].bufs[1]);
  // in one schedule too: two kernels, one AST
  const Schedule s = sched({a + b, c + d});
  REQUIRE(s.items.size() == 2);
  CHECK(s.items[0].ast == s.items[1].ast);
  CHECK(s.items[0].bufs[0] != s.items[1].bufs[0]);
  // a different op is a different AST
  CHECK(sched({a * b}).items[0].ast != s1.items[0].ast);
}

TEST_CASE("schedule: reduce kernels are deduplicated", "[schedule][dedup]") {
  const Tensor a = E({4, 4}), b = E({4, 4});
  const UOp ka = sched({(a * 2).sum(1)}).items[0].ast, kb = sched({(b * 2).sum(1)}).items[0].ast;
  CHECK(ka == kb);
  CHECK(sched({(b * 3).sum(1)}).items[0].ast != ka);
  CHECK(sched({(b * 2).sum(0)}).items[0].ast != ka);
}

TEST_CASE("schedule: recursive add cmp (tinygrad's dedup test)", "[schedule][dedup]") {
  auto chain = [](int n) {
    Tensor a = E({4});
    for (int i = 0; i < n; ++i) a = a + a;
    return sched({a}).items.back().ast;
  };
  const UOp k1 = chain(24), k2 = chain(24), k3 = chain(23);
  CHECK(k1 == k2);
  CHECK(k1 != k3);
}

// tinygrad's reduce collapse (codegen/simplify.py): arange is a running sum of steps, folded to
// start + i*step where it is read; indexing by a tensor sums one-hot masks, folded to a load
TEST_CASE("schedule: arange and its indexing fold their reduces", "[schedule][collapse]") {
  // test_advanced_simple_indexing_combined
  CHECK(kernels(Tensor::arange(16).reshape({4, 4})[{slice(1, 2), Tensor::from({-1, 2})}]) == 1);
  // test_arange_index_shrink
  const Tensor x = E({11});
  CHECK(kernels((x + Tensor::arange(22)[slice(0, 11)]).sum()) == 1);
  // test_fuse_arange_avg_pool2d_ceil_mode: one kernel, one REDUCE
  const Schedule pool = sched({E({1, 1, 6, 6}).avg_pool2d({3, 3}, {3, 3}, {1, 1}, {1, 1}, true)});
  REQUIRE(pool.items.size() == 1);
  CHECK(ops_in(pool.items[0].ast, Ops::REDUCE).size() == 1);
  // a long arange is one kernel without a REDUCE
  const Schedule ar = sched({Tensor::arange(60000)});
  REQUIRE(ar.items.size() == 1);
  CHECK(ops_in(ar.items[0].ast, Ops::REDUCE).empty());
  // X[idx] (beautiful_mnist's batch): the gather kernel's program loops over no reduce
  const Schedule g = sched({E({600, 1, 28, 28})[E({8}, dtypes::int32)]});
  REQUIRE(g.items.size() == 1);
  const Program p = to_program(g.items[0].ast, detail::device_target(DeviceKind::CPU));
  CHECK(p.name.rfind("E_", 0) == 0);
  for (const UOp& u : p.uops) CHECK_FALSE(u.op() == Ops::REDUCE);
}

// tinygrad's LLVMRenderer.extra_matcher on the CPU device: bfloat16 math runs in float32 and the
// conversions are integer ops, so a CPU without native bfloat16 never needs compiler-rt's
// __truncsfbf2 / __extendbfsf2 (which the JIT cannot resolve)
TEST_CASE("CPU kernels compute bfloat16 in float32 and convert by hand", "[schedule][render][llvm]") {
  const Tensor a = E({16}, dtypes::bfloat16), f = E({16});
  const Schedule s = sched({(a * a + a) / 3, f.cast(dtypes::bfloat16), a.cast(dtypes::float32).exp()});
  REQUIRE_FALSE(s.items.empty());
  for (const ScheduleItem& it : s.items) {
    const std::string ir = render_llvm(to_program(it.ast, detail::device_target(DeviceKind::CPU)));
    INFO(ir);
    std::size_t at = 0;
    for (std::size_t nl; (nl = ir.find('\n', at)) != std::string::npos; at = nl + 1) {
      const std::string line = ir.substr(at, nl - at);
      if (line.find("bfloat") == std::string::npos) continue;
      for (const char* bad : {"fadd", "fmul", "fdiv", "fptrunc", "fpext", "fcmp", "call"}) CHECK(line.find(bad) == std::string::npos);
    }
  }
  // and the values are those of the reference evaluator
  const Tensor x = Tensor::from({1.5f, 2.25f, -3.0f, 1e30f, -0.0f, 3.14159265f}).cast(dtypes::bfloat16);
  const Tensor y = ((x * x + x) / 3).cast(dtypes::float32);
  CHECK(y.to_vector<double>() == reference_eval(y.uop()).to_vector<double>());
  CHECK(y.to_vector<double>() == std::vector<double>{1.25, 2.4375, 2, INFINITY, 0, 4.34375});
}

// The input gradient of a stride-1 convolution (the gradient of _pool's repeat trick) sums over
// ceil(k*(i+1)/i) repeats per axis, of which only k can be valid: shrink_masked_reduce (symbolic/sym.hpp)
// drops the dead ones, and unwrap_mod_gate (symbolic/valid.hpp) turns the (a*i+y)//(i+1) indexing into
// (a, y-a), so the weight's load no longer moves along the output's x and the heuristic upcasts x.
// The values are checked against the convolution's transpose computed here.
TEST_CASE("schedule: a convolution's input gradient reads only the kernel's taps", "[schedule][gradient]") {
  const std::int64_t B = 2, C = 3, O = 4, H = 12, K = 5, OH = H - K + 1;
  auto seq = [](std::int64_t n, int s) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) v[std::size_t(i)] = float((i * 7 + s * 3) % 13 - 6) * 0.25f + float((i * 5 + s) % 11) * 0.03f;
    return v;
  };
  const std::vector<float> xv = seq(B * C * H * H, 1), wv = seq(O * C * K * K, 2), gv = seq(B * O * OH * OH, 3);
  Tensor x = Tensor::from(xv, {B, C, H, H}).requires_grad(true);
  const Tensor w = Tensor::from(wv, {O, C, K, K}), g = Tensor::from(gv, {B, O, OH, OH});
  (x.conv2d(w) * g).sum().backward();
  REQUIRE(x.grad());
  // every reduce range of the gradient's kernels is at most the kernel size: 6 (the repeats) is gone
  const Schedule s = sched({*x.grad()});
  REQUIRE_FALSE(s.items.empty());
  bool five = false;
  for (const ScheduleItem& it : s.items) {
    const Program p = to_program(it.ast, detail::device_target(DeviceKind::CPU));
    INFO(p.name);
    for (const UOp& u : p.uops) {
      if (u.op() != Ops::RANGE || detail::range_type(u) != AxisType::REDUCE) continue;
      CHECK(u.src(0).arg().as_int() <= K);
      five = five || u.src(0).arg().as_int() == K;
    }
  }
  CHECK(five);
  // dx[b,c,y,x] = sum over o, ky, kx of w[o,c,ky,kx] * g[b,o,y-ky,x-kx] where the output position exists
  const std::vector<float> got = x.grad()->to_vector<float>();
  REQUIRE(got.size() == xv.size());
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t yy = 0; yy < H; ++yy)
        for (std::int64_t xx = 0; xx < H; ++xx) {
          double want = 0;
          for (std::int64_t o = 0; o < O; ++o)
            for (std::int64_t ky = 0; ky < K; ++ky)
              for (std::int64_t kx = 0; kx < K; ++kx) {
                const std::int64_t oy = yy - ky, ox = xx - kx;
                if (oy < 0 || oy >= OH || ox < 0 || ox >= OH) continue;
                want += double(wv[std::size_t(((o * C + c) * K + ky) * K + kx)]) * double(gv[std::size_t(((b * O + o) * OH + oy) * OH + ox)]);
              }
          const double v = got[std::size_t(((b * C + c) * H + yy) * H + xx)];
          INFO("dx[" << b << "," << c << "," << yy << "," << xx << "]");
          CHECK(v == Approx(want).margin(1e-4));
        }
}

// ---- the kernel buffer limit: tinygrad's MAX_KERNEL_BUFFERS (schedule/rangeify.py limit_bufs) ----

namespace {

using test::ScopedEnv;

// the buffers (PARAM slots, the output's included) of each kernel, sorted
std::vector<std::size_t> buffer_counts(const Schedule& s) {
  std::vector<std::size_t> n;
  for (const ScheduleItem& it : s.items) n.push_back(ops_in(it.ast, Ops::PARAM).size());
  std::sort(n.begin(), n.end());
  return n;
}

// the four graphs of the limit tests, over inputs xs (10 of shape {16}) and ms (6 of shape {4, 4})
std::vector<Tensor> limit_graphs(const std::vector<Tensor>& xs, const std::vector<Tensor>& ms) {
  Tensor chain = xs[0];
  for (std::size_t i = 1; i < 10; ++i) chain = chain + xs[i];
  const Tensor products = xs[0] * xs[1] + xs[2] * xs[3] + xs[4] * xs[5] + xs[6] * xs[7] + xs[8] * xs[9];
  const Tensor reduce6 = (ms[0] + ms[1] + ms[2] + ms[3] + ms[4] + ms[5]).sum(1);
  const Tensor transposes = (ms[0] + ms[1].transpose() + ms[2] + ms[3].transpose() + ms[4]).sum(0);
  return {chain, products, reduce6, transposes};
}

}  // namespace

// Kernels and their buffer counts as tinygrad makes them at the reference commit (MAX_KERNEL_BUFFERS=n,
// SCACHE=0, Tensor.empty inputs on CPU); tinygrad's order of the kernels differs in one case, so the counts
// are compared sorted.
TEST_CASE("schedule: MAX_KERNEL_BUFFERS splits kernels as tinygrad's limit_bufs does", "[schedule][limit]") {
  std::vector<Tensor> xs, ms;
  for (int i = 0; i < 10; ++i) xs.push_back(E({16}));
  for (int i = 0; i < 6; ++i) ms.push_back(E({4, 4}));
  const std::vector<Tensor> graphs = limit_graphs(xs, ms);
  using Counts = std::vector<std::size_t>;
  const std::vector<std::pair<int, std::vector<Counts>>> want = {
      {0, {{11}, {11}, {7}, {6}}},  // no limit: one kernel each
      {3, {Counts(9, 3), Counts(9, 3), Counts(5, 3), Counts(4, 3)}},
      {4, {{3, 4, 4, 4, 4}, Counts(9, 3), {3, 4, 4}, {4, 4}}},
      {5, {{5, 5, 5}, {3, 3, 3, 5, 5}, {4, 5}, {3, 5}}},
      {8, {{5, 8}, {3, 5, 7}, {7}, {6}}},
  };
  for (const auto& [limit, counts] : want) {
    const ScopedEnv env("MAX_KERNEL_BUFFERS", std::to_string(limit));
    for (std::size_t g = 0; g < graphs.size(); ++g) {
      INFO("MAX_KERNEL_BUFFERS=" << limit << ", graph " << g);
      CHECK(buffer_counts(sched({graphs[g]})) == counts[g]);
    }
  }
}

// the split kernels compute what one kernel computes: values on the default device against the
// reference evaluator, with every kernel within the limit
TEST_CASE("schedule: kernels split by MAX_KERNEL_BUFFERS compute the same values", "[schedule][limit]") {
  for (int limit : {3, 4, 5}) {
    const ScopedEnv env("MAX_KERNEL_BUFFERS", std::to_string(limit));
    std::vector<Tensor> xs, ms;
    for (int i = 0; i < 10; ++i) xs.push_back(Tensor::from(test::ramp(16, 0.25f + 0.125f * float(i), float(-i)), {16}));
    for (int i = 0; i < 6; ++i) ms.push_back(Tensor::from(test::ramp(16, 0.5f, float(i) - 2), {4, 4}));
    std::vector<Tensor> graphs = limit_graphs(xs, ms);
    // tinygrad's test_limit_bufs_arange_condition: a WHERE on an arange condition over many buffers
    Tensor base = Tensor::zeros({8});
    const Tensor idx = Tensor::arange(8);
    for (int i = 0; i < 4; ++i) base = (idx >= i).where(xs[std::size_t(2 * i)].shrink({{0, 8}}) + xs[std::size_t(2 * i + 1)].shrink({{0, 8}}), base);
    graphs.push_back(base);
    for (std::size_t g = 0; g < graphs.size(); ++g) {
      INFO("MAX_KERNEL_BUFFERS=" << limit << ", graph " << g);
      // a WHERE over three buffers (a realized condition, value and base) cannot be split further: its
      // kernel keeps 4 buffers under a limit of 3, as in tinygrad (whose schedule of this graph folds
      // `arange >= 0` to true first, so it realizes one condition fewer: 10 kernels where this makes 12)
      const std::size_t allowed = g == 4 ? std::max(limit, 4) : std::size_t(limit);
      for (std::size_t n : buffer_counts(sched({graphs[g]}))) CHECK(n <= allowed);
      test::check_close(graphs[g].to_vector<double>(), reference_eval(graphs[g].uop()).to_vector<double>(), 1e-5, 1e-6);
    }
  }
}

TEST_CASE("schedule: a MAX_KERNEL_BUFFERS below 3 is an error that names it", "[schedule][limit]") {
  const Tensor a = E({4}), b = E({4});
  for (const char* v : {"1", "2", "-4"}) {
    const ScopedEnv env("MAX_KERNEL_BUFFERS", v);
    CHECK_THROWS_WITH(sched({a + b}), Catch::Contains(std::string("MAX_KERNEL_BUFFERS=") + v) && Catch::Contains("at least 3"));
  }
  const ScopedEnv env("MAX_KERNEL_BUFFERS", "two");
  CHECK_THROWS_WITH(sched({a + b}), Catch::Contains("MAX_KERNEL_BUFFERS=two is not an integer"));
}
