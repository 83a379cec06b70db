// State dicts: names as tinygrad's get_state_dict gives them, through nested models, optionals,
// vectors and maps; get_parameters; load_state_dict's writes and every refusal; a safetensors round trip.
#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <metagrad/nn/layers.hpp>
#include <metagrad/nn/safetensors.hpp>
#include <metagrad/nn/state.hpp>

#include "../tensor/check.hpp"

using namespace mg;
using Names = std::vector<std::string>;

namespace {
struct Block {
  nn::Linear fc{2, 2};
  nn::LayerNorm norm{2};
  void visit(auto&& f) { f("fc", fc), f("norm", norm); }
};
struct Net {
  nn::Linear l1{3, 2}, l2{2, 1, false};
  nn::BatchNorm bn{2};
  std::vector<Block> blocks = std::vector<Block>(2);
  std::optional<nn::Linear> head;  // empty: no names
  std::map<std::string, Tensor> extra{{"b", Tensor::zeros({1}).realize()}, {"a", Tensor::ones({2}).realize()}};
  Tensor scale = Tensor::from({2.0});
  void visit(auto&& f) { f("l1", l1), f("l2", l2), f("bn", bn), f("blocks", blocks), f("head", head), f("extra", extra), f("scale", scale); }
};
struct Tied {  // one tensor under two names
  nn::Linear a{2, 2};
  void visit(auto&& f) { f("a", a), f("tied", a.weight); }
};
std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }
}  // namespace

TEST_CASE("state: get_state_dict names tensors by their path, in visit order", "[nn][state]") {
  Net net;
  const nn::StateDict sd = nn::get_state_dict(net);
  CHECK(sd.keys() == Names{"l1.weight", "l1.bias", "l2.weight", "bn.weight", "bn.bias", "bn.num_batches_tracked", "bn.running_mean",
                           "bn.running_var", "blocks.0.fc.weight", "blocks.0.fc.bias", "blocks.0.norm.weight", "blocks.0.norm.bias",
                           "blocks.1.fc.weight", "blocks.1.fc.bias", "blocks.1.norm.weight", "blocks.1.norm.bias", "extra.a", "extra.b",
                           "scale"});
  CHECK(sd.at("l1.weight").shape() == Shape{2, 3});
  CHECK(nn::get_state_dict(net.l1, "enc").keys() == Names{"enc.weight", "enc.bias"});
  CHECK(nn::get_state_dict(net.l1, "enc.").keys() == Names{"enc.weight", "enc.bias"});
  net.head.emplace(2, 4);
  CHECK(nn::get_state_dict(net).contains("head.weight"));
  CHECK_THROWS_WITH(sd.at("nope"), Catch::Contains("no tensor named \"nope\""));

  // the dict holds the model's tensors, not copies of their values
  nn::get_state_dict(net).at("scale").assign(Tensor::from({5.0}));
  CHECK(net.scale.item<float>() == 5.0f);
}

TEST_CASE("state: get_parameters lists each tensor once", "[nn][state]") {
  Tied tied;
  CHECK(nn::get_state_dict(tied).size() == 3);
  const std::vector<Tensor> ps = nn::get_parameters(tied);
  REQUIRE(ps.size() == 2);
  CHECK(ps[0].uop() == tied.a.weight.uop());
  Net net;
  CHECK(nn::get_parameters(net).size() == 19);
  // equal initial constants are still separate tensors (separate buffers), so separate gradients
  nn::LayerNorm n1(2), n2(2);
  CHECK(n1.weight->uop() != n2.weight->uop());
}

TEST_CASE("state: load_state_dict writes into the model's tensors", "[nn][state]") {
  Net a, b;
  a.bn.running_mean->assign(Tensor::from({1.0, 2.0}));
  const Tensor b_view = b.l1.weight * 1;  // built before the load: sees the loaded values
  const std::vector<Tensor> written = nn::load_state_dict(b, nn::get_state_dict(a));
  CHECK(written.size() == 19);
  for (const auto& [name, t] : nn::get_state_dict(a)) {
    INFO(name);
    CHECK(nn::get_state_dict(b).at(name).to_vector<double>() == t.to_vector<double>());
  }
  CHECK(values(b_view) == values(a.l1.weight));
  CHECK(b.bn.running_mean->to_vector<float>() == std::vector<float>{1, 2});
  CHECK(b.l1.weight.uop() != a.l1.weight.uop());  // copied, not shared

  // other dtypes are cast to the model's; () and (1,) load into each other
  nn::Linear l(1, 1);
  nn::load_state_dict(l, {{"weight", Tensor::from({0.25}, {1, 1}, dtypes::float64)}, {"bias", Tensor(0.5)}});
  CHECK(l.weight.dtype() == dtypes::float32);
  CHECK(l.weight.item<float>() == 0.25f);
  CHECK(l.bias->shape() == Shape{1});
  CHECK(l.bias->item<float>() == 0.5f);
}

TEST_CASE("state: load_state_dict refuses missing, unexpected and misshapen entries, writing nothing", "[nn][state]") {
  nn::Linear l(2, 3);
  const std::vector<float> before = values(l.weight);
  const Tensor w = Tensor::ones({3, 2}), bias = Tensor::ones({3});
  CHECK_THROWS_WITH(nn::load_state_dict(l, {{"weight", w}}), Catch::Contains("missing from the state dict: \"bias\""));
  CHECK_THROWS_WITH(nn::load_state_dict(l, {{"weight", w}, {"bias", bias}, {"extra", bias}, {"more", bias}}),
                    Catch::Contains("not in the model: \"extra\", \"more\""));
  CHECK_THROWS_WITH(nn::load_state_dict(l, {{"weight", Tensor::ones({2, 3})}, {"bias", bias}}),
                    Catch::Contains("shape mismatch for \"weight\"") && Catch::Contains("the model has (3, 2), the state dict (2, 3)"));
  CHECK(values(l.weight) == before);

  // not strict: missing names keep their values, unexpected ones are ignored; shapes still checked
  CHECK(nn::load_state_dict(l, {{"weight", w}, {"extra", bias}}, false).size() == 1);
  CHECK(values(l.weight) == std::vector<float>(6, 1.0f));
  CHECK_THROWS_WITH(nn::load_state_dict(l, {{"bias", Tensor::ones({4})}}, false), Catch::Contains("shape mismatch for \"bias\""));
}

TEST_CASE("state: a model saved as safetensors loads into another", "[nn][state][safetensors]") {
  Net a, b;
  a.bn.num_batches_tracked.assign(7);
  const std::vector<std::byte> file = nn::safe_save_bytes(nn::get_state_dict(a));
  nn::load_state_dict(b, nn::safe_load_bytes(file));
  CHECK(b.bn.num_batches_tracked.item<std::int64_t>() == 7);
  CHECK(b.bn.num_batches_tracked.dtype() == dtypes::int64);
  CHECK(values(b.blocks[1].fc.weight) == values(a.blocks[1].fc.weight));
  CHECK(values(b.l2.weight) == values(a.l2.weight));
}
