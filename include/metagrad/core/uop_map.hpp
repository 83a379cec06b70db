#pragma once
// UOpMap<V>: a map keyed by node identity that iterates in insertion order, like the Python dicts tinygrad
// keeps UOps in (compute_gradient's result, the range passes' ctx). Entries live in a vector, found by
// node through a PtrMap; each entry holds its key, so a key node lives as long as its entry.
//
//   mg::UOpMap<mg::UOp> m;
//   m[x] = y;                       // inserts (x, y), or assigns y to x's entry
//   if (auto it = m.find(x); it != m.end()) use(it->second);
//   for (const auto& [k, v] : m) ...  // in insertion order
//
// Lookups and insertions are O(1); erase is O(size) (the rest keep their order).
// A template over the value alone: the header costs an includer nothing until a map is made.
#include <cstddef>
#include <initializer_list>
#include <tuple>
#include <utility>
#include <vector>

#include "error.hpp"
#include "ptr_map.hpp"
#include "uop.hpp"

namespace mg {

template <class V>
class UOpMap {
 public:
  using key_type = UOp;
  using mapped_type = V;
  using value_type = std::pair<const UOp, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  UOpMap() = default;
  UOpMap(std::initializer_list<std::pair<UOp, V>> init) {
    for (const auto& [k, v] : init) insert_or_assign(k, v);
  }

  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  iterator find(const UOp& k) {
    const std::size_t* i = slot(k);
    return i ? entries_.begin() + std::ptrdiff_t(*i) : entries_.end();
  }
  const_iterator find(const UOp& k) const {
    const std::size_t* i = slot(k);
    return i ? entries_.begin() + std::ptrdiff_t(*i) : entries_.end();
  }
  bool contains(const UOp& k) const { return slot(k) != nullptr; }
  std::size_t count(const UOp& k) const { return contains(k) ? 1 : 0; }

  V& at(const UOp& k) { return const_cast<V&>(std::as_const(*this).at(k)); }
  const V& at(const UOp& k) const {
    const std::size_t* i = slot(k);
    if (!i) throw Error("UOpMap::at: no entry for " + (k ? "this " + op_repr(k.op()) + " node" : std::string("a null UOp")));
    return entries_[*i].second;
  }
  // the value for k, default-made and inserted if absent
  V& operator[](const UOp& k) { return try_emplace(k).first->second; }

  // inserts (k, V(args...)) unless k has an entry; the bool says whether it inserted
  template <class... A> std::pair<iterator, bool> try_emplace(const UOp& k, A&&... args) {
    if (!k) throw Error("UOpMap: a null UOp as a key");
    if (const std::size_t* i = slot(k)) return {entries_.begin() + std::ptrdiff_t(*i), false};
    entries_.emplace_back(std::piecewise_construct, std::forward_as_tuple(k), std::forward_as_tuple(std::forward<A>(args)...));
    index_.set(k.node(), entries_.size() - 1);
    return {entries_.end() - 1, true};
  }
  std::pair<iterator, bool> emplace(const UOp& k, V v) { return try_emplace(k, std::move(v)); }
  std::pair<iterator, bool> insert_or_assign(const UOp& k, V v) {
    auto r = try_emplace(k, std::move(v));
    if (!r.second) r.first->second = std::move(v);
    return r;
  }
  // removes k's entry; returns how many it removed (0 or 1)
  std::size_t erase(const UOp& k) {
    const std::size_t* i = slot(k);
    if (!i) return 0;
    const std::size_t at = *i;
    std::vector<value_type> rest;  // value_type's key is const: the entries after it are moved by construction
    rest.reserve(entries_.size() - 1);
    for (std::size_t j = 0; j < entries_.size(); ++j)
      if (j != at) rest.emplace_back(entries_[j].first, std::move(entries_[j].second));
    entries_ = std::move(rest);
    index_.clear();
    for (std::size_t j = 0; j < entries_.size(); ++j) index_.set(entries_[j].first.node(), j);
    return 1;
  }
  void clear() {
    entries_.clear();
    index_.clear();
  }

 private:
  // k's position in entries_, or null (a null UOp has no entry: PtrMap's empty key is the null pointer)
  const std::size_t* slot(const UOp& k) const { return k ? index_.find(k.node()) : nullptr; }
  std::vector<value_type> entries_;
  detail::PtrMap<std::size_t> index_;
};

}  // namespace mg
