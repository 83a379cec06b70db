#pragma once
// Host memory for buffers: tinygrad's LRUAllocator (device.py). A freed allocation is kept, by size, and
// handed out again to the next allocation of that size, so a loop of realizes (same shapes every step)
// stops calling the system allocator: no mmap, no page faults, no zeroing of fresh pages. The cache is
// bounded (LRU_MAX_BYTES, default 2 GiB; the oldest entries go first) so memory stays flat; LRU=0 turns it
// off. Allocations are 64-byte aligned, so compiled kernels may use aligned vector loads.
//
// Contents of an allocation are unspecified: host_buffer (tensor/graph.hpp) zeroes a buffer that is read
// before anything wrote it; the engine skips that for the outputs its kernels write whole.
#include <cstddef>
#include <cstdint>
#include <new>

#include "../core/mutex.hpp"
#include "../core/env.hpp"

namespace mg::detail {

template <class T = void>
class HostAllocator {
 public:
  static HostAllocator& instance() {
    static HostAllocator* a = new HostAllocator();  // never destroyed: buffers may die after other statics
    return *a;
  }
  void* alloc(std::size_t n) {
    if (n == 0) n = 1;
    {
      detail::LockGuard lock(mu_);
      for (std::size_t i = count_; i-- > 0;)  // newest first: its pages are most likely still hot
        if (cache_[i].bytes == n) {
          void* p = cache_[i].ptr;
          remove(i);
          return p;
        }
    }
    try {
      return ::operator new(n, std::align_val_t(64));
    } catch (const std::bad_alloc&) {  // as tinygrad: out of memory empties the cache, then tries again
      free_cache();
      return ::operator new(n, std::align_val_t(64));
    }
  }
  void free(void* p, std::size_t n) noexcept {
    if (n == 0) n = 1;
    if (n > limit_) {
      ::operator delete(p, std::align_val_t(64));
      return;
    }
    detail::LockGuard lock(mu_);
    while (count_ > 0 && (count_ == max_entries || cached_ + n > limit_)) {  // the oldest go first
      ::operator delete(cache_[0].ptr, std::align_val_t(64));
      remove(0);
    }
    cache_[count_++] = {n, p};
    cached_ += n;
  }
  // returns every cached allocation to the system
  void free_cache() noexcept {
    detail::LockGuard lock(mu_);
    while (count_ > 0) {
      ::operator delete(cache_[count_ - 1].ptr, std::align_val_t(64));
      remove(count_ - 1);
    }
  }
  std::size_t cached_bytes() {
    detail::LockGuard lock(mu_);
    return cached_;
  }

 private:
  static constexpr std::size_t max_entries = 256;
  struct Entry {
    std::size_t bytes;
    void* ptr;
  };
  detail::Mutex mu_;
  Entry cache_[max_entries];  // oldest first
  std::size_t count_ = 0, cached_ = 0;
  std::size_t limit_ = getenv_int("LRU", 1) ? std::size_t(getenv_int("LRU_MAX_BYTES", std::int64_t(2) << 30)) : 0;

  void remove(std::size_t i) noexcept {
    cached_ -= cache_[i].bytes;
    for (std::size_t j = i + 1; j < count_; ++j) cache_[j - 1] = cache_[j];
    --count_;
  }
};

template <class T = void> void* host_alloc(std::size_t n) { return HostAllocator<T>::instance().alloc(n); }
template <class T = void> void host_free(void* p, std::size_t n) noexcept { HostAllocator<T>::instance().free(p, n); }

}  // namespace mg::detail
