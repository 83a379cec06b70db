// Every device computes what the reference evaluator computes: a battery of tensor graphs (fusion,
// reductions, movement ops, pads, casts, every dtype family) realized on CPU (LLVM) and on INTERP, each
// compared element by element with reference_eval of the same graph.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <metagrad/metagrad.hpp>

#include "../tensor/check.hpp"

using namespace mg;

namespace {

using test::ramp;
std::vector<int> iramp(std::size_t n) {
  std::vector<int> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = int(i * 13 % 29) - 14;
  return v;
}

// t's graph computed by the engine on t's device, as a host array
HostArray run_engine(const Tensor& t) {
  const UOp buf = realize_uops({t.uop()})[0];
  HostArray a(t.dtype(), t.shape());
  const auto& bytes = host_buffer(buf).bytes;
  REQUIRE(bytes.size() == a.bytes.size());
  std::copy(bytes.begin(), bytes.end(), a.bytes.begin());
  return a;
}

// realizes t on its device and compares it with the reference evaluator's value of the same graph
void check_device(const Tensor& t, double atol = 1e-5, double rtol = 1e-5) {
  const HostArray want = reference_eval(t.uop());
  const HostArray got = run_engine(t);
  REQUIRE(got.dtype == want.dtype);
  REQUIRE(got.shape == want.shape);
  if (want.dtype.is_float()) {
    test::check_close(got.to_vector<double>(), want.to_vector<double>(), atol, rtol);
  } else {
    CHECK(got.bytes == want.bytes);
  }
}

using Case = std::pair<const char*, std::function<Tensor(const std::string&)>>;

std::vector<Case> cases() {
  auto A = [](const std::string& d) { return Tensor::from(ramp(48), {4, 12}, std::nullopt, d); };
  auto B = [](const std::string& d) { return Tensor::from(ramp(48, 0.5f, 1.0f), {4, 12}, std::nullopt, d); };
  auto C = [](const std::string& d) { return Tensor::from(ramp(12, 0.125f), {12}, std::nullopt, d); };
  auto I = [](const std::string& d) { return Tensor::from(iramp(48), {4, 12}, std::nullopt, d); };
  return {
      {"a+b", [=](auto d) { return A(d) + B(d); }},
      {"(a*b+c).relu()", [=](auto d) { return (A(d) * B(d) + C(d)).relu(); }},
      {"exp, log, sqrt, sin", [=](auto d) { return A(d).exp() + B(d).log() + B(d).sqrt() + A(d).sin(); }},
      {"sum(1)", [=](auto d) { return A(d).sum(1); }},
      {"sum()", [=](auto d) { return (A(d) * B(d)).sum(); }},
      {"max(0)", [=](auto d) { return A(d).max(0); }},
      {"mean keepdim + sub", [=](auto d) { return A(d) - A(d).mean(1, true); }},
      {"softmax", [=](auto d) { return A(d).softmax(1); }},
      {"log_softmax(0)", [=](auto d) { return A(d).log_softmax(0); }},
      {"matmul", [=](auto d) { return A(d).matmul(B(d).transpose()); }},
      {"permute+contiguous+add", [=](auto d) { return (A(d) + 1).transpose().contiguous() * 2; }},
      {"pad", [=](auto d) { return A(d).pad({{1, 2}, {0, 3}}) + 1; }},
      {"pad then sum", [=](auto d) { return A(d).pad({{1, 1}, {2, 0}}).sum(0); }},
      {"shrink+flip", [=](auto d) { return A(d).shrink({{1, 3}, {2, 10}}).flip({0, 1}); }},
      {"reshape chain", [=](auto d) { return A(d).reshape({2, 2, 3, 4}).permute({3, 1, 0, 2}).reshape({12, 4}) + 0.5; }},
      {"expand", [=](auto d) { return C(d).reshape({1, 12}).expand({4, 12}) * A(d); }},
      {"cumsum", [=](auto d) { return A(d).cumsum(1); }},
      {"where / cmp", [=](auto d) { return (A(d) < B(d)).where(A(d), B(d) * 2); }},
      {"int arith", [=](auto d) { return I(d) * 3 + I(d).idiv(Tensor::full({}, 4, dtypes::int32, d)); }},
      {"int div/mod negatives", [=](auto d) { return I(d).mod(Tensor::full({}, 5, dtypes::int32, d)) + I(d).idiv(Tensor::full({}, -3, dtypes::int32, d)); }},
      {"int sum and max", [=](auto d) { return I(d).sum(0) + I(d).max(0); }},
      {"casts", [=](auto d) { return A(d).cast(dtypes::int32).cast(dtypes::float32) + A(d).cast(dtypes::float16).cast(dtypes::float32); }},
      {"bool ops", [=](auto d) { return ((A(d) > 0) & (B(d) > 2)).cast(dtypes::int32); }},
      {"float16 math", [=](auto d) { return (A(d).cast(dtypes::float16) * 2 + 1).cast(dtypes::float32); }},
      {"negative float to unsigned wraps", [=](auto d) { return A(d).cast(dtypes::uint16).cast(dtypes::int32) + A(d).cast(dtypes::uint8).cast(dtypes::int32); }},
      {"negative float to uint64 wraps", [=](auto d) { return A(d).cast(dtypes::uint64); }},
      {"uint8 wrap", [=](auto d) { return (I(d).cast(dtypes::uint8) * 37).cast(dtypes::int32); }},
      {"int64", [=](auto d) { return I(d).cast(dtypes::int64) * 1000000007LL; }},
      {"float64 sum", [=](auto d) { return A(d).cast(dtypes::float64).sum(1); }},
      {"arange", [=](auto d) { return Tensor::arange(10, std::nullopt, 1, std::nullopt, d) * 2; }},
      {"full + expand", [=](auto d) { return Tensor::full({3, 4}, 2.5, std::nullopt, d) + Tensor::ones({4}, dtypes::float32, d); }},
      {"size 0", [=](auto d) { return Tensor::ones({0, 4}, dtypes::float32, d).sum(0); }},
      {"conv2d", [=](auto d) {
         return A(d).reshape({1, 1, 4, 12}).conv2d(Tensor::from(ramp(9, 0.1f, -0.4f), {1, 1, 3, 3}, std::nullopt, d), std::nullopt, 1, 1, 1, 1);
       }},
      {"max_pool2d", [=](auto d) { return A(d).reshape({1, 1, 4, 12}).max_pool2d(2); }},
  };
}

}  // namespace

TEST_CASE("devices: CPU and INTERP agree with the reference evaluator", "[engine]") {
  for (const char* dev : {"CPU", "INTERP"}) {
    for (const auto& [name, make] : cases()) {
      INFO("device " << dev << ", case " << name);
      check_device(make(dev));
    }
  }
}

TEST_CASE("devices: NULL schedules and compiles but computes nothing", "[engine]") {
  Tensor t = (Tensor::ones({8, 8}, dtypes::float32, "NULL") * 3).sum(1);
  const UOp buf = realize_uops({t.uop()})[0];
  CHECK(buf.arg().as_int() == 8);
  CHECK(buf.src(1).arg().as_str() == "NULL");
}

TEST_CASE("devices: copies between devices keep values", "[engine]") {
  Tensor a = Tensor::from(ramp(12), {3, 4}, std::nullopt, "CPU");
  Tensor b = (a * 2).to("INTERP") + 1;
  CHECK(b.device() == "INTERP");
  test::check_close(run_engine(b).to_vector<float>(), reference_eval(b.uop()).to_vector<double>());
  Tensor c = b.to("CPU").sum();
  CHECK(run_engine(c).to_vector<float>()[0] == Approx(reference_eval(c.uop()).to_vector<double>()[0]));
}

TEST_CASE("devices: an unknown device is an error naming it", "[engine]") {
  Tensor a = Tensor::ones({2}, dtypes::float32, "TPU");
  CHECK_THROWS_WITH(realize_uops({(a + 1).uop()}), Catch::Contains("TPU"));
}

TEST_CASE("devices: identical kernels compile once", "[engine]") {
  auto& engine = detail::Engine<>::instance();
  Tensor x = Tensor::from(ramp(64), {8, 8}), y = Tensor::from(ramp(64, 1.0f), {8, 8});
  realize_uops({(x * 3 + 1).uop()});
  const std::size_t n = engine.cached_kernels();
  realize_uops({(y * 3 + 1).uop()});  // same kernel, other buffers
  CHECK(engine.cached_kernels() == n);
}

TEST_CASE("devices: a long loop of small realizes keeps memory flat", "[engine]") {
  auto& engine = detail::Engine<>::instance();
  Tensor w = Tensor::from(ramp(16), {16});
  auto step = [&](int i) {  // a new input buffer each time; the kernels stay the same
    Tensor x = Tensor::from(std::vector<float>{float(i)}, {1});
    return run_engine((w * x + 1).sum()).to_vector<float>()[0];
  };
  step(0);
  const std::size_t kernels = engine.cached_kernels(), nodes = live_uops();
  for (int i = 1; i < 300; ++i) step(i);
  CHECK(engine.cached_kernels() == kernels);
  CHECK(live_uops() <= nodes + 64);
}

TEST_CASE("devices: the example of docs/devices.md", "[engine][docs]") {
  Tensor a = Tensor::from({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  Tensor s = (a * 2).softmax(1);
  CHECK(create_schedule({s.uop()}).items.size() == 3);
  std::vector<float> cpu = s.to_vector<float>();
  std::vector<float> interp = (a.to("INTERP") * 2).softmax(1).to_vector<float>();
  test::check_close(cpu, std::vector<double>(interp.begin(), interp.end()), 1e-6, 1e-5);
  CHECK(cpu[2] == Approx(std::exp(6.0) / (std::exp(2.0) + std::exp(4.0) + std::exp(6.0))));
}
