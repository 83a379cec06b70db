#pragma once
// A Program: one kernel after codegen, as the list of linear UOps every backend consumes (tinygrad's
// ProgramInfo with the LINEAR source). The uops are in execution order and every uop's sources come
// before it; RANGE ... END bracket loops, IF ... ENDIF bracket gated stores, and the last uop is the
// SINK. This is the contract between codegen/ (which makes it), render/ (which turns it into LLVM IR)
// and runtime/ (INTERP runs it directly).
//
// Calling convention, the same for every backend:
//   bufs[i] is the base address of the buffer bound to the PARAM with slot i;
//   vals[j] is the value of vars[j], a DEFINE_VAR (arg (name, min, max)), as an int64.
// When the kernel was split over threads (tinygrad's THREAD axis), vars holds a DEFINE_VAR named
// "core_id" with bounds [0, threads-1]; the runtime runs the kernel once per core_id in [0, threads),
// each with its own vals (core_id's slot set to the thread's id), possibly at the same time.
#include <cstdint>
#include <string>
#include <vector>

#include "../core/error.hpp"
#include "../core/uop.hpp"

namespace mg {

struct Program {
  std::string name;          // a C identifier; the symbol a compiled backend exports
  std::vector<UOp> uops;     // linear, sources first, ending in SINK
  std::vector<UOp> params;   // the PARAM uops, params[i] has slot i
  std::vector<UOp> vars;     // the DEFINE_VAR uops the kernel reads, in vals order
  std::int64_t threads = 1;  // core_id's range: the kernel runs for core_id = 0 .. threads-1
  // estimates for DEBUG=2 (tinygrad's Estimates): floating/int ops and bytes moved per full run
  std::int64_t ops = 0, mem = 0;

  // the slot of core_id in vars, or -1 when the kernel is not split over threads
  int core_id_slot() const {
    for (std::size_t j = 0; j < vars.size(); ++j)
      if (vars[j].arg()[0].as_str() == "core_id") return int(j);
    return -1;
  }
};

}  // namespace mg
