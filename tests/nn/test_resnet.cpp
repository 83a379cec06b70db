// ResNet (nn/models/resnet.hpp): the parameter count and names of tinygrad's ResNet-50, a ResNet-18
// forward on CPU against the reference evaluator, EmptyInit and replace_empty, and the refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <metagrad/nn/layers.hpp>
#include <metagrad/nn/models/resnet.hpp>
#include <metagrad/nn/state.hpp>

#include "../tensor/check.hpp"

using namespace mg;
namespace models = mg::nn::models;

namespace {
// the BUFFER a parameter views
UOp buffer_of(const Tensor& t) { return t.uop().op() == Ops::BUFFER ? t.uop() : t.uop().src(0); }

// every float tensor of the model filled with reproducible values (weights on +-1/sqrt(fan_in), norms'
// scales and variances near 1), written straight into the buffers: the host init of 11M parameters by
// the reference evaluator would take minutes
template <class M>
void fill(M& model) {
  std::mt19937 gen(1234);
  for (const auto& [name, t] : nn::get_state_dict(model)) {
    if (t.dtype() != dtypes::float32) continue;
    const std::int64_t fan_in = t.ndim() > 1 ? t.numel() / t.shape()[0] : 1;
    const bool scale = name.ends_with("running_var") || (t.ndim() == 1 && name.ends_with("weight") && name.find("fc") == std::string::npos);
    std::uniform_real_distribution<float> d = scale ? std::uniform_real_distribution<float>(0.5f, 1.5f)
                                                    : std::uniform_real_distribution<float>(-1.f / std::sqrt(float(fan_in)), 1.f / std::sqrt(float(fan_in)));
    std::vector<float> v(std::size_t(t.numel()));
    for (float& x : v) x = d(gen);
    auto& bytes = host_buffer(buffer_of(t)).bytes;
    REQUIRE(bytes.size() == v.size() * sizeof(float));
    std::memcpy(bytes.data(), v.data(), bytes.size());
  }
}

struct TiedNet {  // one tensor under two names
  nn::Linear a{3, 2};
  nn::BatchNorm bn{2};
  void visit(auto&& f) { f("a", a), f("tied", a.weight), f("bn", bn); }
};

struct MiniResNet {
  nn::Conv2d conv1{3, 8, 7, 2, 3, 1, 1, false};
  nn::BatchNorm bn1{8};
  std::vector<models::BasicBlock> layer1;
  std::vector<models::Bottleneck> layer2;
  nn::Linear fc{16, 5};
  MiniResNet() {
    layer1.emplace_back(8, 8), layer1.emplace_back(8, 12, 2);
    layer2.emplace_back(12, 4, 2, false, 2, 64), layer2.emplace_back(16, 4, 1, true), layer2.emplace_back(16, 4, 2, true);
  }
  Tensor operator()(const Tensor& x) {
    Tensor out = bn1(conv1(x)).relu().pad({1, 1, 1, 1}).max_pool2d({3, 3}, 2);
    for (auto& b : layer1) out = b(out);
    for (auto& b : layer2) out = b(out);
    return fc(out.mean({2, 3}));
  }
  void visit(auto&& f) { f("conv1", conv1), f("bn1", bn1), f("layer1", layer1), f("layer2", layer2), f("fc", fc); }
};

std::int64_t count(const std::vector<Tensor>& ts, bool trainable_only) {
  std::int64_t n = 0;
  for (const Tensor& t : ts)
    if (!trainable_only || t.requires_grad() != false) n += t.numel();
  return n;
}
}  // namespace

TEST_CASE("resnet: ResNet-50 has tinygrad's parameters, names and shapes", "[nn][resnet]") {
  nn::EmptyInit empty;
  auto net = models::ResNet50();
  const std::vector<Tensor> params = nn::get_parameters(net);
  // tinygrad: sum(p.numel() for p in get_parameters(ResNet50())) == 25610205, of which the running
  // statistics (53120) and num_batches_tracked (53) are not trained; torchvision's count is 25557032
  CHECK(count(params, false) == 25610205);
  CHECK(count(params, true) == 25557032);
  const nn::StateDict sd = nn::get_state_dict(net);
  CHECK(sd.size() == 320);  // len(get_state_dict(ResNet50()))
  CHECK(sd.at("conv1.weight").shape() == Shape{64, 3, 7, 7});
  CHECK(sd.at("layer1.0.downsample.0.weight").shape() == Shape{256, 64, 1, 1});
  CHECK(sd.at("layer1.0.downsample.1.running_var").shape() == Shape{256});
  CHECK(sd.at("layer2.0.conv2.weight").shape() == Shape{128, 128, 3, 3});
  CHECK(sd.at("layer4.2.bn3.bias").shape() == Shape{2048});
  CHECK(sd.at("fc.weight").shape() == Shape{1000, 2048});
  CHECK(!sd.contains("layer1.1.downsample.0.weight"));  // stride 1, same width: no shortcut conv
  CHECK(sd.keys().front() == "conv1.weight");
  CHECK(sd.keys().back() == "fc.bias");
  // EmptyInit's parameters are buffers, each its own, holding nothing computed
  CHECK(sd.at("layer1.0.bn1.weight").uop().op() == Ops::BUFFER);
  CHECK(sd.at("layer1.0.bn1.weight").uop() != sd.at("layer1.0.bn2.weight").uop());
  CHECK(sd.at("layer1.0.bn1.running_mean").requires_grad() == false);
  auto r18 = models::ResNet18();
  auto rx50 = models::ResNeXt50_32X4D();
  CHECK(count(nn::get_parameters(r18), true) == 11689512);  // torchvision's ResNet-18
  CHECK(nn::get_state_dict(r18).size() == 122);
  CHECK(count(nn::get_parameters(rx50), true) == 25028904);
  CHECK(rx50.layer1[0].conv2.weight.shape() == Shape{128, 4, 3, 3});  // width 4 * 32 groups, 4 channels per group
}

TEST_CASE("resnet: the forward graph's shapes; features without a classifier", "[nn][resnet]") {
  nn::EmptyInit empty;
  auto net = models::ResNet50();
  CHECK(net(Tensor::empty({2, 3, 64, 64})).shape() == Shape{2, 1000});
  auto backbone = models::ResNet<models::Bottleneck>(50);
  const std::vector<Tensor> f = backbone.features(Tensor::empty({1, 3, 64, 64}));
  REQUIRE(f.size() == 4);
  CHECK(f[0].shape() == Shape{1, 256, 16, 16});
  CHECK(f[3].shape() == Shape{1, 2048, 2, 2});
  CHECK_THROWS_WITH(backbone(Tensor::empty({1, 3, 64, 64})), Catch::Contains("no classifier"));
  CHECK_THROWS_WITH(models::ResNet<models::BasicBlock>(50), Catch::Contains("no ResNet50 of BasicBlock"));
  CHECK_THROWS_WITH(models::BasicBlock(64, 64, 1, false, 32, 4), Catch::Contains("groups=32"));
}

TEST_CASE("resnet: a narrow ResNet's forward on the default device agrees with the reference evaluator", "[nn][resnet]") {
  // the library's blocks at small widths: a BasicBlock with a strided shortcut, a grouped Bottleneck
  // with stride in the 3x3 conv and one with stride in the 1x1, and ResNet's stem and head
  std::optional<MiniResNet> net;
  {
    nn::EmptyInit empty;
    net.emplace();
  }
  fill(*net);
  std::vector<float> img(2 * 3 * 16 * 16);
  for (std::size_t i = 0; i < img.size(); ++i) img[i] = float(std::sin(0.37 * double(i)));
  const Tensor out = (*net)(Tensor::from(img, {2, 3, 16, 16}));
  REQUIRE(out.shape() == Shape{2, 5});
  const std::vector<double> want = reference_eval(out.uop()).to_vector<double>();
  const std::vector<float> got = out.to_vector<float>();
  test::check_close(got, want, 1e-4, 1e-3);
  // not a degenerate model: the logits differ between images and classes
  CHECK(std::fabs(got[0] - got[5]) + std::fabs(got[0] - got[1]) > 1e-3);
}

// the whole of ResNet-18 (11M parameters) on a tiny image; not in the [nn] runs on INTERP, which would
// interpret its large convs
TEST_CASE("resnet: ResNet-18 forward agrees with the reference evaluator", "[resnet]") {
  std::optional<models::ResNet<models::BasicBlock>> net;
  {
    nn::EmptyInit empty;
    net.emplace(models::ResNet18(10));
  }
  fill(*net);
  std::vector<float> img(1 * 3 * 8 * 8);
  for (std::size_t i = 0; i < img.size(); ++i) img[i] = float(std::cos(0.21 * double(i)));
  const Tensor out = (*net)(Tensor::from(img, {1, 3, 8, 8}));
  REQUIRE(out.shape() == Shape{1, 10});
  const std::vector<double> want = reference_eval(out.uop()).to_vector<double>();
  test::check_close(out.to_vector<float>(), want, 1e-4, 1e-3);
}

TEST_CASE("resnet: replace_empty makes every tensor a new empty buffer of its shape", "[nn][resnet][state]") {
  TiedNet m;
  const Tensor old_weight = m.a.weight;
  CHECK(nn::replace_empty(m) == 7);  // weight, bias, bn's five; the tied name is the same tensor
  CHECK(m.a.weight.uop() != old_weight.uop());
  CHECK(buffer_of(m.a.weight).op() == Ops::BUFFER);
  CHECK(m.a.bias->uop().op() == Ops::BUFFER);
  CHECK(m.a.weight.shape() == Shape{2, 3});
  CHECK(m.bn.num_batches_tracked.dtype() == dtypes::int64);
  CHECK(m.bn.running_mean->requires_grad() == false);
  const nn::StateDict sd = nn::get_state_dict(m);
  CHECK(sd.at("tied").uop() == sd.at("a.weight").uop());
  CHECK(old_weight.to_vector<float>() != m.a.weight.to_vector<float>());  // the old one kept its drawn values
}
