#pragma once
// The kernel optimizations codegen applies after simplifying ranges (tinygrad's codegen/opt/postrange.py
// Scheduler and heuristic.py). For now only the CPU's THREAD split: the outermost output LOOP range
// that divides is split into (threads, rest), the THREAD range later becoming core_id (gpudims.hpp).
// Also the kernel's default name, tinygrad's r_4_4 / E_16.
#include <algorithm>
#include <string>
#include <vector>

#include "../core/uop.hpp"
#include "ranges.hpp"
#include "simplify.hpp"
#include "target.hpp"

namespace mg::detail {

inline int axis_to_pos(AxisType t) {
  switch (t) {
    case AxisType::LOOP: return -1;
    case AxisType::THREAD: case AxisType::GLOBAL: return 0;
    case AxisType::WARP: return 1;
    case AxisType::LOCAL: case AxisType::GROUP_REDUCE: return 2;
    case AxisType::UPCAST: return 3;
    case AxisType::REDUCE: return 4;
    case AxisType::UNROLL: return 5;
    default: return 6;
  }
}

// the ranges of the kernel, ordered by axis type then id (tinygrad's Scheduler.rngs)
inline std::vector<UOp> kernel_rngs(const UOp& ast) {
  std::vector<UOp> out;
  for (const UOp& u : ast.toposort()) if (u.op() == Ops::RANGE && u.vmax() > 0) out.push_back(u);
  auto key = [](const UOp& r) {
    std::vector<std::int64_t> k{axis_to_pos(range_type(r))};
    for (std::size_t i = 0; i + 1 < r.arg().size(); ++i) k.push_back(r.arg()[i].as_int());
    return k;
  };
  stable_sort_by(out, [&](const UOp& a, const UOp& b) { return key(a) < key(b); });
  return out;
}

// the LOOP ranges of the kernel's outputs (those its END nodes close): the ones a THREAD split may take
inline std::vector<UOp> globalizable_rngs(const UOp& ast) {
  std::vector<UOp> out;
  for (const UOp& s : ast.src()) {
    if (s.op() != Ops::END) continue;
    std::vector<UOp> rs(s.src().begin() + 1, s.src().end());
    for (const UOp& r : ranges_of(UOp::sink(rs)))
      if (range_type(r) == AxisType::LOOP && !in_list(out, r)) out.push_back(r);
  }
  return out;
}

inline std::string range_size_str(const UOp& r) {
  const UOp& e = r.src(0);
  return e.op() == Ops::CONST && e.arg().is_int() ? std::to_string(e.arg().as_int()) : e.render();
}

// tinygrad's kernel name without the colors: r_ for a reduce kernel, E_ for elementwise, then the sizes
inline std::string default_kernel_name(const UOp& ast) {
  bool reduce = false;
  for (const UOp& u : ast.toposort()) reduce = reduce || u.op() == Ops::REDUCE;
  std::string name = reduce ? "r" : "E";
  for (const UOp& r : kernel_rngs(ast)) name += "_" + range_size_str(r);
  return name;  // to_program makes it a C identifier (a symbolic size has operators in it)
}

// split rng into an outer range of `amount` (type t) and the rest: tinygrad's Scheduler.shift_to(top=True)
inline UOp shift_to_top(const UOp& ast, const UOp& rng, std::int64_t amount, AxisType t, std::int64_t new_axis) {
  auto old_sz = rng.src(0).divides(amount);
  if (!old_sz) throw Error("shift_to: " + std::to_string(amount) + " does not divide range " + rng.src(0).render());
  UOp nr = UOp::range(amount, new_axis, t);
  UOp replaced = rng.replace({.src = std::vector<UOp>{*old_sz}});
  return ast.substitute({{rng, nr * *old_sz + replaced}});
}

// tinygrad's hand_coded_optimizations, the threading part: the most threads (at most target.threads) that
// leave min_work_per_thread elements to each, on the first output LOOP range they divide
inline UOp apply_thread_opt(const UOp& ast, const Target& target, std::int64_t& threads_out) {
  threads_out = 1;
  if (target.noopt || target.threads <= 1) return ast;
  const std::vector<UOp> rngs = kernel_rngs(ast);
  std::int64_t work = 1;
  for (const UOp& r : rngs) work *= r.vmax().clamped_int64() + 1;
  const std::vector<UOp> glob = globalizable_rngs(ast);
  std::int64_t next_axis = 0;
  for (const UOp& u : ast.toposort()) if (u.op() == Ops::RANGE) next_axis = std::max(next_axis, range_axis(u) + 1);
  for (std::int64_t t : {32, 16, 12, 8, 6, 5, 4, 3, 2}) {
    if (t > target.threads || work / std::max<std::int64_t>(target.min_work_per_thread, 1) < t) continue;
    for (const UOp& r : rngs) {
      if (range_type(r) != AxisType::LOOP) continue;
      const std::int64_t sz = r.vmax().clamped_int64() + 1;
      if (r.src(0).op() != Ops::CONST || sz % t != 0) continue;
      if (!in_list(glob, r)) break;  // tinygrad: the first LOOP axis that divides, or none
      threads_out = t;
      return graph_rewrite(shift_to_top(ast, r, t, AxisType::THREAD, next_axis), pm_flatten_range);
    }
  }
  return ast;
}

}  // namespace mg::detail
