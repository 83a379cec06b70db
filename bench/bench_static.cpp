// Static kernels (issue 7) against Eigen's expression templates on the same fused work, both
// single-threaded, Eigen measured in the same run:
//   (a*b+c).relu()      4096^2 float32
//   sum(a*b)            4096^2 float32
//   softmax of the rows 4096^2 float32
//   matmul              512^2 float32
// and, beside them, sums of the rows and of the columns of 4096^2
// Each row is the best of N rounds by thread CPU time, the static kernel's rounds and Eigen's
// alternating; the ratio is Eigen's time over the static
// kernel's (above 1: the static kernel is faster). Build: meson (bench/bench_static) or
//   g++ -std=c++20 -O3 -march=native -DNDEBUG -Iinclude bench/bench_static.cpp -o bench_static
// Run: ./bench_static [rounds]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <metagrad/static/kernel.hpp>

#if __has_include(<eigen3/Eigen/Dense>)
#include <eigen3/Eigen/Dense>
#define MG_HAVE_EIGEN 1
#endif

#include "timing.hpp"

using namespace mg;

namespace {
constexpr std::int64_t N = 4096, M = 512;

std::vector<float> filled(std::size_t n, float scale, float offset, std::uint32_t seed) {
  std::vector<float> v(n);
  std::uint32_t s = seed;
  for (auto& x : v) s = s * 1664525u + 1013904223u, x = float(s >> 8) / float(1 << 24) * scale + offset;
  return v;
}
// the best of N rounds of each, the two alternating round by round: both see the same machine state
// (a memory-bound kernel measured just after another's rounds, or while the cache holds the other's
// output, would be measured against a different memory system)
struct Times {
  double st = 0, eigen = 0;
};
Times alternate(int rounds, auto&& f_static, [[maybe_unused]] auto&& f_eigen) {
  Sample s, e;
  for (int i = 0; i < rounds; ++i) {
    keep_best(s, timed(f_static));
#ifdef MG_HAVE_EIGEN
    keep_best(e, timed(f_eigen));
#endif
  }
  return {s.cpu, e.cpu};
}
// the largest difference from Eigen's result, relative to the largest of Eigen's values
double max_rel_diff(const float* a, const float* b, std::size_t n) {
  double m = 0, scale = 1e-30;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(double(a[i]) - double(b[i]))), scale = std::max(scale, std::fabs(double(b[i])));
  return m / scale;
}
void row(const char* name, double t_static, double t_eigen, double diff, double work, const char* unit) {
  if (t_eigen > 0)
    std::printf("%-24s static %9.3f ms %8.2f %s   eigen %9.3f ms %8.2f %s   eigen/static %5.2fx   max rel diff %.1e\n", name,
                t_static * 1e3, work / t_static / 1e9, unit, t_eigen * 1e3, work / t_eigen / 1e9, unit, t_eigen / t_static, diff);
  else std::printf("%-24s static %9.3f ms %8.2f %s   (Eigen not installed: apt-get install libeigen3-dev)\n", name, t_static * 1e3,
                   work / t_static / 1e9, unit);
}
}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
  const std::size_t n2 = std::size_t(N * N);
  auto a = filled(n2, 2, -1, 1), b = filled(n2, 2, -1, 2), c = filled(n2, 2, -1, 3);
  std::vector<float> out(n2), ref(n2);
  std::printf("static kernels against Eigen, one thread, best of %d alternating rounds (thread CPU time)\n", rounds);

  using In = input<float, N, N>;
  // (a*b+c).relu(): 4 arrays of 64 MiB move through memory
  {
    auto k = static_kernel<In, In, In>([](auto x, auto y, auto z) { return (x * y + z).relu(); });
    auto fe = [&] {
#ifdef MG_HAVE_EIGEN
      Eigen::Map<const Eigen::ArrayXf> ea(a.data(), Eigen::Index(n2)), eb(b.data(), Eigen::Index(n2)), ec(c.data(), Eigen::Index(n2));
      Eigen::Map<Eigen::ArrayXf> er(ref.data(), Eigen::Index(n2));
      er = (ea * eb + ec).max(0.f);
#endif
    };
    const Times t = alternate(rounds, [&] { k(out.data(), a.data(), b.data(), c.data()); }, fe);
    row("(a*b+c).relu() 4096^2", t.st, t.eigen, max_rel_diff(out.data(), ref.data(), n2), double(n2) * 16, "GB/s");
  }
  // sum(a*b)
  {
    auto k = static_kernel<In, In>([](auto x, auto y) { return (x * y).sum(); });
    float s = 0, se = 0;
    auto fe = [&] {
#ifdef MG_HAVE_EIGEN
      Eigen::Map<const Eigen::ArrayXf> ea(a.data(), Eigen::Index(n2)), eb(b.data(), Eigen::Index(n2));
      se = (ea * eb).sum();
#endif
    };
    const Times t = alternate(rounds, [&] { k(&s, a.data(), b.data()); }, fe);
    double exact = 0;
    for (std::size_t i = 0; i < n2; ++i) exact += double(a[i]) * double(b[i]);
    std::printf("  sum(a*b): static %.6g, eigen %.6g, float64 loop %.6g\n", double(s), double(se), exact);
    row("sum(a*b) 4096^2", t.st, t.eigen, max_rel_diff(&s, &se, 1), double(n2) * 8, "GB/s");
  }
  // sums of the rows and of the columns (not among issue 7's workloads: the two ways a reduce per
  // output element is laid out, partial results per row and lanes along the columns)
  for (int axis : {1, 0}) {
    std::vector<float> o(N), oe(N);
    auto ks = static_kernel<In>([](auto x) { return x.sum(axes<1>{}); });
    auto kc = static_kernel<In>([](auto x) { return x.sum(axes<0>{}); });
    auto fe = [&] {
#ifdef MG_HAVE_EIGEN
      using RowArray = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      Eigen::Map<const RowArray> ea(a.data(), N, N);
      Eigen::Map<Eigen::ArrayXf> er(oe.data(), N);
      if (axis == 1) er = ea.rowwise().sum();
      else er = ea.colwise().sum().transpose();
#endif
    };
    const Times t = alternate(rounds, [&] { axis == 1 ? ks(o.data(), a.data()) : kc(o.data(), a.data()); }, fe);
    row(axis == 1 ? "row sums 4096^2" : "column sums 4096^2", t.st, t.eigen, max_rel_diff(o.data(), oe.data(), std::size_t(N)),
        double(n2) * 4, "GB/s");
  }
  // softmax over the rows
  {
    auto k = static_kernel<In>([](auto x) { return x.softmax(); });
    auto fe = [&] {
#ifdef MG_HAVE_EIGEN
      using RowArray = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      Eigen::Map<const RowArray> ea(a.data(), N, N);
      Eigen::Map<RowArray> er(ref.data(), N, N);
      er = (ea.colwise() - ea.rowwise().maxCoeff()).exp();
      er.colwise() /= er.rowwise().sum();
#endif
    };
    const Times t = alternate(rounds, [&] { k(out.data(), a.data()); }, fe);
    row("softmax rows 4096^2", t.st, t.eigen, max_rel_diff(out.data(), ref.data(), n2), double(n2) * 8, "GB/s");
  }
  // matmul 512^2
  {
    using Im = input<float, M, M>;
    auto k = static_kernel<Im, Im>([](auto x, auto y) { return x.matmul(y); });
    const std::size_t m2 = std::size_t(M * M);
    auto fe = [&] {
#ifdef MG_HAVE_EIGEN
      using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      Eigen::setNbThreads(1);
      Eigen::Map<const RowMat> ea(a.data(), M, M), eb(b.data(), M, M);
      Eigen::Map<RowMat> er(ref.data(), M, M);
      er.noalias() = ea * eb;
#endif
    };
    const Times t = alternate(rounds, [&] { k(out.data(), a.data(), b.data()); }, fe);
    row("matmul 512^2", t.st, t.eigen, max_rel_diff(out.data(), ref.data(), m2), 2.0 * double(M) * double(M) * double(M), "GFLOP/s");
  }
}
