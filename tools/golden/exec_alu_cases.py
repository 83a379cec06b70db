import math, sys
sys.path.insert(0, __import__('os').environ.get('TINYGRAD_PATH', '/tmp/tinygrad'))
from tinygrad.uop.ops import exec_alu, Ops
from tinygrad.dtype import dtypes, Invalid
d = dtypes
M63, M64 = 2**63, 2**64
cases = []
def c(op, dt, operands, od=None, trunc=True): cases.append((op, dt, operands, od if od is not None else dt, trunc))

# wraparound in every int width
c(Ops.ADD, d.int8, [100, 100]); c(Ops.ADD, d.int8, [-100, -100]); c(Ops.SUB, d.uint8, [0, 1]); c(Ops.ADD, d.uint8, [200, 100])
c(Ops.ADD, d.int16, [30000, 30000]); c(Ops.ADD, d.uint16, [60000, 6000]); c(Ops.ADD, d.int32, [2**31-1, 1])
c(Ops.SUB, d.uint32, [0, 1]); c(Ops.ADD, d.int64, [M63-1, 1]); c(Ops.ADD, d.uint64, [M64-1, 1]); c(Ops.SUB, d.uint64, [0, 1])
c(Ops.MUL, d.int32, [65536, 65536]); c(Ops.MUL, d.int64, [2**62, 4]); c(Ops.MUL, d.uint64, [M64-1, M64-1])
c(Ops.MUL, d.int64, [-M63, -1]); c(Ops.MUL, d.uint64, [2**32+1, 2**32-1]); c(Ops.MUL, d.int16, [-300, 300])
c(Ops.NEG, d.int8, [-128]); c(Ops.NEG, d.uint32, [1]); c(Ops.NEG, d.uint64, [5]); c(Ops.NEG, d.int64, [-M63])
c(Ops.XOR, d.uint8, [0xF0, 0xFF]); c(Ops.XOR, d.int32, [-1, 5]); c(Ops.OR, d.uint64, [M63, 1]); c(Ops.AND, d.uint64, [M64-1, M63])
c(Ops.AND, d.int16, [-1, 0x1234]); c(Ops.XOR, d.uint64, [M64-1, 0])
# weakint: exact, None past int64
c(Ops.ADD, d.weakint, [M63-1, 1]); c(Ops.SUB, d.weakint, [-M63, 1]); c(Ops.NEG, d.weakint, [-M63]); c(Ops.MUL, d.weakint, [2**31, 2**31])
c(Ops.MUL, d.weakint, [-2**62, 2]); c(Ops.MUL, d.weakint, [2**62, 2]); c(Ops.MUL, d.weakint, [M63-1, M63-1]); c(Ops.SUB, d.weakint, [-M63+1, 1])
c(Ops.MULACC, d.weakint, [2**62, 4, -M63]); c(Ops.MULACC, d.weakint, [2**62, 2, -2**62]); c(Ops.MULACC, d.int8, [100, 2, 100])
c(Ops.MULACC, d.float32, [0.1, 0.2, 0.3]); c(Ops.MULACC, d.float64, [0.1, 0.2, 0.3]); c(Ops.MULACC, d.uint64, [M64-1, M64-1, 5])
# shifts
c(Ops.SHL, d.int8, [1, 7]); c(Ops.SHL, d.uint8, [255, 1]); c(Ops.SHL, d.int32, [1, 31]); c(Ops.SHL, d.int32, [1, 40])
c(Ops.SHL, d.int64, [1, 63]); c(Ops.SHL, d.uint64, [1, 63]); c(Ops.SHL, d.uint64, [3, 200]); c(Ops.SHL, d.int16, [-1, 15])
c(Ops.SHR, d.int32, [-8, 1]); c(Ops.SHR, d.int32, [-7, 1]); c(Ops.SHR, d.uint32, [2**32-1, 4]); c(Ops.SHR, d.uint64, [M64-1, 60])
c(Ops.SHR, d.int64, [-1, 100]); c(Ops.SHR, d.int64, [-M63, 63]); c(Ops.SHR, d.uint64, [M63, 63])
c(Ops.SHL, d.weakint, [1, 62]); c(Ops.SHL, d.weakint, [-1, 63]); c(Ops.SHL, d.weakint, [1, 63]); c(Ops.SHL, d.weakint, [1, 200])
c(Ops.SHL, d.weakint, [0, 500]); c(Ops.SHR, d.weakint, [5, 200]); c(Ops.SHR, d.weakint, [-5, 200])
# division and modulo, every sign, and by zero (tinygrad's floordiv/cdiv give 0 there)
for x, y in [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (0, 3), (7, 0), (-7, 0), (0, 0)]:
  for op in (Ops.FLOORDIV, Ops.FLOORMOD, Ops.CDIV, Ops.CMOD): c(op, d.int32, [x, y])
c(Ops.FLOORDIV, d.int32, [-2**31, -1]); c(Ops.CDIV, d.int32, [-2**31, -1]); c(Ops.FLOORDIV, d.weakint, [-M63, -1])
c(Ops.FLOORMOD, d.weakint, [-M63, -1]); c(Ops.FLOORDIV, d.uint64, [M64-1, 2]); c(Ops.FLOORMOD, d.uint64, [M64-1, 10])
c(Ops.CDIV, d.uint64, [M64-1, 3]); c(Ops.CDIV, d.uint64, [M64-1, M64-1]); c(Ops.CMOD, d.uint64, [M64-2, M64-1]); c(Ops.CDIV, d.uint64, [M64-1, M63+1]); c(Ops.CMOD, d.int8, [-128, 3]); c(Ops.FLOORMOD, d.int8, [-128, 3]); c(Ops.FLOORDIV, d.weakint, [-M63, 7])
for x, y in [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-7.5, -2.0), (7.5, 0.0), (-0.0, 0.0), (math.inf, 2.0), (-1.0, math.inf), (1.0, math.inf),
             (1.0, math.nan), (0.0, -1.0), (-0.0, 1.0), (1e300, 1e-300), (0.3, 0.1)]:
  for op in (Ops.FLOORDIV, Ops.FLOORMOD, Ops.CDIV, Ops.CMOD): c(op, d.float64, [x, y])
c(Ops.FLOORDIV, d.float32, [1e10, 3.0]); c(Ops.FLOORMOD, d.float32, [-1e-3, 1.0]); c(Ops.FLOORMOD, d.float16, [-1e-3, 1.0])
# float32 rounding vs float64, float16, bfloat16, fp8
c(Ops.ADD, d.float32, [0.1, 0.2]); c(Ops.ADD, d.float64, [0.1, 0.2]); c(Ops.MUL, d.float32, [1e20, 1e20]); c(Ops.MUL, d.float64, [1e20, 1e20])
c(Ops.ADD, d.float32, [16777216.0, 1.0]); c(Ops.ADD, d.float32, [3.4e38, 3.4e38]); c(Ops.MUL, d.float32, [1e-30, 1e-20])
c(Ops.SUB, d.float32, [1.0, 1e-8]); c(Ops.ADD, d.float16, [0.1, 0.2]); c(Ops.ADD, d.float16, [65504.0, 16.0]); c(Ops.ADD, d.float16, [65504.0, 8.0])
c(Ops.MUL, d.float16, [1e-4, 1e-4]); c(Ops.MUL, d.float16, [-300.0, 300.0]); c(Ops.ADD, d.bfloat16, [1.0, 0.001]); c(Ops.ADD, d.bfloat16, [1.0, 0.00390625])
c(Ops.MUL, d.bfloat16, [3.0e38, 2.0]); c(Ops.ADD, d.fp8e4m3, [1.0, 0.06]); c(Ops.MUL, d.fp8e4m3, [100.0, 10.0]); c(Ops.MUL, d.fp8e5m2, [3.0, 5.0])
c(Ops.MUL, d.fp8e5m2, [1e5, 1.0]); c(Ops.ADD, d.fp8e4m3, [math.nan, 1.0])
# bool ops: Python's bool arithmetic gives ints, then bool()
c(Ops.ADD, d.bool, [True, True]); c(Ops.ADD, d.bool, [True, True], trunc=False); c(Ops.ADD, d.bool, [False, False]); c(Ops.MUL, d.bool, [True, False])
c(Ops.SUB, d.bool, [False, True]); c(Ops.SUB, d.bool, [True, True]); c(Ops.NEG, d.bool, [True]); c(Ops.NEG, d.bool, [True], trunc=False)
c(Ops.XOR, d.bool, [True, True]); c(Ops.XOR, d.bool, [True, False], trunc=False); c(Ops.OR, d.bool, [False, True]); c(Ops.AND, d.bool, [True, False])
c(Ops.MAX, d.bool, [False, True]); c(Ops.CMPNE, d.bool, [True, False]); c(Ops.CMPLT, d.bool, [False, True]); c(Ops.CMPEQ, d.bool, [True, True])
c(Ops.MULACC, d.bool, [True, True, True]); c(Ops.MULACC, d.bool, [True, True, True], trunc=False); c(Ops.SHL, d.bool, [True, True], trunc=False)
# comparisons
c(Ops.CMPLT, d.bool, [-1, 0], d.int32); c(Ops.CMPLT, d.bool, [2**32-1, 0], d.uint32); c(Ops.CMPLT, d.bool, [M64-1, 0], d.uint64)
c(Ops.CMPLT, d.bool, [0, M64-1], d.uint64); c(Ops.CMPLT, d.bool, [-1, 0], d.int64); c(Ops.CMPNE, d.bool, [M64-1, M64-1], d.uint64)
c(Ops.CMPEQ, d.bool, [5, 5], d.weakint); c(Ops.CMPLT, d.bool, [math.nan, 1.0], d.float32); c(Ops.CMPLT, d.bool, [1.0, math.nan], d.float32)
c(Ops.CMPNE, d.bool, [math.nan, math.nan], d.float32); c(Ops.CMPEQ, d.bool, [math.nan, math.nan], d.float32); c(Ops.CMPEQ, d.bool, [0.0, -0.0], d.float64)
c(Ops.CMPLT, d.bool, [-math.inf, math.inf], d.float64); c(Ops.CMPLT, d.bool, [-0.0, 0.0], d.float64)
# MAX
c(Ops.MAX, d.int32, [3, 5]); c(Ops.MAX, d.int32, [-3, -5]); c(Ops.MAX, d.float64, [math.nan, 1.0]); c(Ops.MAX, d.float64, [1.0, math.nan])
c(Ops.MAX, d.float64, [0.0, -0.0]); c(Ops.MAX, d.float64, [-0.0, 0.0]); c(Ops.MAX, d.uint64, [M64-1, 1]); c(Ops.MAX, d.int64, [-M63, M63-1])
c(Ops.MAX, d.weakint, [-5, -7]); c(Ops.MAX, d.float32, [-math.inf, -1e39])
# WHERE
c(Ops.WHERE, d.int32, [True, 1, 2]); c(Ops.WHERE, d.int32, [False, 1, 2]); c(Ops.WHERE, d.float32, [True, 1.5, 2.5])
c(Ops.WHERE, d.uint64, [False, 1, M64-1]); c(Ops.WHERE, d.weakint, [True, Invalid, 3]); c(Ops.WHERE, d.weakint, [False, Invalid, 3])
c(Ops.WHERE, d.weakint, [False, 1, Invalid]); c(Ops.WHERE, d.float32, [False, 0.1, 0.2], d.float64)
# vectors: elementwise, a scalar broadcast; tinygrad truncates the elements even with truncate_output=False
c(Ops.ADD, d.int8.vec(2), [(100, 1), (100, 2)]); c(Ops.MUL, d.float32.vec(2), [(1.0, 2.0), 3.0]); c(Ops.ADD, d.int8.vec(2), [(100, 0), (100, 0)], trunc=False)
c(Ops.CMPLT, d.bool.vec(3), [(1, 2, 3), 2], d.int32.vec(3)); c(Ops.WHERE, d.float32.vec(2), [(True, False), (1.0, 2.0), (3.0, 4.0)])
c(Ops.ADD, d.weakint.vec(2), [(1, Invalid), 2]); c(Ops.NEG, d.uint8.vec(4), [(0, 1, 2, 255)]); c(Ops.MULACC, d.float16.vec(2), [(0.1, 0.2), 3.0, (1.0, 2.0)])
c(Ops.MUL, d.weakint.vec(2), [(2**62, 1), 4])
# Invalid
c(Ops.ADD, d.weakint, [Invalid, 3]); c(Ops.MUL, d.weakint, [3, Invalid]); c(Ops.FLOORDIV, d.weakint, [Invalid, 0]); c(Ops.MAX, d.weakint, [Invalid, 3])
c(Ops.CMPLT, d.bool, [Invalid, 3], d.weakint); c(Ops.CMPLT, d.bool, [3, Invalid], d.weakint); c(Ops.CMPLT, d.bool, [Invalid, Invalid], d.weakint)
c(Ops.CMPNE, d.bool, [Invalid, 3], d.weakint); c(Ops.CMPNE, d.bool, [Invalid, Invalid], d.weakint); c(Ops.CMPEQ, d.bool, [Invalid, Invalid], d.weakint)
c(Ops.CMPEQ, d.bool, [3, Invalid], d.weakint)
# transcendentals and their edges
for x in [8.0, 10.0, 0.0, -0.0, -1.0, math.inf, math.nan, 5e-324]: c(Ops.LOG2, d.float64, [x])
c(Ops.LOG2, d.float32, [10.0]); c(Ops.LOG2, d.float16, [10.0]); c(Ops.LOG2, d.weakint, [8]); c(Ops.LOG2, d.weakint, [0])
for x in [4.0, 2.0, -1.0, -0.0, math.inf, -math.inf, math.nan]: c(Ops.SQRT, d.float64, [x])
c(Ops.SQRT, d.float32, [2.0]); c(Ops.SQRT, d.bfloat16, [2.0])
for x in [10.0, 0.5, 1024.0, 1023.5, -1074.0, -1075.0, -math.inf, math.inf, math.nan]: c(Ops.EXP2, d.float64, [x])
c(Ops.EXP2, d.float32, [0.5]); c(Ops.EXP2, d.float32, [128.0]); c(Ops.EXP2, d.float16, [16.0]); c(Ops.EXP2, d.weakint, [10]); c(Ops.EXP2, d.weakint, [-1])
c(Ops.EXP2, d.weakint, [62]); c(Ops.EXP2, d.weakint, [63]); c(Ops.EXP2, d.int32, [40]); c(Ops.EXP2, d.int32, [31]); c(Ops.EXP2, d.uint64, [63])
for x in [0.0, -0.0, 1.0, 1e6, 1e22, math.inf, -math.inf, math.nan]: c(Ops.SIN, d.float64, [x])
c(Ops.SIN, d.float32, [1.0]); c(Ops.SIN, d.weakint, [3])
for x in [4.0, 3.0, 0.0, -0.0, math.inf, -math.inf, math.nan, 1e-310]: c(Ops.RECIPROCAL, d.float64, [x])
c(Ops.RECIPROCAL, d.float32, [3.0]); c(Ops.RECIPROCAL, d.float16, [3.0]); c(Ops.RECIPROCAL, d.weakint, [0]); c(Ops.RECIPROCAL, d.weakint, [3])
c(Ops.RECIPROCAL, d.weakint, [-(2**60)-1]); c(Ops.RECIPROCAL, d.weakint, [-6657496813293956804]); c(Ops.RECIPROCAL, d.weakint, [M64-1], d.uint64); c(Ops.RECIPROCAL, d.float32, [1e-45])
for x, y in [(2.0, 0.5), (0.0, -1.0), (-0.0, -1.0), (-0.0, -3.0), (-8.0, 1/3), (-2.0, 3.0), (-2.0, 2.0), (math.nan, 0.0), (1.0, math.nan),
             (0.0, -math.inf), (-math.inf, 0.5), (-math.inf, 3.0), (-math.inf, -3.0), (2.0, -1074.0), (-1.0, math.inf), (0.5, math.inf),
             (0.0, 0.0), (-0.0, 3.0), (10.0, 0.5)]:
  c(Ops.POW, d.float64, [x, y])
c(Ops.POW, d.float32, [10.0, 0.3]); c(Ops.POW, d.float32, [10.0, 39.0]); c(Ops.POW, d.int32, [3, 50]); c(Ops.POW, d.int64, [3, 1000])
c(Ops.POW, d.uint64, [7, 100]); c(Ops.POW, d.weakint, [2, -1]); c(Ops.POW, d.weakint, [0, -1]); c(Ops.POW, d.weakint, [3, 39])
c(Ops.POW, d.weakint, [3, 40]); c(Ops.POW, d.weakint, [-2, 63]); c(Ops.POW, d.weakint, [2, 63]); c(Ops.POW, d.weakint, [-1, M63-1])
c(Ops.POW, d.weakint, [1, M63-1]); c(Ops.POW, d.weakint, [0, 0]); c(Ops.POW, d.int8, [0, M63-1]); c(Ops.POW, d.uint64, [2**32, 2])
for x in [2.7, -2.7, 0.5, -0.5, 1e300, 4503599627370497.0]: c(Ops.TRUNC, d.float64, [x])
c(Ops.TRUNC, d.float32, [2.7]); c(Ops.TRUNC, d.weakint, [5]); c(Ops.TRUNC, d.int8, [-5])
# truncate_output=False: Python's value as it is
c(Ops.ADD, d.int8, [100, 100], trunc=False); c(Ops.ADD, d.uint64, [M64-1, 1], trunc=False); c(Ops.SUB, d.uint64, [0, 1], trunc=False)
c(Ops.ADD, d.uint64, [M63, 1], trunc=False); c(Ops.MUL, d.float32, [0.1, 0.1], trunc=False); c(Ops.FLOORDIV, d.int32, [7, 2], trunc=False)
c(Ops.CMPLT, d.bool, [1, 2], d.int32, trunc=False); c(Ops.ADD, d.float16, [0.1, 0.2], trunc=False); c(Ops.POW, d.int32, [2, -1], trunc=False)
c(Ops.MUL, d.int64, [2**62, 4], trunc=False)
# errors: Python rejects these
c(Ops.AND, d.float32, [1.0, 2.0]); c(Ops.XOR, d.float64, [1.0, 2.0]); c(Ops.SHL, d.int32, [1, -1]); c(Ops.SHR, d.weakint, [1, -1])
c(Ops.SHL, d.float32, [1.0, 2.0]); c(Ops.NEG, d.weakint, [Invalid]); c(Ops.ADD, d.int32, [Invalid, 3]); c(Ops.POW, d.int32, [2, -1])
c(Ops.POW, d.int32, [0, -1]); c(Ops.WHERE, d.int32, [True, Invalid, 3]); c(Ops.THREEFRY, d.uint64, [1, 2]); c(Ops.FDIV, d.float32, [1.0, 2.0])
c(Ops.MULACC, d.weakint, [Invalid, 2, 3]); c(Ops.RECIPROCAL, d.int32, [3])

def dtn(dt):
  names = {'bool':'bool_', 'char':'int8', 'uchar':'uint8', 'short':'int16', 'ushort':'uint16', 'int':'int32', 'uint':'uint32', 'long':'int64',
           'ulong':'uint64', 'half':'float16', 'float':'float32', 'double':'float64', 'bfloat16':'bfloat16', 'fp8e4m3':'fp8e4m3',
           'fp8e5m2':'fp8e5m2', 'weakint':'weakint'}
  s = dt.scalar()
  key = [k for k in names if getattr(dtypes, k) == s][0]
  return f"dtypes::{names[key]}" + (f".vec({dt.count})" if dt.count > 1 else "")
def arg(v):
  if v is Invalid: return "INV"
  if isinstance(v, tuple): return "T({" + ", ".join(arg(x) for x in v) + "})"
  if isinstance(v, bool): return "B(true)" if v else "B(false)"
  if isinstance(v, int):
    if v == -M63: return "I(INT64_MIN)"
    if v >= M63: return f"U({v}ull)"
    return f"I({v})"
  if math.isnan(v): return "F(NAN_)"
  if math.isinf(v): return "F(INF)" if v > 0 else "F(-INF)"
  return f"F({v!r})"
def expect(op, dt, ops, trunc):
  try: r = exec_alu(op, dt, ops, trunc)
  except Exception as e: return "Error"
  def fix(x):
    if isinstance(x, int) and not isinstance(x, bool) and not (-M63 <= x < (M64 if dt.scalar() == dtypes.uint64 else M63)): return None
    return x
  if isinstance(r, tuple):
    r = tuple(fix(x) for x in r)
    if None in r: return "None"
    return repr(r)
  r = fix(r)
  return "None" if r is None else repr(r)
opn = lambda op: "Ops::" + op.name
for op, dt, ops, od, trunc in cases:
  e = expect(op, dt, ops, trunc)
  print(f'    {{{opn(op)}, {dtn(dt)}, {{{", ".join(arg(x) for x in ops)}}}, {dtn(od)}, {"true" if trunc else "false"}, "{e}"}},')
