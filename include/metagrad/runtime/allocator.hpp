#pragma once
// Host memory for buffers: tinygrad's LRUAllocator (device.py). A freed allocation is kept, by size, and
// handed out again to the next allocation of that size, so a loop of realizes (same shapes every step)
// stops calling the system allocator: no mmap, no page faults, no zeroing of fresh pages. The cache is
// bounded (LRU_MAX_BYTES, default 2 GiB; the oldest entries go first) so memory stays flat; LRU=0 turns it
// off. Allocations are 64-byte aligned, so compiled kernels may use aligned vector loads.
//
// Buffers of 2 MiB and more are mapped on their own, 2 MiB aligned, and asked for transparent huge pages
// (madvise; Debian's default THP mode honours it): a first touch faults once per 2 MiB instead of once
// per 4 KiB, and kernels walking big buffers take fewer TLB misses. The main job's 10,000-image
// evaluation writes 1.2 GB of fresh activations the first time; see docs/benchmarks.md.
//
// Contents of an allocation are unspecified: host_buffer (tensor/graph.hpp) zeroes a buffer that is read
// before anything wrote it; the engine skips that for the outputs its kernels write whole.
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

#include "../core/error.hpp"
#include "../core/mutex.hpp"
#include "../core/sanitizer.hpp"
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
      return sys_alloc(n);
    } catch (const std::bad_alloc&) {  // as tinygrad: out of memory empties the cache, then tries again
      free_cache();
    }
    try {
      return sys_alloc(n);
    } catch (const std::bad_alloc&) {
      throw Error("allocate: out of memory for a buffer of " + std::to_string(n) + " bytes");
    }
  }
  void free(void* p, std::size_t n) noexcept {
    if (n == 0) n = 1;
    if (n > limit_) {
      sys_free(p, n);
      return;
    }
    detail::LockGuard lock(mu_);
    while (count_ > 0 && (count_ == max_entries || cached_ + n > limit_)) {  // the oldest go first
      sys_free(cache_[0].ptr, cache_[0].bytes);
      remove(0);
    }
    cache_[count_++] = {n, p};
    cached_ += n;
  }
  // returns every cached allocation to the system
  void free_cache() noexcept {
    detail::LockGuard lock(mu_);
    while (count_ > 0) {
      sys_free(cache_[count_ - 1].ptr, cache_[count_ - 1].bytes);
      remove(count_ - 1);
    }
  }
  std::size_t cached_bytes() {
    detail::LockGuard lock(mu_);
    return cached_;
  }

 private:
  static constexpr std::size_t max_entries = 256;
  static constexpr std::size_t huge_page = std::size_t(2) << 20;
  static bool huge(std::size_t n) { return !MG_ASAN && n >= huge_page; }
  static std::size_t page_round(std::size_t n) {
    const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
    return (n + page - 1) / page * page;
  }
  static void* sys_alloc(std::size_t n) {
    // AddressSanitizer aborts the process on a request above its limit (1 TiB) instead of failing it
    if (MG_ASAN && n > (std::size_t(1) << 40)) throw std::bad_alloc();
    if (!huge(n)) return ::operator new(n, std::align_val_t(64));
    // map one huge page more than needed, then unmap what lies before the aligned start and after the end
    const std::size_t len = page_round(n), span = len + huge_page;
    void* m = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    const auto lo = reinterpret_cast<std::uintptr_t>(m);
    const std::uintptr_t at = (lo + huge_page - 1) & ~std::uintptr_t(huge_page - 1);
    if (at > lo) munmap(m, at - lo);
    if (lo + span > at + len) munmap(reinterpret_cast<void*>(at + len), lo + span - (at + len));
    void* p = reinterpret_cast<void*>(at);
    madvise(p, len, MADV_HUGEPAGE);  // a hint: without THP the pages are small, and nothing else changes
    return p;
  }
  static void sys_free(void* p, std::size_t n) noexcept {
    if (huge(n)) munmap(p, page_round(n));
    else ::operator delete(p, std::align_val_t(64));
  }
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
