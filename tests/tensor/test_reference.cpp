// Tests of tensor/reference.hpp (reference_eval, the oracle compiled backends are tested against) and
// of core/alu.hpp's store_element / load_element. Graphs are built with tensor/graph.hpp's builders.
// Values that are not obvious were printed by tinygrad at the reference commit on its PYTHON device
// (Tensor ops of the same graph), as each comment says.
#include <catch2/catch.hpp>
#include <metagrad/tensor/reference.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace mg;

namespace {
constexpr double INF = std::numeric_limits<double>::infinity();

// a BUFFER of dt holding vals, reshaped to shape (flat when shape is empty)
template <class T>
UOp buffer(DType dt, const std::vector<T>& vals, const Shape& shape = {}) {
  HostArray a(dt, {std::int64_t(vals.size())});
  for (std::size_t i = 0; i < vals.size(); ++i) a.set(std::int64_t(i), Arg(vals[i]));
  const UOp b = new_buffer("CPU", std::int64_t(vals.size()), dt);
  host_buffer(b).bytes.assign(a.bytes.begin(), a.bytes.end());
  return shape.empty() ? b : mop_reshape(b, shape);
}
// 0, 1, ..., n-1 as int32 in shape
UOp arange(const Shape& shape, DType dt = dtypes::int32) {
  std::vector<std::int64_t> v(std::size_t(shape_prod(shape)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::int64_t(i);
  return buffer(dt, v, shape);
}
// a constant on a device as a tensor of shape: CONST reshaped to (1, ..., 1) and expanded
UOp full(DType dt, Arg v, const Shape& shape) {
  const UOp c(Ops::CONST, dt, {device_uop("CPU")}, normalize_const(dt, v));
  return mop_expand(mop_reshape(c, Shape(shape.size(), 1)), shape);
}
template <class T>
std::vector<T> eval(const UOp& u) { return reference_eval(u).to_vector<T>(); }
using I = std::vector<std::int64_t>;
using F = std::vector<double>;
using B = std::vector<bool>;

std::string eval_error(const UOp& u) {
  try {
    reference_eval(u);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("reference: store_element and load_element", "[reference]") {
  std::byte b[8]{};
  auto bytes = [&](int n) {
    std::vector<int> v;
    for (int i = 0; i < n; ++i) v.push_back(int(b[i]));
    return v;
  };
  store_element(dtypes::int32, Arg(-2), b);
  CHECK(bytes(4) == std::vector<int>{0xfe, 0xff, 0xff, 0xff});  // little endian two's complement
  CHECK(load_element(dtypes::int32, b) == Arg(-2));
  CHECK(load_element(dtypes::uint32, b) == Arg(std::int64_t(0xfffffffe)));
  store_element(dtypes::uint8, Arg(300), b);  // an int keeps its low bytes: it wraps
  CHECK(load_element(dtypes::uint8, b) == Arg(44));
  store_element(dtypes::uint64, Arg(std::int64_t(-1)), b);  // a uint64 is its int64 bit pattern
  CHECK(bytes(8) == std::vector<int>(8, 0xff));
  CHECK(load_element(dtypes::uint64, b) == Arg(std::int64_t(-1)));
  store_element(dtypes::float32, Arg(1.0), b);
  CHECK(bytes(4) == std::vector<int>{0, 0, 0x80, 0x3f});
  store_element(dtypes::float32, Arg(0.1), b);  // rounds to float32
  CHECK(load_element(dtypes::float32, b) == Arg(double(0.1f)));
  store_element(dtypes::float16, Arg(1.0), b);
  CHECK(bytes(2) == std::vector<int>{0x00, 0x3c});
  store_element(dtypes::bfloat16, Arg(1.5), b);
  CHECK(bytes(2) == std::vector<int>{0xc0, 0x3f});
  CHECK(load_element(dtypes::bfloat16, b) == Arg(1.5));
  store_element(dtypes::fp8e4m3, Arg(1.0), b);
  CHECK(bytes(1) == std::vector<int>{56});  // tinygrad's bitcast of fp8e4m3 1.0 to uint8
  CHECK(load_element(dtypes::fp8e4m3, b) == Arg(1.0));
  store_element(dtypes::bool_, Arg(7), b);
  CHECK(bytes(1) == std::vector<int>{1});
  CHECK(load_element(dtypes::bool_, b) == Arg(true));
  store_element(dtypes::float64, Arg(-0.0), b);
  CHECK(bytes(8) == std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0x80});
  CHECK_THROWS_WITH(store_element(dtypes::int32, Arg(1.5), b), "store_element(dtypes.int, 1.5): an int is expected");
  CHECK_THROWS_WITH(store_element(dtypes::weakint, Arg(1), b), "store_element(dtypes.weakint, 1): no storage format");
  CHECK_THROWS_WITH(load_element(dtypes::float32.vec(2), b), "load_element(dtypes.float.vec(2)): no storage format");
}

TEST_CASE("reference: HostArray", "[reference]") {
  HostArray a(dtypes::int8, {2, 2});
  CHECK(a.bytes.size() == 4);
  CHECK(a.to_vector<int>() == std::vector<int>{0, 0, 0, 0});  // zero-filled
  a.set(1, Arg(200));  // wraps as int8
  a.set(2, Arg(true));
  CHECK(a.at(1) == Arg(-56));
  CHECK(a.to_vector<std::int64_t>() == I{0, -56, 1, 0});
  CHECK(a.to_vector<bool>() == B{false, true, true, false});
  HostArray u(dtypes::uint64, {1});
  u.set(0, Arg(std::int64_t(-1)));
  CHECK(u.to_vector<std::uint64_t>() == std::vector<std::uint64_t>{~0ull});
  CHECK(u.to_vector<double>() == F{18446744073709551616.0});
  HostArray f(dtypes::float32, {2});
  f.set(0, Arg(-2.7));
  f.set(1, Arg(1e10));
  CHECK(f.to_vector<float>() == std::vector<float>{-2.7f, 1e10f});
  CHECK_THROWS_WITH(f.to_vector<int>(), Catch::Contains("does not fit"));
  CHECK_THROWS_WITH(a.at(4), "HostArray::at: index 4 out of range for shape (2, 2)");
  CHECK_THROWS_WITH(HostArray(dtypes::weakint, {1}), Catch::Contains("no storage format"));
}

TEST_CASE("reference: buffers and constants", "[reference]") {
  CHECK(eval<std::int64_t>(buffer(dtypes::int32, I{5, -3, 7})) == I{5, -3, 7});
  const HostArray r = reference_eval(arange({2, 3}));
  CHECK(r.shape == Shape{2, 3});
  CHECK(r.dtype == dtypes::int32);
  // a buffer nobody wrote is zeros
  CHECK(eval<double>(new_buffer("CPU", 3, dtypes::float32)) == F{0, 0, 0});
  // a constant: CONST reshaped to (1, 1) and expanded; a float32 constant holds float32's value
  const HostArray c = reference_eval(full(dtypes::float32, Arg(0.1), {2, 3}));
  CHECK(c.shape == Shape{2, 3});
  CHECK(c.to_vector<double>() == F(6, double(0.1f)));
  CHECK(eval<std::int64_t>(full(dtypes::int8, Arg(-5), {2})) == I{-5, -5});
  // a bare CONST without a device has shape ()
  const HostArray s = reference_eval(UOp::const_(dtypes::bool_, Arg(true)));
  CHECK(s.shape == Shape{});
  CHECK(s.to_vector<bool>() == B{true});
}

TEST_CASE("reference: float16 buffer round trip", "[reference]") {
  // tinygrad: Tensor([0.1, 1e-7, 65504.0, 70000.0, -2.5, 1/3], dtype=dtypes.float16).bitcast(dtypes.uint16)
  //   -> [11878, 2, 31743, 31744, 49408, 13653]; as float32 (1e-7 aside): 0.0999755859375, 65504.0, inf, -2.5, 0.333251953125
  const UOp h = buffer(dtypes::float16, F{0.1, 1e-7, 65504.0, 70000.0, -2.5, 1.0 / 3});
  const HostArray r = reference_eval(h);
  CHECK(r.to_vector<double>() == F{0.0999755859375, 2 * 0x1p-24, 65504.0, INF, -2.5, 0.333251953125});
  CHECK(eval<std::int64_t>(h.bitcast(dtypes::uint16)) == I{11878, 2, 31743, 31744, 49408, 13653});
  CHECK(eval<double>(h.cast(dtypes::float32)) == F{0.0999755859375, 2 * 0x1p-24, 65504.0, INF, -2.5, 0.333251953125});
  // the bytes come back unchanged
  CHECK(std::equal(r.bytes.begin(), r.bytes.end(), host_buffer(h).bytes.begin(), host_buffer(h).bytes.end()));
}

TEST_CASE("reference: reshape, permute, expand", "[reference]") {
  CHECK(reference_eval(mop_reshape(arange({2, 3}), {3, 2})).shape == Shape{3, 2});
  CHECK(eval<std::int64_t>(mop_reshape(arange({2, 3}), {3, 2})) == I{0, 1, 2, 3, 4, 5});
  // tinygrad: Tensor.arange(24).reshape(2,3,4).permute(2,0,1).flatten().tolist(), and .permute(1,2,0)
  const UOp a = arange({2, 3, 4});
  const HostArray p = reference_eval(mop_permute(a, {2, 0, 1}));
  CHECK(p.shape == Shape{4, 2, 3});
  CHECK(p.to_vector<std::int64_t>() == I{0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
  CHECK(eval<std::int64_t>(mop_permute(a, {1, 2, 0})) ==
        I{0, 12, 1, 13, 2, 14, 3, 15, 4, 16, 5, 17, 6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11, 23});
  CHECK(eval<std::int64_t>(mop_permute(a, {0, 1, 2})) == eval<std::int64_t>(a));
  // expand repeats a size-1 axis
  const HostArray e = reference_eval(mop_expand(buffer(dtypes::int32, I{1, 2, 3}, {3, 1}), {3, 2}));
  CHECK(e.shape == Shape{3, 2});
  CHECK(e.to_vector<std::int64_t>() == I{1, 1, 2, 2, 3, 3});
  CHECK(eval<std::int64_t>(mop_expand(buffer(dtypes::int32, I{1, 2, 3}, {1, 3}), {2, 3})) == I{1, 2, 3, 1, 2, 3});
  CHECK(eval<std::int64_t>(mop_expand(buffer(dtypes::int32, I{1, 2, 3}, {1, 3}), {0, 3})).empty());
}

TEST_CASE("reference: pad, shrink, flip", "[reference]") {
  const UOp b = arange({2, 3});
  // tinygrad: b.pad(((1,1),(0,2))), which is PAD with (offset, size) = ((1, 4), (0, 5))
  const HostArray p = reference_eval(mop_pad(b, {{1, 4}, {0, 5}}));
  CHECK(p.shape == Shape{4, 5});
  CHECK(p.to_vector<std::int64_t>() == I{0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0});
  // the pad value is 0 in every dtype
  CHECK(eval<double>(mop_pad(full(dtypes::float32, Arg(-1.5), {1}), {{1, 3}})) == F{0, -1.5, 0});
  CHECK(eval<bool>(mop_pad(full(dtypes::bool_, Arg(true), {1}), {{0, 2}})) == B{true, false});
  // tinygrad: b.shrink(((1,2),(0,2))), SHRINK with (start, size) = ((1, 1), (0, 2))
  const HostArray s = reference_eval(mop_shrink(b, {{1, 1}, {0, 2}}));
  CHECK(s.shape == Shape{1, 2});
  CHECK(s.to_vector<std::int64_t>() == I{3, 4});
  CHECK(eval<std::int64_t>(mop_shrink(b, {{0, 2}, {1, 0}})).empty());
  CHECK(eval<std::int64_t>(mop_flip(b, {true, false})) == I{3, 4, 5, 0, 1, 2});
  CHECK(eval<std::int64_t>(mop_flip(b, {false, true})) == I{2, 1, 0, 5, 4, 3});
  CHECK(eval<std::int64_t>(mop_flip(b, {true, true})) == I{5, 4, 3, 2, 1, 0});
  CHECK(eval<std::int64_t>(mop_flip(b, {false, false})) == I{0, 1, 2, 3, 4, 5});
}

TEST_CASE("reference: a chain of movement ops", "[reference]") {
  // tinygrad: Tensor.arange(24).reshape(2,3,4).permute(2,0,1).pad(((0,1),(1,0),(2,1)))
  //             .shrink(((1,5),(0,2),(1,5))).flip((0,2)).flatten().tolist()
  const UOp c = mop_flip(mop_shrink(mop_pad(mop_permute(arange({2, 3, 4}), {2, 0, 1}), {{0, 5}, {1, 3}, {2, 6}}), {{1, 4}, {0, 2}, {1, 4}}),
                         {true, false, true});
  const HostArray r = reference_eval(c);
  CHECK(r.shape == Shape{4, 2, 4});
  CHECK(r.to_vector<std::int64_t>() == I{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11, 7, 3, 0,
                                         0, 0, 0, 0, 10, 6, 2, 0, 0, 0, 0, 0, 9, 5, 1, 0});
  // a movement op after an elementwise op, and an elementwise op of two views of one buffer
  const UOp b = arange({2, 3});
  CHECK(eval<std::int64_t>(mop_permute(b + b, {1, 0})) == I{0, 6, 2, 8, 4, 10});
  CHECK(eval<std::int64_t>(b + mop_flip(b, {true, true})) == I{5, 5, 5, 5, 5, 5});
}

TEST_CASE("reference: int elementwise ops keep the dtype's semantics", "[reference]") {
  // tinygrad: i = Tensor([2147483647, -7, 7, -7, 0], dtype=dtypes.int32), j = Tensor([1, 2, -2, -2, 5], ...)
  const UOp i = buffer(dtypes::int32, I{2147483647, -7, 7, -7, 0});
  const UOp j = buffer(dtypes::int32, I{1, 2, -2, -2, 5});
  CHECK(eval<std::int64_t>(i + j) == I{-2147483648, -5, 5, -9, 5});  // int32 wraps
  CHECK(eval<std::int64_t>(i.floordiv(j)) == I{2147483647, -4, -4, 3, 0});  // i // j, as Python
  CHECK(eval<std::int64_t>(i.floormod(j)) == I{0, 1, -1, -1, 0});            // i % j, as Python
  CHECK(eval<std::int64_t>(i.cdiv(j)) == I{2147483647, -3, -3, 3, 0});       // C's division truncates
  CHECK(eval<std::int64_t>(i.cmod(j)) == I{0, -1, 1, -1, 0});
  CHECK(eval<std::int64_t>(i.sub(j)) == I{2147483646, -9, 9, -5, -5});
  CHECK(eval<std::int64_t>(i.floordiv(full(dtypes::int32, Arg(0), {5}))) == I{0, 0, 0, 0, 0});  // x//0 is 0, as tinygrad's helpers
  // tinygrad: Tensor([65536, 3], dtype=dtypes.int32) * Tensor([65536, -5], dtype=dtypes.int32) -> [0, -15]
  CHECK(eval<std::int64_t>(buffer(dtypes::int32, I{65536, 3}) * buffer(dtypes::int32, I{65536, -5})) == I{0, -15});
  // tinygrad: Tensor([250, 3], dtype=dtypes.uint8) + Tensor([10, 3], dtype=dtypes.uint8) -> [4, 6]
  CHECK(eval<std::int64_t>(buffer(dtypes::uint8, I{250, 3}) + buffer(dtypes::uint8, I{10, 3})) == I{4, 6});
  const UOp u = buffer(dtypes::uint32, I{0xf0f0f0f0, 1});
  const UOp v = buffer(dtypes::uint32, I{0x0ff00ff0, 31});
  CHECK(eval<std::int64_t>(u & v) == I{0x00f000f0, 1});
  CHECK(eval<std::int64_t>(u | v) == I{0xfff0fff0, 31});
  CHECK(eval<std::int64_t>(u ^ v) == I{0xff00ff00, 30});
  CHECK(eval<std::int64_t>(u.alu(Ops::SHL, buffer(dtypes::uint32, I{4, 31}))) == I{0x0f0f0f00, 0x80000000});
  CHECK(eval<std::int64_t>(u.alu(Ops::SHR, buffer(dtypes::uint32, I{4, 1}))) == I{0x0f0f0f0f, 0});
  CHECK(eval<std::int64_t>(i.maximum(j)) == I{2147483647, 2, 7, -2, 5});
  CHECK(eval<std::int64_t>(-i) == I{-2147483647, 7, -7, 7, 0});
  // uint64 past int64's range, compared unsigned
  const UOp big = buffer(dtypes::uint64, std::vector<std::uint64_t>{~0ull, 1});
  CHECK(eval<std::uint64_t>(big.maximum(buffer(dtypes::uint64, I{5, 3}))) == std::vector<std::uint64_t>{~0ull, 3});
  CHECK(eval<std::uint64_t>(big + buffer(dtypes::uint64, I{2, 2})) == std::vector<std::uint64_t>{1, 3});
}

TEST_CASE("reference: float elementwise ops round to the dtype", "[reference]") {
  // tinygrad: Tensor([0.1]) + Tensor([0.2]) -> [0.30000001192092896]; in float64 -> [0.30000000000000004]
  CHECK(eval<double>(buffer(dtypes::float32, F{0.1}) + buffer(dtypes::float32, F{0.2})) == F{0.30000001192092896});
  CHECK(eval<double>(buffer(dtypes::float64, F{0.1}) + buffer(dtypes::float64, F{0.2})) == F{0.30000000000000004});
  CHECK(eval<double>(buffer(dtypes::float16, F{2048}) + buffer(dtypes::float16, F{1})) == F{2048});  // half has 11 bits
  const UOp x = buffer(dtypes::float32, F{4, -1, 0, 2});
  const auto s = eval<double>(x.sqrt());
  CHECK(s[0] == 2);
  CHECK(std::isnan(s[1]));
  CHECK(eval<double>(x.reciprocal()) == F{0.25, -1, INF, 0.5});
  const auto l = eval<double>(x.log2());
  CHECK((l[0] == 2 && std::isnan(l[1]) && l[2] == -INF && l[3] == 1));
  CHECK(eval<double>(x.exp2()) == F{16, 0.5, 1, 4});
  CHECK(eval<double>(x.alu(Ops::TRUNC)) == F{4, -1, 0, 2});
  CHECK(eval<double>(buffer(dtypes::float32, F{-2.5, 2.5}).alu(Ops::TRUNC)) == F{-2, 2});
  CHECK(eval<double>(x.mulacc(x, full(dtypes::float32, Arg(1.0), {4}))) == F{17, 2, 1, 5});
  CHECK(eval<double>(x.pow(full(dtypes::float32, Arg(2.0), {4}))) == F{16, 1, 0, 4});
  CHECK(eval<double>(buffer(dtypes::float32, F{1}).sin()) == F{double(float(std::sin(1.0)))});
}

TEST_CASE("reference: comparisons give bools, where selects", "[reference]") {
  const UOp a = buffer(dtypes::int32, I{1, 5, -3});
  const UOp b = buffer(dtypes::int32, I{2, 5, -4});
  CHECK(reference_eval(a.cmplt(b)).dtype == dtypes::bool_);
  CHECK(eval<bool>(a.cmplt(b)) == B{true, false, false});
  CHECK(eval<bool>(a.cmpne(b)) == B{true, false, true});
  CHECK(eval<bool>(a.cmpeq(b)) == B{false, true, false});
  const UOp f = buffer(dtypes::float32, F{NAN, 1.0});
  CHECK(eval<bool>(f.cmpne(f)) == B{true, false});  // nan != nan
  CHECK(eval<bool>(f.cmplt(f)) == B{false, false});
  // bool ops: AND, OR, XOR, and a bool ADD truncates to bool
  const UOp p = buffer(dtypes::bool_, B{true, true, false, false});
  const UOp q = buffer(dtypes::bool_, B{true, false, true, false});
  CHECK(eval<bool>(p & q) == B{true, false, false, false});
  CHECK(eval<bool>(p | q) == B{true, true, true, false});
  CHECK(eval<bool>(p ^ q) == B{false, true, true, false});
  CHECK(eval<bool>(p.alu(Ops::ADD, q)) == B{true, true, true, false});
  // where: the condition picks, a constant broadcast by expand on the other side
  const UOp w = a.cmplt(b).where(a, full(dtypes::int32, Arg(-100), {3}));
  CHECK(eval<std::int64_t>(w) == I{1, -100, -100});
  CHECK(eval<double>(buffer(dtypes::bool_, B{false, true}).where(full(dtypes::float32, Arg(1.5), {2}), buffer(dtypes::float32, F{2, 3}))) ==
        F{2, 1.5});
}

TEST_CASE("reference: elementwise sources broadcast by shape", "[reference]") {
  // shapes may differ where one is 1; a shorter shape aligns at the right
  const UOp a = arange({2, 3});
  CHECK(eval<std::int64_t>(a + buffer(dtypes::int32, I{10, 20, 30}, {1, 3})) == I{10, 21, 32, 13, 24, 35});
  CHECK(eval<std::int64_t>(a + buffer(dtypes::int32, I{10, 20}, {2, 1})) == I{10, 11, 12, 23, 24, 25});
  CHECK(eval<std::int64_t>(a + buffer(dtypes::int32, I{10, 20, 30})) == I{10, 21, 32, 13, 24, 35});
  CHECK(reference_eval(buffer(dtypes::int32, I{1, 2}, {2, 1}) * buffer(dtypes::int32, I{1, 2, 3}, {1, 3})).shape == Shape{2, 3});
  CHECK(eval<std::int64_t>(buffer(dtypes::int32, I{1, 2}, {2, 1}) * buffer(dtypes::int32, I{1, 2, 3}, {1, 3})) == I{1, 2, 3, 2, 4, 6});
}

TEST_CASE("reference: cast and bitcast", "[reference]") {
  // tinygrad: Tensor([-2.7, 2.7, -0.5, 0.5, 1e9]).cast(dtypes.int32) -> [-2, 2, 0, 0, 1000000000]
  CHECK(eval<std::int64_t>(buffer(dtypes::float32, F{-2.7, 2.7, -0.5, 0.5, 1e9}).cast(dtypes::int32)) == I{-2, 2, 0, 0, 1000000000});
  // tinygrad: Tensor([0, 1, -3, 256], dtype=dtypes.int32).cast(dtypes.bool) -> [False, True, True, True]
  CHECK(eval<bool>(buffer(dtypes::int32, I{0, 1, -3, 256}).cast(dtypes::bool_)) == B{false, true, true, true});
  // tinygrad: Tensor([300, -1, 255], dtype=dtypes.int32).cast(dtypes.uint8) -> [44, 255, 255]
  CHECK(eval<std::int64_t>(buffer(dtypes::int32, I{300, -1, 255}).cast(dtypes::uint8)) == I{44, 255, 255});
  CHECK(eval<double>(buffer(dtypes::int32, I{16777217, -1}).cast(dtypes::float32)) == F{16777216, -1});
  CHECK(eval<double>(buffer(dtypes::bool_, B{true, false}).cast(dtypes::float16)) == F{1, 0});
  CHECK(eval<double>(buffer(dtypes::float64, F{0.1}).cast(dtypes::bfloat16)) == F{0.10009765625});
  // tinygrad: Tensor([1.0, -0.0, 0.1]).bitcast(dtypes.int32) -> [1065353216, -2147483648, 1036831949]
  CHECK(eval<std::int64_t>(buffer(dtypes::float32, F{1.0, -0.0, 0.1}).bitcast(dtypes::int32)) == I{1065353216, -2147483648, 1036831949});
  // tinygrad: Tensor([1065353216, -1082130432, 1], dtype=dtypes.int32).bitcast(dtypes.float32) -> [1.0, -1.0, 1.401298464324817e-45]
  CHECK(eval<double>(buffer(dtypes::int32, I{1065353216, -1082130432, 1}).bitcast(dtypes::float32)) == F{1.0, -1.0, 1.401298464324817e-45});
  CHECK(std::isnan(eval<double>(buffer(dtypes::int32, I{-1}).bitcast(dtypes::float32))[0]));
  CHECK(eval<std::int64_t>(buffer(dtypes::int32, I{-1}).bitcast(dtypes::float32).bitcast(dtypes::int32)) == I{-1});  // nan keeps its bits
  CHECK(eval<std::int64_t>(buffer(dtypes::int8, I{-2, 2}).bitcast(dtypes::uint8)) == I{254, 2});
  // a bool read from a byte other than 0 or 1 is true, and stored back as 1
  CHECK(eval<std::int64_t>(buffer(dtypes::uint8, I{2, 0}).bitcast(dtypes::bool_).bitcast(dtypes::uint8)) == I{1, 0});
}

TEST_CASE("reference: THREEFRY against tinygrad", "[reference]") {
  // tinygrad: x = Tensor([0, 1, 2**32+5, 2**64-1], dtype=dtypes.uint64)
  //           k = Tensor([0, 7, 0x123456789abcdef0, 2**64-1], dtype=dtypes.uint64); x.threefry(k).tolist()
  const UOp x = buffer(dtypes::uint64, std::vector<std::uint64_t>{0, 1, (1ull << 32) + 5, ~0ull});
  const UOp k = buffer(dtypes::uint64, std::vector<std::uint64_t>{0, 7, 0x123456789abcdef0ull, ~0ull});
  CHECK(eval<std::uint64_t>(x.threefry(k)) ==
        std::vector<std::uint64_t>{11077253088097075545ull, 5731837475286458671ull, 6720348697875475971ull, 13474818356711888636ull});
  // Random123's known answer for counter 0, key 0: 0x6b200159 (low word), 0x99ba4efe (high word)
  CHECK(eval<std::uint64_t>(x.threefry(k))[0] == 0x99ba4efe6b200159ull);
}

TEST_CASE("reference: reductions", "[reference]") {
  // tinygrad: a = Tensor.arange(24).reshape(2,3,4); a.sum(axis=(0,2)), a.prod(axis=1), a.max(axis=1)
  const UOp a = arange({2, 3, 4});
  const HostArray s = reference_eval(rop(a, Ops::ADD, {0, 2}));
  CHECK(s.shape == Shape{1, 3, 1});  // reduced axes stay, as size 1
  CHECK(s.to_vector<std::int64_t>() == I{60, 92, 124});
  CHECK(eval<std::int64_t>(rop(a, Ops::MUL, {1})) == I{0, 45, 120, 231, 3840, 4641, 5544, 6555});
  CHECK(eval<std::int64_t>(rop(a, Ops::MAX, {1})) == I{8, 9, 10, 11, 20, 21, 22, 23});
  CHECK(eval<std::int64_t>(rop(a, Ops::ADD, {0, 1, 2})) == I{276});
  CHECK(eval<std::int64_t>(rop(mop_permute(a, {2, 1, 0}), Ops::ADD, {2})) == I{12, 20, 28, 14, 22, 30, 16, 24, 32, 18, 26, 34});
  CHECK(eval<double>(rop(buffer(dtypes::float32, F{-1, -INF, -3}), Ops::MAX, {0})) == F{-1});
  // ints wrap as the dtype does: tinygrad's sum(dtype=dtypes.int32) of [2147483647, 2147483647, 3] -> 1,
  // prod(dtype=dtypes.int32) of [65536, 65536, 3] -> 0
  CHECK(eval<std::int64_t>(rop(buffer(dtypes::int32, I{2147483647, 2147483647, 3}), Ops::ADD, {0})) == I{1});
  CHECK(eval<std::int64_t>(rop(buffer(dtypes::int32, I{65536, 65536, 3}), Ops::MUL, {0})) == I{0});
  CHECK(eval<std::uint64_t>(rop(buffer(dtypes::uint64, std::vector<std::uint64_t>{1, ~0ull, 5}), Ops::MAX, {0})) ==
        std::vector<std::uint64_t>{~0ull});
  CHECK(eval<std::uint64_t>(rop(buffer(dtypes::uint64, std::vector<std::uint64_t>{~0ull, 2}), Ops::ADD, {0})) == std::vector<std::uint64_t>{1});
  // bools: ADD and MAX are OR, MUL is AND
  const UOp p = buffer(dtypes::bool_, B{false, true, false, false}, {2, 2});
  CHECK(eval<bool>(rop(p, Ops::ADD, {1})) == B{true, false});
  CHECK(eval<bool>(rop(p, Ops::MAX, {1})) == B{true, false});
  CHECK(eval<bool>(rop(p, Ops::MUL, {0})) == B{false, false});
  CHECK(eval<bool>(rop(buffer(dtypes::bool_, B{true, true}), Ops::MUL, {0})) == B{true});
}

TEST_CASE("reference: float reductions accumulate in double and round once", "[reference]") {
  // ten float32 0.1s: tinygrad's float32 accumulation gives 1.0000001192092896; the exact sum of the
  // float32 values, 1.0000000149..., rounds to 1.0
  CHECK(eval<double>(rop(full(dtypes::float32, Arg(0.1), {10}), Ops::ADD, {0})) == F{1.0});
  CHECK(eval<double>(rop(full(dtypes::float64, Arg(0.1), {10}), Ops::ADD, {0})) == F{0.9999999999999999});  // a double sum
  // float16 2048 + 1 + 1: half steps would stay at 2048; tinygrad's sum(dtype=float16), which adds in float32, gives 2050
  CHECK(eval<double>(rop(buffer(dtypes::float16, F{2048, 1, 1}), Ops::ADD, {0})) == F{2050});
  // the product overflows float16 only when rounded at the end
  CHECK(eval<double>(rop(buffer(dtypes::float16, F{60000, 4, 0.25}), Ops::MUL, {0})) == F{60000});
  CHECK(eval<double>(rop(buffer(dtypes::float32, F{1e30, 1e30, 1e-30}), Ops::MUL, {0})) == F{double(float(1e30))});
}

TEST_CASE("reference: reductions over size-0 axes give the identity", "[reference]") {
  const UOp e = mop_reshape(new_buffer("CPU", 0, dtypes::float32), {2, 0});
  CHECK(reference_eval(rop(e, Ops::ADD, {1})).shape == Shape{2, 1});
  CHECK(eval<double>(rop(e, Ops::ADD, {1})) == F{0, 0});
  CHECK(eval<double>(rop(e, Ops::MUL, {1})) == F{1, 1});
  CHECK(eval<double>(rop(e, Ops::MAX, {1})) == F{-INF, -INF});
  CHECK(eval<double>(rop(e, Ops::ADD, {0})).empty());  // reducing the other axis leaves (1, 0): nothing
  CHECK(eval<double>(rop(e, Ops::MAX, {0, 1})) == F{-INF});
  const UOp ei = mop_reshape(new_buffer("CPU", 0, dtypes::int32), {0, 3});
  CHECK(eval<std::int64_t>(rop(ei, Ops::MAX, {0})) == I{-2147483648, -2147483648, -2147483648});
  CHECK(eval<std::int64_t>(rop(ei, Ops::ADD, {0})) == I{0, 0, 0});
  CHECK(eval<std::int64_t>(rop(new_buffer("CPU", 0, dtypes::uint8), Ops::MAX, {0})) == I{0});
  CHECK(eval<bool>(rop(new_buffer("CPU", 0, dtypes::bool_), Ops::MAX, {0})) == B{false});
  CHECK(eval<bool>(rop(new_buffer("CPU", 0, dtypes::bool_), Ops::MUL, {0})) == B{true});
}

TEST_CASE("reference: each node is evaluated once", "[reference]") {
  // x = x + x, 62 times: 2^62 paths from the root to the buffer, so only a memoized walk finishes
  UOp x = buffer(dtypes::int64, I{1, -1});
  for (int i = 0; i < 62; ++i) x = x + x;
  CHECK(eval<std::int64_t>(x) == I{std::int64_t(1) << 62, -(std::int64_t(1) << 62)});
  // a 20,000-deep chain does not overflow the stack
  UOp y = buffer(dtypes::int32, I{0});
  for (int i = 0; i < 20000; ++i) y = y + full(dtypes::int32, Arg(1), {1});
  CHECK(eval<std::int64_t>(y) == I{20000});
}

TEST_CASE("reference: errors name the op, the dtypes and the shapes", "[reference]") {
  const UOp a = arange({2, 3});
  // a reduction op other than ADD, MUL, MAX
  const std::string r = eval_error(rop(a, Ops::SUB, {1}));
  CHECK_THAT(r, Catch::StartsWith("reference_eval: Ops.REDUCE (dtypes.int (2, 1), sources: dtypes.int (2, 3))"));
  CHECK_THAT(r, Catch::Contains("Ops.SUB"));
  // a BUFFER whose host bytes have the wrong size
  const UOp b = new_buffer("CPU", 4, dtypes::float32);
  host_buffer(b).bytes.resize(3);
  CHECK(eval_error(b) == "reference_eval: Ops.BUFFER (dtypes.float (4,), sources: none): host bytes hold 3 bytes, 16 expected");
  // no shape: a SINK, a DEVICE
  CHECK_THAT(eval_error(UOp::sink(a)), Catch::Contains("Ops.SINK"));
  CHECK_THAT(eval_error(device_uop("CPU")), Catch::Contains("Ops.DEVICE"));
  // invalid movement and broadcast (shape_of's checks)
  CHECK(eval_error(UOp(Ops::RESHAPE, dtypes::int32, {a, shape_arg({4})})) == "reshape: bad reshape (2, 3) -> (4,)");
  CHECK(eval_error(a + arange({3, 2})) == "Ops.ADD: shapes (2, 3), (3, 2) cannot broadcast together");
  CHECK(eval_error(UOp(Ops::PAD, dtypes::int32, {a, shape_arg({0}), shape_arg({1, 2})})) == "Ops.PAD: 1 offsets but 2 sizes");
  // a value the op refuses: nan has no int
  CHECK_THAT(eval_error(buffer(dtypes::float32, F{NAN}).cast(dtypes::int32)),
             Catch::StartsWith("reference_eval: Ops.CAST (dtypes.int (1,), sources: dtypes.float (1,))") &&
                 Catch::Contains("cannot convert nan to an integer"));
  // ops with no evaluation
  CHECK_THAT(eval_error(buffer(dtypes::float32, F{1}).fdiv(buffer(dtypes::float32, F{2}))), Catch::Contains("Ops.FDIV"));
  CHECK_THAT(eval_error(a.threefry(a)), Catch::Contains("Ops.THREEFRY") && Catch::Contains("uint64"));
  CHECK_THAT(eval_error(UOp(Ops::STORE, dtypes::void_, {a, a})), Catch::Contains("no reference evaluation for Ops.STORE"));
  CHECK_THAT(eval_error(UOp(Ops::ADD, dtypes::int32, {a})), Catch::Contains("Ops.ADD has 1 sources, 2 expected"));
  CHECK_THAT(eval_error(UOp(Ops::CAST, dtypes::weakint, {a})), Catch::Contains("Ops.CAST") && Catch::Contains("no storage format"));
  CHECK_THAT(eval_error(UOp(Ops::BITCAST, dtypes::int32, {buffer(dtypes::int16, I{1, 2, 3})})), Catch::Contains("Ops.BITCAST"));
  CHECK_THAT(eval_error(UOp(Ops::CONST, dtypes::float32.vec(2), {}, Arg(1.0))), Catch::Contains("vector"));
}
