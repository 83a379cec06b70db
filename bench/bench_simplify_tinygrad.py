#!/usr/bin/env python3
"""tinygrad's UOp.simplify() on the corpus bench_simplify times metagrad on; run by bench/bench_simplify.

    TINYGRAD_PATH=/tmp/tinygrad python3 bench/bench_simplify_tinygrad.py bench/data/sym_exprs.jsonl [--rounds 3]

Every round starts from fresh graphs, as metagrad's does: the previous round's expressions and
results are dropped, the one tinygrad cache that keeps UOps alive across calls
(divandmod.fold_divmod_general, a functools.cache keyed by UOp) is cleared, and gc runs, so every
UOp dies (tinygrad interns through weak references) and with it its cached vmin/vmax and
_src_ops. The expressions are then built again from their renders (untimed). Only the
simplify() calls are timed, by process CPU time; best of the rounds. A warm figure (simplify
again on the same graphs, caches full) is printed too. The last line is for bench_simplify to read:
    RESULT n=<expressions> fresh_cpu=<s> fresh_wall=<s> warm_cpu=<s> nodes=<total after simplify>
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import sym_corpus  # noqa: E402


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  ap.add_argument("corpus")
  ap.add_argument("--rounds", type=int, default=3)
  args = ap.parse_args()
  sym_corpus.import_tinygrad()
  from tinygrad.uop.divandmod import fold_divmod_general
  from tinygrad.uop.ops import UOpMetaClass

  with open(args.corpus, encoding="utf-8") as f:
    cases = [json.loads(l) for l in f if l.strip()]

  def fresh():
    fold_divmod_general.cache_clear()
    gc.collect()
    alive = len(UOpMetaClass.ucache)  # what is left: tinygrad's own constants and patterns' UOps
    return alive, [sym_corpus.build(c["expr"], sym_corpus.make_vars(c["vars"])) for c in cases]

  fresh_cpu = fresh_wall = warm_cpu = float("inf")
  nodes = 0
  for r in range(args.rounds):
    alive, exprs = fresh()
    cached = sum("_min_max" in e.__dict__ for e in exprs)
    gc.collect()
    c0, w0 = time.process_time(), time.perf_counter()
    out = [e.simplify() for e in exprs]
    c1, w1 = time.process_time(), time.perf_counter()
    fresh_cpu, fresh_wall = min(fresh_cpu, c1 - c0), min(fresh_wall, w1 - w0)
    if r == 0:  # the same results as when the corpus was made (untimed)
      renders = [u.render(simplify=False) for u in out]
      differ = sum(a != c["tinygrad"] for a, c in zip(renders, cases))
      nodes = sum(len(u.toposort()) for u in out)
      print(f"tinygrad: {len(cases)} expressions, {nodes} nodes after simplify; {differ} renders differ from the corpus; "
            f"{cached} roots had bounds cached before the first simplify", flush=True)
    print(f"tinygrad round {r}: {alive} UOps alive after the cleanup, before building", flush=True)
    c0 = time.process_time()
    for e in exprs: e.simplify()
    warm_cpu = min(warm_cpu, time.process_time() - c0)
    del exprs, out
  n = len(cases)
  print(f"tinygrad simplify, best of {args.rounds} by CPU time: fresh graphs {fresh_cpu * 1e3:.1f} ms cpu "
        f"({fresh_wall * 1e3:.1f} ms wall), {n / fresh_cpu:,.0f} expressions/s; again on the same graphs "
        f"{warm_cpu * 1e3:.1f} ms cpu, {n / warm_cpu:,.0f} expressions/s")
  print(f"RESULT n={n} fresh_cpu={fresh_cpu:.6f} fresh_wall={fresh_wall:.6f} warm_cpu={warm_cpu:.6f} nodes={nodes}")


if __name__ == "__main__":
  main()
