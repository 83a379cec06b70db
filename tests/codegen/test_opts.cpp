// codegen opts: tinygrad's Scheduler.apply_opt (UPCAST, UNROLL, THREAD), hand_coded_optimizations for the
// CPU, the expander and load/store folding. The opts the heuristic picks are tinygrad's (printed by
// running its hand_coded_optimizations with DEV=CPU on the same kernels, 2 threads); every optimized
// kernel is run on INTERP and checked against values computed here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "metagrad/codegen/to_program.hpp"
#include "metagrad/runtime/interp.hpp"

using namespace mg;

namespace {
UOp param(std::int64_t slot, DType dt, std::int64_t n) { return UOp::param(slot, dt.ptr(n)); }
UOp idx(std::int64_t v) { return UOp::const_(dtypes::weakint, v); }
UOp kernel(std::vector<UOp> ends) { return UOp(Ops::SINK, dtypes::void_, std::move(ends), Arg("test")); }
Target cpu(std::int64_t threads = 2) {
  Target t;
  t.device = "CPU";
  t.ops = OpSet{Ops::ADD, Ops::MUL, Ops::CDIV, Ops::CMOD, Ops::CMPLT, Ops::CMPNE, Ops::CMPEQ, Ops::OR, Ops::AND, Ops::XOR, Ops::SHL, Ops::SHR, Ops::FDIV, Ops::MAX};
  t.threads = threads;
  return t;
}
std::vector<Opt> heuristic_opts(const UOp& ast, const Target& t) {
  std::vector<Opt> applied;
  full_rewrite_to_sink(ast, t, nullptr, nullptr, &applied);
  return applied;
}
std::string opts_str(const std::vector<Opt>& v) {
  std::string s;
  for (const Opt& o : v) s += o.repr() + " ";
  return s;
}
template <class... B> void run(const Program& p, B&... bufs) {
  std::vector<void*> ptrs{static_cast<void*>(bufs.data())...};
  std::vector<std::int64_t> vals(p.vars.size(), 0);
  const int slot = p.core_id_slot();
  for (std::int64_t c = 0; c < p.threads; ++c) {
    if (slot >= 0) vals[std::size_t(slot)] = c;
    interp_run(p, ptrs, vals);
  }
}
int count_vec(const Program& p, Ops o, int width) {
  return int(std::count_if(p.uops.begin(), p.uops.end(), [&](const UOp& u) {
    if (u.op() != o) return false;
    const DType d = o == Ops::STORE ? u.src(0).dtype() : u.dtype();
    return d.count == width;
  }));
}
// the accumulator lanes a program keeps (its DEFINE_REGs' elements times their vector width)
std::int64_t reg_lanes(const Program& p) {
  std::int64_t n = 0;
  for (const UOp& u : p.uops) if (u.op() == Ops::DEFINE_REG) n += u.dtype().size * u.dtype().base().count;
  return n;
}
std::vector<float> iota_f(int n, float start = 0) {
  auto v = std::vector<float>(std::size_t(n));
  for (int i = 0; i < n; ++i) v[std::size_t(i)] = start + float(i % 13) * 0.5f;
  return v;
}

// out[i,j] = a[i,j] + b[i,j] on n x m
UOp add2d(int n, int m) {
  const UOp out = param(0, dtypes::float32, n * m), a = param(1, dtypes::float32, n * m), b = param(2, dtypes::float32, n * m);
  const UOp r0 = UOp::range(n, 0), r1 = UOp::range(m, 1);
  const UOp i = r0 * idx(m) + r1;
  return kernel({out.index({i}).store(a.index({i}) + b.index({i})).end({r0, r1})});
}
// out[i,k] = sum_j a[i,j] * b[j,k]
UOp matmul(int n) {
  const UOp out = param(0, dtypes::float32, n * n), a = param(1, dtypes::float32, n * n), b = param(2, dtypes::float32, n * n);
  const UOp r0 = UOp::range(n, 0), r1 = UOp::range(n, 1), r2 = UOp::range(n, 2, AxisType::REDUCE);
  const UOp s = (a.index({r0 * idx(n) + r2}) * b.index({r2 * idx(n) + r1})).reduce(Ops::ADD, {r2});
  return kernel({out.index({r0 * idx(n) + r1}).store(s).end({r0, r1})});
}
// out[i] = sum_j a[i,j] (axis 1) or out[j] = sum_i a[i,j] (axis 0)
UOp sum_axis(int n, int m, int axis) {
  const UOp out = param(0, dtypes::float32, axis == 1 ? n : m), a = param(1, dtypes::float32, n * m);
  const UOp ro = UOp::range(axis == 1 ? n : m, 0), rr = UOp::range(axis == 1 ? m : n, 1, AxisType::REDUCE);
  const UOp i = axis == 1 ? ro * idx(m) + rr : rr * idx(m) + ro;
  return kernel({out.index({ro}).store(a.index({i}).reduce(Ops::ADD, {rr})).end({ro})});
}
}  // namespace

TEST_CASE("opts: elementwise a+b picks tinygrad's UPCAST and gets float4 loads and stores") {
  const UOp ast = add2d(64, 64);
  // the two ranges merge into one of 4096 first (tinygrad's E_1024_4)
  CHECK(opts_str(heuristic_opts(ast, cpu())) == "Opt(op=OptOps.UPCAST, axis=0, arg=4) ");
  const Program p = to_program(ast, cpu());
  CHECK(p.name == "E_1024_4");
  CHECK(count_vec(p, Ops::LOAD, 4) == 2);
  CHECK(count_vec(p, Ops::STORE, 4) == 1);
  std::vector<float> o(64 * 64, -1), a = iota_f(64 * 64), b = iota_f(64 * 64, 3);
  run(p, o, a, b);
  for (std::size_t k = 0; k < o.size(); ++k) REQUIRE(o[k] == a[k] + b[k]);
}

TEST_CASE("opts: matmul 64x64 picks tinygrad's opts and agrees with a plain loop") {
  const UOp ast = matmul(64);
  CHECK(opts_str(heuristic_opts(ast, cpu())) ==
        "Opt(op=OptOps.UPCAST, axis=1, arg=4) Opt(op=OptOps.UPCAST, axis=0, arg=4) Opt(op=OptOps.UNROLL, axis=0, arg=4) "
        "Opt(op=OptOps.THREAD, axis=0, arg=2) ");
  const Program p = to_program(ast, cpu());
  CHECK(p.name == "r_8_16_2_4_4_16_4");
  CHECK(p.threads == 2);
  std::vector<float> o(64 * 64, -1), a = iota_f(64 * 64), b = iota_f(64 * 64, 1);
  run(p, o, a, b);
  for (int i = 0; i < 64; ++i)
    for (int k = 0; k < 64; ++k) {
      float s = 0;
      for (int j = 0; j < 64; ++j) s += a[std::size_t(i * 64 + j)] * b[std::size_t(j * 64 + k)];
      REQUIRE(o[std::size_t(i * 64 + k)] == Approx(s).epsilon(1e-5));
    }
}

TEST_CASE("opts: sums over an axis unroll the reduce as tinygrad does") {
  for (int axis : {0, 1}) {
    const UOp ast = sum_axis(64, 64, axis);
    CHECK(opts_str(heuristic_opts(ast, cpu())) == "Opt(op=OptOps.UNROLL, axis=0, arg=4) ");
    const Program p = to_program(ast, cpu());
    CHECK(p.name == "r_64_16_4");
    std::vector<float> o(64, -1), a = iota_f(64 * 64);
    run(p, o, a);
    for (int i = 0; i < 64; ++i) {
      float s = 0;
      for (int j = 0; j < 64; ++j) s += axis == 1 ? a[std::size_t(i * 64 + j)] : a[std::size_t(j * 64 + i)];
      REQUIRE(o[std::size_t(i)] == Approx(s).epsilon(1e-5));
    }
  }
}

TEST_CASE("opts: broadcast adds upcast the axis a buffer does not move along (tinygrad's choices)") {
  for (int bcast_axis : {0, 1}) {
    // out[i,j] = a[i,j] + b[j] (b broadcast along axis 0) or + b[i] (along axis 1)
    const UOp out = param(0, dtypes::float32, 64 * 64), a = param(1, dtypes::float32, 64 * 64), b = param(2, dtypes::float32, 64);
    const UOp r0 = UOp::range(64, 0), r1 = UOp::range(64, 1);
    const UOp i = r0 * idx(64) + r1;
    const UOp ast = kernel({out.index({i}).store(a.index({i}) + b.index({bcast_axis == 0 ? r1 : r0})).end({r0, r1})});
    const Program p = to_program(ast, cpu());
    if (bcast_axis == 0) {
      CHECK(opts_str(heuristic_opts(ast, cpu())) == "Opt(op=OptOps.UPCAST, axis=1, arg=4) Opt(op=OptOps.UPCAST, axis=0, arg=4) ");
      CHECK(p.name == "E_16_16_4_4");
    } else {
      CHECK(opts_str(heuristic_opts(ast, cpu())) == "Opt(op=OptOps.UPCAST, axis=1, arg=4) ");
      CHECK(p.name == "E_64_16_4");
    }
    std::vector<float> o(64 * 64, -1), av = iota_f(64 * 64), bv = iota_f(64, 7);
    run(p, o, av, bv);
    for (int r = 0; r < 64; ++r)
      for (int c = 0; c < 64; ++c)
        REQUIRE(o[std::size_t(r * 64 + c)] == av[std::size_t(r * 64 + c)] + bv[std::size_t(bcast_axis == 0 ? c : r)]);
  }
}

TEST_CASE("opts: a full sum and a small reduce unroll as tinygrad does") {
  {
    const UOp out = param(0, dtypes::float32, 1), a = param(1, dtypes::float32, 1024);
    const UOp r = UOp::range(1024, 0, AxisType::REDUCE);
    const UOp ast = kernel({out.index({idx(0)}).store(a.index({r}).reduce(Ops::ADD, {r}))});
    CHECK(opts_str(heuristic_opts(ast, cpu())) == "Opt(op=OptOps.UNROLL, axis=0, arg=4) ");
    const Program p = to_program(ast, cpu());
    CHECK(p.name == "r_256_4");
    std::vector<float> o(1, -1), av = iota_f(1024);
    run(p, o, av);
    float s = 0;
    for (float x : av) s += x;
    CHECK(o[0] == Approx(s).epsilon(1e-5));
  }
  {
    const UOp ast = sum_axis(16, 16, 1);
    CHECK(opts_str(heuristic_opts(ast, cpu())) == "Opt(op=OptOps.UNROLL, axis=0, arg=0) ");
    const Program p = to_program(ast, cpu());
    CHECK(p.name == "r_16_16");
    std::vector<float> o(16, -1), av = iota_f(256);
    run(p, o, av);
    for (int i = 0; i < 16; ++i) {
      float s = 0;
      for (int j = 0; j < 16; ++j) s += av[std::size_t(i * 16 + j)];
      REQUIRE(o[std::size_t(i)] == Approx(s).epsilon(1e-5));
    }
  }
}

// a valid convolution out[co,y,x] = sum_{ci,ky,kx} img[ci, y+ky, x+kx] * w[co,ci,ky,kx] of co out channels,
// ci in, k x k taps on an h x w image; check() runs a program of it on INTERP and compares with loops
struct Conv {
  int co, ci, k, h, w;
  int oh() const { return h - k + 1; }
  int ow() const { return w - k + 1; }
  UOp ast() const {
    const UOp out = param(0, dtypes::float32, co * oh() * ow()), img = param(1, dtypes::float32, ci * h * w),
              wt = param(2, dtypes::float32, co * ci * k * k);
    const UOp c = UOp::range(co, 0), y = UOp::range(oh(), 1), x = UOp::range(ow(), 2);
    const UOp i = UOp::range(ci, 3, AxisType::REDUCE), ky = UOp::range(k, 4, AxisType::REDUCE), kx = UOp::range(k, 5, AxisType::REDUCE);
    const UOp v = img.index({i * idx(h * w) + (y + ky) * idx(w) + x + kx}) * wt.index({c * idx(ci * k * k) + i * idx(k * k) + ky * idx(k) + kx});
    return kernel({out.index({c * idx(oh() * ow()) + y * idx(ow()) + x}).store(v.reduce(Ops::ADD, {i, ky, kx})).end({c, y, x})});
  }
  void check(const Program& p) const {
    INFO(p.name);
    std::vector<float> o(std::size_t(co * oh() * ow()), -1), iv = iota_f(ci * h * w), wv = iota_f(co * ci * k * k, 1);
    run(p, o, iv, wv);
    for (int c = 0; c < co; ++c)
      for (int yy = 0; yy < oh(); ++yy)
        for (int xx = 0; xx < ow(); ++xx) {
          float s = 0;
          for (int i = 0; i < ci; ++i)
            for (int a = 0; a < k; ++a)
              for (int b = 0; b < k; ++b) s += iv[std::size_t((i * h + yy + a) * w + xx + b)] * wv[std::size_t(((c * ci + i) * k + a) * k + b)];
          REQUIRE(o[std::size_t((c * oh() + yy) * ow() + xx)] == Approx(s).epsilon(1e-4));
        }
  }
};

TEST_CASE("opts: conv-like reduce (8 out channels, 4 in, 3x3 on 16x16) picks tinygrad's opts") {
  const Conv cv{8, 4, 3, 16, 16};
  const UOp ast = cv.ast();
  CHECK(opts_str(heuristic_opts(ast, cpu())) ==
        "Opt(op=OptOps.UPCAST, axis=0, arg=4) Opt(op=OptOps.UNROLL, axis=2, arg=0) Opt(op=OptOps.UNROLL, axis=1, arg=0) ");
  const Program p = to_program(ast, cpu());
  CHECK(p.name == "r_2_14_14_4_4_3_3");
  cv.check(p);
}

TEST_CASE("opts: on a target with unaligned vectors a convolution upcasts x by 4 and blocks y by 2") {
  const Conv cv{32, 2, 5, 16, 16};  // 32 out channels, 2 in, 5x5 on 16x16
  const UOp ast = cv.ast();
  // tinygrad's choice: x by 3 (it tries 3 lanes first), then out channels by 4
  CHECK(opts_str(heuristic_opts(ast, cpu())) ==
        "Opt(op=OptOps.UPCAST, axis=2, arg=3) Opt(op=OptOps.UPCAST, axis=0, arg=4) Opt(op=OptOps.UNROLL, axis=2, arg=0) ");
  // the CPU's: x by 4 (one float4), out channels by 4, then y by 2, so each weight broadcast feeds two FMAs
  Target ua = cpu();
  ua.unaligned_vectors = true, ua.register_blocking = true;
  CHECK(opts_str(heuristic_opts(ast, ua)) ==
        "Opt(op=OptOps.UPCAST, axis=2, arg=4) Opt(op=OptOps.UPCAST, axis=0, arg=4) Opt(op=OptOps.UPCAST, axis=1, arg=2) "
        "Opt(op=OptOps.UNROLL, axis=2, arg=0) ");
  for (const Target& t : {cpu(), ua}) cv.check(to_program(ast, t));
}

TEST_CASE("opts: with 8-lane vectors a convolution upcasts x of 20 whole, counts accumulators in vectors, loads 8 lanes") {
  const Conv cv{32, 2, 5, 36, 24};  // 32 out channels, 2 in, 5x5 on 36x24 -> 32x20
  const UOp ast = cv.ast();
  Target wide = cpu(1);
  wide.unaligned_vectors = true, wide.register_blocking = true, wide.float_lanes = 8;
  // x whole (4 then 5: 8+8+4 lanes, 3 vectors), out channels by 2 (6 vectors; by 4 would be 12), y by 2
  CHECK(opts_str(heuristic_opts(ast, wide)) ==
        "Opt(op=OptOps.UPCAST, axis=2, arg=4) Opt(op=OptOps.UPCAST, axis=2, arg=5) Opt(op=OptOps.UPCAST, axis=0, arg=2) "
        "Opt(op=OptOps.UPCAST, axis=1, arg=2) ");
  const Program p = to_program(ast, wide);
  CHECK(count_vec(p, Ops::LOAD, 8) > 0);
  CHECK(count_vec(p, Ops::STORE, 8) > 0);
  cv.check(p);
}

TEST_CASE("opts: with 8-lane vectors a padded convolution's gated taps load as masked vectors of 8") {
  // out[co,y,x] = sum_{ky,kx} img[y+ky-1, x+kx-1] (0 outside 16x16) * w[co,ky,kx]: 8 out channels, 3x3, padding 1
  const UOp out = param(0, dtypes::float32, 8 * 256), img = param(1, dtypes::float32, 256), w = param(2, dtypes::float32, 8 * 9);
  const UOp co = UOp::range(8, 0), y = UOp::range(16, 1), x = UOp::range(16, 2);
  const UOp ky = UOp::range(3, 3, AxisType::REDUCE), kx = UOp::range(3, 4, AxisType::REDUCE);
  const UOp yi = y + ky - idx(1), xi = x + kx - idx(1);
  const UOp ok = (yi >= idx(0)) & (yi < idx(16)) & (xi >= idx(0)) & (xi < idx(16));
  const UOp pix = ok.where(img.index({(yi * idx(16) + xi).valid(ok)}), UOp::const_(dtypes::float32, 0.0));
  const UOp v = pix * w.index({co * idx(9) + ky * idx(3) + kx});
  const UOp ast = kernel({out.index({co * idx(256) + y * idx(16) + x}).store(v.reduce(Ops::ADD, {ky, kx})).end({co, y, x})});
  Target wide = cpu(1);
  wide.unaligned_vectors = true, wide.masked_loads = true, wide.register_blocking = true, wide.float_lanes = 8;
  const Program p = to_program(ast, wide);
  INFO(p.name);
  const auto masked8 = std::count_if(p.uops.begin(), p.uops.end(), [](const UOp& u) { return u.op() == Ops::LOAD && u.dtype().count == 8 && u.nsrc() == 3; });
  CHECK(masked8 > 0);
  std::vector<float> iv = iota_f(256), wv = iota_f(8 * 9, 1), o(8 * 256, -1);
  run(p, o, iv, wv);
  for (int c = 0; c < 8; ++c)
    for (int yy = 0; yy < 16; ++yy)
      for (int xx = 0; xx < 16; ++xx) {
        float s = 0;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) {
            const int r = yy + a - 1, q = xx + b - 1;
            if (r >= 0 && r < 16 && q >= 0 && q < 16) s += iv[std::size_t(r * 16 + q)] * wv[std::size_t(c * 9 + a * 3 + b)];
          }
        REQUIRE(o[std::size_t(c * 256 + yy * 16 + xx)] == Approx(s).epsilon(1e-5));
      }
}

TEST_CASE("opts: a fused relu is not a mask: a 6x6 convolution output takes 6-lane vectors, not 36 scalars") {
  // out[b,co,y,x] = sum_{ci,ky,kx} relu(img[b,ci,y+ky,x+kx]) * w[co,ci,ky,kx]: conv4 of beautiful_mnist, smaller
  // (4 images, 4 in and 16 out channels, 8x8 -> 6x6). relu's where(x > 0, x, 0) depends on y and x through the
  // load; tinygrad's small-masked-axes rule took it for a valid mask and upcast y and x whole (36 scalar
  // accumulators, half the speed on the CPU)
  constexpr int B = 4, CI = 4, CO = 16;
  const UOp out = param(0, dtypes::float32, B * CO * 36), img = param(1, dtypes::float32, B * CI * 64), w = param(2, dtypes::float32, CO * CI * 9);
  const UOp b = UOp::range(B, 0), co = UOp::range(CO, 1), y = UOp::range(6, 2), x = UOp::range(6, 3);
  const UOp ci = UOp::range(CI, 4, AxisType::REDUCE), ky = UOp::range(3, 5, AxisType::REDUCE), kx = UOp::range(3, 6, AxisType::REDUCE);
  const UOp px = img.index({b * idx(CI * 64) + ci * idx(64) + (y + ky) * idx(8) + x + kx});
  const UOp zero = UOp::const_(dtypes::float32, 0.0);
  const UOp v = (zero < px).where(px, zero) * w.index({co * idx(CI * 9) + ci * idx(9) + ky * idx(3) + kx});
  const UOp ast = kernel({out.index({b * idx(CO * 36) + co * idx(36) + y * idx(6) + x}).store(v.reduce(Ops::ADD, {ci, ky, kx})).end({b, co, y, x})});
  Target wide = cpu(1);
  wide.unaligned_vectors = true, wide.masked_loads = true, wide.register_blocking = true, wide.float_lanes = 8;
  const std::vector<Opt> opts = heuristic_opts(ast, wide);
  INFO(opts_str(opts));
  // x (axis 3) in one 6-lane upcast, y (axis 2) not whole
  CHECK(std::any_of(opts.begin(), opts.end(), [](const Opt& o) { return o.op == OptOps::UPCAST && o.axis == 3 && (o.arg == 0 || o.arg == 6); }));
  CHECK(std::none_of(opts.begin(), opts.end(), [](const Opt& o) { return o.op == OptOps::UPCAST && o.axis == 2 && (o.arg == 0 || o.arg == 6); }));
  const Program p = to_program(ast, wide);
  // the row of 6 loads as vectors (the CPU splits 6 lanes into widths it folds), not as 6 scalars
  CHECK(std::any_of(p.uops.begin(), p.uops.end(), [](const UOp& u) { return u.op() == Ops::LOAD && u.dtype().count > 1; }));
  std::vector<float> iv(std::size_t(B * CI * 64)), wv = iota_f(CO * CI * 9, -3), o(std::size_t(B * CO * 36), -1);
  for (std::size_t i = 0; i < iv.size(); ++i) iv[i] = float(int(i * 7 % 11) - 5) * 0.5f;  // negatives too, for relu
  run(p, o, iv, wv);
  for (int bb = 0; bb < B; ++bb)
    for (int c = 0; c < CO; ++c)
      for (int yy = 0; yy < 6; ++yy)
        for (int xx = 0; xx < 6; ++xx) {
          float s = 0;
          for (int i = 0; i < CI; ++i)
            for (int a = 0; a < 3; ++a)
              for (int e = 0; e < 3; ++e)
                s += std::max(iv[std::size_t(bb * CI * 64 + i * 64 + (yy + a) * 8 + xx + e)], 0.0f) * wv[std::size_t(c * CI * 9 + i * 9 + a * 3 + e)];
          REQUIRE(o[std::size_t(bb * CO * 36 + c * 36 + yy * 6 + xx)] == Approx(s).epsilon(1e-5).margin(1e-4));
        }
}

TEST_CASE("opts: explicit opts apply exactly, NOOPT applies none, bad opts are errors naming the opt") {
  const UOp ast = matmul(16);
  std::vector<Opt> opts{{OptOps::UPCAST, 0, 2}, {OptOps::UNROLL, 0, 8}, {OptOps::UPCAST, 1, 4}};
  const Program p = to_program(ast, cpu(1), &opts);
  CHECK(p.name == "r_8_4_2_4_2_8");
  std::vector<float> o(256, -1), a = iota_f(256), b = iota_f(256, 2);
  run(p, o, a, b);
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 16; ++k) {
      float s = 0;
      for (int j = 0; j < 16; ++j) s += a[std::size_t(i * 16 + j)] * b[std::size_t(j * 16 + k)];
      REQUIRE(o[std::size_t(i * 16 + k)] == Approx(s).epsilon(1e-5));
    }
  Target t = cpu();
  t.noopt = true;
  CHECK(heuristic_opts(ast, t).empty());
  CHECK(to_program(ast, t).name == "r_16_16_16");
  auto err = [&](std::vector<Opt> o) {
    try {
      to_program(ast, cpu(), &o);
    } catch (const KernelOptError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(err({{OptOps::UPCAST, 2, 4}}) == "apply_opt Opt(op=OptOps.UPCAST, axis=2, arg=4): upcast is for GLOBAL/LOCAL/LOOP, not REDUCE");
  CHECK(err({{OptOps::UPCAST, 0, 32}}) == "apply_opt Opt(op=OptOps.UPCAST, axis=0, arg=32): don't upcast more than 16");
  CHECK(err({{OptOps::UNROLL, 1, 4}}) == "apply_opt Opt(op=OptOps.UNROLL, axis=1, arg=4): there are 1 unrollable axes");
  CHECK(err({{OptOps::UPCAST, 0, 3}}) == "shift_to: 3 does not divide range 16 (axis 0)");
  CHECK(err({{OptOps::LOCAL, 0, 4}}) == "apply_opt Opt(op=OptOps.LOCAL, axis=0, arg=4): locals needed for opt (device CPU has none)");
  CHECK(err({{OptOps::THREAD, 0, 4}}) == "apply_opt Opt(op=OptOps.THREAD, axis=0, arg=4): too many threads (4 > 2)");
  CHECK(err({{OptOps::THREAD, 0, 2}, {OptOps::THREAD, 1, 2}}) == "apply_opt Opt(op=OptOps.THREAD, axis=1, arg=2): already threaded");
}

TEST_CASE("opts: int buffers and odd offsets fall back to scalar or float2 accesses, unless vectors may be unaligned") {
  // int add: tinygrad folds only float/half into vectors
  const UOp out = param(0, dtypes::int32, 64), a = param(1, dtypes::int32, 64);
  const UOp r = UOp::range(64, 0);
  const UOp ast = kernel({out.index({r}).store(a.index({r}) + UOp::const_(dtypes::int32, 3)).end({r})});
  std::vector<Opt> opts{{OptOps::UPCAST, 0, 4}};
  const Program p = to_program(ast, cpu(1), &opts);
  CHECK(count_vec(p, Ops::LOAD, 4) == 0);
  CHECK(count_vec(p, Ops::LOAD, 1) == 4);
  std::vector<int> o(64, -1), av(64);
  for (int i = 0; i < 64; ++i) av[std::size_t(i)] = i * 7 - 100;
  run(p, o, av);
  for (int i = 0; i < 64; ++i) REQUIRE(o[std::size_t(i)] == av[std::size_t(i)] + 3);
  // float at offset r*4+2: only 2 divides the offset, so float2 pieces
  const UOp fo = param(0, dtypes::float32, 66), fa = param(1, dtypes::float32, 66);
  const UOp r2 = UOp::range(16, 0), u = UOp::range(4, 1);
  const UOp i2 = r2 * idx(4) + u + idx(2);
  std::vector<Opt> o2{{OptOps::UPCAST, 0, 4}};
  const Program p2 = to_program(kernel({fo.index({i2}).store(fa.index({i2}) * UOp::const_(dtypes::float32, 2.0)).end({r2, u})}), cpu(1), &o2);
  CHECK(count_vec(p2, Ops::LOAD, 2) == 2);
  CHECK(count_vec(p2, Ops::STORE, 2) == 2);
  std::vector<float> fov(66, -1), fav = iota_f(66);
  run(p2, fov, fav);
  for (int i = 0; i < 66; ++i) REQUIRE(fov[std::size_t(i)] == (i >= 2 ? fav[std::size_t(i)] * 2 : -1.0f));
  // a target with unaligned vectors (the CPU device) loads and stores float4 at any offset: r*4+2 and r*4+1
  Target ua = cpu(1);
  ua.unaligned_vectors = true;
  for (std::int64_t off : {2, 1}) {
    INFO("offset " << off);
    const UOp i3 = r2 * idx(4) + u + idx(off);
    const Program p3 = to_program(kernel({fo.index({i3}).store(fa.index({i3}) * UOp::const_(dtypes::float32, 2.0)).end({r2, u})}), ua, &o2);
    CHECK(count_vec(p3, Ops::LOAD, 4) == 1);
    CHECK(count_vec(p3, Ops::STORE, 4) == 1);
    CHECK(count_vec(p3, Ops::LOAD, 2) + count_vec(p3, Ops::LOAD, 1) == 0);
    std::vector<float> f3(66, -1);
    run(p3, f3, fav);
    for (int i = 0; i < 66; ++i) REQUIRE(f3[std::size_t(i)] == (i >= off && i < 64 + off ? fav[std::size_t(i)] * 2 : -1.0f));
  }
}

TEST_CASE("opts: on a target with partial sums a convolution's weight gradient sums x in 4 lanes apart") {
  // dw[co,ci,ky,kx] = sum_{y,x} g[co,y,x] * img[ci, y+ky, x+kx]: 32 out channels, 2 in, 5x5 on 12x12 (g 8x8)
  const UOp dw = param(0, dtypes::float32, 32 * 2 * 25), g = param(1, dtypes::float32, 32 * 64), img = param(2, dtypes::float32, 2 * 144);
  const UOp co = UOp::range(32, 0), ci = UOp::range(2, 1), ky = UOp::range(5, 2), kx = UOp::range(5, 3);
  const UOp y = UOp::range(8, 4, AxisType::REDUCE), x = UOp::range(8, 5, AxisType::REDUCE);
  const UOp v = g.index({co * idx(64) + y * idx(8) + x}) * img.index({ci * idx(144) + (y + ky) * idx(12) + x + kx});
  const UOp ast = kernel({dw.index({co * idx(50) + ci * idx(25) + ky * idx(5) + kx}).store(v.reduce(Ops::ADD, {y, x})).end({co, ci, ky, kx})});
  Target ps = cpu(1);
  ps.unaligned_vectors = true, ps.register_blocking = true, ps.partial_sums = 96;
  // out channels by 4 (img stays put along them), then x, which both inputs walk by 1, unrolled by 4:
  // 16 accumulator lanes, 4 per output, added across after the loop
  CHECK(opts_str(heuristic_opts(ast, ps)) == "Opt(op=OptOps.UPCAST, axis=0, arg=4) Opt(op=OptOps.UNROLL, axis=1, arg=4) ");
  const Program pp = to_program(ast, ps);
  CHECK(reg_lanes(pp) == 16);
  // the same opts without partial sums: one accumulator per output
  Target nops = ps;
  nops.partial_sums = 0;
  const std::vector<Opt> same = heuristic_opts(ast, ps);
  const Program pn = to_program(ast, nops, &same);
  CHECK(reg_lanes(pn) == 4);
  std::vector<float> gv = iota_f(32 * 64), iv = iota_f(2 * 144, 1);
  for (const Program* p : {&pp, &pn}) {
    std::vector<float> o(32 * 2 * 25, -1);
    run(*p, o, gv, iv);
    for (int c = 0; c < 32; ++c)
      for (int i = 0; i < 2; ++i)
        for (int a = 0; a < 5; ++a)
          for (int b = 0; b < 5; ++b) {
            float s = 0;
            for (int yy = 0; yy < 8; ++yy)
              for (int xx = 0; xx < 8; ++xx) s += gv[std::size_t(c * 64 + yy * 8 + xx)] * iv[std::size_t(i * 144 + (yy + a) * 12 + xx + b)];
            REQUIRE(o[std::size_t(c * 50 + i * 25 + a * 5 + b)] == Approx(s).epsilon(1e-5));
          }
  }
  // a max keeps partial maxima the same way: one output, 4 lanes
  const UOp m = param(0, dtypes::float32, 8), a = param(1, dtypes::float32, 8 * 64);
  const UOp ro = UOp::range(8, 0), rr = UOp::range(64, 1, AxisType::REDUCE);
  const UOp mast = kernel({m.index({ro}).store(a.index({ro * idx(64) + rr}).reduce(Ops::MAX, {rr})).end({ro})});
  const Program pm = to_program(mast, ps);
  CHECK(reg_lanes(pm) == 4);
  std::vector<float> mo(8, -1), av(8 * 64);
  for (int i = 0; i < 8 * 64; ++i) av[std::size_t(i)] = float((i * 37) % 101) - 50.0f;
  run(pm, mo, av);
  for (int i = 0; i < 8; ++i) REQUIRE(mo[std::size_t(i)] == *std::max_element(av.begin() + i * 64, av.begin() + i * 64 + 64));
  // a small reduce axis after the contiguous one unrolls whole too, as tinygrad's would: out[o] = sum_{r,s}
  // a[o*512 + s*200 + r] (s*200 + r does not merge into one range)
  const UOp a2 = param(1, dtypes::float32, 8 * 512), rs = UOp::range(2, 2, AxisType::REDUCE);
  const UOp sast = kernel({m.index({ro}).store(a2.index({ro * idx(512) + rs * idx(200) + rr}).reduce(Ops::ADD, {rr, rs})).end({ro})});
  CHECK(opts_str(heuristic_opts(sast, ps)) == "Opt(op=OptOps.UNROLL, axis=0, arg=4) Opt(op=OptOps.UNROLL, axis=1, arg=0) ");
  const Program psm = to_program(sast, ps);
  CHECK(reg_lanes(psm) == 8);
  std::vector<float> so(8, -1), sv = iota_f(8 * 512);
  run(psm, so, sv);
  for (int i = 0; i < 8; ++i) {
    float t = 0;
    for (int j = 0; j < 2; ++j)
      for (int r = 0; r < 64; ++r) t += sv[std::size_t(i * 512 + j * 200 + r)];
    REQUIRE(so[std::size_t(i)] == Approx(t).epsilon(1e-5));
  }
}

TEST_CASE("opts: no partial sums along an axis one input walks with a stride (matmul's k)") {
  // c[i,j] = sum_k a[i,k] * b[k,j]: a walks k by 1, b by N. Partial sums along k would load b's lanes one by
  // one (a gather across rows: 1024^2 matmul ran at 4 GFLOP/s with them, 40 without), so the heuristic
  // chooses as it does without partial sums. With b as N x K (c = a * b^T) both walk k by 1: partial sums.
  const int M = 16, K = 32, N = 16;
  const UOp c = param(0, dtypes::float32, M * N), a = param(1, dtypes::float32, M * K), b = param(2, dtypes::float32, K * N);
  const UOp i = UOp::range(M, 0), j = UOp::range(N, 1), k = UOp::range(K, 2, AxisType::REDUCE);
  const auto matmul = [&](const UOp& bk) {
    return kernel({c.index({i * idx(N) + j}).store((a.index({i * idx(K) + k}) * bk).reduce(Ops::ADD, {k})).end({i, j})});
  };
  const UOp ast = matmul(b.index({k * idx(N) + j})), ast_t = matmul(b.index({j * idx(K) + k}));
  Target ps = cpu(1);
  ps.unaligned_vectors = true, ps.register_blocking = true, ps.partial_sums = 96;
  Target nops = ps;
  nops.partial_sums = 0;
  CHECK(opts_str(heuristic_opts(ast, ps)) == opts_str(heuristic_opts(ast, nops)));
  CHECK(opts_str(heuristic_opts(ast_t, ps)) != opts_str(heuristic_opts(ast_t, nops)));
  std::vector<float> av = iota_f(M * K), bv = iota_f(K * N, 1);
  for (const bool t : {false, true}) {
    std::vector<float> o(M * N, -1);
    run(to_program(t ? ast_t : ast, ps), o, av, bv);
    for (int r = 0; r < M; ++r)
      for (int q = 0; q < N; ++q) {
        float want = 0;
        for (int x = 0; x < K; ++x) want += av[std::size_t(r * K + x)] * bv[std::size_t(t ? q * K + x : x * N + q)];
        REQUIRE(o[std::size_t(r * N + q)] == Approx(want).epsilon(1e-5));
      }
  }
}

TEST_CASE("opts: with 8-lane vectors a split weight gradient sums x in 8 lanes apart and loops over its batch group outermost") {
  // the first kernel of a split weight gradient (tinygrad's split_reduceop): dw[co,ci,ky,kx,grp] =
  // sum_{n,y,x} g[grp*2+n, co, y, x] * img[grp*2+n, ci, y+ky, x+kx]; 32 out channels, 2 in, 3x3 on 10x10 (g 8x8),
  // 8 groups of 2 images. The group is a LOOP axis both inputs move along; no other output axis is
  const int CO = 32, CI = 2, K = 3, H = 10, G = 8, GRP = 8, N = 2;
  const UOp dw = param(0, dtypes::float32, CO * CI * K * K * GRP), g = param(1, dtypes::float32, GRP * N * CO * G * G),
            img = param(2, dtypes::float32, GRP * N * CI * H * H);
  const UOp co = UOp::range(CO, 0), ci = UOp::range(CI, 1), ky = UOp::range(K, 2), kx = UOp::range(K, 3), grp = UOp::range(GRP, 4);
  const UOp n = UOp::range(N, 5, AxisType::REDUCE), y = UOp::range(G, 6, AxisType::REDUCE), x = UOp::range(G, 7, AxisType::REDUCE);
  const UOp b = grp * idx(N) + n;
  const UOp v = g.index({b * idx(CO * G * G) + co * idx(G * G) + y * idx(G) + x}) *
                img.index({b * idx(CI * H * H) + ci * idx(H * H) + (y + ky) * idx(H) + x + kx});
  const UOp out = dw.index({co * idx(CI * K * K * GRP) + ci * idx(K * K * GRP) + ky * idx(K * GRP) + kx * idx(GRP) + grp});
  const UOp ast = kernel({out.store(v.reduce(Ops::ADD, {n, y, x})).end({co, ci, ky, kx, grp})});
  Target t = cpu(1);
  t.unaligned_vectors = t.masked_loads = t.register_blocking = true;
  t.partial_sums = 96, t.float_lanes = 8, t.inputs_axis_outermost = true;
  // kx whole and out channels by 4 (12 outputs of 8 lanes: 96), x unrolled by 8, the group swapped with co
  CHECK(opts_str(heuristic_opts(ast, t)) ==
        "Opt(op=OptOps.UPCAST, axis=3, arg=3) Opt(op=OptOps.UPCAST, axis=0, arg=4) Opt(op=OptOps.UNROLL, axis=2, arg=8) "
        "Opt(op=OptOps.SWAP, axis=0, arg=3) ");
  const Program p = to_program(ast, t);
  CHECK(reg_lanes(p) == 96);
  CHECK(count_vec(p, Ops::LOAD, 8) > 0);
  // the outermost loop is the group's
  const auto first_range = std::find_if(p.uops.begin(), p.uops.end(), [](const UOp& u) { return u.op() == Ops::RANGE; });
  REQUIRE(first_range != p.uops.end());
  CHECK(first_range->src(0).arg().as_int() == GRP);
  // without 8-lane vectors or the loop order: 4 lanes apart (48 in all), co outermost; all three agree with loops
  Target t4 = t;
  t4.float_lanes = 4, t4.inputs_axis_outermost = false;
  CHECK(opts_str(heuristic_opts(ast, t4)) ==
        "Opt(op=OptOps.UPCAST, axis=3, arg=3) Opt(op=OptOps.UPCAST, axis=0, arg=4) Opt(op=OptOps.UNROLL, axis=2, arg=4) ");
  std::vector<float> gv = iota_f(GRP * N * CO * G * G), iv = iota_f(GRP * N * CI * H * H, 1);
  for (const Program& q : {p, to_program(ast, t4), to_program(ast, cpu(1))}) {
    INFO(q.name);
    std::vector<float> o(std::size_t(CO * CI * K * K * GRP), -1);
    run(q, o, gv, iv);
    for (int c = 0; c < CO; ++c)
      for (int i = 0; i < CI; ++i)
        for (int a = 0; a < K; ++a)
          for (int bb = 0; bb < K; ++bb)
            for (int r = 0; r < GRP; ++r) {
              float s = 0;
              for (int nn = r * N; nn < r * N + N; ++nn)
                for (int yy = 0; yy < G; ++yy)
                  for (int xx = 0; xx < G; ++xx)
                    s += gv[std::size_t(((nn * CO + c) * G + yy) * G + xx)] * iv[std::size_t(((nn * CI + i) * H + yy + a) * H + xx + bb)];
              REQUIRE(o[std::size_t((((c * CI + i) * K + a) * K + bb) * GRP + r)] == Approx(s).epsilon(1e-5));
            }
  }
}

TEST_CASE("opts: SWAP trades the places of two loop axes; other axes are errors") {
  // out[j*4+i] = a[i*6+j] * 2: a transpose, so the two ranges stay apart
  const UOp out = param(0, dtypes::float32, 24), a = param(1, dtypes::float32, 24);
  const UOp i = UOp::range(4, 0), j = UOp::range(6, 1), r = UOp::range(3, 2, AxisType::REDUCE);
  const UOp ast = kernel({out.index({j * idx(4) + i}).store(a.index({i * idx(6) + j}) * UOp::const_(dtypes::float32, 2.0)).end({i, j})});
  const std::vector<Opt> swap{{OptOps::SWAP, 0, 1}};
  CHECK(to_program(ast, cpu(1), &swap).name == "E_6_4");
  std::vector<float> av = iota_f(24);
  std::vector<float> o(24, -1);
  run(to_program(ast, cpu(1), &swap), o, av);
  for (int ii = 0; ii < 4; ++ii)
    for (int jj = 0; jj < 6; ++jj) REQUIRE(o[std::size_t(jj * 4 + ii)] == av[std::size_t(ii * 6 + jj)] * 2.0f);
  // two ranges of one size swap too (out[j*4+i] = a[i*4+j] on 4x4)
  const UOp i4 = UOp::range(4, 0), j4 = UOp::range(4, 1);
  const UOp sq = kernel({out.index({j4 * idx(4) + i4}).store(a.index({i4 * idx(4) + j4})).end({i4, j4})});
  const Program ps = to_program(sq, cpu(1), &swap);
  CHECK(ps.name == "E_4_4");
  std::vector<float> o4(24, -1);
  run(ps, o4, av);
  for (int ii = 0; ii < 4; ++ii)
    for (int jj = 0; jj < 4; ++jj) REQUIRE(o4[std::size_t(jj * 4 + ii)] == av[std::size_t(ii * 4 + jj)]);
  const UOp red = kernel({out.index({i}).store(a.index({i * idx(6) + r}).reduce(Ops::ADD, {r})).end({i})});
  std::string msg = "no error";
  try {
    to_program(red, cpu(1), &swap);
  } catch (const KernelOptError& e) {
    msg = e.what();
  }
  CHECK(msg == "apply_opt Opt(op=OptOps.SWAP, axis=0, arg=1): swap only for two GLOBAL or two LOOP axes");
}

TEST_CASE("opts: PADTO grows an output axis to a multiple, gating its loads and stores") {
  // out[co,y,x] = sum_{ky,kx} img[y+ky, x+kx] * w[co,ky,kx]: 4 out channels, 3x3 on 12x12 -> x of 10, padded to 16 and upcast by 8
  const UOp out = param(0, dtypes::float32, 4 * 100), img = param(1, dtypes::float32, 144), w = param(2, dtypes::float32, 4 * 9);
  const UOp co = UOp::range(4, 0), y = UOp::range(10, 1), x = UOp::range(10, 2);
  const UOp ky = UOp::range(3, 3, AxisType::REDUCE), kx = UOp::range(3, 4, AxisType::REDUCE);
  const UOp v = img.index({(y + ky) * idx(12) + x + kx}) * w.index({co * idx(9) + ky * idx(3) + kx});
  const UOp ast = kernel({out.index({co * idx(100) + y * idx(10) + x}).store(v.reduce(Ops::ADD, {ky, kx})).end({co, y, x})});
  Target ua = cpu(1);
  ua.unaligned_vectors = true, ua.masked_loads = true;
  const std::vector<Opt> opts{{OptOps::PADTO, 2, 8}, {OptOps::UPCAST, 2, 8}};
  const Program p = to_program(ast, ua, &opts);
  CHECK(p.name == "r_4_10_2_8_3_3");
  std::vector<float> iv = iota_f(144), wv = iota_f(36, 1), o(400, -1);
  run(p, o, iv, wv);
  for (int c = 0; c < 4; ++c)
    for (int yy = 0; yy < 10; ++yy)
      for (int xx = 0; xx < 10; ++xx) {
        float s = 0;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) s += iv[std::size_t((yy + a) * 12 + xx + b)] * wv[std::size_t(c * 9 + a * 3 + b)];
        REQUIRE(o[std::size_t(c * 100 + yy * 10 + xx)] == Approx(s).epsilon(1e-5));
      }
  auto err = [&](std::vector<Opt> o2) {
    try {
      to_program(ast, ua, &o2);
    } catch (const KernelOptError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(err({{OptOps::PADTO, 3, 4}}) == "apply_opt Opt(op=OptOps.PADTO, axis=3, arg=4): pad is for GLOBAL or LOOP axes, not REDUCE");
  CHECK(err({{OptOps::PADTO, 0, 16}}) == "apply_opt Opt(op=OptOps.PADTO, axis=0, arg=16): pad adds more than quadruple the work (4 to 16)");
}
