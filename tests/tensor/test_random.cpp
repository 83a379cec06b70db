// Tensor's random numbers against tinygrad: every expected list below was printed by tinygrad (CPU
// device, or PYTHON for the dtypes its CPU backend cannot compile) after the same manual_seed and the
// same draws, e.g. `Tensor.manual_seed(42); print(Tensor.rand(5).tolist())`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "check.hpp"

using namespace mg;
using mg::test::check_close;
using Catch::Matchers::Contains;

namespace {
// the values of t, exactly (a float32, float16, bfloat16 or fp8 value converts to double exactly)
void check_exact(const Tensor& t, const std::vector<double>& want) { REQUIRE(t.to_vector<double>() == want); }
// through transcendentals (cos, log, sqrt), which may differ from tinygrad's by an ulp or so
void check_near(const Tensor& t, const std::vector<double>& want) { check_close(t.to_vector<double>(), want, 1e-6, 2e-6); }
// through a*b+c in float32, which tinygrad's CPU backend (clang) contracts to one fma, rounding once,
// where the graph (and the reference evaluator) round after each op: a float32 ulp of the operands apart
void check_fma(const Tensor& t, const std::vector<double>& want) { check_close(t.to_vector<double>(), want, 3e-7, 2.5e-7); }

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}
double var_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / double(v.size() - 1);
}
}  // namespace

TEST_CASE("random: rand gives tinygrad's numbers for a seed and a sequence of draws", "[tensor][random]") {
  Tensor::manual_seed(42);
  const Tensor a = Tensor::rand({5});
  CHECK(a.shape() == Shape{5});
  CHECK(a.dtype() == dtypes::float32);
  check_exact(a, {0.38104248046875, 0.009775400161743164, 0.1128007173538208, 0.1176995038986206, 0.505361795425415});
  check_exact(Tensor::rand({5}), {0.8983525037765503, 0.9685907363891602, 0.5968725681304932, 0.9116909503936768, 0.9868890047073364});
  const Tensor c = Tensor::rand({2, 3});
  CHECK(c.shape() == Shape{2, 3});
  check_exact(c, {0.7045223712921143, 0.9117947816848755, 0.08823657035827637, 0.0228884220123291, 0.03821361064910889,
                  0.11776089668273926});
  // a seed starts the sequence again
  Tensor::manual_seed(42);
  check_exact(Tensor::rand({5}), {0.38104248046875, 0.009775400161743164, 0.1128007173538208, 0.1176995038986206, 0.505361795425415});

  Tensor::manual_seed();  // seed 0
  check_exact(Tensor::rand({7}), {0.14147496223449707, 0.29908227920532227, 0.7123254537582397, 0.9134713411331177, 0.5230762958526611,
                                  0.32905852794647217, 0.21022248268127441});
  Tensor::manual_seed(5);
  check_exact(Tensor::rand({3, 3}), {0.8472254276275635, 0.928307056427002, 0.21572744846343994, 0.7268403768539429, 0.1902865171432495,
                                     0.12473893165588379, 0.8901729583740234, 0.8706414699554443, 0.67893385887146});
  check_exact(Tensor::rand({3}, dtypes::float16), {0.345703125, 0.154296875, 0.5888671875});  // 2 words for 3 halves
  check_exact(Tensor::rand({2}), {0.957424521446228, 0.16046273708343506});
}

TEST_CASE("random: the seed's low 32 bits count; the first draw's size matters", "[tensor][random]") {
  Tensor::manual_seed((std::uint64_t(1) << 32) + 42);
  check_exact(Tensor::rand({3}), {0.5334206819534302, 0.6701551675796509, 0.7630789279937744});
  Tensor::manual_seed(42);  // the same first draw as above, not rand({5})'s first three
  check_exact(Tensor::rand({3}), {0.5334206819534302, 0.6701551675796509, 0.7630789279937744});
}

TEST_CASE("random: rand in float16, float64, bfloat16 and fp8", "[tensor][random]") {
  Tensor::manual_seed(1234);
  const Tensor h = Tensor::rand({5}, dtypes::float16);
  CHECK(h.dtype() == dtypes::float16);
  check_exact(h, {0.9111328125, 0.4453125, 0.3935546875, 0.1904296875, 0.412109375});
  const Tensor d = Tensor::rand({3}, dtypes::float64);
  CHECK(d.dtype() == dtypes::float64);
  check_exact(d, {0.7608171583221373, 0.12859909381982315, 0.23731653601265545});
  check_exact(Tensor::rand({4}), {0.6321903467178345, 0.6349220275878906, 0.8428511619567871, 0.041452646255493164});

  Tensor::manual_seed(11);
  check_exact(Tensor::rand({2, 2}, dtypes::float64), {0.8957858340182916, 0.1959639834549376, 0.25381301736811457, 0.02857886015626976});
  check_exact(Tensor::rand({4}, dtypes::float16), {0.244140625, 0.1923828125, 0.345703125, 0.548828125});

  // (tinygrad's CPU backend cannot compile bfloat16 or fp8: these are from its PYTHON device)
  Tensor::manual_seed(1234);
  Tensor::rand({5}, dtypes::float16);
  Tensor::rand({3}, dtypes::float64);
  check_exact(Tensor::rand({3}, dtypes::bfloat16), {0.703125, 0.53125, 0.1640625});
  // fp8: INTERP converts natively, the CPU device emulates them in float32 (each device has its own
  // counter, so the numbers are the same)
  for (const char* dev : {"INTERP", "CPU"}) {
    INFO(dev);
    Tensor::manual_seed(3);
    check_exact(Tensor::rand({5}, dtypes::fp8e4m3, dev), {0.875, 0.25, 0.75, 0.875, 0.25});
    Tensor::manual_seed(3);
    check_exact(Tensor::rand({5}, dtypes::fp8e5m2, dev), {0.75, 0.25, 0.75, 0.75, 0.25});
  }
}

TEST_CASE("random: empty and 0-d shapes", "[tensor][random]") {
  Tensor::manual_seed(42);
  const Tensor e = Tensor::rand({0, 3});
  CHECK(e.shape() == Shape{0, 3});
  CHECK(e.to_vector<float>().empty());
  // an empty draw does not advance the counter
  check_exact(Tensor::rand({3}), {0.5334206819534302, 0.6701551675796509, 0.7630789279937744});
  Tensor::manual_seed(42);
  const Tensor s = Tensor::rand({});
  CHECK(s.shape().empty());
  CHECK(s.item<double>() == 0.7548854351043701);
  check_exact(Tensor::rand({2}), {0.9661648273468018, 0.17567729949951172});
}

TEST_CASE("random: each device has its own key and counter, seeded in first-use order", "[tensor][random]") {
  CHECK(detail::sha256_low_word(0) == 0x14b81119u);
  CHECK(detail::sha256_low_word(1) == 0x764f528du);
  CHECK(detail::sha256_low_word(2) == 0xdb12cf1au);
  CHECK(detail::sha256_low_word(7) == 0x28a3a23bu);
  CHECK(detail::sha256_low_word(300) == 0x33604079u);

  Tensor::manual_seed(42);
  check_exact(Tensor::rand({3}), {0.5334206819534302, 0.6701551675796509, 0.7630789279937744});
  const Tensor other = Tensor::rand({3}, dtypes::float32, "PYTHON");
  CHECK(other.device() == "PYTHON");
  check_exact(other, {0.9978972673416138, 0.678117036819458, 0.6885906457901001});
  check_exact(Tensor::rand({3}), {0.8546478748321533, 0.16020607948303223, 0.7703113555908203});
  // a device seeded first gets the first key, whatever its name
  Tensor::manual_seed(42);
  check_exact(Tensor::rand({3}, dtypes::float32, "PYTHON"), {0.5334206819534302, 0.6701551675796509, 0.7630789279937744});
}

TEST_CASE("random: the counter is 64-bit (tinygrad's carry into the high word)", "[tensor][random]") {
  Tensor::manual_seed(9);
  check_exact(Tensor::rand({1}), {0.12102603912353516});
  // as tinygrad's `Tensor._device_rng_counters['CPU'] = Tensor([0xfffffffe, 0], dtype=dtypes.uint32)`
  auto& state = detail::RngState::get();
  REQUIRE(state.devices.size() == 1);
  state.devices[0].counter = 0xfffffffeu;
  check_exact(Tensor::rand({5}), {0.356601357460022, 0.3268752098083496, 0.21206450462341309, 0.5841900110244751, 0.8032410144805908});
  check_exact(Tensor::rand({3}), {0.9497629404067993, 0.15489530563354492, 0.12388825416564941});
  CHECK(state.devices[0].counter == (std::uint64_t(1) << 32) + 6);
}

TEST_CASE("random: rand is a lazy threefry graph", "[tensor][random]") {
  Tensor::manual_seed(1);
  const Tensor r = Tensor::rand({4, 4});
  const auto topo = r.uop().toposort();
  CHECK(std::count_if(topo.begin(), topo.end(), [](const UOp& u) { return u.op() == Ops::THREEFRY; }) == 2);  // chunk key, words
  // realizing twice gives the same numbers (the graph holds its counter, not the device's)
  CHECK(r.to_vector<float>() == r.to_vector<float>());
  const std::vector<float> first = r.to_vector<float>();
  Tensor::rand({4});
  CHECK(r.to_vector<float>() == first);
}

TEST_CASE("random: randn, normal and kaiming_normal (Box-Muller)", "[tensor][random]") {
  Tensor::manual_seed(42);
  const Tensor n = Tensor::randn({2, 3});
  CHECK(n.shape() == Shape{2, 3});
  CHECK(n.dtype() == dtypes::float32);
  check_near(n, {1.9576417207717896, -0.1859397292137146, 1.6404170989990234, -0.7646574378013611, -0.8694872856140137, -0.43787896633148193});
  const Tensor d = Tensor::randn({4}, dtypes::float64);
  CHECK(d.dtype() == dtypes::float64);
  check_near(d, {-0.3166062533855438, 0.46663418412208557, 1.1858794689178467, -0.30249959230422974});

  Tensor::manual_seed(42);
  const Tensor h = Tensor::randn({3}, dtypes::float16);
  CHECK(h.dtype() == dtypes::float16);
  check_close(h.to_vector<double>(), std::vector<double>{-0.366943359375, 1.1845703125, 0.732421875}, 0, 1e-3);  // a half's ulp
  check_near(Tensor::randn({}), {-0.9492722153663635});

  Tensor::manual_seed(42);
  check_near(Tensor::normal({2, 3}, 10, 2), {13.915283203125, 9.628120422363281, 13.280834197998047, 8.470685005187988, 8.261025428771973,
                                             9.124241828918457});
  Tensor::manual_seed(42);
  check_near(Tensor::normal({3}, -1, 0.5, dtypes::float64), {-1.1835223734378815, -0.4078528881072998, -0.6337840855121613});
  Tensor::manual_seed(42);
  check_near(Tensor::kaiming_normal({2, 3}), {1.598327875137329, -0.15181156992912292, 1.3393280506134033, -0.6243090033531189,
                                              -0.7098979353904724, -0.3575088083744049});
  Tensor::manual_seed(42);
  check_fma(Tensor::glorot_uniform({4}), {0.07322105020284653, 0.3727913200855255, 0.5763770937919617, -0.14885953068733215});
  check_near(Tensor::kaiming_normal({4, 2}, 1.0), {0.3526850938796997, 0.3699677884578705, 0.03002229519188404, 0.7624915838241577,
                                                   0.023813320323824883, -0.15722957253456116, 0.37014827132225037, 0.7978998422622681});
}

TEST_CASE("random: randint, uniform and the uniform initializers", "[tensor][random]") {
  Tensor::manual_seed(42);
  const Tensor i = Tensor::randint({2, 3}, 5, 10);
  CHECK(i.dtype() == dtypes::int32);
  CHECK(i.to_vector<int>() == std::vector<int>{6, 5, 5, 5, 7, 6});
  CHECK(Tensor::randint({6}, -3, 4).to_vector<int>() == std::vector<int>{-2, 1, -3, -3, -1, 3});
  Tensor::manual_seed(42);
  CHECK(Tensor::randint({5}, 0, 256, dtypes::uint8).to_vector<int>() == std::vector<int>{97, 2, 28, 30, 129});
  const Tensor l = Tensor::randint({4}, -1000000, 1000000, dtypes::int64);
  CHECK(l.dtype() == dtypes::int64);
  CHECK(l.to_vector<std::int64_t>() == std::vector<std::int64_t>{741757, 195410, 268985, -396913});

  Tensor::manual_seed(42);
  check_fma(Tensor::uniform({2, 3}, 2, 10), {5.04833984375, 2.0782032012939453, 2.9024057388305664, 2.941596031188965, 6.04289436340332,
                                               4.976881980895996});
  const Tensor u16 = Tensor::uniform({3}, -1, 1, dtypes::float16);
  CHECK(u16.dtype() == dtypes::float16);
  // tinygrad's values after .realize(): its tolist() of the lazy tensor skips the half rounding of
  // cast(half) + low and prints -0.800537109375, which is no half
  check_exact(u16, {-0.80078125, -0.4072265625, -0.03271484375});

  Tensor::manual_seed(42);
  check_fma(Tensor::scaled_uniform({2, 3}), {-0.09712841361761093, -0.40026673674583435, -0.3161469101905823, -0.3121470510959625,
                                               0.004377887584269047, -0.10442154854536057});
  Tensor::manual_seed(42);
  check_fma(Tensor::glorot_uniform({2, 3}), {-0.26062288880348206, -1.0740283727645874, -0.848311185836792, -0.8375784754753113,
                                               0.011747105978429317, -0.28019240498542786});
  Tensor::manual_seed(42);
  check_fma(Tensor::kaiming_uniform({2, 3}), {-0.3364458382129669, -1.3864952325820923, -1.0951101779937744, -1.0812550783157349,
                                                0.015164689160883427, -0.36170876026153564});
  check_fma(Tensor::kaiming_uniform({3, 4}, 0.5),
              {-0.9550716876983643, -0.024164646863937378, 0.3957550823688507, 0.37559136748313904, -0.7701411247253418,
               -0.30158913135528564, 0.37045589089393616, 0.7681865096092224, 0.8562184572219849, -0.8633336424827576,
               -0.38412028551101685, -0.02729456126689911});
}

TEST_CASE("random: uniform is rand scaled and shifted, each op rounded to float32", "[tensor][random]") {
  auto f32 = [](double x) { return double(float(x)); };
  Tensor::manual_seed(8);
  const std::vector<double> r = Tensor::rand({64}).to_vector<double>();
  Tensor::manual_seed(8);
  const std::vector<double> u = Tensor::uniform({64}, -0.3, 2.7).to_vector<double>();
  Tensor::manual_seed(8);
  const std::vector<double> g = Tensor::glorot_uniform({8, 8}).to_vector<double>();
  const double b = std::pow(6.0 / 16, 0.5);  // Python's (6 / (8 + 8)) ** 0.5
  for (std::size_t i = 0; i < r.size(); ++i) {
    INFO("element " << i << ": rand " << r[i]);
    // each op rounded, as the graph says, or a*b+c with the product's rounding left out (an fma, as
    // tinygrad's CPU backend contracts it, or constant terms reassociated): within one float32 rounding
    // of the product and one of the result
    auto either = [&](double got, double scale, double shift) {
      const double unfused = f32(f32(f32(scale) * r[i]) + f32(shift));
      return std::fabs(got - unfused) <= (std::fabs(scale * r[i]) + std::fabs(unfused)) * 0x1p-23;
    };
    CHECK(either(u[i], 2.7 - -0.3, -0.3));
    CHECK(either(g[i], 2 * b, -b));
  }
}

TEST_CASE("random: rand_like and randn_like take the tensor's shape, dtype and device", "[tensor][random]") {
  Tensor::manual_seed(42);
  const Tensor t = Tensor::ones({2, 3});
  const Tensor r = t.rand_like();
  CHECK(r.shape() == Shape{2, 3});
  check_exact(r, {0.38104248046875, 0.009775400161743164, 0.1128007173538208, 0.1176995038986206, 0.505361795425415, 0.3721102476119995});
  check_near(t.randn_like(), {1.368322730064392, -1.945351243019104, -0.8884664177894592, -0.2242501974105835, 0.5276396870613098,
                              -0.7501067519187927});
  const Tensor h = Tensor::ones({2}, dtypes::float16, "PYTHON");
  CHECK(h.rand_like().dtype() == dtypes::float16);
  CHECK(h.rand_like().device() == "PYTHON");
  CHECK(h.randn_like().dtype() == dtypes::float16);
  CHECK(h.randn_like(dtypes::float64).dtype() == dtypes::float64);
  CHECK(h.rand_like(dtypes::float64).dtype() == dtypes::float64);
  CHECK_THROWS_WITH(Tensor::ones({2}, dtypes::int32).rand_like(), Contains("rand") && Contains("int"));
}

TEST_CASE("random: statistics of a larger sample", "[tensor][random]") {
  const std::int64_t n = 4096;
  Tensor::manual_seed(2024);
  const std::vector<double> u = Tensor::rand({n}).to_vector<double>();
  CHECK(*std::min_element(u.begin(), u.end()) >= 0.0);
  CHECK(*std::max_element(u.begin(), u.end()) < 1.0);
  CHECK(std::fabs(mean_of(u) - 0.5) < 0.02);         // about 4 standard errors
  CHECK(std::fabs(var_of(u) - 1.0 / 12) < 0.006);
  const std::vector<double> g = Tensor::randn({n}).to_vector<double>();
  CHECK(std::fabs(mean_of(g)) < 0.07);
  CHECK(std::fabs(var_of(g) - 1.0) < 0.1);
  const double within = double(std::count_if(g.begin(), g.end(), [](double x) { return std::fabs(x) < 1; })) / double(n);
  CHECK(std::fabs(within - 0.6827) < 0.03);
  const std::vector<double> k = Tensor::normal({n}, 3, 0.5, dtypes::float64).to_vector<double>();
  CHECK(std::fabs(mean_of(k) - 3) < 0.035);
  CHECK(std::fabs(std::sqrt(var_of(k)) - 0.5) < 0.025);
  const std::vector<int> ints = Tensor::randint({n}, -2, 3).to_vector<int>();
  for (int v = -2; v < 3; ++v) {
    const auto c = std::count(ints.begin(), ints.end(), v);
    INFO("value " << v << " drawn " << c << " times");
    CHECK(std::fabs(double(c) - double(n) / 5) < 110);  // about 4 standard deviations
  }
  CHECK(std::all_of(ints.begin(), ints.end(), [](int v) { return v >= -2 && v < 3; }));
  // 1000 different float32 values out of 1000 (a repeat would mean the words repeat)
  std::vector<double> s(u.begin(), u.begin() + 1000);
  std::sort(s.begin(), s.end());
  CHECK(std::adjacent_find(s.begin(), s.end()) == s.end());
}

TEST_CASE("random: dropout", "[tensor][random]") {
  REQUIRE_FALSE(Tensor::training);
  Tensor::manual_seed(42);
  const Tensor t = Tensor::randn({2, 2});
  {
    const Tensor::Train train;
    CHECK(Tensor::training);
    check_near(t.dropout(), {1.2451683282852173, 0.3411523103713989, 1.6594185829162598, 0.6134812831878662});
    {
      const Tensor::Train eval(false);
      CHECK_FALSE(Tensor::training);
    }
    CHECK(Tensor::training);
  }
  CHECK_FALSE(Tensor::training);

  const Tensor x = Tensor::arange(12).reshape({3, 4}).cast(dtypes::float32);
  Tensor::manual_seed(7);
  {
    const Tensor::Train train;
    check_close(x.dropout(0.3).to_vector<double>(), std::vector<double>{0.0, 0.0, 0.0, 4.285714149475098, 5.714285850524902, 7.142857551574707,
                                                                        0.0, 10.0, 0.0, 0.0, 0.0, 15.714285850524902}, 0, 1e-7);
    Tensor::manual_seed(3);
    const Tensor f64 = Tensor::from({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3}, dtypes::float64).dropout(0.5);
    CHECK(f64.dtype() == dtypes::float64);
    check_exact(f64, {2.0, 0.0, 6.0, 8.0, 10.0, 12.0});
    Tensor::manual_seed(3);
    const Tensor i = Tensor::from({1, 2, 3, 4, 5, 6}).dropout(0.25);  // ints come out float, as in tinygrad
    CHECK(i.dtype() == dtypes::float32);
    check_close(i.to_vector<double>(), std::vector<double>{1.3333333730697632, 0.0, 4.0, 5.333333492279053, 6.6666669845581055, 8.0}, 0, 1e-7);
    // p = 0 is the identity, p = 1 zeroes everything; neither draws
    Tensor::manual_seed(42);
    CHECK(x.dropout(0).uop() == x.uop());
    const Tensor z = x.dropout(1);
    CHECK(z.dtype() == dtypes::float32);
    CHECK(z.to_vector<float>() == std::vector<float>(12, 0.0f));
    check_exact(Tensor::rand({3}), {0.5334206819534302, 0.6701551675796509, 0.7630789279937744});
  }
  // not training: the identity, and no draw
  Tensor::manual_seed(42);
  CHECK(x.dropout(0.5).uop() == x.uop());
  check_exact(Tensor::rand({3}), {0.5334206819534302, 0.6701551675796509, 0.7630789279937744});

  // statistics: about p of the elements dropped, the others scaled by 1/(1-p)
  Tensor::manual_seed(99);
  const Tensor::Train train;
  const std::vector<float> d = Tensor::ones({4096}).dropout(0.3).to_vector<float>();
  const double dropped = double(std::count(d.begin(), d.end(), 0.0f)) / 4096;
  CHECK(std::fabs(dropped - 0.3) < 0.03);
  CHECK(std::all_of(d.begin(), d.end(), [](float v) { return v == 0.0f || std::fabs(v - 1 / 0.7) < 1e-6; }));
}

TEST_CASE("random: dropout's gradient flows through the kept elements, scaled", "[tensor][random]") {
  const Tensor::Train train;
  // the same seed before each call draws the same mask, so finite differences see one function
  auto f = [](const std::vector<Tensor>& ts) {
    Tensor::manual_seed(17);
    return ts[0].dropout(0.4) * ts[0];
  };
  mg::test::check_grad(f, {{{0.5, -1.25, 2.0, 0.75, -0.3, 1.5, 3.0, -2.0}, {2, 4}}});

  Tensor::manual_seed(17);
  Tensor x = Tensor::from({1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}, {2, 4}, dtypes::float64).requires_grad(true);
  const Tensor y = x.dropout(0.4);
  y.sum().backward();
  const std::vector<double> out = y.to_vector<double>(), g = x.grad()->to_vector<double>();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    INFO("element " << i << ": out " << out[i] << ", grad " << g[i]);
    CHECK(g[i] == (out[i] == 0 ? 0.0 : 1 / 0.6));
    kept += out[i] != 0;
  }
  CHECK(kept > 0);
  CHECK(kept < out.size());  // the seed drops some and keeps some: the check above sees both cases
}

TEST_CASE("random: bad input throws, naming the op and the values", "[tensor][random]") {
  CHECK_THROWS_WITH(Tensor::rand({2, -1}), Contains("rand") && Contains("(2, -1)"));
  CHECK_THROWS_WITH(Tensor::rand({2}, dtypes::int32), Contains("rand") && Contains("int"));
  CHECK_THROWS_WITH(Tensor::rand({2}, dtypes::bool_), Contains("rand") && Contains("bool"));
  CHECK_THROWS_WITH(Tensor::randn({-3}), Contains("randn") && Contains("-3"));
  CHECK_THROWS_WITH(Tensor::randint({-1}), Contains("randint") && Contains("-1"));
  CHECK_THROWS_WITH(Tensor::randint({3}, 5, 5), Contains("randint") && Contains("low=5") && Contains("high=5"));
  CHECK_THROWS_WITH(Tensor::randint({3}, 7, 2), Contains("randint") && Contains("low=7") && Contains("high=2"));
  CHECK_THROWS_WITH(Tensor::randint({3}, 0, 10, dtypes::float32), Contains("randint") && Contains("float"));
  CHECK_THROWS_WITH(Tensor::randint({3}, 0, 10, dtypes::bool_), Contains("randint") && Contains("bool"));
  CHECK_THROWS_WITH(Tensor::uniform({3}, 1, 1), Contains("uniform") && Contains("low=1.0") && Contains("high=1.0"));
  CHECK_THROWS_WITH(Tensor::uniform({-2}), Contains("uniform") && Contains("-2"));
  CHECK_THROWS_WITH(Tensor::normal({3}, 0, -1), Contains("normal") && Contains("std=-1.0"));
  CHECK_THROWS_WITH(Tensor::normal({-3}), Contains("normal") && Contains("-3"));
  CHECK_THROWS_WITH(Tensor::kaiming_uniform({4, 0}), Contains("kaiming_uniform") && Contains("(4, 0)"));
  CHECK_THROWS_WITH(Tensor::kaiming_normal({}), Contains("kaiming_normal") && Contains("()"));
  CHECK_THROWS_WITH(Tensor::glorot_uniform({}), Contains("glorot_uniform") && Contains("()"));
  CHECK_THROWS_WITH(Tensor::glorot_uniform({-1, 2}), Contains("glorot_uniform") && Contains("-1"));
  CHECK_THROWS_WITH(Tensor::scaled_uniform({0, 3}), Contains("scaled_uniform") && Contains("(0, 3)"));
  const Tensor x = Tensor::ones({3});
  CHECK_THROWS_WITH(x.dropout(-0.1), Contains("dropout") && Contains("p=-0.1 "));
  CHECK_THROWS_WITH(x.dropout(1.5), Contains("dropout") && Contains("p=1.5 "));
  CHECK_THROWS_WITH(x.dropout(std::numeric_limits<double>::quiet_NaN()), Contains("dropout") && Contains("nan"));
  CHECK_THROWS_AS(x.dropout(2), Error);
}
