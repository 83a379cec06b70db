#pragma once
// PtrMap: an open-addressing hash map keyed by node pointer, for the per-walk memo tables of
// toposort and graph_rewrite (much faster than std::unordered_map on this hot path).
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace mg::detail {

template <class V>
class PtrMap {
 public:
  explicit PtrMap(std::size_t expect = 16) { rehash(cap_for(expect)); }
  V* find(const void* k) {
    for (std::size_t i = slot(k);; i = (i + 1) & mask_) {
      if (keys_[i] == k) return &vals_[i];
      if (!keys_[i]) return nullptr;
    }
  }
  const V* find(const void* k) const { return const_cast<PtrMap*>(this)->find(k); }
  bool contains(const void* k) const { return find(k) != nullptr; }
  // the value for k, default-made if absent (the reference lasts until the next insertion)
  V& at(const void* k) {
    if (V* v = find(k)) return *v;
    return set(k, V{});
  }
  // inserts or overwrites; returns the stored value
  V& set(const void* k, V v) {
    if ((size_ + 1) * 4 > keys_.size() * 3) rehash(keys_.size() * 2);
    std::size_t i = slot(k);
    for (; keys_[i] && keys_[i] != k; i = (i + 1) & mask_) {}
    if (!keys_[i]) keys_[i] = k, ++size_;
    vals_[i] = std::move(v);
    return vals_[i];
  }
  std::size_t size() const { return size_; }
  // empties the map; a big table is dropped rather than swept, so reuse costs little
  void clear() {
    if (size_ == 0) return;
    if (keys_.size() > 1024) {  // (not rehash(16): that would insert every entry again)
      keys_.assign(16, nullptr);
      vals_.assign(16, V{});
      mask_ = 15, size_ = 0;
      return;
    }
    std::fill(keys_.begin(), keys_.end(), nullptr);
    // a value is always written with its key (set), so stale plain values may stay; values that hold
    // something (handles, vectors) are reset so that they let go of it
    if constexpr (!std::is_trivially_destructible_v<V>) std::fill(vals_.begin(), vals_.end(), V{});
    size_ = 0;
  }

 private:
  static std::size_t cap_for(std::size_t n) {
    std::size_t c = 16;
    while (c * 3 < n * 4 + 4) c *= 2;
    return c;
  }
  std::size_t slot(const void* k) const {
    auto x = std::uint64_t(reinterpret_cast<std::uintptr_t>(k));
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33;
    return std::size_t(x) & mask_;
  }
  void rehash(std::size_t cap) {
    std::vector<const void*> ok(cap, nullptr);
    std::vector<V> ov(cap);
    std::swap(ok, keys_);
    std::swap(ov, vals_);
    mask_ = cap - 1;
    size_ = 0;
    for (std::size_t i = 0; i < ok.size(); ++i)
      if (ok[i]) set(ok[i], std::move(ov[i]));
  }
  std::vector<const void*> keys_;
  std::vector<V> vals_;
  std::size_t mask_ = 0, size_ = 0;
};

}  // namespace mg::detail
