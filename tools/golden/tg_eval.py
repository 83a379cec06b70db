import math, sys
from tinygrad.uop.ops import UOp, Ops, exec_alu, bitcast, GroupOp
from tinygrad.dtype import dtypes, truncate
def ev(root):
  vals = {}
  for u in root.toposort():
    # metagrad's normalize_const rounds float16 constants when they are made; tinygrad's dtype.const keeps the
    # Python float (rounding happens only in ALU results). Golden values follow metagrad's constants.
    if u.op is Ops.CONST: vals[u] = (truncate[u.dtype.scalar()](float(u.arg)) if u.dtype.scalar() == dtypes.float16 else float(u.arg)) if dtypes.is_float(u.dtype) else u.arg
    elif u.op is Ops.CAST: vals[u] = truncate.get(u.dtype, lambda x: x)(u.dtype.const(vals[u.src[0]]))
    elif u.op is Ops.BITCAST: vals[u] = bitcast(vals[u.src[0]], u.src[0].dtype, u.dtype)
    elif u.op in GroupOp.ALU: vals[u] = exec_alu(u.op, u.dtype, [vals[s] for s in u.src])
    else: raise RuntimeError(u.op)
  return vals[root]
