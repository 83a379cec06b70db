// The code shown in docs/nn-ops.md, run and checked, so the documentation stays true.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

#include <metagrad/metagrad.hpp>

using namespace mg;

namespace {
bool close(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  if (got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > tol * (1 + std::fabs(want[i]))) return false;
  return true;
}
}  // namespace

TEST_CASE("docs: nn-ops.md convolutions", "[docs]") {
  Tensor x = Tensor::arange(9).reshape({1, 1, 3, 3});
  Tensor w = Tensor::ones({1, 1, 2, 2});
  CHECK(x.conv2d(w).to_vector<float>() == std::vector<float>{8, 12, 20, 24});
  CHECK(x.conv2d(w, std::nullopt, 1, 2, 1, 1).to_vector<float>() == std::vector<float>{0, 3, 9, 24});
  CHECK(x.conv_transpose2d(w).shape() == Shape{1, 1, 4, 4});
  CHECK(x.conv2d(w, std::nullopt, 1, 1, 1, {1, 0}).shape() == Shape{1, 1, 4, 2});
  CHECK(x.conv2d(w, std::nullopt, 1, 1, 1, {1, 0, 0, 0}).shape() == Shape{1, 1, 2, 3});
}

TEST_CASE("docs: nn-ops.md pools", "[docs]") {
  Tensor p = Tensor::arange(25).reshape({1, 1, 5, 5});
  CHECK(p.max_pool2d().to_vector<int>() == std::vector<int>{6, 8, 16, 18});
  CHECK(p.max_pool2d({2, 2}, {}, 1, 0, true).to_vector<int>() == std::vector<int>{6, 8, 9, 16, 18, 19, 21, 23, 24});
  CHECK(p.avg_pool2d(3, 2).to_vector<float>() == std::vector<float>{6, 8, 16, 18});
  CHECK(p.avg_pool2d({2, 2}, {}, 1, 1, false, false).to_vector<float>() == std::vector<float>{0, 1.5, 3.5, 7.5, 9, 11, 17.5, 19, 21});
}

TEST_CASE("docs: nn-ops.md normalization and attention", "[docs]") {
  CHECK(close(Tensor::from({1.0, 2.0, 3.0, 4.0}).layernorm().to_vector<float>(), {-1.34164f, -0.44721f, 0.44721f, 1.34164f}));
  Tensor q = Tensor::ones({2, 4, 8});
  CHECK(q.scaled_dot_product_attention(q, Tensor::ones({2, 4, 3}), std::nullopt, 0.0, true).shape() == Shape{2, 4, 3});
}

TEST_CASE("docs: nn-ops.md losses", "[docs]") {
  Tensor logits = Tensor::from({-1.0, 2.0, -3.0, 1.0, -2.0, 3.0}, {2, 3});
  CHECK(close({logits.cross_entropy(Tensor::from({1, 2})).item<float>()}, {0.0939152f}));
  CHECK(close(logits.cross_entropy(Tensor::from({1, 2}), Reduction::none).to_vector<float>(), {0.0549852f, 0.132845f}));
  CHECK(close({logits.sparse_categorical_crossentropy(Tensor::from({1, 0}), 0).item<float>()}, {0.0549852f}));
  CHECK(close({Tensor::from({0.1, 0.9, 0.2}).binary_crossentropy(Tensor::from({0, 1, 0})).item<float>()}, {0.144622f}));
  CHECK(close({Tensor::from({-1.0, 2.0, -3.0}).binary_crossentropy_logits(Tensor::from({0, 1, 0})).item<float>()}, {0.162926f}));
}

TEST_CASE("docs: nn-ops.md linear and gradients", "[docs]") {
  Tensor xl = Tensor::from({1.0, 2.0, 3.0, 4.0}, {2, 2});
  Tensor wl = Tensor::from({1.0, 0.0, 1.0, 1.0}, {2, 2}), bl = Tensor::from({0.5, -0.5});
  wl.requires_grad(true), bl.requires_grad(true);
  Tensor out = xl.linear(wl, bl);
  CHECK(out.to_vector<float>() == std::vector<float>{3.5, 1.5, 7.5, 3.5});
  out.sum().backward();
  CHECK(wl.grad()->to_vector<float>() == std::vector<float>{4, 4, 6, 6});
  CHECK(bl.grad()->to_vector<float>() == std::vector<float>{2, 2});

  Tensor img = Tensor::arange(16).reshape({1, 1, 4, 4}).cast(dtypes::float32);
  img.requires_grad(true);
  img.max_pool2d().sum().backward();
  CHECK(img.grad()->to_vector<float>() == std::vector<float>{0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1});
}
