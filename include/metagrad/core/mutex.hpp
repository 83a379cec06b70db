#pragma once
// A mutex on one atomic word (the futex mutex of Drepper's "Futexes Are Tricky"): lock and unlock are
// inline and take one atomic instruction when nobody waits; a waiter sleeps in the kernel through C++20
// atomic wait/notify. Used instead of std::mutex because <mutex> (with the <chrono> it pulls in) costs
// every includer of metagrad.hpp about 4 MB of compiler memory, and because the intern table takes a
// lock per node made.
#include <atomic>
#include <cstdint>

namespace mg::detail {

class Mutex {
 public:
  void lock() {
    std::uint32_t c = 0;
    if (!state_.compare_exchange_strong(c, 1, std::memory_order_acquire, std::memory_order_relaxed)) [[unlikely]]
      lock_contended(c);
  }
  bool try_lock() {
    std::uint32_t c = 0;
    return state_.compare_exchange_strong(c, 1, std::memory_order_acquire, std::memory_order_relaxed);
  }
  void unlock() {
    if (state_.exchange(0, std::memory_order_release) == 2) [[unlikely]] wake();
  }

 private:
  // out of line, so that the uncontended paths inline where the intern table takes its lock
  [[gnu::noinline]] void lock_contended(std::uint32_t c) {
    // mark "locked, with waiters" and sleep until an unlock hands the word back as 0
    if (c != 2) c = state_.exchange(2, std::memory_order_acquire);
    while (c != 0) {
      state_.wait(2, std::memory_order_relaxed);
      c = state_.exchange(2, std::memory_order_acquire);
    }
  }
  [[gnu::noinline]] void wake() { state_.notify_one(); }
  std::atomic<std::uint32_t> state_{0};  // 0 free, 1 locked, 2 locked and maybe waited for
};

// holds a Mutex for its scope (std::lock_guard, without <mutex>)
class LockGuard {
 public:
  explicit LockGuard(Mutex& m) : m_(m) { m_.lock(); }
  ~LockGuard() { m_.unlock(); }
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;

 private:
  Mutex& m_;
};

}  // namespace mg::detail
