#pragma once
// For tests that count live nodes (live_uops): the small constants of the index dtypes and the two
// bools live on in the thread's cache (UOp::const_, detail::ConstCache), so a test makes them all
// before it takes its baseline, and one it makes later does not count as a leak.
#include <cstdint>

#include <metagrad/metagrad.hpp>

inline void make_cached_consts() {
  using mg::UOp;
  for (mg::DType dt : {mg::dtypes::weakint, mg::dtypes::int32, mg::dtypes::int64})
    for (std::int64_t v = mg::detail::ConstCache::lo; v < mg::detail::ConstCache::hi; ++v) (void)UOp::const_(dt, v);
  (void)UOp::const_(mg::dtypes::bool_, true), (void)UOp::const_(mg::dtypes::bool_, false);
}
