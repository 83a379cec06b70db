#pragma once
// tinygrad's hand_coded_optimizations (codegen/opt/heuristic.py) for targets without locals or tensor
// cores (the CPU): upcast small masked axes, upcast output axes along which some buffer does not move
// (3 or 4 lanes, 4 first on targets with unaligned vectors, up to 32 in all), block one more by 2
// where the target asks for register blocking, unroll a small last reduce (or by 4), upcast by 4 when
// nothing is, then split the first LOOP axis that divides over threads. On a target with partial sums, a
// reduce along an axis some input walks by 1 unrolls that axis by 4 (8) instead, with fewer upcasts and no
// blocking. On a target with 8-lane float vectors the first upcast of a contiguous axis is 8 lanes or the
// whole axis, and the upcasts after it are counted in vector registers instead of lanes. A reduce's LOOP axis
// along which every input moves (a split reduce's group) runs outermost where the target asks. Opts that do
// not apply are skipped, as tinygrad's try/except KernelOptError.
#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <utility>
#include <vector>

#include "opts.hpp"
#include "ranges.hpp"

namespace mg {

namespace detail {
// x in root's backward slice, root itself excluded (tinygrad's backward_slice)
template <class = void> bool in_backward_slice(const UOp& root, const UOp& x) { return root != x && in_toposort(x, root); }
template <class = void> UOp buf_idx(const UOp& b) { return b.nsrc() > 1 ? get_idx(b.src(1)) : UOp::const_(dtypes::weakint, 0); }
// tinygrad's upcast sort key for range rng: how many buffers move along it, and the sum of its constant strides
template <class = void> std::pair<std::int64_t, std::int64_t> axis_strides(const std::vector<UOp>& bufs, const UOp& rng) {
  std::int64_t num_strides = 0, sum_strides = 0;
  for (const UOp& b : bufs) {
    const UOp idx = buf_idx(b);
    if (in_backward_slice(idx, rng)) ++num_strides;
    for (const UOp& c : idx.split_uop(Ops::ADD)) {
      if (c == rng) sum_strides += 1;
      if (c.op() == Ops::MUL && c.src(0) == rng && c.src(1).op() == Ops::CONST) sum_strides += c.src(1).arg().as_int();
      if (c.op() == Ops::MUL && c.src(1) == rng && c.src(0).op() == Ops::CONST) sum_strides += c.src(0).arg().as_int();
    }
  }
  return {num_strides, sum_strides};
}
// how many buffers walk rng's axis by 1: a term of the buffer's index is rng itself
template <class = void> std::int64_t buffers_walking_by_one(const std::vector<UOp>& bufs, const UOp& rng) {
  std::int64_t n = 0;
  for (const UOp& b : bufs)
    for (const UOp& c : buf_idx(b).split_uop(Ops::ADD))
      if (c == rng) ++n;
  return n;
}
// no buffer moves along rng by other than 1: where rng is in a buffer's index, it is a term by itself. A
// buffer that walks it with a stride (matmul's B[k, j] along k) would load each lane of a partial-sum
// vector by itself, a gather across rows (1024^2 matmul: 4 GFLOP/s, against 40 without partial sums)
template <class = void> bool walked_by_one_or_not_at_all(const std::vector<UOp>& bufs, const UOp& rng) {
  for (const UOp& b : bufs)
    for (const UOp& c : buf_idx(b).split_uop(Ops::ADD))
      if (c != rng && in_backward_slice(c, rng)) return false;
  return true;
}
// metagrad's partial sums (Target::partial_sums): a reduce axis of at least 8 that divides by 4 along which
// some loaded buffer moves by 1 (a term of its index is the range itself) and none moves by more, the one
// most buffers do so along; null if none
template <class K> UOp partial_sum_axis(const K& k) {
  const auto rs = k.rngs();
  const auto fs = k.full_shape();
  const auto bufs = k.bufs();
  UOp best;
  std::int64_t best_n = 0;
  for (std::size_t axis : k.unrollable_dims()) {
    if (detail::range_type(rs[axis]) != AxisType::REDUCE || fs[axis] < 8 || fs[axis] % 4 != 0) continue;
    const std::int64_t n = buffers_walking_by_one(bufs, rs[axis]);
    if (n > best_n && walked_by_one_or_not_at_all(bufs, rs[axis])) best = rs[axis], best_n = n;
  }
  return best;
}
// c reads a buffer (an INDEX into one is in its backward slice): a condition on data, such as a fused relu's
// x > 0, rather than on indices alone, such as the valid mask of a pad or a stack
template <class = void> bool reads_memory(const UOp& c) {
  for (const Node* u : topo_nodes(c.node()))
    if (u->op == Ops::INDEX || u->op == Ops::LOAD) return true;
  return false;
}
// a buffer's index has rng itself as a term: the buffer walks rng's axis by 1 (its lanes lie side by side)
template <class = void> bool walked_by_one(const std::vector<UOp>& bufs, const UOp& rng) { return buffers_walking_by_one(bufs, rng) > 0; }
// a gated load moves along rng: a padded input read at rng (its lanes need masks; masked vectors shorter
// than two registers of the axis's lanes did not pay on the CPU)
template <class = void> bool gated_along(const std::vector<UOp>& bufs, const UOp& rng) {
  for (const UOp& b : bufs)
    if (b.nsrc() > 1 && is_gated_index(b.src(1)) && in_toposort(rng, b.src(1))) return true;
  return false;
}
// the vector registers the accumulators of `upcasts` output lanes take when `axis_lanes` of them lie along
// one contiguous axis (vectors of `lanes`; the rest of the upcasts repeat them)
template <class = void> std::int64_t vector_regs(std::int64_t upcasts, std::int64_t axis_lanes, std::int64_t lanes) {
  return upcasts / axis_lanes * ((axis_lanes + lanes - 1) / lanes);
}
// the product of the output sizes over axes; -1 when one is symbolic (tinygrad's resolve(..., False) then fails)
template <class = void> std::int64_t prod_known(const std::vector<std::int64_t>& shape, const std::vector<std::size_t>& axes) {
  std::int64_t n = 1;
  for (std::size_t a : axes) {
    if (shape[a] < 0) return -1;
    n *= shape[a];
  }
  return n;
}
}  // namespace detail

template <std::same_as<UOp> U>
BasicScheduler<U> hand_coded_optimizations(const BasicScheduler<U>& k0) {
  using detail::in_backward_slice;
  BasicScheduler<U> k = k0;
  if (k.ren.has_local) return k;  // the GROUP/LOCAL/matvec heuristics are not ported: no backend here has locals

  // metagrad's partial sums (Target::partial_sums, the CPU): a reduce along an axis some input is contiguous
  // along is unrolled on it by one vector (4 lanes, 8 where the target has 8-lane vectors and 8 divides the
  // axis), each lane a partial sum. The accumulators are then 4 or 8 per output: the upcasts stop at
  // partial_sums / lanes outputs (tinygrad's 7 * 7 for small masked axes and 32 would spill), and register
  // blocking, for kernels whose loads are broadcast, is not done.
  const UOp psum = k.ren.partial_sums >= 8 ? detail::partial_sum_axis(k) : UOp();
  const std::int64_t psum_lanes = psum && k.ren.float_lanes > 4 && psum.src(0).arg().as_int() % k.ren.float_lanes == 0 ? k.ren.float_lanes : 4;
  const std::int64_t psum_cap = k.ren.partial_sums / psum_lanes;

  // upcast small masked axes (from Tensor.stack / pad), leading axes first. Masked means: in the condition of
  // a WHERE on indices alone, tinygrad's intent ("valid masks"); tinygrad's rangeify version also counts a
  // fused relu's where(x > 0, x, 0), which took conv4's whole 6x6 output tile in 36 scalar accumulators
  // instead of 6-lane vectors (2x slower forward)
  std::vector<std::size_t> to_upcast;
  {
    const auto rs = k.rngs();
    const auto fs = k.full_shape();
    std::vector<U> where_conds;
    for (const detail::Node* u : detail::topo_nodes(k.ast.node()))
      if (u->op == Ops::WHERE && !detail::reads_memory(u->src[0])) where_conds.push_back(u->src[0]);
    for (std::size_t axis : k.upcastable_dims()) {
      bool masked = false;
      for (const UOp& c : where_conds) masked = masked || in_backward_slice(c, rs[axis]);
      std::int64_t p = fs[axis];
      for (std::size_t j : to_upcast) p *= fs[j];
      if (fs[axis] <= 7 && masked && p <= (psum ? psum_cap : 7 * 7)) to_upcast.push_back(axis);
    }
  }
  for (auto it = to_upcast.rbegin(); it != to_upcast.rend(); ++it) k.apply_opt(Opt{OptOps::UPCAST, std::int64_t(*it), 0});

  // more upcasts of output axes: prefer the axis fewest buffers move along, with the smallest strides.
  // metagrad's wide vectors (Target::float_lanes 8, the CPU): the first upcast of an axis some buffer walks
  // by 1 takes 8 lanes, or the whole axis when 8 does not divide it and it fits in 3 vectors; the upcasts
  // are then counted in the vector registers their accumulators take (detail::vector_regs): this loop goes
  // on while they are fewer than 4, a further upcast (by 2, 3 or 4) only while they stay at most 8, and
  // register blocking below doubles them to at most 12
  const bool wide = k.ren.float_lanes > 4 && !psum;
  std::int64_t wide_axis_lanes = 0;  // the lanes of the first upcast when it was a wide one (then count in vectors)
  auto vector_regs = [&](std::int64_t upcasts) { return detail::vector_regs(upcasts, wide_axis_lanes, k.ren.float_lanes); };
  auto widened = [&] { return wide_axis_lanes > 0; };
  std::vector<std::size_t> upcasted_axis;
  while (true) {
    const std::int64_t out_sz = detail::prod_known(k.output_shape(), k.upcastable_dims());
    if (!(out_sz >= 1024 && (widened() ? vector_regs(k.upcast_size()) < 4 : k.upcast_size() < 32))) break;
    const auto rs = k.rngs();
    const auto fs = k.full_shape();
    const auto bufs = k.bufs();
    const auto upr = k.ranges_of({AxisType::UPCAST, AxisType::UNROLL});
    // (num_strides, sum_strides, axis, order of the amount, amount): tinygrad's sort, which tries 3 lanes first;
    // a target that loads vectors at any offset (the CPU) tries 4 first, so loads and stores fold into float4
    std::vector<std::array<std::int64_t, 5>> choices;
    for (std::size_t axis : k.upcastable_dims()) {
      // the first wide upcast of an axis some buffer walks by 1: 8 lanes, or the whole axis in at most 3
      // vectors (so 20 loads as 8+8+4 lanes instead of five float4)
      const std::int64_t lanes = k.ren.float_lanes, s = fs[axis];
      std::int64_t w = 0;
      if (wide && upcasted_axis.empty() && s > 1 && detail::walked_by_one(bufs, rs[axis]) &&
          (s >= 2 * lanes || !detail::gated_along(bufs, rs[axis])))
        w = s % lanes == 0 ? lanes : s <= 16 || (s <= 3 * lanes && s % 4 == 0) ? s : 0;
      for (const std::int64_t amount : std::array<std::int64_t, 4>{w, 2, 3, 4}) {
        if (amount == 0 || (w && amount != w) || (amount == 2 && !widened())) continue;
        if (std::find(upcasted_axis.begin(), upcasted_axis.end(), axis) != upcasted_axis.end() || fs[axis] % amount != 0) continue;
        if (psum && k.upcast_size() * amount > psum_cap) continue;
        if (widened() && vector_regs(k.upcast_size() * amount) > 8) continue;
        const UOp& rng = rs[axis];
        bool some = false;
        for (const UOp& b : bufs) {
          const UOp idx = detail::buf_idx(b);
          if (in_backward_slice(idx, rng)) continue;
          bool all = true;
          for (const UOp& r2 : upr) all = all && in_backward_slice(idx, r2);
          some = some || all;
        }
        if (!some) continue;
        const auto [num_strides, sum_strides] = detail::axis_strides(bufs, rng);
        choices.push_back({num_strides, sum_strides, std::int64_t(axis), k.ren.unaligned_vectors ? -amount : amount, amount});
      }
    }
    if (choices.empty()) break;
    std::sort(choices.begin(), choices.end());
    const std::size_t axis = std::size_t(choices[0][2]);
    const std::int64_t amount = choices[0][4];
    // an upcast is at most 16 lanes: 20 is 4, then 5
    if (amount > 16) k.apply_opt(Opt{OptOps::UPCAST, std::int64_t(axis), 4});
    k.apply_opt(Opt{OptOps::UPCAST, std::int64_t(axis), amount > 16 ? amount / 4 : amount});
    // only a wide upcast takes more than 4 lanes; a first upcast that is not one leaves the rest to tinygrad's rules
    if (wide && upcasted_axis.empty() && amount > 4) wide_axis_lanes = amount;
    upcasted_axis.push_back(axis);
  }

  // metagrad's own, on a target that asks for it (Target::register_blocking, the CPU). tinygrad stops upcasting
  // when no buffer stays put along an axis while moving along every upcast one; a convolution's weights
  // move with its output channels but not with x, which lies in one vector, so each weight is loaded and
  // broadcast for a single FMA. One more output axis by 2 along which such a buffer stays put (y) makes
  // each of those loads feed two (the forward convolution of beautiful_mnist: 1.6x). Only for a reduce
  // (its accumulators stay in registers), and at most 32 of them (12 vectors with wide vectors): more
  // spill with 16 vector registers.
  if (k.ren.register_blocking && !psum && (widened() ? vector_regs(k.upcast_size()) <= 6 : k.upcast_size() <= 16) &&
      !k.unrollable_dims().empty()) {
    const auto rs = k.rngs();
    const auto fs = k.full_shape();
    const auto bufs = k.bufs();
    const auto upr = k.ranges_of({AxisType::UPCAST});
    std::vector<std::array<std::int64_t, 3>> choices;  // (num_strides, sum_strides, axis), as above
    for (std::size_t axis : k.upcastable_dims()) {
      if (std::find(upcasted_axis.begin(), upcasted_axis.end(), axis) != upcasted_axis.end() || fs[axis] % 2 != 0) continue;
      const UOp& rng = rs[axis];
      bool reused = false;
      for (const UOp& b : bufs) {
        const UOp idx = detail::buf_idx(b);
        if (in_backward_slice(idx, rng)) continue;
        for (const UOp& r2 : upr) reused = reused || in_backward_slice(idx, r2);
      }
      if (!reused) continue;
      const auto [num_strides, sum_strides] = detail::axis_strides(bufs, rng);
      choices.push_back({num_strides, sum_strides, std::int64_t(axis)});
    }
    if (!choices.empty()) {
      std::sort(choices.begin(), choices.end());
      k.apply_opt(Opt{OptOps::UPCAST, choices[0][2], 2});
    }
  }

  // partial sums: unroll their axis by 4, and a last reduce axis of up to 3 whole, as tinygrad would (past
  // partial_sums lanes, the lanes are added every iteration instead)
  if (psum) {
    auto ud = k.unrollable_dims();
    const auto rs = k.rngs();
    for (std::size_t i = 0; i < ud.size(); ++i)
      if (rs[ud[i]] == psum) k.apply_opt(Opt{OptOps::UNROLL, std::int64_t(i), psum_lanes});
    ud = k.unrollable_dims();
    if (!ud.empty() && k.full_shape()[ud.back()] <= 3 && detail::range_axis(k.rngs()[ud.back()]) != detail::range_axis(psum))
      k.apply_opt(Opt{OptOps::UNROLL, std::int64_t(ud.size()) - 1, 0});
  }
  // unroll the last reduce axis when small(ish), or by 4
  if (!psum) try {
    auto ud = k.unrollable_dims();
    if (!ud.empty() && (k.upcast_size() <= 4 || k.axes_of({AxisType::UNROLL}).empty()) && k.upcast_size() < 64) {
      const std::int64_t s = k.full_shape()[ud.back()];
      if (s <= 32) {
        k.apply_opt(Opt{OptOps::UNROLL, std::int64_t(ud.size()) - 1, 0});
        ud = k.unrollable_dims();
        // a second small reduce axis too
        if (!ud.empty() && s <= 3 && k.full_shape()[ud.back()] <= 3) k.apply_opt(Opt{OptOps::UNROLL, std::int64_t(ud.size()) - 1, 0});
      } else if (s % 4 == 0) {
        k.apply_opt(Opt{OptOps::UNROLL, std::int64_t(ud.size()) - 1, 4});
      }
    }
  } catch (const KernelOptError&) {
  }

  // if nothing is upcast and it is easy to, upcast by 4
  {
    const auto ud = k.upcastable_dims();
    if (k.upcasted() == 0 && !ud.empty() && k.full_shape()[ud.back()] % 4 == 0) k.apply_opt(Opt{OptOps::UPCAST, std::int64_t(ud.back()), 4});
  }

  // metagrad's loop order for caches (Target::inputs_axis_outermost): a reduce's LOOP axis along which every
  // input moves goes outermost (a split weight gradient's batch group: conv2's 1.3x, conv3's 1.2x faster than
  // looping over the whole batch inside each output tile)
  if (k.ren.inputs_axis_outermost && !k.unrollable_dims().empty()) {
    const auto rs = k.rngs();
    const auto loops = k.axes_of({AxisType::LOOP});
    std::vector<UOp> inputs = k.bufs(), stored;
    for (const detail::Node* u : detail::topo_nodes(k.ast.node()))
      if (u->op == Ops::STORE) stored.push_back(u->src[0]);
    std::erase_if(inputs, [&](const UOp& b) { return detail::in_list(stored, b); });
    auto every_input_moves = [&](std::size_t axis) {
      return std::all_of(inputs.begin(), inputs.end(), [&](const UOp& b) { return in_backward_slice(detail::buf_idx(b), rs[axis]); });
    };
    const auto it = std::find_if(loops.begin(), loops.end(), every_input_moves);
    if (!inputs.empty() && it != loops.end() && it != loops.begin())
      k.apply_opt(Opt{OptOps::SWAP, std::int64_t(loops.front()), std::int64_t(*it)});
  }

  // threading: about 128K elements per thread, on the first LOOP axis that divides
  if (k.ren.threads > 1) {
    std::int64_t total = 1;
    for (std::int64_t s : k.full_shape()) total = s < 0 || total < 0 ? -1 : total * s;
    for (std::int64_t threads : {32, 16, 12, 8, 6, 5, 4, 3, 2}) {
      if (threads > k.ren.threads || total < 0 || total / std::max<std::int64_t>(k.ren.min_work_per_thread, 1) < threads) continue;
      const auto fs = k.full_shape();
      for (std::size_t axis : k.axes_of({AxisType::LOOP})) {
        if (fs[axis] > 0 && fs[axis] % threads == 0) {
          try {
            k.apply_opt(Opt{OptOps::THREAD, std::int64_t(axis), threads});
          } catch (const KernelOptError&) {
          }
          break;
        }
      }
      if (!k.applied_opts.empty() && k.applied_opts.back().op == OptOps::THREAD) break;
    }
  }
  return k;
}

// tinygrad's apply_opts: the given opts (KernelInfo.opts_to_apply), else the heuristic unless NOOPT
template <std::same_as<UOp> U>
BasicScheduler<U> apply_opts(const U& ast, const Target& ren, const std::vector<Opt>* opts_to_apply = nullptr) {
  BasicScheduler<U> k(ast, ren);
  if (opts_to_apply) {
    for (const Opt& o : *opts_to_apply) k.apply_opt(o);
    return k;
  }
  if (ren.noopt) return k;
  for (const detail::Node* u : detail::topo_nodes(ast.node())) if (u->op == Ops::STAGE) return k;  // no multiblock opts in the heuristic
  return hand_coded_optimizations(k);
}

}  // namespace mg
