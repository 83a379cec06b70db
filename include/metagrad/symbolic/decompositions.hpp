#pragma once
// Decompositions: ops a backend lacks, rebuilt from the ALU ops every backend has (tinygrad's
// uop/decompositions.py). Here: the transcendental functions exp2, log2, sin (SLEEF's algorithms,
// about 1 ULP), pow and sqrt through them, threefry2x32, and get_transcendental_patterns, the rule
// set that swaps them in where a backend lacks the op; and do_dtype_decomps, the emulation of the fp8
// dtypes a backend lacks.
#include <array>
#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../core/cmath.hpp"
#include "../core/dtype.hpp"
#include "../core/error.hpp"
#include "../core/uop.hpp"
#include "../pattern/graph_rewrite.hpp"
#include "../pattern/rules.hpp"
#include "../pattern/upat.hpp"

namespace mg {

// the float dtypes with their own decompositions; other floats go through float32
inline constexpr std::array<DType, 3> TRANSCENDENTAL_DTYPES{dtypes::float16, dtypes::float32, dtypes::float64};

namespace detail {

namespace math {  // Python's math.inf, math.nan, math.pi
inline constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN(),
                        pi = std::numbers::pi;
}  // namespace math

// tinygrad's dtypes.finfo: (exponent bits, mantissa bits)
constexpr std::pair<int, int> finfo(DType d) {
  switch (d.scalar().kind()) {
    case Scalar::float16: return {5, 10};
    case Scalar::bfloat16: return {8, 7};
    case Scalar::float32: return {8, 23};
    case Scalar::float64: return {11, 52};
    case Scalar::fp8e4m3: return {4, 3};
    case Scalar::fp8e5m2: return {5, 2};
    default: throw Error("finfo: " + d.repr() + " is not a floating point type");
  }
}

inline void check_transcendental(const char* fn, DType d) {
  const DType s = d.scalar();
  if (s != dtypes::float16 && s != dtypes::float32 && s != dtypes::float64)
    throw Error(std::string(fn) + ": dtype " + d.repr() + " is not one of float16, float32, float64");
}
// the signed and the unsigned integer as wide as a transcendental float dtype
inline DType int_of(DType f) {
  switch (f.scalar().kind()) {
    case Scalar::float64: return dtypes::int64;
    case Scalar::float32: return dtypes::int32;
    case Scalar::float16: return dtypes::int16;
    default: throw Error("decompositions: no integer dtype for " + f.repr());
  }
}
inline DType uint_of(DType f) {
  switch (f.scalar().kind()) {
    case Scalar::float64: return dtypes::uint64;
    case Scalar::float32: return dtypes::uint32;
    case Scalar::float16: return dtypes::uint16;
    default: throw Error("decompositions: no unsigned dtype for " + f.repr());
  }
}

// replace inf -> inf, -inf -> _inf, nan -> nan, otherwise -> ratio
template <std::same_as<UOp> U> U _lazy_map_numbers(const U& x, const U& inf, const U& _inf, const U& nan, const U& ratio) {
  return x.ne(math::inf).where(x.ne(x).where(nan, x.ne(-math::inf).where(ratio, _inf)), inf);
}

// *** helper functions for bit manipulation ***
inline int mantissa_bits(DType d) { return finfo(d).second; }
inline int exponent_bias(DType d) { return (1 << (finfo(d).first - 1)) - 1; }  // no fnuz fp8 dtypes in metagrad
inline int exponent_mask(DType d) { return (1 << finfo(d).first) - 1; }

// **** utils ****
// tinygrad's shr/shl: x // 2**y and x * 2**y. tinygrad simplifies a UOp y to its constant; here it must be one.
inline std::int64_t pow2_const(int y) {
  if (y < 0 || y > 63) throw Error("shr/shl: shift " + std::to_string(y) + " is not in [0, 63]");
  return std::int64_t(std::uint64_t(1) << y);
}
template <std::same_as<UOp> U> int shift_const(const U& y) {
  if (y.op() != Ops::CONST || !y.arg().is_int())
    throw Error("shr/shl: shift amount must be an integer CONST, got " + op_repr(y.op()));
  return int(y.arg().as_int());
}
template <std::same_as<UOp> U> U shr(const U& x, int y) { return x / pow2_const(y); }
template <std::same_as<UOp> U> U shl(const U& x, int y) { return x * pow2_const(y); }
template <std::same_as<UOp> U> U shr(const U& x, const U& y) { return shr(x, shift_const(y)); }
template <std::same_as<UOp> U> U shl(const U& x, const U& y) { return shl(x, shift_const(y)); }

// tinygrad's helpers.polyN: Horner's rule starting from 0.0, so the graph has tinygrad's shape
template <std::same_as<UOp> U> U polyN(const U& x, std::span<const double> p) {
  UOp acc = x.const_like(0.0);
  for (double c : p) acc = acc * x + c;
  return acc;
}

// round d:float to int away from 0
template <std::same_as<UOp> U> U rintk(const U& d) {
  const DType out = int_of(d.dtype()).vec(d.dtype().vcount());
  return (d + (d < 0.0).where(d.const_like(-0.5), d.const_like(0.5))).cast(out);
}

// cast(2^q, float_dtype) where q is any integer in the range of [-126, 127]
template <std::same_as<UOp> U> U pow2if(const U& q, DType float_dtype) {
  DType out;
  switch (q.dtype().scalar().kind()) {
    case Scalar::int64: out = dtypes::float64; break;
    case Scalar::int32: out = dtypes::float32; break;
    case Scalar::int16: out = float_dtype.scalar(); break;
    default: throw Error("pow2if: q has dtype " + q.dtype().repr() + ", need int16, int32 or int64");
  }
  out = out.vec(q.dtype().vcount());
  return shl(q + exponent_bias(out), mantissa_bits(out)).bitcast(out);
}

// the integer part of log2(d), where d is a normalized fp value in [0, +inf)
template <std::same_as<UOp> U> U ilogb2k(const U& d) {
  check_transcendental("ilogb2k", d.dtype());
  const UOp dint = d.bitcast(int_of(d.dtype()).vec(d.dtype().vcount()));
  // -1 <= ilog2bk(d) <= 128
  return (shr(dint, mantissa_bits(d.dtype())) & exponent_mask(d.dtype())) - exponent_bias(d.dtype());
}

// d*2^e. e is a number obtained by casting an integer in the range [-127, 127] to a float. d is any float number.
template <std::same_as<UOp> U> U ldexp3k(const U& d, const U& e) {
  check_transcendental("ldexp3k", d.dtype());
  check_transcendental("ldexp3k", e.dtype());
  const DType dtype = int_of(d.dtype()).vec(d.dtype().count);
  const UOp m1 = d.bitcast(dtype), m2 = shl(e.cast(dtype), mantissa_bits(d.dtype()));
  return (m1 + m2).bitcast(d.dtype());
}

// d*2^e. much faster than ldexp3k but risky. d > 0 and d is not denormal.
template <std::same_as<UOp> U> U ldexp2k(const U& d, const U& e) {
  check_transcendental("ldexp2k", d.dtype());
  const DType es = e.dtype().scalar();
  if (es != dtypes::int16 && es != dtypes::int32 && es != dtypes::int64)
    throw Error("ldexp2k: e has dtype " + e.dtype().repr() + ", need int16, int32 or int64");
  return (d * pow2if(shr(e, 1), d.dtype())) * pow2if(e - shr(e, 1), d.dtype());
}

// frexp(v) -> (mantissa, exponent) assuming v != 0
template <std::same_as<UOp> U> std::pair<U, U> frexp(const U& v) {
  check_transcendental("frexp", v.dtype());
  const Scalar s = v.dtype().scalar().kind();
  // m1 = masks for mantissa, m2 = masks to normalize the mantissa.
  const std::int64_t m1 = s == Scalar::float64 ? 0x000FFFFFFFFFFFFF : s == Scalar::float32 ? 0x807FFFFF : 0x83FF;
  const std::int64_t m2 = s == Scalar::float64 ? 0x3FE0000000000000 : s == Scalar::float32 ? 0x3F000000 : 0x3800;
  const UOp bits = v.bitcast(uint_of(v.dtype()).vec(v.dtype().count));
  const UOp exponent = shr(bits, mantissa_bits(v.dtype())) & exponent_mask(v.dtype());
  // Set the exponent bits appropriately to normalize the mantissa into the range of [0.5, 1.0).
  const UOp mantissa = ((bits & m1) | m2).bitcast(v.dtype());
  const UOp exp = exponent - exponent_bias(v.dtype()) + 1;
  return {mantissa, exp};
}

// *** reduction algorithms for sine ***

// Payne-Hanek reduction: the remainder of d modulo pi/2 for 39800.0 <= d <= +Inf. Returns (r, q):
// r (d's dtype) is round_to_nearest(d % pi/2), q (int32) is an integer whose q % 4 is d's quadrant.
template <std::same_as<UOp> U> std::pair<U, U> payne_hanek_reduction(const U& d) {
  check_transcendental("payne_hanek_reduction", d.dtype());
  // https://stackoverflow.com/questions/30463616/payne-hanek-algorithm-implementation-in-c/30465751#30465751
  // 190 bits of 2/pi for Payne-Hanek style argument reduction
  static constexpr std::array<std::int64_t, 7> two_over_pi_f{0x00000000, 0x28be60db, 0x9391054a, 0x7f09d5f4,
                                                             0x7d4d3770, 0x36d8a566, 0x4f10e410};
  const int n = d.dtype().count;
  const DType intermediate_dtype = d.dtype().scalar() == dtypes::float16 ? dtypes::float32.vec(n) : d.dtype();

  const auto [f, fe] = frexp(d);
  const UOp ia = (f.cast(intermediate_dtype) * 4.294967296e9).cast(dtypes::uint64);
  // extract 96 relevant bits of 2/pi based on magnitude of argument
  const UOp i = shr(fe.cast(dtypes::uint64), 5);
  const UOp e = fe.cast(dtypes::int32) & 31;
  const UOp offset = 32 - e;

  // an = two_over_pi_f[i+offset]: a chain of wheres on i, innermost (the zero) first
  auto take = [&](int off) {
    const UOp zero = UOp::const_(dtypes::uint32.vec(n), 0);
    UOp an = zero;
    for (int count = int(two_over_pi_f.size()) - 2 - off; count >= 0; --count)
      an = i.ne(count).where(an, zero.const_like(two_over_pi_f[std::size_t(count + off)]));
    return an;
  };
  auto shl_lazy = [&](const UOp& x, const UOp& y) {
    return (x.cast(dtypes::uint64) * pow2if(y, d.dtype()).cast(dtypes::uint64)).cast(dtypes::uint32);
  };
  auto shr_lazy = [&](const UOp& x, const UOp& y) {
    return (x.cast(dtypes::uint64) / pow2if(y, d.dtype()).cast(dtypes::uint64)).cast(dtypes::uint32);
  };

  const std::array<UOp, 4> a{take(0), take(1), take(2), take(3)};
  //  (two_over_pi_f[Int(i) + n] << e) | (two_over_pi_f[Int(i) + n+1] >> (nbits - e))
  // Note: e >= 1 for all numbers d >= 1.0. assume e != 0
  const UOp hi = shl_lazy(a[0], e) | shr_lazy(a[1], offset);
  const UOp mi = shl_lazy(a[1], e) | shr_lazy(a[2], offset);
  const UOp lo = shl_lazy(a[2], e) | shr_lazy(a[3], offset);

  auto hp_mul = [](const UOp& x, const UOp& y) { return x.cast(dtypes::uint64) * y.cast(dtypes::uint64); };
  // compute x * 2/pi
  UOp p = shl(hp_mul(ia, hi), 32) + hp_mul(ia, mi) + shr(hp_mul(ia, lo), 32);

  // round quotient to nearest
  const UOp q = shr(p, 62).cast(dtypes::int32);
  p = p & 0x3fffffffffffffff;
  const UOp r = (p.cast(intermediate_dtype) * 3.4061215800865545e-19).cast(d.dtype());

  // if fraction >= 0.5, r -= pi/2, q += 1
  return {(f < 0.5).where(r, r - math::pi / 2), (f < 0.5).where(q, q + 1)};
}

// Cody-Waite reduction: the remainder of d modulo pi/2 for 0 <= abs(d) <= 39800.0, as payne_hanek_reduction.
template <std::same_as<UOp> U> std::pair<U, U> cody_waite_reduction(const U& d) {
  constexpr double m_1_pi = 0.318309886183790671537767526745028724;
  const bool f64 = d.dtype().scalar() == dtypes::float64;
  // the high part of d/pi, only float64 carries it through the reduction
  const UOp qdh = f64 ? (d * (m_1_pi / 0x1p24)).cast(dtypes::int64).cast(d.dtype()) * 0x1p24 : UOp();
  auto reduce_d = [&qdh](auto& self, const UOp& x, const UOp& q) -> UOp {
    const Scalar s = x.dtype().scalar().kind();
    if (s == Scalar::float64) {
      // https://github.com/shibatch/sleef/blob/4e08851f59fc2b545f9c393c6a23dfd311a26308/src/libm/sleefdp.c#L789-L823
      // https://github.com/shibatch/sleef/blob/f6d8a841fbfddd26ce712834d4da220cd76048fb/src/common/misc.h#L77
      constexpr double PI_A = 3.1415926218032836914, PI_B = 3.1786509424591713469e-08,
                       PI_C = 1.2246467864107188502e-16, PI_D = 1.2736634327021899816e-24;
      UOp r = qdh * -PI_A + x;
      r = q * -PI_A + r;
      r = qdh * -PI_B + r;
      r = q * -PI_B + r;
      r = qdh * -PI_C + r;
      r = q * -PI_C + r;
      return (qdh + q) * -PI_D + r;
    }
    // [FIXME] when reducing `d`, FP16 needs FP32 precision to achieve 1.0 ULP precision.
    if (s == Scalar::float16) return self(self, x.cast(dtypes::float32), q.cast(dtypes::float32)).cast(dtypes::float16);
    // https://github.com/shibatch/sleef/blob/4e08851f59fc2b545f9c393c6a23dfd311a26308/src/libm/sleefsp.c#L464-L503
    UOp r = q * -3.1414794921875 + x;
    r = q * -0.00011315941810607910156 + r;
    r = q * -1.9841872589410058936e-09 + r;
    return q * -1.2154201256553420762e-10 + r;
  };
  const UOp quadrant = f64 ? rintk(d * m_1_pi - qdh) : rintk(d * m_1_pi);
  return {reduce_d(reduce_d, d, quadrant.cast(d.dtype())), quadrant.cast(dtypes::int32)};
}

// *** approximate sine on small angle. ***
template <std::same_as<UOp> U> U trig_poly(const U& d, std::span<const double> coeff32, std::span<const double> coeff64) {
  return d * polyN(d * d, d.dtype().scalar() == dtypes::float64 ? coeff64 : coeff32);
}
// approximate sine on [-pi/2, pi/2]
template <std::same_as<UOp> U> U sin_poly(const U& d) {
  static constexpr std::array<double, 5> c32{2.6083159809786593541503e-06, -0.0001981069071916863322258,
                                             0.00833307858556509017944336, -0.166666597127914428710938, 1.0};
  static constexpr std::array<double, 10> c64{
      -7.97255955009037868891952e-18, 2.81009972710863200091251e-15, -7.64712219118158833288484e-13,
      1.60590430605664501629054e-10,  -2.50521083763502045810755e-08, 2.75573192239198747630416e-06,
      -0.000198412698412696162806809, 0.00833333333333332974823815,   -0.166666666666666657414808, 1.0};
  return trig_poly(d, c32, c64);
}

template <std::same_as<UOp> U> U _ifand(const U& q, int n) { return (q & n).ne(0); }

template <std::same_as<UOp> U> U sin_poly_small(const U& d, const U& q) {
  const UOp r = sin_poly(d);
  return r * _ifand(q, 1).where(r.const_like(-1), r.const_like(1));
}

template <std::same_as<UOp> U> U sin_poly_large(const U& d, const U& q) {
  const UOp r = sin_poly(d + _ifand(q, 1).where(d.const_like(math::pi / 2), d.const_like(0)));
  return r * _ifand(q, 2).where(r.const_like(-1), r.const_like(1));
}

}  // namespace detail

// *** toplevel functions for xsin/xlog2/xexp2 ***

// A 1.0 ULP approximation for Ops.SIN. fast = true assumes |x| <= switch_over; switch_over is where
// Cody-Waite reduction hands over to Payne-Hanek.
template <std::same_as<UOp> U> U xsin(const U& d, bool fast = false, double switch_over = 30.0) {
  using namespace detail;
  check_transcendental("xsin", d.dtype());
  // mask +-inf/nan as zero
  const UOp x = _lazy_map_numbers(d, d.const_like(0.0), d.const_like(0.0), d.const_like(0.0), d);
  // x_sign = sign(x)
  const UOp x_sign = x.ne(0).where((x < 0).where(x.const_like(-1), x.const_like(1)), x.const_like(0));
  const UOp x_abs = x * x_sign;
  const auto [r, q] = fast ? cody_waite_reduction(x_abs) : payne_hanek_reduction(x_abs);
  UOp result;
  if (fast) result = sin_poly_small(r, q);
  else {
    // Payne Hanek Reduction assumes abs(x) >= pi/4, so for smaller values, use cody_waite_reduction.
    const auto [r_small, q_small] = cody_waite_reduction(x_abs);
    result = (x_abs < switch_over).where(sin_poly_small(r_small, q_small), sin_poly_large(r, q));
  }
  // adjusts the sign for abs(x)
  result = result * x_sign;
  // sin(Inf) = NaN, sin(-Inf) = NaN, sin(NaN) = NaN
  return _lazy_map_numbers(d, d.const_like(math::nan), d.const_like(math::nan), d.const_like(math::nan), result);
}

// A 1.0 ULP approximation for Ops.EXP2. Paper: https://arxiv.org/pdf/2001.09258
template <std::same_as<UOp> U> U xexp2(const U& d) {
  using namespace detail;
  check_transcendental("xexp2", d.dtype());
  // mask +=inf/nan as zero.
  const UOp x = _lazy_map_numbers(d, d.const_like(0.0), d.const_like(0.0), d.const_like(0.0), d);
  const UOp q = rintk(x);
  // s = d - round(d)
  const UOp s = x - q.cast(x.dtype());
  // a polynomial approximation with 13 non-zero terms in the range of [−(log 2)/2,(log 2)/2].
  static constexpr std::array<double, 12> c64{
      0.4434359082926529454e-9, 0.7073164598085707425e-8, 0.1017819260921760451e-6, 0.1321543872511327615e-5,
      0.1525273353517584730e-4, 0.1540353045101147808e-3, 0.1333355814670499073e-2, 0.9618129107597600536e-2,
      0.5550410866482046596e-1, 0.2402265069591012214e+0, 0.6931471805599452862e+0, 0.1000000000000000000e+1};
  static constexpr std::array<double, 7> c32{0.1535920892e-3, 0.1339262701e-2, 0.9618384764e-2, 0.5550347269e-1,
                                             0.2402264476e+0, 0.6931471825e+0, 1.0};
  const Scalar k = d.dtype().scalar().kind();
  UOp u = k == Scalar::float64 ? polyN(s, c64) : polyN(s, c32);
  u = ldexp2k(u, q);  // u*2^q
  const auto [upper, lower] = k == Scalar::float64 ? std::pair{1024, -2000} : k == Scalar::float32 ? std::pair{128, -150}
                                                                                                   : std::pair{23, -22};
  // Replace x >= upper with +inf
  u = (d >= upper).where(d.const_like(math::inf), u);
  // Replace x < lower with zero.
  u = (d < lower).where(d.const_like(0.0), u);
  // exp2(NaN) = NaN
  return d.ne(d).where(d.const_like(math::nan), u);
}

// A 1.0 ULP approximation for Ops.LOG2. Paper: https://arxiv.org/pdf/2001.09258 5.5
template <std::same_as<UOp> U> U xlog2(const U& d) {
  using namespace detail;
  check_transcendental("xlog2", d.dtype());
  const Scalar k = d.dtype().scalar().kind();
  // float16 uses 2^10 for denormal scaling (2^64 overflows), float32/64 use 2^64
  const int denormal_exp = k == Scalar::float16 ? 10 : 64;
  const UOp FLT_MIN = d.const_like(k == Scalar::float16 ? 6.1e-5 : 1e-4);
  const UOp is_denormal = d < FLT_MIN;
  const UOp a = is_denormal.where(d * cmath::ldexp(1.0, denormal_exp), d);

  UOp e = ilogb2k(a * (1.0 / 0.75)).cast(a.dtype());
  const UOp m = ldexp3k(a, -e);
  e = is_denormal.where(e - denormal_exp, e);

  const UOp x = (m - 1.0) / (m + 1.0);
  const UOp x2 = x * x;
  UOp r;
  if (k == Scalar::float64) {
    static constexpr std::array<double, 7> c64{0.2211941750456081490e+0, 0.2200768693152277689e+0, 0.2623708057488514656e+0,
                                               0.3205977477944495502e+0, 0.4121985945485324709e+0, 0.5770780162997058982e+0,
                                               0.96179669392608091449};
    const UOp t = polyN(x2, c64);
    r = t * (x * x2) + e + x * 2.885390081777926774;
  } else {
    static constexpr std::array<double, 3> c32{0.4374550283e+0, 0.5764790177e+0, 0.9618012905120};
    const UOp t = polyN(x2, c32);
    // s_lo term (x*3.27e-08) only for float32 - underflows in float16
    r = t * (x * x2) + e + x * 2.8853900432586669922 +
        (k == Scalar::float32 ? x * 3.2734474483568488616e-08 : x.const_like(0));
  }

  // log2(Inf) = Inf
  r = d.ne(math::inf).where(r, r.const_like(math::inf));
  // log2(0) = -Inf (handle both +0.0 and -0.0)
  r = d.ne(0.0).where(r, r.const_like(-math::inf));
  // log2(x) = NaN for x < 0
  r = (d < -0.0).where(r.const_like(math::nan), r);
  // log2(NaN) = NaN
  r = d.ne(d).where(r.const_like(math::nan), r);
  // log2(-0.0) = -Inf. In certain devices like PTX, x == -0.0 won't be true. so making reciprocal.
  return d.reciprocal().ne(-math::inf).where(r, r.const_like(-math::inf));
}

// base ** exponent as exp2(exponent * log2(|base|)), with the sign and the special cases fixed up.
// The LOG2 and EXP2 it makes are decomposed by get_transcendental_patterns where a backend lacks them.
template <std::same_as<UOp> U> U xpow(const U& base, const U& exponent) {
  // start with b ** e = exp2(e * log2(b))
  const UOp ret = ((base < 0).where(-base, base).log2() * exponent).exp2();
  // negative base: nan for non-integer exponent, negate for odd integer exponent
  const UOp non_int = exponent.ne(exponent.cast(dtypes::int32).cast(exponent.dtype()));
  const UOp is_odd = ((exponent < 0).where(-exponent, exponent).cast(dtypes::int32) % 2).cast(dtypes::bool_);
  const UOp neg_base = non_int.where(ret.const_like(detail::math::nan), is_odd.where(-ret, ret));
  // fix 0 ** 0 = 1
  return (base.eq(0) & exponent.eq(0)).where(ret.const_like(1), (base < 0).where(neg_base, ret));
}

// ***** threefry *****

// Threefry-2x32 with 20 rounds (Random123's threefry2x32_20): x and key are uint64, each two uint32 words.
// threefry2x32_value computes it on numbers, for the evaluators (python_alu has no THREEFRY);
// threefry2x32 builds the same steps as UOps.
inline std::uint64_t threefry2x32_value(std::uint64_t x, std::uint64_t key) {
  const std::uint32_t x0 = std::uint32_t(x), x1 = std::uint32_t(x >> 32), key0 = std::uint32_t(key), key1 = std::uint32_t(key >> 32);
  constexpr int rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const std::uint32_t ks[3] = {key1, key0 ^ key1 ^ 0x1BD11BDAu, key0};
  std::uint32_t a = x0 + ks[2], b = x1 + ks[0];
  for (int i = 0; i < 5; ++i) {
    for (int r : rotations[i % 2]) {
      const std::uint32_t s = a + b;
      b = s ^ ((b << r) + (b >> (32 - r)));
      a = s;
    }
    a += ks[i % 3];
    b += ks[(i + 1) % 3] + std::uint32_t(i + 1);
  }
  return std::uint64_t(b) << 32 | a;
}

template <std::same_as<UOp> U> U threefry2x32(const U& x, const U& key) {
  constexpr std::int64_t two32 = std::int64_t(1) << 32;
  // split x and key from uint64 to two uint32
  auto lo = [](const UOp& v) { return (v & 0xffffffff).cast(dtypes::uint32); };
  auto hi = [&](const UOp& v) { return ((v / two32) & 0xffffffff).cast(dtypes::uint32); };
  const UOp x0 = lo(x), x1 = hi(x), key0 = lo(key), key1 = hi(key);

  constexpr int rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const std::array<UOp, 3> ks{key1, key0 ^ key1 ^ 0x1BD11BDA, key0};
  std::array<UOp, 2> xr{x0 + ks[2], x1 + ks[0]};
  for (int i = 0; i < 5; ++i) {
    for (int r : rotations[i % 2]) {
      const UOp s = xr[0] + xr[1];
      xr = {s, s ^ ((xr[1] * (std::int64_t(1) << r)) + (xr[1] / (std::int64_t(1) << (32 - r))))};
    }
    xr = {xr[0] + ks[std::size_t(i % 3)], xr[1] + ks[std::size_t((i + 1) % 3)] + i + 1};
  }
  return xr[1].cast(dtypes::uint64) * two32 | xr[0].cast(dtypes::uint64);
}

// ***** floats *****
// tinygrad's f2f/f2f_clamp, for the fp8s a backend lacks (llvmir.py's supported_dtypes() has none): the
// values stay bytes in memory, every CAST and ALU op on them runs in float32, and the conversions are
// integer ops. They give what INTERP and the reference evaluator compute bit for bit (float_to_fp8 and
// fp8_to_float, a nan always 0x7f), which differs from tinygrad's f2f in three places: fp8 subnormals
// are kept (f2f flushes them: "denormals are zero"), ±inf become e4m3's nan / e5m2's ±inf (f2f_clamp
// saturates them to ±max), and a nan is 0x7f (f2f keeps its sign and, for e5m2, mantissa bits). The
// wide type is float32 even where half is native (tinygrad then picks half): e5m2's products overflow
// half where float_to_fp8 saturates them, and a float32 source would be rounded twice.

namespace detail {

// ctx of pm_float_decomp: the fp8s this kernel emulates
struct FloatDecompCtx {
  DTypeSet emulated;
  bool contains(DType d) const { return !d.is_ptr && emulated.contains(d.scalar()); }
};

// f(x) lane by lane for a vector x, f(x) for a scalar
template <std::same_as<UOp> U, class F> U per_lane(const U& x, F&& f) {
  if (x.dtype().count == 1) return f(x);
  std::vector<UOp> lanes;
  for (int i = 0; i < x.dtype().count; ++i) lanes.push_back(f(x.gep(i)));
  return UOp::stack(std::move(lanes));
}

// an fp8 value as the float32 with its value, exactly (fp8_to_float: subnormals kept, a nan positive)
template <std::same_as<UOp> U> U fp8_to_f32(const U& v) {
  return per_lane(v, [](const UOp& x) {
    const DType fr = x.dtype().scalar();
    if (x.op() == Ops::CONST) return UOp::const_(dtypes::float32, Arg(truncate_float(fr, x.arg().as_float())));
    const auto [fe, fm] = finfo(fr);
    const int fb = exponent_bias(fr);
    // the byte: an emulated op's result is already one (BITCAST of the uint8 f32_to_fp8 made)
    const UOp byte = x.op() == Ops::BITCAST && x.src(0).dtype() == dtypes::uint8 ? x.src(0) : x.bitcast(dtypes::uint8);
    const UOp b = byte.cast(dtypes::uint32), mag = b & 0x7f, exp = mag >> fm, sign = (b & 0x80) << 24;
    // normal: the exponent rebiased, the mantissa moved up; subnormal: mantissa * 2^(1-bias-mbits)
    const UOp norm = (mag << (23 - fm)) + ((127 - fb) << 23);
    const UOp sub = ((b & ((1 << fm) - 1)).cast(dtypes::float32) * cmath::ldexp(1.0, 1 - fb - fm)).bitcast(dtypes::uint32);
    const UOp finite = sign | exp.eq(0).where(sub, norm);
    constexpr std::int64_t qnan = 0x7fc00000, inf = 0x7f800000;
    // e4m3 has no inf and one nan (S.1111.111); e5m2's top exponent is inf or nan as in IEEE
    const UOp bits = fr == dtypes::fp8e4m3 ? mag.eq(0x7f).where(Arg(qnan), finite)
                                           : exp.eq((1 << fe) - 1).where(mag.eq(0x7c).where(sign | inf, b.const_like(qnan)), finite);
    return bits.bitcast(dtypes::float32);
  });
}

// a float32 or float64 rounded to the fp8 `to` (float_to_fp8: nearest even, finite values saturate,
// subnormals kept; a nan is 0x7f), as an fp8 whose byte is computed with integer ops
template <std::same_as<UOp> U> U f32_to_fp8(const U& v, DType to) {
  return per_lane(v, [to](const UOp& f) {
    const DType fd = f.dtype().scalar(), ud = fd == dtypes::float64 ? dtypes::uint64 : dtypes::uint32;
    const auto [fe, fm] = finfo(fd);
    const auto [te, tm] = finfo(to);
    const int fb = exponent_bias(fd), tb = exponent_bias(to), fs = 1 + fe + fm;
    const bool e4 = to == dtypes::fp8e4m3;
    auto bits_of = [&](double x) {
      return fd == dtypes::float64 ? std::int64_t(std::bit_cast<std::uint64_t>(x)) : std::int64_t(std::bit_cast<std::uint32_t>(float(x)));
    };
    // |f| at most half the smallest subnormal is 0; above the overflow threshold (e4m3: 464, which rounds
    // to 448 as a tie to even; e5m2: from 61440 on) the largest finite value
    const std::int64_t inf = bits_of(math::inf), low = bits_of(cmath::ldexp(1.0, 1 - tb - tm - 1)),
                       high = e4 ? bits_of(464.0) : bits_of(61440.0) - 1, max_norm = e4 ? 0x7e : 0x7b;
    const UOp u = f.bitcast(ud), a = u & (fs == 64 ? std::int64_t(0x7fffffffffffffffLL) : std::int64_t(0x7fffffff)),
              sign = (u >> (fs - 8)) & 0x80;
    // the biased source exponent, clamped below where the value flushes to 0 anyway (the shifts stay < fs)
    const std::int64_t emin = fb - tb + 1, elow = emin - tm - 2;  // fp8's smallest normal, as a source exponent
    // ints of one width convert by bitcast (LLVM has no same-width zext/sext)
    auto to_i32 = [&](const UOp& x) { return ud == dtypes::uint32 ? x.bitcast(dtypes::int32) : x.cast(dtypes::int32); };
    auto to_ud = [&](const UOp& x) { return ud == dtypes::uint32 ? x.bitcast(ud) : x.cast(ud); };
    UOp e = to_i32(a >> fm);
    e = (e < int(elow)).where(e.const_like(elow), e);
    // below fp8's smallest normal the significand shifts one more place per step (a subnormal result)
    const UOp d = (e < int(emin)).where(e.const_like(emin), e);
    const UOp shift = to_ud((d - e) + (fm - tm)), sig = (a & ((std::int64_t(1) << fm) - 1)) | (std::int64_t(1) << fm);
    // round to nearest even at `shift`: q the kept bits, r the dropped ones (sig ^ q<<shift), half the tie
    const UOp q = sig >> shift, r = sig ^ (q << shift), half = (sig.const_like(1) << shift) >> 1;
    const UOp rounded = q + ((half < r) | (r.eq(half) & (q & 1).ne(0))).cast(ud);
    // a subnormal's q already sits at exponent 0; a carry out of the mantissa moves the exponent up
    const UOp res = (to_ud(d - int(emin)) << tm) + rounded;
    const UOp finite = (a.const_like(high) < a).where(a.const_like(max_norm), (a.const_like(low) < a).where(res, a.const_like(0)));
    // a nan is 0x7f whatever its sign (INTERP holds fp8 values as doubles, where fp8_to_float's nan is
    // positive); e4m3 has no inf, so ±inf is that nan too; e5m2 keeps ±inf
    const UOp nan = a.const_like(e4 ? inf - 1 : inf) < a, fin_or_inf = e4 ? finite : a.eq(inf).where(a.const_like(0x7c), finite);
    return nan.where(a.const_like(0x7f), fin_or_inf | sign).cast(dtypes::uint8).bitcast(to);
  });
}
// an emulated fp8 as float32; any other value as it is
template <std::same_as<UOp> U> U widen_emulated(const FloatDecompCtx& ctx, const U& x) {
  return ctx.contains(x.dtype()) ? fp8_to_f32(x) : x;
}

// tinygrad's pm_float_decomp, for fp8s: ctx names the fp8s to emulate
template <class D_ = void>
struct pm_float_decomp_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    using C = FloatDecompCtx;
    return rules(
        // a cast to an emulated fp8: from float64 directly, from anything else through float32 (exact for
        // every float and every int that does not saturate anyway)
        rule(op<Ops::CAST>(var<"val">).named("x"_n), [](C& ctx, const UOp& x, const UOp& val) -> std::optional<UOp> {
          if (!ctx.contains(x.dtype()) || x.dtype().is_ptr) return std::nullopt;
          const UOp w = widen_emulated(ctx, val);
          return f32_to_fp8(w.dtype().scalar() == dtypes::float64 ? w : w.cast(dtypes::float32.vec(w.dtype().count)), x.dtype().scalar());
        }),
        // a cast from one: its float32 value, cast on
        rule(op<Ops::CAST>(var<"val">).named("x"_n), [](C& ctx, const UOp& x, const UOp& val) -> std::optional<UOp> {
          if (!ctx.contains(val.dtype()) || x.dtype().is_ptr) return std::nullopt;
          return fp8_to_f32(val).cast(x.dtype());
        }),
        // an ALU op on or to an emulated fp8 runs in float32, its result rounded back
        rule(op<GroupOp::ALU>.named("x"_n), [](C& ctx, const UOp& x) -> std::optional<UOp> {
          bool any = ctx.contains(x.dtype());
          for (const UOp& s : x.src()) any = any || ctx.contains(s.dtype());
          if (!any) return std::nullopt;
          std::vector<UOp> src;
          for (const UOp& s : x.src()) src.push_back(widen_emulated(ctx, s));
          if (!ctx.contains(x.dtype())) return UOp(x.op(), x.dtype(), src, x.arg());
          return f32_to_fp8(UOp(x.op(), dtypes::float32.vec(x.dtype().count), src, x.arg()), x.dtype().scalar());
        }));
  }
};
}  // namespace detail

inline constexpr LazyRules<detail::pm_float_decomp_def<>> pm_float_decomp{};

// tinygrad's pm_dtype_decomps + do_dtype_decomps: the fp8s in the kernel that `supported` lacks are
// emulated (pm_float_decomp). float16 and bfloat16 are not emulated here (to_program names them; the
// LLVM renderer's extra_matcher computes bfloat16 in float32).
template <std::same_as<UOp> U> U do_dtype_decomps(const U& sink, DTypeSet supported) {
  if (supported.contains(dtypes::fp8e4m3) && supported.contains(dtypes::fp8e5m2)) return sink;
  detail::FloatDecompCtx ctx;
  for (const UOp& u : sink.toposort()) {
    const DType d = u.dtype().base().scalar();
    if (d.is_fp8() && !supported.contains(d)) ctx.emulated.add(d);
  }
  if (ctx.emulated.empty()) return sink;
  return graph_rewrite(sink, pm_float_decomp, ctx);
}

// ***** the rule set *****

namespace detail {
// tinygrad's pair of rules for one transcendental op: a dtype with its own decomposition gets it,
// the other floats (bfloat16, fp8) compute in float32
template <Ops OP, class T>
auto transcendental_rules(bool on, UOp (*f)(const UOp&)) {
  return rules(
      rule(op<OP>(var<"d">).dtype(dtypes::float16, dtypes::float32, dtypes::float64),
           [on, f](const UOp& d) -> std::optional<UOp> { return on ? std::optional(f(d)) : std::nullopt; }),
      rule(op<OP>(var<"d">).dtype(dtypes::bfloat16, dtypes::fp8e4m3, dtypes::fp8e5m2).template named<"x">(),
           [on](const UOp& x, const UOp& d) -> std::optional<UOp> {
             return on ? std::optional(d.cast(dtypes::float32).alu(x.op()).cast(x.dtype())) : std::nullopt;
           }));
}
}  // namespace detail

// tinygrad's get_transcendental_patterns(ops, force_transcendental): rewrite EXP2, LOG2 and SIN into
// ALU ops where the backend lacks them (ops is what it renders) or force_transcendental is set, and
// SQRT into xpow(d, 0.5) likewise. tinygrad builds a different PatternMatcher per call; here the rules
// are one rule set type with its dispatch table made at compile time, and the two arguments are
// captured by the callbacks, which decline (std::nullopt) for an op the backend has. Compose it with
// other rule sets by +, as tinygrad does: symbolic_simple + get_transcendental_patterns(ops, force).
// A template (T only delays instantiation), like the decompositions it calls: a translation unit that
// never asks for these rules does not compile them.
template <class T = void>
auto get_transcendental_patterns(OpSet ops, bool force_transcendental) {
  auto on = [&](Ops o) { return !ops.contains(o) || force_transcendental; };
  return detail::transcendental_rules<Ops::EXP2, T>(on(Ops::EXP2), [](const UOp& d) { return xexp2(d); }) +
         detail::transcendental_rules<Ops::LOG2, T>(on(Ops::LOG2), [](const UOp& d) { return xlog2(d); }) +
         detail::transcendental_rules<Ops::SIN, T>(on(Ops::SIN), [](const UOp& d) { return xsin(d); }) +
         // rewrite SQRT to xpow 0.5
         rules(rule(op<Ops::SQRT>(var<"d">), [on_sqrt = on(Ops::SQRT)](const UOp& d) -> std::optional<UOp> {
           return on_sqrt ? std::optional(xpow(d, d.const_like(0.5))) : std::nullopt;
         }));
}

}  // namespace mg
