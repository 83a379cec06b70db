// Tests of runtime/interp.hpp: programs built by hand in tinygrad's linear form (as /tmp/lin.py prints
// them for the same tensor expressions at the reference commit), run on INTERP, checked by value.
#include <catch2/catch.hpp>
#include <metagrad/runtime/interp.hpp>
#include <metagrad/symbolic/decompositions.hpp>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

using namespace mg;

namespace {

// appends uops in program order; sources must already be in the list
struct Lin {
  std::vector<UOp> uops;
  UOp operator()(Ops op, DType dt, std::vector<UOp> src = {}, Arg arg = {}) {
    uops.push_back(UOp(op, dt, src, std::move(arg)));
    return uops.back();
  }
  UOp param(std::int64_t slot, DType ptr) {
    uops.push_back(UOp::param(slot, ptr));
    return uops.back();
  }
  UOp c(DType dt, Arg v) { return (*this)(Ops::CONST, dt, {}, std::move(v)); }
  UOp range(const UOp& end, std::int64_t axis, AxisType t = AxisType::LOOP, std::vector<UOp> more = {}) {
    more.insert(more.begin(), end);
    return (*this)(Ops::RANGE, end.dtype(), more, ArgTuple{Arg(axis), Arg(t)});
  }
  UOp index(const UOp& buf, const UOp& idx) { return (*this)(Ops::INDEX, buf.dtype(), {buf, idx}); }
  UOp load(const UOp& ptr, std::vector<UOp> more = {}) {
    more.insert(more.begin(), ptr);
    return (*this)(Ops::LOAD, ptr.dtype().base(), more);
  }
  UOp store(const UOp& ptr, const UOp& v) { return (*this)(Ops::STORE, dtypes::void_, {ptr, v}); }
  UOp end(const UOp& x, const UOp& r) { return (*this)(Ops::END, dtypes::void_, {x, r}); }
  Program prog(std::vector<UOp> vars = {}, std::int64_t threads = 1) {
    Program p;
    p.name = "test_kernel";
    p.uops = uops;
    for (const UOp& u : uops)
      if (u.op() == Ops::PARAM) {
        const auto slot = std::size_t(u.arg().as_param().slot);
        if (p.params.size() <= slot) p.params.resize(slot + 1);
        p.params[slot] = u;
      }
    p.vars = std::move(vars);
    p.threads = threads;
    return p;
  }
};

const DType f32 = dtypes::float32, i32 = dtypes::int32;

template <class... B>
void run(const Program& p, std::vector<std::int64_t> vals, B&... bufs) {
  std::vector<void*> b{static_cast<void*>(bufs.data())...};
  interp_run(p, b, vals);
}

std::string run_error(const Program& p, std::vector<void*> bufs, std::vector<std::int64_t> vals = {}) {
  try {
    interp_run(p, bufs, vals);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// the (a+b).sum(1) program of the common brief, tinygrad's linear form for 4x4 float32 (NOOPT)
Program sum_program() {
  Lin L;
  UOp out = L.param(0, f32.ptr(4)), a = L.param(1, f32.ptr(16)), b = L.param(2, f32.ptr(16));
  UOp reg = L(Ops::DEFINE_REG, f32.ptr(1, AddrSpace::REG), {}, Arg(0));
  UOp zero = L.c(i32, 0);
  UOp acc_idx = L.index(reg, zero);
  UOp fzero = L.c(f32, 0.0);
  UOp two = L.c(i32, 2), four = L.c(i32, 4);
  UOp r1 = L.range(four, 1);
  UOp after1 = L(Ops::AFTER, reg.dtype(), {reg, r1});
  UOp idx11 = L.index(after1, zero);
  UOp shl = L(Ops::SHL, i32, {r1, two});
  UOp init = L.store(idx11, fzero);
  UOp r0 = L.range(four, 0, AxisType::REDUCE, {r1});
  UOp after2 = L(Ops::AFTER, reg.dtype(), {reg, init, r0});
  UOp acc = L.load(L.index(after2, zero));
  UOp off = L(Ops::ADD, i32, {shl, r0});
  UOp la = L.load(L.index(a, off));
  UOp lb = L.load(L.index(b, off));
  UOp sum = L(Ops::ADD, f32, {la, lb});
  UOp acc2 = L(Ops::ADD, f32, {acc, sum});
  UOp st = L.store(acc_idx, acc2);
  UOp e0 = L.end(st, r0);
  UOp after3 = L(Ops::AFTER, reg.dtype(), {reg, e0});
  UOp res = L.load(L.index(after3, zero));
  UOp st2 = L.store(L.index(out, r1), res);
  UOp e1 = L.end(st2, r1);
  L(Ops::SINK, dtypes::void_, {e1});
  return L.prog();
}

}  // namespace

TEST_CASE("interp: (a+b).sum(1) with a register accumulator", "[interp]") {
  const Program p = sum_program();
  REQUIRE(p.uops.size() == 34);
  std::vector<float> out(4, -1), a(16), b(16);
  for (int i = 0; i < 16; ++i) a[std::size_t(i)] = float(i), b[std::size_t(i)] = 0.5f * float(i);
  run(p, {}, out, a, b);
  for (int r = 0; r < 4; ++r) {
    float want = 0;
    for (int j = 0; j < 4; ++j) want += 1.5f * float(r * 4 + j);
    CHECK(out[std::size_t(r)] == want);
  }
  // the registers start at zero again on the next run
  run(p, {}, out, a, b);
  CHECK(out[0] == 9.0f);
}

TEST_CASE("interp: elementwise float kernel (a*2).exp2()", "[interp]") {
  Lin L;
  UOp out = L.param(0, f32.ptr(4)), a = L.param(1, f32.ptr(4));
  UOp two = L.c(f32, 2.0), four = L.c(i32, 4);
  UOp r = L.range(four, 0);
  UOp x = L.load(L.index(a, r));
  UOp y = L(Ops::EXP2, f32, {L(Ops::MUL, f32, {x, two})});
  UOp e = L.end(L.store(L.index(out, r), y), r);
  L(Ops::SINK, dtypes::void_, {e});
  std::vector<float> o(4), in{0.0f, 1.0f, 2.0f, -1.0f};
  run(L.prog(), {}, o, in);
  CHECK(o == std::vector<float>{1.0f, 4.0f, 16.0f, 0.25f});
}

TEST_CASE("interp: int kernels with negative CDIV/CMOD truncate toward zero", "[interp]") {
  Lin L;
  UOp q = L.param(0, i32.ptr(5)), m = L.param(1, i32.ptr(5)), a = L.param(2, i32.ptr(5)), b = L.param(3, i32.ptr(5));
  UOp n = L.c(i32, 5);
  UOp r = L.range(n, 0);
  UOp x = L.load(L.index(a, r)), y = L.load(L.index(b, r));
  UOp s1 = L.store(L.index(q, r), L(Ops::CDIV, i32, {x, y}));
  UOp s2 = L.store(L.index(m, r), L(Ops::CMOD, i32, {x, y}));
  UOp e = L(Ops::END, dtypes::void_, {L(Ops::GROUP, dtypes::void_, {s1, s2}), r});
  L(Ops::SINK, dtypes::void_, {e});
  std::vector<std::int32_t> qo(5), mo(5), av{-7, 7, -7, 7, 5}, bv{2, -2, -2, 2, 0};
  run(L.prog(), {}, qo, mo, av, bv);
  CHECK(qo == std::vector<std::int32_t>{-3, -3, 3, 3, 0});  // x / 0 is 0 (exec_alu, tinygrad's helpers), no crash
  CHECK(mo == std::vector<std::int32_t>{-1, 1, -1, 1, 5});
}

TEST_CASE("interp: int arithmetic wraps to the dtype", "[interp]") {
  Lin L;
  UOp out = L.param(0, dtypes::int8.ptr(2)), a = L.param(1, dtypes::int8.ptr(2));
  UOp n = L.c(i32, 2);
  UOp r = L.range(n, 0);
  UOp x = L.load(L.index(a, r));
  UOp e = L.end(L.store(L.index(out, r), L(Ops::ADD, dtypes::int8, {x, x})), r);
  L(Ops::SINK, dtypes::void_, {e});
  std::vector<std::int8_t> o(2), in{100, -100};
  run(L.prog(), {}, o, in);
  CHECK(o == std::vector<std::int8_t>{-56, 56});
}

TEST_CASE("interp: casts float->int, ->bool, ->half, and bitcast", "[interp]") {
  Lin L;
  UOp oi = L.param(0, i32.ptr(4)), ob = L.param(1, dtypes::bool_.ptr(4)), oh = L.param(2, dtypes::half.ptr(4));
  UOp ou = L.param(3, dtypes::uint32.ptr(4)), a = L.param(4, f32.ptr(4));
  UOp n = L.c(i32, 4);
  UOp r = L.range(n, 0);
  UOp x = L.load(L.index(a, r));
  UOp s1 = L.store(L.index(oi, r), L(Ops::CAST, i32, {x}));
  UOp s2 = L.store(L.index(ob, r), L(Ops::CAST, dtypes::bool_, {x}));
  UOp s3 = L.store(L.index(oh, r), L(Ops::CAST, dtypes::half, {x}));
  UOp s4 = L.store(L.index(ou, r), L(Ops::BITCAST, dtypes::uint32, {x}));
  UOp e = L(Ops::END, dtypes::void_, {L(Ops::GROUP, dtypes::void_, {s1, s2, s3, s4}), r});
  L(Ops::SINK, dtypes::void_, {e});
  std::vector<std::int32_t> vi(4);
  std::vector<std::uint8_t> vb(4, 7);
  std::vector<std::uint16_t> vh(4);
  std::vector<std::uint32_t> vu(4);
  std::vector<float> in{-2.7f, 0.0f, 0.5f, 1.0f / 3.0f};
  run(L.prog(), {}, vi, vb, vh, vu, in);
  CHECK(vi == std::vector<std::int32_t>{-2, 0, 0, 0});
  CHECK(vb == std::vector<std::uint8_t>{1, 0, 1, 1});
  CHECK(load_element(dtypes::half, reinterpret_cast<const std::byte*>(&vh[0])).as_float() == -2.69921875);
  CHECK(vh[1] == 0);
  CHECK(vh[2] == 0x3800);
  CHECK(load_element(dtypes::half, reinterpret_cast<const std::byte*>(&vh[3])).as_float() == 0.333251953125);
  std::uint32_t bits;
  std::memcpy(&bits, &in[3], 4);
  CHECK(vu[3] == bits);
  CHECK(vu[1] == 0);
}

TEST_CASE("interp: where and max", "[interp]") {
  // a.float().where(a, b) as tinygrad linearizes it, plus a MAX
  Lin L;
  UOp out = L.param(0, f32.ptr(4)), a = L.param(1, f32.ptr(4)), b = L.param(2, f32.ptr(4)), mx = L.param(3, f32.ptr(4));
  UOp fz = L.c(f32, 0.0), n = L.c(i32, 4);
  UOp r = L.range(n, 0);
  UOp la = L.load(L.index(a, r)), lb = L.load(L.index(b, r));
  UOp o = L.index(out, r);
  UOp cond = L(Ops::CMPNE, dtypes::bool_, {la, fz});
  UOp s1 = L.store(o, L(Ops::WHERE, f32, {cond, la, lb}));
  UOp s2 = L.store(L.index(mx, r), L(Ops::MAX, f32, {la, lb}));
  UOp e = L(Ops::END, dtypes::void_, {L(Ops::GROUP, dtypes::void_, {s1, s2}), r});
  L(Ops::SINK, dtypes::void_, {e});
  std::vector<float> vo(4), vm(4), va{0.0f, 2.0f, -1.0f, 0.0f}, vb{5.0f, 6.0f, 7.0f, -8.0f};
  run(L.prog(), {}, vo, va, vb, vm);
  CHECK(vo == std::vector<float>{5.0f, 2.0f, -1.0f, -8.0f});
  CHECK(vm == std::vector<float>{5.0f, 6.0f, 7.0f, 0.0f});
}

TEST_CASE("interp: gated load (pad) never touches the masked elements", "[interp]") {
  // a.pad(((1,1),(0,0))) for a 4x4 float, tinygrad's linear form
  Lin L;
  UOp out = L.param(0, f32.ptr(24)), a = L.param(1, f32.ptr(16));
  UOp m4 = L.c(i32, -4), fz = L.c(f32, 0.0), c3 = L.c(i32, 3), c20 = L.c(i32, 20), c24 = L.c(i32, 24);
  UOp r = L.range(c24, 0);
  UOp idx = L.index(a, L(Ops::ADD, i32, {r, m4}));  // out of range where the gate is false
  UOp lt20 = L(Ops::CMPLT, dtypes::bool_, {r, c20});
  UOp gt3 = L(Ops::CMPLT, dtypes::bool_, {c3, r});
  UOp gate = L(Ops::AND, dtypes::bool_, {gt3, lt20});
  UOp ld = L.load(idx, {fz, gate});
  UOp e = L.end(L.store(L.index(out, r), ld), r);
  L(Ops::SINK, dtypes::void_, {e});
  REQUIRE(L.uops.size() == 18);
  std::vector<float> o(24, -1), in(16);
  for (int i = 0; i < 16; ++i) in[std::size_t(i)] = float(i + 1);
  run(L.prog(), {}, o, in);
  for (int i = 0; i < 24; ++i) CHECK(o[std::size_t(i)] == (i >= 4 && i < 20 ? float(i - 3) : 0.0f));
}

TEST_CASE("interp: gated store as IF/STORE/ENDIF and as a STORE with a gate", "[interp]") {
  for (bool with_if : {true, false}) {
    Lin L;
    UOp out = L.param(0, f32.ptr(8)), a = L.param(1, f32.ptr(8));
    UOp c4 = L.c(i32, 4), c8 = L.c(i32, 8);
    UOp r = L.range(c8, 0);
    UOp x = L.load(L.index(a, r));
    UOp gate = L(Ops::CMPLT, dtypes::bool_, {r, c4});
    UOp o = L.index(out, r);
    UOp last;
    if (with_if) {
      UOp iff = L(Ops::IF, dtypes::void_, {gate, o});
      L.store(o, x);
      last = L(Ops::ENDIF, dtypes::void_, {iff});
    } else {
      last = L(Ops::STORE, dtypes::void_, {o, x, gate});
    }
    UOp e = L.end(last, r);
    L(Ops::SINK, dtypes::void_, {e});
    std::vector<float> vo(8, -1), va{1, 2, 3, 4, 5, 6, 7, 8};
    run(L.prog(), {}, vo, va);
    CHECK(vo == std::vector<float>{1, 2, 3, 4, -1, -1, -1, -1});
  }
}

TEST_CASE("interp: float4 loads, GEP, STACK and a float4 store (a+b upcast)", "[interp]") {
  // (a+b) for 4x4 floats with UPCAST 4, tinygrad's linear form
  Lin L;
  UOp out = L.param(0, f32.ptr(16)), a = L.param(1, f32.ptr(16)), b = L.param(2, f32.ptr(16));
  UOp two = L.c(i32, 2), four = L.c(i32, 4);
  UOp r = L.range(four, 0);
  UOp off = L(Ops::SHL, i32, {r, two});
  const DType v4p = f32.vec(4).ptr(16);
  UOp la = L.load(L(Ops::CAST, v4p, {L.index(a, off)}));
  UOp lb = L.load(L(Ops::CAST, v4p, {L.index(b, off)}));
  std::vector<UOp> g;
  for (int k = 0; k < 4; ++k) g.push_back(L(Ops::GEP, f32, {la}, ArgTuple{Arg(k)})), g.push_back(L(Ops::GEP, f32, {lb}, ArgTuple{Arg(k)}));
  std::vector<UOp> sums;
  for (int k = 0; k < 4; ++k) sums.push_back(L(Ops::ADD, f32, {g[std::size_t(2 * k)], g[std::size_t(2 * k + 1)]}));
  UOp v = L(Ops::STACK, f32.vec(4), sums);
  UOp e = L.end(L.store(L(Ops::CAST, v4p, {L.index(out, off)}), v), r);
  L(Ops::SINK, dtypes::void_, {e});
  REQUIRE(L.uops.size() == 31);
  std::vector<float> o(16), va(16), vb(16);
  for (int i = 0; i < 16; ++i) va[std::size_t(i)] = float(i), vb[std::size_t(i)] = float(100 * i);
  run(L.prog(), {}, o, va, vb);
  for (int i = 0; i < 16; ++i) CHECK(o[std::size_t(i)] == float(101 * i));
}

TEST_CASE("interp: vector ALU, vector CONST, vector compare and a swizzling GEP", "[interp]") {
  Lin L;
  const DType v4 = f32.vec(4), v4p = v4.ptr(8);
  UOp out = L.param(0, f32.ptr(8)), a = L.param(1, f32.ptr(8));
  UOp zero = L.c(i32, 0), c4 = L.c(i32, 4);
  UOp k = L(Ops::CONST, v4, {}, ArgTuple{Arg(1.0), Arg(2.0), Arg(3.0), Arg(4.0)});
  UOp x = L.load(L(Ops::CAST, v4p, {L.index(a, zero)}));
  UOp y = L(Ops::MUL, v4, {x, k});
  UOp lt = L(Ops::CMPLT, dtypes::bool_.vec(4), {x, k});
  UOp w = L(Ops::WHERE, v4, {lt, y, x});
  UOp rev = L(Ops::GEP, v4, {w}, ArgTuple{Arg(3), Arg(2), Arg(1), Arg(0)});
  UOp s1 = L.store(L(Ops::CAST, v4p, {L.index(out, zero)}), w);
  UOp s2 = L.store(L(Ops::CAST, v4p, {L.index(out, c4)}), rev);
  L(Ops::SINK, dtypes::void_, {s1, s2});
  std::vector<float> o(8), in{0.5f, 5.0f, 1.0f, 8.0f, 0, 0, 0, 0};
  run(L.prog(), {}, o, in);
  // x < k: 0.5 < 1 (x*1), 5 < 2 no, 1 < 3 (x*3), 8 < 4 no
  CHECK(o == std::vector<float>{0.5f, 5.0f, 3.0f, 8.0f, 8.0f, 3.0f, 5.0f, 0.5f});
}

TEST_CASE("interp: a gated float4 load takes the alt value when the gate is off", "[interp]") {
  Lin L;
  const DType v4 = f32.vec(4), v4p = v4.ptr(4);
  UOp out = L.param(0, f32.ptr(8)), a = L.param(1, f32.ptr(4));
  UOp zero = L.c(i32, 0), c4 = L.c(i32, 4), c8 = L.c(i32, 8);
  UOp alt = L(Ops::CONST, v4, {}, Arg(-1.0));  // a scalar arg broadcasts
  UOp t = L.c(dtypes::bool_, true), f = L.c(dtypes::bool_, false);
  UOp ok = L.load(L(Ops::CAST, v4p, {L.index(a, zero)}), {alt, t});
  UOp off = L.load(L(Ops::CAST, v4p, {L.index(a, c8)}), {alt, f});  // element 8 of 4: never read
  UOp s1 = L.store(L(Ops::CAST, f32.vec(4).ptr(8), {L.index(out, zero)}), ok);
  UOp s2 = L.store(L(Ops::CAST, f32.vec(4).ptr(8), {L.index(out, c4)}), off);
  L(Ops::SINK, dtypes::void_, {s1, s2});
  std::vector<float> o(8), in{1, 2, 3, 4};
  run(L.prog(), {}, o, in);
  CHECK(o == std::vector<float>{1, 2, 3, 4, -1, -1, -1, -1});
}

TEST_CASE("interp: a core_id kernel runs once per thread", "[interp]") {
  Lin L;
  UOp out = L.param(0, i32.ptr(16));
  UOp core = L(Ops::DEFINE_VAR, i32, {}, ArgTuple{Arg("core_id"), Arg(0), Arg(3)});
  UOp c4 = L.c(i32, 4), c10 = L.c(i32, 10);
  UOp r = L.range(c4, 0);
  UOp idx = L(Ops::ADD, i32, {L(Ops::MUL, i32, {core, c4}), r});
  UOp v = L(Ops::ADD, i32, {L(Ops::MUL, i32, {core, c10}), r});
  UOp e = L.end(L.store(L.index(out, idx), v), r);
  L(Ops::SINK, dtypes::void_, {e});
  const Program p = L.prog({core}, 4);
  REQUIRE(p.core_id_slot() == 0);
  std::vector<std::int32_t> o(16, -1);
  run(p, {0}, o);
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < 4; ++i) CHECK(o[std::size_t(c * 4 + i)] == c * 10 + i);
}

TEST_CASE("interp: a variable loop bound, an empty loop and nested loops closed by one END", "[interp]") {
  Lin L;
  UOp out = L.param(0, i32.ptr(12));
  UOp n = L(Ops::DEFINE_VAR, i32, {}, ArgTuple{Arg("n"), Arg(0), Arg(3)});
  UOp c4 = L.c(i32, 4);
  UOp r0 = L.range(n, 0);
  UOp r1 = L.range(c4, 1);
  UOp idx = L(Ops::ADD, i32, {L(Ops::MUL, i32, {r0, c4}), r1});
  UOp st = L.store(L.index(out, idx), L(Ops::ADD, i32, {idx, c4}));
  UOp e = L(Ops::END, dtypes::void_, {st, r0, r1});
  L(Ops::SINK, dtypes::void_, {e});
  const Program p = L.prog({n});
  std::vector<std::int32_t> o(12, -1);
  run(p, {3}, o);
  for (int i = 0; i < 12; ++i) CHECK(o[std::size_t(i)] == i + 4);
  std::vector<std::int32_t> o2(12, -1);
  run(p, {0}, o2);  // RANGE with end 0 skips to after its END
  CHECK(o2 == std::vector<std::int32_t>(12, -1));
  CHECK(run_error(p, {o2.data()}, {4}) == "INTERP: test_kernel: variable 'n' = 4 is outside [0, 3]");
  CHECK(run_error(p, {o2.data()}, {}) == "INTERP: test_kernel takes 1 variable values, got 0");
}

TEST_CASE("interp: an empty inner loop lets the outer loop go on", "[interp]") {
  Lin L;
  UOp out = L.param(0, i32.ptr(3));
  UOp c3 = L.c(i32, 3), c0 = L.c(i32, 0), c1 = L.c(i32, 1);
  UOp r0 = L.range(c3, 0);
  UOp o = L.index(out, r0);
  UOp s1 = L.store(o, c1);
  UOp r1 = L.range(c0, 1, AxisType::LOOP, {s1});
  UOp s2 = L.store(L.index(out, r1), c0);  // never runs
  UOp e1 = L.end(s2, r1);
  UOp e0 = L.end(e1, r0);
  L(Ops::SINK, dtypes::void_, {e0});
  std::vector<std::int32_t> v(3, -1);
  run(L.prog(), {}, v);
  CHECK(v == std::vector<std::int32_t>{1, 1, 1});
}

TEST_CASE("interp: SPECIAL, DEFINE_LOCAL and THREEFRY", "[interp]") {
  Lin L;
  UOp out = L.param(0, dtypes::uint64.ptr(8));
  UOp loc = L(Ops::DEFINE_LOCAL, dtypes::uint64.ptr(1, AddrSpace::LOCAL), {}, Arg(0));
  UOp c8 = L.c(i32, 8), zero = L.c(i32, 0);
  UOp g = L(Ops::SPECIAL, i32, {c8}, Arg("gidx0"));
  UOp key = L.c(dtypes::uint64, std::int64_t(0x123456789abcdefLL));
  UOp x = L(Ops::CAST, dtypes::uint64, {g});
  UOp li = L.index(loc, zero);
  UOp st = L.store(li, L(Ops::THREEFRY, dtypes::uint64, {x, key}));
  UOp back = L.load(L.index(L(Ops::AFTER, loc.dtype(), {loc, st}), zero));
  UOp s = L.store(L.index(out, g), back);
  L(Ops::SINK, dtypes::void_, {s});
  std::vector<std::uint64_t> o(8);
  run(L.prog(), {}, o);
  for (int i = 0; i < 8; ++i) {
    const Arg want = evaluate(threefry2x32(UOp::const_(dtypes::uint64, Arg(std::int64_t(i))), UOp::const_(dtypes::uint64, Arg(std::int64_t(0x123456789abcdefLL)))), {});
    CHECK(o[std::size_t(i)] == std::uint64_t(want.as_int()));
  }
  CHECK(o[0] != o[1]);
}

TEST_CASE("interp: local SPECIALs run one after another; a BARRIER between them is an error", "[interp]") {
  for (bool barrier : {false, true}) {
    Lin L;
    UOp out = L.param(0, i32.ptr(8));
    UOp n = L(Ops::DEFINE_VAR, i32, {}, ArgTuple{Arg("n"), Arg(1), Arg(4)});
    UOp c2 = L.c(i32, 2);
    UOp g = L(Ops::SPECIAL, i32, {c2}, Arg("gidx0"));
    UOp l = L(Ops::SPECIAL, i32, {n}, Arg("lidx0"));
    UOp idx = L(Ops::ADD, i32, {L(Ops::MUL, i32, {g, L.c(i32, 4)}), l});
    UOp st = L.store(L.index(out, idx), L(Ops::MUL, i32, {idx, idx}));
    if (barrier) L(Ops::BARRIER, dtypes::void_, {st});
    L(Ops::SINK, dtypes::void_, {st});
    const Program p = L.prog({n});
    std::vector<std::int32_t> o(8, -1);
    if (barrier) {
      CHECK_THAT(run_error(p, {o.data()}, {3}), Catch::Contains("cannot wait at a BARRIER"));
      run(p, {1}, o);  // one local thread: nothing to wait for
      CHECK(o == std::vector<std::int32_t>{0, -1, -1, -1, 16, -1, -1, -1});
    } else {
      run(p, {3}, o);  // the local size comes from the variable
      CHECK(o == std::vector<std::int32_t>{0, 1, 4, -1, 16, 25, 36, -1});
    }
  }
}

TEST_CASE("interp: the CPU tensor core (WMMA) is an outer product", "[interp]") {
  Lin L;
  const DType v16 = f32.vec(16), v256 = f32.vec(256);
  UOp out = L.param(0, f32.ptr(256)), a = L.param(1, f32.ptr(16)), b = L.param(2, f32.ptr(16));
  UOp zero = L.c(i32, 0);
  UOp la = L.load(L(Ops::CAST, v16.ptr(16), {L.index(a, zero)}));
  UOp lb = L.load(L(Ops::CAST, v16.ptr(16), {L.index(b, zero)}));
  UOp acc = L(Ops::CONST, v256, {}, Arg(1.0));
  const Arg arg = ArgTuple{Arg("WMMA_16_16_1_float_float"), ArgTuple{Arg(16), Arg(16), Arg(1)}, Arg(f32), Arg(f32), Arg("CPU"), Arg(1),
                           ArgTuple{}, ArgTuple{}};
  UOp w = L(Ops::WMMA, v256, {la, lb, acc}, arg);
  L(Ops::SINK, dtypes::void_, {L.store(L(Ops::CAST, v256.ptr(256), {L.index(out, zero)}), w)});
  std::vector<float> o(256), va(16), vb(16);
  for (int i = 0; i < 16; ++i) va[std::size_t(i)] = float(i), vb[std::size_t(i)] = float(i + 1);
  run(L.prog(), {}, o, va, vb);
  for (int e = 0; e < 256; ++e) CHECK(o[std::size_t(e)] == 1.0f + float(e / 16) * float(e % 16 + 1));
}

TEST_CASE("interp: loads and stores out of range are errors", "[interp]") {
  Lin L;
  UOp out = L.param(0, f32.ptr(4)), a = L.param(1, f32.ptr(16));
  UOp c5 = L.c(i32, 5), c12 = L.c(i32, 12);
  UOp r = L.range(c5, 0);
  UOp x = L.load(L.index(a, L(Ops::ADD, i32, {r, c12})));
  UOp e = L.end(L.store(L.index(out, r), x), r);
  L(Ops::SINK, dtypes::void_, {e});
  const Program p = L.prog();
  std::vector<float> o(4), in(16);
  CHECK(run_error(p, {o.data(), in.data()}) == "INTERP: LOAD of buffer 1 at element 16, size 16");
  // a float4 store through a pointer at element 2 of 4 writes elements 2..5
  Lin M;
  UOp out2 = M.param(0, f32.ptr(4));
  UOp c2 = M.c(i32, 2);
  UOp v = M(Ops::CONST, f32.vec(4), {}, Arg(1.0));
  M(Ops::SINK, dtypes::void_, {M.store(M(Ops::CAST, f32.vec(4).ptr(4), {M.index(out2, c2)}), v)});
  CHECK(run_error(M.prog(), {o.data()}) == "INTERP: STORE of buffer 0 at element 4, size 4");
  CHECK(o[2] == 1.0f);  // what came before the bad element was written, as on hardware
  // indices near int64's end do not wrap around
  Lin H;
  UOp out3 = H.param(0, f32.ptr(4));
  UOp big = H.c(dtypes::int64, std::int64_t(0x7ffffffffffffffeLL));
  H(Ops::SINK, dtypes::void_, {H.load(H(Ops::CAST, f32.vec(4).ptr(4), {H.index(out3, big)}))});
  CHECK(run_error(H.prog(), {o.data()}) == "INTERP: LOAD of buffer 0 at element 9223372036854775806, size 4");
  Lin H2;
  UOp out4 = H2.param(0, f32.vec(4).ptr(4));
  UOp big2 = H2.c(dtypes::int64, std::int64_t(0x4000000000000000LL));
  H2(Ops::SINK, dtypes::void_, {H2.load(H2.index(out4, big2))});
  CHECK_THAT(run_error(H2.prog(), {o.data()}), Catch::Contains("index 4611686018427387904 overflows int64"));
  // missing buffers
  CHECK(run_error(p, {o.data()}) == "INTERP: test_kernel has no buffer for PARAM slot 1 (1 given)");
  CHECK(run_error(p, {o.data(), nullptr}) == "INTERP: test_kernel has no buffer for PARAM slot 1 (2 given)");
}

TEST_CASE("interp: malformed programs are errors", "[interp]") {
  std::vector<float> o(4);
  auto err = [&](Lin& L) { return run_error(L.prog(), {o.data()}); };
  {  // a source that is not earlier in the list
    Lin L;
    UOp out = L.param(0, f32.ptr(4));
    UOp c = UOp::const_(f32, 1.0);
    L(Ops::SINK, dtypes::void_, {L.store(L.index(out, L.c(i32, 0)), c)});
    CHECK(err(L) == "INTERP: test_kernel: uop 3 (Ops.STORE, dtypes.void): source 1 (Ops.CONST) is not earlier in the program");
  }
  {  // a RANGE whose END never comes
    Lin L;
    UOp out = L.param(0, f32.ptr(4));
    UOp r = L.range(L.c(i32, 4), 0);
    L(Ops::SINK, dtypes::void_, {L.store(L.index(out, r), L.c(f32, 1.0))});
    CHECK(err(L) == "INTERP: test_kernel: uop 2 (Ops.RANGE, dtypes.int): is never closed (no END or ENDIF for it)");
  }
  {  // ENDs that cross
    Lin L;
    UOp out = L.param(0, f32.ptr(4));
    UOp c2 = L.c(i32, 2);
    UOp r0 = L.range(c2, 0), r1 = L.range(c2, 1);
    UOp st = L.store(L.index(out, L(Ops::ADD, i32, {r0, r1})), L.c(f32, 1.0));
    UOp e0 = L.end(st, r0);
    L(Ops::SINK, dtypes::void_, {L.end(e0, r1)});
    CHECK_THAT(err(L), Catch::Contains("does not close the innermost open RANGE or IF"));
  }
  {  // unknown op
    Lin L;
    L.param(0, f32.ptr(4));
    L(Ops::CUSTOM, i32, {}, Arg("foo()"));
    CHECK(err(L) == "INTERP: test_kernel: uop 1 (Ops.CUSTOM, dtypes.int): INTERP does not run this op");
  }
  {  // dtype mismatch in an ALU op
    Lin L;
    L.param(0, f32.ptr(4));
    L(Ops::ADD, f32, {L.c(f32, 1.0), L.c(i32, 1)});
    CHECK(err(L) == "INTERP: test_kernel: uop 3 (Ops.ADD, dtypes.float): source 1 is dtypes.int");
  }
  {  // loading a float buffer as int
    Lin L;
    UOp out = L.param(0, f32.ptr(4));
    L(Ops::LOAD, i32, {L(Ops::CAST, i32.ptr(4), {L.index(out, L.c(i32, 0))})});
    CHECK(err(L) == "INTERP: test_kernel: uop 4 (Ops.LOAD, dtypes.int): accesses buffer 0 of dtypes.float as dtypes.int");
  }
  {  // an Invalid index
    Lin L;
    UOp out = L.param(0, f32.ptr(4));
    UOp inv = L(Ops::CONST, i32, {}, Arg(Invalid{}));
    L(Ops::LOAD, f32, {L.index(out, inv)});
    CHECK_THAT(err(L), Catch::Contains("is not an int"));
  }
  {  // a variable the Program does not list
    Lin L;
    L.param(0, f32.ptr(4));
    L(Ops::DEFINE_VAR, i32, {}, ArgTuple{Arg("n"), Arg(0), Arg(3)});
    CHECK(err(L) == "INTERP: test_kernel: uop 1 (Ops.DEFINE_VAR, dtypes.int): variable ('n', 0, 3) is not in the program's vars");
  }
  {  // a float to int cast of nan has no value
    Lin L;
    UOp out = L.param(0, i32.ptr(4));
    UOp c = L(Ops::CAST, i32, {L.c(f32, std::nan(""))});
    L(Ops::SINK, dtypes::void_, {L.store(L.index(out, L.c(i32, 0)), c)});
    CHECK_THAT(err(L), Catch::Contains("uop 2 (Ops.CAST, dtypes.int)") && Catch::Contains("cannot convert nan"));
  }
  {  // a WMMA for a GPU
    Lin L;
    L.param(0, f32.ptr(4));
    UOp a = L.c(dtypes::half.vec(8), 1.0);
    UOp c = L.c(f32.vec(4), 0.0);
    L(Ops::WMMA, f32.vec(4), {a, a, c}, ArgTuple{Arg("x"), Arg(0), Arg(0), Arg(0), Arg("CUDA"), Arg(32), ArgTuple{}, ArgTuple{}});
    CHECK_THAT(err(L), Catch::Contains("only the CPU (AMX) tensor core, not 'CUDA'"));
  }
}

// ***** tinygrad's own programs (tests/runtime/interp_cases.hpp, generated) *****

#include "interp_cases.hpp"

namespace {

// readers of the generator's text form (see gen_interp_cases.py)
DType parse_dtype(std::string_view t) {
  static const std::vector<std::pair<std::string_view, DType>> names{
      {"void", dtypes::void_}, {"bool", dtypes::bool_}, {"int8", dtypes::int8}, {"uint8", dtypes::uint8}, {"int16", dtypes::int16},
      {"uint16", dtypes::uint16}, {"int32", dtypes::int32}, {"uint32", dtypes::uint32}, {"int64", dtypes::int64},
      {"uint64", dtypes::uint64}, {"float16", dtypes::float16}, {"bfloat16", dtypes::bfloat16}, {"float32", dtypes::float32},
      {"float64", dtypes::float64}, {"weakint", dtypes::weakint}};
  const std::size_t end = t.find_first_of("x*");
  DType d;
  bool found = false;
  for (const auto& [n, dt] : names) if (n == t.substr(0, end)) d = dt, found = true;
  if (!found) throw Error("parse_dtype: " + std::string(t));
  if (end == std::string_view::npos) return d;
  t = t.substr(end);
  auto num = [&]() {
    std::size_t k = 1;
    while (k < t.size() && (std::isdigit((unsigned char)t[k]) || t[k] == '-')) ++k;
    const std::int64_t v = std::stoll(std::string(t.substr(1, k - 1)));
    t = t.substr(k);
    return v;
  };
  if (t[0] == 'x') d = d.vec(int(num()));
  if (t.empty()) return d;
  const std::int64_t size = num();  // '*'
  const std::size_t v = t.find('v');
  const std::string_view space = t.substr(1, v == std::string_view::npos ? std::string_view::npos : v - 1);
  d = d.ptr(size, space == "REG" ? AddrSpace::REG : space == "LOCAL" ? AddrSpace::LOCAL : AddrSpace::GLOBAL);
  if (v != std::string_view::npos) d = d.vec(std::stoi(std::string(t.substr(v + 1))));
  return d;
}

Arg parse_arg(std::string_view& t) {
  const char c = t[0];
  if (c == '(') {
    ArgTuple out;
    t = t.substr(1);
    while (t[0] != ')') {
      out.push_back(parse_arg(t));
      if (t[0] == ',') t = t.substr(1);
    }
    t = t.substr(1);
    return Arg(std::move(out));
  }
  std::size_t k = 1;
  while (k < t.size() && t[k] != ',' && t[k] != ')') ++k;
  const std::string body(t.substr(1, k - 1));
  t = t.substr(k);
  switch (c) {
    case 'N': return Arg();
    case 'I': return Arg(Invalid{});
    case 'b': return Arg(body == "1");
    case 'i': return Arg(std::int64_t(std::stoll(body)));
    case 'f': return Arg(std::strtod(body.c_str(), nullptr));
    case 's': return Arg(body);
    case 'd': return Arg(parse_dtype(body));
    case 'a':
      for (std::size_t a = 0; a < axis_type_names.size(); ++a) if (axis_type_names[a] == body) return Arg(AxisType(a));
  }
  throw Error("parse_arg: " + std::string(1, c) + body);
}

std::vector<std::uint8_t> parse_hex(const std::string& h) {
  std::vector<std::uint8_t> out;
  if (h == "-") return out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(std::uint8_t(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t k; (k = s.find(sep, at)) != std::string::npos; at = k + 1) out.push_back(s.substr(at, k - at));
  out.push_back(s.substr(at));
  return out;
}

struct TgKernel {
  Program program;
  std::vector<int> bufs;
};
struct TgCase {
  std::string title;
  std::vector<std::vector<std::uint8_t>> before, after;
  std::vector<TgKernel> kernels;
};

std::vector<TgCase> tinygrad_cases() {
  std::vector<TgCase> all;
  std::istringstream in(interp_cases::text);
  std::vector<UOp> uops;
  auto close_kernel = [&]() {
    if (all.empty() || all.back().kernels.empty()) return;
    Program& p = all.back().kernels.back().program;
    p.name = "tinygrad_kernel";
    p.uops = uops;
    for (const UOp& u : uops) if (u.op() == Ops::PARAM) p.params.push_back(u);
    uops.clear();
  };
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line.rfind("case ", 0) == 0) {
      close_kernel();
      all.push_back(TgCase{line.substr(5), {}, {}, {}});
    } else if (line.rfind("buf ", 0) == 0) {
      const auto f = split(line, ' ');
      all.back().before.push_back(parse_hex(f[3]));
      all.back().after.push_back(parse_hex(f[4]));
    } else if (line.rfind("kernel", 0) == 0) {
      close_kernel();
      TgKernel k;
      for (const std::string& id : split(line, ' ')) if (id != "kernel") k.bufs.push_back(std::stoi(id));
      all.back().kernels.push_back(std::move(k));
    } else {
      const auto f = split(line, '|');
      if (f.size() != 4) throw Error("interp_cases: bad line " + line);
      std::vector<UOp> src;
      if (!f[2].empty()) for (const std::string& i : split(f[2], ',')) src.push_back(uops.at(std::size_t(std::stoi(i))));
      std::string_view a = f[3];
      const Arg arg = parse_arg(a);
      Ops op = Ops::NOOP;
      for (std::size_t o = 0; o < num_ops; ++o) if (op_names[o] == f[0]) op = Ops(o);
      if (op_name(op) != f[0]) throw Error("interp_cases: unknown op " + f[0]);
      uops.push_back(op == Ops::PARAM ? UOp::param(arg.as_int(), parse_dtype(f[1])) : UOp(op, parse_dtype(f[1]), src, arg));
    }
  }
  close_kernel();
  return all;
}

}  // namespace

TEST_CASE("interp: tinygrad's linear programs give the bytes tinygrad's PYTHON device gives", "[interp]") {
  const std::vector<TgCase> cases = tinygrad_cases();
  CHECK(cases.size() == 23);
  for (const TgCase& c : cases) {
    INFO(c.title);
    std::vector<std::vector<std::uint8_t>> mem = c.before;
    for (const TgKernel& k : c.kernels) {
      std::vector<void*> ptrs;
      for (int i : k.bufs) ptrs.push_back(mem[std::size_t(i)].data());
      REQUIRE_NOTHROW(interp_run(k.program, ptrs, {}));
    }
    bool changed = false;
    for (std::size_t i = 0; i < mem.size(); ++i) {
      INFO("buffer " << i);
      CHECK(mem[i] == c.after[i]);
      changed = changed || c.after[i] != c.before[i];
    }
    CHECK(changed);  // the case computes something
  }
}
