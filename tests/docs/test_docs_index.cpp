// The code shown in docs/indexing.md, run and checked, so the documentation stays true.
#include <catch2/catch.hpp>

#include <vector>

#include <metagrad/metagrad.hpp>

using namespace mg;
using V = std::vector<int>;

TEST_CASE("docs: indexing.md getitem", "[docs]") {
  Tensor t = Tensor::arange(12).reshape({3, 4});
  CHECK(t[1].to_vector<int>() == V{4, 5, 6, 7});
  CHECK(t[{1, -1}].item<int>() == 7);
  CHECK(t.getitem({slice(0, 2), Slice{.step = 2}}).to_vector<int>() == V{0, 2, 4, 6});
  CHECK(t.getitem({Tensor::from({2, 0}), -1}).to_vector<int>() == V{11, 3});

  Tensor a = Tensor::arange(27).reshape({3, 3, 3});
  CHECK(a.getitem({newaxis, 0, ellipsis, Slice{.step = -1}}).shape() == Shape{1, 3, 3});
  CHECK(a.getitem({slice(1, 50), slice(2, 0, -1), -1}).to_vector<int>() == V{17, 14, 26, 23});
  CHECK(a.getitem({slice(1, 1)}).shape() == Shape{0, 3, 3});

  Tensor x = Tensor::arange(24).reshape({2, 3, 4});
  Tensor rows = Tensor::from({0, 2}, {2, 1}), cols = Tensor::from({1, -1});
  CHECK(x.getitem({slice(), rows, cols}).shape() == Shape{2, 2, 2});
  CHECK(x.getitem({rows, slice(), cols}).shape() == Shape{2, 2, 3});
  CHECK(Tensor::from({1, 2, 3})[Tensor::from({2, 5})].to_vector<int>() == V{3, 0});
  Tensor y = Tensor::zeros({2, 3, 4, 3});
  CHECK(y.getitem({slice(), 1, slice(), Tensor::from({0, 2})}).shape() == Shape{2, 4, 2});
}

TEST_CASE("docs: indexing.md setitem", "[docs]") {
  Tensor m = Tensor::zeros({3, 4});
  m.setitem({1, slice(1, 3)}, 5);
  m.setitem({Tensor::from({0, 2}), -1}, Tensor::from({7.0, 8.0}));
  CHECK(m.to_vector<float>() == std::vector<float>{0, 0, 0, 7, 0, 5, 5, 0, 0, 0, 0, 8});

  Tensor w = Tensor::from({1.0, 2.0, 3.0, 4.0});
  Tensor z = w * 2;
  Tensor v = Tensor::from({10.0, 20.0});
  z.setitem({slice(std::nullopt, 2)}, v);
  z.sum().backward();
  CHECK(w.grad()->to_vector<float>() == std::vector<float>{0, 0, 2, 2});
  CHECK(v.grad()->to_vector<float>() == std::vector<float>{1, 1});
}

TEST_CASE("docs: indexing.md gather, one_hot, pad and errors", "[docs]") {
  Tensor g = Tensor::from({1, 2, 3, 4}, {2, 2});
  CHECK(g.gather(1, Tensor::from({0, 0, 1, 0}, {2, 2})).to_vector<int>() == V{1, 1, 4, 3});
  Tensor oh = Tensor::from({1, 0, 2}).one_hot(4);
  CHECK(oh.to_vector<int>() == V{0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0});
  CHECK(oh.dtype() == dtypes::int32);
  CHECK(oh.shape() == Shape{3, 4});
  CHECK(Tensor::from({1, 0, 2}).one_hot().shape() == Shape{3, 3});

  Tensor p = Tensor::from({1, 2, 3});
  CHECK(p.pad({2, 1}).to_vector<int>() == V{0, 0, 1, 2, 3, 0});
  CHECK(p.pad({{1, -1}}, PadMode::constant, 9).to_vector<int>() == V{9, 1, 2});
  CHECK(p.pad({2, 2}, PadMode::reflect).to_vector<int>() == V{3, 2, 1, 2, 3, 2, 1});
  CHECK(p.pad({2, 2}, PadMode::replicate).to_vector<int>() == V{1, 1, 1, 2, 3, 3, 3});
  CHECK(p.pad({2, 2}, PadMode::circular).to_vector<int>() == V{2, 3, 1, 2, 3, 1, 2});
  CHECK(Tensor::arange(6).reshape({2, 3}).pad({1, 0, 0, 1}).shape() == Shape{3, 4});
  CHECK(p.pad({1, 0}, PadMode::constant, 0.5).dtype() == dtypes::float32);

  Tensor t = Tensor::arange(12).reshape({3, 4});
  CHECK_THROWS_WITH(t.getitem({1, 4}), "getitem: index 4 is out of bounds for dim 1 of shape (3, 4)");
  CHECK_THROWS_WITH(t.getitem({1, 2, 3}), "getitem: too many indices (3) for shape (3, 4)");
  CHECK_THROWS_WITH(t.getitem({ellipsis, ellipsis}), "getitem: an index can only have a single ellipsis");
  CHECK_THROWS_WITH(t[Slice{.step = 0}], "getitem: slice step cannot be 0");
  CHECK_THROWS_WITH(t.gather(0, Tensor::from({1})), "gather: index shape (1,) and tensor shape (3, 4) differ in dims");
  CHECK_THROWS_WITH(p.pad({3, 0}, PadMode::reflect), "pad: reflect padding (3, 0) should be less than the input size 3 of dim 0");
}
