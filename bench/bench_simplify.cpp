// bench_simplify: mg::simplify on random integer expressions (tinygrad's fuzz_symbolic style, the corpus
// tools/sym_corpus.py writes), against tinygrad's UOp.simplify() on the same expressions in the same run.
//
// All expressions are read (parse_sym) before any is timed; then simplify runs over all of them, each
// on a fresh graph: between rounds every expression and result is dropped, so every node dies (and its
// cached vmin/vmax with it), and the expressions are parsed again, untimed. Best of the rounds by this
// thread's CPU time. With TINYGRAD_PATH set, bench_simplify_tinygrad.py times tinygrad the same way.
// With a third argument K, metagrad's rounds and tinygrad's run alternate K times and each side keeps its
// best of all (as bench_resnet_null: this machine's speed drifts by up to 2x within minutes, and both
// sides then sample the same minutes).
//
//   meson compile -C build bench/bench_simplify
//   TINYGRAD_PATH=/tmp/tinygrad ./build/bench/bench_simplify [corpus.jsonl] [rounds] [K]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include <metagrad/core/json.hpp>
#include <metagrad/metagrad.hpp>
#include <metagrad/symbolic/parse.hpp>
#include <metagrad/symbolic/simplify.hpp>

#include "timing.hpp"

#ifndef MG_BENCH_DIR
#define MG_BENCH_DIR "bench"  // meson passes the source folder
#endif

using namespace mg;


struct Entry {
  std::vector<std::pair<std::string, std::pair<std::int64_t, std::int64_t>>> vars;
  std::string expr;
  std::int64_t tinygrad_nodes = 0;
};

std::vector<Entry> read_corpus(const std::string& path) {
  std::ifstream f(path);
  if (!f) { std::fprintf(stderr, "bench_simplify: cannot open %s (make one with tools/sym_corpus.py)\n", path.c_str()); std::exit(1); }
  std::vector<Entry> out;
  for (std::string line; std::getline(f, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const Json j = parse_json(line);
    Entry e;
    for (const Json& v : j["vars"].as_array()) e.vars.push_back({v[0].as_string(), {v[1].as_int(), v[2].as_int()}});
    e.expr = j["expr"].as_string();
    if (const Json* n = j.find("nodes")) e.tinygrad_nodes = n->as_int();
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<UOp> parse_all(const std::vector<Entry>& corpus) {
  std::vector<UOp> out;
  out.reserve(corpus.size());
  for (const Entry& e : corpus) {
    std::vector<UOp> vars;
    for (const auto& [name, b] : e.vars) vars.push_back(UOp::variable(name, b.first, b.second));
    out.push_back(parse_sym(e.expr, vars));
  }
  return out;
}

// tinygrad's figures, from the script's last line: RESULT n=.. fresh_cpu=.. fresh_wall=.. warm_cpu=.. nodes=..
struct Peer {
  bool ok = false;
  double fresh_cpu = 0, warm_cpu = 0;
  long long nodes = 0;
};
Peer run_tinygrad(const std::string& corpus, int rounds) {
  Peer p;
  const bool ran = run_peer("python3 " MG_BENCH_DIR "/bench_simplify_tinygrad.py '" + corpus + "' --rounds " + std::to_string(rounds) + " 2>&1",
                           [&](const std::string& line) {
                             double fw = 0;
                             long long n = 0;
                             if (std::sscanf(line.c_str(), "RESULT n=%lld fresh_cpu=%lf fresh_wall=%lf warm_cpu=%lf nodes=%lld", &n, &p.fresh_cpu, &fw,
                                             &p.warm_cpu, &p.nodes) != 5)
                               return false;
                             p.ok = true;
                             return true;
                           });
  p.ok = p.ok && ran;
  return p;
}

int main(int argc, char** argv) {
  const std::string corpus_path = argc > 1 ? argv[1] : MG_BENCH_DIR "/data/sym_exprs.jsonl";
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::vector<Entry> corpus = read_corpus(corpus_path);
  const double n = double(corpus.size());

  // once, untimed: what the graphs look like before and after
  std::size_t in_nodes = 0, out_nodes = 0;
  long long tg_nodes = 0;
  {
    std::vector<UOp> exprs = parse_all(corpus);
    for (std::size_t i = 0; i < exprs.size(); ++i) {
      in_nodes += exprs[i].toposort().size();
      out_nodes += simplify(exprs[i]).toposort().size();
      tg_nodes += corpus[i].tinygrad_nodes;
    }
  }
  std::printf("corpus: %zu expressions (%s), %zu nodes; after simplify %zu nodes (tinygrad's simplify: %lld)\n",
              corpus.size(), corpus_path.c_str(), in_nodes, out_nodes, tg_nodes);

  const bool peer = std::getenv("TINYGRAD_PATH") != nullptr;
  const int alternations = peer && argc > 3 ? std::max(1, std::atoi(argv[3])) : 1;
  Sample fresh, warm, parse;
  Peer tg;
  std::vector<std::pair<double, double>> pairs;  // each alternation's fresh times (metagrad, tinygrad)
  for (int a = 0; a < alternations; ++a) {
    Sample round_fresh;
    for (int r = 0; r < rounds; ++r) {
      std::vector<UOp> exprs, out(corpus.size());
      // fold_divmod_general's memo keeps the last round's index nodes alive; emptied, as the tinygrad side
      // clears its functools.cache, so that every round starts from nothing
      if (auto* memo = detail::thread_cache<detail::DivmodMemo<UOp>>()) memo->clear();
      keep_best(parse, timed([&] { exprs = parse_all(corpus); }));  // every node new: the last round's all died
      keep_best(round_fresh, timed([&] { for (std::size_t i = 0; i < exprs.size(); ++i) out[i] = simplify(exprs[i]); }));
      keep_best(warm, timed([&] { for (std::size_t i = 0; i < exprs.size(); ++i) out[i] = simplify(exprs[i]); }));
    }
    keep_best(fresh, round_fresh);
    pairs.push_back({round_fresh.cpu, 0});
    if (!peer) break;
    const Peer t = run_tinygrad(corpus_path, std::max(1, std::min(rounds, 3)));  // tinygrad's rounds take seconds
    if (!t.ok) { std::printf("tinygrad: no result (see above)\n"); return 1; }
    pairs.back().second = t.fresh_cpu;
    if (!tg.ok || t.fresh_cpu < tg.fresh_cpu) tg.fresh_cpu = t.fresh_cpu;
    if (!tg.ok || t.warm_cpu < tg.warm_cpu) tg.warm_cpu = t.warm_cpu;
    tg.nodes = t.nodes, tg.ok = true;
  }
  std::printf("metagrad simplify, best of %d by CPU time:\n", rounds * alternations);
  std::printf("  fresh graphs:            %8.2f ms cpu %8.2f ms wall  %12.0f expressions/s\n", fresh.cpu * 1e3, fresh.wall * 1e3, n / fresh.cpu);
  std::printf("  again on the same graphs: %7.2f ms cpu %8.2f ms wall  %12.0f expressions/s (bounds cached)\n", warm.cpu * 1e3, warm.wall * 1e3, n / warm.cpu);
  std::printf("  (parse_sym, untimed above: %.2f ms cpu)\n", parse.cpu * 1e3);

  if (!peer) {
    std::printf("\nset TINYGRAD_PATH to a tinygrad checkout to measure tinygrad's simplify on the same expressions\n");
    return 0;
  }
  if (alternations > 1) {
    std::printf("\neach alternation's fresh times (metagrad best of %d, then tinygrad best of %d):\n", rounds, std::max(1, std::min(rounds, 3)));
    for (const auto& [mine, theirs] : pairs) std::printf("  %8.2f ms  %10.2f ms  %6.1fx\n", mine * 1e3, theirs * 1e3, theirs / mine);
  }
  std::printf("\n%-28s %12s %16s %16s\n", "", "nodes after", "fresh expr/s", "warm expr/s");
  std::printf("%-28s %12zu %16.0f %16.0f\n", "metagrad", out_nodes, n / fresh.cpu, n / warm.cpu);
  std::printf("%-28s %12lld %16.0f %16.0f\n", "tinygrad", tg.nodes, n / tg.fresh_cpu, n / tg.warm_cpu);
  std::printf("metagrad / tinygrad: %.1fx on fresh graphs, %.1fx again on the same graphs (target: >= 100x)\n",
              tg.fresh_cpu / fresh.cpu, tg.warm_cpu / warm.cpu);
}
