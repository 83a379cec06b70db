// simplify_ab.sh's driver: reads the corpus, runs the two versions' rounds alternately (A then B, then B
// then A, ...) and prints each side's best and median and the median of the per-round ratios B/A. Both
// sides sample the same seconds of the machine, so a drift in its speed cancels in the ratios.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <metagrad/core/json.hpp>

#include "corpus.hpp"

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: simplify_ab corpus.jsonl [rounds]\n"); return 2; }
  const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
  std::ifstream f(argv[1]);
  if (!f) { std::fprintf(stderr, "simplify_ab: cannot open %s\n", argv[1]); return 1; }
  std::vector<AbExpr> corpus;
  for (std::string line; std::getline(f, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto j = mg::parse_json(line);
    AbExpr e;
    for (const auto& v : j["vars"].as_array()) e.vars.emplace_back(v[0].as_string(), v[1].as_int(), v[2].as_int());
    e.expr = j["expr"].as_string();
    corpus.push_back(std::move(e));
  }
  std::vector<AbRound> a, b;
  for (int r = 0; r < rounds; ++r) {
    if (r % 2) a.push_back(ab_round_a(corpus)), b.push_back(ab_round_b(corpus));
    else b.push_back(ab_round_b(corpus)), a.push_back(ab_round_a(corpus));
  }
  auto stats = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return std::pair{v.front() * 1e3, v[v.size() / 2] * 1e3};
  };
  auto column = [](const std::vector<AbRound>& rs, double AbRound::*m) {
    std::vector<double> v;
    for (const AbRound& r : rs) v.push_back(r.*m);
    return v;
  };
  std::vector<double> rf, rw;
  for (std::size_t i = 0; i < a.size(); ++i) rf.push_back(b[i].fresh / a[i].fresh), rw.push_back(b[i].warm / a[i].warm);
  std::sort(rf.begin(), rf.end()), std::sort(rw.begin(), rw.end());
  for (auto [name, rs] : {std::pair{"A", &a}, std::pair{"B", &b}}) {
    const auto [fb, fm] = stats(column(*rs, &AbRound::fresh));
    const auto [wb, wm] = stats(column(*rs, &AbRound::warm));
    std::printf("%s: fresh best %.3f ms, median %.3f ms; warm best %.3f ms, median %.3f ms; %zu nodes after\n", name, fb, fm, wb, wm,
                rs->back().nodes);
  }
  std::printf("B/A, median of %d paired rounds: fresh %.3f, warm %.3f\n", rounds, rf[rf.size() / 2], rw[rw.size() / 2]);
}
