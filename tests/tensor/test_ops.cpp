// Ports of tinygrad's test/backend/test_ops.py for the elementwise, reduction and movement ops:
// forward values are what tinygrad printed for the same inputs (float32, its CPU device, the
// reference commit; the generator lines are in each table's comment), gradients are checked against
// central finite differences in float64 (tests/tensor/check.hpp), and the edge cases test_ops.py
// covers: empty tensors, size-1 dims, negative axes.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <vector>

#include "check.hpp"

using namespace mg;
using mg::test::check_close;
using mg::test::check_grad;

namespace {
using D = std::vector<double>;

// x = Tensor([-2.5, -1.3, -0.3, 0.4, 1.7, 2.9]); print(<op>.tolist())
struct UnaryCase {
  const char* name;
  std::function<Tensor(const Tensor&)> f;
  D want;
  bool differentiable;
};
const D X = {-2.5, -1.3, -0.3, 0.4, 1.7, 2.9};

// a = [[0.5, -1.2, 2.0], [1.5, 0.3, -0.7]], b = [[1.1, 0.4, -0.9], [-2.0, 1.3, 0.6]],
// br = [0.7, -1.5, 2.2] (broadcast as a row), bc = [[1.2], [-0.4]] (as a column)
struct In {
  Tensor a, b, br, bc;
};
struct Case {
  const char* name;
  std::function<Tensor(const In&)> f;
  Shape shape;
  D want;
  bool differentiable;
};
const D A = {0.5, -1.2, 2.0, 1.5, 0.3, -0.7}, B = {1.1, 0.4, -0.9, -2.0, 1.3, 0.6}, BR = {0.7, -1.5, 2.2}, BC = {1.2, -0.4};
#define OP(expr) [](const In& in) { [[maybe_unused]] const auto& [a, b, br, bc] = in; return expr; }
}  // namespace

TEST_CASE("ops: unary ops match tinygrad; their gradients match finite differences", "[ops]") {
  const std::vector<UnaryCase> cases = {
      {"neg", [](const Tensor& x) { return x.neg(); }, {2.5, 1.2999999523162842, 0.30000001192092896, -0.4000000059604645, -1.7000000476837158, -2.9000000953674316}, true},
      {"exp", [](const Tensor& x) { return x.exp(); }, {0.08208499848842621, 0.27253180742263794, 0.740818202495575, 1.491824746131897, 5.473947525024414, 18.174142837524414}, true},
      {"exp2", [](const Tensor& x) { return x.exp2(); }, {0.1767766922712326, 0.4061262011528015, 0.812252402305603, 1.3195079565048218, 3.249009609222412, 7.464264392852783}, true},
      {"log", [](const Tensor& x) { return (x.abs() + 0.1).log(); }, {0.9555113911628723, 0.33647221326828003, -0.9162907004356384, -0.6931471824645996, 0.5877867341041565, 1.0986123085021973}, true},
      {"log2", [](const Tensor& x) { return (x.abs() + 0.1).log2(); }, {1.3785115480422974, 0.48542678356170654, -1.3219280242919922, -1.0, 0.8479970097541809, 1.5849624872207642}, true},
      {"sqrt", [](const Tensor& x) { return (x.abs() + 0.1).sqrt(); }, {1.6124515533447266, 1.1832159757614136, 0.6324555277824402, 0.7071067690849304, 1.341640830039978, 1.7320507764816284}, true},
      {"rsqrt", [](const Tensor& x) { return (x.abs() + 0.1).rsqrt(); }, {0.6201736927032471, 0.8451542258262634, 1.5811388492584229, 1.4142135381698608, 0.7453559637069702, 0.5773502588272095}, true},
      {"sin", [](const Tensor& x) { return x.sin(); }, {-0.5984721779823303, -0.9635581374168396, -0.29552021622657776, 0.3894183337688446, 0.9916647672653198, 0.2392493337392807}, true},
      {"cos", [](const Tensor& x) { return x.cos(); }, {-0.8011436462402344, 0.26749902963638306, 0.9553365111351013, 0.9210609793663025, -0.1288444995880127, -0.9709581732749939}, true},
      {"tan", [](const Tensor& x) { return x.tan(); }, {0.7470223307609558, -3.602099657058716, -0.30933624505996704, 0.4227932095527649, -7.696601390838623, -0.24640539288520813}, true},
      {"abs", [](const Tensor& x) { return x.abs(); }, {2.5, 1.2999999523162842, 0.30000001192092896, 0.4000000059604645, 1.7000000476837158, 2.9000000953674316}, true},
      {"sign", [](const Tensor& x) { return x.sign(); }, {-1.0, -1.0, -1.0, 1.0, 1.0, 1.0}, false},
      {"reciprocal", [](const Tensor& x) { return x.reciprocal(); }, {-0.4000000059604645, -0.7692307829856873, -3.3333332538604736, 2.5, 0.5882352590560913, 0.3448275625705719}, true},
      {"square", [](const Tensor& x) { return x.square(); }, {6.25, 1.6899998188018799, 0.09000000357627869, 0.1600000113248825, 2.890000104904175, 8.410000801086426}, true},
      {"trunc", [](const Tensor& x) { return x.trunc(); }, {-2.0, -1.0, -0.0, 0.0, 1.0, 2.0}, false},
      {"floor", [](const Tensor& x) { return x.floor(); }, {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0}, false},
      {"ceil", [](const Tensor& x) { return x.ceil(); }, {-2.0, -1.0, -0.0, 1.0, 2.0, 3.0}, false},
      {"round", [](const Tensor& x) { return (x * 2).round(); }, {-5.0, -3.0, -1.0, 1.0, 3.0, 6.0}, false},
      {"relu", [](const Tensor& x) { return x.relu(); }, {0.0, 0.0, 0.0, 0.4000000059604645, 1.7000000476837158, 2.9000000953674316}, true},
      {"leaky_relu", [](const Tensor& x) { return x.leaky_relu(0.2); }, {-0.5, -0.25999999046325684, -0.06000000238418579, 0.4000000059604645, 1.7000000476837158, 2.9000000953674316}, true},
      {"sigmoid", [](const Tensor& x) { return x.sigmoid(); }, {0.07585817575454712, 0.21416503190994263, 0.4255574941635132, 0.5986876487731934, 0.8455348014831543, 0.9478464722633362}, true},
      {"tanh", [](const Tensor& x) { return x.tanh(); }, {-0.9866142868995667, -0.8617231249809265, -0.291312575340271, 0.3799489736557007, 0.9354091882705688, 0.9939631223678589}, true},
      {"gelu", [](const Tensor& x) { return x.gelu(); }, {-0.015084268525242805, -0.1260709911584854, -0.11462908238172531, 0.26216116547584534, 1.6241059303283691, 2.895033597946167}, true},
      {"quick_gelu", [](const Tensor& x) { return x.quick_gelu(); }, {-0.034986160695552826, -0.128212109208107, -0.11251586675643921, 0.265566885471344, 1.6107826232910156, 2.8793129920959473}, true},
      {"silu", [](const Tensor& x) { return x.silu(); }, {-0.189645454287529, -0.2784145474433899, -0.12766724824905396, 0.2394750714302063, 1.4374091625213623, 2.7487547397613525}, true},
      {"elu", [](const Tensor& x) { return x.elu(0.7); }, {-0.642540454864502, -0.5092277526855469, -0.1814272552728653, 0.4000000059604645, 1.7000000476837158, 2.9000000953674316}, true},
      {"celu", [](const Tensor& x) { return x.celu(1.3); }, {-1.1099964380264282, -0.8217566609382629, -0.2679005265235901, 0.4000000059604645, 1.7000000476837158, 2.9000000953674316}, true},
      {"selu", [](const Tensor& x) { return x.selu(); }, {-1.6137809753417969, -1.2789576053619385, -0.4556660056114197, 0.42027997970581055, 1.7861899137496948, 3.047029972076416}, true},
      {"softplus", [](const Tensor& x) { return x.softplus(2.0); }, {0.0033576744608581066, 0.03582235053181648, 0.21874399483203888, 0.5855503082275391, 1.716414213180542, 2.9015116691589355}, true},
      {"mish", [](const Tensor& x) { return x.mish(); }, {-0.1968163251876831, -0.3073824644088745, -0.15113317966461182, 0.289030522108078, 1.6207680702209473, 2.8842668533325195}, true},
      {"hardsigmoid", [](const Tensor& x) { return x.hardsigmoid(); }, {0.08333331346511841, 0.28333333134651184, 0.44999998807907104, 0.5666666626930237, 0.7833333611488342, 0.9833333492279053}, true},
      {"hardtanh", [](const Tensor& x) { return x.hardtanh(-2.0, 2.0); }, {-2.0, -1.2999999523162842, -0.30000001192092896, 0.4000000059604645, 1.7000000476837158, 2.0}, true},
      {"relu6", [](const Tensor& x) { return (x * 3).relu6(); }, {0.0, 0.0, 0.0, 1.2000000476837158, 5.100000381469727, 6.0}, true},
      {"hardswish", [](const Tensor& x) { return x.hardswish(); }, {-0.2083333432674408, -0.3683333396911621, -0.13500002026557922, 0.2266666740179062, 1.3316667079925537, 2.8516669273376465}, true},
      {"softsign", [](const Tensor& x) { return x.softsign(); }, {-0.7142857313156128, -0.5652173757553101, -0.23076924681663513, 0.2857142984867096, 0.6296296119689941, 0.7435897588729858}, true},
      {"logsigmoid", [](const Tensor& x) { return x.logsigmoid(); }, {-2.578889846801758, -1.5410083532333374, -0.8543552756309509, -0.5130152106285095, -0.16778597235679626, -0.05356275290250778}, true},
      {"clip", [](const Tensor& x) { return x.clip(-1.0, 2.0); }, {-1.0, -1.0, -0.30000001192092896, 0.4000000059604645, 1.7000000476837158, 2.0}, true},
      {"pow_c", [](const Tensor& x) { return (x.abs() + 0.1).pow(1.7); }, {5.075217247009277, 1.7718119621276855, 0.21062114834785461, 0.30778607726097107, 2.716209888458252, 6.473008155822754}, true},
      {"rpow", [](const Tensor& x) { return Tensor(ConstType(2.0), x.dtype()).pow(x); }, {0.1767766922712326, 0.4061262011528015, 0.812252402305603, 1.3195079565048218, 3.249009609222412, 7.464264392852783}, true},
  };
  for (const UnaryCase& c : cases) {
    INFO(c.name);
    check_close(c.f(Tensor::from(X, {}, dtypes::float32)).to_vector<float>(), c.want, 1e-5, 1e-5);
    if (c.differentiable) check_grad([&](const std::vector<Tensor>& t) { return c.f(t[0]); }, {{X, {6}}});
  }
}

TEST_CASE("ops: binary ops with broadcasting, reductions and movement match tinygrad and finite differences", "[ops]") {
  const std::vector<Case> cases = {
      {"add", OP(a + b), Shape{2, 3}, {1.600000023841858, -0.8000000715255737, 1.100000023841858, -0.5, 1.5999999046325684, -0.09999996423721313}, true},
      {"sub", OP(a - b), Shape{2, 3}, {-0.6000000238418579, -1.600000023841858, 2.9000000953674316, 3.5, -0.9999999403953552, -1.2999999523162842}, true},
      {"mul", OP(a * b), Shape{2, 3}, {0.550000011920929, -0.48000001907348633, -1.7999999523162842, -3.0, 0.39000001549720764, -0.42000001668930054}, true},
      {"div", OP(a / b), Shape{2, 3}, {0.45454543828964233, -3.0, -2.222222328186035, -0.75, 0.23076924681663513, -1.1666666269302368}, true},
      {"max", OP(a.maximum(b)), Shape{2, 3}, {1.100000023841858, 0.4000000059604645, 2.0, 1.5, 1.2999999523162842, 0.6000000238418579}, true},
      {"min", OP(a.minimum(b)), Shape{2, 3}, {0.5, -1.2000000476837158, -0.8999999761581421, -2.0, 0.30000001192092896, -0.699999988079071}, true},
      {"add_row", OP(a + br), Shape{2, 3}, {1.2000000476837158, -2.700000047683716, 4.199999809265137, 2.200000047683716, -1.2000000476837158, 1.5}, true},
      {"mul_col", OP(a * bc), Shape{2, 3}, {0.6000000238418579, -1.440000057220459, 2.4000000953674316, -0.6000000238418579, -0.12000000476837158, 0.2800000011920929}, true},
      {"div_row", OP(a / br), Shape{2, 3}, {0.7142857313156128, 0.800000011920929, 0.9090908765792847, 2.142857074737549, -0.20000000298023224, -0.3181818127632141}, true},
      {"sub_rev_col", OP(bc - a), Shape{2, 3}, {0.7000000476837158, 2.4000000953674316, -0.7999999523162842, -1.899999976158142, -0.7000000476837158, 0.29999998211860657}, true},
      {"pow", OP((a.abs() + 0.2).pow(b)), Shape{2, 3}, {0.6754727363586426, 1.144066333770752, 0.49183517694473267, 0.34602072834968567, 0.4061262011528015, 0.9387403726577759}, true},
      {"lerp", OP(a.lerp(b, 0.3)), Shape{2, 3}, {0.6800000071525574, -0.7200000286102295, 1.1299999952316284, 0.44999995827674866, 0.6000000238418579, -0.3099999725818634}, true},
      {"lerp_t", OP(a.lerp(b, br.sigmoid())), Shape{2, 3}, {0.9009126424789429, -0.9081192016601562, -0.6107237339019775, -0.8386571407318115, 0.4824255108833313, 0.4703243374824524}, true},
      {"logaddexp", OP(a.logaddexp(b)), Shape{2, 3}, {1.5374879837036133, 0.5839007496833801, 2.053562641143799, 1.5297504663467407, 1.6132616996765137, 0.8410084247589111}, true},
      {"where", OP((a > b).where(a, b * 2)), Shape{2, 3}, {2.200000047683716, 0.800000011920929, 2.0, 1.5, 2.5999999046325684, 1.2000000476837158}, false},
      {"sum", OP(a.sum()), Shape{}, {2.3999998569488525}, true},
      {"sum0", OP(a.sum(0)), Shape{3}, {2.0, -0.9000000357627869, 1.2999999523162842}, true},
      {"sum_neg1_keep", OP(a.sum(-1, true)), Shape{2, 1}, {1.2999999523162842, 1.0999999046325684}, true},
      {"prod1", OP(a.prod(1)), Shape{2}, {-1.2000000476837158, -0.3149999976158142}, true},
      {"max0", OP(a.max(0)), Shape{3}, {1.5, 0.30000001192092896, 2.0}, true},
      {"min_neg1", OP(a.min(-1)), Shape{2}, {-1.2000000476837158, -0.699999988079071}, true},
      {"mean", OP(a.mean()), Shape{}, {0.3999999761581421}, true},
      {"mean0", OP(a.mean(0, true)), Shape{1, 3}, {1.0, -0.45000001788139343, 0.6499999761581421}, true},
      {"var1", OP(a.var(1)), Shape{2}, {2.563333511352539, 1.213333249092102}, true},
      {"var0_c0", OP(a.var(0, false, 0)), Shape{3}, {0.25, 0.5625, 1.8224998712539673}, true},
      {"std", OP(a.std()), Shape{}, {1.2296340465545654}, true},
      {"std1", OP(a.std(-1, true)), Shape{2, 1}, {1.6010414361953735, 1.1015141010284424}, true},
      {"logsumexp1", OP(a.logsumexp(1)), Shape{2}, {2.234196186065674, 1.8450052738189697}, true},
      {"softmax", OP(a.softmax()), Shape{2, 3}, {0.17654205858707428, 0.03225132077932358, 0.7912065982818604, 0.708216667175293, 0.21331074833869934, 0.07847263664007187}, true},
      {"softmax0", OP(a.softmax(0)), Shape{2, 3}, {0.2689414322376251, 0.18242551386356354, 0.9370266199111938, 0.7310585975646973, 0.8175744414329529, 0.06297335773706436}, true},
      {"log_softmax", OP(a.log_softmax(-1)), Shape{2, 3}, {-1.7341961860656738, -3.4341962337493896, -0.23419618606567383, -0.34500524401664734, -1.5450053215026855, -2.5450053215026855}, true},
      {"cumsum1", OP(a.cumsum(1)), Shape{2, 3}, {0.5, -0.7000000476837158, 1.2999999523162842, 1.5, 1.7999999523162842, 1.0999999046325684}, true},
      {"cumsum0", OP(a.cumsum(0)), Shape{2, 3}, {0.5, -1.2000000476837158, 2.0, 2.0, -0.9000000357627869, 1.2999999523162842}, true},
      {"permute", OP(a.reshape({1, 2, 3}).permute({2, 0, 1})), Shape{3, 1, 2}, {0.5, 1.5, -1.2000000476837158, 0.30000001192092896, 2.0, -0.699999988079071}, true},
      {"transpose", OP(a.transpose()), Shape{3, 2}, {0.5, 1.5, -1.2000000476837158, 0.30000001192092896, 2.0, -0.699999988079071}, true},
      {"expand", OP(a.reshape({2, 1, 3}).expand({2, 2, 3})), Shape{2, 2, 3}, {0.5, -1.2000000476837158, 2.0, 0.5, -1.2000000476837158, 2.0, 1.5, 0.30000001192092896, -0.699999988079071, 1.5, 0.30000001192092896, -0.699999988079071}, true},
      {"pad", OP(a.pad({{{1, 0}}, {{0, 2}}})), Shape{3, 5}, {0.0, 0.0, 0.0, 0.0, 0.0, 0.5, -1.2000000476837158, 2.0, 0.0, 0.0, 1.5, 0.30000001192092896, -0.699999988079071, 0.0, 0.0}, true},
      {"shrink", OP(a.shrink({{{0, 2}}, {{1, 3}}})), Shape{2, 2}, {-1.2000000476837158, 2.0, 0.30000001192092896, -0.699999988079071}, true},
      {"flip", OP(a.flip({1})), Shape{2, 3}, {2.0, -1.2000000476837158, 0.5, -0.699999988079071, 0.30000001192092896, 1.5}, true},
      {"flip01", OP(a.flip({0, 1})), Shape{2, 3}, {-0.699999988079071, 0.30000001192092896, 1.5, 2.0, -1.2000000476837158, 0.5}, true},
      {"repeat", OP(a.repeat({2, 1})), Shape{4, 3}, {0.5, -1.2000000476837158, 2.0, 1.5, 0.30000001192092896, -0.699999988079071, 0.5, -1.2000000476837158, 2.0, 1.5, 0.30000001192092896, -0.699999988079071}, true},
      {"cat", OP(a.cat(b, 1)), Shape{2, 6}, {0.5, -1.2000000476837158, 2.0, 1.100000023841858, 0.4000000059604645, -0.8999999761581421, 1.5, 0.30000001192092896, -0.699999988079071, -2.0, 1.2999999523162842, 0.6000000238418579}, true},
      {"stack", OP(Tensor::stack({a, b}, 1)), Shape{2, 2, 3}, {0.5, -1.2000000476837158, 2.0, 1.100000023841858, 0.4000000059604645, -0.8999999761581421, 1.5, 0.30000001192092896, -0.699999988079071, -2.0, 1.2999999523162842, 0.6000000238418579}, true},
      {"matmul", OP(a.matmul(b.T())), Shape{2, 2}, {-1.7300000190734863, -1.3599998950958252, 2.3999998569488525, -3.0299999713897705}, true},
      {"dot_vec", OP(a.dot(br)), Shape{2}, {6.550000190734863, -0.940000057220459}, true},
      {"squeeze", OP(a.reshape({2, 1, 3}).squeeze(1)), Shape{2, 3}, {0.5, -1.2000000476837158, 2.0, 1.5, 0.30000001192092896, -0.699999988079071}, true},
      {"unsqueeze", OP(a.unsqueeze(-1)), Shape{2, 3, 1}, {0.5, -1.2000000476837158, 2.0, 1.5, 0.30000001192092896, -0.699999988079071}, true},
      {"flatten", OP(a.reshape({1, 2, 3}).flatten(1)), Shape{1, 6}, {0.5, -1.2000000476837158, 2.0, 1.5, 0.30000001192092896, -0.699999988079071}, true},
      {"split", OP(a.split({1, 2}, 1)[1] * a.split(1, 1)[0]), Shape{2, 2}, {-0.6000000238418579, 1.0, 0.45000001788139343, -1.0499999523162842}, true},
      {"chunk", OP(a.chunk(2, 0)[1] - a.chunk(3, 1)[2].T().shrink({{0, 1}, std::nullopt}).T()), Shape{2, 3}, {-0.5, -1.7000000476837158, -2.700000047683716, 2.200000047683716, 1.0, 0.0}, true},
      {"unflatten", OP(a.reshape({6}).unflatten(0, {3, 2}).sum(0)), Shape{2}, {2.799999952316284, -0.40000003576278687}, true},
      {"max01", OP(a.max({0, 1})), Shape{}, {2.0}, true},
      {"prod_all", OP((a * b).prod()), Shape{}, {0.23351328074932098}, true},
      {"squeeze_all", OP(a.reshape({1, 2, 1, 3}).squeeze()), Shape{2, 3}, {0.5, -1.2000000476837158, 2.0, 1.5, 0.30000001192092896, -0.699999988079071}, true},
      {"argmax1", OP(a.argmax(1)), Shape{2}, {2.0, 0.0}, false},
      {"argmin0", OP(a.argmin(0)), Shape{3}, {0.0, 0.0, 1.0}, false},
      {"argmax", OP(a.argmax()), Shape{}, {2.0}, false},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const In in{Tensor::from(A, {2, 3}, dtypes::float32), Tensor::from(B, {2, 3}, dtypes::float32),
                Tensor::from(BR, {3}, dtypes::float32), Tensor::from(BC, {2, 1}, dtypes::float32)};
    const Tensor r = c.f(in);
    CHECK(r.shape() == c.shape);
    if (r.dtype().is_float()) check_close(r.to_vector<float>(), c.want, 1e-5, 1e-5);
    else check_close(r.to_vector<std::int64_t>(), c.want, 0, 0);
    if (c.differentiable)
      check_grad([&](const std::vector<Tensor>& t) { return c.f(In{t[0], t[1], t[2], t[3]}); },
                 {{A, {2, 3}}, {B, {2, 3}}, {BR, {3}}, {BC, {2, 1}}});
  }
}

TEST_CASE("ops: empty tensors and size-1 dims, as test_ops.py's zero-shape cases", "[ops]") {
  using F = std::vector<float>;
  const Tensor e = Tensor::zeros({0, 3});
  CHECK(e.sum(0).to_vector<float>() == F{0, 0, 0});
  CHECK(e.prod(0).to_vector<float>() == F{1, 1, 1});
  CHECK(e.sum().item<float>() == 0);
  CHECK(e.mean(1).shape() == Shape{0});
  CHECK(e.max(1).shape() == Shape{0});
  const Tensor z = Tensor::ones({2, 0});
  CHECK(z.sum(1).to_vector<float>() == F{0, 0});
  CHECK(z.max(1).to_vector<float>() == F{-INFINITY, -INFINITY});
  check_close(z.mean(1).to_vector<float>(), F{NAN, NAN});
  CHECK(z.any(1).to_vector<bool>() == std::vector<bool>{false, false});
  CHECK(z.all(1).to_vector<bool>() == std::vector<bool>{true, true});
  CHECK(Tensor::ones({0}).cumsum(0).shape() == Shape{0});
  CHECK((e + Tensor::from({1.f, 2.f, 3.f})).shape() == Shape{0, 3});
  CHECK(e.matmul(Tensor::ones({3, 2})).shape() == Shape{0, 2});
  CHECK(z.matmul(Tensor::ones({0, 3})).to_vector<float>() == F(6, 0));
  const Tensor x = Tensor::from({1.f, 2.f, 3.f}, {1, 3});
  CHECK(x.sum(0).to_vector<float>() == F{1, 2, 3});
  CHECK(x.max(-2).to_vector<float>() == F{1, 2, 3});
  CHECK(x.softmax(0).to_vector<float>() == F{1, 1, 1});
  check_close(x.var(0).to_vector<float>(), F{NAN, NAN, NAN});  // one element, correction 1
  check_grad([](const std::vector<Tensor>& t) { return (t[0].sum(0) * t[0].max(-2)).softmax(); }, {{{1, 2, 3}, {1, 3}}});
}

TEST_CASE("ops: integer division, modulo, bitwise ops and shifts match tinygrad", "[ops]") {
  using I = std::vector<std::int32_t>;
  const Tensor p = Tensor::from({7, -7, 7, -7}), q = Tensor::from({2, 2, -2, -2});
  CHECK(p.idiv(q).to_vector<std::int32_t>() == I{3, -4, -4, 3});
  CHECK((p % q).to_vector<std::int32_t>() == I{1, 1, -1, -1});
  CHECK((Tensor::from({7.5f, -7.5f}) % Tensor::from({2.f, 2.f})).to_vector<float>() == std::vector<float>{1.5f, 0.5f});
  CHECK((Tensor::from({5, 3}) & Tensor::from({3, 6})).to_vector<std::int32_t>() == I{1, 2});
  CHECK((Tensor::from({5, 3}) | 2).to_vector<std::int32_t>() == I{7, 3});
  CHECK((Tensor::from({true, false}) ^ true).to_vector<bool>() == std::vector<bool>{false, true});
  // test_lshift_signed / test_rshift_signed: arithmetic shifts, wrapping in int32
  const Tensor s = Tensor::from({-1, -3, 1, 7, 0, -2147483647 - 1, 2147483647, -1}, {2, 4});
  CHECK((s << 2).to_vector<std::int32_t>() == I{-4, -12, 4, 28, 0, 0, -4, -4});
  CHECK((s << 31).to_vector<std::int32_t>() == I{INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, 0, 0, INT32_MIN, INT32_MIN});
  CHECK((s >> 2).to_vector<std::int32_t>() == I{-1, -1, 0, 1, 0, -536870912, 536870911, -1});
  CHECK((s >> 31).to_vector<std::int32_t>() == I{-1, -1, 0, 0, 0, -1, 0, -1});
  CHECK((Tensor::from({1, 3, 31}, {}, dtypes::uint8) << 2).to_vector<std::int32_t>() == I{4, 12, 124});
  CHECK((~Tensor::from({0, 2, 5, 127}, {}, dtypes::int8)).to_vector<std::int32_t>() == I{-1, -3, -6, -128});
  CHECK((~Tensor::from({0, 2, 5, 255}, {}, dtypes::uint8)).to_vector<std::int32_t>() == I{255, 253, 250, 0});
  CHECK((~Tensor::from({true, false})).to_vector<bool>() == std::vector<bool>{false, true});
  CHECK_THROWS_WITH(Tensor::from({1.f}) << 1, Catch::Contains("SHL") && Catch::Contains("float"));
  CHECK_THROWS_WITH(~Tensor::from({1.f}), Catch::Contains("bitwise_not") && Catch::Contains("float"));
  CHECK_THROWS_WITH(Tensor::from({1.f}) & Tensor::from({1.f}), Catch::Contains("AND") && Catch::Contains("float"));
}

TEST_CASE("ops: tril, triu, isinf, isnan, isfinite and unflatten match tinygrad", "[ops]") {
  using I = std::vector<std::int32_t>;
  const Tensor t = Tensor::from({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {3, 4});
  CHECK(t.triu(-1).to_vector<std::int32_t>() == I{1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12});
  CHECK(t.tril(-1).to_vector<std::int32_t>() == I{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0});
  CHECK(t.triu().to_vector<std::int32_t>() == I{1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12});
  CHECK(t.tril().to_vector<std::int32_t>() == I{1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0});
  CHECK(t.triu(1).to_vector<std::int32_t>() == I{0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12});
  CHECK(t.tril(1).to_vector<std::int32_t>() == I{1, 2, 0, 0, 5, 6, 7, 0, 9, 10, 11, 12});
  CHECK_THROWS_WITH(Tensor::ones({3}).triu(), Catch::Contains("triu") && Catch::Contains("(3,)"));
  check_grad([](const std::vector<Tensor>& x) { return x[0].tril() * x[0].triu(1).exp(); }, {{{0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, 0.9}, {3, 3}}});
  using B = std::vector<bool>;
  const Tensor f = Tensor::from({1.f, INFINITY, 2.f, -INFINITY, NAN});
  CHECK(f.isinf().to_vector<bool>() == B{false, true, false, true, false});
  CHECK(f.isinf(false, true).to_vector<bool>() == B{false, false, false, true, false});
  CHECK(f.isnan().to_vector<bool>() == B{false, false, false, false, true});
  CHECK(f.isfinite().to_vector<bool>() == B{true, false, true, false, false});
  CHECK(Tensor::ones({5, 12, 3}).unflatten(-2, {2, 2, 3, 1, 1}).shape() == Shape{5, 2, 2, 3, 1, 1, 3});
  CHECK(Tensor::ones({3, 4, 1}).unflatten(1, {-1, 2}).shape() == Shape{3, 2, 2, 1});
  CHECK_THROWS_WITH(Tensor::ones({3, 4}).unflatten(1, {3, 2}), Catch::Contains("reshape") && Catch::Contains("(3, 4)"));
}

TEST_CASE("ops: errors name the op and the shapes", "[ops]") {
  const Tensor a = Tensor::ones({2, 3}), b = Tensor::ones({4, 5});
  CHECK_THROWS_WITH(a + b, Catch::Contains("(2, 3)") && Catch::Contains("(4, 5)"));
  CHECK_THROWS_WITH(a.matmul(b), Catch::Contains("(2, 3)") && Catch::Contains("(4, 5)"));
  CHECK_THROWS_WITH(a.reshape({4}), Catch::Contains("reshape") && Catch::Contains("(4,)"));
  CHECK_THROWS_WITH(a.sum(2), Catch::Contains("dim 2"));
  CHECK_THROWS_WITH(a.softmax(-3), Catch::Contains("dim -3"));
  CHECK_THROWS_WITH(a.permute({0, 0}), Catch::Contains("permute"));
  CHECK_THROWS_WITH(a.idiv(a), Catch::Contains("idiv") && Catch::Contains("float"));
}
