#pragma once
// SymVal: a value of tinygrad's vmin/vmax. Python gives these as unbounded ints, bools or floats;
// here an integer (bools are 0 and 1) is exact inside ±2^125 and counts as infinite beyond it
// (tinygrad's weakint bounds are ±2^799, effectively infinite too), and a float is a double.
#include <compare>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <string>
#include <limits>

#include "cmath.hpp"
#include "error.hpp"

namespace mg {
namespace detail {
// Python's // and % on integers (floor, not C's truncation); b != 0
template <class I> constexpr I py_floordiv(I a, I b) {
  I q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
// from the remainder, not a - (a//b)*b: (a//b)*b can leave the type's range when a is near its minimum
template <class I> constexpr I py_floormod(I a, I b) {
  const I r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
}  // namespace detail

class SymVal {
 public:
  using i128 = __int128;
  static constexpr i128 inf_int = i128(1) << 125;

  constexpr SymVal() = default;
  template <std::integral T> constexpr SymVal(T v) : i_(clamp(i128(v))) {}
  template <std::floating_point T> constexpr SymVal(T v) : f_(double(v)), flt_(true) {}
  static constexpr SymVal from_i128(i128 v) {
    SymVal s;
    s.i_ = clamp(v);
    return s;
  }
  static constexpr SymVal pos_inf() { return from_i128(inf_int); }
  static constexpr SymVal neg_inf() { return from_i128(-inf_int); }

  constexpr bool is_float() const { return flt_; }
  constexpr bool is_int() const { return !flt_; }
  constexpr bool is_inf() const { return flt_ ? cmath::isinf(f_) : (i_ == inf_int || i_ == -inf_int); }
  constexpr i128 as_i128() const { return flt_ ? i128(f_) : i_; }
  constexpr double as_double() const { return flt_ ? f_ : double(i_); }
  // the exact int64 value; an Error when it is a float or does not fit
  std::int64_t as_int() const {
    if (flt_ || i_ < i128(INT64_MIN) || i_ > i128(INT64_MAX)) throw Error("SymVal::as_int: " + repr() + " is not an int64");
    return std::int64_t(i_);
  }
  constexpr bool fits_int64() const { return !flt_ && i_ >= i128(INT64_MIN) && i_ <= i128(INT64_MAX); }
  // the value clamped to int64's range (an infinite bound becomes INT64_MIN or INT64_MAX)
  constexpr std::int64_t clamped_int64() const {
    i128 v = as_i128();
    return v < i128(INT64_MIN) ? INT64_MIN : v > i128(INT64_MAX) ? INT64_MAX : std::int64_t(v);
  }
  explicit constexpr operator bool() const { return flt_ ? f_ != 0.0 : i_ != 0; }

  // Python's str(): 12, -3, 1.5, inf; an infinite integer prints as "inf"/"-inf"
  std::string repr() const {
    if (flt_) {
      if (cmath::isnan(f_)) return "nan";
      if (cmath::isinf(f_)) return f_ < 0 ? "-inf" : "inf";
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", f_);
      return buf;
    }
    if (i_ == inf_int) return "inf";
    if (i_ == -inf_int) return "-inf";
    i128 v = i_ < 0 ? -i_ : i_;
    std::string s;
    do s.insert(s.begin(), char('0' + int(v % 10))), v /= 10; while (v);
    return i_ < 0 ? "-" + s : s;
  }

  friend constexpr bool operator==(const SymVal& a, const SymVal& b) {
    return (a.flt_ || b.flt_) ? a.as_ld() == b.as_ld() : a.i_ == b.i_;
  }
  friend constexpr std::partial_ordering operator<=>(const SymVal& a, const SymVal& b) {
    if (a.flt_ || b.flt_) return a.as_ld() <=> b.as_ld();
    return a.i_ <=> b.i_;
  }

  // arithmetic with infinities absorbing; +inf + -inf is a NaN float (callers that bound pick a side)
  friend constexpr SymVal operator+(const SymVal& a, const SymVal& b) {
    if (a.flt_ || b.flt_) return SymVal(a.as_double() + b.as_double());
    if (a.is_inf() && b.is_inf() && a.i_ != b.i_) return SymVal(std::numeric_limits<double>::quiet_NaN());
    if (a.is_inf()) return a;
    if (b.is_inf()) return b;
    return from_i128(a.i_ + b.i_);
  }
  friend constexpr SymVal operator-(const SymVal& a) { return a.flt_ ? SymVal(-a.f_) : from_i128(-a.i_); }
  friend constexpr SymVal operator-(const SymVal& a, const SymVal& b) { return a + (-b); }
  friend constexpr SymVal operator*(const SymVal& a, const SymVal& b) {
    if (a.flt_ || b.flt_) return SymVal(a.as_double() * b.as_double());
    if (a.i_ == 0 || b.i_ == 0) return SymVal(0);
    // the usual case, bounds of index math: both in int64 and so the product (no 128-bit multiply)
    if (std::int64_t r64; both_int64(a, b) && !__builtin_mul_overflow(std::int64_t(a.i_), std::int64_t(b.i_), &r64)) return from_i128(r64);
    i128 r;
    if (a.is_inf() || b.is_inf() || __builtin_mul_overflow(a.i_, b.i_, &r)) return ((a.i_ < 0) != (b.i_ < 0)) ? neg_inf() : pos_inf();
    return from_i128(r);
  }
  // Python's // and % (floor), C's / and % (truncating); an infinite numerator stays infinite
  friend constexpr SymVal floordiv(const SymVal& a, const SymVal& b) {
    if (a.flt_ || b.flt_) return SymVal(cmath::floor(a.as_double() / b.as_double()));
    if (b.i_ == 0) throw Error("SymVal: division by zero");
    if (a.is_inf()) return ((a.i_ < 0) != (b.i_ < 0)) ? neg_inf() : pos_inf();
    if (both_int64(a, b) && b.i_ != -1) return from_i128(detail::py_floordiv(std::int64_t(a.i_), std::int64_t(b.i_)));  // no 128-bit division
    return from_i128(detail::py_floordiv(a.i_, b.i_));
  }
  friend constexpr SymVal floormod(const SymVal& a, const SymVal& b) {
    if (a.flt_ || b.flt_) return SymVal(a.as_double() - cmath::floor(a.as_double() / b.as_double()) * b.as_double());
    if (b.i_ == 0) throw Error("SymVal: modulo by zero");
    if (both_int64(a, b) && b.i_ != -1) return from_i128(detail::py_floormod(std::int64_t(a.i_), std::int64_t(b.i_)));
    return from_i128(detail::py_floormod(a.i_, b.i_));
  }
  friend constexpr SymVal cdiv(const SymVal& a, const SymVal& b) {
    if (b.as_i128() == 0) throw Error("SymVal: division by zero");
    if (a.is_inf()) return ((a.i_ < 0) != (b.i_ < 0)) ? neg_inf() : pos_inf();
    return from_i128(a.as_i128() / b.as_i128());
  }
  friend constexpr SymVal cmod(const SymVal& a, const SymVal& b) {
    if (b.as_i128() == 0) throw Error("SymVal: modulo by zero");
    return from_i128(a.as_i128() % b.as_i128());
  }
  friend constexpr SymVal shl(const SymVal& a, const SymVal& b) {
    i128 s = b.as_i128();
    if (s < 0) throw Error("SymVal: negative shift count " + b.repr());
    return s >= 126 ? (a.as_i128() == 0 ? SymVal(0) : a.as_i128() < 0 ? neg_inf() : pos_inf()) : a * from_i128(i128(1) << int(s));
  }
  friend constexpr SymVal shr(const SymVal& a, const SymVal& b) {
    i128 s = b.as_i128();
    if (s < 0) throw Error("SymVal: negative shift count " + b.repr());
    if (a.is_inf()) return a;
    return from_i128(s >= 126 ? (a.i_ < 0 ? -1 : 0) : (a.i_ >> int(s)));
  }
  friend constexpr SymVal bitnot(const SymVal& a) { return a.is_inf() ? -a : from_i128(~a.as_i128()); }  // ~x is -x-1
  friend constexpr SymVal min(const SymVal& a, const SymVal& b) { return b < a ? b : a; }
  friend constexpr SymVal max(const SymVal& a, const SymVal& b) { return a < b ? b : a; }

 private:
  // two ints whose values fit int64 (an infinite int does not): int64 arithmetic gives the same result
  static constexpr bool both_int64(const SymVal& a, const SymVal& b) {
    return !a.flt_ && !b.flt_ && a.i_ == i128(std::int64_t(a.i_)) && b.i_ == i128(std::int64_t(b.i_));
  }
  static constexpr i128 clamp(i128 v) { return v > inf_int ? inf_int : v < -inf_int ? -inf_int : v; }
  constexpr long double as_ld() const {
    if (flt_) return f_;
    if (i_ == inf_int) return std::numeric_limits<long double>::infinity();
    if (i_ == -inf_int) return -std::numeric_limits<long double>::infinity();
    return static_cast<long double>(i_);
  }
  i128 i_ = 0;
  double f_ = 0;
  bool flt_ = false;
};

}  // namespace mg
