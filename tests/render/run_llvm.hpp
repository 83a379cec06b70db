#pragma once
// Compile rendered LLVM IR and call its <name>_call(bufs, vals) entry, for the renderer's tests: through the
// CPU runtime (runtime/llvm.hpp: compile, then the ORC JIT) where it is there, else through clang-19 into a
// shared object opened with dlopen. MG_RENDER_TEST_CLANG=1 picks clang-19 in any case.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <metagrad/core/error.hpp>
#if __has_include(<metagrad/runtime/llvm.hpp>)
#include <metagrad/runtime/llvm.hpp>
#define MG_TEST_HAS_LLVM_RUNTIME 1
#endif

namespace test {

inline int llvm_counter = 0;

// compile ir with clang-19 -O2, return dlopen's handle (the caller dlcloses it); throws with clang's output
inline void* compile_llvm(const std::string& ir) {
  const std::string base = "/tmp/mg_render_test_" + std::to_string(getpid()) + "_" + std::to_string(llvm_counter++);
  {
    std::ofstream f(base + ".ll");
    f << ir;
  }
  const std::string cmd = "clang-19 -O2 -march=native -shared -fPIC -x ir " + base + ".ll -o " + base + ".so 2> " + base + ".err";
  const int rc = std::system(cmd.c_str());
  std::ifstream e(base + ".err");
  std::string err((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
  std::remove((base + ".ll").c_str());
  std::remove((base + ".err").c_str());
  if (rc != 0) throw mg::Error("clang-19 rejected the IR:\n" + err);
  void* h = dlopen((base + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
  std::remove((base + ".so").c_str());
  if (!h) throw mg::Error(std::string("dlopen: ") + dlerror());
  return h;
}

// run kernel `name` of ir once with these buffers and var values
inline void run_llvm(const std::string& ir, const std::string& name, std::vector<void*> bufs, std::vector<std::int64_t> vals = {}) {
#ifdef MG_TEST_HAS_LLVM_RUNTIME
  if (!std::getenv("MG_RENDER_TEST_CLANG")) {
    auto& jit = mg::llvm::Jit::instance();
    void* f = jit.load(mg::llvm::compile(ir, name), name + "_call");
    reinterpret_cast<mg::llvm::KernelFn>(f)(bufs.data(), vals.data());
    jit.release(f);
    return;
  }
#endif
  void* h = compile_llvm(ir);
  auto fn = reinterpret_cast<void (*)(void**, std::int64_t*)>(dlsym(h, (name + "_call").c_str()));
  if (!fn) {
    dlclose(h);
    throw mg::Error("no symbol " + name + "_call in the compiled IR");
  }
  fn(bufs.data(), vals.data());
  dlclose(h);
}

}  // namespace test
