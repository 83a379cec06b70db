#pragma once
// thread_cache<T>(): the calling thread's T, made on first use and destroyed when the thread ends.
// It returns null from then on (a static's destructor running at exit still frees nodes and runs
// rewrites), so every caller keeps a plain path that works without it.
#include <cstddef>
#include <vector>

namespace mg::detail {

template <class T>
T* thread_cache() noexcept {
  static thread_local T* current = nullptr;
  static thread_local bool ended = false;
  struct Owner {
    T obj;
    Owner() noexcept { current = &obj; }
    ~Owner() { current = nullptr, ended = true; }
  };
  if (!current && !ended) {
    static thread_local Owner owner;
  }
  return current;
}

// A memo of a pure function of nodes, kept per thread (as the thread_cache of its type) and direct-mapped:
// a new entry takes its slot from the one before, so the memo holds at most Slots keys (and their values)
// alive, whatever the program does. Key and Value default-construct to "none" (null handles).
template <class Key, class Value, std::size_t Slots> struct DirectMemo {
  static_assert((Slots & (Slots - 1)) == 0, "DirectMemo: Slots must be a power of two");
  static constexpr std::size_t slots = Slots;
  struct Entry {
    Key key{};
    Value value{};
  };
  std::vector<Entry> table = std::vector<Entry>(Slots);
  Entry& at(std::size_t h) { return table[(h ^ (h >> 17)) & (Slots - 1)]; }
  void clear() { table.assign(Slots, Entry{}); }  // drops every entry (a benchmark's fresh round)
};
struct EqualKeys {
  template <class K> bool operator()(const K& a, const K& b) const { return a == b; }
};
// f(), or what an earlier f() of the same key (by eq) returned; h is key's hash
template <class Memo, class Key, class F, class Eq = EqualKeys> auto memoized(const Key& key, std::size_t h, F&& f, Eq eq = {}) {
  Memo* memo = thread_cache<Memo>();
  if (!memo) return f();
  if (auto& e = memo->at(h); eq(e.key, key)) return e.value;
  auto r = f();
  auto& e = memo->at(h);  // looked up again: f may have filled the slot
  e.key = key, e.value = r;
  return r;
}

}  // namespace mg::detail
