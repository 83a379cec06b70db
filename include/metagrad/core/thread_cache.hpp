#pragma once
// thread_cache<T>(): the calling thread's T, made on first use and destroyed when the thread ends.
// It returns null from then on (a static's destructor running at exit still frees nodes and runs
// rewrites), so every caller keeps a plain path that works without it.
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

}  // namespace mg::detail
