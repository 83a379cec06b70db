# prints C++ golden tables: tinygrad's own decompositions, evaluated with tinygrad's python-backend semantics
import math, struct
from tg_eval import ev
from tinygrad.uop.ops import UOp, graph_rewrite
from tinygrad.dtype import dtypes, truncate
from tinygrad.uop.decompositions import xexp2, xlog2, xsin, xpow, get_transcendental_patterns

def bits(dt, x):
  if dt == dtypes.float64: return struct.unpack('<Q', struct.pack('<d', x))[0]
  if dt == dtypes.float32: return struct.unpack('<I', struct.pack('<f', x))[0]
  return struct.unpack('<H', struct.pack('<e', x))[0]
def canon(dt, x): return truncate[dt](x)
inf, nan = math.inf, math.nan
name = {dtypes.float16: "float16", dtypes.float32: "float32", dtypes.float64: "float64"}
tiny = {dtypes.float16: 2**-24, dtypes.float32: 2**-149, dtypes.float64: 2**-1074}
big = {dtypes.float16: 65504.0, dtypes.float32: 3.4028234663852886e38, dtypes.float64: 1.7976931348623157e308}
def inputs_exp(dt):
  L = [0.0, -0.0, tiny[dt], -tiny[dt], 1.0, -1.0, 0.5, 1.5, -2.75, 3.3, 10.1, -10.1, inf, -inf, nan]
  if dt == dtypes.float16: L += [15.9, 16.0, 23.0, -14.5, -20.3, -22.0, -22.5, -24.0, 7.77]
  if dt == dtypes.float32: L += [127.99, 128.0, 129.0, -126.5, -140.2, -149.0, -150.0, -151.0, 88.7, 1e-30, 33.3]
  if dt == dtypes.float64: L += [1023.9, 1024.0, -1022.5, -1070.3, -1074.0, -1075.0, -2001.0, 709.5, 1e-300, 333.3]
  return L
def inputs_log(dt):
  L = [0.0, -0.0, tiny[dt], tiny[dt]*3, 1.0, 2.0, 0.5, 0.75, 1.3, 3.0, 10.0, 1000.0, big[dt], -1.0, -tiny[dt], inf, -inf, nan, 0.0000009]
  if dt == dtypes.float16: L += [6e-5, 1e-4, 1e-5, 6.1e-5, 0.1, 60000.0]
  if dt == dtypes.float32: L += [1e-40, 1e-38, 1e-4, 9.9e-5, 1e10, 1e30, 1.0000001]
  if dt == dtypes.float64: L += [1e-310, 1e-300, 1e-4, 9.9e-5, 1e100, 1e300, 1.0000000000000002]
  return L
def inputs_sin(dt):
  L = [0.0, -0.0, tiny[dt], 1e-3, 0.5, -0.5, 1.0, math.pi/4, math.pi/2, math.pi, 2*math.pi, -3.0, 25.0, -25.0, 29.9, 30.0, 30.1, 35.0, -35.0,
       100.0, 1000.0, -1234.5, inf, -inf, nan]
  if dt == dtypes.float16: L += [65504.0, 40000.0, 12345.0]
  if dt == dtypes.float32: L += [39800.0, 1e5, 1e10, -1e10, 1e20, 1e30, -1e30, 3.4e38]
  if dt == dtypes.float64: L += [39800.0, 1e5, 1e8, -1e8, 1e10, 1e30, 1e300]
  return L
pow_inputs = [(2.0, 3.0), (2.0, 0.5), (10.0, -2.0), (0.5, 7.0), (3.7, 1.3), (-2.0, 3.0), (-2.0, 2.0), (-2.0, 0.5), (0.0, 0.0), (0.0, 2.0),
              (0.0, -1.0), (-0.0, 3.0), (inf, 2.0), (nan, 1.0), (5.0, 0.0), (-3.0, -3.0), (100.0, 0.25)]

def emit(fn_name, dt, f, L):
  print(f"// {fn_name} {name[dt]}")
  print(f"inline const std::vector<Golden> golden_{fn_name}_{name[dt]}{{")
  for x in L:
    x = canon(dt, x)
    y = canon(dt, ev(f(UOp.const(dt, x))))
    print(f"    {{0x{bits(dt, x):x}, 0x{bits(dt, y):x}}},  // {x!r} -> {y!r}")
  print("};")
def emit_pow(dt):
  print(f"inline const std::vector<Golden2> golden_xpow_{name[dt]}{{")
  pm = get_transcendental_patterns((), True)
  for b, e in pow_inputs:
    b, e = canon(dt, b), canon(dt, e)
    y = canon(dt, ev(graph_rewrite(xpow(UOp.const(dt, b), UOp.const(dt, e)), pm)))
    print(f"    {{0x{bits(dt, b):x}, 0x{bits(dt, e):x}, 0x{bits(dt, y):x}}},  // {b!r} ** {e!r} -> {y!r}")
  print("};")

if __name__ == "__main__":
 for dt in (dtypes.float16, dtypes.float32, dtypes.float64):
  emit("xexp2", dt, xexp2, inputs_exp(dt))
  emit("xlog2", dt, xlog2, inputs_log(dt))
  emit("xsin", dt, xsin, inputs_sin(dt))
  emit("xsin_fast", dt, lambda d: xsin(d, fast=True), [x for x in inputs_sin(dt) if not (abs(x) > 1000)])
  emit_pow(dt)
