#pragma once
// tinygrad's codegen/late/devectorizer.py: REDUCE becomes a DEFINE_REG accumulator (pm_reduce), an INDEX
// used as a value becomes a LOAD (pm_add_loads), vector ALU ops become STACKs of scalar ones
// (devectorize_alu; LLVM's SLP vectorizer regroups them, as in tinygrad), gated indices are simplified
// under their gate (load_store_indexing), the lanes of expanded INDEXes fold into vector pointers
// (load_store_folding) that split to the widths the target loads at once (correct_load_store: float4 /
// float2 for float and half, scalars otherwise), vector accumulators become scalar registers
// (devectorize_buf_and_index), and CONST/GEP/STACK take the explicit forms renderers expect (pm_render).
#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "../pattern/graph_rewrite.hpp"
#include "../symbolic/symbolic.hpp"
#include "../symbolic/valid.hpp"
#include "ranges.hpp"
#include "target.hpp"

namespace mg {

namespace detail {
struct ReduceContext {
  std::int64_t acc_num = 0;
  // Target::partial_sums: the most accumulator lanes a reduce with unrolled lanes may keep apart
  std::int64_t partial_sums = 0;
};

// [0 1 2 3 4 5 6 7] -> [0+4, 1+5, 2+6, 3+7] when the input is wider than the output
template <class = void> std::vector<UOp> horizontal_reduce(const UOp& inp, DType out) {
  if (inp.dtype() == out) return {inp};
  const int amount = inp.dtype().count / out.count;
  std::vector<UOp> lst;
  for (int i = 0; i < amount; ++i) {
    std::vector<int> idx;
    for (int j = i; j < inp.dtype().count; j += amount) idx.push_back(j);
    lst.push_back(inp.gep(idx));
  }
  return lst;
}
// lst[0] op lst[1] op ..., left to right (tinygrad's functools.reduce)
template <class = void> UOp alu_fold(const std::vector<UOp>& lst, Ops op) {
  UOp ret = lst[0];
  for (std::size_t i = 1; i < lst.size(); ++i) ret = ret.alu(op, lst[i]);
  return ret;
}

template <std::same_as<UOp> U> U reduce_to_acc(ReduceContext& ctx, const U& red) {
  const UOp inp = red.src(0);
  const std::vector<UOp> reduce_range(red.src().begin() + 1, red.src().end());
  const Ops op = red.arg()[0].as_op();
  // partial sums (metagrad's, Target::partial_sums): a reduce over a loop whose input has unrolled lanes keeps
  // one accumulator per lane and reduces them across once, after the loop (tinygrad folds the lanes into
  // the accumulator every iteration: one dependent chain per output, whose loads along the unrolled axis
  // cannot become vector operations)
  if (!reduce_range.empty() && inp.dtype().count > red.dtype().count && inp.dtype().count <= ctx.partial_sums &&
      (op == Ops::ADD || op == Ops::MAX)) {
    return alu_fold(horizontal_reduce(reduce_to_acc(ctx, red.replace({.dtype = inp.dtype()})), red.dtype()), op);
  }
  std::vector<UOp> lst = horizontal_reduce(inp, red.dtype());
  for (const UOp& x : lst)
    if (x.dtype() != red.dtype()) throw Error("reduce_to_acc: horizontal reduction gives " + x.dtype().repr() + ", need " + red.dtype().repr());
  UOp acc;
  const UOp zero = UOp::const_(dtypes::weakint, 0);
  if (!reduce_range.empty()) {
    const std::vector<const Node*> topo = topo_nodes(inp.node());
    std::vector<UOp> ended, input_ranges;
    for (const Node* x : topo) if (x->op == Ops::END) for (UOp& r : ended_ranges(Borrowed(x).get())) ended.push_back(std::move(r));
    for (const Node* n : topo) {
      const Borrowed x(n);
      if (n->op == Ops::RANGE && !in_list(reduce_range, x.get()) && !in_list(ended, x.get())) input_ranges.push_back(x.get());
    }
    const UOp identity = UOp::const_(red.dtype(), identity_element(op, red.dtype().scalar()));
    acc = UOp(Ops::DEFINE_REG, red.dtype().ptr(1, AddrSpace::REG), {}, Arg(ctx.acc_num++));
    const UOp acc_init = acc.after(input_ranges).index({zero}).store(identity);
    std::vector<UOp> deps{acc_init};
    deps.insert(deps.end(), reduce_range.begin(), reduce_range.end());
    lst.insert(lst.begin(), acc.after(deps).index({zero}));  // the accumulator is the first element
  }
  const UOp ret = alu_fold(lst, op);
  if (reduce_range.empty()) return ret;
  const UOp end = acc.index({zero}).store(ret).end(reduce_range).rtag(Arg("mergeable"));
  return acc.after({end}).index({zero});
}

// merge the ENDs reduce_to_acc made over the same ranges in the same nesting; ENDs at different depths
// get clones of the RANGEs, so every RANGE has one END
template <std::same_as<UOp> U> std::optional<U> merge_reduce_ends(const U& sink) {
  std::vector<std::pair<std::vector<UOp>, std::vector<UOp>>> range_to_ends;
  std::int64_t next_axis = 0;
  for (const Node* n : topo_nodes(sink.node())) {
    const Borrowed held(n);
    const UOp& u = held.get();
    if (u.op() == Ops::RANGE) next_axis = std::max(next_axis, range_axis(u) + 1);
    if (u.op() != Ops::END || !u.tag().is<std::string>() || u.tag().as_str() != "mergeable") continue;
    std::vector<UOp> key(u.src().begin() + 1, u.src().end());
    auto it = std::find_if(range_to_ends.begin(), range_to_ends.end(), [&](const auto& p) { return p.first == key; });
    if (it == range_to_ends.end()) range_to_ends.push_back({key, {u}});
    else it->second.push_back(u);
  }
  RangeMap rm;
  std::vector<std::pair<UOp, UOp>> subs;
  for (auto& [r, ends] : range_to_ends) {
    if (ends.size() <= 1) continue;
    std::vector<std::pair<std::vector<UOp>, std::vector<UOp>>> by_ctx;
    for (const UOp& e : ends) {
      std::vector<UOp> k = rm.of(e);
      std::sort(k.begin(), k.end(), [](const UOp& a, const UOp& b) { return a.node() < b.node(); });
      auto it = std::find_if(by_ctx.begin(), by_ctx.end(), [&](const auto& p) { return p.first == k; });
      if (it == by_ctx.end()) by_ctx.push_back({k, {e}});
      else it->second.push_back(e);
    }
    for (std::size_t i = 0; i < by_ctx.size(); ++i) {
      const auto& group = by_ctx[i].second;
      std::vector<UOp> tr = r;
      std::vector<std::pair<UOp, UOp>> remap;
      if (i > 0) {
        for (std::size_t j = 0; j < r.size(); ++j) {
          ArgTuple a = r[j].arg().as_tuple();
          a[0] = Arg(next_axis + std::int64_t(j));
          tr[j] = r[j].replace({.arg = Arg(std::move(a))});
          remap.emplace_back(r[j], tr[j]);
        }
        next_axis += std::int64_t(r.size());
      }
      UOp merged;
      if (group.size() == 1) merged = i > 0 ? group[0].substitute(remap) : group[0];
      else {
        std::vector<UOp> stores;
        for (const UOp& e : group) stores.push_back(i > 0 ? e.substitute(remap).src(0) : e.src(0));
        merged = UOp::group(stores).end(tr);
      }
      for (const UOp& e : group) subs.emplace_back(e, merged);
    }
  }
  if (subs.empty()) return std::nullopt;
  return sink.substitute(subs);
}

template <class D_ = void>
struct pm_reduce_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(rule(op<Ops::REDUCE>.named("red"_n), [](ReduceContext& ctx, const UOp& red) { return reduce_to_acc(ctx, red); }),
                 rule(op<Ops::SINK>.named("sink"_n), [](const UOp& sink) { return merge_reduce_ends(sink); }));
  }
};

template <class D_ = void>
struct pm_add_loads_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        // an INDEX used as a value is a load
        rule(op<Ops::INDEX>.named("idx"_n), [](const UOp& idx) -> std::optional<UOp> {
          if (idx.dtype().is_ptr) return std::nullopt;
          if (!idx.src(0).dtype().is_ptr) throw Error("add_load: INDEX into " + idx.src(0).dtype().repr() + ", which is not a pointer");
          return UOp(Ops::LOAD, idx.dtype().base(), {idx.replace({.dtype = idx.src(0).dtype()})});
        }),
        // but not the one a STORE writes through
        rule(op<Ops::STORE>(op<Ops::LOAD>, etc).named("s"_n), [](const UOp& s) {
          std::vector<UOp> src(s.src().begin(), s.src().end());
          src[0] = s.src(0).src(0);
          return s.replace({.src = std::move(src)});
        }),
        rule(op<Ops::LOAD>(op<Ops::LOAD>, etc).named("l"_n), [](const UOp& l) {
          std::vector<UOp> src(l.src().begin(), l.src().end());
          src[0] = l.src(0).src(0);
          return l.replace({.src = std::move(src)});
        }));
  }
};

template <std::same_as<UOp> U> std::optional<U> no_vectorized_alu(const U& alu) {
  if (alu.dtype().vcount() == 1) return std::nullopt;
  if (alu.op() == Ops::WHERE && is_invalid(alu.src(2))) return std::nullopt;
  std::vector<UOp> alus, src(alu.nsrc());
  alus.reserve(std::size_t(alu.dtype().vcount()));
  for (int i = 0; i < alu.dtype().vcount(); ++i) {
    for (std::size_t k = 0; k < src.size(); ++k) src[k] = alu.src(k).gep(i);
    alus.emplace_back(alu.op(), alu.dtype().scalar(), src, alu.arg());
  }
  return UOp(Ops::STACK, alu.dtype(), std::move(alus));
}

template <class D_ = void>
struct devectorize_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        // CAST after AFTER
        rule(op<Ops::AFTER>(op<Ops::CAST>.named("c"_n), etc).named("a"_n), [](const UOp& a, const UOp& c) {
          return c.src(0).after(std::vector<UOp>(a.src().begin() + 1, a.src().end())).cast(c.dtype());
        }),
        rule(op<GroupOp::ALU | OpSet{Ops::CAST, Ops::BITCAST}>.named("alu"_n), [](const UOp& alu) { return no_vectorized_alu(alu); }),
        // a gated index simplified under its gate
        rule(op<Ops::INDEX>(var<"buf">, invalid_gate_v<T>), [](const UOp& buf, const UOp& cond, const UOp& x, const UOp&) -> std::optional<UOp> {
          UOp idx = uop_given_valid(cond, x);
          if (!idx || idx == x) return std::nullopt;
          return buf.index({idx.valid(cond)}, true);
        }));
  }
};

template <class D_ = void>
struct pm_render_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        // for rendering, vectors are explicit STACKs
        rule(op<Ops::CONST>.named("c"_n), [](const UOp& c) -> std::optional<UOp> {
          if (c.dtype().vcount() == 1) return std::nullopt;
          return UOp(Ops::STACK, c.dtype(), std::vector<UOp>(std::size_t(c.dtype().vcount()), UOp::const_(c.dtype().scalar(), c.arg())));
        }),
        rule(op<Ops::GEP>.named("gep"_n), [](const UOp& gep) -> std::optional<UOp> {
          if (gep.arg().size() > 1) {
            std::vector<UOp> src;
            for (const Arg& i : gep.arg().as_tuple()) src.push_back(gep.src(0).gep(int(i.as_int())));
            return UOp(Ops::STACK, gep.dtype(), src);
          }
          if (gep.src(0).dtype().vcount() == 1 && gep.arg()[0].as_int() == 0) return gep.src(0);
          return std::nullopt;
        }),
        rule(op<Ops::STACK>(var<"x">), [](const UOp& x) { return x; }));
  }
};

// ---- load/store folding (tinygrad's load_store_folding / correct_load_store / devectorize_buf_and_index) ----

// INDEX(STACK(buf, buf, ...), vec): one scalar INDEX per lane
template <std::same_as<UOp> U> std::optional<U> expand_index(const U& x) {
  if (x.nsrc() != 2 || x.src(0).op() != Ops::STACK || !x.dtype().is_ptr) return std::nullopt;
  const UOp& st = x.src(0);
  const UOp buf = st.src(0);
  for (const UOp& b : st.src()) if (b != buf) return std::nullopt;
  const UOp& vec = x.src(1);
  if (vec.dtype().count != int(st.nsrc())) return std::nullopt;
  std::vector<UOp> idxs;
  for (int i = 0; i < vec.dtype().count; ++i) idxs.push_back(buf.index({vec.gep(i)}, true));
  return UOp(Ops::STACK, buf.dtype().vec(int(idxs.size())), idxs);
}

// a STACK of INDEXes into one buffer: runs of consecutive offsets (same root, same gate) become one
// vector pointer each, concatenated with PTRCAT, and a GEP puts the lanes back in order
// an index as root + constant offset, the key lanes fold by: a constant index has no root (Const), an index
// that is never valid none either (Invalid)
enum class RootKind { Expr, Const, Invalid };
struct RootOffset {
  UOp root;
  RootKind kind = RootKind::Expr;
  std::int64_t off = 0;
};
template <std::same_as<UOp> U> RootOffset root_offset(const U& idx) {
  if (idx.op() == Ops::ADD && idx.src(1).op() == Ops::CONST && idx.src(1).arg().is_int()) return {idx.src(0), RootKind::Expr, idx.src(1).arg().as_int()};
  if (idx.op() == Ops::ADD && idx.src(0).op() == Ops::CONST && idx.src(0).arg().is_int()) return {idx.src(1), RootKind::Expr, idx.src(0).arg().as_int()};
  if (is_invalid(idx)) return {UOp(), RootKind::Invalid, 0};
  if (idx.op() == Ops::CONST && idx.arg().is_int()) return {UOp(), RootKind::Const, idx.arg().as_int()};
  return {idx, RootKind::Expr, 0};
}

template <std::same_as<UOp> U> std::optional<U> fold_expanded_index(const U& midx) {
  if (midx.nsrc() < 2) return std::nullopt;
  for (const UOp& s : midx.src()) if (s.op() != Ops::INDEX || s.nsrc() != 2 || !s.dtype().is_ptr) return std::nullopt;
  const UOp buf = midx.src(0).src(0);
  for (const UOp& s : midx.src()) if (s.src(0) != buf) return std::nullopt;
  // (gate, root) -> offset -> lanes, in order of first appearance
  struct Group {
    UOp valid, root;
    RootKind kind;
    std::map<std::int64_t, std::vector<std::size_t>> offsets;
  };
  std::vector<Group> groups;
  for (std::size_t i = 0; i < midx.nsrc(); ++i) {
    const auto [root, kind, off] = root_offset(get_idx(midx.src(i).src(1)));
    const UOp valid = get_valid(midx.src(i).src(1));
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.valid == valid && g.root == root && g.kind == kind; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{valid, root, kind, {}});
    it->offsets[off].push_back(i);
  }
  std::vector<UOp> ret;
  std::vector<int> idxs(midx.nsrc(), -1);
  int global_offset = 0;
  const DType bdt = buf.dtype();
  for (const Group& g : groups) {
    std::vector<std::int64_t> keys;
    for (const auto& kv : g.offsets) keys.push_back(kv.first);
    for (std::size_t a = 0; a < keys.size();) {
      std::size_t b = a + 1;
      while (b < keys.size() && keys[b] == keys[b - 1] + 1) ++b;
      UOp lidx = midx.src(g.offsets.at(keys[a])[0]);
      const int n = int(b - a);
      if (n > 1) lidx = lidx.cast(bdt.base().scalar().vec(n).ptr(bdt.size, bdt.addrspace));
      for (int k = 0; k < n; ++k) for (std::size_t oo : g.offsets.at(keys[a + std::size_t(k)])) idxs[oo] = global_offset + k;
      ret.push_back(lidx);
      global_offset += n;
      a = b;
    }
  }
  const UOp cat(Ops::PTRCAT, bdt.base().scalar().ptr(bdt.size, bdt.addrspace).vec(global_offset), ret);
  return cat.gep(idxs);
}

template <std::same_as<UOp> U> U cat_after_store(const U& cat, const U& data) {
  int offset = 0;
  std::vector<UOp> ret;
  for (const UOp& s : cat.src()) {
    const int n = s.dtype().count;
    std::vector<int> lanes;
    for (int i = offset; i < offset + n; ++i) lanes.push_back(i);
    ret.push_back(s.store(n == 1 && data.dtype().count == 1 ? data : data.gep(lanes)));
    offset += n;
  }
  return UOp::group(ret);
}

// STORE through a GEP of pointers: store the data in the pointers' order (the GEP inverted)
template <std::same_as<UOp> U> U gep_on_store(const U& gep, const U& st) {
  std::map<int, int> a;
  const auto g = gep_idx(gep);
  for (std::size_t i = 0; i < g.size(); ++i) a[g[i]] = int(i);
  std::vector<int> inv;
  for (const auto& kv : a) inv.push_back(kv.second);
  return gep.src(0).store(st.gep(inv));
}

// split a vector LOAD/STORE into the widths the target loads at once (float4/float2 where the offset divides,
// or anywhere on a target with unaligned vectors)
template <std::same_as<UOp> U> std::optional<U> split_load_store(const Target& ren, const U& ls) {
  const UOp& p = ls.src(0);
  const UOp idx = p.op() == Ops::CAST ? p.src(0) : p;
  if (idx.op() != Ops::INDEX || idx.nsrc() != 2) return std::nullopt;
  const int sz = p.dtype().count;
  if (sz == 1) return std::nullopt;
  const UOp& buf = idx.src(0);
  const DType base = buf.dtype().base().scalar();
  std::vector<int> lengths;
  if (!(base == dtypes::float32 || base == dtypes::float16 || base.is_fp8())) {
  } else if (buf.dtype().addrspace == AddrSpace::REG) {
  } else if (ren.supports_float4) {
    for (int w = ren.float_lanes; w >= 2; w /= 2) lengths.push_back(w);
  }
  lengths.push_back(1);
  const UOp offset = get_idx(idx.src(1)), mask = get_valid(idx.src(1));
  if (!ren.unaligned_vectors) std::erase_if(lengths, [&](int x) { return !offset.divides(x); });
  int global_offset = 0;
  std::vector<UOp> ret;
  while (global_offset < sz) {
    for (int fl : lengths) {
      if (global_offset + fl > sz) continue;
      UOp off = offset + UOp::const_(offset.dtype(), global_offset);
      if (global_offset == 0) off = offset;
      UOp lidx = buf.index({is_gated_index(idx.src(1)) ? off.valid(mask) : off}, true);
      if (fl > 1) lidx = lidx.cast(base.vec(fl).ptr(buf.dtype().size, buf.dtype().addrspace));
      if (ls.op() == Ops::STORE) {
        std::vector<int> lanes;
        for (int i = global_offset; i < global_offset + fl; ++i) lanes.push_back(i);
        std::vector<UOp> src{lidx, ls.src(1).gep(lanes)};
        for (std::size_t k = 2; k < ls.nsrc(); ++k) src.push_back(ls.src(k));
        ret.push_back(ls.replace({.src = std::move(src)}));
      } else {
        std::vector<int> lanes;
        for (int i = global_offset; i < global_offset + fl; ++i) lanes.push_back(i);
        std::vector<UOp> src{lidx};
        // a masked load's alternative and gates are per lane: each piece takes its own
        for (std::size_t k = 1; k < ls.nsrc(); ++k) src.push_back(k <= 2 && ls.src(k).dtype().count == sz ? ls.src(k).gep(lanes) : ls.src(k));
        ret.push_back(ls.replace({.dtype = ls.dtype().scalar().vec(fl), .src = std::move(src)}));
      }
      global_offset += fl;
      break;
    }
  }
  if (ret.size() <= 1) return std::nullopt;
  if (ls.op() == Ops::LOAD) return UOp(Ops::VCAT, ls.dtype(), ret);
  return UOp::group(ret);
}

// LOAD through a PTRCAT: one load per part. On a target with masked loads, the scalar gated parts that read
// one buffer at consecutive offsets of one root (lanes whose gates differ, which fold_expanded_index keeps
// apart: a convolution's taps along x, each with its own 0<=x+i-kx<w) load as one vector of up to float_lanes
// with a gate per lane, read only where it holds (LOAD(ptr, 0, STACK(gates))); the rest load as before.
template <std::same_as<UOp> U> U load_ptrcat(const Target& ren, const U& ld, const U& cat) {
  auto plain = [&](const UOp& x) {
    std::vector<UOp> src(ld.src().begin(), ld.src().end());
    src[0] = x;
    return ld.replace({.dtype = x.dtype().base(), .src = std::move(src)});
  };
  const std::size_t n = cat.nsrc();
  struct Lane {
    std::size_t part;
    std::int64_t off;
  };
  // (buffer, root) -> its gated scalar parts
  std::vector<std::pair<std::pair<UOp, UOp>, std::vector<Lane>>> groups;
  if (ren.masked_loads && ld.nsrc() == 1) {
    for (std::size_t i = 0; i < n; ++i) {
      const UOp& p = cat.src(i);
      if (p.op() != Ops::INDEX || p.nsrc() != 2 || p.dtype().count != 1 || !is_gated_index(p.src(1))) continue;
      const DType base = p.dtype().base();
      if (base.is_bool() || p.src(0).dtype().addrspace == AddrSpace::REG) continue;
      const auto [root, kind, off] = root_offset(get_idx(p.src(1)));
      if (kind == RootKind::Invalid) continue;
      const std::pair<UOp, UOp> key{p.src(0), root};  // a null root: a constant index
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
      if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
      it->second.push_back(Lane{i, off});
    }
  }
  std::vector<UOp> lanes_of(n);  // a part's value: its own load, or a GEP of a masked load
  for (auto& [key, lanes] : groups) {
    stable_sort_by(lanes, [](const Lane& a, const Lane& b) { return a.off < b.off; });
    for (std::size_t a = 0; a < lanes.size();) {
      std::size_t b = a + 1;
      while (b < lanes.size() && lanes[b].off == lanes[b - 1].off + 1) ++b;
      // the run [a, b) in loads of the target's widest float vector (Target::float_lanes), then halves; a lone
      // lane stays a scalar gated load
      while (b - a >= 2) {
        std::size_t k = std::size_t(std::max(ren.float_lanes, 2));
        while (k > b - a) k /= 2;
        const UOp& buf = key.first;
        const DType bdt = buf.dtype(), vd = bdt.base().scalar().vec(int(k));
        const std::int64_t o = lanes[a].off;
        const UOp off = !key.second ? UOp::const_(dtypes::weakint, o) : o == 0 ? key.second : key.second + UOp::const_(key.second.dtype(), o);
        std::vector<UOp> gates;
        for (std::size_t j = a; j < a + k; ++j) gates.push_back(get_valid(cat.src(lanes[j].part).src(1)));
        const UOp ptr = buf.index({off}, true).cast(vd.ptr(bdt.size, bdt.addrspace));
        const UOp m(Ops::LOAD, vd, {ptr, UOp::const_(vd, 0), UOp(Ops::STACK, dtypes::bool_.vec(int(k)), gates)});
        for (std::size_t j = 0; j < k; ++j) lanes_of[lanes[a + j].part] = m.gep(int(j));
        a += k;
      }
      a = b;
    }
  }
  std::vector<UOp> loads;
  for (std::size_t i = 0; i < n; ++i) loads.push_back(lanes_of[i] ? lanes_of[i] : plain(cat.src(i)));
  return UOp(Ops::VCAT, cat.dtype().base().vec(cat.dtype().vcount()), loads);
}

// a vector DEFINE_REG/DEFINE_LOCAL becomes a scalar one of count times the size, seen through a CAST
template <std::same_as<UOp> U> std::optional<U> no_vectorized_buf(const U& buf) {
  const DType d = buf.dtype();
  if (!d.is_ptr || d.count == 1) return std::nullopt;
  return buf.replace({.dtype = d.base().scalar().ptr(d.size * d.count, d.addrspace)}).cast(d);
}

// INDEX(CAST(buf), idx) of a vector buffer: the scalar lanes idx*count + 0..count-1
template <std::same_as<UOp> U> std::optional<U> no_vectorized_index(const U& x) {
  if (x.nsrc() != 2) return std::nullopt;
  const UOp& c = x.src(0);
  if (c.op() != Ops::CAST || !c.dtype().is_ptr) return std::nullopt;
  const UOp& buf = c.src(0);
  const UOp& def = buf.op() == Ops::AFTER ? buf.src(0) : buf;
  if (def.op() != Ops::DEFINE_REG && def.op() != Ops::DEFINE_LOCAL) return std::nullopt;
  const int cnt = c.dtype().count;
  const UOp& idx = x.src(1);
  if (idx.dtype().count != 1) return std::nullopt;
  std::vector<UOp> offs;
  for (int i = 0; i < cnt; ++i) offs.push_back(UOp::const_(idx.dtype(), i));
  const DType vd = idx.dtype().vec(cnt);
  const UOp lanes = UOp(Ops::MUL, vd, {idx.gep(std::vector<int>(std::size_t(cnt), 0)), UOp::const_(vd, cnt)});
  return buf.broadcast(cnt).index({UOp(Ops::ADD, vd, {lanes, UOp(Ops::STACK, vd, offs)})}, true);
}

template <class D_ = void>
struct load_store_folding_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(
        rule(op<Ops::INDEX>(op<Ops::STACK>, var<"vec">).named("x"_n), [](const UOp& x, const UOp&) { return expand_index(x); }),
        rule(op<Ops::STACK>(repeat(op<Ops::INDEX>)).named("midx"_n), [](const UOp& midx) { return fold_expanded_index(midx); }),
        // GEP after LOAD
        rule(op<Ops::LOAD>(op<Ops::GEP>.named("gep"_n), etc).named("ld"_n), [](const UOp& ld, const UOp& gep) -> std::optional<UOp> {
          if (!gep.dtype().is_ptr) return std::nullopt;
          std::vector<UOp> src(ld.src().begin(), ld.src().end());
          src[0] = gep.src(0);
          return ld.replace({.dtype = ld.dtype().scalar().vec(gep.src(0).dtype().vcount()), .src = std::move(src)}).gep(gep_idx(gep));
        }),
        // GEP on the pointer of a STORE
        rule(op<Ops::STORE>(op<Ops::GEP>.named("gep"_n), var<"st">), [](const UOp& gep, const UOp& st) -> std::optional<UOp> {
          if (!gep.dtype().is_ptr) return std::nullopt;
          return gep_on_store(gep, st);
        }),
        // PTRCAT after LOAD and STORE
        rule(op<Ops::LOAD>(op<Ops::PTRCAT>.named("cat"_n), etc).named("ld"_n),
             [](const Target& ren, const UOp& ld, const UOp& cat) { return load_ptrcat(ren, ld, cat); }),
        rule(op<Ops::STORE>(op<Ops::PTRCAT>.named("cat"_n), var<"data">), [](const UOp& cat, const UOp& data) { return cat_after_store(cat, data); }));
  }
};

template <class D_ = void>
struct correct_load_store_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(rule(op<Ops::LOAD, Ops::STORE>.named("ls"_n), [](const Target& ren, const UOp& ls) { return split_load_store(ren, ls); }));
  }
};

template <class D_ = void>
struct devectorize_buf_and_index_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    return rules(rule(op<Ops::DEFINE_LOCAL, Ops::DEFINE_REG>.named("buf"_n), [](const UOp& buf) { return no_vectorized_buf(buf); }),
                 rule(op<Ops::INDEX>(op<Ops::CAST>, var<"idx">).named("x"_n), [](const UOp& x, const UOp&) { return no_vectorized_index(x); }));
  }
};
}  // namespace detail

inline constexpr LazyRules<detail::pm_reduce_def<>> pm_reduce{};
inline constexpr LazyRules<detail::pm_add_loads_def<>> pm_add_loads{};
inline constexpr LazyRules<detail::devectorize_def<>> devectorize{};
inline constexpr LazyRules<detail::pm_render_def<>> pm_render{};
inline constexpr LazyRules<detail::load_store_folding_def<>> load_store_folding{};
inline constexpr LazyRules<detail::correct_load_store_def<>> correct_load_store{};  // ctx: the Target
inline constexpr LazyRules<detail::devectorize_buf_and_index_def<>> devectorize_buf_and_index{};

}  // namespace mg
