#pragma once
// UOp: the interned, immutable, reference-counted graph node (op, dtype, src, arg, tag).
// Building a structurally equal node returns the same node, so equality is pointer equality.
// Nodes leave the intern table when the last handle dies; destruction is iterative, so a
// 100,000-deep chain dies without recursion. Interning is thread-safe (sharded locks).
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "mutex.hpp"
#include "arg.hpp"
#include "symval.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "sanitizer.hpp"
#include "small_vec.hpp"
#include "thread_cache.hpp"

namespace mg {

class UOp;
namespace detail {
struct Node;
void release(Node* n) noexcept;
// Base of what a layer attaches to a node (UOp::attach): destroyed with the node.
struct Attachment {
  virtual ~Attachment() = default;
};
UOp adopt(Node* n) noexcept;  // a handle that takes over one reference the caller owns
Node* disown(UOp& u) noexcept;  // empties a handle without giving back its reference
}  // namespace detail

// A handle on an interned node. Null when default-constructed. Copy = one atomic increment.
class UOp {
 public:
  UOp() = default;
  // tinygrad's UOp(op, dtype, src, arg, tag): interns and returns the unique node
  UOp(Ops op, DType dtype = dtypes::void_, const std::vector<UOp>& src = {}, Arg arg = {}, Arg tag = {})
      : UOp(op, dtype, std::span<const UOp>(src), std::move(arg), std::move(tag)) {}
  UOp(Ops op, DType dtype, std::initializer_list<UOp> src, Arg arg = {}, Arg tag = {})
      : UOp(op, dtype, std::span<const UOp>(src.begin(), src.size()), std::move(arg), std::move(tag)) {}
  UOp(Ops op, DType dtype, std::span<const UOp> src, Arg arg = {}, Arg tag = {});
  UOp(const UOp& o) noexcept;
  UOp(UOp&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  UOp& operator=(const UOp& o) noexcept;
  UOp& operator=(UOp&& o) noexcept;
  ~UOp() { if (p_) detail::release(p_); }

  // ---- fields ----
  Ops op() const;
  DType dtype() const;
  const Arg& arg() const;
  const Arg& tag() const;
  std::span<const UOp> src() const;
  const UOp& src(std::size_t i) const;
  std::size_t nsrc() const;
  std::size_t hash() const;
  explicit operator bool() const { return p_ != nullptr; }
  bool null() const { return p_ == nullptr; }
  // identity: interned nodes are equal exactly when they are the same node
  friend bool operator==(const UOp& a, const UOp& b) { return a.p_ == b.p_; }
  const detail::Node* node() const { return p_; }
  static UOp from_node(const detail::Node* n);  // adds a reference

  // ---- construction ----
  struct Fields {
    std::optional<Ops> op{};
    std::optional<DType> dtype{};
    std::optional<std::vector<UOp>> src{};
    std::optional<Arg> arg{};
    std::optional<Arg> tag{};
  };
  // tinygrad's replace(op=..., src=...): x.replace({.src = {a, b}})
  UOp replace(const Fields& f) const;
  UOp rtag(Arg tag = true) const { return replace({.tag = std::move(tag)}); }

  static UOp const_(DType dtype, Arg value);
  static UOp const_(DType dtype, std::initializer_list<Arg> values);  // vector constant
  UOp const_like(Arg value) const { return const_(dtype().base(), std::move(value)); }
  static UOp variable(std::string name, std::int64_t min, std::int64_t max, DType dtype = dtypes::weakint);
  static UOp define_var(std::string name, std::int64_t min, std::int64_t max, DType dtype = dtypes::weakint) {
    return variable(std::move(name), min, max, dtype);
  }
  static UOp invalid(int count = 1) { return UOp(Ops::CONST, dtypes::weakint.vec(count), {}, Invalid{}); }
  static UOp range(const UOp& end, std::int64_t axis_id, AxisType type = AxisType::LOOP);
  static UOp range(std::int64_t end, std::int64_t axis_id, AxisType type = AxisType::LOOP) {
    return range(const_(dtypes::weakint, end), axis_id, type);
  }
  static UOp special(const UOp& end, std::string name) { return UOp(Ops::SPECIAL, dtypes::weakint, {end}, std::move(name)); }
  static UOp param(std::int64_t slot, DType dtype, ParamArg extra = {}, std::vector<UOp> src = {});
  template <class... U> static UOp sink(const U&... srcs) { return UOp(Ops::SINK, dtypes::void_, {srcs...}); }
  static UOp sink(std::vector<UOp> srcs) { return UOp(Ops::SINK, dtypes::void_, std::move(srcs)); }
  static UOp group(std::vector<UOp> srcs) {
    if (srcs.size() == 1) return srcs[0];
    return UOp(Ops::GROUP, dtypes::void_, std::move(srcs));
  }

  UOp alu(Ops op) const { return alu_(op, std::array{p_}); }
  UOp alu(Ops op, const UOp& b) const { return alu_(op, std::array{p_, b.p_}); }
  UOp alu(Ops op, const UOp& b, const UOp& c) const { return alu_(op, std::array{p_, b.p_, c.p_}); }
  UOp alu(Ops op, const std::vector<UOp>& more) const;
  UOp ufix(Arg x) const { return const_like(std::move(x)); }
  UOp cast(DType dt) const;
  UOp bitcast(DType dt) const { return dtype() == dt ? *this : UOp(Ops::BITCAST, dt, {*this}); }
  UOp where(const UOp& x, const UOp& y) const { return alu(Ops::WHERE, x, y); }
  UOp where(const UOp& x, Arg y) const { return where(x, x.const_like(std::move(y))); }
  UOp where(Arg x, const UOp& y) const { return where(y.const_like(std::move(x)), y); }
  UOp neg() const { return dtype().scalar().is_bool() ? logical_not() : *this * const_like(-1); }
  UOp logical_not() const { return cast(dtypes::bool_).ne(Arg(true)); }
  UOp exp2() const { return alu(Ops::EXP2); }
  UOp log2() const { return alu(Ops::LOG2); }
  UOp sin() const { return alu(Ops::SIN); }
  UOp sqrt() const { return alu(Ops::SQRT); }
  UOp reciprocal() const { return alu(Ops::RECIPROCAL); }
  UOp trunc() const { return alu(Ops::TRUNC); }
  UOp maximum(const UOp& x) const { return alu(Ops::MAX, x); }
  UOp maximum(Arg x) const { return maximum(ufix(std::move(x))); }
  // tinygrad's _inverse: -x for floats, ~x otherwise (no overflow at the int minimum)
  UOp minimum(const UOp& x) const {
    auto inv = [](const UOp& u) { return u.dtype().is_float() ? -u : ~u; };
    return inv(inv(*this).maximum(inv(x)));
  }
  UOp ne(const UOp& x) const { return alu(Ops::CMPNE, x); }
  UOp ne(Arg x) const { return ne(ufix(std::move(x))); }
  UOp eq(const UOp& x) const { return ne(x).logical_not(); }
  UOp eq(Arg x) const { return eq(ufix(std::move(x))); }
  UOp floordiv(const UOp& x) const { return alu(Ops::FLOORDIV, x); }
  UOp floormod(const UOp& x) const { return alu(Ops::FLOORMOD, x); }
  UOp cdiv(const UOp& x) const { return alu(Ops::CDIV, x); }
  UOp cmod(const UOp& x) const { return alu(Ops::CMOD, x); }
  UOp pow(const UOp& x) const { return alu(Ops::POW, x); }
  // the ALU ops without an operator of their own: each is one node, as tinygrad's alu(Ops.X, ...)
  UOp cmplt(const UOp& x) const { return alu(Ops::CMPLT, x); }
  UOp cmpne(const UOp& x) const { return alu(Ops::CMPNE, x); }
  UOp cmpeq(const UOp& x) const { return alu(Ops::CMPEQ, x); }
  UOp sub(const UOp& x) const { return alu(Ops::SUB, x); }
  UOp fdiv(const UOp& x) const { return alu(Ops::FDIV, x); }
  UOp threefry(const UOp& key) const { return alu(Ops::THREEFRY, key); }
  UOp mulacc(const UOp& b, const UOp& c) const { return alu(Ops::MULACC, b, c); }

  UOp index(std::vector<UOp> idx, bool ptr = false) const;
  UOp load(std::vector<UOp> more = {}) const;
  UOp store(const UOp& value, std::optional<UOp> gate = std::nullopt) const;
  UOp end(std::vector<UOp> ranges) const { return ranges.empty() ? *this : with_first(Ops::END, dtypes::void_, ranges); }
  UOp after(std::vector<UOp> deps) const { return deps.empty() ? *this : with_first(Ops::AFTER, dtype(), deps); }
  UOp reduce(Ops op, std::vector<UOp> ranges) const {
    return with_first(Ops::REDUCE, dtype(), ranges, Arg(ArgTuple{Arg(op), Arg(ArgTuple{})}));
  }
  UOp gep(std::vector<int> idx) const;
  UOp gep(int i) const;
  UOp vectorize(std::vector<UOp> more) const;  // STACK of this and more
  static UOp stack(std::vector<UOp> srcs);
  UOp broadcast(int count) const;
  UOp bind(std::int64_t val) const;
  UOp valid(const UOp& cond) const { return cond.where(cast(dtypes::weakint), invalid(dtype().count)); }

  // ---- graph queries ----
  std::vector<UOp> toposort() const;  // sources before users; iterative
  template <class = void> UOp substitute(const std::vector<std::pair<UOp, UOp>>& map, bool walk = false) const;
  // tinygrad's substitute(map, extra_pm=...): the extra rewriter (a rule set) is tried on each node first
  template <class RW> UOp substitute(const std::vector<std::pair<UOp, UOp>>& map, const RW& extra, bool walk = false) const;
  template <class = void> std::optional<AddrSpace> addrspace() const;
  const std::string& expr() const;  // a DEFINE_VAR's name

  // ---- symbolic queries (core/bounds.hpp, core/algebra.hpp) ----
  // tinygrad's vmin/vmax: bounds on every value this node can take, computed once per node
  template <class = void> SymVal vmin() const { return min_max().first; }
  template <class = void> SymVal vmax() const { return min_max().second; }
  template <class = void> const std::pair<SymVal, SymVal>& min_max() const;
  template <class = void> bool overflows(DType dt) const;  // some value is outside dt's range
  template <class = void> std::vector<UOp> split_uop(Ops sep) const;  // the terms of a chain of sep: a+b+c -> {a, b, c}
  template <class = void> std::int64_t const_factor() const;          // the largest known int that divides this
  template <class = void> std::optional<UOp> divides(std::int64_t v) const;  // this/v when it divides exactly
  template <class = void> std::optional<UOp> divide_exact(const UOp& v) const;
  std::pair<UOp, Arg> pop_const(Ops op = Ops::ADD) const;  // (x, c) for x op c, else (this, identity)
  template <class = void> static UOp gcd(std::span<const UOp> uops);
  static UOp usum(std::span<const UOp> uops);   // uops[0] + uops[1] + ... (| for bools)
  static UOp uprod(std::span<const UOp> uops);  // uops[0] * uops[1] * ... (& for bools)

  // ---- attached data (a BUFFER's storage): lives as long as the node, once set it stays ----
  // attaches a, or returns the attachment another caller set first (a is then dropped)
  detail::Attachment* attach(std::unique_ptr<detail::Attachment> a) const;
  detail::Attachment* attachment() const;

  // ---- printing ----
  template <class = void> std::string repr() const;    // tinygrad's UOp(Ops.ADD, dtypes.int, arg=None, src=(...)) form
  template <class = void> std::string render() const;  // infix render of integer expressions: (a*4+b)

  // C++ operators build ALU nodes like tinygrad's Python operators (/ and % are Python's // and %)
  friend UOp operator+(const UOp& a, const UOp& b) { return a.alu(Ops::ADD, b); }
  friend UOp operator*(const UOp& a, const UOp& b) { return a.alu(Ops::MUL, b); }
  friend UOp operator-(const UOp& a) { return a.neg(); }
  friend UOp operator-(const UOp& a, const UOp& b) { return a + (-b); }
  friend UOp operator/(const UOp& a, const UOp& b) {
    return a.dtype().is_float() ? a * b.reciprocal() : a.floordiv(b);
  }
  friend UOp operator%(const UOp& a, const UOp& b) { return a.floormod(b); }
  friend UOp operator&(const UOp& a, const UOp& b) { return a.alu(Ops::AND, b); }
  friend UOp operator|(const UOp& a, const UOp& b) { return a.alu(Ops::OR, b); }
  friend UOp operator^(const UOp& a, const UOp& b) { return a.alu(Ops::XOR, b); }
  friend UOp operator<<(const UOp& a, const UOp& b) { return a.alu(Ops::SHL, b); }
  friend UOp operator>>(const UOp& a, const UOp& b) { return a.alu(Ops::SHR, b); }
  friend UOp operator<(const UOp& a, const UOp& b) { return a.alu(Ops::CMPLT, b); }
  friend UOp operator>(const UOp& a, const UOp& b) { return b.alu(Ops::CMPLT, a); }
  friend UOp operator>=(const UOp& a, const UOp& b) { return (a < b).logical_not(); }
  friend UOp operator<=(const UOp& a, const UOp& b) { return (a > b).logical_not(); }
  friend UOp operator~(const UOp& a) { return a.dtype().is_bool() ? a.logical_not() : a ^ a.const_like(-1); }
#define MG_UOP_CONST_OPS(OP)                                                                          \
  template <class C> requires std::is_arithmetic_v<C>                                               \
  friend UOp operator OP(const UOp& a, C c) { return a OP a.const_like(Arg(c)); }                  \
  template <class C> requires std::is_arithmetic_v<C>                                               \
  friend UOp operator OP(C c, const UOp& b) { return b.const_like(Arg(c)) OP b; }
  MG_UOP_CONST_OPS(+) MG_UOP_CONST_OPS(*) MG_UOP_CONST_OPS(-) MG_UOP_CONST_OPS(/) MG_UOP_CONST_OPS(%)
  MG_UOP_CONST_OPS(&) MG_UOP_CONST_OPS(|) MG_UOP_CONST_OPS(^) MG_UOP_CONST_OPS(<<) MG_UOP_CONST_OPS(>>)
  MG_UOP_CONST_OPS(<) MG_UOP_CONST_OPS(>) MG_UOP_CONST_OPS(<=) MG_UOP_CONST_OPS(>=)
#undef MG_UOP_CONST_OPS

 private:
  friend struct detail::Node;
  friend void detail::release(detail::Node*) noexcept;
  friend UOp detail::adopt(detail::Node*) noexcept;
  friend detail::Node* detail::disown(UOp&) noexcept;
  // the builders' one path: checks the sources, derives the dtype, interns without a vector of handles
  static UOp alu_(Ops op, std::span<const detail::Node* const> srcs);
  UOp with_first(Ops op, DType dt, const std::vector<UOp>& rest, Arg arg = {}) const;
  // interns from source pointers; a null source is an error (it would poison every walk over the graph)
  static UOp from_ptrs(Ops op, DType dt, std::span<const detail::Node* const> src, Arg&& arg, Arg&& tag);
  explicit UOp(detail::Node* adopt) noexcept : p_(adopt) {}  // takes over one reference
  const detail::Node* checked() const {
    if (!p_) [[unlikely]] null_use();
    return p_;
  }
  // the errors of the accessors, out of line: the accessors stay small enough to inline
  [[noreturn, gnu::cold, gnu::noinline]] static void null_use() {
    throw Error("UOp: use of a null UOp (default-constructed, or a rule's unbound capture)");
  }
  [[noreturn, gnu::cold, gnu::noinline]] static void src_out_of_range(Ops op, std::size_t i, std::size_t n) {
    throw Error("UOp::src(" + std::to_string(i) + "): " + op_repr(op) + " has " + std::to_string(n) + " sources");
  }
  detail::Node* p_ = nullptr;
};

namespace detail {

// A node and its sources are one allocation: the sources live right after the node (see make_node).
struct Node {
  mutable std::atomic<std::uint32_t> rc{1};
  Ops op;
  // settled rule sets (core/rewrite.hpp, settle_bit): bit k set when this node and everything below it
  // are fixed points of the k-th pure rule set, so a later rewrite by that set need not look at them
  mutable std::atomic<std::uint16_t> settled;
  DType dtype;
  std::span<UOp> src;
  Arg arg, tag;
  std::size_t hash;
  // scratch for the one rewrite that holds the walk lane (core/rewrite.hpp): which walk last marked
  // this node, that walk's state bits for it, and its replacement once the walk has one
  mutable std::uint32_t walk_epoch, walk_bits;
  mutable const Node* walk_rep;
  // vmin/vmax, computed on first use (core/bounds.hpp) and freed with the node
  mutable std::atomic<const std::pair<SymVal, SymVal>*> bounds;
  // data a later layer keeps with this node for as long as it lives (a BUFFER's storage); see UOp::attach
  mutable std::atomic<Attachment*> attachment;
};

inline std::size_t mix(std::size_t h, std::size_t v) { return (h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2))) * 0xff51afd7ed558ccdull; }
// Sources hash by identity (an interned node is its address), so hashing never reads a source node.
inline std::size_t node_hash(Ops op, DType dt, std::span<const Node* const> src, const Arg& arg, const Arg& tag) {
  std::size_t h = mix(std::size_t(op) + 1, dt.hash());
  for (const Node* s : src) h = mix(h, reinterpret_cast<std::uintptr_t>(s));
  h = mix(mix(h, arg.hash()), tag.hash());
  return h ^ (h >> 29);
}

// One shard of the intern table: open addressing with linear probing and backward-shift deletion.
// An entry is one word: the node's address, with the low 16 bits of its hash in the top 16 bits (user
// space addresses fit in 48), so a 64-byte line holds eight entries and a probe reads a node only when
// those bits match. Every intern and every node's death probes the table at random, so its size is
// what misses the cache: one word an entry instead of the pair (hash, address) took a third of those
// misses away (ResNet-50's compile, simulated 1 MB cache). An address that does not fit (a tagged
// pointer) turns the tags off: the set keeps bare addresses and compares every node it meets.
class NodeSet {
 public:
  template <class Eq> Node* find(std::size_t h, Eq&& eq) const {
    const std::uint64_t want = tagged_ ? tag(h) : 0, tmask = tagged_ ? tag_bits : 0;
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const std::uint64_t e = t_[i];
      if (!e) return nullptr;
      if ((e & tmask) == want && eq(node(e))) return node(e);
    }
  }
  void insert(std::size_t h, Node* n) {
    if (tagged_ && (reinterpret_cast<std::uintptr_t>(n) & tag_bits)) untag();
    if ((size_ + 1) * 2 > t_.size()) grow();
    place(entry(h, n), h);
    ++size_;
  }
  template <class F> void for_each(F&& f) const {
    for (const std::uint64_t e : t_) if (e) f(node(e));
  }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return t_.size(); }
  bool tagged() const { return tagged_; }
  // bare addresses from now on (what an address above 48 bits forces)
  void untag() { rebuild(t_.size(), false); }
  // removes exactly this node (a twin with the same key, made while it was dying, stays)
  bool erase(std::size_t h, const Node* n) {
    std::size_t i = h & mask_;
    for (;; i = (i + 1) & mask_) {
      if (!t_[i]) return false;
      if (node(t_[i]) == n) break;
    }
    for (std::size_t j = i;;) {  // shift later entries of the run back into the hole
      j = (j + 1) & mask_;
      if (!t_[j]) break;
      const std::size_t k = home(t_[j]);
      if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) t_[i] = t_[j], i = j;
    }
    t_[i] = 0;
    --size_;
    // a set a sixteenth full shrinks to an eighth: a peak (the first compile of a model) does not leave a
    // table far larger than what lives in it for every later probe to miss in, and a rewrite's usual
    // rise and fall does not rebuild it back and forth (erase runs in release, which cannot throw: a
    // shrink that cannot allocate leaves the table as it is)
    if (size_ * 16 < t_.size() && t_.size() > 64) try { rebuild(t_.size() / 2, tagged_); } catch (...) {}
    return true;
  }

 private:
  static constexpr std::uint64_t tag_bits = 0xffffull << 48, addr_bits = ~tag_bits;
  static std::uint64_t tag(std::size_t h) { return std::uint64_t(h & 0xffff) << 48; }
  std::uint64_t entry(std::size_t h, const Node* n) const { return reinterpret_cast<std::uintptr_t>(n) | (tagged_ ? tag(h) : 0); }
  Node* node(std::uint64_t e) const { return reinterpret_cast<Node*>(tagged_ ? e & addr_bits : e); }
  // the slot an entry's probe starts at: from its tag while the mask fits in it, else from the node
  std::size_t home(std::uint64_t e) const { return (tagged_ && mask_ <= 0xffff ? e >> 48 : node(e)->hash) & mask_; }
  void place(std::uint64_t e, std::size_t h) {
    std::size_t i = h & mask_;
    while (t_[i]) i = (i + 1) & mask_;
    t_[i] = e;
  }
  void rebuild(std::size_t cap, bool tagged) {
    std::vector<std::uint64_t> old(cap);
    old.swap(t_);
    const bool was = tagged_;
    auto node_of = [&](std::uint64_t e) { return reinterpret_cast<Node*>(was ? e & addr_bits : e); };
    tagged_ = tagged, mask_ = cap - 1;
    for (const std::uint64_t e : old)
      if (e) {  // the tag holds all the hash bits the new mask uses while it fits
        Node* n = node_of(e);
        const std::size_t h = was && tagged && mask_ <= 0xffff ? std::size_t(e >> 48) : n->hash;
        place(entry(h, n), h);
      }
  }
  void grow() { rebuild(t_.size() * 2, tagged_); }
  std::vector<std::uint64_t> t_ = std::vector<std::uint64_t>(16);
  std::size_t mask_ = 15, size_ = 0;
  bool tagged_ = true;
};

struct InternTable {
  static constexpr std::size_t nshards = 64;
  struct alignas(64) Shard {
    detail::Mutex m;
    NodeSet set;
  };
  std::array<Shard, nshards> shards;  // (the live count is the shards' sizes: no shared counter to bump)
  Shard& shard(std::size_t h) { return shards[(h >> 58) % nshards]; }
};
// one table for the whole program; never destroyed, so handles in static objects stay valid at exit
inline InternTable& intern_table() {
  static InternTable* t = new InternTable();
  return *t;
}

// The walk lane: one walk at a time (a rewrite, a toposort) keeps its per-node state in the nodes
// themselves (Node::walk_*), found with no hash probe. A walk that cannot take the lane (another thread
// has it, or it runs nested inside one that does) keeps its state in a hash table instead. Epochs tell
// this walk's marks from stale ones left by earlier walks.
struct WalkLane {
  std::atomic<bool> busy{false};
  std::uint32_t epoch = 0;  // written only by the lane's holder
};
inline WalkLane& walk_lane() {
  static WalkLane lane;
  return lane;
}
// Holds the lane for its scope when it is free: epoch() is this walk's mark then, 0 otherwise. When
// the epochs run out (2^32 walks), every live node's mark is cleared and they start again.
class LaneHold {
 public:
  LaneHold() {
    WalkLane& lane = walk_lane();
    if (lane.busy.exchange(true, std::memory_order_acquire)) return;
    if (lane.epoch == UINT32_MAX) {
      for (auto& sh : intern_table().shards) {
        LockGuard lock(sh.m);
        sh.set.for_each([](const Node* n) { n->walk_epoch = 0; });
      }
      lane.epoch = 0;
    }
    epoch_ = ++lane.epoch;
  }
  ~LaneHold() {
    if (epoch_) walk_lane().busy.store(false, std::memory_order_release);
  }
  LaneHold(const LaneHold&) = delete;
  LaneHold& operator=(const LaneHold&) = delete;
  std::uint32_t epoch() const { return epoch_; }

 private:
  std::uint32_t epoch_ = 0;
};

// Freed nodes of the common sizes (0 to 3 sources) wait in a per-thread list for the next node of their
// size: rewrites make and drop nodes at a high rate, and malloc's own per-thread cache keeps only a few
// blocks of a size. Off under AddressSanitizer, so that it still sees every use after free.
#ifndef MG_NODE_POOL
#define MG_NODE_POOL (!MG_ASAN)
#endif
// Per-thread free lists of `Classes` block sizes, one type per user (Tag): a block freed on a thread
// waits for the next block of its class there. A thousand kept a class: the pool serves the churn of a
// rewrite (nodes made and dropped in bursts; the ResNet-50 compile allocates some 560,000 nodes, and
// with 64 kept 229,000 of them went to malloc, at 340 instructions per alloc and free; with 1024, 49M
// instructions fewer in all). Kept by the many thousand, a graph built after many frees lands on
// scattered LIFO slots instead of malloc's contiguous ones, and every later walk over it pays: with
// 8192, bench_rewrite's toposort of 1M nodes took 1.7x as long as with malloc alone; with 1024 and
// with 64, the same.
template <class Tag, std::size_t Classes> struct BlockPool {
  static constexpr std::size_t max_kept = 1024;
  struct Free { Free* next; };
  std::array<Free*, Classes> head{};
  std::array<std::size_t, Classes> count{};
  // a block of class c, `bytes` long (every block of a class has the same size); a class past the
  // last one always goes to operator new
  static void* alloc(std::size_t c, std::size_t bytes) {
    if (MG_NODE_POOL && c < Classes)
      if (BlockPool* p = thread_cache<BlockPool>(); p && p->head[c]) {
        Free* f = p->head[c];
        p->head[c] = f->next, --p->count[c];
        return f;
      }
    return ::operator new(bytes);
  }
  static void free(void* mem, std::size_t c) noexcept {
    if (MG_NODE_POOL && c < Classes)
      if (BlockPool* p = thread_cache<BlockPool>(); p && p->count[c] < max_kept) {
        p->head[c] = new (mem) Free{p->head[c]}, ++p->count[c];
        return;
      }
    ::operator delete(mem);
  }
  ~BlockPool() {
    for (Free* f : head)
      while (f) ::operator delete(std::exchange(f, f->next));
  }
};
// nodes, by their source count (0 to 3: the common sizes)
struct NodePool {
  using Blocks = BlockPool<NodePool, 4>;
  static std::size_t bytes(std::size_t nsrc) { return sizeof(Node) + nsrc * sizeof(UOp); }
  static void* alloc(std::size_t nsrc) { return Blocks::alloc(nsrc, bytes(nsrc)); }
  static void free(void* mem, std::size_t nsrc) noexcept { Blocks::free(mem, nsrc); }
};
// the vmin/vmax pairs core/bounds.hpp caches on nodes (a node frees its pair when it dies): simplify
// asks for the bounds of most nodes it makes, so a pair is made and dropped about as often as a node
struct BoundsPool {
  using Bounds = std::pair<SymVal, SymVal>;
  using Blocks = BlockPool<BoundsPool, 1>;
  static_assert(std::is_trivially_destructible_v<Bounds>);
  static const Bounds* make(const Bounds& b) { return new (Blocks::alloc(0, sizeof(Bounds))) Bounds(b); }
  static void destroy(const Bounds* b) noexcept {
    if (b) Blocks::free(const_cast<Bounds*>(b), 0);
  }
};

// a new node holding one reference to each source, in a single allocation with them
inline Node* make_node(Ops op, DType dtype, std::span<const Node* const> src, Arg&& arg, Arg&& tag, std::size_t h) {
  void* mem = NodePool::alloc(src.size());
  UOp* arr = reinterpret_cast<UOp*>(static_cast<char*>(mem) + sizeof(Node));
  for (std::size_t i = 0; i < src.size(); ++i) new (arr + i) UOp(UOp::from_node(src[i]));
  return new (mem) Node{{1}, op, {0}, dtype, std::span<UOp>(arr, src.size()), std::move(arg), std::move(tag), h, 0, 0, nullptr, nullptr, nullptr};
}
// Asks the cache for what a walk reads of a node it is about to meet: the header (op, sources), the walk
// state, the source array (right after the node: make_node's one allocation). A rewrite meets most
// nodes of a fresh graph for the first time since they were built, long enough ago to be out of cache;
// asking for all of a node's sources at once overlaps their misses instead of taking them in turn.
inline void prefetch_node(const Node* n) noexcept {
  const char* p = reinterpret_cast<const char*>(n);
  __builtin_prefetch(p);
  __builtin_prefetch(p + offsetof(Node, walk_epoch));
  __builtin_prefetch(p + sizeof(Node));
}
inline void free_node(Node* n) noexcept {
  BoundsPool::destroy(n->bounds.load(std::memory_order_acquire));
  delete n->attachment.load(std::memory_order_acquire);
  const std::size_t nsrc = n->src.size();
  std::destroy(n->src.begin(), n->src.end());
  n->~Node();
  NodePool::free(static_cast<void*>(n), nsrc);
}

// a source as a node, whether the list holds nodes or handles
inline const Node* node_of(const Node* n) { return n; }
inline const Node* node_of(const UOp& u) { return u.node(); }
// whether node n has these fields (src: the sources, as nodes or handles)
template <class Src> bool has_fields(const Node* n, Ops op, const DType& dtype, const Src& src, const Arg& arg, const Arg& tag) {
  if (n->op != op || !(n->dtype == dtype) || n->src.size() != src.size()) return false;
  for (std::size_t i = 0; i < src.size(); ++i)
    if (n->src[i].node() != node_of(src[i])) return false;
  return n->arg == arg && n->tag == tag;
}
// The live node of a shard with these fields, with a new reference, or null (the shard's lock held). A
// node whose count reached zero is being destroyed by another thread: it leaves the table here.
template <class Src>
[[gnu::always_inline]] inline Node* find_live(NodeSet& set, std::size_t h, Ops op, const DType& dtype, const Src& src, const Arg& arg,
                                              const Arg& tag) {
  Node* n = set.find(h, [&](const Node* c) { return has_fields(c, op, dtype, src, arg, tag); });
  if (!n) return nullptr;
  for (std::uint32_t c = n->rc.load(std::memory_order_relaxed); c != 0;)
    if (n->rc.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel)) return n;
  set.erase(h, n);
  return nullptr;
}
// The unique node with these fields: found, or made. Sources are raw pointers the caller keeps alive;
// only a new node takes references to them.
inline Node* intern(Ops op, DType dtype, std::span<const Node* const> src, Arg&& arg, Arg&& tag) {
  const std::size_t h = node_hash(op, dtype, src, arg, tag);
  auto& sh = intern_table().shard(h);
  detail::LockGuard lock(sh.m);
  if (Node* n = find_live(sh.set, h, op, dtype, src, arg, tag)) return n;
  Node* n = make_node(op, dtype, src, std::move(arg), std::move(tag), h);
  sh.set.insert(h, n);
  return n;
}

// a node's source pointers while it is built: up to 8 on the stack, more on the heap; SrcPtrs(n) leaves
// the n pointers unwritten (each is written before the node is made)
struct SrcPtrs : SmallVec<const Node*, 8> {
  explicit SrcPtrs(std::size_t n) : SmallVec(n, default_init) {}
};

inline UOp adopt(Node* n) noexcept { return UOp(n); }
inline Node* disown(UOp& u) noexcept { return std::exchange(u.p_, nullptr); }

// Destroys nodes whose count reached zero without recursing into their sources.
inline void release(Node* n) noexcept {
  if (n->rc.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // A local worklist, not a thread_local one: a thread_local vector is destroyed before static handles
  // die at exit, and their release would write into freed memory. A chain needs no worklist at all.
  std::vector<Node*> pending;
  auto& tbl = intern_table();
  for (Node* d = n; d;) {
    {
      auto& sh = tbl.shard(d->hash);
      detail::LockGuard lock(sh.m);
      sh.set.erase(d->hash, d);
    }
    Node* next = nullptr;
    for (UOp& s : d->src) {
      Node* sp = std::exchange(s.p_, nullptr);
      if (sp->rc.fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
      if (next) pending.push_back(sp);
      else next = sp;
    }
    free_node(d);
    if (!next && !pending.empty()) next = pending.back(), pending.pop_back();
    d = next;
  }
}

// Provisional nodes: what the rewrite driver (core/rewrite.hpp) shows a pure rule set before it interns a
// node rebuilt on new sources. Most such nodes are rewritten at once (x+0 -> x, constants folded) and die;
// a provisional one costs no table probe, no lock and no reference counts on its sources, and leaves no
// table entry to erase. It is a node like any other to the rules (its hash is the one interning gives),
// except that it is in no table and borrows its sources (the caller keeps them alive). The caller holds its
// one reference and ends it with drop_provisional (nothing else took a reference), intern_provisional (the
// node is wanted) or abandon_provisional (something else may hold it).
inline Node* make_provisional(Ops op, DType dtype, std::span<const Node* const> src, const Arg& arg, const Arg& tag) {
  const std::size_t h = node_hash(op, dtype, src, arg, tag);  // (memos of pure functions look nodes up by it)
  void* mem = NodePool::alloc(src.size());
  UOp* arr = reinterpret_cast<UOp*>(static_cast<char*>(mem) + sizeof(Node));
  for (std::size_t i = 0; i < src.size(); ++i) new (arr + i) UOp(adopt(const_cast<Node*>(src[i])));
  return new (mem) Node{{1}, op, {0}, dtype, std::span<UOp>(arr, src.size()), Arg(arg), Arg(tag), h, 0, 0, nullptr, nullptr, nullptr};
}
// a and b are one node, or have the same fields (one of them provisional): a pure function's memo takes
// either for the other
inline bool same_node(const Node* a, const Node* b) {
  return a == b || (a && b && a->hash == b->hash && has_fields(a, b->op, b->dtype, b->src, b->arg, b->tag));
}
// frees a provisional node that holds no reference but the caller's
inline void drop_provisional(Node* n) noexcept {
  for (UOp& s : n->src) disown(s);
  free_node(n);
}
// The interned node equal to provisional n: its live twin (with a new reference; n stays provisional and
// the caller's), or n itself, now in the table and holding references to its sources.
inline Node* intern_provisional(Node* n) {
  const std::size_t h = n->hash;
  auto& sh = intern_table().shard(h);
  detail::LockGuard lock(sh.m);
  if (Node* t = find_live(sh.set, h, n->op, n->dtype, n->src, n->arg, n->tag)) return t;
  for (const UOp& s : n->src) s.node()->rc.fetch_add(1, std::memory_order_relaxed);
  sh.set.insert(h, n);
  return n;
}
// Ends the caller's reference to provisional n when something else may hold one: n is freed when nothing
// does; else it becomes an interned node, or, when its twin is interned, a node of its own outside the
// table that lives as long as its holders (they hold it by address, and nothing can look it up again).
inline void abandon_provisional(Node* n) noexcept {
  if (n->rc.load(std::memory_order_relaxed) == 1) return drop_provisional(n);
  Node* t = nullptr;
  try { t = intern_provisional(n); } catch (...) {}  // (only a table that cannot grow throws: keep n outside it)
  if (t != n) {
    for (const UOp& s : n->src) s.node()->rc.fetch_add(1, std::memory_order_relaxed);
    if (t) release(t);
  }
  release(n);
}

}  // namespace detail

// The node view that pattern matching walks: a raw pointer, no reference counting.
struct NodeRef {
  const detail::Node* p = nullptr;
  constexpr NodeRef() = default;
  constexpr NodeRef(const detail::Node* n) : p(n) {}
  Ops op() const { return p->op; }
  DType dtype() const { return p->dtype; }
  const Arg& arg() const { return p->arg; }
  const Arg& tag() const { return p->tag; }
  NodeRef src(std::size_t i) const { return p->src[i].node(); }
  std::size_t nsrc() const { return p->src.size(); }
  explicit constexpr operator bool() const { return p != nullptr; }
  friend constexpr bool operator==(NodeRef a, NodeRef b) { return a.p == b.p; }
};
inline UOp to_handle(NodeRef n) { return UOp::from_node(n.p); }
namespace detail {
// A handle on a node that someone else keeps alive, made and dropped without touching its reference
// count: a rule's captures, which reach the callback as const UOp&. A callback that keeps one copies it.
class Borrowed {
 public:
  explicit Borrowed(NodeRef n) noexcept : u_(adopt(const_cast<Node*>(n.p))) {}
  Borrowed(const Borrowed&) = delete;
  Borrowed& operator=(const Borrowed&) = delete;
  ~Borrowed() {}  // u_ is never destroyed: it owns no reference
  const UOp& get() const noexcept { return u_; }

 private:
  union { UOp u_; };
};
}  // namespace detail
inline NodeRef to_view(const UOp& u) { return u.node(); }

// the ctx type when a rewrite is given none
struct NoCtx {};

// number of live interned nodes (for tests of memory behaviour)
namespace detail {
template <class F> std::size_t sum_shards(F&& f) {
  std::size_t c = 0;
  for (auto& sh : intern_table().shards) {
    LockGuard lock(sh.m);
    c += f(sh.set);
  }
  return c;
}
// slots in the intern table's shards (for tests of memory behaviour)
inline std::size_t intern_capacity() { return sum_shards([](const NodeSet& s) { return s.capacity(); }); }
}  // namespace detail
inline std::size_t live_uops() { return detail::sum_shards([](const detail::NodeSet& s) { return s.size(); }); }

// ---- UOp members ----
inline UOp UOp::from_ptrs(Ops op, DType dt, std::span<const detail::Node* const> src, Arg&& arg, Arg&& tag) {
  for (std::size_t i = 0; i < src.size(); ++i)
    if (!src[i]) throw Error("UOp(" + op_repr(op) + "): source " + std::to_string(i) + " is a null UOp");
  return UOp(detail::intern(op, dt, src, std::move(arg), std::move(tag)));
}
inline UOp::UOp(Ops op, DType dtype, std::span<const UOp> src, Arg arg, Arg tag) {
  detail::SrcPtrs ptrs(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) ptrs[i] = src[i].node();
  *this = from_ptrs(op, dtype, ptrs.span(), std::move(arg), std::move(tag));
}
inline UOp UOp::with_first(Ops op, DType dt, const std::vector<UOp>& rest, Arg arg) const {
  detail::SrcPtrs ptrs(rest.size() + 1);
  ptrs[0] = p_;
  for (std::size_t i = 0; i < rest.size(); ++i) ptrs[i + 1] = rest[i].node();
  return from_ptrs(op, dt, ptrs.span(), std::move(arg), Arg());
}
inline UOp::UOp(const UOp& o) noexcept : p_(o.p_) { if (p_) p_->rc.fetch_add(1, std::memory_order_relaxed); }
inline UOp& UOp::operator=(const UOp& o) noexcept {
  if (o.p_) o.p_->rc.fetch_add(1, std::memory_order_relaxed);
  if (p_) detail::release(p_);
  p_ = o.p_;
  return *this;
}
inline UOp& UOp::operator=(UOp&& o) noexcept {
  if (this != &o) {
    if (p_) detail::release(p_);
    p_ = std::exchange(o.p_, nullptr);
  }
  return *this;
}
inline UOp UOp::from_node(const detail::Node* n) {
  if (n) n->rc.fetch_add(1, std::memory_order_relaxed);
  return UOp(const_cast<detail::Node*>(n));
}
inline Ops UOp::op() const { return checked()->op; }
inline DType UOp::dtype() const { return checked()->dtype; }
inline const Arg& UOp::arg() const { return checked()->arg; }
inline const Arg& UOp::tag() const { return checked()->tag; }
inline std::span<const UOp> UOp::src() const { return checked()->src; }
inline const UOp& UOp::src(std::size_t i) const {
  checked();
  if (i >= p_->src.size()) [[unlikely]] src_out_of_range(p_->op, i, p_->src.size());
  return p_->src[i];
}
inline std::size_t UOp::nsrc() const { return checked()->src.size(); }
inline std::size_t UOp::hash() const { return p_ ? p_->hash : 0; }

inline detail::Attachment* UOp::attach(std::unique_ptr<detail::Attachment> a) const {
  detail::Attachment* expect = nullptr;
  if (checked()->attachment.compare_exchange_strong(expect, a.get(), std::memory_order_acq_rel)) return a.release();
  return expect;
}
inline detail::Attachment* UOp::attachment() const { return checked()->attachment.load(std::memory_order_acquire); }

inline UOp UOp::replace(const Fields& f) const {
  Ops op = f.op.value_or(this->op());
  DType dt = f.dtype.value_or(dtype());
  if (!f.src && op == this->op() && dt == dtype() && !f.arg && !f.tag) return *this;
  return UOp(op, dt, f.src ? std::span<const UOp>(*f.src) : std::span<const UOp>(p_->src), f.arg ? *f.arg : arg(),
             f.tag ? *f.tag : tag());
}

namespace detail {
// The small integer constants of the index dtypes and the two bools, per thread (thread_cache): simplify
// and the codegen's index math make them all the time (x*1, x+0, x//4, folded comparisons), and a hit
// here is a reference count instead of an intern (a hash, the shard's lock and a probe). A slot holds its
// node alive until the thread ends, as the intern table would keep any node someone holds. The slots are
// on the heap: a thread_local array would grow every thread's static TLS block by 26 KB, whether the
// thread uses metagrad or not.
struct ConstCache {
  static constexpr std::int64_t lo = -64, hi = 1024, n = hi - lo;
  std::vector<UOp> ints = std::vector<UOp>(3 * n);  // weakint, int32, int64
  std::array<UOp, 2> bools{};
  static int kind(const DType& d) {  // the row of ints for a dtype, -1 when not cached
    return d == dtypes::weakint ? 0 : d == dtypes::int32 ? 1 : d == dtypes::int64 ? 2 : -1;
  }
  // the slot of const_(d, v), or null when (d, v) is not one this cache keeps
  UOp* find(const DType& d, const Arg& v) {
    if (v.is_int()) {
      const std::int64_t x = v.as_int();
      const int k = kind(d);
      return k >= 0 && x >= lo && x < hi ? &ints[std::size_t(k) * n + std::size_t(x - lo)] : nullptr;
    }
    if (v.is_bool() && d == dtypes::bool_) return &bools[v.as_bool()];
    return nullptr;
  }
};
}  // namespace detail

inline UOp UOp::const_(DType dtype, Arg value) {
  if (detail::ConstCache* c = detail::thread_cache<detail::ConstCache>())
    if (UOp* slot = c->find(dtype, value)) {
      if (!*slot) *slot = UOp(detail::intern(Ops::CONST, dtype, {}, std::move(value), Arg()));
      return *slot;
    }
  if (value.is_tuple()) {
    const auto& t = value.as_tuple();
    if (t.empty()) throw Error("UOp::const_: empty tuple for dtype " + dtype.repr());
    bool same = true;
    for (const auto& e : t) same = same && e == t[0];
    if (!same) {
      if (int(t.size()) != dtype.count)
        throw Error("UOp::const_: " + std::to_string(t.size()) + " values for dtype " + dtype.repr());
      std::vector<UOp> s;
      for (const auto& e : t) s.push_back(const_(dtype.scalar(), e));
      return UOp(Ops::STACK, dtype, std::move(s));
    }
    value = Arg(t[0]);  // copy first: t[0] lives inside value
  }
  // interned straight from the normalized value (no source list to build)
  return UOp(detail::intern(Ops::CONST, dtype, {}, normalize_const(dtype, value), Arg()));
}
inline UOp UOp::const_(DType dtype, std::initializer_list<Arg> values) { return const_(dtype, Arg(ArgTuple(values))); }

inline UOp UOp::variable(std::string name, std::int64_t min, std::int64_t max, DType dtype) {
  if (min > max) throw Error("UOp::variable(" + py_str_repr(name) + "): min " + std::to_string(min) + " > max " + std::to_string(max));
  return UOp(Ops::DEFINE_VAR, dtype, {}, ArgTuple{Arg(std::move(name)), Arg(min), Arg(max)});
}
// tinygrad's `x.arg is Invalid` on a CONST: the value of a masked-off index
inline bool is_invalid(const UOp& u) { return u.op() == Ops::CONST && u.arg().is<Invalid>(); }
namespace detail {
// the two halves of a gated index cond.where(idx, Invalid); a plain index is its own idx, valid everywhere
inline bool is_gated_index(const UOp& u) { return u.op() == Ops::WHERE && is_invalid(u.src(2)); }
inline UOp get_idx(const UOp& u) { return is_gated_index(u) ? u.src(1) : u; }
inline UOp get_valid(const UOp& u) {
  return is_gated_index(u) ? u.src(0) : UOp::const_(dtypes::bool_, Arg(!is_invalid(u)));
}
}  // namespace detail

inline UOp UOp::range(const UOp& end, std::int64_t axis_id, AxisType type) {
  if (!end) throw Error("UOp::range(axis " + std::to_string(axis_id) + "): end is a null UOp");
  return UOp(Ops::RANGE, dtypes::weakint, {end.dtype() == dtypes::weakint ? end : end.cast(dtypes::weakint)},
             ArgTuple{Arg(axis_id), Arg(type)});
}
inline UOp UOp::param(std::int64_t slot, DType dtype, ParamArg extra, std::vector<UOp> src) {
  extra.slot = slot;
  if (src.empty()) src.push_back(UOp(Ops::NOOP));
  return UOp(Ops::PARAM, dtype, std::move(src), Arg(std::move(extra)));
}

inline UOp UOp::alu_(Ops op, std::span<const detail::Node* const> srcs) {
  for (std::size_t i = 0; i < srcs.size(); ++i)
    if (!srcs[i]) throw Error("UOp::alu(" + op_repr(op) + "): source " + std::to_string(i) + " is a null UOp");
  DType out = srcs.back()->dtype;
  if (GroupOp::Comparison.contains(op)) out = out.count > 1 ? dtypes::bool_.vec(out.count) : dtypes::bool_;
  const int arity = op_arity(op);
  if (arity >= 0 && std::size_t(arity) != srcs.size())
    throw Error("UOp::alu(" + op_repr(op) + "): takes " + std::to_string(arity) + " sources, got " + std::to_string(srcs.size()));
  return from_ptrs(op, out, srcs, Arg(), Arg());
}
inline UOp UOp::alu(Ops op, const std::vector<UOp>& more) const {
  detail::SrcPtrs ptrs(more.size() + 1);
  ptrs[0] = p_;
  for (std::size_t i = 0; i < more.size(); ++i) ptrs[i + 1] = more[i].p_;
  return alu_(op, ptrs.span());
}
inline UOp UOp::cast(DType dt) const {
  if (dt.count == 1 && dt.count != dtype().count && !dt.is_ptr) dt = dt.vec(dtype().count);
  if (dtype() == dt) return *this;
  return UOp(Ops::CAST, dt, {*this});
}
inline UOp UOp::index(std::vector<UOp> idx, bool ptr) const {
  return with_first(Ops::INDEX, ptr ? dtype() : dtype().base(), std::move(idx));
}
inline UOp UOp::load(std::vector<UOp> more) const { return with_first(Ops::LOAD, dtype().base(), std::move(more)); }
inline UOp UOp::store(const UOp& value, std::optional<UOp> gate) const {
  std::vector<UOp> s{*this, value};
  if (gate) s.push_back(*gate);
  return UOp(Ops::STORE, dtypes::void_, std::move(s));
}
inline UOp UOp::gep(std::vector<int> idx) const {
  if (idx.size() == 1) {
    if (op() == Ops::STACK) return src(std::size_t(idx[0]));
    if (op() == Ops::CONST) return UOp(Ops::CONST, dtype().scalar(), {}, arg());
  }
  ArgTuple a;
  for (int i : idx) {
    if (i < 0 || i >= dtype().vcount()) throw Error("UOp::gep(" + std::to_string(i) + "): out of range for " + dtype().repr());
    a.emplace_back(i);
  }
  DType out = idx.size() > 1 ? dtype().scalar().vec(int(idx.size())) : dtype().scalar();
  return UOp(Ops::GEP, out, {*this}, Arg(std::move(a)));
}
inline UOp UOp::gep(int i) const {  // gep({i}) without the vector
  if (op() == Ops::STACK) return src(std::size_t(i));
  if (op() == Ops::CONST) return UOp(Ops::CONST, dtype().scalar(), {}, arg());
  if (i < 0 || i >= dtype().vcount()) throw Error("UOp::gep(" + std::to_string(i) + "): out of range for " + dtype().repr());
  ArgTuple a;
  a.emplace_back(i);
  return UOp(Ops::GEP, dtype().scalar(), {*this}, Arg(std::move(a)));
}
inline UOp UOp::vectorize(std::vector<UOp> more) const {
  more.insert(more.begin(), *this);
  return stack(std::move(more));
}
inline UOp UOp::stack(std::vector<UOp> srcs) {
  if (srcs.empty()) throw Error("UOp::stack: needs at least one source");
  if (!srcs[0]) throw Error("UOp::stack: source 0 is a null UOp");
  DType dt = srcs[0].dtype().vec(int(srcs.size()));
  return UOp(Ops::STACK, dt, std::move(srcs));
}
inline UOp UOp::broadcast(int count) const {
  if (dtype().vcount() != 1) throw Error("UOp::broadcast: " + dtype().repr() + " is already a vector");
  if (count == 1) return *this;
  return UOp(Ops::STACK, dtype().vec(count), std::vector<UOp>(std::size_t(count), *this));
}
inline UOp UOp::bind(std::int64_t val) const {
  if (op() != Ops::DEFINE_VAR) throw Error("UOp::bind(" + std::to_string(val) + "): op is " + op_repr(op()) + ", need Ops.DEFINE_VAR");
  if (val < arg()[1].as_int() || val > arg()[2].as_int())
    throw Error("UOp::bind(" + std::to_string(val) + "): not in range [" + arg()[1].repr() + ", " + arg()[2].repr() + "] of " + expr());
  return UOp(Ops::BIND, dtype(), {*this, const_like(val)});
}
inline const std::string& UOp::expr() const {
  if (op() != Ops::DEFINE_VAR) throw Error("UOp::expr: op is " + op_repr(op()) + ", need Ops.DEFINE_VAR");
  return arg()[0].as_str();
}

}  // namespace mg

// the member functions that walk graphs, print them and bound them live in their own headers
#include "walk.hpp"
#include "print.hpp"
#include "bounds.hpp"
#include "algebra.hpp"
#include "rewrite.hpp"

template <>
struct std::hash<mg::UOp> {
  std::size_t operator()(const mg::UOp& u) const noexcept { return u.hash(); }
};
