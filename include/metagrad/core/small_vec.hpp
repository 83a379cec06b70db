#pragma once
// SmallVec<T, N>: a vector whose first N elements live inside it, for the short-lived lists the rewrite
// driver and the symbolic rules build at every step (a node's sources, the terms of a sum): most hold a
// few elements, and a heap allocation and free cost more than the work done with them.
#include <cstddef>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace mg::detail {

// SmallVec(n, default_init): n default-initialized elements (a trivial type's left unwritten, for a
// list whose elements are each written before they are read)
struct DefaultInit {};
inline constexpr DefaultInit default_init{};

template <class T, std::size_t N>
class SmallVec {
  static_assert(N > 0);

 public:
  SmallVec() noexcept = default;
  // n value-initialized elements
  explicit SmallVec(std::size_t n) { resize(n); }
  SmallVec(std::size_t n, DefaultInit) {
    if (n > cap_) grow(n);
    if constexpr (std::is_trivially_default_constructible_v<T>) n_ = n;
    else std::uninitialized_default_construct_n(p_, n), n_ = n;
  }
  SmallVec(const SmallVec&) = delete;
  SmallVec& operator=(const SmallVec&) = delete;
  ~SmallVec() {
    if constexpr (!std::is_trivially_destructible_v<T>) clear();
    if (p_ != inline_data()) ::operator delete(static_cast<void*>(p_), std::align_val_t(alignof(T)));
  }

  std::size_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }
  T* data() noexcept { return p_; }
  const T* data() const noexcept { return p_; }
  T* begin() noexcept { return p_; }
  T* end() noexcept { return p_ + n_; }
  const T* begin() const noexcept { return p_; }
  const T* end() const noexcept { return p_ + n_; }
  T& operator[](std::size_t i) noexcept { return p_[i]; }
  const T& operator[](std::size_t i) const noexcept { return p_[i]; }
  T& back() noexcept { return p_[n_ - 1]; }
  const T& back() const noexcept { return p_[n_ - 1]; }
  std::span<T> span() noexcept { return {p_, n_}; }
  std::span<const T> span() const noexcept { return {p_, n_}; }
  operator std::span<const T>() const noexcept { return span(); }

  template <class... A> T& emplace_back(A&&... a) {
    if (n_ == cap_) [[unlikely]] grow(cap_ * 2);
    T* x = ::new (static_cast<void*>(p_ + n_)) T(std::forward<A>(a)...);
    ++n_;
    return *x;
  }
  void push_back(const T& x) { emplace_back(x); }
  void push_back(T&& x) { emplace_back(std::move(x)); }
  void pop_back() noexcept { p_[--n_].~T(); }
  void clear() noexcept {
    std::destroy(p_, p_ + n_);
    n_ = 0;
  }
  void resize(std::size_t n) {
    if (n > cap_) grow(n);
    while (n_ < n) ::new (static_cast<void*>(p_ + n_++)) T();
    while (n_ > n) p_[--n_].~T();
  }

 private:
  T* inline_data() noexcept { return std::launder(reinterpret_cast<T*>(buf_)); }
  [[gnu::noinline]] void grow(std::size_t cap) {
    T* p = static_cast<T*>(::operator new(cap * sizeof(T), std::align_val_t(alignof(T))));
    std::uninitialized_move(p_, p_ + n_, p);
    std::destroy(p_, p_ + n_);
    if (p_ != inline_data()) ::operator delete(static_cast<void*>(p_), std::align_val_t(alignof(T)));
    p_ = p, cap_ = cap;
  }
  alignas(T) unsigned char buf_[N * sizeof(T)];
  T* p_ = inline_data();
  std::size_t n_ = 0, cap_ = N;
};

}  // namespace mg::detail
