// One side of simplify_ab.sh: the simplify benchmark's round, compiled once per source tree, each time with
// -Dmg=<its own namespace> -DMG_AB_ROUND=<its own name>, so that two versions of the header-only library
// live in one program (two intern tables, two sets of per-thread caches) and run alternately.
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include <metagrad/metagrad.hpp>
#include <metagrad/symbolic/parse.hpp>
#include <metagrad/symbolic/simplify.hpp>

#include "corpus.hpp"

namespace {
double thread_cpu() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}
}  // namespace

// one round as bench_simplify times it: parse every expression (untimed), simplify each on its fresh graph,
// then again on the same graphs; the seconds of both passes and the result's node count
AbRound MG_AB_ROUND(const std::vector<AbExpr>& corpus) {
  using namespace mg;
  std::vector<UOp> exprs, out(corpus.size());
  if (auto* memo = detail::thread_cache<detail::DivmodMemo<UOp>>()) memo->clear();
  for (const AbExpr& e : corpus) {
    std::vector<UOp> vars;
    for (const auto& [name, lo, hi] : e.vars) vars.push_back(UOp::variable(name, lo, hi));
    exprs.push_back(parse_sym(e.expr, vars));
  }
  AbRound r;
  const double t0 = thread_cpu();
  for (std::size_t i = 0; i < exprs.size(); ++i) out[i] = simplify(exprs[i]);
  const double t1 = thread_cpu();
  for (std::size_t i = 0; i < exprs.size(); ++i) out[i] = simplify(exprs[i]);
  r.fresh = t1 - t0, r.warm = thread_cpu() - t1;
  for (const UOp& o : out) r.nodes += o.toposort().size();
  return r;
}
