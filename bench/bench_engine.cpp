// bench_engine: the CPU device (scheduler + codegen + LLVM ORC) on issue 5's workloads, each against a
// peer measured in the same run:
//   first run     a+b on 1024^2 float32, graph to result in host memory, nothing cached (CACHELEVEL=0
//                 is set by this program, and it is the first kernel of the process); then in fresh
//                 processes of this program: taken apart, and with the kernel already in the disk cache
//                 (an earlier process compiled it: no libLLVM loaded)
//   bandwidth     a+b and (a*b+c).relu() on 4096^2 float32, GB/s moved, against a two-thread memcpy of
//                 the same size
//   assign        w.assign(w - g*lr) on 4096^2 float32 (in place), GB/s against the memcpy
//   reductions    sum and softmax over 4096^2 float32 (tinygrad's times come from
//                 bench/bench_engine_tinygrad.py, run separately)
//   matmul        1024^2 float32 GFLOP/s, against Eigen when it is installed (libeigen3-dev)
// Every timed realize includes scheduling the graph and allocating its output; the kernels are compiled
// before timing (except in "first run"). Times are wall clock (the kernels use several threads), best
// of N.
//
//   meson compile -C build bench/bench_engine && ./build/bench/bench_engine [rounds]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>
#include <vector>

#include <metagrad/metagrad.hpp>

#if __has_include(<eigen3/Eigen/Dense>)
#include <eigen3/Eigen/Dense>
#define MG_HAVE_EIGEN 1
#endif

#include "timing.hpp"

using namespace mg;

namespace {

std::vector<float> filled(std::size_t n, float v) { return std::vector<float>(n, v); }

double best_wall(int rounds, auto&& f) {
  double best = 1e30;
  for (int i = 0; i < rounds; ++i) best = std::min(best, timed(f).wall);
  return best;
}

// the value a realize leaves: checked so the compiler cannot drop the work and a wrong kernel shows
float first(const UOp& buf) {
  float v;
  std::memcpy(&v, host_buffer(buf).bytes.data(), sizeof v);
  return v;
}

}  // namespace

// The first run's parts, in a fresh process (this program run as `bench_engine first-run-parts`):
// loading libLLVM (dlopen and the host's detection), then the first realize (the JIT made, the first
// compile, the run), then a second kernel the process has not seen (LLVM loaded and warmed up).
int first_run_parts() {
  const std::int64_t n = 1024;
  Tensor a = Tensor::from(filled(n * n, 1.5f), {n, n}), b = Tensor::from(filled(n * n, 2.0f), {n, n});
  const auto t0 = Clock::now();
  llvm::host_target();
  const auto t1 = Clock::now();
  const UOp sum = realize_uops({(a + b).uop()})[0];
  const auto t2 = Clock::now();
  const UOp prod = realize_uops({(a * b).uop()})[0];
  const auto t3 = Clock::now();
  if (first(sum) != 3.5f || first(prod) != 3.0f) return std::printf("WRONG VALUES %f %f\n", first(sum), first(prod)), 1;
  std::printf("PARTS load=%.3f first=%.3f second=%.3f\n", secs(t0, t1) * 1e3, secs(t1, t2) * 1e3, secs(t2, t3) * 1e3);
  return 0;
}

// The first run of a program whose kernel an earlier process compiled (this program run as `bench_engine
// first-run-warm` with MG_CACHE_DIR set): the same a+b, its object from the disk cache, linked by the
// ELF loader; and whether libLLVM got mapped.
int first_run_warm() {
  const std::int64_t n = 1024;
  Tensor a = Tensor::from(filled(n * n, 1.5f), {n, n}), b = Tensor::from(filled(n * n, 2.0f), {n, n});
  const auto t0 = Clock::now();
  const UOp out = realize_uops({(a + b).uop()})[0];
  const double s = secs(t0, Clock::now());
  if (first(out) != 3.5f) return std::printf("WRONG VALUE %f\n", first(out)), 1;
  bool mapped = false;
  if (std::FILE* maps = std::fopen("/proc/self/maps", "r")) {
    for (char line[1024]; std::fgets(line, sizeof line, maps);) mapped = mapped || std::strstr(line, "libLLVM");
    std::fclose(maps);
  }
  std::printf("WARM ms=%.3f libllvm=%d\n", s * 1e3, int(mapped));
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "first-run-warm") == 0) return first_run_warm();
  ::setenv("CACHELEVEL", "0", 1);
  if (argc > 1 && std::strcmp(argv[1], "first-run-parts") == 0) return first_run_parts();
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 10;

  // ---- first run ----
  {
    const std::int64_t n = 1024;
    Tensor a = Tensor::from(filled(n * n, 1.5f), {n, n}), b = Tensor::from(filled(n * n, 2.0f), {n, n});
    const auto t0 = Clock::now();
    const UOp out = realize_uops({(a + b).uop()})[0];
    const double s = secs(t0, Clock::now());
    std::printf("first run a+b 1024^2 (schedule, codegen, LLVM compile, run): %.2f ms (value %.1f)\n", s * 1e3, first(out));
    double load = 0, first_ms = 0, second = 0;
    char self[4096] = {};
    const bool named = ::readlink("/proc/self/exe", self, sizeof self - 1) > 0;
    const bool split = named && run_peer("'" + std::string(self) + "' first-run-parts 2>&1", [&](const std::string& line) {
      return std::sscanf(line.c_str(), "PARTS load=%lf first=%lf second=%lf", &load, &first_ms, &second) == 3;
    });
    if (split)
      std::printf("  in a fresh process: loading libLLVM %.2f ms, then the first realize %.2f ms (JIT, first compile, run),\n"
                  "  then a second new kernel %.2f ms (compile and run, LLVM warm)\n", load, first_ms, second);
    // the same first run in fresh processes sharing a disk cache: the first compiles and stores the
    // object (and the host record), the later ones load it (best of 5)
    char dir[] = "/tmp/mg_bench_warm_XXXXXX";
    if (named && ::mkdtemp(dir)) {
      const std::string cmd = "MG_CACHE_DIR='" + std::string(dir) + "' CACHELEVEL=2 '" + self + "' first-run-warm 2>&1";
      double filling = 0, warm = 1e30;
      int filling_llvm = -1, warm_llvm = 0;
      for (int i = 0; i < 6; ++i) {
        double ms = 0;
        int llvm_mapped = 0;
        run_peer(cmd, [&](const std::string& line) {
          return std::sscanf(line.c_str(), "WARM ms=%lf libllvm=%d", &ms, &llvm_mapped) == 2;
        });
        if (i == 0) filling = ms, filling_llvm = llvm_mapped;
        else warm = std::min(warm, ms), warm_llvm |= llvm_mapped;
      }
      std::system(("rm -rf '" + std::string(dir) + "'").c_str());
      std::printf("  first run in a fresh process with an empty disk cache: %.2f ms (libLLVM %s)\n"
                  "  first run in a fresh process, the kernel in the disk cache: %.2f ms (libLLVM %s; best of 5)\n",
                  filling, filling_llvm ? "loaded" : "NOT LOADED?", warm, warm_llvm ? "LOADED" : "not loaded");
    }
  }

  // ---- bandwidth ----
  const std::int64_t n = 4096;
  const std::size_t N = std::size_t(n * n);
  Tensor a = Tensor::from(filled(N, 1.5f), {n, n}), b = Tensor::from(filled(N, 2.0f), {n, n}),
         c = Tensor::from(filled(N, -4.0f), {n, n});
  // the peer's buffers come from the same allocator as the tensors' (aligned, huge pages for big ones)
  std::vector<float, detail::AlignedAllocator<float>> src(N, 1.0f), dst(N, 0.0f);
  const double memcpy_s = best_wall(rounds, [&] {
    std::thread t([&] { std::memcpy(dst.data(), src.data(), N / 2 * sizeof(float)); });
    std::memcpy(dst.data() + N / 2, src.data() + N / 2, N / 2 * sizeof(float));
    t.join();
  });
  const double memcpy_gbs = 2.0 * double(N) * 4 / memcpy_s / 1e9;  // read + write
  std::printf("two-thread memcpy 64 MiB: %.2f ms, %.1f GB/s\n", memcpy_s * 1e3, memcpy_gbs);

  auto bandwidth = [&](const char* name, const Tensor& t, int arrays, float want) {
    const UOp warm = realize_uops({t.uop()})[0];
    if (first(warm) != want) std::printf("  WRONG VALUE %f, want %f\n", first(warm), want);
    const double s = best_wall(rounds, [&] { realize_uops({t.uop()}); });
    const double gbs = double(arrays) * double(N) * 4 / s / 1e9;
    std::printf("%-24s %.2f ms, %.1f GB/s = %.0f%% of memcpy\n", name, s * 1e3, gbs, 100 * gbs / memcpy_gbs);
  };
  bandwidth("a+b 4096^2", a + b, 3, 3.5f);
  bandwidth("(a*b+c).relu() 4096^2", (a * b + c).relu(), 4, 0.0f);

  // ---- assign: an optimizer step, stored into w's buffer in place (read w and g, write w) ----
  {
    Tensor w = Tensor::from(filled(N, 1.0f), {n, n}).realize(), g = Tensor::from(filled(N, 0.5f), {n, n});
    w.assign(w - g * 0.5);
    const double s = best_wall(rounds, [&] { w.assign(w - g * 0.5); });
    const double gbs = 3.0 * double(N) * 4 / s / 1e9;
    std::printf("%-24s %.2f ms, %.1f GB/s = %.0f%% of memcpy\n", "w.assign(w - g*lr)", s * 1e3, gbs, 100 * gbs / memcpy_gbs);
  }

  // ---- reductions ----
  auto timed_op = [&](const char* name, const Tensor& t) {
    realize_uops({t.uop()});
    const double s = best_wall(rounds, [&] { realize_uops({t.uop()}); });
    std::printf("%-24s %.2f ms\n", name, s * 1e3);
  };
  timed_op("sum 4096^2", a.sum());
  timed_op("softmax(1) 4096^2", a.softmax(1));

  // ---- matmul ----
  {
    const std::int64_t m = 1024;
    std::vector<float> av(std::size_t(m * m)), bv(std::size_t(m * m));
    for (std::size_t i = 0; i < av.size(); ++i) av[i] = float(i % 7) * 0.25f, bv[i] = float(i % 5) * 0.5f;
    Tensor x = Tensor::from(av, {m, m}), y = Tensor::from(bv, {m, m});
    const Tensor mm = x.matmul(y);
    realize_uops({mm.uop()});
    const double s = best_wall(std::max(1, rounds / 3), [&] { realize_uops({mm.uop()}); });
    const double gflops = 2.0 * double(m * m * m) / s / 1e9;
    std::printf("matmul 1024^2 float32: %.2f ms, %.1f GFLOP/s", s * 1e3, gflops);
#ifdef MG_HAVE_EIGEN
    Eigen::setNbThreads(int(std::thread::hardware_concurrency()));
    Eigen::MatrixXf ea = Eigen::Map<Eigen::Matrix<float, -1, -1, Eigen::RowMajor>>(av.data(), m, m);
    Eigen::MatrixXf eb = Eigen::Map<Eigen::Matrix<float, -1, -1, Eigen::RowMajor>>(bv.data(), m, m);
    Eigen::MatrixXf ec(m, m);
    const double es = best_wall(std::max(1, rounds / 3), [&] { ec.noalias() = ea * eb; });
    const double egflops = 2.0 * double(m * m * m) / es / 1e9;
    std::printf("; Eigen %.2f ms, %.1f GFLOP/s; metagrad = %.2f of Eigen\n", es * 1e3, egflops, gflops / egflops);
#else
    std::printf(" (Eigen not installed: apt-get install libeigen3-dev)\n");
#endif
  }
}
