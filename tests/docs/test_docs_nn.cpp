// The code shown in docs/nn.md, run and checked, so the documentation stays true.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <metagrad/nn/nn.hpp>

using namespace mg;

namespace {
// docs/nn.md, "A model"
struct Net {
  nn::Linear l1{2, 8}, l2{8, 1};
  Tensor operator()(const Tensor& x) const { return l2(l1(x).relu()); }
  void visit(auto&& f) { f("l1", l1), f("l2", l2); }
};

// docs/nn.md, "Composing"
struct Block {
  nn::Conv2d conv;
  nn::BatchNorm bn;
  Block(std::int64_t cin, std::int64_t cout) : conv(cin, cout, 3, 1, 1, 1, 1, false), bn(cout) {}
  Tensor operator()(const Tensor& x) { return bn(conv(x)).relu(); }  // not const: bn updates its statistics
  void visit(auto&& f) { f("conv", conv), f("bn", bn); }
};
struct ConvNet {
  std::vector<Block> blocks;
  nn::Linear head{8, 10};
  std::optional<nn::Dropout> drop;  // absent: no names, as tinygrad skips None
  ConvNet() { blocks.emplace_back(1, 4), blocks.emplace_back(4, 8); }
  void visit(auto&& f) { f("blocks", blocks), f("head", head), f("drop", drop); }
};
}  // namespace

TEST_CASE("docs: nn.md, a model, its state dict and a training loop", "[docs][nn]") {
  Tensor::manual_seed(0);
  Net net;
  REQUIRE(nn::get_state_dict(net).keys() == std::vector<std::string>{"l1.weight", "l1.bias", "l2.weight", "l2.bias"});
  REQUIRE(nn::get_parameters(net).size() == 4);

  const Tensor x = Tensor::from({0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0}, {4, 2});
  const Tensor y = Tensor::from({0.0, 1.0, 1.0, 0.0}, {4, 1});
  auto opt = nn::Adam(nn::get_parameters(net), {.lr = 0.05});
  Tensor::Train train;  // the optimizer steps only while Tensor::training
  std::vector<float> losses;
  for (int step = 0; step < 30; ++step) {
    opt.zero_grad();
    Tensor loss = (net(x) - y).square().mean();
    losses.push_back(loss.item<float>());  // before step(): the loss is lazy, and step() writes the weights it reads
    loss.backward();
    opt.step();
  }
  INFO("first loss " << losses.front() << ", last " << losses.back());
  REQUIRE(losses.back() < losses.front() / 2);

  // "Saving and loading"
  const std::vector<std::byte> bytes = nn::safe_save_bytes(nn::get_state_dict(net));
  Net other;
  nn::load_state_dict(other, nn::safe_load_bytes(bytes));
  REQUIRE(other(x).to_vector<float>() == net(x).to_vector<float>());
  const auto path = std::filesystem::temp_directory_path() / ("mg_docs_nn_" + std::to_string(std::rand()) + ".safetensors");
  nn::safe_save(nn::get_state_dict(net), path, Json::object({{"epoch", "30"}}));
  Net third;
  nn::load_state_dict(third, nn::safe_load(path));
  REQUIRE(nn::safe_load_metadata(path)["__metadata__"]["epoch"].as_string() == "30");
  std::filesystem::remove(path);
  REQUIRE(third(x).to_vector<float>() == net(x).to_vector<float>());

  REQUIRE_THROWS_WITH(nn::load_state_dict(other, {{"l1.weight", Tensor::zeros({8, 2})}}),
                      "load_state_dict: missing from the state dict: \"l1.bias\", \"l2.weight\", \"l2.bias\"");
}

TEST_CASE("docs: nn.md, composing layers", "[docs][nn]") {
  ConvNet net;
  const std::vector<std::string> keys = nn::get_state_dict(net).keys();
  REQUIRE(keys.size() == 14);
  REQUIRE(keys[0] == "blocks.0.conv.weight");
  REQUIRE(keys[1] == "blocks.0.bn.weight");
  REQUIRE(keys[5] == "blocks.0.bn.running_var");
  REQUIRE(keys[12] == "head.weight");
  REQUIRE(nn::get_state_dict(net.blocks[1], "blocks.1").keys()[0] == "blocks.1.conv.weight");
  Tensor h = Tensor::ones({1, 1, 4, 4});
  for (Block& b : net.blocks) h = b(h);  // eval: normalized by the running statistics
  REQUIRE(h.shape() == Shape{1, 8, 4, 4});
  REQUIRE(net.head(h.mean({2, 3})).shape() == Shape{1, 10});
}
