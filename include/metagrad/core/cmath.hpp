#pragma once
// The <cmath> functions the library calls, as the compiler builtins libstdc++'s <cmath> itself calls.
// <cmath> costs every includer ~10 MB of GCC's memory (3% of metagrad.hpp's include time): since C++17 it
// brings the special functions (Bessel, Legendre, zeta...), whose float and long double bodies GCC compiles
// in every translation unit. Overloads for float and double (and integers), as <cmath>'s. GCC folds the
// builtins in constant expressions, as it folds std::sqrt; Clang folds only fabs, copysign and the
// classification ones, so the others are constexpr for GCC alone.
//
//   mg::cmath::sqrt(2.0);  mg::cmath::isnan(x);  mg::cmath::ldexp(1.0, -24);
#include <concepts>

namespace mg::cmath {

#if defined(__clang__)
#define MG_CMATH_CONSTEXPR inline
#else
#define MG_CMATH_CONSTEXPR constexpr
#endif

#define MG_CMATH_UNARY(name)                                                  \
  MG_CMATH_CONSTEXPR double name(double x) { return __builtin_##name(x); }   \
  MG_CMATH_CONSTEXPR float name(float x) { return __builtin_##name##f(x); }  \
  template <std::integral T> MG_CMATH_CONSTEXPR double name(T x) { return __builtin_##name(double(x)); }
MG_CMATH_UNARY(sqrt)
MG_CMATH_UNARY(exp2)
MG_CMATH_UNARY(log2)
MG_CMATH_UNARY(sin)
MG_CMATH_UNARY(trunc)
MG_CMATH_UNARY(floor)
MG_CMATH_UNARY(ceil)
#undef MG_CMATH_UNARY

MG_CMATH_CONSTEXPR double pow(double x, double y) { return __builtin_pow(x, y); }
MG_CMATH_CONSTEXPR double fmod(double x, double y) { return __builtin_fmod(x, y); }
MG_CMATH_CONSTEXPR double ldexp(double x, int e) { return __builtin_ldexp(x, e); }
MG_CMATH_CONSTEXPR double frexp(double x, int* e) { return __builtin_frexp(x, e); }
MG_CMATH_CONSTEXPR bool signbit(double x) { return __builtin_signbit(x); }
#undef MG_CMATH_CONSTEXPR

constexpr double fabs(double x) { return __builtin_fabs(x); }
constexpr double copysign(double x, double y) { return __builtin_copysign(x, y); }
constexpr bool isnan(double x) { return __builtin_isnan(x); }
constexpr bool isinf(double x) { return __builtin_isinf(x); }
constexpr bool isfinite(double x) { return __builtin_isfinite(x); }

}  // namespace mg::cmath
