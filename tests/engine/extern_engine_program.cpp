// A program built as a user builds one against the precompiled engine: meson's metagrad_engine_dep
// (-DMG_EXTERN_ENGINE, linked with the metagrad_engine library made from include/metagrad/engine_instance.cpp).
// It realizes tensors on the default device, differentiates and simplifies, each of which runs code that only
// the library instantiates; the exit status says whether every value is right.
#include <metagrad/metagrad.hpp>

#include <cstdio>
#include <vector>

#ifndef MG_EXTERN_ENGINE
#error "built without MG_EXTERN_ENGINE: this program must use the precompiled engine"
#endif

using namespace mg;

int main() {
  int failed = 0;
  auto expect = [&](bool ok, const char* what) {
    std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    failed += !ok;
  };
  try {
    Tensor t = Tensor::from({1, 2, 3, 4, 5, 6}, {2, 3});
    expect((t * 2 + 1).sum(1).to_vector<int>() == std::vector<int>{15, 33}, "(t*2+1).sum(1) is {15, 33}");
    Tensor x = Tensor::from({1.0, 2.0, 3.0});
    (x * x).sum().backward();
    expect(x.grad() && x.grad()->to_vector<float>() == std::vector<float>{2, 4, 6}, "d/dx sum(x*x) is {2, 4, 6}");
    UOp a = UOp::variable("a", 0, 8);
    expect(simplify(((a + 3) % 4) + ((a + 3) / 4) * 4).render() == "(a+3)", "simplify gives (a+3)");
  } catch (const Error& e) {
    std::printf("FAILED: mg::Error: %s\n", e.what());
    return 1;
  }
  return failed == 0 ? 0 : 1;
}
