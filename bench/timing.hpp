#pragma once
// Measuring for the benchmarks. The machine is shared (other builds run beside them), so each sample
// records this thread's CPU time as well as wall time: best of N is taken by CPU time, which time
// slicing does not inflate.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

using Clock = std::chrono::steady_clock;
inline double secs(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }
struct Sample {
  double cpu = 1e30, wall = 1e30;
};
inline double thread_cpu() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}
template <class F> Sample timed(F&& f) {
  const double c0 = thread_cpu();
  const auto w0 = Clock::now();
  f();
  return {thread_cpu() - c0, secs(w0, Clock::now())};
}
inline void keep_best(Sample& best, Sample s) { if (s.cpu < best.cpu) best = s; }

// Runs a peer's script (cmd, echoed first) and hands each line of its output to on_line, which returns
// whether it used the line; lines it did not use are shown. True when the command ran and exited 0.
template <class F> bool run_peer(const std::string& cmd, F&& on_line) {
  std::printf("\n$ %s\n", cmd.c_str());
  std::fflush(stdout);
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return false;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe))
    if (!on_line(std::string(buf))) std::printf("  %s", buf);
  return pclose(pipe) == 0;
}
