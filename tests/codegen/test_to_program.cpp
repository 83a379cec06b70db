// codegen: kernel ASTs (tinygrad's form, as the scheduler makes them) -> linear Programs, checked
// against tinygrad's linear output for structure and run on INTERP for values
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "metagrad/codegen/to_program.hpp"
#include "metagrad/runtime/interp.hpp"

using namespace mg;

namespace {
// "i OP dtype [source positions] arg", the form /tmp/lin.py prints tinygrad's linear uops in
std::string lin_str(const Program& p) {
  std::string s;
  for (std::size_t i = 0; i < p.uops.size(); ++i) {
    const UOp& u = p.uops[i];
    s += std::to_string(i) + " " + std::string(op_name(u.op())) + " " + u.dtype().repr() + " [";
    for (std::size_t k = 0; k < u.nsrc(); ++k) {
      auto it = std::find(p.uops.begin(), p.uops.end(), u.src(k));
      s += (k ? ", " : "") + (it == p.uops.end() ? std::string("?") : std::to_string(it - p.uops.begin()));
    }
    s += "]" + (u.arg().is_none() ? std::string() : " " + u.arg().repr()) + "\n";
  }
  return s;
}
UOp param(std::int64_t slot, DType dt, std::int64_t n) { return UOp::param(slot, dt.ptr(n)); }
UOp idx(std::int64_t v) { return UOp::const_(dtypes::weakint, v); }
UOp kernel(std::vector<UOp> ends, std::string name = "test") { return UOp(Ops::SINK, dtypes::void_, std::move(ends), Arg(std::move(name))); }
// NOOPT: these tests compare tinygrad's NOOPT=1 linear forms (tests/codegen/test_opts.cpp covers the opts)
Target llvm_like() {
  Target t;
  t.noopt = true;
  t.device = "CPU";
  t.ops = OpSet{Ops::ADD, Ops::MUL, Ops::CDIV, Ops::CMOD, Ops::CMPLT, Ops::CMPNE, Ops::CMPEQ, Ops::OR, Ops::AND, Ops::XOR, Ops::SHL, Ops::SHR, Ops::FDIV};
  return t;
}
Target interp_noopt() {
  Target t = interp_target();
  t.noopt = true;
  return t;
}
// runs p on INTERP over the given buffers (each a vector of some element type), core_id handled by interp
template <class... B> void run(const Program& p, B&... bufs) {
  std::vector<void*> ptrs{static_cast<void*>(bufs.data())...};
  std::vector<std::int64_t> vals(p.vars.size(), 0);
  interp_run(p, ptrs, vals);
}
int count_op(const Program& p, Ops o) { return int(std::count_if(p.uops.begin(), p.uops.end(), [&](const UOp& u) { return u.op() == o; })); }
std::vector<float> iota_f(int n, float start = 0) {
  auto v = std::vector<float>(std::size_t(n));
  for (int i = 0; i < n; ++i) v[std::size_t(i)] = start + float(i);
  return v;
}
}  // namespace

TEST_CASE("to_program: (a+b).sum(1) linearizes exactly like tinygrad, and runs") {
  const UOp c0 = param(0, dtypes::float32, 4), c4 = param(1, dtypes::float32, 16), c9 = param(2, dtypes::float32, 16);
  const UOp c2 = UOp::range(4, 1, AxisType::LOOP), c6 = UOp::range(4, 0, AxisType::REDUCE);
  const UOp c7 = c2 * idx(4) + c6;
  const UOp c12 = (c4.index({c7}) + c9.index({c7})).reduce(Ops::ADD, {c6});
  const UOp ast = kernel({c0.index({c2}).store(c12).end({c2})});
  const Program p = to_program(ast, llvm_like());
  // tinygrad 556defa0f7, /tmp/lin.py "(a+b).sum(1)" on CPU with NOOPT=1
  CHECK(lin_str(p) ==
        "0 PARAM dtypes.float.ptr(4) [] ParamArg(0)\n"
        "1 PARAM dtypes.float.ptr(16) [] ParamArg(1)\n"
        "2 PARAM dtypes.float.ptr(16) [] ParamArg(2)\n"
        "3 DEFINE_REG dtypes.float.ptr(1, AddrSpace.REG) [] 0\n"
        "4 CONST dtypes.int [] 0\n"
        "5 INDEX dtypes.float.ptr(1, AddrSpace.REG) [3, 4]\n"
        "6 CONST dtypes.float [] 0.0\n"
        "7 CONST dtypes.int [] 2\n"
        "8 CONST dtypes.int [] 4\n"
        "9 RANGE dtypes.int [8] (1, AxisType.LOOP)\n"
        "10 AFTER dtypes.float.ptr(1, AddrSpace.REG) [3, 9]\n"
        "11 INDEX dtypes.float.ptr(1, AddrSpace.REG) [10, 4]\n"
        "12 SHL dtypes.int [9, 7]\n"
        "13 STORE dtypes.void [11, 6]\n"
        "14 RANGE dtypes.int [8, 9] (0, AxisType.REDUCE)\n"
        "15 AFTER dtypes.float.ptr(1, AddrSpace.REG) [3, 13, 14]\n"
        "16 INDEX dtypes.float.ptr(1, AddrSpace.REG) [15, 4]\n"
        "17 LOAD dtypes.float [16]\n"
        "18 ADD dtypes.int [12, 14]\n"
        "19 INDEX dtypes.float.ptr(16) [1, 18]\n"
        "20 LOAD dtypes.float [19]\n"
        "21 INDEX dtypes.float.ptr(16) [2, 18]\n"
        "22 LOAD dtypes.float [21]\n"
        "23 ADD dtypes.float [20, 22]\n"
        "24 ADD dtypes.float [17, 23]\n"
        "25 STORE dtypes.void [5, 24]\n"
        "26 END dtypes.void [25, 14]\n"
        "27 AFTER dtypes.float.ptr(1, AddrSpace.REG) [3, 26]\n"
        "28 INDEX dtypes.float.ptr(1, AddrSpace.REG) [27, 4]\n"
        "29 LOAD dtypes.float [28]\n"
        "30 INDEX dtypes.float.ptr(4) [0, 9]\n"
        "31 STORE dtypes.void [30, 29]\n"
        "32 END dtypes.void [31, 9]\n"
        "33 SINK dtypes.void [32] 'r_4_4'\n");
  CHECK(p.name == "r_4_4");
  CHECK(p.params.size() == 3);
  CHECK(p.vars.empty());
  CHECK(p.threads == 1);
  CHECK(p.ops == 32);          // 2 float adds per element of the 4x4 input
  CHECK(p.mem == 16 + 64 + 64);  // bytes: 4 floats out, 16 floats in twice
  std::vector<float> out(4), a = iota_f(16), b = iota_f(16, 100);
  run(p, out, a, b);
  for (int i = 0; i < 4; ++i) {
    float want = 0;
    for (int j = 0; j < 4; ++j) want += a[std::size_t(i * 4 + j)] + b[std::size_t(i * 4 + j)];
    CHECK(out[std::size_t(i)] == want);
  }
  // the INTERP target renders MULACC: (r<<2)+r2 fuses
  const Program pi = to_program(ast, interp_noopt());
  CHECK(count_op(pi, Ops::MULACC) == 1);
  std::vector<float> out2(4);
  run(pi, out2, a, b);
  CHECK(out2 == out);
}

TEST_CASE("to_program: elementwise ranges merge (tinygrad's E_16)") {
  const UOp out = param(0, dtypes::float32, 16), a = param(1, dtypes::float32, 16);
  const UOp r0 = UOp::range(4, 0), r1 = UOp::range(4, 1);
  const UOp i = r0 * idx(4) + r1;
  const Program p = to_program(kernel({out.index({i}).store(a.index({i}) * UOp::const_(dtypes::float32, 2.0) + UOp::const_(dtypes::float32, 1.0)).end({r0, r1})}), llvm_like());
  CHECK(p.name == "E_16");
  CHECK(count_op(p, Ops::RANGE) == 1);
  std::vector<float> o(16), x = iota_f(16);
  run(p, o, x);
  for (int k = 0; k < 16; ++k) CHECK(o[std::size_t(k)] == 2.0f * float(k) + 1.0f);
}

TEST_CASE("to_program: broadcast index math out[i,j] = a[i] + b[j]") {
  const UOp out = param(0, dtypes::float32, 12), a = param(1, dtypes::float32, 3), b = param(2, dtypes::float32, 4);
  const UOp r0 = UOp::range(3, 0), r1 = UOp::range(4, 1);
  const Program p = to_program(kernel({out.index({r0 * idx(4) + r1}).store(a.index({r0}) + b.index({r1})).end({r0, r1})}), interp_noopt());
  CHECK(count_op(p, Ops::RANGE) == 2);  // merging would add a div and a mod: kept apart
  std::vector<float> o(12), x{1, 2, 3}, y{10, 20, 30, 40};
  run(p, o, x, y);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(o[std::size_t(i * 4 + j)] == x[std::size_t(i)] + y[std::size_t(j)]);
}

TEST_CASE("to_program: reduce MAX over the non-last axis (tinygrad's a.max(0))") {
  const UOp c0 = param(0, dtypes::float32, 4), c4 = param(1, dtypes::float32, 16);
  const UOp c2 = UOp::range(4, 1), c5 = UOp::range(4, 0, AxisType::REDUCE);
  const UOp c9 = c4.index({c5 * idx(4) + c2}).reduce(Ops::MAX, {c5});
  for (const Target& t : {llvm_like(), interp_noopt()}) {
    const Program p = to_program(kernel({c0.index({c2}).store(c9).end({c2})}), t);
    CHECK(p.name == "r_4_4");
    CHECK(count_op(p, Ops::MAX) == (t.ops.contains(Ops::MAX) ? 1 : 0));  // LLVM-like: CMPLT + WHERE
    std::vector<float> o(4), x{3, -1, 7, 0, 9, -5, 2, 1, -2, 4, 8, 6, 1, 1, 1, 11};
    run(p, o, x);
    CHECK(o == std::vector<float>{9, 4, 8, 11});
  }
}

TEST_CASE("to_program: int sum accumulates from the identity, and MUL reduce") {
  const UOp out = param(0, dtypes::int32, 2), a = param(1, dtypes::int32, 6);
  const UOp r = UOp::range(2, 0), k = UOp::range(3, 1, AxisType::REDUCE);
  const UOp sum = a.index({r * idx(3) + k}).reduce(Ops::ADD, {k});
  const UOp prod = a.index({r * idx(3) + k}).reduce(Ops::MUL, {k});
  const Program p = to_program(kernel({out.index({r}).store(sum + prod).end({r})}), llvm_like());
  // both reduces run over the same range: their ENDs merge into one loop
  CHECK(count_op(p, Ops::DEFINE_REG) == 2);
  CHECK(count_op(p, Ops::RANGE) == 2);
  std::vector<int> o(2), x{1, 2, 3, -4, 5, 6};
  run(p, o, x);
  CHECK(o == std::vector<int>{1 + 2 + 3 + 1 * 2 * 3, -4 + 5 + 6 + -4 * 5 * 6});
}

TEST_CASE("to_program: pad via a gated INDEX loads 0 outside, stores inside") {
  // out (6x4) = a (4x4) padded by one row before and after: tinygrad's rangeify gives idx.valid(cond)
  const UOp out = param(0, dtypes::float32, 24), a = param(1, dtypes::float32, 16);
  const UOp r0 = UOp::range(6, 0), r1 = UOp::range(4, 1);
  const UOp cond = (r0 >= idx(1)) & (r0 < idx(5));
  const UOp v = a.index({((r0 - idx(1)) * idx(4) + r1).valid(cond)});
  for (const Target& t : {llvm_like(), interp_noopt()}) {
    const Program p = to_program(kernel({out.index({r0 * idx(4) + r1}).store(v + UOp::const_(dtypes::float32, 0.5)).end({r0, r1})}), t);
    // the gate moved to the LOAD (alt value 0)
    bool gated_load = false;
    for (const UOp& u : p.uops) gated_load = gated_load || (u.op() == Ops::LOAD && u.nsrc() == 3);
    CHECK(gated_load);
    std::vector<float> o(24, -1), x = iota_f(16, 1);
    run(p, o, x);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 4; ++j) CHECK(o[std::size_t(i * 4 + j)] == (i >= 1 && i < 5 ? x[std::size_t((i - 1) * 4 + j)] : 0.0f) + 0.5f);
  }
}

TEST_CASE("to_program: a gated store only writes where its gate holds (IF/ENDIF)") {
  const UOp out = param(0, dtypes::float32, 8), a = param(1, dtypes::float32, 8);
  const UOp r = UOp::range(8, 0);
  const UOp st = out.index({r.valid(r < idx(5))}).store(a.index({r}) * UOp::const_(dtypes::float32, 3.0));
  const Program p = to_program(kernel({st.end({r})}), llvm_like());
  CHECK(count_op(p, Ops::IF) == 1);
  CHECK(count_op(p, Ops::ENDIF) == 1);
  std::vector<float> o(8, -1), x = iota_f(8);
  run(p, o, x);
  for (int i = 0; i < 8; ++i) CHECK(o[std::size_t(i)] == (i < 5 ? 3.0f * float(i) : -1.0f));
}

TEST_CASE("to_program: casts float -> half -> float, int -> float, float -> int") {
  const UOp oh = param(0, dtypes::float16, 4), oi = param(1, dtypes::int32, 4), of = param(2, dtypes::float32, 4);
  const UOp a = param(3, dtypes::float32, 4), b = param(4, dtypes::int32, 4);
  const UOp r = UOp::range(4, 0);
  const UOp s0 = oh.index({r}).store(a.index({r}).cast(dtypes::float16));
  const UOp s1 = oi.index({r}).store(a.index({r}).cast(dtypes::int32) + b.index({r}));
  const UOp s2 = of.index({r}).store(b.index({r}).cast(dtypes::float32) / UOp::const_(dtypes::float32, 4.0));
  const Program p = to_program(kernel({UOp::group({s0, s1, s2}).end({r})}), llvm_like());
  std::vector<std::uint16_t> h(4);
  std::vector<int> i(4), bi{1, 2, 3, -7};
  std::vector<float> f(4), af{0.5f, -2.75f, 3.9f, 65504.0f};
  run(p, h, i, f, af, bi);
  CHECK(h == std::vector<std::uint16_t>{0x3800, 0xC180, 0x43CD, 0x7BFF});  // IEEE half bits
  CHECK(i == std::vector<int>{1, 0, 6, 65497});
  CHECK(f == std::vector<float>{0.25f, 0.5f, 0.75f, -1.75f});
}

TEST_CASE("to_program: THREAD split over core_id (threads=4)") {
  const UOp out = param(0, dtypes::float32, 32), a = param(1, dtypes::float32, 32);
  const UOp r0 = UOp::range(8, 0), r1 = UOp::range(4, 1);
  const UOp i = r0 * idx(4) + r1;
  Target t = llvm_like();
  t.noopt = false;  // the heuristic: UPCAST 4, then THREAD 4
  t.threads = 4;
  t.min_work_per_thread = 1;
  const Program p = to_program(kernel({out.index({i}).store(a.index({i}) + UOp::const_(dtypes::float32, 1.0)).end({r0, r1})}), t);
  CHECK(p.threads == 4);
  REQUIRE(p.vars.size() == 1);
  CHECK(p.core_id_slot() == 0);
  CHECK(p.vars[0].arg() == Arg(ArgTuple{Arg("core_id"), Arg(0), Arg(3)}));
  CHECK(p.vars[0].dtype() == dtypes::int32);
  std::vector<float> o(32, -1), x = iota_f(32);
  run(p, o, x);
  for (int k = 0; k < 32; ++k) CHECK(o[std::size_t(k)] == float(k) + 1.0f);
  // tinygrad's heuristic: a small kernel is not split; neither without threads or with noopt
  Target t2 = llvm_like();
  t2.noopt = false;
  t2.threads = 4;
  CHECK(to_program(kernel({out.index({i}).store(a.index({i})).end({r0, r1})}), t2).threads == 1);
  t.noopt = true;
  CHECK(to_program(kernel({out.index({i}).store(a.index({i})).end({r0, r1})}), t).threads == 1);
}

TEST_CASE("to_program: symbolic loop size reads a DEFINE_VAR") {
  const UOp n = UOp::variable("n", 1, 10);
  const UOp out = param(0, dtypes::float32, 10), a = param(1, dtypes::float32, 10);
  const UOp r = UOp::range(n, 0);
  const Program p = to_program(kernel({out.index({r}).store(a.index({r}) * a.index({r})).end({r})}), llvm_like());
  REQUIRE(p.vars.size() == 1);
  CHECK(p.vars[0].arg()[0].as_str() == "n");
  std::vector<float> o(10, -1), x = iota_f(10);
  std::vector<void*> bufs{o.data(), x.data()};
  std::vector<std::int64_t> vals{6};
  interp_run(p, bufs, vals);
  for (int k = 0; k < 10; ++k) CHECK(o[std::size_t(k)] == (k < 6 ? float(k * k) : -1.0f));
}

TEST_CASE("to_program: transcendentals decompose for a backend without them") {
  const UOp out = param(0, dtypes::float32, 4), a = param(1, dtypes::float32, 4);
  const UOp r = UOp::range(4, 0);
  const UOp ast = kernel({out.index({r}).store(a.index({r}).exp2()).end({r})});
  const Program p = to_program(ast, llvm_like());
  CHECK(count_op(p, Ops::EXP2) == 0);
  CHECK(count_op(to_program(ast, interp_noopt()), Ops::EXP2) == 1);
  std::vector<float> o(4), x{0, 1, -2, 3.5f};
  run(p, o, x);
  for (int k = 0; k < 4; ++k) CHECK(o[std::size_t(k)] == Approx(std::exp2(x[std::size_t(k)])).epsilon(1e-6));
}

TEST_CASE("verify: names the bad uop") {
  const UOp out = param(0, dtypes::float32, 4), a = param(1, dtypes::float32, 4);
  const UOp r = UOp::range(4, 0);
  Program p = to_program(kernel({out.index({r}).store(a.index({r})).end({r})}), llvm_like());
  CHECK_NOTHROW(verify(p));
  Program bad = p;
  std::swap(bad.uops[0], bad.uops[bad.uops.size() - 2]);  // an END before its sources
  CHECK_THROWS_WITH(verify(bad), Catch::Contains("does not come before it"));
  Program weak = p;
  weak.uops.insert(weak.uops.begin(), UOp::const_(dtypes::weakint, 1));
  CHECK_THROWS_WITH(verify(weak), Catch::Contains("uop 0 Ops.CONST dtypes.weakint"));
  CHECK_THROWS_WITH(to_program(out, llvm_like()), Catch::Contains("must be a SINK"));
}

TEST_CASE("to_program: full reduction to one element (no output range)") {
  const UOp out = param(0, dtypes::float32, 1), a = param(1, dtypes::float32, 12);
  const UOp r0 = UOp::range(3, 0, AxisType::REDUCE), r1 = UOp::range(4, 1, AxisType::REDUCE);
  const UOp red = a.index({r0 * idx(4) + r1}).reduce(Ops::ADD, {r0, r1});
  const Program p = to_program(kernel({out.index({idx(0)}).store(red)}), llvm_like());
  CHECK(count_op(p, Ops::RANGE) == 1);  // the two reduce ranges merge into one of 12
  std::vector<float> o(1), x = iota_f(12);
  run(p, o, x);
  CHECK(o[0] == 66.0f);
}

TEST_CASE("to_program: pad written as WHERE(valid, load, 0)") {
  const UOp out = param(0, dtypes::float32, 6), a = param(1, dtypes::float32, 4);
  const UOp r = UOp::range(6, 0);
  const UOp valid = (r >= idx(1)) & (r < idx(5));
  const UOp v = valid.where(a.index({(r - idx(1)).valid(valid)}), UOp::const_(dtypes::float32, 0.0));
  const Program p = to_program(kernel({out.index({r}).store(v).end({r})}), llvm_like());
  std::vector<float> o(6, -1), x{5, 6, 7, 8};
  run(p, o, x);
  CHECK(o == std::vector<float>{0, 5, 6, 7, 8, 0});
}

TEST_CASE("to_program: a target without float16 is an error naming the dtype") {
  const UOp out = param(0, dtypes::float16, 4), a = param(1, dtypes::float32, 4);
  const UOp r = UOp::range(4, 0);
  Target t = llvm_like();
  t.supported_dtypes.remove(dtypes::float16);
  CHECK_THROWS_WITH(to_program(kernel({out.index({r}).store(a.index({r}).cast(dtypes::float16)).end({r})}), t),
                    Catch::Contains("dtypes.half") && Catch::Contains("does not support"));
}

TEST_CASE("to_program: integer division by a constant becomes a multiply-shift (fast_idiv)") {
  const UOp out = param(0, dtypes::int32, 10), a = param(1, dtypes::int32, 4);
  const UOp r = UOp::range(10, 0);  // 10 is not a multiple of 3: the range is not split
  const UOp ast = kernel({out.index({r}).store(a.index({r / idx(3)}) * idx(0).cast(dtypes::int32) + (r % idx(3)).cast(dtypes::int32) * 10 + a.index({r / idx(3)})).end({r})});
  const Program p = to_program(ast, llvm_like());
  CHECK(count_op(p, Ops::CDIV) == 0);
  CHECK(count_op(p, Ops::CMOD) == 0);
  Target slow = llvm_like();
  slow.disable_fast_idiv = true;
  const Program q = to_program(ast, slow);
  CHECK(count_op(q, Ops::CDIV) + count_op(q, Ops::CMOD) >= 1);
  for (const Program* pp : {&p, &q}) {
    std::vector<int> o(10), x{100, 200, 300, 400};
    run(*pp, o, x);
    for (int i = 0; i < 10; ++i) CHECK(o[std::size_t(i)] == x[std::size_t(i / 3)] + (i % 3) * 10);
  }
}

TEST_CASE("codegen: merging reduce ranges never drops one (unused ranges between used ones)", "[codegen]") {
  // sum over r1, r2, r0, r3 (size 4 each) of where(1 <= r0 < 3, 4, 0) = 4 * 2 * 64 = 512; r0 also
  // indexes a load, so it cannot merge, and r1, r2, r3 must merge into 64 iterations, not 16
  UOp r[4];
  for (int i = 0; i < 4; ++i) r[i] = UOp::range(4, i, AxisType::REDUCE);
  const UOp in = UOp::param(1, dtypes::int32.ptr(4));
  const UOp ld = in.index({r[0]});
  const UOp cond = (ld >= UOp::const_(dtypes::int32, 1)) & (ld < UOp::const_(dtypes::int32, 3)) &
                   (r[0] >= UOp::const_(dtypes::weakint, 1)) & (r[0] < UOp::const_(dtypes::weakint, 3));
  const UOp v = cond.where(UOp::const_(dtypes::float32, 4.0), UOp::const_(dtypes::float32, 0.0));
  const UOp out = UOp::param(0, dtypes::float32.ptr(1));
  const UOp ast = UOp::sink(out.index({UOp::const_(dtypes::weakint, 0)}).store(v.reduce(Ops::ADD, {r[1], r[2], r[0], r[3]})));
  const Program p = to_program(ast, interp_noopt());
  float result = 0;
  std::int32_t arange[4] = {0, 1, 2, 3};
  void* bufs[] = {&result, arange};
  interp_run(p, bufs, {});
  CHECK(result == 512.0f);
  // and the scheduler drops reduce ranges the value does not use before codegen sees them
  const UOp red = v.reduce(Ops::ADD, {r[1], r[2], r[0], r[3]});
  const UOp folded = graph_rewrite(red, pm_reduce_unparented);
  CHECK(folded.op() == Ops::MUL);  // times 4 for each of r1, r2, r3
  std::vector<UOp> reds;
  for (const UOp& u : folded.toposort()) if (u.op() == Ops::REDUCE) reds.push_back(u);
  REQUIRE(reds.size() == 1);
  CHECK(reds[0].nsrc() == 2);  // the value and r0
}

TEST_CASE("to_program: fp8 on a target without it is emulated, with float_to_fp8's and fp8_to_float's values bit for bit") {
  Target t = interp_noopt();
  t.supported_dtypes.remove(dtypes::fp8e4m3).remove(dtypes::fp8e5m2);
  auto no_fp8_math = [](const Program& p) {
    for (const UOp& u : p.uops)
      if (GroupOp::ALU.contains(u.op()) || u.op() == Ops::CAST) {
        INFO(op_repr(u.op()) << " " << u.dtype().repr());
        CHECK(!u.dtype().scalar().is_fp8());
        for (const UOp& s : u.src()) CHECK(!s.dtype().scalar().is_fp8());
      }
  };
  // float32 inputs: a sweep over the bit patterns, and the edges of each fp8 (ties, subnormals, overflow)
  std::vector<float> xf;
  for (std::uint64_t b = 0; b < (std::uint64_t(1) << 32); b += 65521) xf.push_back(std::bit_cast<float>(std::uint32_t(b)));
  for (int e = -20; e <= 17; ++e)
    for (int m = 0; m < 64; ++m) {
      const float v = std::ldexp(1.0f + float(m) / 64.0f, e);
      xf.insert(xf.end(), {v, -v, std::nextafter(v, 0.0f), std::nextafter(v, 1e30f)});
    }
  const float inf = std::numeric_limits<float>::infinity();
  xf.insert(xf.end(), {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(), 464.0f,
                       std::nextafter(464.0f, 0.0f), std::nextafter(464.0f, inf), 61440.0f, std::nextafter(61440.0f, 0.0f), 1e-45f});
  // float64 inputs: the same values, and each nudged by less than a float32 ulp (rounded once, not through float32)
  std::vector<double> xd;
  for (float v : xf) xd.insert(xd.end(), {double(v), std::nextafter(double(v), 0.0), std::nextafter(double(v), 1e300)});
  const auto nf = std::int64_t(xf.size()), nd = std::int64_t(xd.size());
  // float_to_fp8's byte, a nan always 0x7f (INTERP holds fp8 values as doubles: fp8_to_float's nan is positive)
  auto want = [](double x, DType dt) {
    const std::uint8_t b = detail::float_to_fp8(x, dt.kind());
    return std::isnan(detail::fp8_to_float(b, dt.kind())) ? std::uint8_t(0x7f) : b;
  };
  for (DType dt : {dtypes::fp8e4m3, dtypes::fp8e5m2}) {
    INFO(dt.repr());
    const UOp r = UOp::range(nf, 0), r2 = UOp::range(nd, 1);
    const UOp o1 = param(0, dt, nf), o2 = param(1, dt, nd), i1 = param(2, dtypes::float32, nf), i2 = param(3, dtypes::float64, nd);
    const Program p = to_program(kernel({o1.index({r}).store(i1.index({r}).cast(dt)).end({r}), o2.index({r2}).store(i2.index({r2}).cast(dt)).end({r2})}), t);
    no_fp8_math(p);
    std::vector<std::uint8_t> got1(xf.size()), got2(xd.size());
    run(p, got1, got2, xf, xd);
    int bad = 0;
    for (std::size_t i = 0; i < xf.size(); ++i)
      if (got1[i] != want(xf[i], dt) && bad++ < 5) FAIL_CHECK("float32 " << xf[i] << " -> " << int(got1[i]));
    for (std::size_t i = 0; i < xd.size(); ++i)
      if (got2[i] != want(xd[i], dt) && bad++ < 10) FAIL_CHECK("float64 " << xd[i] << " -> " << int(got2[i]));
    CHECK(bad == 0);
    // every fp8 byte back to float32 and float64
    const UOp r3 = UOp::range(256, 0), r4 = UOp::range(256, 1), in8 = param(2, dt, 256);
    const Program q = to_program(kernel({param(0, dtypes::float32, 256).index({r3}).store(in8.index({r3}).cast(dtypes::float32)).end({r3}),
                                         param(1, dtypes::float64, 256).index({r4}).store(in8.index({r4}).cast(dtypes::float64)).end({r4})}), t);
    no_fp8_math(q);
    std::vector<std::uint8_t> all(256);
    for (int i = 0; i < 256; ++i) all[std::size_t(i)] = std::uint8_t(i);
    std::vector<float> back(256);
    std::vector<double> back64(256);
    run(q, back, back64, all);
    for (int i = 0; i < 256; ++i) {
      INFO("byte " << i);
      const double want = detail::fp8_to_float(std::uint8_t(i), dt.kind());
      CHECK(std::bit_cast<std::uint32_t>(back[std::size_t(i)]) == std::bit_cast<std::uint32_t>(float(want)));
      CHECK(std::bit_cast<std::uint64_t>(back64[std::size_t(i)]) == std::bit_cast<std::uint64_t>(double(float(want))));
    }
  }
}
