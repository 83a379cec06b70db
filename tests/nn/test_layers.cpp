// Layers: tinygrad's initial values for the same seed, and outputs for explicit weights, against the
// values tinygrad prints; BatchNorm's running statistics in training and eval; gradients through layers.
#include <catch2/catch.hpp>

#include <vector>

#include <metagrad/nn/layers.hpp>

#include "../tensor/check.hpp"

using namespace mg;
using mg::test::check_close;
using V = std::vector<double>;

namespace {
Tensor seq(std::int64_t n, double step, double start, Shape shape) {  // start, start+step, ... reshaped
  std::vector<double> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(start + step * double(i));
  return Tensor::from(v, std::move(shape));
}
const V x18{0.5, -1.0, 2.0, 1.5, 0.25, -0.5, -1.0, 1.0, 0.75, 0.0, -2.0, 1.0, 3.0, -0.25, 0.5, 1.25, -1.5, 0.0};
Tensor xb() { return Tensor::from(V(x18.begin(), x18.begin() + 16), {2, 2, 2, 2}); }
std::vector<double> first(const Tensor& t, std::size_t n) {
  std::vector<double> v = t.flatten().to_vector<double>();
  return {v.begin(), v.begin() + std::ptrdiff_t(n)};
}
}  // namespace

TEST_CASE("layers: initial weights are tinygrad's for the same seed", "[nn][layers]") {
  Tensor::manual_seed(42);
  nn::Linear lin(3, 2);
  CHECK(lin.weight.shape() == Shape{2, 3});
  check_close(lin.weight.to_vector<float>(), V{-0.13736030459403992, -0.5660625696182251, -0.4470992088317871, -0.4414425790309906, 0.0061912680976092815, -0.14767436683177948});
  check_close(lin.bias->to_vector<float>(), V{0.03888297453522682, -0.14336960017681122});
  CHECK(!nn::Linear(3, 2, false).bias);

  Tensor::manual_seed(1);
  nn::Conv2d conv(2, 2, 3);
  CHECK(conv.weight.shape() == Shape{2, 2, 3, 3});
  check_close(first(conv.weight, 4), V{-0.12310521304607391, -0.18963226675987244, -0.1857813447713852, -0.1987447589635849});
  check_close(conv.bias->to_vector<float>(), V{-0.1226322129368782, -0.21532510221004486});

  Tensor::manual_seed(2);
  nn::ConvTranspose2d convt(2, 3, 2);
  CHECK(convt.weight.shape() == Shape{2, 3, 2, 2});
  check_close(first(convt.weight, 4), V{0.2182643562555313, -0.25426924228668213, 0.11933458596467972, -0.01772637479007244});
  // tinygrad reads its counter when a draw is realized: these are its values realized in the order drawn
  check_close(convt.bias->to_vector<float>(), V{0.24848870933055878, 0.25284120440483093, 0.05717261880636215});

  Tensor::manual_seed(3);
  nn::Embedding emb(4, 3);
  check_close(emb.weight.to_vector<float>(), V{0.022395983338356018, 0.8407711386680603, -0.5129640698432922, -0.8298227787017822, 0.4710100591182709, 0.17976804077625275, -0.10818860679864883, 0.4628063142299652, 0.390572190284729, 0.20498718321323395, 0.44801566004753113, -0.2975861132144928});

  nn::BatchNorm bn(3);
  CHECK(bn.weight->to_vector<float>() == std::vector<float>{1, 1, 1});
  CHECK(bn.running_var->to_vector<float>() == std::vector<float>{1, 1, 1});
  CHECK(bn.num_batches_tracked.dtype() == dtypes::int64);
  CHECK(bn.running_mean->requires_grad() == false);
  CHECK(!nn::BatchNorm(3, 1e-5, false, false).running_mean);
  CHECK(nn::LayerNorm({2, 3}).weight->shape() == Shape{2, 3});
  CHECK(!nn::RMSNorm(4, 1e-6, false).weight);
}

TEST_CASE("layers: convolutions and Linear give tinygrad's outputs", "[nn][layers]") {
  const Tensor x = Tensor::from(x18, {1, 2, 3, 3});
  nn::Conv2d c(2, 4, 2, 1, 1, 1, 2);  // stride 1, padding 1, dilation 1, groups 2
  c.weight = seq(16, 0.1, -0.3, {4, 1, 2, 2}), c.bias = Tensor::from({0.1, -0.2, 0.3, 0.0});
  const Tensor y = c(x);
  CHECK(y.shape() == Shape{1, 4, 4, 4});
  check_close(y.to_vector<float>(), V{0.10000000149011612, 0.05000000074505806, 0.20000000298023224, -0.10000000149011612, 0.0, -7.450580596923828e-09, -0.024999991059303284, -0.45000001788139343, -0.20000001788139343, -0.30000001192092896, 0.02499999850988388, 0.17500001192092896, 0.30000001192092896, 0.20000001788139343, -0.3500000238418579, -0.125, 0.0, -0.44999998807907104, 0.30000001192092896, 0.40000003576278687, 0.5000000596046448, 0.20000000298023224, -0.025000005960464478, -0.15000000596046448, -0.30000001192092896, 0.10000000894069672, 0.3250000476837158, -0.024999991059303284, -0.4000000059604645, -0.10000000149011612, 0.04999999701976776, -0.125, 0.30000001192092896, -1.2999999523162842, -0.2999999523162842, 1.0, 2.700000047683716, 0.9999999403953552, 0.1250000298023224, 1.1500000953674316, 3.1000001430511475, 1.3249998092651367, -0.574999988079071, 0.550000011920929, 1.0500000715255737, 0.02499997615814209, -0.44999998807907104, 0.30000001192092896, 0.0, -2.4000000953674316, -1.0, 1.100000023841858, 3.6000001430511475, 1.0, -0.47499990463256836, 1.4500000476837158, 4.5, 2.0249996185302734, -1.375, 0.44999998807907104, 1.25, -0.3750000298023224, -1.3499999046325684, 0.0}, 1e-6, 1e-5);

  nn::Conv2d same(2, 1, {3, 2}, 1, "same");
  CHECK(same.padding.v == std::vector<std::int64_t>{0, 1, 1, 1});
  same.weight = seq(12, 0.05, 0, {1, 2, 3, 2}), same.bias = Tensor::from({0.5});
  check_close(same(x).to_vector<float>(), V{1.225000023841858, 0.42500004172325134, 1.25, 0.875, 0.06249997019767761, 1.100000023841858, 1.2000001668930054, 0.1875, 0.7250000238418579}, 1e-6, 1e-5);
  CHECK_THROWS_WITH(nn::Conv2d(2, 1, 3, 2, "same"), Catch::Contains("not supported for strided"));
  CHECK_THROWS_WITH(nn::Conv2d(2, 1, 3, 1, "valid"), Catch::Contains("only \"same\""));

  nn::ConvTranspose2d ct(2, 3, 2, 2, 1, 1);  // stride 2, padding 1, output_padding 1
  ct.weight = seq(24, 0.1, -0.5, {2, 3, 2, 2}), ct.bias = Tensor::from({0.0, 1.0, -1.0});
  const Tensor yt = ct(x);
  CHECK(yt.shape() == Shape{1, 3, 5, 5});
  check_close(yt.to_vector<float>(), V{-0.10000000149011612, -1.5, -1.7999999523162842, 0.2999999523162842, 0.6000000238418579, 1.7999999523162842, -0.30000001192092896, -0.30000001192092896, 0.6000000238418579, 0.6000000238418579, 2.700000047683716, -0.30000001192092896, -0.30000001192092896, 0.6000000238418579, 0.6000000238418579, 1.399999976158142, -1.5499999523162842, -1.600000023841858, -0.375, -0.30000001192092896, 1.4500000476837158, -1.649999976158142, -1.7000000476837158, -0.22500000894069672, -0.15000000596046448, 1.100000023841858, -1.6999998092651367, -2.0, 2.5, 2.799999952316284, 4.600000381469727, 0.699999988079071, 0.699999988079071, 1.600000023841858, 1.600000023841858, 5.5, 0.7000000476837158, 0.7000000476837158, 1.5999999046325684, 1.5999999046325684, 2.5, -0.75, -0.8000000715255737, 0.925000011920929, 1.0, 2.549999952316284, -0.8499999046325684, -0.8999999761581421, 1.0750000476837158, 1.149999976158142, -0.699999988079071, -4.900000095367432, -5.199999809265137, 1.7000000476837158, 2.0, 4.400000095367432, -1.2999999523162842, -1.2999999523162842, -0.3999999761581421, -0.3999999761581421, 5.299999713897705, -1.2999999523162842, -1.2999999523162842, -0.3999999761581421, -0.40000003576278687, 0.6000000238418579, -2.950000047683716, -3.0, -0.7749999761581421, -0.699999988079071, 0.6499998569488525, -3.0500001907348633, -3.0999999046325684, -0.625, -0.5499999523162842}, 1e-6, 1e-5);

  nn::Linear lin(3, 2);
  lin.weight = Tensor::from({0.1, 0.2, 0.3, -0.4, 0.5, -0.6}, {2, 3}), lin.bias = Tensor::from({0.01, -0.02});
  check_close(lin(x.reshape({6, 3})).to_vector<float>(), V{0.46000000834465027, -1.9200000762939453, 0.059999994933605194, -0.19500000774860382, 0.33500000834465027, 0.4299999475479126, -0.08999999612569809, -1.6200000047683716, 0.4099999964237213, -1.6449999809265137, -0.16500000655651093, -1.2699999809265137});
}

TEST_CASE("layers: BatchNorm trains its running statistics and normalizes by them in eval", "[nn][layers]") {
  nn::BatchNorm bn(2);
  bn.weight = Tensor::from({1.5, -0.5}), bn.bias = Tensor::from({0.1, 0.2});
  {
    Tensor::Train train;
    check_close(bn(xb()).to_vector<float>(), V{0.29043814539909363, -1.5377681255340576, 2.1186444759368896, 1.509242296218872, 0.3203100860118866, 0.6411370038986206, 0.855021595954895, -0.0005168160423636436, 0.59513920545578, -0.3189639449119568, -2.7565722465515137, 0.899840235710144, -0.8560552597045898, 0.5341947078704834, 0.2133677899837494, -0.10745912045240402}, 1e-5, 1e-5);
    check_close(bn.running_mean->to_vector<float>(), V{0.03437500074505806, 0.05312500149011612});
    check_close(bn.running_var->to_vector<float>(), V{1.0731027126312256, 1.0561383962631226});
    check_close(bn(xb() * 2).to_vector<float>(), V{0.29043862223625183, -1.5377720594406128, 2.1186492443084717, 1.509245753288269, 0.32031041383743286, 0.6411381959915161, 0.8550233840942383, -0.0005173608660697937, 0.5951403975486755, -0.31896495819091797, -2.7565791606903076, 0.8998422026634216, -0.8560581207275391, 0.534195601940155, 0.21336781978607178, -0.10745995491743088}, 1e-5, 1e-5);
    check_close(bn.running_mean->to_vector<float>(), V{0.09968750178813934, 0.15406250953674316});
    check_close(bn.running_var->to_vector<float>(), V{1.658203125, 1.5750781297683716});
    CHECK(bn.num_batches_tracked.item<std::int64_t>() == 2);
  }
  check_close(bn(xb()).to_vector<float>(), V{0.5663051605224609, -1.180974006652832, 2.313584566116333, 1.7311581373214722, 0.16177865862846375, 0.46057742834091187, 0.6597766280174255, -0.13702012598514557, 0.8575184345245361, -0.016121268272399902, -2.345827102661133, 1.1487315893173218, -0.9338169693946838, 0.3609778583049774, 0.06217905879020691, -0.2366197258234024}, 1e-5, 1e-5);
  CHECK(bn.num_batches_tracked.item<std::int64_t>() == 2);  // eval leaves the statistics alone
  check_close(bn.running_mean->to_vector<float>(), V{0.09968750178813934, 0.15406250953674316});

  nn::BatchNorm plain(2, 1e-5, false, false);  // no affine, batch statistics even in eval
  check_close(plain(xb()).to_vector<float>(), V{0.12695877254009247, -1.0918453931808472, 1.3457629680633545, 0.9394949078559875, -0.2406201809644699, -0.8822740316390991, -1.310043215751648, 0.4010336399078369, 0.33009278774261475, -0.27930930256843567, -1.904381513595581, 0.5332268476486206, 2.1121103763580322, -0.6683893799781799, -0.02673557586967945, 0.6149182319641113}, 1e-5, 1e-5);
  CHECK_THROWS_WITH(plain(Tensor::ones({3})), Catch::Contains("at least 2 dims"));
}

TEST_CASE("layers: LayerNorm, GroupNorm, RMSNorm, Embedding and Dropout give tinygrad's outputs", "[nn][layers]") {
  nn::LayerNorm ln({2, 2});
  ln.weight = Tensor::from({1.0, 2.0, 0.5, -1.0}, {2, 2}), ln.bias = Tensor::from({0.0, 0.1, 0.2, 0.3}, {2, 2});
  check_close(ln(xb()).to_vector<float>(), V{-0.21821707487106323, -2.9550390243530273, 0.7455427050590515, -0.35465121269226074, 0.41238945722579956, -1.0546904802322388, -0.4185841679573059, -1.1021242141723633, 0.6899659037590027, 0.20614859461784363, -0.6226516366004944, -0.6022630929946899, 1.5554221868515015, -2.181285858154297, -0.05923701822757721, 0.19630520045757294}, 1e-5, 1e-5);
  CHECK_THROWS_WITH(ln(Tensor::ones({2, 3})), Catch::Contains("(2, 3) must match (2, 2)"));

  nn::GroupNorm gn(2, 4);
  gn.weight = Tensor::from({1.0, 2.0, 0.5, -1.0}), gn.bias = Tensor::from({0.0, 0.1, 0.2, 0.3});
  check_close(gn(xb().reshape({2, 4, 2})).to_vector<float>(), V{-0.21821707487106323, -1.5275194644927979, 2.2821707725524902, 1.4093024730682373, 0.4061947464942932, -0.08867262303829193, 1.537168264389038, -1.1021242141723633, 0.6899659037590027, 0.05307430028915405, -3.1906065940856934, 1.9045262336730957, 0.9777110815048218, -0.37032145261764526, 0.8184740543365479, 0.19630520045757294}, 1e-5, 1e-5);

  nn::RMSNorm rn(4);
  rn.weight = Tensor::from({1.0, 2.0, 0.5, -1.0});
  check_close(rn(xb().reshape({4, 4})).to_vector<float>(), V{0.36514830589294434, -1.4605932235717773, 0.7302966117858887, -1.095444917678833, 0.32879766821861267, -1.3151906728744507, -0.6575953364372253, -1.3151906728744507, 0.6359984874725342, 0.0, -0.8479979634284973, -0.8479979634284973, 1.8194350004196167, -0.3032391667366028, 0.1516195833683014, -0.7580978870391846}, 1e-6, 1e-5);
  const Tensor half = rn(xb().reshape({4, 4}).cast(dtypes::float16));  // normalized in float32, rounded to half
  check_close(half.to_vector<float>(), V{0.365234375, -1.4609375, 0.73046875, -1.095703125, 0.328857421875, -1.3154296875, -0.65771484375, -1.3154296875, 0.63623046875, 0.0, -0.84814453125, -0.84814453125, 1.8193359375, -0.30322265625, 0.151611328125, -0.75830078125}, 0, 0);

  nn::Embedding emb(4, 3);
  emb.weight = seq(12, 0.5, -1, {4, 3});
  const Tensor e = emb(Tensor::from({3, 0, 1, 1}, {2, 2}));
  CHECK(e.shape() == Shape{2, 2, 3});
  check_close(e.to_vector<float>(), V{3.5, 4.0, 4.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 0.5, 1.0, 1.5});
  CHECK_THROWS_WITH(emb(Tensor::from({1.0})), Catch::Contains("integer dtype"));

  nn::Dropout drop(0.5);
  CHECK(drop(xb()).to_vector<float>() == xb().to_vector<float>());  // not training: the identity
  Tensor::manual_seed(5);
  Tensor::Train train;
  check_close(drop(xb()).to_vector<float>(), V{1.0, -2.0, 0.0, 3.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, -4.0, 0.0, 0.0, 0.0, 1.0, 2.5});
}

TEST_CASE("layers: gradients flow through layers to their weights", "[nn][layers]") {
  using mg::test::check_grad;
  const V xv{0.5, -1.0, 2.0, 1.5, 0.25, -0.5}, wv{0.1, 0.2, 0.3, -0.4, 0.5, -0.6};
  check_grad([](const std::vector<Tensor>& t) {
    nn::Linear l(3, 2);
    l.weight = t[1], l.bias = t[2];
    return l(t[0]);
  }, {{xv, {2, 3}}, {wv, {2, 3}}, {{0.1, -0.2}, {2}}});
  check_grad([](const std::vector<Tensor>& t) {
    nn::GroupNorm g(2, 4);
    g.weight = t[1], g.bias = t[2];
    return g(t[0]);
  }, {{V(x18.begin(), x18.begin() + 16), {2, 4, 2}}, {{1.0, 2.0, 0.5, -1.0}, {4}}, {{0.0, 0.1, 0.2, 0.3}, {4}}});
  Tensor::Train train;
  check_grad([](const std::vector<Tensor>& t) {
    nn::BatchNorm bn(2, 1e-5, true, false);
    bn.weight = t[1], bn.bias = t[2];
    return bn(t[0]);
  }, {{V(x18.begin(), x18.begin() + 16), {2, 2, 2, 2}}, {{1.5, -0.5}, {2}}, {{0.1, 0.2}, {2}}});
}

TEST_CASE("nn: Conv1d and ConvTranspose1d are the 2-d layers with a one-dim kernel", "[nn][layers]") {
  // tinygrad: c = nn.Conv1d(2, 3, 3, padding=1); c.weight = Tensor.arange(18.).reshape(3, 2, 3) / 10; c.bias = [0.5, -0.5, 1]
  nn::Conv2d c = nn::Conv1d(2, 3, 3, 1, 1);
  CHECK(c.weight.shape() == Shape{3, 2, 3});
  c.weight = Tensor::arange(18.0).reshape({3, 2, 3}) / 10;
  c.bias = Tensor::from({0.5, -0.5, 1.0});
  const Tensor x = Tensor::arange(10.0).reshape({1, 2, 5}) - 4;
  check_close(c(x).to_vector<float>(), V{0.9, 2.4, 3.9, 5.4, 3.7, -2.5, -0.4, 4.7, 9.8, 7.5, -3.4, -0.7, 8.0, 16.7, 13.8});
  // t = nn.ConvTranspose1d(2, 3, 2, stride=2); t.weight = Tensor.arange(12.).reshape(2, 3, 2) / 10; t.bias = [0, 1, 2]
  nn::ConvTranspose2d t = nn::ConvTranspose1d(2, 3, 2, 2);
  CHECK(t.weight.shape() == Shape{2, 3, 2});
  t.weight = Tensor::arange(12.0).reshape({2, 3, 2}) / 10;
  t.bias = Tensor::from({0.0, 1.0, 2.0});
  CHECK(t(x).shape() == Shape{1, 3, 10});
  check_close(t(x).to_vector<float>(), V{0.6, 0.3, 1.2, 1.1, 1.8, 1.9, 2.4, 2.7, 3.0, 3.5, 1.0, 0.7, 2.0, 1.9, 3.0,
                                         3.1, 4.0, 4.3, 5.0, 5.5, 1.4, 1.1, 2.8, 2.7, 4.2, 4.3, 5.6, 5.9, 7.0, 7.5});
}
