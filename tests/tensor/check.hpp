// Shared checks for the tensor tests: element-wise closeness, and gradients against central
// finite differences (float64, so the differences are accurate).
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

#include <metagrad/tensor/tensor.hpp>

namespace mg::test {

// deterministic test data: n values on a grid of 23 steps of `scale` from `offset`, mixed signs
inline std::vector<float> ramp(std::size_t n, float scale = 0.25f, float offset = -3.0f) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = float(int(i * 7 % 23)) * scale + offset;
  return v;
}

// |got - want| <= atol + rtol * |want| for every element (NaNs must match, infinities must be equal)
template <class T, class U = double>  // want may be a braced list (of doubles)
void check_close(const std::vector<T>& got, const std::vector<U>& want, double atol = 1e-6, double rtol = 1e-5) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = double(got[i]), w = double(want[i]);
    INFO("element " << i << ": got " << g << ", want " << w);
    if (std::isnan(w)) CHECK(std::isnan(g));
    else if (std::isinf(w)) CHECK(g == w);
    else CHECK(std::fabs(g - w) <= atol + rtol * std::fabs(w));
  }
}

// An input of a gradient check: values (row-major) and shape.
struct GradInput {
  std::vector<double> values;
  Shape shape;
};

// Checks the gradient autograd gives for every input of f against central differences of
// sum(f(inputs) * w), w a fixed pseudo-random weighting (so every output element matters).
inline void check_grad(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<GradInput>& inputs,
                       double eps = 1e-6, double atol = 1e-5, double rtol = 1e-4) {
  auto make = [&](const std::vector<std::vector<double>>& vals, bool grad) {
    std::vector<Tensor> ts;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      Tensor t = Tensor::from(vals[i], inputs[i].shape, dtypes::float64);
      if (grad) t.requires_grad(true);
      ts.push_back(t);
    }
    return ts;
  };
  std::vector<std::vector<double>> vals;
  for (const GradInput& in : inputs) vals.push_back(in.values);
  auto loss_of = [&](const std::vector<Tensor>& ts) {
    const Tensor out = f(ts);
    std::vector<double> w(std::size_t(out.numel()));
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.5 + 0.37 * std::sin(1.3 * double(i) + 0.2);
    return (out.cast(dtypes::float64) * Tensor::from(w, out.shape(), dtypes::float64)).sum();
  };
  const std::vector<Tensor> ts = make(vals, true);
  const std::vector<Tensor> grads = loss_of(ts).gradient(ts);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<double> g = grads[i].to_vector<double>();
    REQUIRE(g.size() == vals[i].size());
    for (std::size_t j = 0; j < vals[i].size(); ++j) {
      auto at = [&](double x) {
        auto v = vals;
        v[i][j] = x;
        return loss_of(make(v, false)).item<double>();
      };
      const double x = vals[i][j];
      const double numeric = (at(x + eps) - at(x - eps)) / (2 * eps);
      INFO("input " << i << " element " << j << ": autograd " << g[j] << ", finite difference " << numeric);
      CHECK(std::fabs(g[j] - numeric) <= atol + rtol * std::fabs(numeric));
    }
  }
}

}  // namespace mg::test
