#pragma once
// tinygrad's Estimates.from_uops(ignore_indexing=True): ALU ops and bytes moved in one full run of a
// linear program (over every core_id). Symbolic loop sizes count at their upper bound.
#include <algorithm>
#include <concepts>
#include <vector>

#include "../core/ptr_map.hpp"
#include "program.hpp"

namespace mg::detail {

// (a template: only a translation unit that compiles kernels compiles it)
template <std::same_as<Program> P> void estimate(P& p) {
  auto mulsat = [](std::int64_t a, std::int64_t b) {
    std::int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
  };
  // index math, gates and loop bookkeeping are not counted as ops
  PtrMap<char> dont_count;
  auto mark = [&](const UOp& root, bool stop_at_range) {
    std::vector<UOp> stack{root};
    while (!stack.empty()) {
      UOp u = stack.back();
      stack.pop_back();
      if (dont_count.contains(u.node())) continue;
      dont_count.set(u.node(), 1);
      if (stop_at_range && u.op() == Ops::RANGE) continue;
      for (const UOp& s : u.src()) stack.push_back(s);
    }
  };
  for (const UOp& u : p.uops) {
    if (u.op() == Ops::LOAD || u.op() == Ops::STORE) {
      if (u.src(0).op() == Ops::INDEX) for (std::size_t k = 1; k < u.src(0).nsrc(); ++k) mark(u.src(0).src(k), true);
      else mark(u.src(0), true);
      if (u.nsrc() > 2) mark(u.src(2), false);
    } else if (u.op() == Ops::IF) mark(u.src(0), false);
  }
  std::int64_t flops = 0, mults = 1;
  std::vector<std::int64_t> stack;
  PtrMap<std::int64_t> ld, st;
  for (const UOp& u : p.uops) {
    if (u.op() == Ops::LOAD || u.op() == Ops::STORE) {
      UOp buf = u;
      while (buf.nsrc() && buf.op() != Ops::PARAM) buf = buf.src(0);
      if (buf.op() == Ops::PARAM) {
        auto& m = u.op() == Ops::LOAD ? ld : st;
        std::int64_t acc = m.at(buf.node()) + mulsat(u.src(0).dtype().base().itemsize(), mults);
        if (buf.dtype().size != -1) acc = std::min<std::int64_t>(acc, buf.dtype().nbytes());
        m.set(buf.node(), acc);
      }
    }
    if (u.op() == Ops::RANGE) {
      stack.push_back(mults);
      mults = mulsat(mults, std::int64_t(u.src(0).vmax().clamped_int64()));
    } else if (u.op() == Ops::END) {
      mults = stack.back();
      stack.pop_back();
    } else if (u.op() == Ops::DEFINE_VAR && u.arg()[0].as_str() == "core_id") {
      mults = mulsat(mults, u.arg()[2].as_int() + 1);
    } else if (GroupOp::ALU.contains(u.op()) && !dont_count.contains(u.node())) {
      flops += mulsat(mulsat(mults, u.op() == Ops::MULACC ? 2 : 1), u.dtype().count);
    }
  }
  std::int64_t total = 0;
  for (const UOp& u : p.uops)
    if (u.op() == Ops::PARAM) total += (ld.find(u.node()) ? *ld.find(u.node()) : 0) + (st.find(u.node()) ? *st.find(u.node()) : 0);
  p.ops = flops;
  p.mem = total;
}

}  // namespace mg::detail
