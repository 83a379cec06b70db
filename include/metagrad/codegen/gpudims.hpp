#pragma once
// tinygrad's codegen/gpudims.py for a CPU target: the THREAD range becomes the DEFINE_VAR core_id
// (int32, bounds [0, threads-1]) the runtime sets per thread. GPU launch dims (SPECIAL) are not done.
#include <vector>

#include "../core/uop.hpp"
#include "ranges.hpp"

namespace mg::detail {

template <class = void> UOp add_gpudims(const UOp& sink) {
  std::vector<std::pair<UOp, UOp>> subs;
  for (const UOp& r : sink.toposort()) {
    if (r.op() != Ops::RANGE || range_type(r) != AxisType::THREAD) continue;
    if (r.src(0).op() != Ops::CONST) throw Error("add_gpudims: THREAD range of symbolic size " + r.src(0).render());
    const std::int64_t n = r.src(0).arg().as_int();
    subs.emplace_back(r, UOp::variable("core_id", 0, n - 1, dtypes::int32).cast(dtypes::weakint));
  }
  if (subs.size() > 1) throw Error("add_gpudims: " + std::to_string(subs.size()) + " THREAD ranges, the CPU splits one");
  return subs.empty() ? sink : sink.substitute(subs);
}

}  // namespace mg::detail
