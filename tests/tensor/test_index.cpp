// Tensor indexing (tensor/index.hpp): getitem (ints, slices, newaxis, ellipsis, tensor indices),
// setitem, gather, one_hot and pad's modes. Expected values were printed by tinygrad at the reference
// commit (test/backend/test_ops.py, test/unit/test_indexing.py, test/backend/test_setitem.py); slice
// semantics by Python's own list slicing; gradients against central differences (check_grad).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <metagrad/tensor/tensor.hpp>

#include "check.hpp"

using namespace mg;
using mg::test::check_close;
using mg::test::check_grad;
using V = std::vector<std::int32_t>;
using F = std::vector<float>;

namespace {
constexpr double INF = std::numeric_limits<double>::infinity();
constexpr double NAN_ = std::numeric_limits<double>::quiet_NaN();
Tensor arange(std::int64_t n, const Shape& s) { return Tensor::arange(n).reshape(s); }
// (shape, int32 values)
void check_int(const Tensor& t, const Shape& shape, const V& vals) {
  CHECK(t.shape() == shape);
  CHECK(t.to_vector<std::int32_t>() == vals);
}
void check_float(const Tensor& t, const Shape& shape, const std::vector<double>& vals) {
  CHECK(t.shape() == shape);
  check_close(t.to_vector<double>(), vals);
}
// 0.5, 1.5, ... as float64 gradient inputs
std::vector<double> ramp(std::int64_t n) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(0.5 + double(i) * 0.75 - double(i % 3));
  return v;
}
std::vector<std::int64_t> nonzero(const Tensor& t) {
  std::vector<std::int64_t> out;
  const std::vector<double> v = t.to_vector<double>();
  for (std::size_t i = 0; i < v.size(); ++i) if (v[i] != 0) out.push_back(std::int64_t(i));
  return out;
}
}  // namespace

TEST_CASE("index: ints, slices, newaxis and ellipsis", "[index]") {
  const Tensor a = arange(27, {3, 3, 3}), b = arange(350, {7, 5, 10});
  check_int(a[1], {3, 3}, {9, 10, 11, 12, 13, 14, 15, 16, 17});
  check_int(a[-1], {3, 3}, {18, 19, 20, 21, 22, 23, 24, 25, 26});
  check_int(a[{1, 1, 1}], {}, {13});
  check_int(a[{-3, 2}], {3}, {6, 7, 8});
  check_int(a.getitem({slice(1, 2), newaxis, slice(1, 2)}), {1, 1, 1, 3}, {12, 13, 14});
  check_int(a.getitem({slice(1, 2), slice(1, 2), newaxis, -1}), {1, 1, 1}, {14});
  check_int(a.getitem({newaxis, newaxis, 1, newaxis, 2, slice(0, 2)}), {1, 1, 1, 2}, {15, 16});
  check_int(a.getitem({slice(1, 2), slice(1, 2), slice(0, -1)}), {1, 1, 2}, {12, 13});
  check_int(a.getitem({slice(1, 50), slice(1, 2), -1}), {2, 1}, {14, 23});
  CHECK(a.getitem({slice(-6, 4)}).to_vector<int>() == a.to_vector<int>());  // both ends clamp
  check_int(b.getitem({slice(1, 5, 2), newaxis, newaxis, 3, newaxis, Slice{.step = 4}}), {2, 1, 1, 1, 3}, {80, 84, 88, 180, 184, 188});
  check_int(b.getitem({slice(4, 0, -3), slice(2, 0, -1), slice(-1, -5, -2)}), {2, 2, 2}, {229, 227, 219, 217, 79, 77, 69, 67});
  check_int(b.getitem({Slice{.step = -2}, Slice{.step = 3}, 7}), {4, 2}, {307, 337, 207, 237, 107, 137, 7, 37});
  check_int(a.getitem({0, ellipsis, 2}), {3}, {2, 5, 8});
  check_int(a.getitem({newaxis, slice(0, 3), ellipsis, 0, newaxis}), {1, 3, 3, 1}, {0, 3, 6, 9, 12, 15, 18, 21, 24});
  CHECK(a[ellipsis].to_vector<int>() == a.to_vector<int>());
  CHECK(a.getitem({}).shape() == Shape{3, 3, 3});
  CHECK(a.getitem({2, ellipsis, 2, 2}).item<int>() == 26);
  CHECK(a.getitem({2, 2, 2, ellipsis}).item<int>() == 26);
  // empty results
  CHECK(a.getitem({slice(1, 1)}).shape() == Shape{0, 3, 3});
  CHECK(a.getitem({slice(-2, -5)}).shape() == Shape{0, 3, 3});
  CHECK(a.getitem({slice(2, 5, -1)}).shape() == Shape{0, 3, 3});
  CHECK(a.getitem({2, slice(1, 1), 2}).shape() == Shape{0});
  CHECK(a.getitem({slice(5, 10)}).shape() == Shape{0, 3, 3});
  CHECK(Tensor::zeros({0, 4}).getitem({slice(), 1}).shape() == Shape{0});
  // a 0-d tensor takes only newaxis and ellipsis
  const Tensor s(ConstType(3.5));
  CHECK(s[newaxis].shape() == Shape{1});
  CHECK(s[ellipsis].item<float>() == 3.5f);
  // a view of a view (llama's freqs_cis)
  const Tensor x = arange(16, {4, 4});
  check_int(x.getitem({slice(), slice(1, 2)}).getitem({slice(1, 2)}), {1, 1}, {5});
  check_int(x.getitem({slice(1, 3)}).getitem({slice(1, 2)}), {1, 4}, {8, 9, 10, 11});
  check_int(Tensor::arange(10).getitem({Slice{.step = 11}}), {1}, {0});
  check_int(Tensor::arange(10).getitem({Slice{.start = 1, .stop = 6, .step = 2}}), {3}, {1, 3, 5});
  // extreme bounds and steps clamp as Python's do
  constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max(), small = std::numeric_limits<std::int64_t>::min();
  check_int(Tensor::arange(10)[Slice{.step = big}], {1}, {0});
  check_int(Tensor::arange(10)[Slice{.step = small}], {1}, {9});
  check_int(Tensor::arange(4)[Slice{.start = small, .stop = big}], {4}, {0, 1, 2, 3});
  check_int(Tensor::arange(4)[Slice{.start = big, .stop = small, .step = -3}], {2}, {3, 0});
}

TEST_CASE("index: every slice of a 5-element list matches Python's", "[index]") {
  // list(range(5))[start:stop:step], printed by Python; N is None
  constexpr auto N = std::nullopt;
  struct Case { std::optional<std::int64_t> start, stop, step; const char* want; };
  const std::vector<Case> cases = {
      {N, N, N, "0 1 2 3 4"}, {N, -7, N, ""}, {N, -2, N, "0 1 2"}, {N, 0, N, ""}, {N, 2, N, "0 1"}, {N, 4, N, "0 1 2 3"},
      {N, 7, N, "0 1 2 3 4"}, {-7, N, N, "0 1 2 3 4"}, {-7, -7, N, ""}, {-7, -2, N, "0 1 2"}, {-7, 0, N, ""}, {-7, 2, N, "0 1"},
      {-7, 4, N, "0 1 2 3"}, {-7, 7, N, "0 1 2 3 4"}, {-2, N, N, "3 4"}, {-2, -7, N, ""}, {-2, -2, N, ""}, {-2, 0, N, ""},
      {-2, 2, N, ""}, {-2, 4, N, "3"}, {-2, 7, N, "3 4"}, {0, N, N, "0 1 2 3 4"}, {0, -7, N, ""}, {0, -2, N, "0 1 2"},
      {0, 0, N, ""}, {0, 2, N, "0 1"}, {0, 4, N, "0 1 2 3"}, {0, 7, N, "0 1 2 3 4"}, {2, N, N, "2 3 4"}, {2, -7, N, ""},
      {2, -2, N, "2"}, {2, 0, N, ""}, {2, 2, N, ""}, {2, 4, N, "2 3"}, {2, 7, N, "2 3 4"}, {4, N, N, "4"},
      {4, -7, N, ""}, {4, -2, N, ""}, {4, 0, N, ""}, {4, 2, N, ""}, {4, 4, N, ""}, {4, 7, N, "4"},
      {7, N, N, ""}, {7, -7, N, ""}, {7, -2, N, ""}, {7, 0, N, ""}, {7, 2, N, ""}, {7, 4, N, ""},
      {7, 7, N, ""}, {N, N, 2, "0 2 4"}, {N, -7, 2, ""}, {N, -2, 2, "0 2"}, {N, 0, 2, ""}, {N, 2, 2, "0"},
      {N, 4, 2, "0 2"}, {N, 7, 2, "0 2 4"}, {-7, N, 2, "0 2 4"}, {-7, -7, 2, ""}, {-7, -2, 2, "0 2"}, {-7, 0, 2, ""},
      {-7, 2, 2, "0"}, {-7, 4, 2, "0 2"}, {-7, 7, 2, "0 2 4"}, {-2, N, 2, "3"}, {-2, -7, 2, ""}, {-2, -2, 2, ""},
      {-2, 0, 2, ""}, {-2, 2, 2, ""}, {-2, 4, 2, "3"}, {-2, 7, 2, "3"}, {0, N, 2, "0 2 4"}, {0, -7, 2, ""},
      {0, -2, 2, "0 2"}, {0, 0, 2, ""}, {0, 2, 2, "0"}, {0, 4, 2, "0 2"}, {0, 7, 2, "0 2 4"}, {2, N, 2, "2 4"},
      {2, -7, 2, ""}, {2, -2, 2, "2"}, {2, 0, 2, ""}, {2, 2, 2, ""}, {2, 4, 2, "2"}, {2, 7, 2, "2 4"},
      {4, N, 2, "4"}, {4, -7, 2, ""}, {4, -2, 2, ""}, {4, 0, 2, ""}, {4, 2, 2, ""}, {4, 4, 2, ""},
      {4, 7, 2, "4"}, {7, N, 2, ""}, {7, -7, 2, ""}, {7, -2, 2, ""}, {7, 0, 2, ""}, {7, 2, 2, ""},
      {7, 4, 2, ""}, {7, 7, 2, ""}, {N, N, -1, "4 3 2 1 0"}, {N, -7, -1, "4 3 2 1 0"}, {N, -2, -1, "4"}, {N, 0, -1, "4 3 2 1"},
      {N, 2, -1, "4 3"}, {N, 4, -1, ""}, {N, 7, -1, ""}, {-7, N, -1, ""}, {-7, -7, -1, ""}, {-7, -2, -1, ""},
      {-7, 0, -1, ""}, {-7, 2, -1, ""}, {-7, 4, -1, ""}, {-7, 7, -1, ""}, {-2, N, -1, "3 2 1 0"}, {-2, -7, -1, "3 2 1 0"},
      {-2, -2, -1, ""}, {-2, 0, -1, "3 2 1"}, {-2, 2, -1, "3"}, {-2, 4, -1, ""}, {-2, 7, -1, ""}, {0, N, -1, "0"},
      {0, -7, -1, "0"}, {0, -2, -1, ""}, {0, 0, -1, ""}, {0, 2, -1, ""}, {0, 4, -1, ""}, {0, 7, -1, ""},
      {2, N, -1, "2 1 0"}, {2, -7, -1, "2 1 0"}, {2, -2, -1, ""}, {2, 0, -1, "2 1"}, {2, 2, -1, ""}, {2, 4, -1, ""},
      {2, 7, -1, ""}, {4, N, -1, "4 3 2 1 0"}, {4, -7, -1, "4 3 2 1 0"}, {4, -2, -1, "4"}, {4, 0, -1, "4 3 2 1"}, {4, 2, -1, "4 3"},
      {4, 4, -1, ""}, {4, 7, -1, ""}, {7, N, -1, "4 3 2 1 0"}, {7, -7, -1, "4 3 2 1 0"}, {7, -2, -1, "4"}, {7, 0, -1, "4 3 2 1"},
      {7, 2, -1, "4 3"}, {7, 4, -1, ""}, {7, 7, -1, ""}, {N, N, -2, "4 2 0"}, {N, -7, -2, "4 2 0"}, {N, -2, -2, "4"},
      {N, 0, -2, "4 2"}, {N, 2, -2, "4"}, {N, 4, -2, ""}, {N, 7, -2, ""}, {-7, N, -2, ""}, {-7, -7, -2, ""},
      {-7, -2, -2, ""}, {-7, 0, -2, ""}, {-7, 2, -2, ""}, {-7, 4, -2, ""}, {-7, 7, -2, ""}, {-2, N, -2, "3 1"},
      {-2, -7, -2, "3 1"}, {-2, -2, -2, ""}, {-2, 0, -2, "3 1"}, {-2, 2, -2, "3"}, {-2, 4, -2, ""}, {-2, 7, -2, ""},
      {0, N, -2, "0"}, {0, -7, -2, "0"}, {0, -2, -2, ""}, {0, 0, -2, ""}, {0, 2, -2, ""}, {0, 4, -2, ""},
      {0, 7, -2, ""}, {2, N, -2, "2 0"}, {2, -7, -2, "2 0"}, {2, -2, -2, ""}, {2, 0, -2, "2"}, {2, 2, -2, ""},
      {2, 4, -2, ""}, {2, 7, -2, ""}, {4, N, -2, "4 2 0"}, {4, -7, -2, "4 2 0"}, {4, -2, -2, "4"}, {4, 0, -2, "4 2"},
      {4, 2, -2, "4"}, {4, 4, -2, ""}, {4, 7, -2, ""}, {7, N, -2, "4 2 0"}, {7, -7, -2, "4 2 0"}, {7, -2, -2, "4"},
      {7, 0, -2, "4 2"}, {7, 2, -2, "4"}, {7, 4, -2, ""}, {7, 7, -2, ""}, {N, N, -6, "4"}, {N, -7, -6, "4"},
      {N, -2, -6, "4"}, {N, 0, -6, "4"}, {N, 2, -6, "4"}, {N, 4, -6, ""}, {N, 7, -6, ""}, {-7, N, -6, ""},
      {-7, -7, -6, ""}, {-7, -2, -6, ""}, {-7, 0, -6, ""}, {-7, 2, -6, ""}, {-7, 4, -6, ""}, {-7, 7, -6, ""},
      {-2, N, -6, "3"}, {-2, -7, -6, "3"}, {-2, -2, -6, ""}, {-2, 0, -6, "3"}, {-2, 2, -6, "3"}, {-2, 4, -6, ""},
      {-2, 7, -6, ""}, {0, N, -6, "0"}, {0, -7, -6, "0"}, {0, -2, -6, ""}, {0, 0, -6, ""}, {0, 2, -6, ""},
      {0, 4, -6, ""}, {0, 7, -6, ""}, {2, N, -6, "2"}, {2, -7, -6, "2"}, {2, -2, -6, ""}, {2, 0, -6, "2"},
      {2, 2, -6, ""}, {2, 4, -6, ""}, {2, 7, -6, ""}, {4, N, -6, "4"}, {4, -7, -6, "4"}, {4, -2, -6, "4"},
      {4, 0, -6, "4"}, {4, 2, -6, "4"}, {4, 4, -6, ""}, {4, 7, -6, ""}, {7, N, -6, "4"}, {7, -7, -6, "4"},
      {7, -2, -6, "4"}, {7, 0, -6, "4"}, {7, 2, -6, "4"}, {7, 4, -6, ""}, {7, 7, -6, ""}
  };
  const Tensor t = Tensor::arange(5);
  for (const Case& c : cases) {
    INFO("[" << (c.start ? std::to_string(*c.start) : "") << ":" << (c.stop ? std::to_string(*c.stop) : "") << ":"
              << (c.step ? std::to_string(*c.step) : "") << "]");
    V want;
    std::istringstream in(c.want);
    for (int v; in >> v;) want.push_back(v);
    CHECK(t[Slice{c.start, c.stop, c.step}].to_vector<int>() == want);
    // setitem writes exactly the elements the slice reads
    Tensor u = Tensor::arange(5);
    u.setitem({Slice{c.start, c.stop, c.step}}, -1);
    V expect = {0, 1, 2, 3, 4};
    for (int v : want) expect[std::size_t(v)] = -1;
    CHECK(u.to_vector<int>() == expect);
  }
}

TEST_CASE("index: a batch gathered by a tensor of row numbers (a load, after reduce collapse)", "[index]") {
  const std::vector<float> xs = test::ramp(600 * 2 * 5, 0.5f, -7.0f);
  const Tensor X = Tensor::from(xs, {600, 2, 5});
  const std::vector<int> rows = {0, 599, 17, -1, 300, 17, -600, 42};
  const std::vector<float> got = X[Tensor::from(rows)].to_vector<float>();
  REQUIRE(got.size() == rows.size() * 10);
  for (std::size_t b = 0; b < rows.size(); ++b)
    for (std::size_t k = 0; k < 10; ++k) REQUIRE(got[b * 10 + k] == xs[std::size_t((rows[b] + 600) % 600) * 10 + k]);
}

TEST_CASE("index: tensor indices (advanced indexing)", "[index]") {
  const Tensor x = arange(6, {2, 3});
  // broadcast together; negative index values count from the end
  check_int(x.getitem({Tensor::from({0, 1, -1, -1, -2, 0}, {2, 3}), Tensor::from({2, 1, -1})}), {2, 3}, {2, 4, 5, 5, 1, 2});
  check_int(x.getitem({Tensor::from({1}), Tensor::from({0, 0, 0, 0, 0, 0}, {2, 3})}), {2, 3}, {3, 3, 3, 3, 3, 3});
  check_int(x.getitem({Tensor::from({0, 0, 0, 0, 0, 0}, {2, 3}), Tensor(ConstType(1))}), {2, 3}, {1, 1, 1, 1, 1, 1});
  // numpy's examples
  const Tensor y = arange(12, {4, 3});
  check_int(y.getitem({Tensor::from({0, 0, 3, 3}, {2, 2}), Tensor::from({0, 2, 0, 2}, {2, 2})}), {2, 2}, {0, 2, 9, 11});
  check_int(y.getitem({Tensor::from({0, 3})[{slice(), newaxis}], Tensor::from({0, 2})}), {2, 2}, {0, 2, 9, 11});
  const Tensor z = arange(9, {3, 3});
  check_int(z.getitem({ellipsis, Tensor::from({0, 2})}), {3, 2}, {0, 2, 3, 5, 6, 8});
  check_int(z.getitem({Tensor::from({0, 2}), ellipsis}), {2, 3}, {0, 1, 2, 6, 7, 8});
  // a 0-d index tensor picks like an int; any int dtype works
  CHECK(z[Tensor(ConstType(1), dtypes::int64)].to_vector<int>() == z[1].to_vector<int>());
  CHECK(z[{Tensor(ConstType(2), dtypes::int16), Tensor(ConstType(1), dtypes::uint8)}].item<int>() == 7);
  // out-of-range index values read 0 (tinygrad: no bounds check on tensor indices)
  check_int(Tensor::from({1, 2, 3})[Tensor::from({4, 3, 2, -1, -4})], {5}, {0, 0, 3, 3, 0});
  // a one-hot sum must not turn inf or nan into nan elsewhere
  check_float(Tensor::from({INF, -INF, NAN_})[Tensor::from({2, 0, 1, 1})], {4}, {NAN_, INF, -INF, -INF});
  // with ints, newaxis and slices around them
  const Tensor c = arange(288, {2, 3, 4, 3, 2, 2});
  const Tensor j = Tensor::from({0, 2}, {1, 2, 1, 1, 1}), o = Tensor::from({2, 0, 1, 1}, {2, 1, 1, 2, 1});
  check_int(c.getitem({1, j, newaxis, o, 1}), {2, 2, 1, 2, 1, 1, 2, 2},
            {172, 173, 174, 175, 148, 149, 150, 151, 268, 269, 270, 271, 244, 245, 246, 247,
             160, 161, 162, 163, 160, 161, 162, 163, 256, 257, 258, 259, 256, 257, 258, 259});
  // tensor indices apart from each other: the broadcast dims go first (numpy); next to each other: in place
  const Tensor x2 = arange(72, {2, 3, 4, 3}), k2 = Tensor::from({2, -3, 1}), p2 = Tensor::from({0, 2}, {2, 1});
  check_int(x2.getitem({slice(), k2, slice(), p2}), {2, 3, 2, 4},
            {24, 27, 30, 33, 60, 63, 66, 69, 0, 3, 6, 9, 36, 39, 42, 45, 12, 15, 18, 21, 48, 51, 54, 57,
             26, 29, 32, 35, 62, 65, 68, 71, 2, 5, 8, 11, 38, 41, 44, 47, 14, 17, 20, 23, 50, 53, 56, 59});
  check_int(x2.getitem({1, k2, slice(), p2}), {2, 3, 4},
            {60, 63, 66, 69, 36, 39, 42, 45, 48, 51, 54, 57, 62, 65, 68, 71, 38, 41, 44, 47, 50, 53, 56, 59});
  check_int(x2.getitem({slice(), k2, p2}), {2, 2, 3, 3},
            {24, 25, 26, 0, 1, 2, 12, 13, 14, 30, 31, 32, 6, 7, 8, 18, 19, 20,
             60, 61, 62, 36, 37, 38, 48, 49, 50, 66, 67, 68, 42, 43, 44, 54, 55, 56});
  check_int(x2.getitem({ellipsis, Tensor::from({3, 0, 1}), newaxis, p2}), {2, 3, 2, 3, 1},
            {9, 21, 33, 45, 57, 69, 0, 12, 24, 36, 48, 60, 3, 15, 27, 39, 51, 63,
             11, 23, 35, 47, 59, 71, 2, 14, 26, 38, 50, 62, 5, 17, 29, 41, 53, 65});
  // float and bool tensors index too
  check_float(Tensor::from({0.5, 1.5, 2.5})[Tensor::from({2, 0})], {2}, {2.5, 0.5});
  CHECK(Tensor::from(std::vector<bool>{true, false})[Tensor::from({1, 1, 0})].to_vector<bool>() == std::vector<bool>{false, false, true});
  // empty index tensors give empty results
  CHECK(y[Tensor::from(std::vector<int>{}, {0})].shape() == Shape{0, 3});
}

TEST_CASE("index: getitem errors", "[index]") {
  const Tensor a = Tensor::ones({4, 3});
  CHECK_THROWS_WITH(a.getitem({1, 77, 77, 77}), "getitem: too many indices (4) for shape (4, 3)");
  CHECK_THROWS_WITH(a.getitem({1, 3}), "getitem: index 3 is out of bounds for dim 1 of shape (4, 3)");
  CHECK_THROWS_WITH(a.getitem({1, -4}), "getitem: index -4 is out of bounds for dim 1 of shape (4, 3)");
  CHECK_THROWS_WITH(a.getitem({ellipsis, ellipsis}), "getitem: an index can only have a single ellipsis");
  CHECK_THROWS_WITH(a.getitem({Slice{.step = 0}, 1}), "getitem: slice step cannot be 0");
  CHECK_THROWS_WITH(Tensor(ConstType(2))[slice()], "getitem: too many indices (1) for shape ()");
  CHECK_THROWS_WITH(Tensor(ConstType(2))[0], "getitem: too many indices (1) for shape ()");
  CHECK_THROWS_WITH(a[Tensor(ConstType(1.1))], "getitem: index tensors need an int dtype, got dtypes.float");
  CHECK_THROWS_WITH(a[Tensor::from(std::vector<bool>{true, false})], "getitem: index tensors need an int dtype, got dtypes.bool");
  CHECK_THROWS_WITH(a[Tensor::from({0}, {}, std::nullopt, "DISK")], "getitem: the index tensor is on DISK, the tensor on " + a.device());
  const Tensor b = Tensor::ones({10, 11, 12});
  CHECK_THROWS_WITH(b.getitem({Tensor::zeros({3, 1, 1, 1}, dtypes::int32), Tensor::zeros({1, 4, 1, 1}, dtypes::int32),
                               Tensor::zeros({2, 4, 4, 1}, dtypes::int32)}),
                    "getitem (tensor indices): shapes (3, 1, 1, 1), (1, 4, 1, 1), (2, 4, 4, 1) cannot broadcast together");
}

TEST_CASE("index: getitem gradients", "[index][grad]") {
  const std::vector<double> x = ramp(60);
  auto grad = [&](const std::vector<Index>& ix) {
    check_grad([&](const std::vector<Tensor>& t) { return t[0].getitem(ix); }, {{x, {3, 4, 5}}});
  };
  grad({1});
  grad({slice(0, 2), -1, newaxis});
  grad({Slice{.step = -2}, slice(3, 0, -2), slice(1, 5, 3)});
  grad({newaxis, ellipsis, 2});
  grad({Tensor::from({0, 0, 2, -1}), slice(1, 3)});                         // repeated rows add up
  grad({Tensor::from({2, 0}, {2, 1}), 1, Tensor::from({4, 4, 0})});        // int between: broadcast dims first
  grad({slice(), Tensor::from({3, 1}), Tensor::from({0, 4})});
  grad({Tensor::from({1, 5})});                                             // out of range: no gradient there
  // tinygrad's x[[0, 0, 2], 1:].sum() gradient, on a realized leaf
  Tensor leaf = Tensor::from(std::vector<float>(12, 1.0f), {3, 4});
  leaf.getitem({Tensor::from({0, 0, 2}), slice(1, std::nullopt)}).sum().backward();
  CHECK(leaf.grad()->to_vector<float>() == F{0, 2, 2, 2, 0, 0, 0, 0, 0, 1, 1, 1});
}

TEST_CASE("index: setitem with ints, slices, newaxis and ellipsis", "[index][setitem]") {
  // tinygrad's test_simple_setitem: the flat positions that became nonzero, on a lazy tensor (its graph
  // is replaced) and on a realized one (the value is written into its buffer)
  using P = std::vector<std::int64_t>;
  auto set = [](const Shape& s, const std::vector<Index>& ix, const Tensor& v, bool realized) {
    Tensor t = Tensor::zeros(s);
    if (realized) t.realize();
    t.setitem(ix, v);
    CHECK(t.shape() == s);
    CHECK(t.dtype() == dtypes::float32);
    return t;
  };
  for (bool realized : {false, true}) {
    INFO("realized " << realized);
    CHECK(nonzero(set({6, 6}, {slice(2, 4), slice(3, 5)}, Tensor::ones({2, 2}), realized)) == P{15, 16, 21, 22});
    const Tensor row = set({6, 6}, {slice(2, 4), slice(3, 5)}, Tensor::from({1.0, 2.0}), realized);
    CHECK(nonzero(row) == P{15, 16, 21, 22});
    CHECK(row.sum().item<float>() == 6);
    CHECK(nonzero(set({6, 6}, {3, newaxis, 4, newaxis}, Tensor(ConstType(1.0)), realized)) == P{22});
    CHECK(nonzero(set({6, 6}, {slice(1, 5, 2), slice(0, 5, 3)}, Tensor(ConstType(1.0)), realized)) == P{6, 9, 18, 21});
    CHECK(nonzero(set({6, 6}, {slice(5, 1, -2), slice(5, 0, -3)}, Tensor(ConstType(1.0)), realized)) == P{20, 23, 32, 35});
    CHECK(nonzero(set({4, 4, 4, 4}, {2, slice(1, 3), newaxis, 1}, Tensor(ConstType(4.0)), realized)) == P{148, 149, 150, 151, 164, 165, 166, 167});
    // (..., 1:3, :) and (1:3, :, 0:4:2): every position whose coordinates pass
    const Tensor e = set({4, 4, 4, 4}, {ellipsis, slice(1, 3), slice()}, Tensor(ConstType(4.0)), realized);
    const Tensor st = set({4, 4, 4, 4}, {slice(1, 3), slice(), slice(0, 4, 2)}, Tensor(ConstType(4.0)), realized);
    P we, ws;
    for (std::int64_t i = 0; i < 256; ++i) {
      if ((i / 4) % 4 >= 1 && (i / 4) % 4 < 3) we.push_back(i);
      if (i / 64 >= 1 && i / 64 < 3 && (i / 4) % 2 == 0) ws.push_back(i);
    }
    CHECK(nonzero(e) == we);
    CHECK(nonzero(st) == ws);
    CHECK(e.sum().item<float>() == 512);
  }
  // negative steps: t[4:1:-2] = 11 (tinygrad's test_padded_setitem)
  Tensor t = Tensor::arange(10);
  t.setitem({slice(4, 1, -2)}, 11);
  CHECK(t.to_vector<int>() == V{0, 1, 11, 3, 11, 5, 6, 7, 8, 9});
  // a step wider than the range writes its first element only (numpy; tinygrad's setitem fails on this)
  Tensor w = Tensor::zeros({6});
  w.setitem({slice(0, 3, 3)}, 1);
  CHECK(w.to_vector<float>() == F{1, 0, 0, 0, 0, 0});
  // int rows, step assignment (test_indexing.py)
  Tensor v = Tensor::zeros({4, 4});
  v.setitem({0, slice(1, std::nullopt, 2)}, Tensor::from({3.0, 4.0}));
  CHECK(v.to_vector<float>() == F{0, 3, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  Tensor x = arange(4, {2, 2});
  x.setitem({1}, 5);
  CHECK(x.to_vector<int>() == V{0, 1, 5, 5});
  x.setitem({1}, Tensor::arange(5, 7)).setitem({0, 0}, -1);  // setitem returns the tensor
  CHECK(x.to_vector<int>() == V{-1, 1, 5, 6});
  // a scalar takes the tensor's dtype (test_setitem_dtype); a tensor value must have it
  Tensor i = Tensor::ones({2, 2}, dtypes::int32);
  i.setitem({0}, 5.7);
  CHECK(i.dtype() == dtypes::int32);
  CHECK(i.to_vector<int>() == V{5, 5, 1, 1});
  Tensor bo = Tensor::full({3}, false);
  bo.setitem({1}, true);
  CHECK(bo.to_vector<bool>() == std::vector<bool>{false, true, false});
  // copies of a tensor share it, as Python references do
  Tensor y = Tensor::zeros({3});
  Tensor y2 = y;
  y.setitem({2}, 7);
  CHECK(y2.to_vector<float>() == F{0, 0, 7});
  // a 0-d tensor through ellipsis
  Tensor s(ConstType(1.5));
  s.setitem({ellipsis}, 9.5);
  CHECK(s.item<float>() == 9.5f);
}

TEST_CASE("index: setitem with tensor indices", "[index][setitem]") {
  Tensor t = Tensor::zeros({6, 6});
  t.setitem({Tensor::from({1, 2}), Tensor::from({3, 2})}, 3);
  CHECK(nonzero(t) == std::vector<std::int64_t>{9, 14});
  // repeated indices: the last write wins (test_setitem_overlapping_indices)
  Tensor o = Tensor::from({1, 2, 3, 4});
  o.setitem({Tensor::from({1, 1})}, Tensor::from({5, 6}));
  CHECK(o.to_vector<int>() == V{1, 6, 3, 4});
  o.setitem({Tensor::from({1, 1})}, Tensor::from({0, 1}));
  CHECK(o.to_vector<int>() == V{1, 1, 3, 4});
  o.setitem({Tensor::from({1, 1})}, Tensor::from({1, 0}));
  CHECK(o.to_vector<int>() == V{1, 0, 3, 4});
  Tensor one = Tensor::from({1, 2, 3}, {3, 1});
  one.setitem({Tensor::from({0, 0})}, Tensor::from({1, 2}, {2, 1}));
  CHECK(one.to_vector<int>() == V{2, 2, 3});
  // with ints and slices (test_setitem_tensor_int_indexing / _slice_indexing / _2d_tensor_indexing)
  Tensor a = Tensor::zeros({4, 3}, dtypes::int32);
  a.setitem({Tensor::from({0, 2}), 0}, Tensor::from({99, 88}));
  CHECK(a.to_vector<int>() == V{99, 0, 0, 0, 0, 0, 88, 0, 0, 0, 0, 0});
  Tensor b = Tensor::zeros({4, 3}, dtypes::int32);
  b.setitem({Tensor::from({0, 2}), slice(std::nullopt, 2)}, Tensor::from({10, 20, 30, 40}, {2, 2}));
  CHECK(b.to_vector<int>() == V{10, 20, 0, 0, 0, 0, 30, 40, 0, 0, 0, 0});
  Tensor c = Tensor::zeros({2}, dtypes::int32);
  c.setitem({Tensor::from({0, 1, 1, 0}, {2, 2})}, arange(4, {2, 2}));
  CHECK(c.to_vector<int>() == V{3, 2});
  // a value row broadcast over the indexed rows
  Tensor r = Tensor::zeros({3, 4});
  r.setitem({Tensor::from({2, 0})}, Tensor::from({1.0, 2.0, 3.0, 4.0}));
  CHECK(r.to_vector<float>() == F{1, 2, 3, 4, 0, 0, 0, 0, 1, 2, 3, 4});
  // tensor indices apart from each other: the value's leading dims are the broadcast index dims
  Tensor x2 = arange(72, {2, 3, 4, 3});
  x2.setitem({slice(), Tensor::from({2, -3, 1}), slice(), Tensor::from({0, 2}, {2, 1})}, arange(48, {2, 3, 2, 4}) + 100);
  CHECK(x2.to_vector<int>() == V{108, 1, 132, 109, 4, 133, 110, 7, 134, 111, 10, 135, 116, 13, 140, 117, 16, 141, 118, 19, 142, 119, 22, 143,
                                 100, 25, 124, 101, 28, 125, 102, 31, 126, 103, 34, 127, 112, 37, 136, 113, 40, 137, 114, 43, 138, 115, 46, 139,
                                 120, 49, 144, 121, 52, 145, 122, 55, 146, 123, 58, 147, 104, 61, 128, 105, 64, 129, 106, 67, 130, 107, 70, 131});
  Tensor x3 = arange(72, {2, 3, 4, 3});
  x3.setitem({1, Tensor::from({2, 0}), slice(1, 3), Tensor::from({0, 2}, {2, 1})}, Tensor::from({-1, -2}, {2, 1, 1}));
  V want = x3.to_vector<int>();
  std::vector<int> ar(72);
  for (int k = 0; k < 72; ++k) ar[std::size_t(k)] = k;
  for (int k : {39, 42, 63, 66}) ar[std::size_t(k)] = -1;
  for (int k : {41, 44, 65, 68}) ar[std::size_t(k)] = -2;
  CHECK(want == ar);
  // an empty index tensor writes nothing
  Tensor e = Tensor::from({1, 2, 3});
  e.setitem({Tensor::from(std::vector<int>{}, {0})}, 7);
  CHECK(e.to_vector<int>() == V{1, 2, 3});
}

TEST_CASE("index: setitem on realized tensors writes their buffer", "[index][setitem]") {
  // views of the buffer see the write; a row read before is a view too (test_setitem_swap_rows)
  Tensor t = Tensor::from({0.0, 1.0, 2.0, 3.0, 4.0, 5.0}, {3, 2});
  const Tensor flat = t.reshape({6});
  const Tensor tmp = t[0];
  t.setitem({0}, t[1]);
  t.setitem({2}, tmp);
  CHECK(t.to_vector<float>() == F{2, 3, 2, 3, 2, 3});
  CHECK(flat.to_vector<float>() == F{2, 3, 2, 3, 2, 3});
  // the value may read the tensor itself: t[1] += 2
  Tensor u = arange(4, {2, 2});
  u.setitem({1}, u[1] + 2);
  CHECK(u.to_vector<int>() == V{0, 1, 4, 5});
  // a loop of writes (TestSetitemLoop)
  Tensor cmp = Tensor::empty({10});
  for (int k = 0; k < 10; ++k) cmp.setitem({k}, k);
  CHECK(cmp.to_vector<float>() == Tensor::arange(10).to_vector<float>());
}

TEST_CASE("index: setitem gradients on lazy tensors", "[index][setitem][grad]") {
  // test_setitem.py TestWithGrad: a lazy tensor takes the new graph, so gradients reach the value
  Tensor z = Tensor::ones({8, 8});
  Tensor x = Tensor::from(ramp(64), {8, 8});
  z.setitem({slice()}, x);
  z.sum().backward();
  CHECK(x.grad()->to_vector<float>() == F(64, 1));

  Tensor a = Tensor::from({1.0, 2.0, 3.0, 4.0});
  Tensor nl = a * 2;
  nl.setitem({slice(std::nullopt, 2)}, Tensor::from({10.0, 20.0}));
  nl.sum().backward();
  CHECK(a.grad()->to_vector<float>() == F{0, 0, 2, 2});
  CHECK(nl.to_vector<float>() == F{10, 20, 6, 8});

  Tensor zz = Tensor::zeros({6});
  Tensor p = Tensor::ones({4}) * 1, q = Tensor::ones({4}) * 2;
  zz.setitem({slice(std::nullopt, 4)}, p).setitem({slice(2, std::nullopt)}, q);
  zz.sum().backward();
  CHECK(p.grad()->to_vector<float>() == F{1, 1, 0, 0});
  CHECK(q.grad()->to_vector<float>() == F{1, 1, 1, 1});

  // finite differences through basic and advanced setitem, to both the old values and the new
  auto grad = [](const std::vector<Index>& ix, const Shape& vshape) {
    check_grad([&](const std::vector<Tensor>& t) {
      Tensor y = t[0] * 1;
      y.setitem(ix, t[1]);
      return y * t[0];
    }, {{ramp(20), {4, 5}}, {ramp(shape_prod(vshape)), vshape}});
  };
  grad({slice(1, 4, 2), slice(4, 0, -3)}, {2, 2});
  grad({newaxis, -1, ellipsis}, {1, 5});
  grad({Tensor::from({3, 0, 3}), Tensor::from({1, 2, 4})}, {3});
  grad({slice(), Tensor::from({0, 4}, {2, 1})}, {2, 1});
}

TEST_CASE("index: setitem errors", "[index][setitem]") {
  Tensor t = Tensor::zeros({6});
  CHECK_THROWS_WITH(t.setitem({slice(2, 4)}, Tensor::from({1, 2})), "setitem: dtype mismatch, the tensor is dtypes.float, the value dtypes.int");
  CHECK_THROWS_WITH(t.setitem({slice(2, 4)}, Tensor::from({1.0, 2.0, 3.0})), "setitem: cannot broadcast a value of shape (3,) to (2,)");
  CHECK_THROWS_WITH(t.setitem({7}, 1), "setitem: index 7 is out of bounds for dim 0 of shape (6,)");
  CHECK_THROWS_WITH(t.setitem({Tensor::from({0, 1})}, Tensor::from({1.0, 2.0, 3.0})),
                    "setitem: cannot broadcast a value of shape (3,) to (2,)");
  // another live tensor reads this one: lazily it would keep the old values, eagerly see the new
  Tensor r = Tensor::from({1.0, 2.0, 3.0, 4.0});
  const Tensor doubled = r * 2;
  CHECK_THROWS_WITH(r.setitem({0}, 99), Catch::Contains("setitem: can't setitem on a tensor with other uses"));
  Tensor l = r * 2;
  const Tensor first = l[slice(std::nullopt, 1)];
  CHECK_THROWS_WITH(l.setitem({0}, 99), Catch::Contains("other uses"));
  // setitem on a view of a buffer writes into the buffer (tinygrad: base[1:3] then view[0] = 5)
  Tensor base = Tensor::from({1, 2, 3, 4});
  Tensor view = base[slice(1, 3)];
  view.setitem({0}, 5);
  CHECK(base.to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 5, 3, 4});
  CHECK(view.to_vector<std::int32_t>() == std::vector<std::int32_t>{5, 3});
}

TEST_CASE("index: gather", "[index][gather]") {
  const Tensor x = Tensor::arange(60).reshape({3, 4, 5}).cast(dtypes::float32);
  const Tensor idx = Tensor::from({0, 1, 2, 1, 2, 2, 0, 1, 1, 0, 0, 2, 2, 1, 0, 0, 1, 1, 2, 2, 0, 2, 1, 0}, {2, 3, 4});
  const std::vector<double> d0 = {0, 21, 42, 23, 45, 46, 7, 28, 30, 11, 12, 53, 40, 21, 2, 3, 25, 26, 47, 48, 10, 51, 32, 13};
  const std::vector<double> d1 = {0, 6, 12, 8, 10, 11, 2, 8, 5, 1, 2, 13, 30, 26, 22, 23, 25, 26, 32, 33, 20, 31, 27, 23};
  const std::vector<double> d2 = {0, 1, 2, 1, 7, 7, 5, 6, 11, 10, 10, 12, 22, 21, 20, 20, 26, 26, 27, 27, 30, 32, 31, 30};
  check_float(x.gather(0, idx), {2, 3, 4}, d0);
  check_float(x.gather(1, idx), {2, 3, 4}, d1);
  check_float(x.gather(2, idx), {2, 3, 4}, d2);
  check_float(x.gather(-1, idx), {2, 3, 4}, d2);
  check_float(x.gather(-2, idx), {2, 3, 4}, d1);
  check_float(Tensor::from({-INF, 2.0, 3.0}).gather(0, Tensor::from({2, 1, 0, 1, 2})), {5}, {3, 2, -INF, 2, 3});
  check_int(Tensor::from({1, 2, 3, 4}, {2, 2}).gather(1, Tensor::from({0, 0, 1, 0}, {2, 2})), {2, 2}, {1, 1, 4, 3});
  CHECK(x.gather(0, idx).dtype() == dtypes::float32);
  for (std::int64_t d : {0, 1, 2})
    check_grad([&](const std::vector<Tensor>& t) { return t[0].gather(d, idx); }, {{ramp(60), {3, 4, 5}}});
  CHECK_THROWS_WITH(x.gather(0, Tensor::from({1})), "gather: index shape (1,) and tensor shape (3, 4, 5) differ in dims");
  CHECK_THROWS_WITH(Tensor::ones({2, 1, 1}).gather(0, idx), "gather: index shape (2, 3, 4) is larger than tensor shape (2, 1, 1) at dim 1");
  CHECK_THROWS_WITH(x.gather(0, idx.cast(dtypes::float32)), "gather: the index needs an int dtype, got dtypes.float");
  CHECK_THROWS_WITH(x.gather(0, idx.cast(dtypes::bool_)), "gather: the index needs an int dtype, got dtypes.bool");
  CHECK_THROWS_WITH(x.gather(3, idx), "gather: dim 3 out of range for shape (3, 4, 5)");
  CHECK_THROWS_WITH(x.gather(-4, idx), "gather: dim -4 out of range for shape (3, 4, 5)");
}

TEST_CASE("index: one_hot", "[index]") {
  check_int(Tensor::from({1, 2, 4}).one_hot(6), {3, 6}, {0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0});
  check_int(Tensor::from({1, 2, 3, 0, 3, 5}, {1, 2, 3}).one_hot(8), {1, 2, 3, 8},
            {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
             1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0});
  // -1: max + 1 classes (torch's; computes the tensor)
  check_int(Tensor::from({0, 2, 1}).one_hot(), {3, 3}, {1, 0, 0, 0, 0, 1, 0, 1, 0});
  check_int(Tensor(ConstType(2)).one_hot(4), {4}, {0, 0, 1, 0});
  CHECK(Tensor::from({1, 2}, {}, dtypes::int64).one_hot(3).dtype() == dtypes::int32);
  CHECK(Tensor::from({1, 7}).one_hot(0).shape() == Shape{2, 0});
  CHECK_THROWS_WITH(Tensor::from({1.0}).one_hot(2), "one_hot: needs an int tensor, got dtypes.float");
  CHECK_THROWS_WITH(Tensor::from({1}).one_hot(-2), "one_hot: num_classes must be -1 (max + 1) or non-negative, got -2");
}

TEST_CASE("index: pad, constant mode", "[index][pad]") {
  const Tensor x = Tensor::arange(9).reshape({3, 3}).cast(dtypes::float32) + 1;
  // torch's flat form: the last dim's (before, after) first
  check_float(x.pad({1, 2, 0, 1}), {4, 6}, {0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 0, 0, 0, 7, 8, 9, 0, 0, 0, 0, 0, 0, 0, 0});
  check_float(x.pad({-1, 2, -2, 1}), {2, 4}, {8, 9, 0, 0, 0, 0, 0, 0});
  check_float(x.pad({1, 2, 0, 1}, PadMode::constant, 5), {4, 6}, {5, 1, 2, 3, 5, 5, 5, 4, 5, 6, 5, 5, 5, 7, 8, 9, 5, 5, 5, 5, 5, 5, 5, 5});
  check_float(x.pad({-1, 2, -2, 1}, PadMode::constant, -INF), {2, 4}, {8, 9, -INF, -INF, -INF, -INF, -INF, -INF});
  check_float(x.pad({1, 1}), {3, 5}, {0, 1, 2, 3, 0, 0, 4, 5, 6, 0, 0, 7, 8, 9, 0});  // fewer pairs: the leading dims stay
  // per-dim pairs
  check_float(x.pad({std::pair{1, 0}, std::nullopt}, PadMode::constant, 1), {4, 3}, {1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  check_float(x.pad({std::pair{-1, 2}, std::pair{0, -2}}), {4, 1}, {4, 7, 0, 0});
  CHECK(x.pad({std::nullopt, std::nullopt}, PadMode::constant, 1).uop() == x.uop());  // nothing to pad
  CHECK(x.pad({std::pair{-3, 0}, std::nullopt}).shape() == Shape{0, 3});
  // the value's dtype promotes the tensor's (tinygrad: least_upper_dtype)
  const Tensor ip = arange(24, {2, 3, 4}).pad({1, 0}, PadMode::constant, 2.5);
  CHECK(ip.dtype() == dtypes::float32);
  check_float(ip, {2, 3, 5}, {2.5, 0, 1, 2, 3, 2.5, 4, 5, 6, 7, 2.5, 8, 9, 10, 11, 2.5, 12, 13, 14, 15, 2.5, 16, 17, 18, 19, 2.5, 20, 21, 22, 23});
  CHECK(Tensor::from(std::vector<bool>{true, false}).pad({1, 1}, PadMode::constant, true).to_vector<bool>() == std::vector<bool>{true, true, false, true});
  CHECK(arange(4, {2, 2}).pad({1, 0}).dtype() == dtypes::int32);
}

TEST_CASE("index: pad, reflect, replicate and circular modes", "[index][pad]") {
  const Tensor x = Tensor::arange(9).reshape({3, 3}).cast(dtypes::float32) + 1;
  check_float(x.pad({2, 1, 1, 2}, PadMode::reflect), {6, 6},
              {6, 5, 4, 5, 6, 5, 3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5, 9, 8, 7, 8, 9, 8, 6, 5, 4, 5, 6, 5, 3, 2, 1, 2, 3, 2});
  check_float(x.pad({-1, 2, 2, -1}, PadMode::reflect), {4, 4}, {8, 9, 8, 7, 5, 6, 5, 4, 2, 3, 2, 1, 5, 6, 5, 4});
  CHECK(x.pad({2, -3, 0, -3}, PadMode::reflect).shape() == Shape{0, 2});
  check_int(arange(24, {2, 3, 4}).pad({1, 0, 0, 0, 1, 0}, PadMode::reflect), {3, 3, 5},
            {13, 12, 13, 14, 15, 17, 16, 17, 18, 19, 21, 20, 21, 22, 23, 1, 0, 1, 2, 3, 5, 4, 5, 6, 7,
             9, 8, 9, 10, 11, 13, 12, 13, 14, 15, 17, 16, 17, 18, 19, 21, 20, 21, 22, 23});
  check_float(x.pad({3, 1, 0, 4}, PadMode::replicate), {7, 7},
              {1, 1, 1, 1, 2, 3, 3, 4, 4, 4, 4, 5, 6, 6, 7, 7, 7, 7, 8, 9, 9, 7, 7, 7, 7, 8, 9, 9,
               7, 7, 7, 7, 8, 9, 9, 7, 7, 7, 7, 8, 9, 9, 7, 7, 7, 7, 8, 9, 9});
  check_float(x.pad({2, -3, -1, 1}, PadMode::replicate), {3, 2}, {4, 4, 7, 7, 7, 7});
  check_float(x.pad({1, 2, 3, 0}, PadMode::circular), {6, 6},
              {3, 1, 2, 3, 1, 2, 6, 4, 5, 6, 4, 5, 9, 7, 8, 9, 7, 8, 3, 1, 2, 3, 1, 2, 6, 4, 5, 6, 4, 5, 9, 7, 8, 9, 7, 8});
  check_float(x.pad({1, -2, 2, -1}, PadMode::circular), {4, 2}, {1, 1, 4, 4, 1, 1, 4, 4});
  // gradients: each pad mode, with negative pads
  const std::vector<double> g = ramp(12);
  for (PadMode m : {PadMode::constant, PadMode::reflect, PadMode::replicate, PadMode::circular}) {
    INFO("mode " << int(m));
    check_grad([&](const std::vector<Tensor>& t) { return t[0].pad({2, -1, -1, 2}, m); }, {{g, {3, 4}}});
    check_grad([&](const std::vector<Tensor>& t) { return t[0].pad({std::pair{1, 1}, std::pair{-2, 2}}, m); }, {{g, {3, 4}}});
  }
  check_grad([](const std::vector<Tensor>& t) { return t[0].pad({1, 0, 0, 2}, PadMode::constant, 3.5); }, {{g, {3, 4}}});
}

TEST_CASE("index: pad and shrink take {before, after} pairs, std::pair or std::nullopt per axis, or a flat list", "[index][pad]") {
  const Tensor a = Tensor::ones({2, 3});
  CHECK(a.pad({{1, 0}, {0, 2}}).shape() == Shape{3, 5});
  CHECK(a.pad({{1, 0}, std::nullopt}).shape() == Shape{3, 3});
  CHECK(a.pad({std::pair{1, 0}, std::nullopt}).shape() == Shape{3, 3});
  CHECK(a.pad({1, 2}).shape() == Shape{2, 6});        // flat: the last axis
  CHECK(a.pad({1, 2, 3, 4}).shape() == Shape{9, 6});
  const std::vector<std::int64_t> flat{1, 2};
  CHECK(a.pad(flat).shape() == Shape{2, 6});
  CHECK(a.shrink({{0, 1}, {1, 3}}).shape() == Shape{1, 2});
  const Tensor b = Tensor::arange(3);
  CHECK(b.pad({{1, 2}}).to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 0, 1, 2, 0, 0});  // one pair, not flat
  CHECK(b.shrink({{1, 2}}).to_vector<std::int32_t>() == std::vector<std::int32_t>{1});
}

TEST_CASE("index: pad errors", "[index][pad]") {
  const Tensor x = Tensor::ones({3, 3});
  CHECK_THROWS_WITH(x.pad({2, 0, 2}), "pad: flat padding needs an even number of pads, got 3");
  CHECK_THROWS_WITH(x.pad({0, 0, 0, 0, 1, 0, 3, 0}), "pad: 8 flat pads for shape (3, 3)");
  CHECK_THROWS_WITH(x.pad({std::nullopt, std::pair{0, 1}, std::pair{3, 0}}), "pad: 3 pads for shape (3, 3)");
  CHECK_THROWS_WITH(x.pad({std::pair{0, 1}}), "pad: 1 pads for shape (3, 3)");
  const Tensor y = Tensor::ones({1, 1, 5, 5});
  CHECK_THROWS_WITH(y.pad({3, 5, 0, 0}, PadMode::reflect), "pad: reflect padding (3, 5) should be less than the input size 5 of dim 3");
  CHECK_NOTHROW(y.pad({4, 4, 0, 4}, PadMode::reflect));
  CHECK_THROWS_WITH(y.pad({3, 6, 0, 0}, PadMode::circular), "pad: circular padding (3, 6) wraps around more than once for dim 3 of size 5");
  CHECK_THROWS_WITH(x.pad({-2, -2}), "pad: pads (-2, -2) leave dim 1 of size 3 with a negative size");
  CHECK_THROWS_WITH(x.pad({-4, 2}), "pad: pads (-4, 2) cut more than the 3 elements of dim 1");
  CHECK_THROWS_WITH(Tensor::ones({0, 2}).pad({0, 0, 1, 0}, PadMode::replicate), "pad: replicate padding (1, 0) of dim 0, which is empty");
}
