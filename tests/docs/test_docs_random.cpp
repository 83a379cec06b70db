// The example in docs/random.md, run and checked, so the documentation stays true.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include <metagrad/tensor/tensor.hpp>

using namespace mg;

TEST_CASE("docs: random.md example", "[docs]") {
  Tensor::manual_seed(42);
  Tensor a = Tensor::rand({5});         // {0.38104248, 0.00977540016, 0.112800717, 0.117699504, 0.505361795}, as tinygrad
  Tensor b = Tensor::rand({5});         // the next draw: other numbers
  Tensor::manual_seed(42);
  Tensor c = Tensor::rand({5});         // a's numbers again
  Tensor w = Tensor::kaiming_uniform({16, 8});   // |w| < (6 / (1 + 0.01^2) / 8) ** 0.5
  Tensor x = Tensor::randn({4, 8});
  std::vector<float> hv;
  {
    Tensor::Train train;                // Tensor::training is true in this scope
    Tensor h = x.dropout(0.25);         // each element zeroed with probability 0.25, the rest / 0.75
    hv = h.to_vector<float>();
  }
  Tensor same = x.dropout(0.25);        // not training: x itself

  REQUIRE(a.to_vector<float>() == std::vector<float>{0.38104248f, 0.00977540016f, 0.112800717f, 0.117699504f, 0.505361795f});
  REQUIRE(b.to_vector<float>() != a.to_vector<float>());
  REQUIRE(c.to_vector<float>() == a.to_vector<float>());
  const double bound = std::pow(6 / (1 + 0.01 * 0.01) / 8, 0.5);
  for (float v : w.to_vector<float>()) REQUIRE(std::fabs(v) < bound);
  const std::vector<float> xv = x.to_vector<float>();
  int zeroed = 0;
  for (std::size_t i = 0; i < xv.size(); ++i) {
    if (hv[i] == 0) ++zeroed;
    else REQUIRE(std::fabs(hv[i] - xv[i] / 0.75f) <= 1e-6f * std::fabs(xv[i]) + 1e-7f);
  }
  REQUIRE(zeroed > 0);
  REQUIRE(zeroed < int(xv.size()));
  REQUIRE_FALSE(Tensor::training);
  REQUIRE(same.uop() == x.uop());
}
