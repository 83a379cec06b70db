#!/usr/bin/env python3
"""Random integer expressions simplified by tinygrad itself: the corpus metagrad's simplify is measured on.

    TINYGRAD_PATH=/tmp/tinygrad python3 tools/sym_corpus.py [-n 2000] [--seed 0] > bench/data/sym_exprs.jsonl

Each line: {"vars": [["v1",0,ub],...], "expr": <render of the unsimplified graph>, "tinygrad": <render of
tinygrad's simplify()>, "vmin": n, "vmax": n (bounds of the simplified graph), "nodes": len(toposort())}.

The expressions are made the way tinygrad's test/external/fuzz_symbolic.py makes them (the same op
choices, weights, depths and sub-expression reuse; tests/symbolic/fuzz_symbolic.hpp is the C++ twin).
Two deliberate differences: a comparison's constant is a weakint like everything else (fuzz_symbolic
uses a dtypes.int constant, which makes tinygrad CAST the other side to int, a node the render syntax
metagrad reads does not have), and of the two candidates for an operand only the chosen one is built.

Only expressions whose render, read back by `build`, is the very same tinygrad UOp (and whose
simplified render is too) are kept, so a render in the corpus means exactly one graph.
`build` (and `count_nodes`) are also what tools/sym_quality.py and bench/bench_simplify_tinygrad.py use.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import random
import sys

UPPER_BOUNDS = [*range(1, 10), 16, 32, 64, 128, 256]
VAR_NAMES = ("v1", "v2", "v3")


def import_tinygrad():
  path = os.environ.get("TINYGRAD_PATH")
  if path and path not in sys.path: sys.path.insert(0, path)
  try:
    import tinygrad  # noqa: F401
  except ImportError:
    sys.exit("tinygrad not importable: set TINYGRAD_PATH to a tinygrad checkout")


# ---- the render syntax read back into tinygrad UOps ----

def build(text: str, variables: dict):
  """The tinygrad UOp a render denotes. variables: name -> Variable. Raises ValueError on syntax it
  does not know. Every node is made with UOp.alu / UOp(...) directly, so no operator sugar adds casts."""
  from tinygrad.uop.ops import UOp, Ops
  from tinygrad.dtype import dtypes
  binops = {ast.Add: Ops.ADD, ast.Sub: Ops.SUB, ast.Mult: Ops.MUL, ast.FloorDiv: Ops.FLOORDIV, ast.Mod: Ops.FLOORMOD,
            ast.LShift: Ops.SHL, ast.RShift: Ops.SHR, ast.BitAnd: Ops.AND, ast.BitOr: Ops.OR, ast.BitXor: Ops.XOR}

  def const(v):
    return UOp.const(dtypes.bool if isinstance(v, bool) else dtypes.weakint, v)

  def go(n):
    if isinstance(n, ast.Expression): return go(n.body)
    if isinstance(n, ast.Constant) and isinstance(n.value, (bool, int)): return const(n.value)
    if isinstance(n, ast.Name):
      if n.id in variables: return variables[n.id]
      raise ValueError(f"unknown name {n.id!r}")
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
      if isinstance(n.operand, ast.Constant) and type(n.operand.value) is int: return const(-n.operand.value)
      return UOp(Ops.NEG, (x := go(n.operand)).dtype, (x,))
    if isinstance(n, ast.BinOp) and type(n.op) in binops: return go(n.left).alu(binops[type(n.op)], go(n.right))
    if isinstance(n, ast.Compare):
      if len(n.ops) != 1: raise ValueError("chained comparison")
      a, b, op = go(n.left), go(n.comparators[0]), type(n.ops[0])
      if op is ast.Lt: return a.alu(Ops.CMPLT, b)
      if op is ast.NotEq: return a.alu(Ops.CMPNE, b)
      if op is ast.Eq: return a.alu(Ops.CMPEQ, b)
      if op is ast.Gt: return b.alu(Ops.CMPLT, a)                                   # a>b  -> b<a
      if op is ast.LtE: return b.alu(Ops.CMPLT, a).alu(Ops.CMPNE, const(True))     # a<=b -> (b<a)!=True
      if op is ast.GtE: return a.alu(Ops.CMPLT, b).alu(Ops.CMPNE, const(True))     # a>=b -> (a<b)!=True
      raise ValueError(f"comparison {op.__name__}")
    if isinstance(n, ast.IfExp): return go(n.test).alu(Ops.WHERE, go(n.body), go(n.orelse))  # (x if c else y)
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and not n.keywords:
      f, args = n.func.id, [go(a) for a in n.args]
      if f == "max" and len(args) == 2: return args[0].alu(Ops.MAX, args[1])
      if f == "min" and len(args) == 2: return args[0].minimum(args[1])
      if f == "cdiv" and len(args) == 2: return args[0].alu(Ops.CDIV, args[1])
      if f == "cmod" and len(args) == 2: return args[0].alu(Ops.CMOD, args[1])
      if len(args) == 1 and isinstance(dt := getattr(dtypes, f, None), type(dtypes.int)): return args[0].cast(dt)  # (int)(x)
      raise ValueError(f"unknown call {f}/{len(args)}")
    raise ValueError(f"unknown syntax {ast.dump(n)[:60]}")

  try:
    tree = ast.parse(text.strip(), mode="eval")
  except SyntaxError as e:
    raise ValueError(f"syntax error: {e}") from None
  return go(tree)


def count_nodes(u) -> int: return len(u.toposort())


def make_vars(bounds):
  from tinygrad import Variable
  return {name: Variable(name, lo, hi) for name, lo, hi in bounds}


# ---- the generator: fuzz_symbolic.py's structure, over any random.Random ----

class ExprGen:
  def __init__(self, rng: random.Random, variables: list):
    self.rng, self.v = rng, variables

  # a + c, a * c, a // c, a % c, max(a, c), min(a, c); arithmetic weighs 4, max/min 1
  def unary(self, a):
    r = self.rng
    k = r.choices(range(6), weights=[4, 4, 4, 4, 1, 1])[0]
    if k == 0: return a + r.randint(-4, 4)
    if k == 1: return a * r.randint(-4, 4)
    if k == 2: return a // r.randint(1, 9)
    if k == 3: return a % r.randint(1, 9)
    if k == 4: return a.maximum(r.randint(-10, 10))
    return a.minimum(r.randint(-10, 10))

  def binary(self, a, b):
    k = self.rng.choices(range(4), weights=[8, 1, 1, 1])[0]
    if k == 0: return a + b
    if k == 1: return a * b
    return a.maximum(b) if k == 2 else a.minimum(b)

  # the second operand: a fresh expression, or a node (not a bool) of the first one
  def operand(self, depth, expr):
    from tinygrad.dtype import dtypes
    if self.rng.random() < 0.5: return self.int_expr(depth - 1)
    return self.rng.choice([e for e in expr.toposort() if e.dtype is not dtypes.bool])

  def int_expr(self, depth=6):
    if depth <= 0: return self.rng.choice(self.v)
    e1 = self.int_expr(depth - 1)
    k = self.rng.choices(range(3), weights=[6, 4, 1])[0]  # weights follow how many ops each branch has
    if k == 0: return self.unary(e1)
    if k == 1: return self.binary(e1, self.operand(depth - 1, e1))
    cond = self.bool_expr(self.operand(depth - 1, e1))
    return cond.where(e1, self.operand(depth - 1, e1))

  def bool_expr(self, e1, depth=3):
    r = self.rng
    e2 = self.operand(depth - 1, e1) if r.random() < 0.5 else e1.const_like(r.randint(-10, 10))
    k = r.randrange(4)
    return (e1 < e2) if k == 0 else (e1 <= e2) if k == 1 else (e1 > e2) if k == 2 else (e1 >= e2)


def random_case(rng: random.Random):
  """(bounds, expr): three variables 0..ub and a depth-6 expression over them."""
  bounds = [(name, 0, rng.choice(UPPER_BOUNDS)) for name in VAR_NAMES]
  variables = make_vars(bounds)
  return bounds, ExprGen(rng, list(variables.values())).int_expr(6)


def corpus_line(bounds, expr):
  """The JSON object for one expression, or None (with a reason) when it does not round-trip."""
  from tinygrad.uop.ops import Ops
  variables = make_vars(bounds)
  text = expr.render(simplify=False)
  if expr.op is Ops.CONST: return None, "constant"
  try:
    if build(text, variables) is not expr: return None, "render does not round-trip"
    simp = expr.simplify()
    stext = simp.render(simplify=False)
    if build(stext, variables) is not simp: return None, "simplified render does not round-trip"
  except ValueError as e:
    return None, str(e)
  except (ZeroDivisionError, RecursionError, AssertionError) as e:
    return None, f"{type(e).__name__}: {e}"
  return {"vars": [list(b) for b in bounds], "expr": text, "tinygrad": stext,
          "vmin": int(simp.vmin), "vmax": int(simp.vmax), "nodes": count_nodes(simp)}, None


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  ap.add_argument("-n", type=int, default=2000, help="expressions to write")
  ap.add_argument("--seed", type=int, default=0)
  ap.add_argument("-o", "--out", help="output file (default stdout)")
  args = ap.parse_args()
  import_tinygrad()
  rng = random.Random(args.seed)
  out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
  kept, dropped = 0, {}
  while kept < args.n:
    line, why = corpus_line(*random_case(rng))
    if line is None:
      dropped[why] = dropped.get(why, 0) + 1
      continue
    out.write(json.dumps(line, separators=(", ", ": ")) + "\n")
    kept += 1
  if out is not sys.stdout: out.close()
  print(f"sym_corpus: wrote {kept} expressions (seed {args.seed}); dropped {sum(dropped.values())}: "
        + (", ".join(f"{v} {k}" for k, v in sorted(dropped.items())) or "none"), file=sys.stderr)


if __name__ == "__main__":
  main()
