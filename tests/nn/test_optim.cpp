// Optimizers: a few steps of each against the values tinygrad prints for the same initial weights and
// data (tinygrad's optimizers work in float32; the reference evaluator can differ in the last bits).
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <metagrad/nn/optim.hpp>
#include <metagrad/nn/state.hpp>

#include "../tensor/check.hpp"

using namespace mg;
using mg::test::check_close;

namespace {
struct Case {
  std::string name;
  std::vector<double> losses, w1, b1, w2;
};
// from tinygrad: x (4, 3) -> relu(x @ w1 + b1) @ w2, mean squared error against y; 3 steps; the loss
// before each step and the weights after the last
const std::vector<Case> cases = {
    {"sgd", {1.9696704149246216, 1.812130331993103, 1.7093055248260498}, {-0.08793720602989197, -0.19445160031318665, 0.26867714524269104, 0.4141216278076172, -0.4373542368412018, 0.502406120300293}, {-0.0752914696931839, -0.1645585149526596}, {0.630394697189331, -0.12138383835554123}},
    {"sgd_momentum_wd", {1.9696704149246216, 1.8114376068115234, 1.6159530878067017}, {-0.25860756635665894, -0.18742868304252625, 0.23864394426345825, 0.42486295104026794, -0.37784838676452637, 0.40491148829460144}, {-0.18897831439971924, -0.22655566036701202}, {0.554655134677887, 0.04530206695199013}},
    {"sgd_nesterov", {1.9696704149246216, 1.699115514755249, 1.5666120052337646}, {-0.29162096977233887, -0.18760696053504944, 0.2347298264503479, 0.43040212988853455, -0.36945968866348267, 0.3874281048774719}, {-0.2110806405544281, -0.2407785952091217}, {0.5458512306213379, 0.1255037635564804}},
    {"sgd_classic", {1.9696704149246216, 1.8114376068115234, 1.6159530878067017}, {-0.25860756635665894, -0.18742868304252625, 0.23864394426345825, 0.42486295104026794, -0.37784838676452637, 0.40491148829460144}, {-0.18897831439971924, -0.22655564546585083}, {0.554655134677887, 0.04530206322669983}},
    {"adam", {1.9696704149246216, 1.9358084201812744, 1.9035749435424805}, {0.07003913819789886, -0.17008717358112335, 0.2700391709804535, 0.4299568235874176, -0.47003915905952454, 0.5700579881668091}, {0.020039137452840805, -0.12994064390659332}, {0.67011559009552, -0.2700672447681427}},
    {"adamw", {1.9696704149246216, 1.9349217414855957, 1.9019360542297363}, {0.06977137923240662, -0.16952265799045563, 0.2691720128059387, 0.4287274181842804, -0.46857258677482605, 0.5682917833328247}, {0.019921228289604187, -0.1296088546514511}, {0.6680504679679871, -0.2692004144191742}},
    {"lamb", {1.9696704149246216, 1.957067847251892, 1.9447836875915527}, {0.08839227259159088, -0.18838980793952942, 0.28836917877197266, 0.4115479588508606, -0.4883459210395813, 0.5883383750915527}, {0.04761839658021927, -0.10237714648246765}, {0.6839645504951477, -0.2840234339237213}},
    {"lars", {1.9696704149246216, 1.969517707824707, 1.9692277908325195}, {0.09956695884466171, -0.19998236000537872, 0.29992783069610596, 0.4000357389450073, -0.4998556077480316, 0.5997332334518433}, {0.04994659125804901, -0.10003288835287094}, {0.699810802936554, -0.2996169626712799}},
};
nn::LARS make_sgd(const std::vector<Tensor>& p, const std::string& name) {
  if (name == "sgd") return nn::SGD(p, {.lr = 0.1});
  if (name == "sgd_momentum_wd") return nn::SGD(p, {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01});
  if (name == "sgd_nesterov") return nn::SGD(p, {.lr = 0.1, .momentum = 0.9, .nesterov = true});
  if (name == "sgd_classic") return nn::SGD(p, {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01, .classic = true});
  return nn::LARS(p, {.lr = 0.1});
}
nn::LAMB make_lamb(const std::vector<Tensor>& p, const std::string& name) {
  if (name == "adam") return nn::Adam(p, {.lr = 0.01});
  if (name == "adamw") return nn::AdamW(p, {.lr = 0.01, .weight_decay = 0.1});
  return nn::LAMB(p, {.lr = 0.01, .weight_decay = 0.01});
}
}  // namespace

TEST_CASE("optim: SGD, LARS, Adam, AdamW and LAMB step as tinygrad's do", "[nn][optim]") {
  const Tensor x = Tensor::from({0.5, -1.0, 2.0, 1.5, 0.25, -0.5, -1.0, 1.0, 0.75, 0.0, -2.0, 1.0}, {4, 3});
  const Tensor y = Tensor::from({1.0, -1.0, 0.5, 2.0}, {4, 1});
  Tensor::Train train;
  for (const Case& c : cases) {
    INFO(c.name);
    Tensor w1 = Tensor::from({0.1, -0.2, 0.3, 0.4, -0.5, 0.6}, {3, 2}), b1 = Tensor::from({0.05, -0.1}),
           w2 = Tensor::from({0.7, -0.3}, {2, 1});
    const std::vector<Tensor> params{w1, b1, w2};
    std::unique_ptr<nn::Optimizer> opt;
    if (c.name.starts_with("sgd") || c.name == "lars") opt = std::make_unique<nn::LARS>(make_sgd(params, c.name));
    else opt = std::make_unique<nn::LAMB>(make_lamb(params, c.name));
    std::vector<double> losses;
    for (int i = 0; i < 3; ++i) {
      opt->zero_grad();
      Tensor loss = ((x.matmul(w1) + b1).relu().matmul(w2) - y).square().mean();
      losses.push_back(loss.item<float>());
      loss.backward();
      opt->step();
    }
    check_close(losses, c.losses, 1e-6, 1e-6);
    check_close(w1.to_vector<float>(), c.w1, 1e-6, 1e-6);
    check_close(b1.to_vector<float>(), c.b1, 1e-6, 1e-6);
    check_close(w2.to_vector<float>(), c.w2, 1e-6, 1e-6);
  }
}

TEST_CASE("optim: the learning rate is a shared tensor; float64 and scalar parameters", "[nn][optim]") {
  Tensor::Train train;
  {  // tinygrad: Adam(lr=0.1), opt.lr.assign(Tensor([0.01])) before the third step
    Tensor w = Tensor::from({1.0, -2.0, 0.5});
    const Tensor x = Tensor::from({0.5, 1.5, -1.0});
    auto opt = nn::Adam({w}, {.lr = 0.1});
    for (int i = 0; i < 3; ++i) {
      if (i == 2) opt.lr.assign(Tensor::from({0.01}));
      opt.zero_grad();
      ((w * x).sum() - 1.0).square().backward();
      opt.step();
    }
    // a few float32 ulps: INTERP rounds each op where a compiled backend fuses some
    check_close(w.to_vector<float>(), std::vector<double>{1.2096415758132935, -1.7903584241867065, 0.29035842418670654}, 1e-6, 5e-6);
  }
  {  // a tensor given as the rate is the one the optimizer reads
    Tensor w = Tensor::from({1.0, 2.0}), rate = Tensor::from({0.5});
    auto opt = nn::SGD({w}, {.lr = rate});
    rate.assign(Tensor::from({0.25}));
    w.sum().backward();
    opt.step();
    CHECK(w.to_vector<float>() == std::vector<float>{0.75f, 1.75f});
  }
  {  // tinygrad: float64 [2.0], SGD(lr=0.1), loss 3 s^2, two steps
    Tensor s = Tensor::from({2.0}, {1}, dtypes::float64);
    auto opt = nn::SGD({s});
    opt.lr.assign(Tensor::from({0.1}));
    for (int i = 0; i < 2; ++i) {
      opt.zero_grad();
      (s * s * 3.0).sum().backward();
      opt.step();
    }
    CHECK(s.dtype() == dtypes::float64);
    CHECK(s.item<double>() == 0.3199999856948854);
  }
  {  // a scalar parameter with momentum stays scalar (float32 momentum buffers, as tinygrad's)
    Tensor s = Tensor::from({2.0}, {1}).reshape({}).realize();
    auto opt = nn::SGD({s}, {.lr = 0.5, .momentum = 0.5});
    for (int i = 0; i < 2; ++i) {
      opt.zero_grad();
      (s * s).backward();
      opt.step();
    }
    CHECK(s.shape() == Shape{});
    CHECK(s.item<float>() == Approx(-1.0));  // b = 4, s = 2 - 0.5*4 = 0; then g = 0, b = 2, s = 0 - 0.5*2 = -1
    CHECK(opt.b[0].shape() == Shape{});
  }
}

TEST_CASE("optim: parameters, zero_grad, and what step refuses", "[nn][optim]") {
  Tensor w = Tensor::from({1.0, 2.0}), frozen = Tensor::from({3.0, 4.0});
  frozen.requires_grad(false);
  auto opt = nn::SGD({w, frozen, w}, {.lr = 1.0});
  CHECK(opt.params.size() == 1);  // w once; frozen is a buffer
  CHECK(opt.buffers.size() == 1);
  CHECK(w.requires_grad() == true);

  CHECK_THROWS_WITH(opt.step(), Catch::Contains("Tensor::training is false"));
  Tensor::Train train;
  CHECK_THROWS_WITH(opt.step(), Catch::Contains("no gradient") && Catch::Contains("(2,)"));
  (w * frozen).sum().backward();
  CHECK(!frozen.grad());
  opt.step();
  CHECK(w.to_vector<float>() == std::vector<float>{-2.0f, -2.0f});
  CHECK(frozen.to_vector<float>() == std::vector<float>{3.0f, 4.0f});
  REQUIRE(w.grad());
  opt.zero_grad();
  CHECK(!w.grad());

  CHECK_THROWS_WITH(nn::SGD({w}, {.lr = -1.0}), Catch::Contains("invalid learning rate"));
  CHECK_THROWS_WITH(nn::SGD({frozen}), Catch::Contains("no parameters"));
  CHECK_THROWS_WITH(nn::SGD({w}, {.lr = Tensor::from({1, 2})}), Catch::Contains("one float"));
  CHECK_THROWS_WITH(nn::SGD({w}, {.momentum = -0.5}), Catch::Contains("invalid momentum"));
  CHECK_THROWS_WITH(nn::LAMB({w}, {.weight_decay = -0.5}), Catch::Contains("invalid weight_decay"));
}

TEST_CASE("optim: an update is computed before any parameter is written", "[nn][optim]") {
  // d/da (a*b) = b and d/db = a: each gradient reads the other parameter, so writing a first would
  // change b's step. One step from (1, 2) at lr 1: (1 - 2, 2 - 1).
  Tensor::Train train;
  Tensor a = Tensor::from({1.0}), b = Tensor::from({2.0});
  auto opt = nn::SGD({a, b}, {.lr = 1.0});
  (a * b).sum().backward();
  opt.step();
  CHECK(a.item<float>() == -1.0f);
  CHECK(b.item<float>() == 1.0f);
}
