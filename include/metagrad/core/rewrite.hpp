#pragma once
// The rewrite driver behind graph_rewrite and substitute: tinygrad's unified_rewrite and walk_rewrite,
// iterative and memoized, generic over the rewriter. A rewriter is anything with
//   std::optional<UOp> rewrite_view(NodeRef n, Ctx* ctx, int* fired)   // a replacement for n, or none
//   std::string describe(std::size_t fired)                              // names what fired, for errors
// (pattern/rules.hpp's RuleSet is one). A rewriter that never settles raises mg::RewriteError.
#include <array>
#include <atomic>
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "error.hpp"
#include "ptr_map.hpp"
#include "thread_cache.hpp"
#include "uop.hpp"
#include "walk.hpp"

namespace mg {

struct RewriteOptions {
  bool bottom_up = false;    // rewrite a node before its sources (tinygrad's bottom_up=True)
  bool walk = false;         // single pass, no re-traversal into rewritten subtrees
  bool enter_calls = false;  // also rewrite the body (src[0]) of CALL and FUNCTION
  std::size_t max_rewrites_per_node = 10000;  // successive rewrites at one place before giving up
};

// Thrown by a bottom-up rule's callback (tinygrad's BottomUpGate): the node stays as it is now and
// its sources are not visited.
struct BottomUpGate {};

namespace detail {

// one pending step of unified_rewrite
struct RewriteEntry {
  const Node* n;      // the node this entry finally gives a replacement for
  const Node* new_n;  // what is being worked on for it
  std::uint32_t gen;  // how many rewrites in a row led to this entry at this place
  std::uint8_t stage;
};
// The pending steps of a rewrite, a stack. A push is a store and an increment, forced inline at
// every push site; growing is out of line. (std::vector's push_back carries its growth with it, and
// the compiler kept it out of line in unified_rewrite: a call per step.)
class EntryStack {
 public:
  bool empty() const { return n_ == 0; }
  [[gnu::always_inline]] void push(const RewriteEntry& e) {
    if (n_ == cap_) [[unlikely]] grow();
    p_[n_++] = e;
  }
  RewriteEntry pop() { return p_[--n_]; }
  // empty it; a huge rewrite does not pin its memory
  void clear() noexcept {
    n_ = 0;
    if (cap_ > 4096) p_.reset(), cap_ = 0;
  }

 private:
  [[gnu::noinline]] void grow() {
    const std::size_t cap = cap_ ? cap_ * 2 : 64;
    auto p = std::make_unique_for_overwrite<RewriteEntry[]>(cap);
    if (n_) std::memcpy(static_cast<void*>(p.get()), static_cast<const void*>(p_.get()), n_ * sizeof(RewriteEntry));
    p_ = std::move(p), cap_ = cap;
  }
  std::unique_ptr<RewriteEntry[]> p_;
  std::size_t n_ = 0, cap_ = 0;
};
// everything a walk knows about one node, found with one probe
struct RewriteSlot {
  const Node* rep = nullptr;  // its final replacement, once done
  const Node* bpm = nullptr;  // the bottom-up rewrite of it, once asked
  std::uint32_t wait = 0;     // 1 + index of the entries waiting for it, or 0
  bool started = false, bpm_cached = false;
};
// The working memory of one rewrite. Rewrites are many and mostly small (simplify runs one per
// expression, and rules run nested ones), so each thread keeps the scratch of finished rewrites and
// hands it to the next one with its capacity: no allocation per rewrite once warm.
struct RewriteScratch {
  std::vector<RewriteSlot> lane_slots;
  PtrMap<RewriteSlot> slots;
  std::vector<std::vector<RewriteEntry>> waits;
  EntryStack stack;
  std::vector<UOp> keep;
  template <class = void> void clear() {
    keep.clear();  // drops the nodes the rewrite made and did not return
    lane_slots.clear(), slots.clear(), waits.clear(), stack.clear();
    if (keep.capacity() > 4096) keep.shrink_to_fit();  // a huge rewrite does not pin its memory
    if (lane_slots.capacity() > 4096) lane_slots.shrink_to_fit();
  }
};
// The thread's spare scratches (core/thread_cache.hpp): taken by a rewrite, given back when it ends.
struct ScratchPool {
  std::vector<std::unique_ptr<RewriteScratch>> spare;
  template <class = void> static std::unique_ptr<RewriteScratch> take() {
    if (ScratchPool* p = thread_cache<ScratchPool>(); p && !p->spare.empty()) {
      auto s = std::move(p->spare.back());
      p->spare.pop_back();
      return s;
    }
    return std::make_unique<RewriteScratch>();
  }
  template <class = void> static void give(std::unique_ptr<RewriteScratch> s) noexcept {
    s->clear();
    ScratchPool* p = thread_cache<ScratchPool>();
    if (p && p->spare.size() < 16) try { p->spare.push_back(std::move(s)); } catch (...) {}
  }
};

// Settled rule sets. A pure rule set (its callbacks a function of the matched nodes alone: no ctx, no
// state) may take one of 16 bits of Node::settled. A rewrite by it marks each node it found to be a fixed
// point whose sources are all marked, so the mark says "rewriting this graph by that set gives it back";
// a later rewrite by the same set takes a marked node as its own result without looking below it.
// simplify() re-simplifies graphs most of which an earlier simplify already settled.
inline std::uint16_t next_settle_bit() {
  static std::atomic<int> next{0};
  const int k = next.fetch_add(1, std::memory_order_relaxed);
  return k < 16 ? std::uint16_t(1u << k) : std::uint16_t(0);  // past 16 sets: no marks, rewrites as before
}
template <class D> std::uint16_t settle_bit() {
  static const std::uint16_t bit = next_settle_bit();
  return bit;
}
// a rule-set definition declares itself pure with `static constexpr bool pure_rules = true;`, and the
// pure set it contains (a fixed point of the whole is one of the part) with `using contains = part_def<>;`
template <class D> concept PureRules = requires { requires D::pure_rules; };
template <class D> std::uint16_t settle_marks() {
  std::uint16_t m = settle_bit<D>();
  if constexpr (requires { typename D::contains; }) m |= settle_marks<typename D::contains>();
  return m;
}

// The driver keeps raw node pointers on its hot path: the input graph is alive through the root the
// caller holds, and every node the rewrite makes is kept in keep_ until the end, so no address is
// reused while a table still names it (and no atomic reference count is touched per visit).
// PM rewrites a node after its sources (tinygrad's pm); BPM before them (tinygrad's bpm). Either may
// be absent. RewriteEngine(rs, ctx, opt) uses rs as one or the other, as opt.bottom_up says.
template <class PM, class Ctx, class BPM = PM>
class RewriteEngine {
 public:
  RewriteEngine(const PM& rs, Ctx* ctx, RewriteOptions opt) requires std::is_same_v<PM, BPM>
      : RewriteEngine(opt.bottom_up ? nullptr : &rs, opt.bottom_up ? &rs : nullptr, ctx, opt) {}
  RewriteEngine(const PM* pm, const BPM* bpm, Ctx* ctx, RewriteOptions opt) : pm_(pm), bpm_(bpm), ctx_(ctx), opt_(opt) {}
  ~RewriteEngine() { ScratchPool::give(std::move(scratch_)); }
  RewriteEngine(const RewriteEngine&) = delete;
  RewriteEngine& operator=(const RewriteEngine&) = delete;

  // rewrite as the pure rule set whose settle bit is `own`, also marking what settles under `marks`
  // (own and the bits of the sets it contains); only for a rewrite after sources, not a walk
  void settle(std::uint16_t own, std::uint16_t marks) {
    if (bpm_ || opt_.walk || !own) return;
    settle_own_ = own, settle_marks_ = marks;
  }

  UOp run(const UOp& root) {
    if (!root) return root;
    return UOp::from_node(opt_.walk ? walk_rewrite(root.node()) : unified_rewrite(root.node()));
  }

 private:
  using Entry = RewriteEntry;
  using Slot = RewriteSlot;

  // What this walk knows about a node. Holding the lane: its replacement and "started" live in the node
  // (walk_rep, walk_bits), the rarer bottom-up cache and waiters in lane_slots_[walk_bits & slot_mask].
  // Otherwise everything lives in the table.
  // bpm_none_bit: the bottom-up rules were asked about this node and had nothing, the common answer,
  // kept without a slot
  static constexpr std::uint32_t started_bit = 1u << 31, bpm_none_bit = 1u << 30, slot_mask = bpm_none_bit - 1;
  bool marked(const Node* n) const { return n->walk_epoch == epoch_; }
  void mark(const Node* n) {
    if (marked(n)) return;
    n->walk_epoch = epoch_, n->walk_bits = 0, n->walk_rep = nullptr;
  }
  const Node* done(const Node* n) const {
    if (epoch_) return marked(n) ? n->walk_rep : nullptr;
    const Slot* s = slots_.find(n);
    return s ? s->rep : nullptr;
  }
  bool started_or_done(const Node* n) const {
    if (epoch_) return marked(n) && (n->walk_rep || (n->walk_bits & started_bit));
    const Slot* s = slots_.find(n);
    return s && (s->rep || s->started);
  }
  bool start(const Node* n) {  // false when the node's walk has already started
    if (epoch_) {
      mark(n);
      if (n->walk_bits & started_bit) return false;
      n->walk_bits |= started_bit;
      return true;
    }
    Slot& s = slots_.at(n);
    return !std::exchange(s.started, true);
  }
  void set_rep(const Node* n, const Node* rep) {  // without waking waiters: for nodes nobody waits on
    if (epoch_) mark(n), n->walk_rep = rep;
    else slots_.at(n).rep = rep;
  }
  const Slot* find_slot(const Node* n) const {
    if (epoch_) return marked(n) && (n->walk_bits & slot_mask) ? &lane_slots_[(n->walk_bits & slot_mask) - 1] : nullptr;
    return slots_.find(n);
  }
  Slot& slot(const Node* n) {  // the reference lasts until the next new slot
    if (!epoch_) return slots_.at(n);
    mark(n);
    if (!(n->walk_bits & slot_mask)) {
      lane_slots_.emplace_back();
      n->walk_bits |= std::uint32_t(lane_slots_.size());
    }
    return lane_slots_[(n->walk_bits & slot_mask) - 1];
  }

  // a node this walk made (holding one reference) stays alive until the walk ends
  const Node* keep(Node* made) {
    keep_.push_back(adopt(made));
    return made;
  }

  static constexpr int bpm_mark = 1 << 24;  // recent_ entries at or above it are bpm rules
  template <class RW> const Node* apply(const RW& rw, const Node* n, int mark) {
    int fired = -1;
    auto r = rw.rewrite_view(NodeRef(n), ctx_, &fired);
    return r ? kept_result(std::move(*r), fired + mark) : nullptr;
  }
  // a rule's result, kept alive to the end of the walk, with the rule noted for errors
  const Node* kept_result(UOp&& r, int rule) {
    keep_.push_back(std::move(r));
    recent_[recent_pos_++ % recent_.size()] = rule;
    return keep_.back().node();
  }
  const Node* rewrite(const Node* n) { return pm_ ? apply(*pm_, n, 0) : nullptr; }

  // the next node to rewrite for an entry, and how many rewrites in a row led to it
  struct Step {
    const Node* n = nullptr;
    std::uint32_t gen = 0;
  };
  // nn on its sources' results (src). A pure rule set sees the rebuilt node before it is interned, as a
  // provisional node (uop.hpp): when a rule rewrites it and nothing kept it, it never enters the table (most
  // rebuilt nodes go at once: x+0 -> x, a constant folded, operands swapped). Rules of a pure set depend on
  // a node's fields alone, so they answer a provisional node as they would its interned twin; when none
  // rewrites it, the interned node is a fixed point (its sources are results) and done without a step.
  Step rebuild(const Node* nn, std::span<const Node* const> src, std::uint32_t gen) {
    if (!settle_own_) return {keep(intern(nn->op, nn->dtype, src, Arg(nn->arg), Arg(nn->tag))), gen + 1};
    Node* p = make_provisional(nn->op, nn->dtype, src, nn->arg, nn->tag);
    int fired = -1;
    std::optional<UOp> r;
    Node* n = nullptr;
    try {
      r = pm_->rewrite_view(NodeRef(p), ctx_, &fired);
      if (r && p->rc.load(std::memory_order_relaxed) == 1) {  // rewritten, and nothing kept it
        drop_provisional(p);
        return {kept_result(std::move(*r), fired), gen + 2};
      }
      n = intern_provisional(p);
    } catch (...) {
      r.reset();
      abandon_provisional(p);
      throw;
    }
    if (n != p) {  // its twin was interned: p goes (or lives on outside the table while something holds it)
      const bool rewritten = r.has_value();
      r.reset();  // (what the rules made of p, which may hold p)
      abandon_provisional(p);
      if (rewritten) return {keep(n), gen + 1};  // the twin is rewritten as a plain rebuild would be
    }
    keep(n);
    if (r) return {kept_result(std::move(*r), fired), gen + 2};
    if (!started_or_done(n)) start(n), mark_settled(n), set_replace(n, n);
    return {n, gen + 1};
  }

  const Node* cached_bpm_rewrite(const Node* n) {
    if (epoch_ && marked(n) && (n->walk_bits & bpm_none_bit)) return nullptr;
    if (const Slot* s = find_slot(n); s && s->bpm_cached) return s->bpm;
    const Node* r = apply(*bpm_, n, bpm_mark);
    if (!r && epoch_) {
      mark(n);
      n->walk_bits |= bpm_none_bit;
      return nullptr;
    }
    Slot& s = slot(n);
    s.bpm = r, s.bpm_cached = true;
    return r;
  }

  [[noreturn]] void fail(const std::string& why, const Node* at_node) {
    const UOp at = UOp::from_node(at_node);
    std::vector<int> seen;
    for (int r : recent_) {
      if (r < 0) continue;
      bool dup = false;
      for (int s : seen) dup = dup || s == r;
      if (!dup) seen.push_back(r);
    }
    // the full print of a deep graph is quadratic in its depth: print a big one's root only
    std::string where = at.toposort().size() <= 64 ? at.repr().substr(0, 300)
                        : op_repr(at.op()) + " " + at.dtype().repr() + " arg=" + at.arg().repr() + " (a graph too big to print)";
    std::string msg = "graph_rewrite: " + why + "\n  at: " + where + "\n  rules that fired last:";
    for (int r : seen) msg += "\n    " + (r >= bpm_mark ? bpm_->describe(std::size_t(r - bpm_mark)) : pm_->describe(std::size_t(r)));
    throw RewriteError(msg);
  }

  void add_wait(const Node* key, const Entry& e) {
    Slot& s = slot(key);
    if (!s.wait) {
      waits_.emplace_back();
      s.wait = std::uint32_t(waits_.size());
    }
    waits_[s.wait - 1].push_back(e);
  }
  void set_replace(const Node* n, const Node* rep) {
    set_rep(n, rep);
    if (const Slot* f = find_slot(n); f && f->wait) {
      Slot& s = slot(n);
      for (const Entry& e : waits_[s.wait - 1]) stack_.push(e);
      waits_[s.wait - 1].clear();
      s.wait = 0;
    }
  }
  void skip_call_body(const Node* nn) {
    // the body of a CALL / FUNCTION is not rewritten unless asked
    if (!opt_.enter_calls && (nn->op == Ops::CALL || nn->op == Ops::FUNCTION) && !nn->src.empty())
      set_rep(nn->src[0].node(), nn->src[0].node());
  }

  bool settled(const Node* n) const { return settle_own_ && (n->settled.load(std::memory_order_relaxed) & settle_own_); }
  // n is a fixed point with its sources unchanged: settled when they are. Marks from several threads may
  // race; one lost is only work redone later, never a wrong result.
  void mark_settled(const Node* n) {
    for (const UOp& x : n->src) if (!settled(x.node())) return;
    const std::uint16_t was = n->settled.load(std::memory_order_relaxed);
    if ((was & settle_marks_) != settle_marks_) n->settled.store(was | settle_marks_, std::memory_order_relaxed);
  }

  const Node* unified_rewrite(const Node* root) {
    stack_.push({root, root, 0, 0});
    while (!stack_.empty()) {
      const Entry e = stack_.pop();
      if (done(e.n)) continue;
      if (e.stage == 0) {
        if (!start(e.n)) continue;  // a duplicate pushed by another user: the first one is handling it
        const Node* nn = e.new_n;
        if (settled(nn)) {
          set_replace(e.n, nn);
          continue;
        }
        if (bpm_) try {
          // rewrite this node to a fixed point before looking at its sources. A rewrite to one of the
          // node's own sources descends a finite graph (x+0 -> x down a long chain), so only the
          // others count toward the limit; a set, not a list, keeps a 100,000-step descent linear.
          std::optional<PtrMap<char>> seen;
          std::size_t grew = 0;
          while (const Node* r = cached_bpm_rewrite(nn)) {
            if (!seen) seen.emplace().set(nn, 1);
            if (seen->contains(r)) fail("rules rewrite in a cycle", nn);
            bool descends = false;
            for (const UOp& s : nn->src) descends = descends || s.node() == r;
            if (!descends && ++grew > opt_.max_rewrites_per_node) fail("rules did not settle on one node", nn);
            seen->set(r, 1);
            nn = r;
          }
        } catch (const BottomUpGate&) {
          set_replace(e.n, nn);  // the gate keeps the node as it is now; its sources are not visited
          continue;
        }
        skip_call_body(nn);
        stack_.push({e.n, nn, e.gen, 1});
        for (const UOp& s : nn->src) prefetch_node(s.node());
        for (auto it = nn->src.rbegin(); it != nn->src.rend(); ++it) {
          const Node* x = it->node();
          if (started_or_done(x)) continue;
          // a settled source (a constant, a variable, a graph an earlier rewrite settled) is its own
          // result, as its own step would find: no step for it
          if (settled(x)) start(x), set_replace(x, x);
          else stack_.push({x, x, 0, 0});
        }
      } else if (e.stage == 1) {
        const Node* nn = e.new_n;
        bool ready = true, changed = false;
        for (const UOp& x : nn->src) {
          const Node* rx = done(x.node());
          if (!rx) {
            add_wait(x.node(), e);  // a source is not done yet: wait for it instead of spinning
            ready = false;
            break;
          }
          changed |= rx != x.node();
        }
        if (!ready) continue;
        Step next;
        if (!changed) {
          if (!(next.n = rewrite(nn))) {
            if (settle_own_) mark_settled(nn);
            set_replace(e.n, nn);
            continue;
          }
          next.gen = e.gen + 1;
        } else {
          SrcPtrs ptrs(nn->src.size());
          for (std::size_t i = 0; i < nn->src.size(); ++i) ptrs[i] = done(nn->src[i].node());
          next = rebuild(nn, ptrs.span(), e.gen);
        }
        if (next.gen > opt_.max_rewrites_per_node) fail("rules did not settle on one node", next.n);
        // rewrite the new node, then link its result back to this one
        stack_.push({e.n, next.n, next.gen, 2});
        stack_.push({next.n, next.n, next.gen, 0});
      } else {
        if (const Node* r = done(e.new_n)) set_replace(e.n, r);
        else add_wait(e.new_n, e);
      }
    }
    const Node* out = done(root);
    if (!out) fail("a rule rebuilt a node from its own result, so rewriting cannot finish", root);
    return out;
  }

  const Node* walk_rewrite(const Node* root) {
    std::vector<std::pair<const Node*, bool>> st{{root, false}};
    while (!st.empty()) {
      auto [n, processed] = st.back();
      st.pop_back();
      if (done(n)) continue;
      if (!processed) {
        if (bpm_) {
          try {
            if (const Node* r = cached_bpm_rewrite(n)) { set_rep(n, r); continue; }
          } catch (const BottomUpGate&) {
            set_rep(n, n);  // the gate keeps the node; its sources are not visited
            continue;
          }
        }
        st.emplace_back(n, true);
        skip_call_body(n);
        for (auto it = n->src.rbegin(); it != n->src.rend(); ++it)
          if (!done(it->node())) st.emplace_back(it->node(), false);
      } else {
        bool changed = false;
        for (const UOp& x : n->src) {
          const Node* r = done(x.node());
          changed |= r && r != x.node();
        }
        const Node* nu = n;
        if (changed) {
          SrcPtrs ptrs(n->src.size());
          for (std::size_t i = 0; i < n->src.size(); ++i) {
            const Node* r = done(n->src[i].node());
            ptrs[i] = r ? r : n->src[i].node();
          }
          nu = keep(intern(n->op, n->dtype, ptrs.span(), Arg(n->arg), Arg(n->tag)));
        }
        if (const Node* r = rewrite(nu)) nu = r;
        set_rep(n, nu);
      }
    }
    return done(root);
  }

  const PM* pm_;
  const BPM* bpm_;
  Ctx* ctx_;
  RewriteOptions opt_;
  std::uint16_t settle_own_ = 0, settle_marks_ = 0;
  LaneHold lane_;
  const std::uint32_t epoch_ = lane_.epoch();  // nonzero while this walk holds the lane (uop.hpp)
  std::unique_ptr<RewriteScratch> scratch_ = ScratchPool::take();
  std::vector<Slot>& lane_slots_ = scratch_->lane_slots;
  PtrMap<Slot>& slots_ = scratch_->slots;
  std::vector<std::vector<Entry>>& waits_ = scratch_->waits;
  EntryStack& stack_ = scratch_->stack;
  std::vector<UOp>& keep_ = scratch_->keep;
  std::array<int, 32> recent_ = [] { std::array<int, 32> a{}; a.fill(-1); return a; }();
  std::size_t recent_pos_ = 0;
};

}  // namespace detail

namespace detail {
// substitute's rewriter: a node in the map becomes its value
struct SubstituteMap {
  PtrMap<UOp> map;
  std::optional<UOp> rewrite_view(NodeRef n, NoCtx*, int* fired) const {
    const UOp* r = map.find(n.p);
    if (!r) return std::nullopt;
    if (fired) *fired = 0;
    return *r;
  }
  std::string describe(std::size_t) const { return "substitute: the map leads from a node back to itself"; }
};
// an extra rewriter tried first, then the map (tinygrad's extra_pm + _substitute)
template <class RW> struct SubstituteWith {
  const RW& extra;
  const SubstituteMap& map;
  std::optional<UOp> rewrite_view(NodeRef n, NoCtx* ctx, int* fired) const {
    if (auto r = extra.rewrite_view(n, ctx, fired)) return r;
    if (auto r = map.rewrite_view(n, ctx, fired)) {
      if (fired) *fired = map_fired;
      return r;
    }
    return std::nullopt;
  }
  static constexpr int map_fired = 1 << 20;
  std::string describe(std::size_t i) const { return i == std::size_t(map_fired) ? map.describe(0) : extra.describe(i); }
};
// no extra rules
struct NoRules {
  std::optional<UOp> rewrite_view(NodeRef, NoCtx*, int*) const { return std::nullopt; }
  std::string describe(std::size_t) const { return {}; }
};
}  // namespace detail

namespace detail {
// the map as substitute's rewriter looks it up (a pair of a node and itself is no replacement)
template <class = void> SubstituteMap substitute_map(const std::vector<std::pair<UOp, UOp>>& map) {
  SubstituteMap sm;
  for (const auto& [k, v] : map) {
    if (!k || !v) throw Error("substitute: the map holds a null UOp (" + std::string(k ? "a value" : "a key") + ")");
    if (!(k == v)) sm.map.set(k.node(), v);
  }
  return sm;
}
// defined in walk.hpp, which this header's includer may be in the middle of (walk.hpp -> uop.hpp -> here)
inline std::vector<const Node*> topo_nodes(const Node* root);
// substitute's common case without the rewrite engine. When no replacement has a key in its graph, a
// replaced node is not replaced again and nothing below a replacement changes, so the engine's answer is
// one walk, sources first: a key becomes its value, a node some source of which changed is rebuilt, and a
// rebuilt node that is itself a key becomes that key's value (the engine rewrites a rebuilt node again).
// nullopt when that case does not hold, or when the graph has a CALL / FUNCTION (whose body the engine
// leaves alone, depending on the order it meets it): the engine then does the substitution. Most
// substitutions are of this kind (a range by an expression of a new range, an expression by a variable
// and back), and most run inside a rewrite, where the engine keeps its state in a hash table anyway.
template <class = void>
std::optional<UOp> substitute_direct(const Node* root, const SubstituteMap& sm, const std::vector<std::pair<UOp, UOp>>& map) {
  for (const auto& [k, v] : map) {
    if (v.node()->src.empty()) {
      if (sm.map.contains(v.node())) return std::nullopt;
      continue;
    }
    for (const Node* x : topo_nodes(v.node())) if (sm.map.contains(x)) return std::nullopt;
  }
  // what each node of the graph becomes: in the nodes when this walk holds the walk lane (a substitute
  // not nested in another walk), else in a table
  const LaneHold lane;
  const std::uint32_t epoch = lane.epoch();
  PtrMap<const Node*> table;
  auto done = [&](const Node* n) -> const Node* {
    if (epoch) return n->walk_epoch == epoch ? n->walk_rep : nullptr;
    const Node* const* r = table.find(n);
    return r ? *r : nullptr;
  };
  auto set_done = [&](const Node* n, const Node* r) {
    if (epoch) n->walk_epoch = epoch, n->walk_rep = r;
    else table.set(n, r);
  };
  std::vector<UOp> made;  // the nodes rebuilt, alive until the result holds them
  std::vector<std::pair<const Node*, bool>> stack{{root, false}};
  while (!stack.empty()) {
    const auto [n, visited] = stack.back();
    stack.pop_back();
    if (done(n)) continue;
    if (!visited) {
      if (const UOp* r = sm.map.find(n)) {
        set_done(n, r->node());
        continue;
      }
      if ((n->op == Ops::CALL || n->op == Ops::FUNCTION) && !n->src.empty()) return std::nullopt;
      stack.emplace_back(n, true);
      for (auto it = n->src.rbegin(); it != n->src.rend(); ++it)
        if (!done(it->node())) stack.emplace_back(it->node(), false);
      continue;
    }
    bool changed = false;
    SrcPtrs ptrs(n->src.size());
    for (std::size_t i = 0; i < n->src.size(); ++i) changed |= (ptrs[i] = done(n->src[i].node())) != n->src[i].node();
    const Node* out = n;
    if (changed) {
      made.push_back(adopt(intern(n->op, n->dtype, ptrs.span(), Arg(n->arg), Arg(n->tag))));
      out = made.back().node();
      if (const UOp* r = sm.map.find(out)) out = r->node();
    }
    set_done(n, out);
  }
  return UOp::from_node(done(root));
}
// substitute by the rewrite engine, bottom-up: the map's rewriter after the extra rules
template <class RW> UOp substitute_by_engine(const UOp& root, const SubstituteMap& sm, const RW& extra, bool walk) {
  const SubstituteWith<RW> both{extra, sm};
  NoCtx none;
  return RewriteEngine<SubstituteWith<RW>, NoCtx>(both, &none, {.bottom_up = true, .walk = walk}).run(root);
}
}  // namespace detail

// Replace nodes by others everywhere below this one, as tinygrad's substitute: a replaced node is
// replaced again while its replacement is in the map, and the replacement's sources are visited too.
// walk = true is tinygrad's substitute(walk=True): one pass, a replacement is left as it is.
template <class> UOp UOp::substitute(const std::vector<std::pair<UOp, UOp>>& map, bool walk) const {
  const detail::SubstituteMap sm = detail::substitute_map(map);
  if (sm.map.size() == 0) return *this;
  if (!walk && p_)
    if (auto r = detail::substitute_direct(p_, sm, map)) return *r;
  return detail::substitute_by_engine(*this, sm, detail::NoRules{}, walk);
}
template <class RW>
inline UOp UOp::substitute(const std::vector<std::pair<UOp, UOp>>& map, const RW& extra, bool walk) const {
  const detail::SubstituteMap sm = detail::substitute_map(map);
  if (sm.map.size() == 0) return *this;
  return detail::substitute_by_engine(*this, sm, extra, walk);
}

}  // namespace mg
