// A program that uses only static kernels: it includes nothing of the runtime, links nothing but the
// C++ library, and must run where libLLVM cannot be loaded. meson runs it with LD_LIBRARY_PATH at an
// empty folder; it also checks that no libLLVM is mapped into the process once its kernels ran.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <metagrad/static/kernel.hpp>

using namespace mg;

int main() {
  int failed = 0;
  auto expect = [&](bool ok, const char* what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failed += !ok;
  };
  // (a*b+c).relu() on 3x4, against the loop written by hand
  std::vector<float> a(12), b(4), c(3);
  for (int i = 0; i < 12; ++i) a[std::size_t(i)] = float(i) - 5.5f;
  for (int i = 0; i < 4; ++i) b[std::size_t(i)] = float(i) * 0.5f - 0.5f;
  for (int i = 0; i < 3; ++i) c[std::size_t(i)] = float(i) - 1;
  auto k = static_kernel<input<float, 3, 4>, input<float, 4>, input<float, 3, 1>>([](auto x, auto y, auto z) { return (x * y + z).relu(); });
  std::vector<float> out = k(a, b, c);
  bool ok = true;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      const float v = a[std::size_t(i * 4 + j)] * b[std::size_t(j)] + c[std::size_t(i)];
      ok = ok && out[std::size_t(i * 4 + j)] == (v > 0 ? v : 0);
    }
  expect(ok, "(a*b+c).relu() with broadcasting");
  // row softmax sums to one, and matmul by the identity is the matrix
  auto sm = static_kernel<input<float, 3, 4>>([](auto x) { return x.softmax().sum(axes<1>{}); })(a);
  expect(std::fabs(sm[0] - 1) < 1e-6f && std::fabs(sm[1] - 1) < 1e-6f && std::fabs(sm[2] - 1) < 1e-6f, "softmax rows sum to 1");
  std::vector<float> eye(16, 0.f);
  for (int i = 0; i < 4; ++i) eye[std::size_t(i * 5)] = 1;
  expect(static_kernel<input<float, 3, 4>, input<float, 4, 4>>([](auto x, auto w) { return x.matmul(w); })(a, eye) == a, "matmul by identity");
  // nothing loaded libLLVM
  std::ifstream maps("/proc/self/maps");
  std::string line;
  bool llvm = false;
  while (std::getline(maps, line)) llvm = llvm || line.find("libLLVM") != std::string::npos;
  expect(!llvm, "libLLVM is not mapped into the process");
  std::printf("%d passed, %d failed\n", 4 - failed, failed);
  return failed ? 1 : 0;
}
