#!/usr/bin/env python3
"""Port tinygrad's symbolic test cases to data for tests/symbolic/test_symbolic.cpp.

Runs the test methods of tinygrad's test/null/test_uop_symbolic.py with TestSymbolic.helper_test_variable
(and TestSymbolicNumeric.helper_test_numeric) replaced by recorders, and writes what tinygrad computes:

  tests/symbolic/tinygrad_symbolic_cases.inc     one row per case whose input is a tinygrad render over weakint
                                                 DEFINE_VARs: {test, vars, input, expected render, vmin, vmax}
  tests/symbolic/tinygrad_symbolic_bounds.inc    TestSymbolicNumeric's bounds of unsimplified expressions over a
                                                 variable: {test, vars, input, vmin, vmax, lowest value, highest value}
  tests/symbolic/tinygrad_symbolic_skipped.jsonl every recorded case the render syntax cannot express, with the
                                                 reason and tinygrad's values (the source for the hand-ported cases)

Usage:  python3 tools/port_symbolic_cases.py [--tinygrad /tmp/tinygrad] [--out tests/symbolic]
z3 and numpy are not needed: the z3 check and test.helpers are stubbed.
"""
import argparse, ast, json, os, sys, types, unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def stub_modules():
  # z3: only the equivalence check uses it; every name resolves to a dummy so annotations evaluate
  class _Any:
    def __init__(self, *a, **k): pass
  z3 = types.ModuleType("z3")
  z3.get_version = lambda: (99, 0, 0, 0)
  z3.__getattr__ = lambda name: _Any
  sys.modules["z3"] = z3
  # test.helpers pulls in numpy and the compiler; the symbolic tests only need get_uops (test_where_cast)
  helpers = types.ModuleType("test.helpers")
  def get_uops(*a, **k): raise unittest.SkipTest("get_uops needs the codegen (stubbed)")
  helpers.get_uops = get_uops
  sys.modules["test.helpers"] = helpers

# ---- the parse_sym syntax, in Python: rebuild a render with tinygrad's UOp operators, literals as UOps ----
def parse_render(text, variables):
  from tinygrad.uop.ops import UOp, Ops
  from tinygrad.dtype import dtypes
  def lit(v): return UOp.const(dtypes.bool if isinstance(v, bool) else dtypes.weakint, v)
  binops = {ast.Add: lambda a, b: a+b, ast.Mult: lambda a, b: a*b, ast.FloorDiv: lambda a, b: a//b, ast.Mod: lambda a, b: a%b,
            ast.LShift: lambda a, b: a<<b, ast.RShift: lambda a, b: a>>b, ast.BitAnd: lambda a, b: a&b,
            ast.BitOr: lambda a, b: a|b, ast.BitXor: lambda a, b: a^b, ast.Sub: lambda a, b: a-b}
  cmps = {ast.Lt: lambda a, b: a<b, ast.LtE: lambda a, b: a<=b, ast.Gt: lambda a, b: a>b, ast.GtE: lambda a, b: a>=b,
          ast.NotEq: lambda a, b: a.ne(b), ast.Eq: lambda a, b: a.eq(b)}
  calls = {"max": lambda a, b: a.maximum(b), "min": lambda a, b: a.minimum(b),
           "cdiv": lambda a, b: a.alu(Ops.CDIV, b), "cmod": lambda a, b: a.alu(Ops.CMOD, b)}
  def go(n):
    if isinstance(n, ast.Constant) and isinstance(n.value, (bool, int)): return lit(n.value)
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
      if isinstance(n.operand, ast.Constant) and type(n.operand.value) is int: return lit(-n.operand.value)
      return -go(n.operand)
    if isinstance(n, ast.Name): return variables[n.id]
    if isinstance(n, ast.BinOp) and type(n.op) in binops: return binops[type(n.op)](go(n.left), go(n.right))
    if isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in cmps:
      return cmps[type(n.ops[0])](go(n.left), go(n.comparators[0]))
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in calls and len(n.args) == 2:
      return calls[n.func.id](go(n.args[0]), go(n.args[1]))
    if isinstance(n, ast.IfExp): return go(n.test).where(go(n.body), go(n.orelse))
    raise ValueError(f"not in the parse_sym syntax: {ast.dump(n)}")
  return go(ast.parse(text, mode="eval").body)

def expressible(u):
  """None if u is a graph parse_sym can rebuild from its render, else the reason."""
  from tinygrad.uop.ops import Ops
  from tinygrad.dtype import dtypes, Invalid
  alu = {Ops.ADD, Ops.MUL, Ops.FLOORDIV, Ops.FLOORMOD, Ops.SHL, Ops.SHR, Ops.AND, Ops.OR, Ops.XOR, Ops.CMPLT, Ops.CMPNE,
         Ops.MAX, Ops.WHERE, Ops.CDIV, Ops.CMOD}
  names = {}
  for x in u.toposort():
    if x.dtype not in (dtypes.weakint, dtypes.bool): return f"dtype {x.dtype} ({x.op})"
    if x.op is Ops.DEFINE_VAR:
      if x.dtype is not dtypes.weakint: return f"variable {x.arg[0]} of dtype {x.dtype}"
      if not all(type(v) is int for v in x.arg[1:]): return f"variable {x.arg[0]} with non-int bounds"
      if names.setdefault(x.arg[0], x) is not x: return f"two variables named {x.arg[0]}"
    elif x.op is Ops.CONST:
      if x.arg is Invalid: return "Invalid"
      if x.src: return "CONST with sources"
    elif x.op not in alu: return f"op {x.op}"
  try:
    if parse_render(u.render(simplify=False), names) is not u: return "render does not round-trip"
  except Exception as e: return f"render does not parse: {e}"
  return None

def variables_of(u):
  from tinygrad.uop.ops import Ops
  return [x.arg for x in u.toposort() if x.op is Ops.DEFINE_VAR]  # in order of first use

def bound(v):
  """an int64 bound (bools as 0/1), or None"""
  if isinstance(v, bool): return int(v)
  if type(v) is int and -2**63 <= v < 2**63: return v
  return None

def jsonable(v):
  if isinstance(v, float): return repr(v)
  return v

def record(tinygrad_dir):
  sys.path.insert(0, tinygrad_dir)
  stub_modules()
  from tinygrad.uop.ops import graph_rewrite
  from tinygrad.uop.symbolic import sym
  import test.null.test_uop_symbolic as T

  cases, bounds, skipped = [], [], []
  current = {"test": None, "expected_failure": False}
  orig_helper = T.TestSymbolic.helper_test_variable

  def helper_test_variable(self, v, n, m, s, test_z3=True):
    r = graph_rewrite(v, sym, name="simplify symbolic uop")
    try:  # does tinygrad's own assertion hold (z3 skipped)?
      orig_helper(self, v, n, m, s, test_z3=False)
      ok = True
    except AssertionError: ok = False
    row = {"test": current["test"], "input": v.render(simplify=False), "expected": r.render(simplify=False),
           "vmin": r.vmin, "vmax": r.vmax, "tinygrad_test_string": s, "tinygrad_test_min": n, "tinygrad_test_max": m,
           "tinygrad_assert_holds": ok, "expected_failure": current["expected_failure"]}
    why = expressible(v)
    if why is None and (bound(r.vmin) is None or bound(r.vmax) is None): why = f"bounds not int64: {r.vmin}, {r.vmax}"
    if why is None:
      row["vars"] = variables_of(v)
      cases.append(row)
    else:
      row["reason"] = why
      row["input_repr"] = repr(v)
      skipped.append({k: jsonable(x) for k, x in row.items()})

  def helper_test_numeric(self, f):
    from tinygrad.uop.ops import UOp
    from tinygrad.dtype import dtypes
    MIN, MAX = 0, 10
    for i in range(MIN, MAX):
      u = f(UOp.const(dtypes.weakint, i))
      r = graph_rewrite(u, sym)
      assert expressible(u) is None, expressible(u)
      cases.append({"test": current["test"], "vars": [], "input": u.render(simplify=False), "expected": r.render(simplify=False),
                    "vmin": r.vmin, "vmax": r.vmax, "tinygrad_assert_holds": r.vmin == r.vmax == f(i), "expected_failure": False})
    for kmin in range(MIN, MAX):
      for kmax in range(kmin, MAX):
        u = f(UOp.variable("tmp", kmin, kmax))
        values = [f(rv) for rv in range(kmin, kmax+1)]
        assert expressible(u) is None, expressible(u)
        bounds.append({"test": current["test"], "vars": [("tmp", kmin, kmax)], "input": u.render(simplify=False),
                       "vmin": u.vmin, "vmax": u.vmax, "lo": min(values), "hi": max(values),
                       "tinygrad_assert_holds": u.vmin <= min(values) and u.vmax >= max(values)})

  T.TestSymbolic.helper_test_variable = helper_test_variable
  T.TestSymbolicNumeric.helper_test_numeric = helper_test_numeric

  errors = []
  for cls in (T.TestSymbolic, T.TestSymbolicNumeric):
    for name in sorted(n for n in dir(cls) if n.startswith("test_")):
      meth = getattr(cls, name)
      current["test"] = f"{cls.__name__}.{name}"
      current["expected_failure"] = getattr(meth, "__unittest_expecting_failure__", False)
      if getattr(meth, "__unittest_skip__", False): continue
      try: meth(cls(name))
      except unittest.SkipTest: pass
      except Exception as e: errors.append((current["test"], f"{type(e).__name__}: {e}"))
  return cases, bounds, skipped, errors

def c_str(s): return json.dumps(s)

def c_vars(vs): return "{" + ", ".join(f"{{{c_str(n)}, {lo}, {hi}}}" for n, lo, hi in vs) + "}"

def header(what, cmd):
  return (f"// GENERATED by tools/port_symbolic_cases.py from tinygrad's test/null/test_uop_symbolic.py: do not edit.\n"
          f"// Regenerate: {cmd}\n// {what}\n")

def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--tinygrad", default="/tmp/tinygrad", help="tinygrad source tree (the reference)")
  ap.add_argument("--out", default=os.path.join(ROOT, "tests", "symbolic"))
  args = ap.parse_args()
  cases, bounds, skipped, errors = record(os.path.abspath(args.tinygrad))
  cmd = "python3 tools/port_symbolic_cases.py --tinygrad /tmp/tinygrad"

  def note(c):
    n = c["test"]
    if c.get("expected_failure"): n += " [expectedFailure in tinygrad: as tinygrad computes it]"
    elif not c["tinygrad_assert_holds"]: n += " [tinygrad's own assertion fails: as tinygrad computes it]"
    return n

  with open(os.path.join(args.out, "tinygrad_symbolic_cases.inc"), "w") as f:
    f.write(header("Rows: {tinygrad test, {{var, min, max}...}, input render, graph_rewrite(input, sym) rendered, its vmin, its vmax}."
                   " Renders are render(simplify=False).", cmd))
    for c in cases:
      f.write(f"{{{c_str(note(c))}, {c_vars(c['vars'])}, {c_str(c['input'])}, {c_str(c['expected'])}, "
              f"{bound(c['vmin'])}, {bound(c['vmax'])}}},\n")
  with open(os.path.join(args.out, "tinygrad_symbolic_bounds.inc"), "w") as f:
    f.write(header("Rows: {tinygrad test, {{var, min, max}...}, input render, input vmin, input vmax, lowest value, highest value}"
                   " (TestSymbolicNumeric: bounds of the unsimplified input).", cmd))
    for b in bounds:
      f.write(f"{{{c_str(b['test'])}, {c_vars(b['vars'])}, {c_str(b['input'])}, {bound(b['vmin'])}, {bound(b['vmax'])}, "
              f"{b['lo']}, {b['hi']}}},\n")
  with open(os.path.join(args.out, "tinygrad_symbolic_skipped.jsonl"), "w") as f:
    for s in skipped: f.write(json.dumps(s, default=str) + "\n")
    for t, e in errors: f.write(json.dumps({"test": t, "reason": "the test method raised", "error": e}) + "\n")
  print(f"{len(cases)} cases, {len(bounds)} bound cases, {len(skipped)} skipped, {len(errors)} methods raised", file=sys.stderr)
  for t, e in errors: print(f"  {t}: {e}", file=sys.stderr)

if __name__ == "__main__":
  main()
