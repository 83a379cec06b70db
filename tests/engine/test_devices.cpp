// Every device computes what the reference evaluator computes: a battery of tensor graphs (fusion,
// reductions, movement ops, pads, casts, every dtype family) realized on CPU (LLVM) and on INTERP, each
// compared element by element with reference_eval of the same graph.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <regex>
#include <sstream>
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

TEST_CASE("devices: NULL lowers kernels as tinygrad's NULL device does, the CPU with its own opts", "[engine]") {
  const Target null = detail::device_target(DeviceKind::NULL_), cpu = detail::device_target(DeviceKind::CPU);
  // tinygrad's NULL renderer: float4, its heuristic alone, no threads
  CHECK(null.float_lanes == 4);
  CHECK(null.threads == 1);
  CHECK_FALSE(null.register_blocking);
  CHECK(null.partial_sums == 0);
  CHECK(cpu.float_lanes == 8);
  CHECK(cpu.register_blocking);
  // a 64x64 matmul: tinygrad's DEV=NULL DEBUG=2 names its kernel r_16_16_4_4_16_4
  const Tensor a = Tensor::empty({64, 64}, dtypes::float32, "NULL"), b = Tensor::empty({64, 64}, dtypes::float32, "NULL");
  const Schedule s = create_schedule<void>({a.matmul(b).uop()}, "NULL");
  REQUIRE(s.items.size() == 1);
  CHECK(to_program(s.items[0].ast, null).name == "r_16_16_4_4_16_4");
  CHECK(to_program(s.items[0].ast, cpu).name != "r_16_16_4_4_16_4");
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

// (the warm start itself, a second process with no libLLVM, is tests/engine/warm_start.cpp)
TEST_CASE("devices: the warm-start example of docs/devices.md", "[engine][docs]") {
  Tensor a = Tensor::from({1.f, 2.f, 3.f}, {3});
  std::vector<float> out = (a * 2 + 1).to_vector<float>();
  CHECK(out == std::vector<float>{3, 5, 7});
}

namespace {
// make(device) on CPU and on INTERP: the bytes of both, which must be equal, and equal to the reference
// evaluator's unless told otherwise
std::vector<std::byte> same_bits(const std::function<Tensor(const std::string&)>& make, bool reference = true) {
  const Tensor cpu = make("CPU"), interp = make("INTERP");
  const HostArray want = reference_eval(cpu.uop());
  const HostArray got_cpu = run_engine(cpu), got_interp = run_engine(interp);
  CHECK(got_cpu.bytes == got_interp.bytes);
  if (reference) CHECK(got_cpu.bytes == want.bytes);
  return got_cpu.bytes;
}
std::uint8_t byte_at(const std::vector<std::byte>& b, std::size_t i) { return std::uint8_t(b[i]); }
// x as an fp8 byte: float_to_fp8's, but a nan is always 0x7f (as INTERP stores it: it holds fp8 values as
// doubles, and fp8_to_float's nan is positive)
std::uint8_t fp8_byte(double x, DType dt) {
  const std::uint8_t b = detail::float_to_fp8(x, dt.kind());
  return std::isnan(detail::fp8_to_float(b, dt.kind())) ? std::uint8_t(0x7f) : b;
}
std::uint32_t word_at(const std::vector<std::byte>& b, std::size_t i) {
  std::uint32_t w;
  std::memcpy(&w, b.data() + 4 * i, 4);
  return w;
}
}  // namespace

TEST_CASE("devices: fp8 on CPU is emulated, bit for bit as INTERP and the reference evaluator", "[engine][fp8]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // exact values; ties (e4m3: 17 between 16 and 18, 1.0625; e5m2: 1.125, 1.375) and just above one; between
  // subnormals (e4m3's are multiples of 2^-9, e5m2's of 2^-16) and under half the smallest; the largest
  // finite values and above them (both saturate: e4m3 at 448, e5m2 at 57344); inf, nan, -0.0
  const std::vector<float> v{0.0f, -0.0f, 1.0f, -2.0f, 0.5f, 3.5f, 17.0f, 19.0f, 17.0001f, -17.0f, 1.0625f, 1.1875f, 1.125f, 1.375f,
                             std::ldexp(1.0f, -6), std::ldexp(1.0f, -9), std::ldexp(1.5f, -9), std::ldexp(2.5f, -9), std::ldexp(1.0f, -10),
                             std::ldexp(1.2f, -10), std::ldexp(1.0f, -14), std::ldexp(1.0f, -16), std::ldexp(1.5f, -16), std::ldexp(2.5f, -16),
                             std::ldexp(1.0f, -17), std::ldexp(1.2f, -17), 1e-30f, -1e-30f, 1e-40f, 240.0f, 448.0f, 449.0f, 464.0f, 465.0f,
                             480.0f, -500.0f, 1e6f, 57344.0f, 61439.0f, 61440.0f, 65504.0f, -1e9f, 3e38f, inf, -inf, nan, -nan};
  const auto n = std::int64_t(v.size());
  for (DType dt : {dtypes::fp8e4m3, dtypes::fp8e5m2}) {
    INFO(dt.repr());
    const bool e4 = dt == dtypes::fp8e4m3;
    // float32 -> fp8
    const auto b = same_bits([&](const std::string& d) { return Tensor::from(v, {n}, std::nullopt, d).cast(dt); });
    for (std::size_t i = 0; i < v.size(); ++i) {
      INFO("value " << v[i]);
      CHECK(byte_at(b, i) == fp8_byte(v[i], dt));
    }
    CHECK(byte_at(b, 1) == 0x80);                      // -0.0
    CHECK(byte_at(b, 6) == (e4 ? 0x58 : 0x4c));       // 17 -> 16, the even neighbour
    CHECK(byte_at(b, 8) == (e4 ? 0x59 : 0x4c));       // 17.0001 -> 18 (e4m3); 16 (e5m2: ties are at 18 and 22)
    CHECK(byte_at(b, 15) == (e4 ? 0x01 : 0x18));      // 2^-9: e4m3's smallest subnormal
    CHECK(byte_at(b, 17) == (e4 ? 0x02 : 0x1d));      // 2.5 * 2^-9 -> 2 * 2^-9 (e4m3)
    CHECK(byte_at(b, 23) == (e4 ? 0x00 : 0x02));      // 2.5 * 2^-16 -> 2 * 2^-16 (e5m2)
    CHECK(byte_at(b, 34) == (e4 ? 0x7e : 0x60));      // 480: above e4m3's 448, saturated; e5m2: a tie, to 512
    CHECK(byte_at(b, 39) == (e4 ? 0x7e : 0x7b));      // 61440: e5m2 saturates at 57344
    CHECK(byte_at(b, 43) == (e4 ? 0x7f : 0x7c));      // inf: e4m3 has none (its nan); e5m2's inf
    CHECK(byte_at(b, 44) == (e4 ? 0x7f : 0xfc));      // -inf
    CHECK(byte_at(b, 45) == 0x7f);                    // nan
    CHECK(byte_at(b, 46) == 0x7f);                    // -nan: the sign is not kept
    // fp8 -> float32, from a realized fp8 buffer
    const auto f = same_bits([&](const std::string& d) {
      Tensor t = Tensor::from(v, {n}, std::nullopt, d).cast(dt);
      t.realize();
      return t.cast(dtypes::float32);
    });
    for (std::size_t i = 0; i < v.size(); ++i)
      CHECK(word_at(f, i) == std::bit_cast<std::uint32_t>(float(detail::fp8_to_float(byte_at(b, i), dt.kind()))));
    // every byte, through bitcast
    std::vector<std::uint8_t> all(256);
    for (int i = 0; i < 256; ++i) all[std::size_t(i)] = std::uint8_t(i);
    const auto g = same_bits([&](const std::string& d) { return Tensor::from(all, {256}, std::nullopt, d).bitcast(dt).cast(dtypes::float32); });
    for (int i = 0; i < 256; ++i)
      CHECK(word_at(g, std::size_t(i)) == std::bit_cast<std::uint32_t>(float(detail::fp8_to_float(std::uint8_t(i), dt.kind()))));

    // fp8 arithmetic: each result rounded to fp8 (saturating), as INTERP computes it
    const std::vector<float> va{1, 2.5f, -3, 17, 0.1f, 300, 448, -448, std::ldexp(1.0f, -9), 57344, inf, nan, -0.0f, 1e-3f, 6, 0.75f};
    const std::vector<float> vb{1, 0.5f, 3, 1, 0.3f, 300, 448, 100, std::ldexp(1.0f, -9), 57344, 1, 2, 0, 1e-3f, -6, 0.125f};
    auto A = [&](const std::string& d) { return Tensor::from(va, {16}, std::nullopt, d).cast(dt).realize(); };
    auto B = [&](const std::string& d) { return Tensor::from(vb, {16}, std::nullopt, d).cast(dt).realize(); };
    const auto sum = same_bits([&](const std::string& d) { return A(d) + B(d); });
    const auto prod = same_bits([&](const std::string& d) { return A(d) * B(d); });
    CHECK(byte_at(sum, 0) == fp8_byte(2.0, dt));
    CHECK(byte_at(prod, 3) == fp8_byte(16.0, dt));  // 17 is 16 in both fp8s
    CHECK(byte_at(sum, 6) == (e4 ? 0x7e : fp8_byte(896.0, dt)));  // 448+448 saturates in e4m3
    CHECK(byte_at(prod, 9) == (e4 ? 0x7e : 0x7b));                                  // 57344^2 saturates
    same_bits([&](const std::string& d) { return A(d).maximum(B(d)); });
    same_bits([&](const std::string& d) { return (A(d) < B(d)).cast(dtypes::int32); });
    // a sum: accumulated in float32 and rounded once (tinygrad's sum_acc_dtype), and one accumulated in fp8
    const std::vector<float> vs{1, 2, 3, 4, 0.5f, 0.25f, 16, 17, 100, 0.1f, 7, 9, 11, 13, 0.3f, 1.5f};
    const auto s1 = same_bits([&](const std::string& d) { return Tensor::from(vs, {16}, std::nullopt, d).cast(dt).realize().sum(); });
    CHECK(byte_at(s1, 0) == (e4 ? 0x73 : 0x5a));  // the fp8 inputs sum to 180.66 (e4m3) / 179.66 (e5m2): 176 / 192
    // accumulated in fp8, each partial sum rounded (the reference evaluator rounds a REDUCE once: not compared)
    const auto s2 = same_bits([&](const std::string& d) { return Tensor::from(vs, {4, 4}, std::nullopt, d).cast(dt).realize().sum({1}, false, dt); },
                              false);
    const std::vector<int> rows = e4 ? std::vector<int>{0x52, 0x60, 0x6e, 0x5d} : std::vector<int>{0x49, 0x50, 0x56, 0x4e};
    for (std::size_t i = 0; i < 4; ++i) CHECK(byte_at(s2, i) == rows[i]);  // e5m2 row 2: 96 + 0.09375 + 7 + 8 stays 96 (once: 112)
    // fp8 -> int32 truncates; int32 -> fp8 rounds and saturates
    const std::vector<float> vi{1, 2.5f, -3.75f, 17, 0.1f, 300, 448, -448, 57344, -0.0f, 6.5f, -0.75f};
    const auto ti = same_bits([&](const std::string& d) { return Tensor::from(vi, {12}, std::nullopt, d).cast(dt).realize().cast(dtypes::int32); });
    CHECK(word_at(ti, 2) == std::uint32_t(e4 ? -3 : -4));  // -3.75 is e4m3 (truncated to -3); e5m2 rounds it to -4
    const std::vector<int> ints{0, 1, -3, 17, 19, 447, 449, 460, 464, 465, 1000, 57000, 61439, 61440, 100000, 2147483647, -2147483647 - 1};
    const auto fi = same_bits([&](const std::string& d) { return Tensor::from(ints, {17}, std::nullopt, d).cast(dt); });
    for (std::size_t i = 0; i < ints.size(); ++i) CHECK(byte_at(fi, i) == fp8_byte(double(ints[i]), dt));
  }
}

TEST_CASE("devices: a CPU kernel on fp8 does no fp8 arithmetic in its LLVM IR", "[engine][fp8]") {
  constexpr DType f8 = dtypes::fp8e4m3;
  const UOp out = UOp::param(0, f8.ptr(16)), a = UOp::param(1, f8.ptr(16)), b = UOp::param(2, dtypes::float32.ptr(16));
  const UOp r = UOp::range(16, 0);
  const UOp x = a.index({r});
  const UOp v = (x * b.index({r}).cast(f8) + x).maximum(x);
  const UOp ast = UOp(Ops::SINK, dtypes::void_, {out.index({r}).store(v).end({r})}, Arg(std::string("fp8_math")));
  const Program p = to_program(ast, detail::device_target(DeviceKind::CPU));
  for (const UOp& u : p.uops)
    if (GroupOp::ALU.contains(u.op()) || (u.op() == Ops::CAST && !u.dtype().is_ptr)) {
      INFO(op_repr(u.op()) << " " << u.dtype().repr());
      CHECK(!u.dtype().scalar().is_fp8());
      for (const UOp& s : u.src()) CHECK(!s.dtype().scalar().is_fp8());
    }
  // LLVM has no fp8 type (the renderer writes i8): no float instruction may take or make an i8
  const std::string ir = render_llvm(p);
  CHECK(std::regex_search(ir, std::regex(R"(= load (<4 x )?i8)")));
  CHECK(std::regex_search(ir, std::regex(R"(store (<4 x )?i8)")));
  const std::regex i8(R"(\bi8\b)"), float_op(R"(\b(fadd|fsub|fmul|fdiv|frem|fcmp|fneg|fpext|fptrunc|sitofp|uitofp|fptosi|fptoui)\b|@llvm\.)");
  std::istringstream lines(ir);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(!(std::regex_search(line, i8) && std::regex_search(line, float_op)));
  }
  // the CPU target lacks fp8 natively; NULL and INTERP keep them
  CHECK(!detail::device_target(DeviceKind::CPU).supported_dtypes.contains(f8));
  CHECK(detail::device_target(DeviceKind::INTERP).supported_dtypes.contains(f8));
}

TEST_CASE("devices: the fp8 example of docs/devices.md", "[engine][docs][fp8]") {
  Tensor x = Tensor::from({17.f, 500.f, 0.005f}, {3}, std::nullopt, "CPU").cast(dtypes::fp8e4m3);
  CHECK(x.cast(dtypes::float32).to_vector<float>() == std::vector<float>{16, 448, 0.005859375f});
}
