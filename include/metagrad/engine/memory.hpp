#pragma once
// The memory planner (tinygrad's schedule/memory.py memory_plan_rewrite): the intermediate buffers of
// one schedule (written by one of its kernels, not an output, not yet allocated) live from the first
// item that uses them to the last one; buffers whose lifetimes do not overlap share memory. Each one
// becomes an offset into a single uint8 arena BUFFER, placed first-fit (tinygrad uses a TLSF allocator;
// first-fit with coalescing gives the same peak on the schedules here). Buffers a COPY touches are left
// alone (tinygrad plans them in a separate lane; a host copy needs no arena). NO_MEMORY_PLANNER=1 turns
// it off.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "../core/env.hpp"
#include "../core/extern_engine.hpp"
#include "../core/ptr_map.hpp"
#include "../schedule/rangeify.hpp"

namespace mg {
namespace detail {

// first-fit placement in an arena that grows as needed, freed ranges coalescing with their neighbours
template <class T = void>
class ArenaPlacer {
 public:
  std::int64_t alloc(std::int64_t n) {
    for (std::size_t i = 0; i < free_.size(); ++i)
      if (free_[i].second >= n) {
        const std::int64_t off = free_[i].first;
        if (free_[i].second == n) free_.erase(free_.begin() + std::ptrdiff_t(i));
        else free_[i] = {off + n, free_[i].second - n};
        peak_ = std::max(peak_, off + n);
        return off;
      }
    // grow at the end: a free range that reaches the top is extended
    std::int64_t off = top_;
    if (!free_.empty() && free_.back().first + free_.back().second == top_) off = free_.back().first, free_.pop_back();
    top_ = off + n;
    peak_ = std::max(peak_, top_);
    return off;
  }
  void free(std::int64_t off, std::int64_t n) {
    auto it = free_.begin();
    while (it != free_.end() && it->first < off) ++it;
    it = free_.insert(it, {off, n});
    if (auto next = it + 1; next != free_.end() && off + n == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin())
      if (auto prev = it - 1; prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
  }
  std::int64_t peak() const { return peak_; }

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> free_;  // (offset, size), by offset
  std::int64_t top_ = 0, peak_ = 0;
};

}  // namespace detail

// Plans s in place; returns the bytes saved (the sum of the planned buffers minus the arena).
template <class T = void>
std::int64_t memory_plan(Schedule& s) {
  static const bool off = getenv_int("NO_MEMORY_PLANNER", 0) != 0;
  if (off || s.items.size() < 2) return 0;
  constexpr std::int64_t block = 256;
  auto nbytes = [](const UOp& b) { return b.arg().as_int() * std::int64_t(b.dtype().itemsize()); };
  detail::PtrMap<std::uint8_t> excluded;  // outputs, copy buffers, buffers that exist already
  for (const UOp& o : s.outputs) excluded.set(o.node(), 1);
  for (const ScheduleItem& it : s.items)
    if (it.ast.op() == Ops::COPY)
      for (const UOp& b : it.bufs) excluded.set(b.node(), 1);
  struct Life { UOp buf; std::size_t first, last; std::int64_t off = 0; };
  std::vector<Life> lives;
  detail::PtrMap<std::size_t> life_of;
  for (std::size_t i = 0; i < s.items.size(); ++i) {
    const ScheduleItem& it = s.items[i];
    if (it.ast.op() == Ops::COPY || it.bufs.empty()) continue;
    const UOp& out = it.bufs[0];
    if (!excluded.contains(out.node()) && !life_of.contains(out.node()) && !out.attachment() && nbytes(out) > 0 &&
        (lives.empty() || out.src(1) == lives[0].buf.src(1))) {  // one arena, on the first buffer's device
      life_of.set(out.node(), lives.size());
      lives.push_back({out, i, i});
    }
    for (const UOp& b : it.bufs)
      if (std::size_t* l = life_of.find(b.node())) lives[*l].last = i;
  }
  if (lives.size() < 2) return 0;
  // events in item order; at one item, the buffers whose last use was the item before are freed first
  struct Event { std::size_t at; bool open; std::size_t life; };
  std::vector<Event> events;
  for (std::size_t l = 0; l < lives.size(); ++l) {
    events.push_back({lives[l].first, true, l});
    events.push_back({lives[l].last + 1, false, l});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.at != b.at) return a.at < b.at;
    if (a.open != b.open) return !a.open;
    return a.life < b.life;
  });
  detail::ArenaPlacer<T> placer;
  std::int64_t total = 0;
  for (const Event& e : events) {
    Life& l = lives[e.life];
    const std::int64_t n = (nbytes(l.buf) + block - 1) / block * block;
    if (e.open) l.off = placer.alloc(n), total += n;
    else placer.free(l.off, n);
  }
  if (placer.peak() >= total) return 0;
  const UOp arena = new_buffer(s.items[lives[0].first].device, placer.peak(), dtypes::uint8);
  for (ScheduleItem& it : s.items)
    for (std::size_t i = 0; i < it.bufs.size(); ++i)
      if (const std::size_t* l = life_of.find(it.bufs[i].node())) {
        if (it.offsets.empty()) it.offsets.assign(it.bufs.size(), 0);
        it.offsets[i] = lives[*l].off;
        it.bufs[i] = arena;
      }
  return total - placer.peak();
}

MG_ENGINE_TEMPLATE(std::int64_t memory_plan<void>(Schedule&))

}  // namespace mg
