// The CPU device's compiler and JIT: hand-written LLVM IR kernels in the shape the renderer emits
// (a kernel plus a <name>_call wrapper taking bufs and vals), compiled, loaded and run; LLVM's errors.
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <metagrad/runtime/llvm.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "../scoped_env.hpp"

namespace {

mg::llvm::KernelFn load_kernel(const std::string& ir, const std::string& name) {
  const std::string obj = mg::llvm::compile(ir, name);
  return reinterpret_cast<mg::llvm::KernelFn>(mg::llvm::Jit::instance().load(obj, name + "_call"));
}

// out[i] = a[i] + b[i] for i < n, n from vals[0]
const std::string add_ir = R"(
define void @add(ptr noalias %d0, ptr noalias %d1, ptr noalias %d2, i32 %n) {
entry:
  %empty = icmp sle i32 %n, 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i32 [0, %entry], [%i1, %loop]
  %pa = getelementptr float, ptr %d1, i32 %i
  %a = load float, ptr %pa
  %pb = getelementptr float, ptr %d2, i32 %i
  %b = load float, ptr %pb
  %s = fadd float %a, %b
  %po = getelementptr float, ptr %d0, i32 %i
  store float %s, ptr %po
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
define void @add_call(ptr %bufs, ptr %vals) {
  %b0 = load ptr, ptr %bufs
  %p1 = getelementptr ptr, ptr %bufs, i64 1
  %b1 = load ptr, ptr %p1
  %p2 = getelementptr ptr, ptr %bufs, i64 2
  %b2 = load ptr, ptr %p2
  %v0 = load i64, ptr %vals
  %n = trunc i64 %v0 to i32
  call void @add(ptr %b0, ptr %b1, ptr %b2, i32 %n)
  ret void
}
)";

}  // namespace

TEST_CASE("llvm: the host target is known", "[runtime][llvm]") {
  const mg::llvm::HostTarget& h = mg::llvm::host_target();
  CHECK(h.llvm_version.rfind("19.", 0) == 0);
  CHECK_FALSE(h.cpu.empty());
  CHECK(h.triple.find("-") != std::string::npos);
  CHECK(h.features.find("+") != std::string::npos);
}

TEST_CASE("llvm: a float add loop runs", "[runtime][llvm]") {
  auto fn = load_kernel(add_ir, "add");
  std::vector<float> out(37, -1.0f), a(37), b(37);
  for (int i = 0; i < 37; ++i) a[std::size_t(i)] = float(i) * 0.5f, b[std::size_t(i)] = 100.0f - float(i);
  void* bufs[] = {out.data(), a.data(), b.data()};
  std::int64_t vals[] = {35};
  fn(bufs, vals);
  for (int i = 0; i < 35; ++i) CHECK(out[std::size_t(i)] == a[std::size_t(i)] + b[std::size_t(i)]);
  CHECK(out[35] == -1.0f);  // n bounds the loop
  CHECK(out[36] == -1.0f);
}

TEST_CASE("llvm: an integer kernel with two vars", "[runtime][llvm]") {
  // out[0] = sum_{i<n} a[i]*a[i] (as i64) + vals[1]; out[1] = (a[n-1] >> 1) ^ 5
  const std::string ir = R"(
define void @isum(ptr noalias %d0, ptr noalias %d1, i64 %n, i64 %bias) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %acc = phi i64 [%bias, %entry], [%acc1, %loop]
  %p = getelementptr i32, ptr %d1, i64 %i
  %x = load i32, ptr %p
  %xx = sext i32 %x to i64
  %sq = mul i64 %xx, %xx
  %acc1 = add i64 %acc, %sq
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  store i64 %acc1, ptr %d0
  %last = add i64 %n, -1
  %pl = getelementptr i32, ptr %d1, i64 %last
  %l = load i32, ptr %pl
  %sh = ashr i32 %l, 1
  %xr = xor i32 %sh, 5
  %w = sext i32 %xr to i64
  %po = getelementptr i64, ptr %d0, i64 1
  store i64 %w, ptr %po
  ret void
}
define void @isum_call(ptr %bufs, ptr %vals) {
  %b0 = load ptr, ptr %bufs
  %p1 = getelementptr ptr, ptr %bufs, i64 1
  %b1 = load ptr, ptr %p1
  %n = load i64, ptr %vals
  %pv1 = getelementptr i64, ptr %vals, i64 1
  %bias = load i64, ptr %pv1
  call void @isum(ptr %b0, ptr %b1, i64 %n, i64 %bias)
  ret void
}
)";
  auto fn = load_kernel(ir, "isum");
  std::vector<std::int32_t> a = {3, -4, 100000, 7, -9};
  std::int64_t out[2] = {0, 0};
  void* bufs[] = {out, a.data()};
  std::int64_t vals[] = {5, -1000};
  fn(bufs, vals);
  CHECK(out[0] == 9 + 16 + 10000000000LL + 49 + 81 - 1000);
  CHECK(out[1] == ((-9 >> 1) ^ 5));
}

TEST_CASE("llvm: an <8 x float> kernel uses the host's vector units", "[runtime][llvm]") {
  const mg::llvm::HostTarget& h = mg::llvm::host_target();
  if (h.features.find("+avx,") == std::string::npos && h.features.find("+avx2") == std::string::npos)
    WARN("the host has no AVX: the kernel is legalized to narrower vectors");
  // out[i..i+8] = fma(a, b, 1) and sqrt(a) for 2 vectors
  const std::string ir = R"(
declare <8 x float> @llvm.fma.v8f32(<8 x float>, <8 x float>, <8 x float>)
declare <8 x float> @llvm.sqrt.v8f32(<8 x float>)
define void @vec(ptr noalias align 32 %d0, ptr noalias align 32 %d1, ptr noalias align 32 %d2, ptr noalias align 32 %d3) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %pa = getelementptr <8 x float>, ptr %d1, i64 %i
  %a = load <8 x float>, ptr %pa, align 32
  %pb = getelementptr <8 x float>, ptr %d2, i64 %i
  %b = load <8 x float>, ptr %pb, align 32
  %f = call <8 x float> @llvm.fma.v8f32(<8 x float> %a, <8 x float> %b, <8 x float> <float 1.0, float 1.0, float 1.0, float 1.0, float 1.0, float 1.0, float 1.0, float 1.0>)
  %po = getelementptr <8 x float>, ptr %d0, i64 %i
  store <8 x float> %f, ptr %po, align 32
  %s = call <8 x float> @llvm.sqrt.v8f32(<8 x float> %a)
  %ps = getelementptr <8 x float>, ptr %d3, i64 %i
  store <8 x float> %s, ptr %ps, align 32
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, 2
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
define void @vec_call(ptr %bufs, ptr %vals) {
  %b0 = load ptr, ptr %bufs
  %p1 = getelementptr ptr, ptr %bufs, i64 1
  %b1 = load ptr, ptr %p1
  %p2 = getelementptr ptr, ptr %bufs, i64 2
  %b2 = load ptr, ptr %p2
  %p3 = getelementptr ptr, ptr %bufs, i64 3
  %b3 = load ptr, ptr %p3
  call void @vec(ptr %b0, ptr %b1, ptr %b2, ptr %b3)
  ret void
}
)";
  auto fn = load_kernel(ir, "vec");
  alignas(32) float out[16], a[16], b[16], sq[16];
  for (int i = 0; i < 16; ++i) a[i] = float(i * i), b[i] = 0.25f * float(i) - 1.0f;
  void* bufs[] = {out, a, b, sq};
  fn(bufs, nullptr);
  for (int i = 0; i < 16; ++i) {
    CHECK(out[i] == std::fma(a[i], b[i], 1.0f));
    CHECK(sq[i] == float(i));
  }
}

TEST_CASE("llvm: libcalls LLVM lowers intrinsics to resolve in the process", "[runtime][llvm]") {
  // a memset of variable length, exp2 of a scalar (libm's exp2f), and float -> half
  const std::string ir = R"(
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare float @llvm.exp2.f32(float)
define void @libc(ptr noalias %d0, ptr noalias %d1, ptr noalias %d2, i64 %n) {
  call void @llvm.memset.p0.i64(ptr %d0, i8 7, i64 %n, i1 false)
  %x = load float, ptr %d1
  %e = call float @llvm.exp2.f32(float %x)
  store float %e, ptr %d1
  %h = fptrunc float %x to half
  store half %h, ptr %d2
  ret void
}
define void @libc_call(ptr %bufs, ptr %vals) {
  %b0 = load ptr, ptr %bufs
  %p1 = getelementptr ptr, ptr %bufs, i64 1
  %b1 = load ptr, ptr %p1
  %p2 = getelementptr ptr, ptr %bufs, i64 2
  %b2 = load ptr, ptr %p2
  %n = load i64, ptr %vals
  call void @libc(ptr %b0, ptr %b1, ptr %b2, i64 %n)
  ret void
}
)";
  auto fn = load_kernel(ir, "libc");
  std::vector<unsigned char> bytes(1000, 0);
  float x = 3.5f;
  std::uint16_t h = 0;
  void* bufs[] = {bytes.data(), &x, &h};
  std::int64_t vals[] = {999};
  fn(bufs, vals);
  for (std::size_t i = 0; i < 999; ++i) REQUIRE(bytes[i] == 7);
  CHECK(bytes[999] == 0);
  CHECK(x == Approx(std::exp2(3.5f)));
  CHECK(h == 0x4300);  // 3.5 as half: exponent 1 (0x4000) + mantissa 0.75 (0x300)
}

TEST_CASE("llvm: IR that LLVM rejects is an mg::Error with LLVM's words and the source", "[runtime][llvm]") {
  SECTION("does not parse") {
    const std::string ir = "define void @k( {\n  ret void\n}\n";
    try {
      mg::llvm::compile(ir, "bad_parse");
      FAIL("compile accepted bad IR");
    } catch (const mg::Error& e) {
      const std::string msg = e.what();
      CHECK(msg.rfind("LLVM: ", 0) == 0);
      CHECK(msg.find("bad_parse:2:3: error: expected type") !=
            std::string::npos);  // LLVM's location in the named buffer
      CHECK(msg.find("error:") != std::string::npos);
      CHECK(msg.find("--- source ---\n" + ir) != std::string::npos);
    }
  }
  SECTION("parses but does not verify") {
    const std::string ir = "define void @k() {\n  %a = add i32 %b, 1\n  %b = add i32 1, 1\n  ret void\n}\n";
    try {
      mg::llvm::compile(ir, "bad_verify");
      FAIL("compile accepted IR that does not verify");
    } catch (const mg::Error& e) {
      const std::string msg = e.what();
      CHECK(msg.find("Instruction does not dominate all uses") != std::string::npos);
      CHECK(msg.find("--- source ---\n" + ir) != std::string::npos);
    }
  }
  SECTION("fails in codegen (reported through the diagnostic handler, which would exit)") {
    const std::string ir = "define void @k() {\n  call void asm sideeffect \"bogus_instr\", \"\"()\n  ret void\n}\n";
    try {
      mg::llvm::compile(ir, "bad_asm");
      FAIL("compile accepted a bad instruction");
    } catch (const mg::Error& e) {
      const std::string msg = e.what();
      CHECK(msg.find("invalid instruction mnemonic 'bogus_instr'") != std::string::npos);
      CHECK(msg.find("--- source ---\n" + ir) != std::string::npos);
    }
  }
  // the process is fine afterwards
  auto fn = load_kernel(add_ir, "add");
  float out = 0, a = 1, b = 2;
  void* bufs[] = {&out, &a, &b};
  std::int64_t vals[] = {1};
  fn(bufs, vals);
  CHECK(out == 3.0f);
}

TEST_CASE("llvm: load errors name the symbol", "[runtime][llvm]") {
  const std::string obj = mg::llvm::compile(add_ir, "add");
  auto& jit = mg::llvm::Jit::instance();
  const std::size_t before = jit.loaded_count();
  CHECK_THROWS_WITH(jit.load(obj, "no_such_kernel"), Catch::Contains("no_such_kernel") && Catch::Contains("not found"));
  CHECK_THROWS_WITH(jit.load("not an object file", "k"), Catch::Contains("cannot load the object"));
  const std::string ext =
      "declare void @mg_missing_fn()\ndefine void @ext() {\n  call void @mg_missing_fn()\n  ret void\n}\n";
  CHECK_THROWS_WITH(jit.load(mg::llvm::compile(ext, "ext"), "ext"), Catch::Contains("mg_missing_fn"));
  CHECK(jit.loaded_count() == before);
  CHECK_THROWS_AS(jit.release(reinterpret_cast<void*>(&load_kernel)), mg::Error);
}

TEST_CASE("llvm: kernels of the same name from different sources coexist; release frees", "[runtime][llvm]") {
  auto make = [](int c) {
    return "define void @same(ptr %d) {\n  store i32 " + std::to_string(c) +
           ", ptr %d\n  ret void\n}\ndefine void @same_call(ptr %bufs, ptr %vals) {\n  %b = load ptr, ptr %bufs\n"
           "  call void @same(ptr %b)\n  ret void\n}\n";
  };
  auto& jit = mg::llvm::Jit::instance();
  const std::size_t before = jit.loaded_count();
  const std::string o1 = mg::llvm::compile(make(11), "same"), o2 = mg::llvm::compile(make(22), "same");
  void* f1 = jit.load(o1, "same_call");
  void* f2 = jit.load(o2, "same_call");
  CHECK(f1 != f2);
  CHECK(jit.load(o1, "same_call") == f1);  // the same object loads once
  CHECK(jit.loaded_count() == before + 2);
  std::int32_t v = 0;
  void* bufs[] = {&v};
  reinterpret_cast<mg::llvm::KernelFn>(f1)(bufs, nullptr);
  CHECK(v == 11);
  reinterpret_cast<mg::llvm::KernelFn>(f2)(bufs, nullptr);
  CHECK(v == 22);
  jit.release(f1);  // one load of f1 left
  reinterpret_cast<mg::llvm::KernelFn>(f1)(bufs, nullptr);
  CHECK(v == 11);
  jit.release(f1);
  jit.release(f2);
  CHECK(jit.loaded_count() == before);
  CHECK_THROWS_AS(jit.release(f2), mg::Error);
  // loading again after a release works
  void* f3 = jit.load(o2, "same_call");
  reinterpret_cast<mg::llvm::KernelFn>(f3)(bufs, nullptr);
  CHECK(v == 22);
  jit.release(f3);
}

TEST_CASE("llvm: compiling and loading from several threads", "[runtime][llvm]") {
  constexpr int n = 4;
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  std::vector<std::string> errors(n);
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      try {
        const std::string ir = "define void @t(ptr %d) {\n  store i64 " + std::to_string(1000 + t) +
                               ", ptr %d\n  ret void\n}\ndefine void @t_call(ptr %bufs, ptr %vals) {\n"
                               "  %b = load ptr, ptr %bufs\n  call void @t(ptr %b)\n  ret void\n}\n";
        auto fn = load_kernel(ir, "t");
        std::int64_t v = 0;
        void* bufs[] = {&v};
        fn(bufs, nullptr);
        if (v == 1000 + t) ++ok;
      } catch (const std::exception& e) {
        errors[std::size_t(t)] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (auto& e : errors) CHECK(e == "");
  CHECK(ok == n);
}

TEST_CASE("llvm: compile_cached uses the disk cache and survives a corrupt entry", "[runtime][llvm]") {
  char tmpl[] = "/tmp/mg_llvm_cache_XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  const mg::test::ScopedEnv cache_dir("MG_CACHE_DIR", dir), level("CACHELEVEL", std::nullopt);

  // a source unique to this run, so no earlier run cached it
  const std::string ir = add_ir + "; run " + std::to_string(::getpid()) + "\n";
  const std::string key = mg::llvm::detail::object_cache_key(ir, "add");
  CHECK_FALSE(mg::disk_cache_get("llvm", key).has_value());
  const std::string obj = mg::llvm::compile_cached(ir, "add");
  auto on_disk = mg::disk_cache_get("llvm", key);
  REQUIRE(on_disk.has_value());
  CHECK(*on_disk == obj);
  CHECK(mg::llvm::compile_cached(ir, "add") == obj);  // from the disk

  // a truncated file is recompiled and rewritten
  const std::string path = mg::detail::disk_cache_path("llvm", key);
  REQUIRE(::truncate(path.c_str(), 40) == 0);
  CHECK_FALSE(mg::disk_cache_get("llvm", key).has_value());
  const std::string again = mg::llvm::compile_cached(ir, "add");
  CHECK(again == obj);
  CHECK(mg::disk_cache_get("llvm", key) == std::optional<std::string>(obj));

  // a disk hit loads and runs
  auto fn = reinterpret_cast<mg::llvm::KernelFn>(
      mg::llvm::Jit::instance().load(mg::llvm::compile_cached(ir, "add"), "add_call"));
  float out = 0, a = 1.5f, b = 2.25f;
  void* bufs[] = {&out, &a, &b};
  std::int64_t vals[] = {1};
  fn(bufs, vals);
  CHECK(out == 3.75f);

  // CACHELEVEL=0: nothing is written
  const std::string ir2 = ir + "; uncached\n";
  const std::string key2 = mg::llvm::detail::object_cache_key(ir2, "add");
  {
    const mg::test::ScopedEnv off("CACHELEVEL", "0");
    mg::llvm::compile_cached(ir2, "add");
  }
  CHECK_FALSE(mg::disk_cache_get("llvm", key2).has_value());

  const std::string cmd = "rm -rf '" + dir + "'";
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("llvm: a missing or wrong libLLVM is an error naming the package", "[runtime][llvm]") {
  using mg::detail::llvmc::find_libllvm;
  CHECK_THROWS_WITH(
      find_libllvm("/nonexistent/libLLVM.so.19.1"),
      Catch::Contains("/nonexistent/libLLVM.so.19.1") && Catch::Contains("install the Debian package libllvm19"));
  // a library that is not libLLVM: the error names the first missing function
  CHECK_THROWS_WITH(find_libllvm("libm.so.6"), Catch::Contains("no symbol LLVMContextCreate"));
}

namespace {

// the same object linked by metagrad's ELF loader and by ORC: each call of `run` gets a fresh kernel address
template <class Run>
void on_both_linkers(const std::string& ir, const std::string& name, Run run) {
  const std::string obj = mg::llvm::compile(ir, name);
  auto& jit = mg::llvm::Jit::instance();
  for (mg::llvm::Linker how : {mg::llvm::Linker::Elf, mg::llvm::Linker::Orc}) {
    INFO((how == mg::llvm::Linker::Elf ? "ELF loader" : "ORC"));
    void* fn = jit.load(obj, name + "_call", how);
    run(reinterpret_cast<mg::llvm::KernelFn>(fn));
    jit.release(fn);
  }
}

const std::string call_wrapper_2 = R"(
  %b0 = load ptr, ptr %bufs
  %p1 = getelementptr ptr, ptr %bufs, i64 1
  %b1 = load ptr, ptr %p1
  %n = load i64, ptr %vals
)";

}  // namespace

TEST_CASE("llvm: the ELF loader and ORC link the same objects to the same results", "[runtime][llvm][elf]") {
  SECTION("a loop: a call between functions of the object") {
    on_both_linkers(add_ir, "add", [](mg::llvm::KernelFn fn) {
      std::vector<float> out(37, 0), a(37), b(37);
      for (std::size_t i = 0; i < 37; ++i) a[i] = float(i) * 1.5f, b[i] = 2.0f - float(i);
      void* bufs[] = {out.data(), a.data(), b.data()};
      std::int64_t vals[] = {37};
      fn(bufs, vals);
      for (std::size_t i = 0; i < 37; ++i) REQUIRE(out[i] == a[i] + b[i]);
    });
  }
  SECTION("a switch: a jump table in read-only data") {
    const std::string ir = R"(
define void @sw(ptr noalias %d0, ptr noalias %d1, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %latch]
  %p = getelementptr i32, ptr %d1, i64 %i
  %x = load i32, ptr %p
  switch i32 %x, label %c7 [ i32 0, label %c0
                             i32 1, label %c1
                             i32 2, label %c2
                             i32 3, label %c3
                             i32 4, label %c4
                             i32 5, label %c5
                             i32 6, label %c6 ]
c0:
  %v0 = mul i32 %x, 3
  br label %latch
c1:
  %v1 = add i32 %x, 100
  br label %latch
c2:
  %v2 = xor i32 %x, 85
  br label %latch
c3:
  %v3 = shl i32 %x, 5
  br label %latch
c4:
  %v4 = sub i32 %x, 77
  br label %latch
c5:
  %v5 = mul i32 %x, %x
  br label %latch
c6:
  %v6 = sub i32 0, %x
  br label %latch
c7:
  %v7 = udiv i32 %x, 3
  br label %latch
latch:
  %v = phi i32 [%v0, %c0], [%v1, %c1], [%v2, %c2], [%v3, %c3], [%v4, %c4], [%v5, %c5], [%v6, %c6], [%v7, %c7]
  %q = getelementptr i32, ptr %d0, i64 %i
  store i32 %v, ptr %q
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
define void @sw_call(ptr %bufs, ptr %vals) {)" + call_wrapper_2 + R"(
  call void @sw(ptr %b0, ptr %b1, i64 %n)
  ret void
}
)";
    on_both_linkers(ir, "sw", [](mg::llvm::KernelFn fn) {
      std::vector<std::int32_t> in = {0, 1, 2, 3, 4, 5, 6, 7, 11, 3, 5, 0}, out(in.size(), -1);
      const std::vector<std::int32_t> want = {0, 101, 87, 96, -73, 25, -6, 2, 3, 96, 25, 0};
      void* bufs[] = {out.data(), in.data()};
      std::int64_t vals[] = {std::int64_t(in.size())};
      fn(bufs, vals);
      CHECK(out == want);
    });
  }
  SECTION("a global the kernel writes: a writable section, one per load") {
    const std::string ir = R"(
@counter = internal global i32 0
define void @cnt(ptr noalias %d0) {
  %c = load i32, ptr @counter
  %c1 = add i32 %c, 1
  store i32 %c1, ptr @counter
  store i32 %c1, ptr %d0
  ret void
}
define void @cnt_call(ptr %bufs, ptr %vals) {
  %b0 = load ptr, ptr %bufs
  call void @cnt(ptr %b0)
  ret void
}
)";
    on_both_linkers(ir, "cnt", [](mg::llvm::KernelFn fn) {
      std::int32_t v = 0;
      void* bufs[] = {&v};
      fn(bufs, nullptr);
      CHECK(v == 1);
      fn(bufs, nullptr);
      CHECK(v == 2);
    });
  }
  SECTION("the address of the process's data: a GOT-relative load") {
    const std::string ir = R"(
@environ = external global ptr
define void @env(ptr noalias %d0) {
  store ptr @environ, ptr %d0
  ret void
}
define void @env_call(ptr %bufs, ptr %vals) {
  %b0 = load ptr, ptr %bufs
  call void @env(ptr %b0)
  ret void
}
)";
    on_both_linkers(ir, "env", [](mg::llvm::KernelFn fn) {
      void* got = nullptr;
      void* bufs[] = {&got};
      fn(bufs, nullptr);
      CHECK(got == ::dlsym(RTLD_DEFAULT, "environ"));
      CHECK(got != nullptr);
    });
  }
}

TEST_CASE("llvm: the ELF loader calls far functions through jump stubs", "[runtime][llvm][elf]") {
  // libm's exp2f called from a mapping placed terabytes away from libm, out of reach of a 32-bit call
  const std::string ir = R"(
declare float @llvm.exp2.f32(float)
define void @far(ptr noalias %d0, ptr noalias %d1) {
  %x = load float, ptr %d1
  %e = call float @llvm.exp2.f32(float %x)
  store float %e, ptr %d0
  ret void
}
define void @far_call(ptr %bufs, ptr %vals) {
  %b0 = load ptr, ptr %bufs
  %p1 = getelementptr ptr, ptr %bufs, i64 1
  %b1 = load ptr, ptr %p1
  call void @far(ptr %b0, ptr %b1)
  ret void
}
)";
  const std::string obj = mg::llvm::compile(ir, "far");
  mg::detail::elf::Failure failure;
  std::optional<mg::detail::elf::Image> img = mg::detail::elf::link(obj, failure, std::uintptr_t(0x200000000000));
  INFO(failure.why);
  REQUIRE(img.has_value());
  auto fn = reinterpret_cast<mg::llvm::KernelFn>(img->symbol("far_call"));
  REQUIRE(fn != nullptr);
  const auto here = reinterpret_cast<std::intptr_t>(reinterpret_cast<void*>(fn));
  const auto libm = reinterpret_cast<std::intptr_t>(::dlsym(RTLD_DEFAULT, "exp2f"));
  REQUIRE(libm != 0);
  CHECK(std::abs(here - libm) > (std::intptr_t(1) << 32));  // the mapping went where it was asked to
  float out = 0, x = 5.5f;
  void* bufs[] = {&out, &x};
  fn(bufs, nullptr);
  CHECK(out == std::exp2(5.5f));
  CHECK(img->symbol("no_such_symbol") == nullptr);
}

TEST_CASE("llvm: the ELF loader rejects broken objects with an error and never crashes", "[runtime][llvm][elf]") {
  const std::string obj = mg::llvm::compile(add_ir, "add");
  auto& jit = mg::llvm::Jit::instance();
  const std::size_t before = jit.loaded_count();
  auto try_load = [&](const std::string& bytes) {
    try {
      jit.release(jit.load(bytes, "add_call", mg::llvm::Linker::Elf));  // loads: never run, it may be garbage
      return true;
    } catch (const mg::Error& e) {
      const std::string msg = e.what();
      CHECK(msg.rfind("CPU device: ", 0) == 0);
      return false;
    }
  };
  std::size_t loaded = 0;
  for (std::size_t n = 0; n < obj.size(); ++n) loaded += try_load(obj.substr(0, n));  // every truncation
  CHECK(loaded == 0);  // a truncated object has lost its section headers (at the end) or its code
  for (std::size_t i = 0; i < obj.size(); ++i) {  // every byte flipped
    std::string bad = obj;
    bad[i] = char(~bad[i]);
    try_load(bad);
  }
  CHECK(jit.loaded_count() == before);
  CHECK_THROWS_WITH(jit.load(std::string(100, '\0'), "k", mg::llvm::Linker::Elf), Catch::Contains("no ELF magic"));
  // a well-formed object for another machine: unsupported by the ELF loader, an error when it alone is asked
  std::string arm = obj;
  arm[18] = char(183), arm[19] = 0;  // e_machine = EM_AARCH64
  CHECK_THROWS_WITH(jit.load(arm, "add_call", mg::llvm::Linker::Elf), Catch::Contains("is not x86-64"));
}

TEST_CASE("llvm: the host record the disk cache keys come from", "[runtime][llvm]") {
  using namespace mg::llvm::detail;
  const mg::llvm::HostTarget& h = mg::llvm::host_target();
  CHECK(parse_host_record(host_record(h)) == std::optional<mg::llvm::HostTarget>(h));
  const std::string rec = host_record(h);
  const std::size_t third_newline = rec.find('\n', rec.find('\n', rec.find('\n') + 1) + 1);
  REQUIRE(third_newline != std::string::npos);
  for (std::size_t n = 0; n < third_newline; ++n)  // a record cut before its last field is never taken for a host
    CHECK_FALSE(parse_host_record(rec.substr(0, n)).has_value());
#if defined(__x86_64__)
  const std::string fp = host_fingerprint();
  CHECK(!fp.empty());
  CHECK(host_fingerprint() == fp);
  {  // another libLLVM is another host
    const mg::test::ScopedEnv other("MG_LIBLLVM", "/nonexistent/libLLVM.so");
    CHECK(host_fingerprint() != fp);
  }
#endif
}
