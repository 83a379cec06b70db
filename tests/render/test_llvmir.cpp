// Tests of render/llvmir.hpp: Programs built by hand in tinygrad's linear form (as /tmp/lin.py prints it for
// the same tensor expressions), rendered to LLVM IR. The text is checked against the lines tinygrad's
// CPULLVMRenderer prints for the same uops (with opaque `ptr` and explicit alignment), and every kernel is
// compiled and run, its outputs checked against values computed here.
#include <catch2/catch.hpp>
#include <metagrad/pattern/graph_rewrite.hpp>
#include <metagrad/render/llvmir.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "run_llvm.hpp"

using namespace mg;

namespace {

// A linear program under construction: every uop added in order, as the linearizer would list it.
struct Lin {
  std::vector<UOp> uops, params, vars;
  UOp add(UOp u) {
    uops.push_back(u);
    if (u.op() == Ops::PARAM) params.push_back(u);
    if (u.op() == Ops::DEFINE_VAR) vars.push_back(u);
    return u;
  }
  UOp param(int slot, DType dt, std::int64_t size) { return add(UOp::param(slot, dt.ptr(size))); }
  UOp c(DType dt, Arg v) { return add(UOp::const_(dt, std::move(v))); }
  UOp ci(std::int64_t v) { return c(dtypes::int32, v); }
  UOp range(const UOp& end, std::int64_t axis, AxisType t = AxisType::LOOP, std::vector<UOp> deps = {}) {
    deps.insert(deps.begin(), end);
    return add(UOp(Ops::RANGE, dtypes::int32, deps, ArgTuple{Arg(axis), Arg(t)}));
  }
  UOp op(Ops o, DType dt, std::vector<UOp> src, Arg arg = {}) { return add(UOp(o, dt, src, std::move(arg))); }
  UOp index(const UOp& buf, const UOp& i) { return op(Ops::INDEX, buf.dtype(), {buf, i}); }
  UOp load(const UOp& idx, std::vector<UOp> more = {}) {
    more.insert(more.begin(), idx);
    return op(Ops::LOAD, idx.dtype().base(), more);
  }
  UOp store(const UOp& idx, const UOp& v) { return op(Ops::STORE, dtypes::void_, {idx, v}); }
  UOp alu(Ops o, const UOp& a, const UOp& b) {
    return op(o, GroupOp::Comparison.contains(o) ? dtypes::bool_.vec(a.dtype().count) : a.dtype(), {a, b});
  }
  UOp end(const UOp& x, const UOp& r) { return op(Ops::END, dtypes::void_, {x, r}); }
  Program program(std::string name) {
    add(UOp(Ops::SINK, dtypes::void_, {uops.back()}));
    Program p;
    p.name = std::move(name), p.uops = uops, p.params = params, p.vars = vars;
    return p;
  }
};

bool has_line(const std::string& ir, const std::string& line) { return ir.find(line + "\n") != std::string::npos; }

// (a+b).sum(1) for float32 4x4, NOOPT: tinygrad's linear form from the brief, uop for uop
Program sum_program() {
  Lin l;
  UOp d0 = l.param(0, dtypes::float32, 4), d1 = l.param(1, dtypes::float32, 16), d2 = l.param(2, dtypes::float32, 16);
  UOp reg = l.add(UOp(Ops::DEFINE_REG, dtypes::float32.ptr(1, AddrSpace::REG), {}, Arg(0)));
  UOp c0 = l.ci(0);
  UOp i5 = l.op(Ops::INDEX, reg.dtype(), {reg, c0});
  UOp f0 = l.c(dtypes::float32, 0.0), c2 = l.ci(2), c4 = l.ci(4);
  UOp r1 = l.range(c4, 1);
  UOp a10 = l.op(Ops::AFTER, reg.dtype(), {reg, r1});
  UOp i11 = l.index(a10, c0);
  UOp shl = l.alu(Ops::SHL, r1, c2);
  UOp st13 = l.store(i11, f0);
  UOp r0 = l.range(c4, 0, AxisType::REDUCE, {r1});
  UOp a15 = l.op(Ops::AFTER, reg.dtype(), {reg, st13, r0});
  UOp acc = l.load(l.index(a15, c0));
  UOp off = l.alu(Ops::ADD, shl, r0);
  UOp x = l.load(l.index(d1, off)), y = l.load(l.index(d2, off));
  UOp s = l.alu(Ops::ADD, acc, l.alu(Ops::ADD, x, y));
  UOp st25 = l.store(i5, s);
  UOp e26 = l.end(st25, r0);
  UOp a27 = l.op(Ops::AFTER, reg.dtype(), {reg, e26});
  UOp res = l.load(l.index(a27, c0));
  UOp st = l.store(l.index(d0, r1), res);
  l.end(st, r1);
  return l.program("r_4_4");
}

}  // namespace

TEST_CASE("render_llvm: a reduction with a DEFINE_REG accumulator, as llvmir.py renders it", "[render][llvm]") {
  Program p = sum_program();
  std::string ir = render_llvm(p);
  INFO(ir);
  // tinygrad's lines for the same uops (float* -> ptr, plus the alignment of each access)
  const char* lines[] = {
      "define void @r_4_4(ptr noalias align 32 %data0, ptr noalias align 32 %data1, ptr noalias align 32 %data2) #0",
      "  %reg_0 = alloca [1 x float]",
      "  %v0 = getelementptr inbounds float, ptr %reg_0, i32 0",
      "  br label %loop_entry_1",
      "loop_entry_1:",
      "  br label %loop_latch_1",
      "loop_latch_1:",
      "  %v1 = phi i32 [ 0, %loop_entry_1 ], [ %v1phi, %loop_footer_1 ]",
      "  %v1phi = add i32 %v1, 1",
      "  %v1cmp = icmp ult i32 %v1, 4",
      "  br i1 %v1cmp, label %loop_body_1, label %loop_exit_1",
      "loop_body_1:",
      "  %v2 = getelementptr inbounds float, ptr %reg_0, i32 0",
      "  %v3 = shl i32 %v1, 2",
      "  store float 0.0, ptr %v2, align 4",
      "  %v5 = phi i32 [ 0, %loop_entry_0 ], [ %v5phi, %loop_footer_0 ]",
      "  %v7 = load float, ptr %v6, align 4",
      "  %v8 = add nsw i32 %v3, %v5",
      "  %v9 = getelementptr inbounds float, ptr %data1, i32 %v8",
      "  %v13 = fadd nsz arcp contract afn float %v10, %v12",
      "  %v14 = fadd nsz arcp contract afn float %v7, %v13",
      "  store float %v14, ptr %v0, align 4",
      "  br label %loop_footer_0",
      "loop_footer_0:",
      "  br label %loop_latch_0",
      "loop_exit_0:",
      "  %v18 = load float, ptr %v17, align 4",
      "  %v19 = getelementptr inbounds float, ptr %data0, i32 %v1",
      "  store float %v18, ptr %v19, align 4",
      "loop_exit_1:",
      "  ret void",
      "define void @r_4_4_call(ptr %bufs, ptr %vals) #1",
      "  call void @r_4_4(ptr %a0, ptr %a1, ptr %a2)",
      "attributes #0 = { alwaysinline nounwind \"no-builtins\" \"no-trapping-math\"=\"true\" }",
  };
  for (const char* line : lines) {
    INFO(line);
    CHECK(has_line(ir, line));
  }

  std::vector<float> out(4, -1), a(16), b(16);
  for (int i = 0; i < 16; ++i) a[std::size_t(i)] = float(i) * 0.5f, b[std::size_t(i)] = float(i * i) - 3.0f;
  test::run_llvm(ir, p.name, {out.data(), a.data(), b.data()});
  for (int i = 0; i < 4; ++i) {
    float want = 0;
    for (int j = 0; j < 4; ++j) want += a[std::size_t(i * 4 + j)] + b[std::size_t(i * 4 + j)];
    CHECK(out[std::size_t(i)] == Approx(want));
  }
}

namespace {
// One loop over n elements: inputs loaded at i, outputs stored at i. Slots are given in call order.
struct Elementwise {
  Lin l;
  UOp rng;
  int slots = 0, n;
  std::vector<UOp> stores;
  explicit Elementwise(int n_) : n(n_) { rng = l.range(l.ci(n), 0); }
  UOp in(DType dt) { return l.load(l.index(l.param(slots++, dt, n), rng)); }
  void out(DType dt, const UOp& v) { stores.push_back(l.store(l.index(l.param(slots++, dt, n), rng), v)); }
  Program program(std::string name) {
    UOp last = stores.size() == 1 ? stores[0] : l.op(Ops::GROUP, dtypes::void_, stores);
    l.end(last, rng);
    return l.program(std::move(name));
  }
};
template <class T> void* ptr(std::vector<T>& v) { return static_cast<void*>(v.data()); }
}  // namespace

TEST_CASE("render_llvm: int div/mod, shifts and bit ops, signed and unsigned", "[render][llvm]") {
  Elementwise k(8);
  UOp a = k.in(dtypes::int32), b = k.in(dtypes::int32), ua = k.in(dtypes::uint32), ub = k.in(dtypes::uint32);
  k.out(dtypes::int32, k.l.alu(Ops::CDIV, a, b));
  k.out(dtypes::int32, k.l.alu(Ops::CMOD, a, b));
  k.out(dtypes::uint32, k.l.alu(Ops::CDIV, ua, ub));
  k.out(dtypes::uint32, k.l.alu(Ops::CMOD, ua, ub));
  UOp one = k.l.ci(1), uone = k.l.c(dtypes::uint32, 1);
  k.out(dtypes::int32, k.l.alu(Ops::XOR, k.l.alu(Ops::SHR, a, one), k.l.alu(Ops::SHL, b, one)));
  k.out(dtypes::uint32, k.l.alu(Ops::OR, k.l.alu(Ops::SHR, ua, uone), k.l.alu(Ops::AND, ub, uone)));
  k.out(dtypes::bool_, k.l.alu(Ops::AND, k.l.alu(Ops::CMPLT, a, b), k.l.alu(Ops::CMPLT, ua, ub)));
  Program p = k.program("E_divmod");
  std::string ir = render_llvm(p);
  INFO(ir);
  for (const char* line : {"sdiv i32", "srem i32", "udiv i32", "urem i32", "ashr i32", "lshr i32", "shl i32", "xor i32", "or i32",
                           "and i32", "icmp slt i32", "icmp ult i32", "and i1"})
    CHECK(ir.find(std::string(" = ") + line + " ") != std::string::npos);

  std::vector<std::int32_t> va{-7, 7, -7, 7, -1, 0, 9, -9}, vb{2, 2, -2, -2, 3, 5, -4, 4}, q(8), r(8), x(8);
  std::vector<std::uint32_t> vua{4294967295u, 10, 7, 100, 0, 3, 4294967294u, 5}, vub{2, 3, 7, 9, 4, 5, 3, 1}, uq(8), ur(8), ux(8);
  std::vector<std::uint8_t> lt(8, 7);
  test::run_llvm(ir, p.name, {ptr(va), ptr(vb), ptr(vua), ptr(vub), ptr(q), ptr(r), ptr(uq), ptr(ur), ptr(x), ptr(ux), ptr(lt)});
  for (std::size_t i = 0; i < 8; ++i) {
    CHECK(q[i] == va[i] / vb[i]);  // C's truncating division: CDIV
    CHECK(r[i] == va[i] % vb[i]);
    CHECK(uq[i] == vua[i] / vub[i]);
    CHECK(ur[i] == vua[i] % vub[i]);
    CHECK(x[i] == ((va[i] >> 1) ^ (vb[i] << 1)));
    CHECK(ux[i] == ((vua[i] >> 1) | (vub[i] & 1u)));
    CHECK(lt[i] == std::uint8_t(va[i] < vb[i] && vua[i] < vub[i]));
  }
  CHECK(q[0] == -3);
  CHECK(r[0] == -1);
  CHECK(r[3] == 1);
}

TEST_CASE("render_llvm: float ops with tinygrad's fast-math flags, where, max and constants", "[render][llvm]") {
  Elementwise k(6);
  UOp a = k.in(dtypes::float32), b = k.in(dtypes::float32);
  UOp lt = k.l.alu(Ops::CMPLT, a, b);
  k.out(dtypes::float32, k.l.op(Ops::WHERE, dtypes::float32, {lt, k.l.alu(Ops::MUL, a, b), k.l.alu(Ops::FDIV, a, b)}));
  k.out(dtypes::float32, k.l.alu(Ops::MAX, a, b));
  UOp ne = k.l.alu(Ops::CMPNE, a, b), eq = k.l.alu(Ops::CMPEQ, a, k.l.c(dtypes::float32, 0.1));
  k.out(dtypes::float32, k.l.alu(Ops::ADD, k.l.op(Ops::CAST, dtypes::float32, {ne}), k.l.op(Ops::CAST, dtypes::float32, {eq})));
  UOp inf = k.l.c(dtypes::float32, std::numeric_limits<double>::infinity());
  k.out(dtypes::float32, k.l.op(Ops::WHERE, dtypes::float32, {k.l.alu(Ops::CMPLT, a, k.l.c(dtypes::float32, 1e-5)), inf,
                                                              k.l.alu(Ops::ADD, a, k.l.c(dtypes::float32, 1e-5))}));
  Program p = k.program("E_float");
  std::string ir = render_llvm(p);
  INFO(ir);
  for (const char* line : {"= fcmp nsz arcp contract afn olt float", "= fmul nsz arcp contract afn float", "= fdiv nsz arcp contract afn float",
                           "= fcmp nsz arcp contract afn une float", "= fcmp nsz arcp contract afn oeq float %v", "= select i1 %v",
                           "= uitofp i1 %v", "float 0x7FF0000000000000", ", 0.10000000149011612", ", 9.999999747378752e-06"})
    CHECK(ir.find(line) != std::string::npos);

  std::vector<float> va{1, -2, 0.1f, 4, 0, 3}, vb{2, -4, 0.1f, 0.5f, -1, 3}, w(6), m(6), c(6), s(6);
  test::run_llvm(ir, p.name, {ptr(va), ptr(vb), ptr(w), ptr(m), ptr(c), ptr(s)});
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(w[i] == Approx(va[i] < vb[i] ? va[i] * vb[i] : va[i] / vb[i]));
    CHECK(m[i] == std::max(va[i], vb[i]));
    CHECK(c[i] == float(va[i] != vb[i]) + float(va[i] == 0.1f));
    if (va[i] < 1e-5f) CHECK(std::isinf(s[i]));
    else CHECK(s[i] == Approx(va[i] + 1e-5f));
  }
}

TEST_CASE("render_llvm: casts between floats, ints, bool and half; bitcast", "[render][llvm]") {
  Elementwise k(8);
  UOp f = k.in(dtypes::float32), h = k.in(dtypes::float16), i8 = k.in(dtypes::int8), u8 = k.in(dtypes::uint8), i64 = k.in(dtypes::int64);
  auto cast = [&](DType dt, const UOp& x) { return k.l.op(Ops::CAST, dt, {x}); };
  k.out(dtypes::int32, cast(dtypes::int32, f));
  k.out(dtypes::bool_, cast(dtypes::bool_, f));
  k.out(dtypes::float16, cast(dtypes::float16, f));
  k.out(dtypes::float32, cast(dtypes::float32, h));
  k.out(dtypes::int32, k.l.alu(Ops::ADD, cast(dtypes::int32, i8), cast(dtypes::int32, u8)));
  k.out(dtypes::int32, cast(dtypes::int32, i64));
  k.out(dtypes::uint32, cast(dtypes::uint32, cast(dtypes::int32, i8)));  // same size: no instruction
  k.out(dtypes::float32, k.l.alu(Ops::ADD, cast(dtypes::float32, cast(dtypes::bool_, i8)), cast(dtypes::float32, u8)));
  k.out(dtypes::int32, k.l.op(Ops::BITCAST, dtypes::int32, {f}));
  k.out(dtypes::uint8, cast(dtypes::uint8, k.l.op(Ops::MUL, dtypes::float32, {f, f})));
  Program p = k.program("E_cast");
  std::string ir = render_llvm(p);
  INFO(ir);
  for (const char* line : {"= fptosi float", "= fcmp nsz arcp contract afn une float %v2, 0.0", "= fptrunc float", "= fpext half",
                           "= sext i8", "= zext i8", "= trunc i64", "= icmp ne i8", "= uitofp i1", "= uitofp i8", "= bitcast float",
                           ".wide = fptosi float"})  // a float to a narrow unsigned int wraps through int64
    CHECK(ir.find(line) != std::string::npos);
  CHECK(ir.find("to i32\n  %v", ir.find("sext i8")) != std::string::npos);

  std::vector<float> vf{-2.7f, -0.5f, 0, 0.5f, 2.7f, 1000, 65504, 3.14159f};
  // half bits of 1, -2, 0.5, 65504, -0, 0.099975586, 3.140625, 6.1035156e-05
  std::vector<std::uint16_t> vh{0x3C00, 0xC000, 0x3800, 0x7BFF, 0x8000, 0x2E66, 0x4248, 0x0400}, oh(8);
  std::vector<std::int8_t> vi8{-128, -1, 0, 1, 127, -5, 5, 0};
  std::vector<std::uint8_t> vu8{255, 0, 1, 128, 7, 0, 200, 3}, ob(8), ou8(8);
  std::vector<std::int64_t> vi64{-1, 4294967296 + 5, -4294967296 - 7, 1ll << 40, 123, -123, 0, 2147483648};
  std::vector<std::int32_t> oi(8), osum(8), otr(8), obits(8);
  std::vector<std::uint32_t> ou(8);
  std::vector<float> of(8), obool(8);
  test::run_llvm(ir, p.name,
                 {ptr(vf), ptr(vh), ptr(vi8), ptr(vu8), ptr(vi64), ptr(oi), ptr(ob), ptr(oh), ptr(of), ptr(osum), ptr(otr), ptr(ou),
                  ptr(obool), ptr(obits), ptr(ou8)});
  const float hv[] = {1, -2, 0.5f, 65504, -0.0f, 0.099975586f, 3.140625f, 6.1035156e-05f};
  const std::uint16_t hbits[] = {0xC166, 0xB800, 0x0000, 0x3800, 0x4166, 0x63D0, 0x7BFF, 0x4248};  // fptrunc of vf
  for (std::size_t i = 0; i < 8; ++i) {
    INFO(i);
    CHECK(oi[i] == std::int32_t(vf[i]));
    CHECK(ob[i] == std::uint8_t(vf[i] != 0));
    CHECK(oh[i] == hbits[i]);
    CHECK(of[i] == hv[i]);
    CHECK(osum[i] == std::int32_t(vi8[i]) + std::int32_t(vu8[i]));
    CHECK(otr[i] == std::int32_t(std::uint32_t(std::uint64_t(vi64[i]))));
    CHECK(ou[i] == std::uint32_t(std::int32_t(vi8[i])));
    CHECK(obool[i] == float(vi8[i] != 0) + float(vu8[i]));
    std::int32_t bits;
    std::memcpy(&bits, &vf[i], 4);
    CHECK(obits[i] == bits);
    CHECK(ou8[i] == std::uint8_t(std::int64_t(vf[i] * vf[i])));  // wraps, as the reference evaluator
  }
}

TEST_CASE("render_llvm: vector loads, GEP, STACK and vector stores, as llvmir.py renders a+b upcast by 4", "[render][llvm]") {
  // tinygrad's linear form of (a+b) for float32 4x4 with its default opts (UPCAST 4), then a broadcast and a vector op
  Lin l;
  UOp d0 = l.param(0, dtypes::float32, 16), d1 = l.param(1, dtypes::float32, 16), d2 = l.param(2, dtypes::float32, 16);
  UOp c2 = l.ci(2), c4 = l.ci(4);
  UOp r = l.range(c4, 0);
  UOp off = l.alu(Ops::SHL, r, c2);
  DType v4p = dtypes::float32.vec(4).ptr(16);
  UOp x = l.load(l.op(Ops::CAST, v4p, {l.index(d1, off)}));
  UOp y = l.load(l.op(Ops::CAST, v4p, {l.index(d2, off)}));
  std::vector<UOp> xs, ys, sums;
  for (int i = 0; i < 4; ++i) xs.push_back(l.op(Ops::GEP, dtypes::float32, {x}, ArgTuple{Arg(i)})), ys.push_back(l.op(Ops::GEP, dtypes::float32, {y}, ArgTuple{Arg(i)}));
  for (int i = 0; i < 4; ++i) sums.push_back(l.alu(Ops::ADD, xs[std::size_t(i)], ys[std::size_t(i)]));
  UOp st = l.op(Ops::STACK, dtypes::float32.vec(4), sums);
  UOp two = l.c(dtypes::float32, 2.0);
  UOp bc = l.op(Ops::STACK, dtypes::float32.vec(4), {two, two, two, two});
  UOp v = l.alu(Ops::MUL, st, bc);
  UOp hi = l.op(Ops::GEP, dtypes::float32.vec(2), {v}, ArgTuple{Arg(3), Arg(2)});
  UOp sw = l.op(Ops::STACK, dtypes::float32.vec(4), {l.op(Ops::GEP, dtypes::float32, {hi}, ArgTuple{Arg(0)}), xs[1], xs[2], xs[3]});
  UOp s1 = l.store(l.op(Ops::CAST, v4p, {l.index(d0, off)}), l.alu(Ops::ADD, v, l.alu(Ops::MUL, sw, l.c(dtypes::float32.vec(4), 0.0))));
  l.end(s1, r);
  Program p = l.program("E_4_4n1");
  std::string ir = render_llvm(p);
  INFO(ir);
  const char* lines[] = {
      "  %v1 = shl i32 %v0, 2",
      "  %v2 = getelementptr inbounds float, ptr %data1, i32 %v1",
      "  %v3 = load <4 x float>, ptr %v2, align 4",
      "  %v6 = extractelement <4 x float> %v3, i32 0",
      "  %v7 = extractelement <4 x float> %v5, i32 0",
      "  %v14 = fadd nsz arcp contract afn float %v6, %v7",
      "  %v18_0 = insertelement <4 x float> poison, float %v14, i32 0",
      "  %v18_1 = insertelement <4 x float> %v18_0, float %v15, i32 1",
      "  %v18 = insertelement <4 x float> %v18_2, float %v17, i32 3",
      "  %v19_z = insertelement <1 x float> poison, float 2.0, i32 0",
      "  %v19 = shufflevector <1 x float> %v19_z, <1 x float> poison, <4 x i32> zeroinitializer",
      "  %v20 = fmul nsz arcp contract afn <4 x float> %v18, %v19",
      "  %v21 = shufflevector <4 x float> %v20, <4 x float> poison, <2 x i32> <i32 3, i32 2>",
  };
  for (const char* line : lines) {
    INFO(line);
    CHECK(has_line(ir, line));
  }
  CHECK(ir.find("store <4 x float> %v") != std::string::npos);

  std::vector<float> out(16), a(16), b(16);
  for (std::size_t i = 0; i < 16; ++i) a[i] = float(i), b[i] = 100.0f - float(i * i);
  test::run_llvm(ir, p.name, {out.data(), a.data(), b.data()});
  for (std::size_t i = 0; i < 16; ++i) CHECK(out[i] == 2 * (a[i] + b[i]));
}

TEST_CASE("render_llvm: a gated load (pad) selects between its address and a zero constant, without a branch", "[render][llvm]") {
  // a.pad(((1,1),(0,0)))+1 for float32 4x4, NOOPT: tinygrad's linear form uop for uop
  Lin l;
  UOp d0 = l.param(0, dtypes::float32, 24), d1 = l.param(1, dtypes::float32, 16);
  UOp m4 = l.ci(-4), f0 = l.c(dtypes::float32, 0.0), f1 = l.c(dtypes::float32, 1.0), c3 = l.ci(3), c20 = l.ci(20), c24 = l.ci(24);
  UOp r = l.range(c24, 0);
  UOp idx = l.index(d1, l.alu(Ops::ADD, r, m4));
  UOp lt20 = l.alu(Ops::CMPLT, r, c20), gt3 = l.alu(Ops::CMPLT, c3, r);
  UOp gate = l.alu(Ops::AND, gt3, lt20);
  UOp ld = l.load(idx, {f0, gate});
  UOp oidx = l.index(d0, r);
  UOp st = l.store(oidx, l.alu(Ops::ADD, ld, f1));
  l.end(st, r);
  Program p = l.program("E_24");
  std::string ir = render_llvm(p);
  INFO(ir);
  const char* lines[] = {
      "  %v1 = add nsw i32 %v0, -4",
      "  %v2 = getelementptr inbounds float, ptr %data1, i32 %v1",
      "  %v5 = and i1 %v4, %v3",
      "  %v6_p = select i1 %v5, ptr %v2, ptr @mg_zero",
      "  %v6_l = load float, ptr %v6_p, align 4",
      "  %v6 = select i1 %v5, float %v6_l, float 0.0",
      "  %v8 = fadd nsz arcp contract afn float %v6, 1.0",
      "@mg_zero = internal constant [4 x i8] zeroinitializer, align 64",  // as wide as the float it stands for
  };
  for (const char* line : lines) {
    INFO(line);
    CHECK(has_line(ir, line));
  }
  std::vector<float> out(24, -1), a(16);
  for (std::size_t i = 0; i < 16; ++i) a[i] = float(i) + 0.25f;
  test::run_llvm(ir, p.name, {out.data(), a.data()});
  for (std::size_t i = 0; i < 24; ++i) CHECK(out[i] == (i >= 4 && i < 20 ? a[i - 4] : 0.0f) + 1.0f);
}

TEST_CASE("render_llvm: IF/ENDIF around a gated store", "[render][llvm]") {
  Lin l;
  UOp d0 = l.param(0, dtypes::int32, 8), d1 = l.param(1, dtypes::int32, 8);
  UOp c5 = l.ci(5), c8 = l.ci(8), c2 = l.ci(2);
  UOp r = l.range(c8, 0);
  UOp x = l.load(l.index(d1, r));
  UOp gate = l.alu(Ops::CMPLT, r, c5);
  UOp idx = l.index(d0, r);
  UOp iff = l.op(Ops::IF, dtypes::void_, {gate, idx});
  UOp st = l.store(idx, l.alu(Ops::MUL, x, c2));
  UOp endif = l.op(Ops::ENDIF, dtypes::void_, {iff});
  l.end(endif, r);
  Program p = l.program("E_if");
  std::string ir = render_llvm(p);
  INFO(ir);
  CHECK(has_line(ir, "  br i1 %v3, label %ifbody_v5, label %ifskip_v5"));
  CHECK(has_line(ir, "ifbody_v5:"));
  CHECK(has_line(ir, "  br label %ifskip_v5"));
  CHECK(has_line(ir, "ifskip_v5:"));
  std::vector<std::int32_t> out(8, -1), a{1, -2, 3, -4, 5, -6, 7, -8};
  test::run_llvm(ir, p.name, {out.data(), a.data()});
  for (std::size_t i = 0; i < 8; ++i) CHECK(out[i] == (i < 5 ? 2 * a[i] : -1));
  (void)st;
}

TEST_CASE("render_llvm: DEFINE_VARs are kernel arguments, read from vals in Program::vars order", "[render][llvm]") {
  Lin l;
  UOp n = l.add(UOp::variable("n", 1, 8, dtypes::int32));
  UOp d0 = l.param(0, dtypes::int64, 8);
  UOp off = l.add(UOp::variable("off", -100, 100, dtypes::int64));
  UOp core = l.add(UOp::variable("core_id", 0, 3, dtypes::int32));
  UOp v1 = l.add(UOp::variable("v1", 0, 3, dtypes::int32));  // named like a rendered value: must not clash
  UOp r = l.range(n, 0);
  UOp val = l.alu(Ops::ADD, l.op(Ops::CAST, dtypes::int64, {l.alu(Ops::ADD, l.alu(Ops::MUL, core, l.ci(100)), l.alu(Ops::MUL, r, v1))}), off);
  UOp st = l.store(l.index(d0, r), val);
  l.end(st, r);
  Program p = l.program("E_vars");
  p.vars = {core, off, v1, n};  // the runtime's order, not the uops'
  std::string ir = render_llvm(p);
  INFO(ir);
  CHECK(has_line(ir, "define void @E_vars(i32 %n, ptr noalias align 32 %data0, i64 %off, i32 %core_id, i32 %var.v1) #0"));
  CHECK(has_line(ir, "  %p0 = getelementptr inbounds i64, ptr %vals, i64 3"));
  CHECK(has_line(ir, "  %a0t = trunc i64 %a0 to i32"));
  CHECK(has_line(ir, "  call void @E_vars(i32 %a0t, ptr %a1, i64 %a2, i32 %a3t, i32 %a4t)"));
  std::vector<std::int64_t> out(8, -1);
  test::run_llvm(ir, p.name, {out.data()}, {2, -7, 3, 5});
  for (std::size_t i = 0; i < 8; ++i) CHECK(out[i] == (i < 5 ? 200 + 3 * std::int64_t(i) - 7 : -1));
  CHECK(p.core_id_slot() == 0);
}

TEST_CASE("render_llvm: nested loops closed by one END, DEFINE_LOCAL, and intrinsics", "[render][llvm]") {
  Lin l;
  UOp d0 = l.param(0, dtypes::float32, 12), d1 = l.param(1, dtypes::float32, 12);
  UOp tmp = l.add(UOp(Ops::DEFINE_LOCAL, dtypes::float32.ptr(4, AddrSpace::LOCAL), {}, Arg(0)));
  UOp r0 = l.range(l.ci(3), 0), r1 = l.range(l.ci(4), 1, AxisType::LOOP, {r0});
  UOp i = l.alu(Ops::ADD, l.alu(Ops::MUL, r0, l.ci(4)), r1);
  UOp x = l.load(l.index(d1, i));
  UOp ts = l.store(l.index(tmp, r1), l.op(Ops::SQRT, dtypes::float32, {x}));
  UOp t = l.load(l.index(l.op(Ops::AFTER, tmp.dtype(), {tmp, ts}), r1));
  UOp e = l.op(Ops::EXP2, dtypes::float32, {l.op(Ops::LOG2, dtypes::float32, {t})});
  UOp s = l.alu(Ops::ADD, e, l.op(Ops::SIN, dtypes::float32, {l.op(Ops::TRUNC, dtypes::float32, {x})}));
  UOp st = l.store(l.index(d0, i), s);
  l.op(Ops::END, dtypes::void_, {st, r0, r1});
  Program p = l.program("E_3_4");
  std::string ir = render_llvm(p);
  INFO(ir);
  CHECK(has_line(ir, "  %local_0 = alloca [4 x float], align 16"));
  for (const char* call : {"call float @llvm.sqrt.f32(float %v", "call float @llvm.exp2.f32(float %v", "call float @llvm.log2.f32(float %v",
                           "call float @llvm.sin.f32(float %v", "call float @llvm.trunc.f32(float %v"})
    CHECK(ir.find(call) != std::string::npos);
  // the inner loop closes first
  CHECK(ir.find("loop_exit_1:") < ir.find("loop_exit_0:"));
  std::vector<float> out(12), a(12);
  for (std::size_t k = 0; k < 12; ++k) a[k] = 0.5f + 1.25f * float(k);
  test::run_llvm(ir, p.name, {out.data(), a.data()});
  for (std::size_t k = 0; k < 12; ++k) CHECK(out[k] == Approx(std::sqrt(a[k]) + std::sin(std::trunc(a[k]))).epsilon(1e-5));
}

TEST_CASE("render_llvm: constants as LLVM reads them", "[render][llvm]") {
  using detail::llvm_const;
  CHECK(llvm_const(Arg(0.1), dtypes::float32) == "0.10000000149011612");  // rounded to float first, as tinygrad's truncate
  CHECK(llvm_const(Arg(0.1), dtypes::float64) == "0.1");
  CHECK(llvm_const(Arg(1e-5), dtypes::float64) == "0x3EE4F8B588E368F1");  // "1e-05" is no LLVM float
  CHECK(llvm_const(Arg(1e300), dtypes::float64) == "0x7E37E43C8800759C");
  CHECK(llvm_const(Arg(0.1), dtypes::float16) == "0.0999755859375");
  CHECK(llvm_const(Arg(-std::numeric_limits<double>::infinity()), dtypes::float32) == "0xFFF0000000000000");
  CHECK(llvm_const(Arg(std::numeric_limits<double>::quiet_NaN()), dtypes::float32) == "0x7FF8000000000000");
  CHECK(llvm_const(Arg(true), dtypes::bool_) == "1");
  CHECK(llvm_const(Arg(-1), dtypes::uint64) == "18446744073709551615");
  CHECK(llvm_const(Arg(-5), dtypes::int8) == "-5");
  CHECK(llvm_const(Arg(1.0), dtypes::float32.vec(2)) == "<float 1.0, float 1.0>");
  CHECK(detail::llvm_type(dtypes::float16.vec(8)) == "<8 x half>");
  CHECK(detail::llvm_type(dtypes::bfloat16) == "bfloat");
  CHECK(detail::llvm_type(dtypes::uint8.ptr(4)) == "ptr");
  // every constant kind compiles
  Elementwise k(4);
  UOp a = k.in(dtypes::float64);
  k.out(dtypes::float64, k.l.alu(Ops::MUL, k.l.alu(Ops::ADD, a, k.l.c(dtypes::float64, 1e-5)), k.l.c(dtypes::float64, 1e300)));
  UOp h = k.in(dtypes::float16);
  k.out(dtypes::float16, k.l.alu(Ops::ADD, h, k.l.c(dtypes::float16, 0.1)));
  UOp u = k.in(dtypes::uint64);
  k.out(dtypes::uint64, k.l.alu(Ops::XOR, u, k.l.c(dtypes::uint64, -1)));
  Program p = k.program("E_consts");
  std::string ir = render_llvm(p);
  INFO(ir);
  std::vector<double> vd{0, 1, -1, 2}, od(4);
  std::vector<std::uint16_t> vh{0x3C00, 0, 0xBC00, 0x4000}, oh(4);
  std::vector<std::uint64_t> vu{0, 1, ~0ull, 12345}, ou(4);
  test::run_llvm(ir, p.name, {ptr(vd), ptr(od), ptr(vh), ptr(oh), ptr(vu), ptr(ou)});
  const std::uint16_t want_h[] = {0x3C66, 0x2E66, 0xBB33, 0x4033};  // 1.1, 0.1, -0.9, 2.1 in half
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(od[i] == Approx((vd[i] + 1e-5) * 1e300));
    CHECK(oh[i] == want_h[i]);
    CHECK(ou[i] == ~vu[i]);
  }
}

TEST_CASE("render_llvm: what it cannot render is an mg::Error naming it", "[render][llvm]") {
  auto one = [](auto make) {
    Elementwise k(4);
    UOp a = k.in(dtypes::int32);
    k.out(dtypes::int32, make(k, a));
    return k.program("E_bad");
  };
  CHECK_THROWS_WITH(render_llvm(one([](Elementwise& k, UOp a) { return k.l.alu(Ops::FDIV, a, a); })),
                    Catch::Contains("no LLVM instruction for Ops.FDIV on dtypes.int"));
  CHECK_THROWS_WITH(render_llvm(one([](Elementwise& k, UOp a) { return k.l.alu(Ops::THREEFRY, a, a); })),
                    Catch::Contains("Ops.THREEFRY"));
  CHECK_THROWS_WITH(render_llvm(one([](Elementwise& k, UOp a) { return k.l.op(Ops::RECIPROCAL, dtypes::int32, {a}); })),
                    Catch::Contains("failed to render Ops.RECIPROCAL"));
  CHECK_THROWS_WITH(render_llvm(one([](Elementwise& k, UOp a) { return k.l.op(Ops::WMMA, dtypes::int32, {a, a, a}); })),
                    Catch::Contains("Ops.WMMA"));
  {
    Lin l;  // a RANGE still in the index dtype
    UOp r = l.add(UOp::range(4, 0));
    l.end(l.store(l.index(l.param(0, dtypes::int32, 4), r), l.ci(1)), r);
    CHECK_THROWS_WITH(render_llvm(l.program("E_weak")), Catch::Contains("dtypes.weakint has no LLVM type"));
  }
  CHECK_THROWS_WITH(render_llvm(one([](Elementwise&, UOp a) { return a + UOp::const_(dtypes::int32, 1); })),  // a source never listed
                    Catch::Contains("used before it is rendered"));
  Program p = one([](Elementwise& k, UOp a) { return k.l.alu(Ops::ADD, a, k.l.add(UOp::variable("n", 0, 3, dtypes::int32))); });
  p.vars.clear();
  CHECK_THROWS_WITH(render_llvm(p), Catch::Contains("DEFINE_VAR n, which is not in Program::vars"));
}

TEST_CASE("llvm_supported_ops is llvmir.py's code_for_op", "[render][llvm]") {
  STATIC_REQUIRE(llvm_supported_ops.size() == 13);
  STATIC_REQUIRE(llvm_supported_ops.contains(Ops::FDIV));
  STATIC_REQUIRE(llvm_supported_ops.contains(Ops::CMPEQ));
  STATIC_REQUIRE(!llvm_supported_ops.contains(Ops::MAX));
  STATIC_REQUIRE(!llvm_supported_ops.contains(Ops::EXP2));
  STATIC_REQUIRE(!llvm_supported_ops.contains(Ops::SUB));
  STATIC_REQUIRE((llvm_supported_ops & llvm_intrinsic_ops).empty());
}

namespace {
float bf16_to_float(std::uint16_t b) {
  std::uint32_t u = std::uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::uint16_t float_to_bf16(float f) {  // round to nearest even; nan stays nan
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return std::uint16_t((u >> 16) | 0x40);
  return std::uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
}  // namespace

TEST_CASE("llvm_extra_matcher: bfloat16 math in float32 and conversions as integer ops", "[render][llvm]") {
  UOp r = UOp(Ops::RANGE, dtypes::int32, {UOp::const_(dtypes::int32, 8)}, ArgTuple{Arg(0), Arg(AxisType::LOOP)});
  int slot = 0;
  auto in = [&](DType dt) {
    UOp p = UOp::param(slot++, dt.ptr(8));
    return UOp(Ops::LOAD, dt, {UOp(Ops::INDEX, p.dtype(), {p, r})});
  };
  std::vector<UOp> stores;
  auto out = [&](const UOp& v) {
    UOp p = UOp::param(slot++, v.dtype().ptr(8));
    stores.push_back(UOp(Ops::STORE, dtypes::void_, {UOp(Ops::INDEX, p.dtype(), {p, r}), v}));
  };
  UOp a = in(dtypes::bfloat16), b = in(dtypes::bfloat16), f = in(dtypes::float32);
  out(a + b);
  out(a.cast(dtypes::float32));
  out(f.cast(dtypes::bfloat16));
  out(a.cast(dtypes::int32));
  out(a < b);
  out((a < b).where(a, b));
  UOp sink = UOp::sink(UOp(Ops::GROUP, dtypes::void_, stores).end({r}));
  UOp low = graph_rewrite(sink, llvm_extra_matcher);
  Program p;
  p.name = "E_bf16", p.uops = low.toposort();
  for (const UOp& u : p.uops) {
    if (u.op() == Ops::PARAM) p.params.push_back(u);
    // nothing but the loads, stores and bitcasts still holds a bfloat16
    if (u.op() != Ops::PARAM && u.op() != Ops::INDEX && u.op() != Ops::LOAD && u.op() != Ops::BITCAST) CHECK(u.dtype().scalar() != dtypes::bfloat16);
  }
  std::string ir = render_llvm(p);
  INFO(ir);
  CHECK(ir.find("fpext") == std::string::npos);
  CHECK(ir.find("fptrunc") == std::string::npos);

  std::vector<float> vf{1.0f, 3.14159265f, -2.5e-3f, 65504.0f, 1.00390625f, 1.01171875f, std::numeric_limits<float>::infinity(), 1e30f};
  std::vector<std::uint16_t> va(8), vb(8), o_add(8), o_tobf(8), o_where(8);
  for (std::size_t i = 0; i < 8; ++i) va[i] = float_to_bf16(float(i) * 1.7f - 3), vb[i] = float_to_bf16(2.0f / float(i + 1));
  std::vector<float> o_tof(8);
  std::vector<std::int32_t> o_int(8);
  std::vector<std::uint8_t> o_lt(8);
  test::run_llvm(ir, p.name, {ptr(va), ptr(vb), ptr(vf), ptr(o_add), ptr(o_tof), ptr(o_tobf), ptr(o_int), ptr(o_lt), ptr(o_where)});
  for (std::size_t i = 0; i < 8; ++i) {
    INFO(i);
    const float fa = bf16_to_float(va[i]), fb = bf16_to_float(vb[i]);
    CHECK(o_add[i] == float_to_bf16(fa + fb));
    CHECK(o_tof[i] == fa);
    CHECK(o_tobf[i] == float_to_bf16(vf[i]));
    CHECK(o_int[i] == std::int32_t(fa));
    CHECK(o_lt[i] == std::uint8_t(fa < fb));
    CHECK(o_where[i] == (fa < fb ? va[i] : vb[i]));
  }
}
