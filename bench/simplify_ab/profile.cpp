// The simplify benchmark's round for a profiler: parse the corpus (untimed), simplify every expression on
// its fresh graph, then again on the same graphs, for a number of rounds; callgrind collects the last
// round's fresh pass only (its warm pass with MG_PROFILE_WARM=1). Not built by meson (it needs valgrind's
// header); built against any source tree:
//
//   g++ -std=c++20 -O2 -g -DNDEBUG -pthread -I<tree>/include bench/simplify_ab/profile.cpp -o /tmp/simp -ldl
//   valgrind --tool=callgrind --collect-atstart=no /tmp/simp bench/data/sym_exprs.jsonl 2   # instructions
//   /tmp/simp bench/data/sym_exprs.jsonl 20                                                  # best times
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include <valgrind/callgrind.h>

#include <metagrad/core/json.hpp>
#include <metagrad/metagrad.hpp>
#include <metagrad/symbolic/parse.hpp>
#include <metagrad/symbolic/simplify.hpp>

namespace {
double thread_cpu() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}
struct Expr {
  std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> vars;
  std::string text;
};
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: profile corpus.jsonl [rounds]\n"); return 2; }
  const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  const bool profile_warm = std::getenv("MG_PROFILE_WARM") != nullptr;
  std::ifstream f(argv[1]);
  if (!f) { std::fprintf(stderr, "profile: cannot open %s\n", argv[1]); return 1; }
  std::vector<Expr> corpus;
  for (std::string line; std::getline(f, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const mg::Json j = mg::parse_json(line);
    Expr e;
    for (const mg::Json& v : j["vars"].as_array()) e.vars.emplace_back(v[0].as_string(), v[1].as_int(), v[2].as_int());
    e.text = j["expr"].as_string();
    corpus.push_back(std::move(e));
  }
  double fresh = 1e30, warm = 1e30;
  for (int r = 0; r < rounds; ++r) {
    if (auto* memo = mg::detail::thread_cache<mg::detail::DivmodMemo<mg::UOp>>()) memo->clear();
    std::vector<mg::UOp> exprs, out(corpus.size());
    for (const Expr& e : corpus) {
      std::vector<mg::UOp> vars;
      for (const auto& [name, lo, hi] : e.vars) vars.push_back(mg::UOp::variable(name, lo, hi));
      exprs.push_back(mg::parse_sym(e.text, vars));
    }
    const bool last = r == rounds - 1;
    auto pass = [&](bool collect) {
      if (last && collect) CALLGRIND_TOGGLE_COLLECT;
      const double t0 = thread_cpu();
      for (std::size_t i = 0; i < exprs.size(); ++i) out[i] = mg::simplify(exprs[i]);
      const double t = thread_cpu() - t0;
      if (last && collect) CALLGRIND_TOGGLE_COLLECT;
      return t;
    };
    fresh = std::min(fresh, pass(!profile_warm));
    warm = std::min(warm, pass(profile_warm));
  }
  std::printf("%zu expressions, best of %d rounds: fresh %.3f ms, warm %.3f ms\n", corpus.size(), rounds, fresh * 1e3, warm * 1e3);
}
