#pragma once
// Target: what codegen needs to know about the backend it lowers for (tinygrad's Renderer fields that
// codegen reads): which ALU ops the backend renders (the rest are decomposed), how many threads a CPU
// kernel may be split over (tinygrad's THREAD opt + core_id), and which dtypes it has natively.
#include <cstdint>
#include <string>

#include "../core/dtype.hpp"
#include "../core/ops.hpp"

namespace mg {

class UOp;

struct Target {
  std::string device = "INTERP";
  // the ALU ops the backend renders (tinygrad's code_for_op keys); FLOORDIV/FLOORMOD are always lowered
  OpSet ops = GroupOp::ALU - OpSet{Ops::THREEFRY, Ops::FDIV};
  // CPU: the most threads the outermost LOOP range may be split over (1 = never split)
  std::int64_t threads = 1;
  // tinygrad's heuristic: split only when the kernel has at least this many elements per thread
  std::int64_t min_work_per_thread = std::int64_t(128) << 10;
  // tinygrad's Renderer.supported_dtypes(): the dtypes the backend computes in natively. An fp8 it lacks
  // (the LLVM renderer's) is emulated by codegen (do_dtype_decomps: stored as its byte, computed in
  // float32); a missing float16 or bfloat16 is not emulated: to_program throws naming the first uop of it
  DTypeSet supported_dtypes = DTypeSet::all();
  // tinygrad's DISABLE_FAST_IDIV: keep integer division by a constant as CDIV instead of a multiply-shift
  bool disable_fast_idiv = false;
  // tinygrad's NOOPT: no hand-coded optimizations (the THREAD split included); env NOOPT=1 also turns them off
  bool noopt = false;
  // tinygrad's Renderer.has_local: LOCAL/GROUP opts (no backend here has them; the CPU heuristic runs without)
  bool has_local = false;
  // tinygrad's supports_float4: contiguous float/half lanes load and store as float4/float2 vectors
  bool supports_float4 = true;
  // the widest float vector a load or store folds into where supports_float4 holds: tinygrad's 4 (float4), or
  // 8 on a CPU with 256-bit vectors (AVX2), so lanes along an axis of 8 or more load as one ymm register
  int float_lanes = 4;
  // vector loads and stores need not be aligned to the vector (a CPU: LLVM's renderer gives each access its
  // element's alignment, x86 loads unaligned vectors at full speed): float4/float2 fold wherever lanes are
  // consecutive, not only where the offset divides the width (conv taps at odd offsets); the heuristic then
  // upcasts output axes by 4 lanes before 3 (tinygrad tries 3 first), so those lanes fold into float4
  bool unaligned_vectors = false;
  // each lane of a vector load may have its own gate (LLVM's llvm.masked.load; INTERP reads gates per lane
  // too): gated lanes of one buffer at consecutive offsets load as one vector instead of one scalar each
  bool masked_loads = false;
  // metagrad's register blocking in the heuristic (a CPU with 16 vector registers): after tinygrad's upcasts,
  // one more output axis of a reduce by 2 where a buffer stays put along it (a convolution's weights along y)
  bool register_blocking = false;
  // metagrad's partial sums: a reduce loop whose input has unrolled lanes (an UNROLL opt) keeps an accumulator
  // per lane, up to this many lanes in all, and adds them across after the loop (a CPU: the unrolled loads
  // then feed vector FMAs instead of a scalar chain per output). 0: tinygrad's, the lanes are added every
  // iteration
  std::int64_t partial_sums = 0;
  // metagrad's loop order for caches (a CPU): a reduce's LOOP axis along which every input moves (the group
  // axis of a split reduce, tinygrad's split_reduceop) runs outermost, so the loops inside it read one slice
  // of each input, which stays in cache, instead of the whole of them once per output tile
  bool inputs_axis_outermost = false;
  // tinygrad's Renderer.extra_matcher: the backend's own rewrite of the kernel, run as its own pass after the final rewrite
  // (the LLVM renderer computes bfloat16 in float32 and converts by hand: a CPU without native bfloat16
  // would call compiler-rt's __truncsfbf2, which the JIT does not have). Null: none.
  UOp (*extra_matcher)(const UOp&) = nullptr;
};

// tinygrad's PythonRenderer renders every op of python_alu: the INTERP device's target
template <class = void> Target interp_target() { return Target{}; }

}  // namespace mg
