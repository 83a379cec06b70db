// A program run a second time finds its kernels in the disk cache and does not load libLLVM at all: the
// objects are linked by metagrad's ELF loader and the cache keys come from the host record the first run
// stored. This program runs itself twice, each time a fresh process with MG_CACHE_DIR at a new folder:
// the first run compiles (libLLVM is mapped), the second must print the same values with no libLLVM in
// /proc/self/maps. The exit status says whether all of that held.
#include <metagrad/metagrad.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace mg;

namespace {

bool libllvm_mapped() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("libLLVM") != std::string::npos) return true;
  return false;
}

// the child: a few kernels (an add, a softmax: exp2f from libm, a reduce), their values, and whether libLLVM is mapped
int child() {
  std::vector<float> av(1000), bv(1000);
  for (int i = 0; i < 1000; ++i) av[std::size_t(i)] = float(i) * 0.5f, bv[std::size_t(i)] = float(i % 7) - 3.0f;
  Tensor a = Tensor::from(av, {10, 100}), b = Tensor::from(bv, {10, 100});
  const std::vector<float> sum = (a + b).to_vector<float>();
  const std::vector<float> soft = (b * 0.25f).softmax(1).to_vector<float>();
  const float total = (a * b).sum().item<float>();
  bool ok = true;
  for (std::size_t i = 0; i < 1000; ++i) ok = ok && sum[i] == av[i] + bv[i];
  double want_total = 0;
  for (std::size_t i = 0; i < 1000; ++i) want_total += double(av[i]) * bv[i];
  ok = ok && std::fabs(total - want_total) <= 1e-4 * std::fabs(want_total) + 1e-3;
  for (std::size_t r = 0; r < 10; ++r) {
    double z = 0;
    for (std::size_t j = 0; j < 100; ++j) z += std::exp(double(bv[r * 100 + j]) * 0.25);
    for (std::size_t j = 0; j < 100; ++j)
      ok = ok && std::fabs(soft[r * 100 + j] - std::exp(double(bv[r * 100 + j]) * 0.25) / z) < 1e-6;
  }
  std::printf("values %s %.6f %.9f %.9f\n", ok ? "right" : "WRONG", double(total), double(soft[0]), double(soft[999]));
  std::printf("libLLVM %s\n", libllvm_mapped() ? "mapped" : "not mapped");
  return ok ? 0 : 1;
}

std::string run_self(const std::string& self) {
  std::string out;
  if (std::FILE* p = ::popen(("'" + self + "' child 2>&1").c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    if (::pclose(p) != 0) out += "(exit status not 0)\n";
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc > 1 && std::string(argv[1]) == "child") return child();
  } catch (const Error& e) {
    std::printf("mg::Error: %s\n", e.what());
    return 1;
  }
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return std::printf("FAILED: cannot read /proc/self/exe\n"), 1;
  self[n] = '\0';
  char dir[] = "/tmp/mg_warm_start_XXXXXX";
  if (!::mkdtemp(dir)) return std::printf("FAILED: mkdtemp\n"), 1;
  ::setenv("MG_CACHE_DIR", dir, 1);
  ::setenv("CACHELEVEL", "2", 1);
  const std::string cold = run_self(self), warm = run_self(self);
  std::system(("rm -rf '" + std::string(dir) + "'").c_str());
  std::printf("first run:\n%ssecond run:\n%s", cold.c_str(), warm.c_str());
  auto values = [](const std::string& s) { return s.substr(0, s.find('\n')); };
  int failed = 0;
  auto expect = [&](bool ok, const char* what) {
    std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    failed += !ok;
  };
  expect(cold.rfind("values right", 0) == 0 && cold.find("libLLVM mapped\n") != std::string::npos,
         "the first run computes the right values with libLLVM loaded");
  expect(warm.rfind("values right", 0) == 0 && warm.find("libLLVM not mapped\n") != std::string::npos,
         "the second run computes them without loading libLLVM");
  expect(values(cold) == values(warm), "both runs print the same values");
  return failed == 0 ? 0 : 1;
}
