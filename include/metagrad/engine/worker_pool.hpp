#pragma once
// Threads that stay for the process: a kernel launch wakes them rather than creating threads.
// run(n, f) calls f(0) on the caller and f(1..n-1) on workers, and returns when all have returned. The
// kernels it runs do not throw (they are compiled code).
//
// Built on POSIX threads and C++20 atomic wait/notify (futexes on Linux) instead of <thread> and
// <condition_variable>: those headers (with the <chrono> they pull in) cost every includer of
// metagrad.hpp about 35 MB of compiler memory, for this one class.
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "../core/error.hpp"

namespace mg::detail {

// the number of online CPUs (at least 1)
template <class = void> std::int64_t cpu_count() {
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? std::int64_t(n) : 1;
}

template <class T = void>
class WorkerPool {
 public:
  static WorkerPool& instance() {
    static WorkerPool* p = new WorkerPool();  // never destroyed: its threads wait for work until exit
    return *p;
  }

  // f(id) for id in [0, n); f may be any callable, it is called by reference
  template <class F>
  void run(std::int64_t n, F& f) {
    if (n <= 1) {
      if (n == 1) f(0);
      return;
    }
    run_raw(n, [](void* c, std::int64_t id) { (*static_cast<F*>(c))(id); }, &f);
  }

 private:
  using Fn = void (*)(void*, std::int64_t);
  static constexpr unsigned kCountBits = 20;  // state_ = generation << kCountBits | threads of the launch

  std::atomic_flag launching_;                   // one launch at a time
  std::atomic<std::uint64_t> state_{0};          // read in one load, so a worker never mixes two launches
  std::atomic<std::int64_t> pending_{0};         // workers of this launch not yet done
  Fn fn_ = nullptr;                              // the launch's task, stable until pending_ reaches 0
  void* ctx_ = nullptr;
  std::int64_t workers_ = 0;                     // threads started (changed only while launching)

  void run_raw(std::int64_t n, Fn fn, void* ctx) {
    if (n >= (std::int64_t(1) << kCountBits)) throw Error("THREADS=" + std::to_string(n) + ": too many threads for one launch");
    while (launching_.test_and_set(std::memory_order_acquire)) launching_.wait(true, std::memory_order_relaxed);
    struct Unlock {
      std::atomic_flag& f;
      ~Unlock() { f.clear(std::memory_order_release); f.notify_one(); }
    } unlock{launching_};
    const std::uint64_t before = state_.load(std::memory_order_relaxed);
    for (; workers_ < n - 1; ++workers_) start_worker(workers_ + 1, before);
    fn_ = fn;
    ctx_ = ctx;
    pending_.store(n - 1, std::memory_order_relaxed);
    const std::uint64_t gen = (before >> kCountBits) + 1;
    state_.store(gen << kCountBits | std::uint64_t(n), std::memory_order_release);
    state_.notify_all();
    fn(ctx, 0);
    for (std::int64_t p; (p = pending_.load(std::memory_order_acquire)) != 0;) pending_.wait(p, std::memory_order_acquire);
  }

  // `seen` is the state before the launch that needs the thread, so that launch wakes it
  void start_worker(std::int64_t id, std::uint64_t seen) {
    struct Start {
      WorkerPool* pool;
      std::int64_t id;
      std::uint64_t seen;
    };
    auto* s = new Start{this, id, seen};
    pthread_attr_t attr;
    ::pthread_attr_init(&attr);
    ::pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    const int rc = ::pthread_create(
        &th, &attr,
        [](void* p) -> void* {
          const Start s = *static_cast<Start*>(p);
          delete static_cast<Start*>(p);
          s.pool->loop(s.id, s.seen);
          return nullptr;
        },
        s);
    ::pthread_attr_destroy(&attr);
    if (rc != 0) {
      delete s;
      throw Error("worker pool: starting thread " + std::to_string(id) + " failed: " + std::strerror(rc));
    }
  }

  [[noreturn]] void loop(std::int64_t id, std::uint64_t seen) {
    for (;;) {
      state_.wait(seen, std::memory_order_acquire);
      seen = state_.load(std::memory_order_acquire);
      if (id >= std::int64_t(seen & ((std::uint64_t(1) << kCountBits) - 1))) continue;  // not needed this launch
      fn_(ctx_, id);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
    }
  }
};

}  // namespace mg::detail
