#pragma once
// DType: tinygrad's dtypes as a small literal value type, usable in constant expressions and as a
// template argument. Scalars, vectors (.vec), pointers (.ptr) with an address space.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <algorithm>

namespace mg {

enum class AddrSpace : std::uint8_t { GLOBAL, LOCAL, REG };

// Scalar kinds, in tinygrad's priority order.
enum class Scalar : std::uint8_t {
  void_, weakint, bool_, int8, uint8, int16, uint16, int32, uint32, int64, uint64,
  fp8e4m3, fp8e5m2, float16, bfloat16, float32, float64
};

namespace detail {
struct ScalarInfo {
  std::string_view key;    // the dtypes.<key> spelling tinygrad prints
  std::string_view cname;  // tinygrad's DType.name
  int priority, bitsize;
  char fmt;                // struct format char, 0 if none
};
inline constexpr std::array<ScalarInfo, 17> scalar_info{{
    {"void", "void", -1, 0, 0},           {"weakint", "weakint", 0, 800, 0},
    {"bool", "bool", 0, 1, '?'},          {"char", "signed char", 1, 8, 'b'},
    {"uchar", "unsigned char", 2, 8, 'B'}, {"short", "short", 3, 16, 'h'},
    {"ushort", "unsigned short", 4, 16, 'H'}, {"int", "int", 5, 32, 'i'},
    {"uint", "unsigned int", 6, 32, 'I'}, {"long", "long", 7, 64, 'q'},
    {"ulong", "unsigned long", 8, 64, 'Q'}, {"fp8e4m3", "float8_e4m3", 9, 8, 0},
    {"fp8e5m2", "float8_e5m2", 10, 8, 0}, {"half", "half", 11, 16, 'e'},
    {"bfloat16", "__bf16", 12, 16, 0},    {"float", "float", 13, 32, 'f'},
    {"double", "double", 14, 64, 'd'},
}};
}  // namespace detail

// A dtype. Non-pointer: `count` is the vector width. Pointer: `count` is the pointee's vector width,
// `v` the pointer's own vector width, `size` the element count (-1 = unlimited).
struct DType {
  Scalar scalar_ = Scalar::void_;
  bool is_ptr = false;
  AddrSpace addrspace = AddrSpace::GLOBAL;
  std::uint16_t count = 1;
  std::uint16_t v = 1;
  std::int64_t size = -1;

  // Field by field at compile time; at run time the five small fields are one 64-bit word (the
  // padding byte after addrspace masked out): the intern table compares dtypes on every probe.
  constexpr bool operator==(const DType& o) const {
    if (std::is_constant_evaluated()) {
      return scalar_ == o.scalar_ && is_ptr == o.is_ptr && addrspace == o.addrspace && count == o.count && v == o.v &&
             size == o.size;
    } else {
      std::uint64_t a, b;
      std::memcpy(&a, this, 8), std::memcpy(&b, &o, 8);
      constexpr std::uint64_t pad = std::endian::native == std::endian::little ? 0xffull << 24 : 0xffull << 32;
      return ((a ^ b) & ~pad) == 0 && size == o.size;
    }
  }
  constexpr std::size_t hash() const {
    return (std::size_t(scalar_) | std::size_t(count) << 8 | std::size_t(v) << 24 | std::size_t(is_ptr) << 40 |
            std::size_t(addrspace) << 41) ^ (std::size_t(size) * 0x9e3779b97f4a7c15ull);
  }
  constexpr const detail::ScalarInfo& info() const { return detail::scalar_info[std::size_t(scalar_)]; }
  constexpr Scalar kind() const { return scalar_; }
  constexpr int priority() const { return info().priority; }
  constexpr int bitsize() const { return info().bitsize * count; }
  constexpr int itemsize() const { return (bitsize() + 7) / 8; }
  constexpr int vcount() const { return is_ptr ? v : count; }

  // the element type without vector width (a vectorized pointer gives its scalar pointer)
  constexpr DType scalar() const {
    DType r = *this;
    if (is_ptr) r.v = 1; else r.count = 1;
    return r;
  }
  // pointer → pointee; anything else → itself
  constexpr DType base() const { return is_ptr ? DType{scalar_, false, AddrSpace::GLOBAL, count, 1, -1} : *this; }
  constexpr DType vec(int n) const {
    DType r = *this;
    if (n == 1 || scalar_ == Scalar::void_) return r;
    if (is_ptr) r.v = std::uint16_t(n); else r.count = std::uint16_t(n);
    return r;
  }
  constexpr DType ptr(std::int64_t sz = -1, AddrSpace as = AddrSpace::GLOBAL) const {
    return DType{scalar_, true, as, count, 1, sz};
  }
  constexpr std::int64_t nbytes() const { return size * itemsize(); }

  constexpr bool is_float() const { return scalar_ >= Scalar::fp8e4m3; }
  constexpr bool is_int() const { return (scalar_ >= Scalar::int8 && scalar_ <= Scalar::uint64) || scalar_ == Scalar::weakint; }
  constexpr bool is_unsigned() const {
    return scalar_ == Scalar::uint8 || scalar_ == Scalar::uint16 || scalar_ == Scalar::uint32 || scalar_ == Scalar::uint64;
  }
  constexpr bool is_bool() const { return scalar_ == Scalar::bool_; }
  constexpr bool is_fp8() const { return scalar_ == Scalar::fp8e4m3 || scalar_ == Scalar::fp8e5m2; }

  // value range of the scalar type; integers as int64 (uint64's max is returned as INT64_MAX: use umax())
  constexpr double fmin() const { return is_float() ? -std::numeric_limits<double>::infinity() : double(imin()); }
  constexpr double fmax() const { return is_float() ? std::numeric_limits<double>::infinity() : double(umax()); }
  constexpr std::int64_t imin() const {
    if (is_bool() || is_unsigned()) return 0;
    if (scalar_ == Scalar::weakint || scalar_ == Scalar::int64) return std::numeric_limits<std::int64_t>::min();
    return -(std::int64_t(1) << (info().bitsize - 1));
  }
  constexpr std::uint64_t umax() const {
    if (is_bool()) return 1;
    if (scalar_ == Scalar::uint64) return ~std::uint64_t(0);
    if (scalar_ == Scalar::weakint || scalar_ == Scalar::int64) return std::uint64_t(std::numeric_limits<std::int64_t>::max());
    if (is_unsigned()) return (std::uint64_t(1) << info().bitsize) - 1;
    return (std::uint64_t(1) << (info().bitsize - 1)) - 1;
  }
  constexpr std::int64_t imax() const { return std::int64_t(std::min<std::uint64_t>(umax(), std::uint64_t(INT64_MAX))); }

  // tinygrad's repr: dtypes.float, dtypes.float.vec(4), dtypes.float.ptr(16, AddrSpace.LOCAL).vec(2)
  std::string repr() const {
    std::string s = "dtypes." + std::string(info().key);
    if (count != 1) s += ".vec(" + std::to_string(count) + ")";
    if (is_ptr) {
      s += ".ptr(" + std::to_string(size);
      if (addrspace != AddrSpace::GLOBAL) s += addrspace == AddrSpace::LOCAL ? ", AddrSpace.LOCAL" : ", AddrSpace.REG";
      s += ")";
      if (v != 1) s += ".vec(" + std::to_string(v) + ")";
    }
    return s;
  }
};
// the layout DType::operator== reads as one word
static_assert(offsetof(DType, count) == 4 && offsetof(DType, v) == 6 && offsetof(DType, size) == 8 &&
              sizeof(DType) == 16);

namespace dtypes {
inline constexpr DType void_{Scalar::void_}, weakint{Scalar::weakint}, index{Scalar::weakint}, bool_{Scalar::bool_},
    int8{Scalar::int8}, uint8{Scalar::uint8}, int16{Scalar::int16}, uint16{Scalar::uint16}, int32{Scalar::int32},
    uint32{Scalar::uint32}, int64{Scalar::int64}, uint64{Scalar::uint64}, fp8e4m3{Scalar::fp8e4m3},
    fp8e5m2{Scalar::fp8e5m2}, float16{Scalar::float16}, bfloat16{Scalar::bfloat16}, float32{Scalar::float32},
    float64{Scalar::float64};
// tinygrad's aliases
inline constexpr DType half = float16, float_ = float32, double_ = float64, char_ = int8, uchar = uint8, short_ = int16,
                       ushort = uint16, int_ = int32, uint = uint32, long_ = int64, ulong = uint64;
inline constexpr DType default_float = float32, default_int = int32;
inline constexpr std::array<DType, 15> all{bool_, int8, uint8, int16, uint16, int32, uint32, int64, uint64,
                                           fp8e4m3, fp8e5m2, float16, bfloat16, float32, float64};
}  // namespace dtypes

// a set of scalar dtypes (tinygrad's set[DType] where only the scalar kind matters: a renderer's
// supported_dtypes(), the dtypes a kernel emulates)
struct DTypeSet {
  std::uint32_t bits = 0;
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> l) {
    for (DType d : l) add(d);
  }
  static constexpr DTypeSet all() {
    DTypeSet s;
    for (DType d : dtypes::all) s.add(d);
    return s;
  }
  constexpr DTypeSet& add(DType d) { bits |= std::uint32_t(1) << unsigned(d.kind()); return *this; }
  constexpr DTypeSet& remove(DType d) { bits &= ~(std::uint32_t(1) << unsigned(d.kind())); return *this; }
  constexpr bool contains(DType d) const { return (bits >> unsigned(d.kind())) & 1u; }
  constexpr bool empty() const { return bits == 0; }
  friend constexpr bool operator==(DTypeSet, DTypeSet) = default;
};

// ***** promotion lattice (https://jax.readthedocs.io/en/latest/jep/9407-type-promotion.html) *****

namespace detail {
// bit i set = Scalar(i) is reachable upward from the row's scalar (including itself)
constexpr std::uint32_t bit(Scalar s) { return 1u << unsigned(s); }
constexpr std::uint32_t promo_parents(Scalar s) {
  switch (s) {
    case Scalar::bool_: return bit(s) | promo_parents(Scalar::weakint);
    case Scalar::weakint: return bit(s) | promo_parents(Scalar::int8) | promo_parents(Scalar::uint8);
    case Scalar::int8: return bit(s) | promo_parents(Scalar::int16);
    case Scalar::int16: return bit(s) | promo_parents(Scalar::int32);
    case Scalar::int32: return bit(s) | promo_parents(Scalar::int64);
    case Scalar::int64: return bit(s) | promo_parents(Scalar::uint64);
    case Scalar::uint8: return bit(s) | promo_parents(Scalar::int16) | promo_parents(Scalar::uint16);
    case Scalar::uint16: return bit(s) | promo_parents(Scalar::int32) | promo_parents(Scalar::uint32);
    case Scalar::uint32: return bit(s) | promo_parents(Scalar::int64) | promo_parents(Scalar::uint64);
    case Scalar::uint64: return bit(s) | promo_parents(Scalar::fp8e4m3) | promo_parents(Scalar::fp8e5m2);
    case Scalar::fp8e4m3:
    case Scalar::fp8e5m2: return bit(s) | promo_parents(Scalar::float16) | promo_parents(Scalar::bfloat16);
    case Scalar::float16:
    case Scalar::bfloat16: return bit(s) | promo_parents(Scalar::float32);
    case Scalar::float32: return bit(s) | promo_parents(Scalar::float64);
    case Scalar::float64: return bit(s);
    default: return bit(s);
  }
}
}  // namespace detail

// the smallest dtype every argument promotes to (tinygrad's least_upper_dtype; scalars only)
template <class... D>
constexpr DType least_upper_dtype(DType first, D... rest) {
  std::uint32_t common = detail::promo_parents(first.scalar_);
  ((common &= detail::promo_parents(rest.scalar_)), ...);
  // min by (priority, bitsize, name): walk the scalars in priority order
  DType best{Scalar::void_};
  bool found = false;
  for (unsigned i = 0; i < detail::scalar_info.size(); ++i) {
    if (!(common & (1u << i))) continue;
    DType d{Scalar(i)};
    auto before = [](DType x, DType y) {  // (priority, bitsize, name) in turn
      if (x.priority() != y.priority()) return x.priority() < y.priority();
      if (x.info().bitsize != y.info().bitsize) return x.info().bitsize < y.info().bitsize;
      return x.info().cname < y.info().cname;
    };
    if (!found || before(d, best)) best = d, found = true;
  }
  return best;
}
constexpr DType least_upper_float(DType d) { return d.is_float() ? d : least_upper_dtype(d, dtypes::default_float); }
// tinygrad's sum_acc_dtype: what a sum accumulates in (at least int32, uint32 when unsigned, float32)
constexpr DType sum_acc_dtype(DType d) {
  if (d.is_unsigned()) return least_upper_dtype(d, dtypes::uint32);
  if (d.is_int() || d.is_bool()) return least_upper_dtype(d, dtypes::int32);
  return least_upper_dtype(d, dtypes::float32);
}

// ***** constant normalization per dtype *****

namespace detail {
// round a double to IEEE half precision and back (round to nearest even, overflow to inf)
constexpr double round_half(double x) {
  if (!(x == x) || x == std::numeric_limits<double>::infinity() || x == -std::numeric_limits<double>::infinity()) return x;
  // work on the double itself: going through float first misrounds values just below 65520
  const std::uint64_t u = std::bit_cast<std::uint64_t>(x);
  const bool sign = u >> 63;
  double ax = sign ? -x : x, q;
  if (ax >= 65520.0) return sign ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  // quantum of half at this magnitude: subnormal below 2^-14, step 2^-24
  if (ax < 6.103515625e-05) q = 5.960464477539063e-08;
  else {
    int e = int((u >> 52) & 0x7ff) - 1023;
    q = 1.0;
    for (int i = e - 10; i > 0; --i) q *= 2;
    for (int i = e - 10; i < 0; ++i) q /= 2;
  }
  // round to nearest even multiple of q, done in double (exact for these magnitudes)
  double n = ax / q, fl = double(std::int64_t(n)), r = n - fl;
  double k = r > 0.5 ? fl + 1 : r < 0.5 ? fl : (std::int64_t(fl) % 2 == 0 ? fl : fl + 1);
  double res = k * q;
  if (res >= 65520.0) return sign ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  return sign ? -res : res;
}
constexpr double round_bf16(double x) {
  if (!(x == x) || x == std::numeric_limits<double>::infinity() || x == -std::numeric_limits<double>::infinity()) return x;
  std::uint32_t u = std::bit_cast<std::uint32_t>(float(x));
  u = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
  return double(std::bit_cast<float>(u));
}
// fp8 (OCP e4m3 / e5m2), round to nearest even, saturating like tinygrad's float_to_fp8
constexpr std::uint8_t float_to_fp8(double x, Scalar s) {
  const bool e4 = s == Scalar::fp8e4m3;
  const bool neg = std::bit_cast<std::uint64_t>(x) >> 63;
  if (!(x == x) || x == std::numeric_limits<double>::infinity() || x == -std::numeric_limits<double>::infinity()) {
    if (e4) return neg ? 0xff : 0x7f;
    return std::uint8_t((neg ? 0x80 : 0) | (x == x ? 0x7c : 0x7f));
  }
  const int bias = e4 ? 7 : 15, sig_bits = e4 ? 4 : 3;
  const std::uint64_t mant_mask = e4 ? 0x7 : 0x3, min_denorm_half = e4 ? 0x3F50000000000000ull : 0x3EE0000000000000ull,
                      ovf = e4 ? 0x407D000000000000ull : 0x40EE000000000000ull - 1, max_norm = e4 ? 0x7E : 0x7B,
                      min_norm = e4 ? 0x3F90000000000000ull : 0x3F10000000000000ull;
  const std::uint64_t xb = std::bit_cast<std::uint64_t>(x), half_ulp = std::uint64_t(1) << (52 - sig_bits);
  const std::uint64_t sign = ((xb >> 63) & 1) << 7, absx = xb & 0x7FFFFFFFFFFFFFFFull;
  const std::int64_t exp = std::int64_t((xb >> 52) & 0x7FF) - 1023 + bias;
  std::uint64_t mant = (xb >> (53 - sig_bits)) & mant_mask, res;
  if (absx <= min_denorm_half) res = 0;
  else if (absx > ovf) res = max_norm;
  else if (absx >= min_norm) {
    res = (std::uint64_t(exp) << (sig_bits - 1)) | mant;
    std::uint64_t rb = xb & ((half_ulp << 1) - 1);
    if (rb > half_ulp || (rb == half_ulp && (mant & 1))) res += 1;
  } else {
    std::int64_t shift = 1 - exp;
    mant |= std::uint64_t(1) << (sig_bits - 1);
    res = mant >> shift;
    std::uint64_t half = half_ulp << shift, rb = (xb | (std::uint64_t(1) << 52)) & ((half << 1) - 1);
    if (rb > half || (rb == half && (res & 1))) res += 1;
  }
  return std::uint8_t(res | sign);
}
constexpr double fp8_to_float(std::uint8_t x, Scalar s) {
  const bool e4 = s == Scalar::fp8e4m3;
  if ((x & 0x7F) == 0) return (x & 0x80) ? -0.0 : 0.0;
  const int bias = e4 ? 7 : 15, mant_bits = e4 ? 3 : 2, exp_bits = 8 - mant_bits - 1;
  const int exp_max = (1 << exp_bits) - 1, mant_max = (1 << mant_bits) - 1;
  const int sign = (x >> 7) & 1, exp = (x >> mant_bits) & exp_max, mant = x & mant_max;
  if (exp == exp_max) {
    if (!e4) return mant ? std::numeric_limits<double>::quiet_NaN() : (sign ? -1 : 1) * std::numeric_limits<double>::infinity();
    if (mant == mant_max) return std::numeric_limits<double>::quiet_NaN();
  }
  double p = 1.0;
  int e = exp == 0 ? 1 - bias : exp - bias;
  for (int i = 0; i < e; ++i) p *= 2;
  for (int i = 0; i > e; --i) p /= 2;
  double val = (exp == 0 ? 0.0 : 1.0) + double(mant) / (mant_max + 1);
  return sign ? -val * p : val * p;
}
}  // namespace detail

// wrap an integer to the dtype's width (two's complement; uint64 keeps its bit pattern in int64)
constexpr std::int64_t truncate_int(DType d, std::int64_t x) {
  const int bits = d.scalar().info().bitsize;
  if (d.is_bool()) return x != 0;
  if (bits >= 64) return x;
  const std::uint64_t m = (std::uint64_t(1) << bits) - 1, u = std::uint64_t(x) & m;
  if (d.is_unsigned()) return std::int64_t(u);
  return (u >> (bits - 1)) ? std::int64_t(u | ~m) : std::int64_t(u);
}
// round a double to what the float dtype can hold (float32/16/bf16/fp8); float64 unchanged
constexpr double truncate_float(DType d, double x) {
  switch (d.scalar_) {
    case Scalar::float32: return double(float(x));
    case Scalar::float16: return detail::round_half(x);
    case Scalar::bfloat16: return detail::round_bf16(x);
    case Scalar::fp8e4m3:
    case Scalar::fp8e5m2: return detail::fp8_to_float(detail::float_to_fp8(x, d.scalar_), d.scalar_);
    default: return x;
  }
}

// tinygrad's can_lossless_cast: dt1 keeps every value of dt0
constexpr bool can_lossless_cast(DType dt0, DType dt1) {
  using namespace dtypes;
  if (dt0 == dt1 || dt0 == bool_) return true;
  auto in = [&](std::initializer_list<DType> l) {
    for (DType d : l) if (d == dt0) return true;
    return false;
  };
  if (dt1 == weakint) return dt0.is_int() && dt0 != weakint;
  if (dt1 == float64) return in({float32, float16, bfloat16, fp8e4m3, fp8e5m2, uint32, uint16, uint8, int32, int16, int8});
  if (dt1 == float32) return in({float16, bfloat16, fp8e4m3, fp8e5m2, uint16, uint8, int16, int8});
  if (dt1 == float16) return in({fp8e4m3, fp8e5m2, uint8, int8});
  if (dt1 == uint64) return in({uint32, uint16, uint8});
  if (dt1 == uint32) return in({uint16, uint8});
  if (dt1 == uint16) return in({uint8});
  if (dt1 == int64) return in({uint32, uint16, uint8, int32, int16, int8});
  if (dt1 == int32) return in({uint16, uint8, int16, int8});
  if (dt1 == int16) return in({uint8, int8});
  return false;
}


}  // namespace mg
