#pragma once
// The rewrite driver behind graph_rewrite and substitute: tinygrad's unified_rewrite and walk_rewrite,
// iterative and memoized, generic over the rewriter. A rewriter is anything with
//   std::optional<UOp> rewrite_view(NodeRef n, Ctx* ctx, int* fired)   // a replacement for n, or none
//   std::string describe(std::size_t fired)                              // names what fired, for errors
// (pattern/rules.hpp's RuleSet is one). A rewriter that never settles raises mg::RewriteError.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "error.hpp"
#include "ptr_map.hpp"
#include "uop.hpp"

namespace mg {

struct RewriteOptions {
  bool bottom_up = false;    // rewrite a node before its sources (tinygrad's bottom_up=True)
  bool walk = false;         // single pass, no re-traversal into rewritten subtrees
  bool enter_calls = false;  // also rewrite the body (src[0]) of CALL and FUNCTION
  std::size_t max_rewrites_per_node = 10000;  // successive rewrites at one place before giving up
};

namespace detail {

template <class RS, class Ctx>
class RewriteEngine {
 public:
  RewriteEngine(const RS& rs, Ctx* ctx, RewriteOptions opt) : rs_(rs), ctx_(ctx), opt_(opt) {}

  UOp run(const UOp& root) {
    if (!root) return root;
    return opt_.walk ? walk_rewrite(root) : unified_rewrite(root);
  }

 private:
  struct Entry {
    const Node* n;
    int stage;
    UOp new_n;
    std::size_t gen;  // how many rewrites in a row led to this entry at this place
  };

  std::optional<UOp> rewrite(const UOp& u) {
    int fired = -1;
    auto r = rs_.rewrite_view(to_view(u), ctx_, &fired);
    if (r) {
      keep_.push_back(u);
      keep_.push_back(*r);
      recent_[recent_pos_++ % recent_.size()] = fired;
      ++nrewrites_;
    }
    return r;
  }
  std::optional<UOp> cached_bpm_rewrite(const UOp& u) {
    if (auto* c = bpm_cache_.find(u.node())) return *c;
    auto r = rewrite(u);
    bpm_cache_.set(u.node(), r);
    return r;
  }

  [[noreturn]] void fail(const std::string& why, const UOp& at) {
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
    for (int r : seen) msg += "\n    " + rs_.describe(std::size_t(r));
    throw RewriteError(msg);
  }

  void set_replace(const Node* n, UOp v) {
    replace_.set(n, std::move(v));
    if (auto* w = waitlist_.find(n); w && !w->empty()) {
      for (auto& e : *w) stack_.push_back(std::move(e));
      w->clear();
    }
  }

  UOp unified_rewrite(const UOp& root) {
    stack_.push_back({root.node(), 0, root, 0});
    on_stack_.set(root.node(), 1);
    const bool bpm = opt_.bottom_up;
    while (!stack_.empty()) {
      Entry e = std::move(stack_.back());
      stack_.pop_back();
      if (replace_.contains(e.n)) continue;
      if (e.stage == 0) {
        UOp new_n = e.new_n;
        if (bpm) {
          // rewrite this node to a fixed point before looking at its sources. A rewrite to one of the
          // node's own sources descends a finite graph (x+0 -> x down a long chain), so only the
          // others count toward the limit; a set, not a list, keeps a 100,000-step descent linear.
          std::optional<PtrMap<char>> seen;
          std::size_t grew = 0;
          while (auto r = cached_bpm_rewrite(new_n)) {
            if (!seen) seen.emplace().set(new_n.node(), 1);
            if (seen->contains(r->node())) fail("rules rewrite in a cycle", new_n);
            bool descends = false;
            for (const UOp& s : new_n.src()) descends = descends || s == *r;
            if (!descends && ++grew > opt_.max_rewrites_per_node) fail("rules did not settle on one node", new_n);
            seen->set(r->node(), 1);
            new_n = std::move(*r);
          }
        }
        const Node* nn = new_n.node();
        if (!opt_.enter_calls && (nn->op == Ops::CALL || nn->op == Ops::FUNCTION) && !nn->src.empty())
          replace_.set(nn->src[0].node(), nn->src[0]);
        stack_.push_back({e.n, 1, new_n, e.gen});
        for (auto it = nn->src.rbegin(); it != nn->src.rend(); ++it) {
          if (on_stack_.contains(it->node())) continue;
          stack_.push_back({it->node(), 0, *it, 0});
          on_stack_.set(it->node(), 1);
        }
      } else if (e.stage == 1) {
        const Node* nn = e.new_n.node();
        bool ready = true, changed = false;
        for (const UOp& x : nn->src) {
          UOp* rx = replace_.find(x.node());
          if (!rx) {
            // a source is not done yet: wait for it instead of spinning
            add_wait(x.node(), std::move(e));
            ready = false;
            break;
          }
          changed |= !(*rx == x);
        }
        if (!ready) continue;
        UOp new_src_n;
        if (!changed) {
          std::optional<UOp> r;
          if (bpm || !(r = rewrite(e.new_n))) {
            set_replace(e.n, std::move(e.new_n));
            continue;
          }
          new_src_n = std::move(*r);
        } else {
          std::vector<UOp> ns;
          ns.reserve(nn->src.size());
          for (const UOp& x : nn->src) ns.push_back(*replace_.find(x.node()));
          new_src_n = UOp(nn->op, nn->dtype, std::move(ns), nn->arg, nn->tag);
          keep_.push_back(new_src_n);
        }
        if (e.gen >= opt_.max_rewrites_per_node) fail("rules did not settle on one node", new_src_n);
        // rewrite the new node, then link its result back to this one
        const Node* target = new_src_n.node();
        stack_.push_back({e.n, 2, new_src_n, e.gen + 1});
        stack_.push_back({target, 0, std::move(new_src_n), e.gen + 1});
      } else {
        if (UOp* r = replace_.find(e.new_n.node())) {
          set_replace(e.n, *r);
        } else {
          const Node* key = e.new_n.node();
          add_wait(key, std::move(e));
        }
      }
    }
    UOp* out = replace_.find(root.node());
    if (!out) fail("a rule rebuilt a node from its own result, so rewriting cannot finish", root);
    return *out;
  }

  void add_wait(const Node* key, Entry e) {
    if (auto* w = waitlist_.find(key)) w->push_back(std::move(e));
    else waitlist_.set(key, {}).push_back(std::move(e));
  }

  UOp walk_rewrite(const UOp& root) {
    std::vector<std::pair<const Node*, bool>> st{{root.node(), false}};
    while (!st.empty()) {
      auto [n, processed] = st.back();
      st.pop_back();
      if (replace_.contains(n)) continue;
      UOp u = UOp::from_node(n);
      if (!processed) {
        if (opt_.bottom_up) {
          if (auto r = cached_bpm_rewrite(u)) { replace_.set(n, std::move(*r)); continue; }
        }
        st.emplace_back(n, true);
        if (!opt_.enter_calls && (n->op == Ops::CALL || n->op == Ops::FUNCTION) && !n->src.empty())
          replace_.set(n->src[0].node(), n->src[0]);
        for (auto it = n->src.rbegin(); it != n->src.rend(); ++it)
          if (!replace_.contains(it->node())) st.emplace_back(it->node(), false);
      } else {
        std::vector<UOp> ns;
        bool changed = false;
        for (const UOp& x : n->src) {
          UOp* r = replace_.find(x.node());
          ns.push_back(r ? *r : x);
          changed |= !(ns.back() == x);
        }
        UOp nu = changed ? UOp(n->op, n->dtype, std::move(ns), n->arg, n->tag) : u;
        if (changed) keep_.push_back(nu);
        if (!opt_.bottom_up) if (auto r = rewrite(nu)) nu = std::move(*r);
        replace_.set(n, std::move(nu));
      }
    }
    return *replace_.find(root.node());
  }

  const RS& rs_;
  Ctx* ctx_;
  RewriteOptions opt_;
  PtrMap<UOp> replace_;
  PtrMap<std::optional<UOp>> bpm_cache_;
  PtrMap<char> on_stack_;
  PtrMap<std::vector<Entry>> waitlist_;
  std::vector<Entry> stack_;
  // the memo tables are keyed by node address: every node made during the rewrite stays alive until
  // the end, so no address is reused by a different node while a table still names it
  std::vector<UOp> keep_;
  std::array<int, 32> recent_ = [] { std::array<int, 32> a{}; a.fill(-1); return a; }();
  std::size_t recent_pos_ = 0, nrewrites_ = 0;
};

}  // namespace detail

}  // namespace mg
