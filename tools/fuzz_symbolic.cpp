// fuzz_symbolic: tinygrad's test/external/fuzz_symbolic.py for metagrad's simplify, on random seeds for
// as long as asked. Each seed is one expression over v1, v2, v3; every point of their ranges is tried.
//
//   fuzz_symbolic [--seconds N] [--count K] [--seed S] [--quiet]
//
// Starts at seed S (default: a random one) and counts up, until K cases or N seconds (default 60 s
// when neither is given). Prints progress, and each failure with a line to feed mg-sym and the
// command that reruns it. Exits 1 when any case failed.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "../tests/symbolic/fuzz_symbolic.hpp"

int main(int argc, char** argv) {
  double seconds = -1;
  long long count = -1;
  std::uint64_t seed = std::random_device{}() % 1'000'000'000;
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) { std::fprintf(stderr, "fuzz_symbolic: %s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--seconds") seconds = std::atof(next());
    else if (a == "--count") count = std::atoll(next());
    else if (a == "--seed") seed = std::strtoull(next(), nullptr, 10);
    else if (a == "--quiet") quiet = true;
    else {
      std::fprintf(stderr, "usage: fuzz_symbolic [--seconds N] [--count K] [--seed S] [--quiet]\n");
      return 2;
    }
  }
  if (seconds < 0 && count < 0) seconds = 60;
  if (count >= 0) std::printf("fuzz_symbolic: from seed %llu, %lld cases\n", (unsigned long long)seed, count);
  else std::printf("fuzz_symbolic: from seed %llu, for %g s\n", (unsigned long long)seed, seconds);
  std::fflush(stdout);

  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  double last_report = 0;
  mg::fuzz::Stats stats;
  for (std::uint64_t s = seed;; ++s) {
    if (count >= 0 && stats.cases >= std::uint64_t(count)) break;
    if (seconds >= 0 && count < 0 && elapsed() >= seconds) break;
    mg::fuzz::Outcome o = mg::fuzz::check_case(mg::fuzz::make_case(s));
    stats.add(o);
    if (o.kind == mg::fuzz::Outcome::failed) std::printf("\n%s\n", o.why.c_str());
    if (!quiet && elapsed() - last_report >= 5) {
      last_report = elapsed();
      std::printf("[%6.1f s] seed %llu: %s\n", last_report, (unsigned long long)s, stats.summary().c_str());
    }
    std::fflush(stdout);
  }
  std::printf("fuzz_symbolic: seeds %llu..%llu: %s; %.1f s\n", (unsigned long long)seed,
              (unsigned long long)(seed + stats.cases - 1), stats.summary().c_str(), elapsed());
  return stats.failed ? 1 : 0;
}
