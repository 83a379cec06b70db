// optimized kernels (tinygrad's CPU heuristic: UPCAST/UNROLL lanes, float4 loads and stores, vector
// accumulators split to scalar registers, THREAD) rendered to LLVM IR, compiled and run, against loops here
#include <catch2/catch.hpp>
#include <metagrad/codegen/to_program.hpp>
#include <metagrad/render/llvmir.hpp>

#include <string>
#include <vector>

#include "run_llvm.hpp"

using namespace mg;

namespace {
UOp param(std::int64_t slot, DType dt, std::int64_t n) { return UOp::param(slot, dt.ptr(n)); }
UOp idx(std::int64_t v) { return UOp::const_(dtypes::weakint, v); }
UOp kernel(std::vector<UOp> ends) { return UOp(Ops::SINK, dtypes::void_, std::move(ends), Arg("test")); }
Target cpu() {
  Target t;
  t.device = "CPU";
  t.ops = llvm_supported_ops | llvm_intrinsic_ops;
  t.threads = 2;
  t.min_work_per_thread = 1024;
  return t;
}
template <class... B> void run_all(const Program& p, B&... bufs) {
  const std::string ir = render_llvm(p);
  std::vector<std::int64_t> vals(p.vars.size(), 0);
  const int slot = p.core_id_slot();
  for (std::int64_t c = 0; c < p.threads; ++c) {
    if (slot >= 0) vals[std::size_t(slot)] = c;
    test::run_llvm(ir, p.name, {static_cast<void*>(bufs.data())...}, vals);
  }
}
std::vector<float> data(int n, float start) {
  auto v = std::vector<float>(std::size_t(n));
  for (int i = 0; i < n; ++i) v[std::size_t(i)] = start + float(i % 11) * 0.25f;
  return v;
}
}  // namespace

TEST_CASE("llvm opts: elementwise add renders float4 loads and stores and runs") {
  const int n = 128 * 128;
  const UOp out = param(0, dtypes::float32, n), a = param(1, dtypes::float32, n), b = param(2, dtypes::float32, n);
  const UOp r0 = UOp::range(128, 0), r1 = UOp::range(128, 1);
  const UOp i = r0 * idx(128) + r1;
  const Program p = to_program(kernel({out.index({i}).store(a.index({i}) + b.index({i})).end({r0, r1})}), cpu());
  const std::string ir = render_llvm(p);
  CHECK(ir.find("load <4 x float>") != std::string::npos);
  CHECK(ir.find("store <4 x float>") != std::string::npos);
  CHECK(p.threads == 2);
  std::vector<float> o(std::size_t(n), -1), av = data(n, 0), bv = data(n, 3);
  run_all(p, o, av, bv);
  for (std::size_t k = 0; k < o.size(); ++k) REQUIRE(o[k] == av[k] + bv[k]);
}

TEST_CASE("llvm opts: matmul 64x64 (UPCAST 4x4, UNROLL 4, THREAD 2) and a sum agree with loops") {
  const int n = 64;
  const UOp out = param(0, dtypes::float32, n * n), a = param(1, dtypes::float32, n * n), b = param(2, dtypes::float32, n * n);
  const UOp r0 = UOp::range(n, 0), r1 = UOp::range(n, 1), r2 = UOp::range(n, 2, AxisType::REDUCE);
  const UOp s = (a.index({r0 * idx(n) + r2}) * b.index({r2 * idx(n) + r1})).reduce(Ops::ADD, {r2});
  const Program p = to_program(kernel({out.index({r0 * idx(n) + r1}).store(s).end({r0, r1})}), cpu());
  CHECK(p.name == "r_8_16_2_4_4_16_4");
  std::vector<float> o(std::size_t(n * n), -1), av = data(n * n, -1), bv = data(n * n, 0.5f);
  run_all(p, o, av, bv);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      float acc = 0;
      for (int j = 0; j < n; ++j) acc += av[std::size_t(i * n + j)] * bv[std::size_t(j * n + k)];
      REQUIRE(o[std::size_t(i * n + k)] == Approx(acc).epsilon(1e-4).margin(1e-4));
    }
  // max over axis 0 of a 64x256 matrix (out[j] = max_i a[i,j])
  const UOp mo = param(0, dtypes::float32, 256), ma = param(1, dtypes::float32, 64 * 256);
  const UOp ro = UOp::range(256, 0), rr = UOp::range(64, 1, AxisType::REDUCE);
  const Program pm = to_program(kernel({mo.index({ro}).store(ma.index({rr * idx(256) + ro}).reduce(Ops::MAX, {rr})).end({ro})}), cpu());
  std::vector<float> mov(256, -1), mav = data(64 * 256, -2);
  for (std::size_t k = 0; k < mav.size(); ++k) mav[k] = float((k * 37) % 101) - 50.0f;
  run_all(pm, mov, mav);
  for (int j = 0; j < 256; ++j) {
    float m = -1e30f;
    for (int i = 0; i < 64; ++i) m = std::max(m, mav[std::size_t(i * 256 + j)]);
    REQUIRE(mov[std::size_t(j)] == m);
  }
}
