// Tensor frontend: creation, movement, elementwise with broadcasting and promotion, reductions.
// Expected values were printed by tinygrad at the reference commit (Tensor ops on its CPU device).
#include <catch2/catch.hpp>

#include <cmath>
#include <metagrad/tensor/tensor.hpp>

#include "check.hpp"

using namespace mg;
using V = std::vector<std::int32_t>;
using F = std::vector<float>;

using mg::test::check_close;

TEST_CASE("tensor: creation, dtypes and shapes") {
  Tensor a = Tensor::from({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(a.shape() == Shape{2, 3});
  CHECK(a.dtype() == dtypes::int32);
  CHECK(a.to_vector<std::int32_t>() == V{1, 2, 3, 4, 5, 6});
  CHECK(Tensor::from({1.5, 2.0}).dtype() == dtypes::float32);  // a Python float is default_float
  CHECK(Tensor::from(std::vector<bool>{true, false}).dtype() == dtypes::bool_);
  CHECK(Tensor::from({1, 2}, {}, dtypes::float16).to_vector<float>() == F{1, 2});
  CHECK(Tensor::full({2, 2}, 3).to_vector<std::int32_t>() == V{3, 3, 3, 3});
  CHECK(Tensor::full({2, 2}, 3).dtype() == dtypes::int32);
  CHECK(Tensor::ones({2, 3}).sum(0).to_vector<float>() == F{2, 2, 2});
  CHECK(Tensor::zeros({0, 3}).numel() == 0);
  CHECK(Tensor(ConstType(7)).shape().empty());
  CHECK(Tensor(ConstType(7)).item<std::int32_t>() == 7);
  CHECK(a.zeros_like().to_vector<std::int32_t>() == V(6, 0));
}

TEST_CASE("tensor: movement ops") {
  Tensor a = Tensor::from({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(a.permute({1, 0}).to_vector<std::int32_t>() == V{1, 4, 2, 5, 3, 6});
  CHECK(a.T().shape() == Shape{3, 2});
  CHECK(a.flip({1}).to_vector<std::int32_t>() == V{3, 2, 1, 6, 5, 4});
  CHECK(a.flip({-1, 0}).to_vector<std::int32_t>() == V{6, 5, 4, 3, 2, 1});
  Tensor p = a.pad({std::pair{1, 0}, std::pair{0, 2}});
  CHECK(p.shape() == Shape{3, 5});
  CHECK(p.to_vector<std::int32_t>() == V{0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0, 0});
  CHECK(a.shrink({std::pair{0, 1}, std::pair{1, 3}}).to_vector<std::int32_t>() == V{2, 3});
  CHECK(a.reshape({3, -1}).shape() == Shape{3, 2});
  CHECK(Tensor::from({1, 2, 3}).reshape({3, 1}).expand({3, 2}).to_vector<std::int32_t>() == V{1, 1, 2, 2, 3, 3});
  CHECK(Tensor::from({1, 2, 3}).expand({2, 3}).to_vector<std::int32_t>() == V{1, 2, 3, 1, 2, 3});
  CHECK(a.flatten().shape() == Shape{6});
  CHECK(a.unsqueeze(1).shape() == Shape{2, 1, 3});
  CHECK(a.unsqueeze(-1).shape() == Shape{2, 3, 1});
  CHECK(a.unsqueeze(0).squeeze().shape() == Shape{2, 3});
  // a chain through every movement op
  Tensor c = a.permute({1, 0}).pad({std::pair{0, 1}, std::nullopt}).shrink({std::pair{1, 4}, std::nullopt}).flip({0});
  CHECK(c.to_vector<std::int32_t>() == V{0, 0, 3, 6, 2, 5});
}

TEST_CASE("tensor: elementwise with broadcasting and promotion") {
  Tensor a = Tensor::from({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK((a * 2 + 1).sum(1).to_vector<std::int32_t>() == V{15, 33});
  CHECK((a / 2).dtype() == dtypes::float32);
  CHECK((a / 2).to_vector<float>() == F{0.5f, 1, 1.5f, 2, 2.5f, 3});
  CHECK((a - 7).to_vector<std::int32_t>() == V{-6, -5, -4, -3, -2, -1});
  CHECK((a % 4).to_vector<std::int32_t>() == V{1, 2, 3, 0, 1, 2});
  CHECK((-a).idiv(Tensor(ConstType(4))).to_vector<std::int32_t>() == V{-1, -1, -1, -1, -2, -2});
  CHECK((Tensor::from({-7, 7}) % 3).to_vector<std::int32_t>() == V{2, 1});
  CHECK(Tensor::from({-7, 7}).idiv(Tensor(ConstType(2))).to_vector<std::int32_t>() == V{-4, 3});
  CHECK((a < 3).to_vector<bool>() == std::vector<bool>{true, true, false, false, false, false});
  CHECK((a + 1.5).dtype() == dtypes::float32);
  Tensor b = Tensor::from(std::vector<bool>{true, false}) + 1;
  CHECK(b.dtype() == dtypes::int32);
  CHECK(b.to_vector<std::int32_t>() == V{2, 1});
  // a column against a row
  Tensor col = Tensor::from({10, 20}, {2, 1}), row = Tensor::from({1, 2, 3});
  CHECK((col + row).to_vector<std::int32_t>() == V{11, 12, 13, 21, 22, 23});
  CHECK((a < 4).where(a, Tensor(ConstType(0))).to_vector<std::int32_t>() == V{1, 2, 3, 0, 0, 0});
  CHECK(a.maximum(Tensor(ConstType(3))).to_vector<std::int32_t>() == V{3, 3, 3, 4, 5, 6});
  CHECK(a.minimum(Tensor(ConstType(3))).to_vector<std::int32_t>() == V{1, 2, 3, 3, 3, 3});
  CHECK((Tensor::from({6, 5}) & Tensor::from({3, 3})).to_vector<std::int32_t>() == V{2, 1});

  Tensor f = Tensor::from({1.5, -2.25, 0.1});
  check_close((f + 0.2).to_vector<float>(), {1.7000000476837158f, -2.049999952316284f, 0.30000001192092896f});
  check_close(f.exp().to_vector<float>(), {4.481688976287842f, 0.1053992360830307f, 1.1051709651947021f});
  CHECK(f.floor().to_vector<float>() == F{1, -3, 0});
  CHECK(f.ceil().to_vector<float>() == F{2, -2, 1});
  check_close(f.relu().to_vector<float>(), {1.5f, 0, 0.10000000149011612f});
  check_close(f.sigmoid().to_vector<float>(), {0.8175744414329529f, 0.09534947574138641f, 0.5249791741371155f});
  check_close((f % 1).to_vector<float>(), {0.5f, 0.75f, 0.10000000149011612f});
  check_close(Tensor::from({1.0, 2.0, 3.0, 4.0}, {2, 2}).log().to_vector<float>(),
              {0.0f, 0.6931471824645996f, 1.0986123085021973f, 1.3862943649291992f});
}

TEST_CASE("tensor: reductions") {
  Tensor a = Tensor::from({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(a.max(0).to_vector<std::int32_t>() == V{4, 5, 6});
  CHECK(a.min(1).to_vector<std::int32_t>() == V{1, 4});
  CHECK(a.mean().item<float>() == 3.5f);
  CHECK(a.prod(1).to_vector<std::int32_t>() == V{6, 120});
  CHECK(a.sum().item<std::int32_t>() == 21);
  CHECK(a.sum(-1, true).shape() == Shape{2, 1});
  CHECK(a.sum({0, 1}).shape().empty());
  CHECK((a > 5).any().item<bool>());
  CHECK_FALSE((a > 5).all().item<bool>());
  CHECK(Tensor::zeros({0, 3}).sum(0).to_vector<float>() == F{0, 0, 0});
  CHECK(Tensor::from({250, 10}, {}, dtypes::uint8).sum().dtype() == dtypes::uint32);  // sum_acc_dtype
  CHECK(Tensor::from({250, 10}, {}, dtypes::uint8).sum().item<std::uint32_t>() == 260);
}

TEST_CASE("tensor: realize keeps the values and views a buffer") {
  Tensor a = Tensor::from({1, 2, 3, 4}, {2, 2});
  Tensor b = (a * a).permute({1, 0});
  b.realize();
  CHECK((b.uop().op() == Ops::BUFFER || b.uop().src(0).op() == Ops::BUFFER));
  CHECK(b.shape() == Shape{2, 2});
  CHECK(b.to_vector<std::int32_t>() == V{1, 9, 4, 16});
}

TEST_CASE("tensor: bad input is an mg::Error naming the op and the shapes") {
  Tensor a = Tensor::from({1, 2, 3, 4, 5, 6}, {2, 3});
  auto throws_with = [](auto&& f, const std::string& part) {
    try {
      f();
    } catch (const Error& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(part) != std::string::npos);
      return;
    }
    FAIL("no mg::Error");
  };
  throws_with([&] { a.reshape({4, 2}); }, "reshape: size mismatch, can't reshape (2, 3) -> (4, 2)");
  throws_with([&] { a + Tensor::from({1, 2}); }, "shapes (2, 3), (2,) cannot broadcast");
  throws_with([&] { a.sum(2); }, "dim 2 out of range for shape (2, 3)");
  throws_with([&] { a.permute({0, 0}); }, "permute: (0, 0) is not a valid permutation of (2, 3)");
  throws_with([&] { a.expand({4, 3}); }, "expand: cannot broadcast (2, 3) to (4, 3)");
  throws_with([&] { a.shrink({std::pair{0, 3}, std::nullopt}); }, "shrink: range (0, 3) out of bounds for axis 0");
  throws_with([&] { Tensor::from({1, 2, 3}, {2, 2}); }, "Tensor::from: 3 values for shape (2, 2)");
  throws_with([&] { Tensor::from({1.5}) & Tensor::from({1.5}); }, "bitwise ops need int or bool tensors, got dtypes.float");
  throws_with([&] { a.item<int>(); }, "Tensor::item: the tensor has 6 elements");
}

TEST_CASE("tensor: softmax, var, argmax, cumsum, dot, arange") {
  Tensor a = Tensor::from({1.0, 2.0, 3.0, 4.0, 6.0, 9.0}, {2, 3});
  check_close(a.softmax().to_vector<float>(), {0.09003057330846786f, 0.2447284758090973f, 0.6652409434318542f,
                                               0.006377461366355419f, 0.04712342470884323f, 0.9464991688728333f});
  check_close(a.log_softmax(0).to_vector<float>(), {-3.0485873222351074f, -4.0181498527526855f, -6.002475738525391f,
                                                    -0.04858732968568802f, -0.018149958923459053f, -0.0024756521452218294f});
  check_close(a.logsumexp(1).to_vector<float>(), {3.4076058864593506f, 9.054985046386719f});
  check_close(F{a.var().item<float>()}, F{8.566667556762695f});
  check_close(a.std(1).to_vector<float>(), {1.0f, 2.5166115760803223f});
  check_close(a.var(0, false, 0).to_vector<float>(), {2.25f, 4.0f, 9.0f});
  CHECK(a.argmax().item<std::int32_t>() == 5);
  CHECK(a.argmax(1).to_vector<std::int32_t>() == V{2, 2});
  CHECK(a.argmin(0).to_vector<std::int32_t>() == V{0, 0, 0});
  CHECK(Tensor::from({3, 1, 3}).argmax().item<std::int32_t>() == 0);  // the first of equal maxima
  Tensor w = Tensor::from({1.0, 0.5, 2.0, -1.0, 0.0, 3.0}, {3, 2});
  CHECK(a.dot(w).to_vector<float>() == F{5.0f, 7.5f, 16.0f, 23.0f});
  CHECK(a.dot(Tensor::from({1.0, 1.0, 1.0})).to_vector<float>() == F{6.0f, 19.0f});
  CHECK(Tensor::arange(5).to_vector<std::int32_t>() == V{0, 1, 2, 3, 4});
  CHECK(Tensor::arange(5).dtype() == dtypes::int32);
  CHECK(Tensor::arange(2, 11, 3).to_vector<std::int32_t>() == V{2, 5, 8});
  CHECK(Tensor::arange(1.0, 2.0, 0.25).to_vector<float>() == F{1.0f, 1.25f, 1.5f, 1.75f});
  CHECK(Tensor::from({1, 2, 3}).cumsum().to_vector<std::int32_t>() == V{1, 3, 6});
  CHECK(Tensor::from({1, 2, 3, 4}, {2, 2}).cumsum(1).to_vector<std::int32_t>() == V{1, 3, 3, 7});
  CHECK(Tensor::eye(3).to_vector<float>() == F{1, 0, 0, 0, 1, 0, 0, 0, 1});
  check_close(Tensor::linspace(0, 1, 5).to_vector<float>(), {0.0f, 0.25f, 0.5f, 0.75f, 1.0f});
  CHECK_THROWS_WITH(a.dot(w.T()), "dot: cannot dot (2, 3) and (2, 3)");
}

TEST_CASE("tensor: backward and gradient (values printed by tinygrad)") {
  Tensor x = Tensor::eye(3), y = Tensor::from({2.0, 0.0, -2.0}, {1, 3});
  auto g = y.matmul(x).sum().gradient({x, y});
  CHECK(g[0].to_vector<float>() == F{2, 2, 2, 0, 0, 0, -2, -2, -2});
  CHECK(g[1].to_vector<float>() == F{1, 1, 1});

  Tensor a = Tensor::from({1.0, 2.0, 3.0, 4.0, 6.0, 9.0}, {2, 3});
  (a.softmax() * Tensor::from({1.0, 2.0, 3.0})).sum().backward();
  REQUIRE(a.grad());
  check_close(a.grad()->to_vector<float>(), {-0.1418170928955078f, -0.1407703459262848f, 0.282587468624115f,
                                             -0.012373050674796104f, -0.044301748275756836f, 0.05667489767074585f});
  Tensor b = Tensor::from({0.5, -1.5, 2.0});
  (b.relu() * b.exp()).sum().backward();
  check_close(b.grad()->to_vector<float>(), {2.4730818271636963f, 0.0f, 22.16716766357422f}, 1e-5);

  // a tensor used twice accumulates; a second backward adds to grad
  Tensor c = Tensor::from({1.0, 2.0});
  ((c * c).sum() + (c * 3).sum()).backward();
  CHECK(c.grad()->to_vector<float>() == F{5, 7});
  (c * 2).sum().backward();
  CHECK(c.grad()->to_vector<float>() == F{7, 9});

  // copies share the gradient; detach and requires_grad(false) stop it; NoGrad tensors take none
  Tensor d = Tensor::from({1.0, 2.0}), d2 = d;
  Tensor e = Tensor::from({3.0, 4.0});
  e.requires_grad(false);
  (d * e + d.detach() * 5).sum().backward();
  CHECK(d2.grad()->to_vector<float>() == F{3, 4});
  CHECK_FALSE(e.grad());
  {
    Tensor::NoGrad off;
    Tensor f = Tensor::from({1.0});
    (f * 2).sum().backward();
    CHECK_FALSE(f.grad());
  }
  CHECK_THROWS_WITH(Tensor::from({1.0, 2.0}).backward(), Catch::Contains("backward needs a scalar; this tensor has shape (2,)"));
  CHECK_THROWS_WITH(Tensor::from({1, 2}).sum().backward(), Catch::Contains("only float tensors have gradients"));
}

TEST_CASE("tensor: activations and the rest of the elementwise ops (values printed by tinygrad)") {
  Tensor x = Tensor::from({-2.5, -0.5, 0.0, 0.5, 1.5, 3.0});
  const double tol = 2e-6;
  auto check = [&](const Tensor& t, F want) { check_close(t.to_vector<float>(), want, tol, 1e-5); };
  check(x.sign(), {-1, -1, 0, 1, 1, 1});
  check(x.abs(), {2.5, 0.5, 0, 0.5, 1.5, 3});
  check(x.cos(), {-0.8011436462402344f, 0.8775825500488281f, 1.0f, 0.8775825500488281f, 0.07073725014925003f, -0.9899924993515015f});
  check(x.tan(), {0.7470223307609558f, -0.5463024973869324f, 0.0f, 0.5463024973869324f, 14.101409912109375f, -0.1425466388463974f});
  check(x.tanh(), {-0.9866142868995667f, -0.46211713552474976f, 0.0f, 0.46211719512939453f, 0.9051482677459717f, 0.9950548410415649f});
  check(x.round(), {-2, 0, 0, 0, 2, 3});
  check(Tensor::from({0.5, 1.5, 2.5, -0.5, -1.5, 2.4}).round(), {0, 2, 2, 0, -2, 2});  // half to even
  check(x.relu6(), {0, 0, 0, 0.5, 1.5, 3});
  check(x.leaky_relu(), {-0.02499999850988388f, -0.004999999888241291f, 0, 0.5, 1.5, 3});
  check(x.elu(), {-0.9179149866104126f, -0.39346933364868164f, 0, 0.5, 1.5, 3});
  check(x.celu(), {-0.9179149866104126f, -0.39346933364868164f, 0, 0.5, 1.5, 3});
  check(x.selu(), {-1.6137809753417969f, -0.6917561888694763f, 0.0f, 0.5253499746322632f, 1.5760499238967896f, 3.152099847793579f});
  check(x.softplus(), {0.07888974249362946f, 0.4740769863128662f, 0.6931471824645996f, 0.9740769863128662f, 1.7014132738113403f, 3.0485873222351074f});
  check(x.mish(), {-0.1968163251876831f, -0.22074377536773682f, 0.0f, 0.3752451539039612f, 1.4033782482147217f, 2.98653507232666f});
  check(x.silu(), {-0.189645454287529f, -0.1887703388929367f, 0.0f, 0.3112296760082245f, 1.226361632347107f, 2.857722520828247f});
  check(x.gelu(), {-0.015084268525242805f, -0.1542859822511673f, 0.0f, 0.3457140028476715f, 1.3995715379714966f, 2.9963626861572266f});
  check(x.quick_gelu(), {-0.034986160695552826f, -0.14961156249046326f, 0.0f, 0.35038843750953674f, 1.3916622400283813f, 2.981928825378418f});
  check(x.hardsigmoid(), {0.08333331346511841f, 0.4166666567325592f, 0.5f, 0.5833333134651184f, 0.75f, 1.0f});
  check(x.hardtanh(), {-1, -0.5, 0, 0.5, 1, 1});
  check(x.hardswish(), {-0.2083333432674408f, -0.2083333432674408f, 0.0f, 0.2916666865348816f, 1.125f, 3.0f});
  check(x.softsign(), {-0.7142857313156128f, -0.3333333432674408f, 0.0f, 0.3333333432674408f, 0.6000000238418579f, 0.75f});
  check(x.logsigmoid(), {-2.578889846801758f, -0.9740769863128662f, -0.6931471824645996f, -0.4740769863128662f, -0.2014133334159851f, -0.04858732968568802f});
  check(x.sigmoid(), {0.07585817575454712f, 0.3775406777858734f, 0.5f, 0.622459352016449f, 0.8175744414329529f, 0.9525741338729858f});
  check(x.clip(-1, 1), {-1, -0.5, 0, 0.5, 1, 1});
  check(x.lerp(Tensor::ones({6}), 0.25), {-1.625f, -0.125f, 0.25f, 0.625f, 1.375f, 2.5f});
  check(Tensor::from({1.5, 2.0, 3.0}).pow(2.0), {2.25, 4, 9});
  CHECK(Tensor::from({1, 2, 3}).pow(Tensor::from({0.5, 2.0, 1.5})).to_vector<std::int32_t>() == V{1, 4, 5});
  CHECK(Tensor::from({2, 3}).pow(2).to_vector<std::int32_t>() == V{4, 9});
  CHECK_THROWS_WITH(Tensor::from({2, 3}).pow(0.5), Catch::Contains("pow: base needs to be float, got dtypes.int"));
  CHECK_THROWS_WITH(x.clip(std::nullopt, std::nullopt), Catch::Contains("clip: at least one of min and max"));
}

TEST_CASE("tensor: cat, stack, split, chunk, repeat (values printed by tinygrad)") {
  Tensor a = Tensor::from({1, 2, 3, 4}, {2, 2}), b = Tensor::from({5, 6}, {1, 2});
  CHECK(a.cat(b, 0).to_vector<std::int32_t>() == V{1, 2, 3, 4, 5, 6});
  CHECK(a.cat(Tensor::from({7, 8}, {2, 1}), 1).to_vector<std::int32_t>() == V{1, 2, 7, 3, 4, 8});
  Tensor s = Tensor::stack({a, a}, 1);
  CHECK(s.shape() == Shape{2, 2, 2});
  CHECK(s.to_vector<std::int32_t>() == V{1, 2, 1, 2, 3, 4, 3, 4});
  Tensor v = Tensor::from({1, 2, 3, 4, 5});
  auto p = v.split(2);
  REQUIRE(p.size() == 3);
  CHECK(p[2].to_vector<std::int32_t>() == V{5});
  auto c = v.chunk(2);
  REQUIRE(c.size() == 2);
  CHECK(c[0].to_vector<std::int32_t>() == V{1, 2, 3});
  CHECK(c[1].to_vector<std::int32_t>() == V{4, 5});
  CHECK(v.split(std::vector<std::int64_t>{1, 4})[1].to_vector<std::int32_t>() == V{2, 3, 4, 5});
  CHECK(a.repeat({2, 1}).to_vector<std::int32_t>() == V{1, 2, 3, 4, 1, 2, 3, 4});
  CHECK(Tensor::from({1, 2}).repeat({2, 2}).to_vector<std::int32_t>() == V{1, 2, 1, 2, 1, 2, 1, 2});
  CHECK_THROWS_WITH(a.cat(Tensor::from({1, 2, 3}, {1, 3}), 0), Catch::Contains("cat: shapes (2, 2) and (1, 3) differ off dim 0"));
  CHECK_THROWS_WITH(v.split(std::vector<std::int64_t>{1, 2}), Catch::Contains("split: sizes add up to 3"));
  // cat is differentiable: each part gets its slice of the gradient
  Tensor x = Tensor::from({1.0, 2.0}), y = Tensor::from({3.0});
  (Tensor::cat({x, y}) * Tensor::from({1.0, 2.0, 3.0})).sum().backward();
  CHECK(x.grad()->to_vector<float>() == F{1, 2});
  CHECK(y.grad()->to_vector<float>() == F{3});
}

TEST_CASE("tensor: assign writes into the buffer, which its views and earlier lazy users see") {
  Tensor a = Tensor::from({1.f, 2.f, 3.f, 4.f}, {2, 2});
  Tensor v = a.reshape({4});           // a view of a's buffer
  Tensor lazy = a * 2;                  // built before the assign
  a.assign(a + 1);
  test::check_close(a.to_vector<float>(), std::vector<float>{2, 3, 4, 5});
  test::check_close(v.to_vector<float>(), std::vector<float>{2, 3, 4, 5});
  test::check_close(lazy.to_vector<float>(), std::vector<float>{4, 6, 8, 10});
  a.assign(Tensor::from({7.f, 8.f}));   // broadcast along the first axis
  CHECK(a.to_vector<float>() == std::vector<float>{7, 8, 7, 8});
  a.assign(0);
  CHECK(a.to_vector<float>() == std::vector<float>{0, 0, 0, 0});
  Tensor b = Tensor::ones({3}) * 2;     // unrealized: realized into a buffer
  b.assign(Tensor::from({1.f, 2.f, 3.f}));
  CHECK(b.to_vector<float>() == std::vector<float>{1, 2, 3});
  CHECK_THROWS_WITH(a.assign(Tensor::ones({3})), Catch::Contains("assign") && Catch::Contains("(2, 2)"));
  CHECK_THROWS_WITH(a.assign(Tensor::ones({2, 2}, dtypes::int32)), Catch::Contains("dtype mismatch"));
}

TEST_CASE("tensor: assign and setitem write through a view into the buffer it views") {
  Tensor a = Tensor::from({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  a.T().assign(Tensor::from({10.f, 20.f, 30.f, 40.f, 50.f, 60.f}, {3, 2}));
  CHECK(a.to_vector<float>() == F{10, 30, 50, 20, 40, 60});
  a[0].assign(Tensor::from({7.f, 8.f, 9.f}));
  CHECK(a.to_vector<float>() == F{7, 8, 9, 20, 40, 60});
  Tensor row = a[1];
  row.setitem({slice(0, 2)}, 0.f);  // tinygrad: row = a[1]; row[0:2] = 0 writes into a
  CHECK(a.to_vector<float>() == F{7, 8, 9, 0, 0, 60});
  CHECK(row.to_vector<float>() == F{0, 0, 60});
  a.flip({1}).getitem({slice(), slice(0, 2)}).assign(Tensor::from({1.f, 2.f}));  // columns 2 and 1, reversed
  CHECK(a.to_vector<float>() == F{7, 2, 1, 0, 2, 1});
  CHECK_THROWS_WITH(a.pad({std::pair{1, 0}, std::nullopt}).assign(1.f), Catch::Contains("padded view") && Catch::Contains("(3, 3)"));
}

TEST_CASE("tensor: contiguous, contiguous_backward and to(device) keep the values and pass gradients") {
  Tensor x = Tensor::from({1.0, -2.0, 3.0});
  CHECK(x.contiguous().uop().op() == Ops::CONTIGUOUS);
  CHECK((x.reshape({3, 1}).T().contiguous() * 2).to_vector<float>() == F{2, -4, 6});
  Tensor y = x.to("CPU:1");
  CHECK(y.device() == "CPU:1");
  CHECK(y.uop().op() == Ops::COPY);
  CHECK(x.to(x.device()).uop() == x.uop());  // no copy to its own device (DEV may be INTERP)
  CHECK(y.to_vector<float>() == F{1, -2, 3});
  mg::test::check_grad([](const std::vector<Tensor>& t) { return (t[0].contiguous() * t[0].contiguous_backward()).to("CPU:1").exp(); },
                       {{{0.5, -0.25, 1.5}, {3}}});
  (x.to("CPU:1") * x.to("CPU:1")).sum().backward();
  CHECK(x.grad()->device() == x.device());
  CHECK(x.grad()->to_vector<float>() == F{2, -4, 6});
}
