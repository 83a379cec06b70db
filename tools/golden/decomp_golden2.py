# C++ golden tables for tests/symbolic/test_decompositions.cpp: tinygrad's decompositions evaluated with
# tinygrad's python-backend semantics (exec_alu/truncate for ALU ops, PYTHON backend CAST/BITCAST)
import math, struct, sys
sys.path.insert(0, __import__("os").path.dirname(__file__))
from decomp_golden import bits, canon, inputs_exp, inputs_log, inputs_sin, pow_inputs, name, ev
from tinygrad.uop.ops import UOp, graph_rewrite
from tinygrad.dtype import dtypes
from tinygrad.uop.decompositions import xexp2, xlog2, xsin, xpow, get_transcendental_patterns

def rows(items, per=4):
  out = []
  for i in range(0, len(items), per): out.append("      " + " ".join(items[i:i+per]))
  return "\n".join(out)
print("const std::vector<GoldenTable> golden_unary{")
for dt in (dtypes.float16, dtypes.float32, dtypes.float64):
  for fn, f, L in (("xexp2", xexp2, inputs_exp(dt)), ("xlog2", xlog2, inputs_log(dt)), ("xsin", xsin, inputs_sin(dt)),
                   ("xsin_fast", lambda d: xsin(d, fast=True), [x for x in inputs_sin(dt) if not abs(x) > 1000])):
    items = []
    for x in L:
      x = canon(dt, x); y = canon(dt, ev(f(UOp.const(dt, x))))
      items.append(f"{{0x{bits(dt, x):x}, 0x{bits(dt, y):x}}},")
    print(f'    {{"{fn}", dtypes::{name[dt]}, {{\n{rows(items, 2 if dt == dtypes.float64 else 4)}\n    }}}},')
print("};")
print("const std::vector<GoldenPow> golden_pow{")
pm = get_transcendental_patterns((), True)
for dt in (dtypes.float16, dtypes.float32, dtypes.float64):
  items = []
  for b, e in pow_inputs:
    b, e = canon(dt, b), canon(dt, e)
    y = canon(dt, ev(graph_rewrite(xpow(UOp.const(dt, b), UOp.const(dt, e)), pm)))
    items.append(f"{{0x{bits(dt, b):x}, 0x{bits(dt, e):x}, 0x{bits(dt, y):x}}},")
  print(f'    {{dtypes::{name[dt]}, {{\n{rows(items, 2 if dt == dtypes.float64 else 3)}\n    }}}},')
print("};")
