#!/usr/bin/env python3
"""How metagrad's simplify compares with tinygrad's on a corpus made by tools/sym_corpus.py.

    TINYGRAD_PATH=/tmp/tinygrad python3 tools/sym_quality.py build/tools/mg-sym [bench/data/sym_exprs.jsonl] [--worst 15]

Runs mg-sym on every expression, reads its simplified render back into tinygrad UOps with the same
builder the corpus was checked with (tools/sym_corpus.py's `build`), and counts nodes the same way,
len(toposort()). Reports the share of expressions where metagrad's graph is no larger than tinygrad's,
the share where metagrad's bounds are no looser (vmin >= tinygrad's, vmax <= tinygrad's), and the
worst cases of each. It also evaluates metagrad's render against the original expression on a few
random points with Python's own integers (a quick check; tools/fuzz_symbolic is the thorough one).
Exits 1 when fewer than 95% are no larger, any bounds are looser, or any value is wrong.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sym_corpus  # noqa: E402

INF = 1 << 125  # SymVal's infinity; mg-sym writes bounds outside int64 as "inf" / "-inf" strings


def bound(v) -> int:
  if isinstance(v, str): return -INF if v.startswith("-") else INF
  return max(-INF, min(INF, int(v)))


def cdiv(a, b): return abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
def cmod(a, b): return a - cdiv(a, b) * b


def py_eval(text: str, env: dict):
  """The render's value with Python ints: the syntax is Python's, plus cdiv/cmod."""
  return int(eval(text, {"__builtins__": {}, "max": max, "min": min, "cdiv": cdiv, "cmod": cmod, "int": int}, env))  # noqa: S307


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  ap.add_argument("mg_sym", help="path to the mg-sym binary")
  ap.add_argument("corpus", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "bench", "data", "sym_exprs.jsonl"))
  ap.add_argument("--worst", type=int, default=15, help="how many of the worst cases to list")
  ap.add_argument("--points", type=int, default=8, help="random points to check each value on")
  args = ap.parse_args()
  sym_corpus.import_tinygrad()

  with open(args.corpus, encoding="utf-8") as f:
    cases = [json.loads(l) for l in f if l.strip()]
  inp = "".join(json.dumps({"vars": c["vars"], "expr": c["expr"]}) + "\n" for c in cases)
  res = subprocess.run([args.mg_sym], input=inp, capture_output=True, text=True, check=False)
  outs = [json.loads(l) for l in res.stdout.splitlines() if l.strip()]
  if res.returncode != 0 or len(outs) != len(cases):
    sys.exit(f"mg-sym exited {res.returncode} with {len(outs)} lines for {len(cases)} expressions\n{res.stderr[-2000:]}")

  rng = random.Random(0)
  n = len(cases)
  smaller = same = larger = looser = tighter = errors = unreadable = wrong = identical = 0
  mg_nodes = tg_nodes = 0
  size_worst, bound_worst, problems = [], [], []
  for c, o in zip(cases, outs):
    if "error" in o:
      errors += 1
      problems.append(f"mg-sym error: {o['error']}\n    expr: {c['expr']}")
      continue
    try:
      u = sym_corpus.build(o["simplified"], sym_corpus.make_vars(c["vars"]))
    except (ValueError, RecursionError) as e:
      unreadable += 1
      problems.append(f"cannot read metagrad's render ({e}): {o['simplified']}\n    expr: {c['expr']}")
      continue
    identical += o["simplified"] == c["tinygrad"]
    nm, nt = sym_corpus.count_nodes(u), c["nodes"]
    mg_nodes, tg_nodes = mg_nodes + nm, tg_nodes + nt
    if nm < nt: smaller += 1
    elif nm == nt: same += 1
    else: larger += 1
    size_worst.append((nm - nt, nm, nt, c, o))
    lo, hi, tlo, thi = bound(o["vmin"]), bound(o["vmax"]), bound(c["vmin"]), bound(c["vmax"])
    if lo < tlo or hi > thi:
      looser += 1
      bound_worst.append((max(tlo - lo, hi - thi), c, o))
    elif lo > tlo or hi < thi: tighter += 1
    for _ in range(args.points):  # the value, on a few points, with Python's ints
      env = {name: rng.randint(lo_, hi_) for name, lo_, hi_ in c["vars"]}
      want, got = py_eval(c["expr"], env), py_eval(o["simplified"], env)
      if want != got:
        wrong += 1
        problems.append(f"wrong value at {env}: {got} != {want}\n    expr: {c['expr']}\n    metagrad: {o['simplified']}")
        break

  def pct(k): return f"{100.0 * k / n:.1f}%"
  print(f"corpus: {n} expressions ({args.corpus})")
  print(f"nodes (len(toposort()) of the simplified graph): metagrad {mg_nodes}, tinygrad {tg_nodes}")
  print(f"  metagrad no larger: {pct(smaller + same)} (smaller {smaller}, same {same}, larger {larger})")
  print(f"  bounds no looser:   {pct(n - looser - errors - unreadable)} (tighter {tighter}, looser {looser})")
  print(f"  the very same render as tinygrad's: {pct(identical)}")
  print(f"  mg-sym errors {errors}, renders it cannot read {unreadable}, wrong values {wrong}")
  size_worst.sort(key=lambda t: -t[0])
  if size_worst and size_worst[0][0] > 0:
    print(f"\nlargest against tinygrad (metagrad nodes - tinygrad nodes), worst {args.worst}:")
    for d, nm, nt, c, o in size_worst[:args.worst]:
      if d <= 0: break
      print(f"  +{d} ({nm} vs {nt})  vars {c['vars']}\n    expr:     {c['expr']}\n    tinygrad: {c['tinygrad']}\n    metagrad: {o['simplified']}")
  if bound_worst:
    bound_worst.sort(key=lambda t: -t[0])
    print(f"\nlooser bounds, worst {args.worst}:")
    for d, c, o in bound_worst[:args.worst]:
      print(f"  [{o['vmin']}, {o['vmax']}] vs tinygrad [{c['vmin']}, {c['vmax']}]  vars {c['vars']}\n    expr:     {c['expr']}\n"
            f"    tinygrad: {c['tinygrad']}\n    metagrad: {o['simplified']}")
  if problems:
    print(f"\nproblems ({len(problems)}), first {args.worst}:")
    for p in problems[:args.worst]: print("  " + p)
  ok = (smaller + same) >= 0.95 * n and looser == 0 and errors == 0 and unreadable == 0 and wrong == 0
  print(f"\ntarget (>= 95% no larger, no bounds looser, every value right): {'met' if ok else 'MISSED'}")
  sys.exit(0 if ok else 1)


if __name__ == "__main__":
  main()
