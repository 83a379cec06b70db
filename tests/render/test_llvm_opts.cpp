// optimized kernels (tinygrad's CPU heuristic: UPCAST/UNROLL lanes, float4 loads and stores, vector
// accumulators split to scalar registers, THREAD) rendered to LLVM IR, compiled and run, against loops here
#include <catch2/catch.hpp>
#include <metagrad/codegen/to_program.hpp>
#include <metagrad/render/llvmir.hpp>
#include <metagrad/runtime/interp.hpp>

#include <algorithm>
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

TEST_CASE("llvm opts: a padded convolution loads its gated lanes as masked vectors, on LLVM and INTERP alike") {
  // out[c, x] = sum_k a[c, x+k-2] * w[k], x upcast by 4: the 4 lanes of a tap read consecutive
  // elements, each under its own gate 0 <= x+i+k-2 < 64; the lanes at the rows' ends lie outside the row, and
  // the first and last rows' outside the buffer, so only a load that skips them is right
  const int rows = 3, n = 64;
  const UOp out = param(0, dtypes::float32, rows * n), a = param(1, dtypes::float32, rows * n), w = param(2, dtypes::float32, 5);
  const UOp rc = UOp::range(rows, 0), rx = UOp::range(n, 1), rk = UOp::range(5, 2, AxisType::REDUCE);
  const UOp e = rx + rk - idx(2);
  const UOp in = a.index({(rc * idx(n) + e).valid((e >= idx(0)) & (e < idx(n)))});
  const UOp ast = kernel({out.index({rc * idx(n) + rx}).store((in * w.index({rk})).reduce(Ops::ADD, {rk})).end({rc, rx})});
  std::vector<Opt> opts{{OptOps::UPCAST, 1, 4}};
  std::vector<float> av = data(rows * n, 1), wv{0.5f, -1.0f, 2.0f, 0.25f, 3.0f};
  std::vector<float> want(std::size_t(rows * n));
  for (int c = 0; c < rows; ++c)
    for (int x = 0; x < n; ++x) {
      float s = 0;
      for (int k = 0; k < 5; ++k) s += x + k - 2 >= 0 && x + k - 2 < n ? av[std::size_t(c * n + x + k - 2)] * wv[std::size_t(k)] : 0.0f;
      want[std::size_t(c * n + x)] = s;
    }
  auto masked = [](const Program& p) {
    return std::count_if(p.uops.begin(), p.uops.end(), [](const UOp& u) { return u.op() == Ops::LOAD && u.nsrc() == 3 && u.src(2).dtype().count > 1; });
  };
  for (bool on : {true, false}) {
    INFO("masked_loads " << on);
    Target t = cpu();
    t.unaligned_vectors = true, t.masked_loads = on;
    const Program p = to_program(ast, t, &opts);
    const std::string ir = render_llvm(p);
    INFO(ir);
    // one masked float4 per tap (the taps are a loop); without masked loads, four gated scalar loads
    CHECK(masked(p) == (on ? 1 : 0));
    CHECK((ir.find("@llvm.masked.load.v4f32.p0(ptr") != std::string::npos) == on);
    std::vector<float> o(std::size_t(rows * n), -1);
    run_all(p, o, av, wv);
    for (std::size_t i = 0; i < o.size(); ++i) REQUIRE(o[i] == Approx(want[i]).epsilon(1e-6));
    // INTERP runs the same program, reading each lane only where its gate holds (it checks every read's bounds)
    std::vector<float> oi(std::size_t(rows * n), -1);
    std::vector<void*> ptrs{oi.data(), av.data(), wv.data()};
    std::vector<std::int64_t> vals(p.vars.size(), 0);
    for (std::int64_t c = 0; c < p.threads; ++c) {
      if (p.core_id_slot() >= 0) vals[std::size_t(p.core_id_slot())] = c;
      interp_run(p, ptrs, vals);
    }
    for (std::size_t i = 0; i < o.size(); ++i) REQUIRE(oi[i] == o[i]);
  }
}

TEST_CASE("llvm opts: a weight gradient with partial sums along x agrees with loops, with and without them") {
  // dw[co,ci,ky,kx] = sum_{n,y,x} g[n,co,y,x] * img[n,ci,y+ky,x+kx]: 2 images, 16 out channels, 3 in, 5x5 on 20x20 (g 16x16)
  const UOp dw = param(0, dtypes::float32, 16 * 3 * 25), g = param(1, dtypes::float32, 2 * 16 * 256), img = param(2, dtypes::float32, 2 * 3 * 400);
  const UOp co = UOp::range(16, 0), ci = UOp::range(3, 1), ky = UOp::range(5, 2), kx = UOp::range(5, 3);
  const UOp n = UOp::range(2, 4, AxisType::REDUCE), y = UOp::range(16, 5, AxisType::REDUCE), x = UOp::range(16, 6, AxisType::REDUCE);
  const UOp v = g.index({n * idx(4096) + co * idx(256) + y * idx(16) + x}) * img.index({n * idx(1200) + ci * idx(400) + (y + ky) * idx(20) + x + kx});
  const UOp ast = kernel({dw.index({co * idx(75) + ci * idx(25) + ky * idx(5) + kx}).store(v.reduce(Ops::ADD, {n, y, x})).end({co, ci, ky, kx})});
  std::vector<float> gv = data(2 * 16 * 256, -1), iv = data(2 * 3 * 400, 0.5f);
  for (std::int64_t ps : {96, 0}) {
    INFO("partial_sums " << ps);
    Target t = cpu();
    t.unaligned_vectors = t.masked_loads = t.register_blocking = true;
    t.partial_sums = ps;
    const Program p = to_program(ast, t);
    // out channels by 4 and x unrolled by 4: 4 accumulators, or 16 partial sums
    std::int64_t lanes = 0;
    for (const UOp& u : p.uops) if (u.op() == Ops::DEFINE_REG) lanes += u.dtype().size * u.dtype().base().count;
    CHECK(lanes == (ps ? 16 : 4));
    std::vector<float> o(16 * 75, -1);
    run_all(p, o, gv, iv);
    for (int c = 0; c < 16; ++c)
      for (int i = 0; i < 3; ++i)
        for (int a = 0; a < 5; ++a)
          for (int b = 0; b < 5; ++b) {
            double s = 0;
            for (int nn = 0; nn < 2; ++nn)
              for (int yy = 0; yy < 16; ++yy)
                for (int xx = 0; xx < 16; ++xx)
                  s += double(gv[std::size_t(nn * 4096 + c * 256 + yy * 16 + xx)]) * iv[std::size_t(nn * 1200 + i * 400 + (yy + a) * 20 + xx + b)];
            REQUIRE(o[std::size_t(c * 75 + i * 25 + a * 5 + b)] == Approx(s).epsilon(1e-4));
          }
  }
}
