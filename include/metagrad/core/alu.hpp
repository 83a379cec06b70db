#pragma once
// exec_alu: tinygrad's python_alu + truncate — the value of one ALU op on constant operands.
// The operands become Python values (bool, unbounded int, float, Invalid), the op runs with Python's
// semantics (bool arithmetic gives ints, ints never overflow, x//0 is 0 as in tinygrad's helpers),
// then truncate wraps or rounds the result to the dtype, as tinygrad's exec_alu does.
// Also one element's storage bytes (store_element / load_element), which bitcast packs and unpacks.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cmath.hpp"
#include "arg.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "symval.hpp"

namespace mg {

// op on operands (Args holding int64/double/bool/Invalid, or ArgTuples for vector dtypes).
// dtype is the result dtype; operand_dtype the operands' (WHERE: of operands 1 and 2), which says
// how to read them: a uint64 held as its int64 bit pattern, an int for a float dtype.
// Returns nullopt when the exact result is not representable: a weakint result outside int64 (or,
// with truncate_output = false, any integer result outside int64/uint64). Ops Python rejects (a
// float &, a negative shift, THREEFRY and FDIV, which python_alu lacks) throw mg::Error. Where
// Python raises OverflowError/ValueError instead (math.trunc(inf), 10.0 ** 400.0) the IEEE value
// (inf, nan) is returned.
template <class = void> std::optional<Arg> exec_alu(Ops op, DType dtype, std::span<const Arg> operands, DType operand_dtype, bool truncate_output = true);

namespace detail {
using i128 = __int128;
using u128 = unsigned __int128;

inline std::string i128_str(i128 v) {
  u128 m = v < 0 ? u128(0) - u128(v) : u128(v);
  std::string s;
  do s.insert(s.begin(), char('0' + int(m % 10))), m /= 10; while (m);
  return v < 0 ? "-" + s : s;
}

// A Python value. An int is exact while `exact`; past 128 bits only its low 128 bits are kept, which
// is all a wraparound to a dtype (64 bits at most) needs.
struct PyVal {
  enum Kind : std::uint8_t { Bool, Int, Float, Inv };
  Kind kind = Int;
  bool exact = true;
  i128 i = 0;
  double f = 0;
  static PyVal boolean(bool b) { return {Bool, true, b, 0}; }
  static PyVal integer(i128 v, bool exact = true) { return {Int, exact, v, 0}; }
  static PyVal real(double d) { return {Float, true, 0, d}; }
  static PyVal invalid() { return {Inv, true, 0, 0}; }
  bool is_int() const { return kind == Int || kind == Bool; }  // Python's bool is an int
  std::string repr() const {
    if (kind == Bool) return i ? "True" : "False";
    if (kind == Float) return py_float_repr(f);
    if (kind == Inv) return "Invalid";
    return exact ? i128_str(i) : "<int wider than 128 bits>";
  }
};

// CPython's float floor division (float_floor_div), for wx != 0
inline double py_float_floordiv(double vx, double wx) {
  double mod = cmath::fmod(vx, wx), div = (vx - mod) / wx;
  if (mod != 0 && (wx < 0) != (mod < 0)) div -= 1.0;
  if (div == 0) return cmath::copysign(0.0, vx / wx);
  double fl = cmath::floor(div);
  return div - fl > 0.5 ? fl + 1.0 : fl;
}

// 1/n for an int n != 0 (|n| < 2^64), correctly rounded as Python's int true division: a 54-bit quotient
// 2^k/n, then round half to even on its last bit with the remainder as the sticky bit
inline double int_reciprocal(i128 n) {
  const std::uint64_t m = std::uint64_t(n < 0 ? u128(0) - u128(n) : u128(n));
  const int k = 64 - std::countl_zero(m) + 53;
  const u128 num = u128(1) << k, q = num / m;
  const bool sticky = num % m != 0;
  std::uint64_t r = std::uint64_t(q >> 1);
  if ((q & 1) && (sticky || (r & 1))) ++r;
  const double v = cmath::ldexp(double(r), -(k - 1));
  return n < 0 ? -v : v;
}

// python_alu's ops on PyVals, with errors that name the op and the dtype
// a class template with one instance: its members compile only where exec_alu does
template <class = void>
struct AluT {
  Ops op;
  DType dtype;
  std::string_view who = "exec_alu";
  using P = PyVal;
  static constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(std::string(who) + "(" + op_repr(op) + ", " + dtype.repr() + "): " + why);
  }
  void need_numbers(const P& a, const P& b, const char* sym) const {
    if (a.kind == P::Inv || b.kind == P::Inv) fail("unsupported operands (" + a.repr() + " " + sym + " " + b.repr() + ")");
  }
  void need_number(const P& a) const {
    if (a.kind == P::Inv) fail("unsupported operand Invalid");
  }

  // reading an Arg as the Python value a const of dtype od holds
  P from_arg(const Arg& a, DType od) const {
    if (a.is<Invalid>()) return P::invalid();
    if (a.is_float()) return P::real(a.as_float());
    if (!a.is_int() && !a.is_bool()) fail("operand " + a.repr() + " is not a number");
    const std::int64_t n = a.as_int();
    if (od.is_float()) return P::real(double(n));
    if (od.is_bool()) return P::boolean(n != 0);
    if (od.is_int()) return P::integer(od.kind() == Scalar::uint64 ? i128(std::uint64_t(n)) : i128(n));
    return a.is_bool() ? P::boolean(n != 0) : P::integer(n);
  }
  std::optional<Arg> to_arg(const P& v) const {
    if (v.kind == P::Bool) return Arg(v.i != 0);
    if (v.kind == P::Float) return Arg(v.f);
    if (v.kind == P::Inv) return Arg(Invalid{});
    if (!v.exact) return std::nullopt;
    if (v.i >= std::numeric_limits<std::int64_t>::min() && v.i <= std::numeric_limits<std::int64_t>::max()) return Arg(std::int64_t(v.i));
    if (dtype.kind() == Scalar::uint64 && v.i > 0 && v.i <= i128(std::numeric_limits<std::uint64_t>::max()))
      return Arg(std::int64_t(std::uint64_t(v.i)));  // uint64 keeps its bit pattern, as normalize_const does
    return std::nullopt;
  }

  // Python's float(x), bool(x), and the value for comparisons (exact for ints up to 64 bits)
  double flt(const P& v) const {
    if (v.kind == P::Float) return v.f;
    if (v.kind == P::Inv) fail("Invalid is not a number");
    if (!v.exact) fail("integer too large to convert to float");
    return double(v.i);
  }
  static bool truthy(const P& v) { return v.kind == P::Float ? v.f != 0 : v.kind == P::Inv || v.i != 0 || !v.exact; }
  static long double cmpval(const P& v) { return v.kind == P::Float ? (long double)v.f : (long double)v.i; }
  static bool lt(const P& a, const P& b) {  // Invalid < x and x < Invalid are True unless both are Invalid
    if (a.kind == P::Inv || b.kind == P::Inv) return !(a.kind == P::Inv && b.kind == P::Inv);
    return (a.kind == P::Float || b.kind == P::Float) ? cmpval(a) < cmpval(b) : a.i < b.i;
  }
  static bool eq(const P& a, const P& b) {
    if (a.kind == P::Inv || b.kind == P::Inv) return a.kind == b.kind;
    return (a.kind == P::Float || b.kind == P::Float) ? cmpval(a) == cmpval(b) : a.i == b.i;
  }

  P add(const P& a, const P& b) const {
    need_numbers(a, b, "+");
    if (a.kind == P::Float || b.kind == P::Float) return P::real(flt(a) + flt(b));
    i128 r;
    const bool o = __builtin_add_overflow(a.i, b.i, &r);
    return P::integer(r, a.exact && b.exact && !o);
  }
  P neg(const P& a) const {
    need_number(a);
    if (a.kind == P::Float) return P::real(-a.f);
    return P::integer(i128(u128(0) - u128(a.i)), a.exact && a.i != std::numeric_limits<i128>::min());
  }
  P sub(const P& a, const P& b) const {
    need_numbers(a, b, "-");
    return (a.kind == P::Float || b.kind == P::Float) ? P::real(flt(a) - flt(b)) : add(a, neg(b));
  }
  P mul(const P& a, const P& b) const {
    need_numbers(a, b, "*");
    if (a.kind == P::Float || b.kind == P::Float) return P::real(flt(a) * flt(b));
    auto mag = [](i128 v) { return v < 0 ? u128(0) - u128(v) : u128(v); };
    const u128 ma = mag(a.i), mb = mag(b.i), lim = (u128(1) << 127) - ((a.i < 0) == (b.i < 0) ? 1 : 0);
    const bool exact = (a.exact && a.i == 0) || (b.exact && b.i == 0) || (a.exact && b.exact && mb <= lim / ma);
    return P::integer(i128(u128(a.i) * u128(b.i)), exact);
  }
  P abs(const P& a) const { return a.kind == P::Float ? P::real(cmath::fabs(a.f)) : a.i < 0 ? neg(a) : P::integer(a.i, a.exact); }
  // tinygrad's helpers: floordiv/cdiv give 0 for y == 0, so floormod/cmod give x
  P floordiv(const P& x, const P& y) const {
    if (y.kind != P::Inv && !truthy(y)) return P::integer(0);
    need_numbers(x, y, "//");
    if (x.kind == P::Float || y.kind == P::Float) return P::real(py_float_floordiv(flt(x), flt(y)));
    return P::integer(py_floordiv(x.i, y.i));
  }
  P cdiv(const P& x, const P& y) const {
    if (y.kind != P::Inv && !truthy(y)) return P::integer(0);
    need_numbers(x, y, "cdiv");
    // x*y < 0 by the signs for ints: two uint64s' product may not fit 128 bits
    const bool negative = x.is_int() && y.is_int() ? x.i != 0 && (x.i < 0) != (y.i < 0) : lt(mul(x, y), P::integer(0));
    return mul(floordiv(abs(x), abs(y)), P::integer(negative ? -1 : 1));
  }
  P bitwise(const P& x, const P& y, const char* sym) const {
    if (!x.is_int() || !y.is_int()) fail(std::string("unsupported operands (") + x.repr() + " " + sym + " " + y.repr() + ")");
    const i128 r = sym[0] == '^' ? x.i ^ y.i : sym[0] == '|' ? x.i | y.i : x.i & y.i;
    return x.kind == P::Bool && y.kind == P::Bool ? P::boolean(r != 0) : P::integer(r);
  }
  P shift(const P& x, const P& y, bool left) const {
    const char* sym = left ? "<<" : ">>";
    if (!x.is_int() || !y.is_int()) fail(std::string("unsupported operands (") + x.repr() + " " + sym + " " + y.repr() + ")");
    if (y.i < 0) fail("negative shift count (" + x.repr() + " " + sym + " " + y.repr() + ")");
    if (!left) return P::integer(y.i >= 127 ? (x.i < 0 ? -1 : 0) : x.i >> int(y.i));
    if (y.i >= 128) return P::integer(0, x.i == 0);
    const int s = int(y.i);
    const i128 w = i128(u128(x.i) << s);
    return P::integer(w, x.i == 0 || (s <= 127 && (w >> s) == x.i));
  }
  // tinygrad's safe_pow: 0 ** -y is inf, a complex result is nan. Exact ints for int ** non-negative int.
  P pow(const P& x, const P& y) const {
    need_numbers(x, y, "**");
    if (x.is_int() && y.is_int() && y.i >= 0) {
      P r = P::integer(1), base = P::integer(x.i);
      for (i128 e = y.i; e; e >>= 1) {
        if (e & 1) r = mul(r, base);
        if (e > 1) base = mul(base, base);
      }
      return r;
    }
    const double a = flt(x), b = flt(y);
    return P::real(a == 0 && b < 0 ? inf : cmath::pow(a, b));
  }

  P apply(std::span<const P> v) const {
    const P& x = v[0];
    const P& y = v[v.size() > 1 ? 1 : 0];
    switch (op) {
      case Ops::EXP2: return pow(P::integer(2), x);  // safe_exp2: 2 ** x, overflow to inf
      case Ops::LOG2: need_number(x); return P::real(cmpval(x) > 0 ? cmath::log2(flt(x)) : cmpval(x) == 0 ? -inf : nan);
      case Ops::SQRT: need_number(x); return P::real(cmpval(x) >= 0 ? cmath::sqrt(flt(x)) : nan);
      case Ops::RECIPROCAL:
        need_number(x);
        if (cmpval(x) == 0) return P::real(cmath::copysign(inf, flt(x)));
        if (x.kind == P::Float) return P::real(1.0 / x.f);
        return P::real(int_reciprocal(x.i));
      case Ops::SIN: need_number(x); return P::real(x.kind == P::Float && cmath::isinf(x.f) ? nan : cmath::sin(flt(x)));
      case Ops::NEG: return neg(x);
      // math.trunc gives a Python int, so -0.5 truncates to +0.0
      case Ops::TRUNC: need_number(x); return x.kind == P::Float ? P::real(cmath::trunc(x.f) + 0.0) : P::integer(x.i);
      case Ops::ADD: return add(x, y);
      case Ops::SUB: return sub(x, y);
      case Ops::MUL: return mul(x, y);
      case Ops::CMPNE: return P::boolean(!eq(x, y));
      case Ops::CMPEQ: return P::boolean(eq(x, y));
      case Ops::CMPLT: return P::boolean(lt(x, y));
      case Ops::XOR: return bitwise(x, y, "^");
      case Ops::OR: return bitwise(x, y, "|");
      case Ops::AND: return bitwise(x, y, "&");
      case Ops::SHR: return shift(x, y, false);
      case Ops::SHL: return shift(x, y, true);
      case Ops::MAX: return lt(x, y) ? y : x;  // Python's max keeps the first of equals
      case Ops::CDIV: return cdiv(x, y);
      case Ops::CMOD: return sub(x, mul(cdiv(x, y), y));
      case Ops::FLOORDIV: return floordiv(x, y);
      case Ops::FLOORMOD: return sub(x, mul(floordiv(x, y), y));
      case Ops::POW: return pow(x, y);
      case Ops::MULACC: return add(mul(x, y), v[2]);
      case Ops::WHERE: return truthy(x) ? y : v[2];
      default: fail("no constant evaluation (tinygrad's python_alu has no entry for it)");
    }
  }

  // tinygrad's truncate[dtype]: bool(x), a float format's rounding, ctypes' int wraparound; none for weakint
  P truncate(const P& v) const {
    const DType s = dtype.scalar();
    if (s.is_bool()) return P::boolean(truthy(v));
    if (s.is_float()) return P::real(truncate_float(s, flt(v)));
    if (!s.is_int() || s == dtypes::weakint) return v;
    if (!v.is_int()) fail("cannot truncate " + v.repr() + " to " + s.repr() + " (an int is expected)");
    const std::int64_t w = truncate_int(s, std::int64_t(std::uint64_t(u128(v.i))));
    return P::integer(s.kind() == Scalar::uint64 ? i128(std::uint64_t(w)) : i128(w));
  }
};
using Alu = AluT<>;

// tinygrad's CAST of a value: truncate[dtype](dtype.const(x)). A float becomes an int by truncating
// toward zero (nan and inf have no int), anything becomes a bool as x != 0. Invalid stays Invalid.
template <class = void> Arg cast_value(const Arg& x, DType from, DType to, std::string_view who = "cast") {
  if (x.is_tuple()) {
    ArgTuple out;
    for (const Arg& e : x.as_tuple()) out.push_back(cast_value(e, from.scalar(), to.scalar(), who));
    return Arg(std::move(out));
  }
  if (x.is<Invalid>()) return x;
  const Alu alu{Ops::CAST, to.scalar(), who};
  PyVal v = alu.from_arg(x, from.scalar());
  if (to.is_bool()) v = PyVal::boolean(Alu::truthy(v));
  else if (to.is_float()) v = PyVal::real(alu.flt(v));
  else if (to.is_int() && v.kind == PyVal::Float) {
    if (!cmath::isfinite(v.f)) alu.fail("cannot convert " + v.repr() + " to an integer");
    // past 2^127 keep the low 128 bits: fmod is exact
    double r = cmath::fmod(cmath::trunc(v.f), 0x1p128);
    if (r >= 0x1p127) r -= 0x1p128;
    else if (r < -0x1p127) r += 0x1p128;
    v = PyVal::integer(i128(r), cmath::fabs(v.f) < 0x1p127);
  } else if (to.is_int()) v = PyVal::integer(v.i, v.exact);
  if (auto r = alu.to_arg(alu.truncate(v))) return *r;
  alu.fail(v.repr() + " overflows int64");
}

// IEEE half bits of a double (rounded to half first) and back
template <class = void> std::uint16_t half_bits(double x) {
  x = truncate_float(dtypes::float16, x);
  const std::uint16_t sign = cmath::signbit(x) ? 0x8000 : 0;
  const double a = cmath::fabs(x);
  if (cmath::isnan(x)) return sign | 0x7e00;
  if (cmath::isinf(x)) return sign | 0x7c00;
  if (a < 0x1p-14) return sign | std::uint16_t(a * 0x1p24);  // subnormal (or zero)
  int e;
  const double m = cmath::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  return std::uint16_t(sign | (e + 14) << 10 | std::uint16_t((m * 2 - 1) * 1024));
}
template <class = void> double half_value(std::uint16_t b) {
  const int e = (b >> 10) & 0x1f, m = b & 0x3ff;
  const double v = e == 0x1f ? (m ? Alu::nan : Alu::inf) : e == 0 ? cmath::ldexp(m, -24) : cmath::ldexp(1024 + m, e - 25);
  return (b & 0x8000) ? -v : v;
}

}  // namespace detail

// tinygrad's identity_element: what a reduction starts from, and what an empty one gives
template <class = void> Arg identity_element(Ops op, DType dt) {
  if (op == Ops::ADD) return dt.is_float() ? Arg(0.0) : dt.is_bool() ? Arg(false) : Arg(std::int64_t(0));
  if (op == Ops::MUL) return dt.is_float() ? Arg(1.0) : dt.is_bool() ? Arg(true) : Arg(std::int64_t(1));
  if (op == Ops::MAX) {
    if (dt.is_float()) return Arg(-std::numeric_limits<double>::infinity());
    if (dt.is_bool()) return Arg(false);
    return Arg(dt.imin());
  }
  throw Error("identity_element: no identity for reduce op " + op_repr(op) + " on " + dt.repr());
}

// ***** element storage *****

// One element of a scalar dtype in its storage format, as a buffer holds it and tinygrad's struct
// packs it: little endian, a bool as one byte 0 or 1, uint64 to and from its int64 bit pattern (how
// an Arg holds it). store_element keeps an int's low bytes (so it wraps to the dtype) and rounds a
// float to the format; an int dtype refuses a float value, as struct does. load_element gives a bool,
// an int or a double. Both throw mg::Error for a dtype with no storage format.
inline bool has_storage(DType dtype) {  // a scalar that is not void or weakint
  return dtype.count == 1 && !dtype.is_ptr && dtype != dtypes::weakint && dtype.kind() != Scalar::void_;
}
template <class = void> void store_element(DType dtype, const Arg& v, std::byte* dst) {
  auto fail = [&](const std::string& why) { throw Error("store_element(" + dtype.repr() + ", " + v.repr() + "): " + why); };
  if (!has_storage(dtype)) fail("no storage format");
  if (!v.is_number()) fail("not a number");
  std::uint64_t b = 0;
  switch (dtype.kind()) {
    case Scalar::bool_: b = v.is_float() ? v.as_float() != 0 : v.as_int() != 0; break;
    case Scalar::float16: b = detail::half_bits(v.as_float()); break;
    case Scalar::bfloat16: b = std::bit_cast<std::uint32_t>(float(truncate_float(dtype, v.as_float()))) >> 16; break;
    case Scalar::fp8e4m3: case Scalar::fp8e5m2: b = detail::float_to_fp8(v.as_float(), dtype.kind()); break;
    case Scalar::float32: b = std::bit_cast<std::uint32_t>(float(v.as_float())); break;
    case Scalar::float64: b = std::bit_cast<std::uint64_t>(v.as_float()); break;
    default:
      if (v.is_float()) fail("an int is expected");
      b = std::uint64_t(v.as_int());
  }
  for (int k = 0; k < dtype.itemsize(); ++k) dst[k] = std::byte(b >> (8 * k));
}
template <class = void> Arg load_element(DType dtype, const std::byte* src) {
  if (!has_storage(dtype)) throw Error("load_element(" + dtype.repr() + "): no storage format");
  std::uint64_t b = 0;
  for (int k = 0; k < dtype.itemsize(); ++k) b |= std::uint64_t(src[k]) << (8 * k);
  switch (dtype.kind()) {
    case Scalar::bool_: return Arg(b != 0);
    case Scalar::float16: return Arg(detail::half_value(std::uint16_t(b)));
    case Scalar::bfloat16: return Arg(double(std::bit_cast<float>(std::uint32_t(b << 16))));
    case Scalar::fp8e4m3: case Scalar::fp8e5m2: return Arg(detail::fp8_to_float(std::uint8_t(b), dtype.kind()));
    case Scalar::float32: return Arg(double(std::bit_cast<float>(std::uint32_t(b))));
    case Scalar::float64: return Arg(std::bit_cast<double>(b));
    default: return Arg(truncate_int(dtype, std::int64_t(b)));
  }
}

namespace detail {
// tinygrad's bitcast(x, in_dtype, out_dtype): pack the values in their storage format, unpack as the other
template <class = void> Arg bitcast_value(const Arg& x, DType in, DType out) {
  const DType is = in.scalar(), os = out.scalar();
  auto fail = [&](const std::string& why) -> void {
    throw Error("bitcast(" + x.repr() + ", " + in.repr() + ", " + out.repr() + "): " + why);
  };
  if (!has_storage(is) || !has_storage(os)) fail("no storage format");
  if (in.itemsize() != out.itemsize()) fail("itemsize mismatch");
  std::vector<Arg> vals = in.count == 1 ? std::vector<Arg>{x} : x.is_tuple() ? x.as_tuple() : std::vector<Arg>{};
  if (int(vals.size()) != in.count) fail("expected " + std::to_string(in.count) + " values");
  const std::size_t isz = std::size_t(is.itemsize()), osz = std::size_t(os.itemsize());
  std::vector<std::byte> bytes(vals.size() * isz);
  for (std::size_t i = 0; i < vals.size(); ++i) {
    try {
      store_element(is, vals[i], bytes.data() + i * isz);
    } catch (const Error& e) {
      fail(e.what());
    }
  }
  ArgTuple res;
  for (std::size_t off = 0; off + osz <= bytes.size(); off += osz) res.push_back(load_element(os, bytes.data() + off));
  return out.count == 1 ? res[0] : Arg(std::move(res));
}
}  // namespace detail

template <class> std::optional<Arg> exec_alu(Ops op, DType dtype, std::span<const Arg> operands, DType operand_dtype, bool truncate_output) {
  const detail::Alu alu{op, dtype};
  if (dtype.count > 1) {  // elementwise, a scalar operand broadcast; tinygrad truncates each element
    ArgTuple out;
    std::vector<Arg> elems(operands.size());
    for (int k = 0; k < dtype.count; ++k) {
      for (std::size_t j = 0; j < operands.size(); ++j) {
        if (operands[j].is_tuple() && int(operands[j].size()) != dtype.count)
          alu.fail("operand " + operands[j].repr() + " does not have " + std::to_string(dtype.count) + " elements");
        elems[j] = operands[j].is_tuple() ? operands[j][std::size_t(k)] : operands[j];
      }
      auto r = exec_alu(op, dtype.scalar(), elems, operand_dtype.scalar());
      if (!r) return std::nullopt;
      out.push_back(std::move(*r));
    }
    return Arg(std::move(out));
  }
  if (!GroupOp::ALU.contains(op)) alu.fail("not an ALU op");
  if (op == Ops::THREEFRY || op == Ops::FDIV) alu.fail("no constant evaluation (tinygrad's python_alu has no entry for it)");
  if (int(operands.size()) != op_arity(op))
    alu.fail("takes " + std::to_string(op_arity(op)) + " operands, got " + std::to_string(operands.size()));
  if (dtype == dtypes::weakint && GroupOp::Binary.contains(op))
    for (const Arg& a : operands) if (a.is<Invalid>()) return Arg(Invalid{});
  std::array<detail::PyVal, 3> v;
  for (std::size_t j = 0; j < operands.size(); ++j) {
    if (operands[j].is_tuple()) alu.fail("operand " + operands[j].repr() + " is a tuple but the dtype is a scalar");
    v[j] = alu.from_arg(operands[j], op == Ops::WHERE && j == 0 ? dtypes::void_ : operand_dtype.scalar());
  }
  detail::PyVal r = alu.apply(std::span<const detail::PyVal>(v.data(), operands.size()));
  return alu.to_arg(truncate_output ? alu.truncate(r) : r);
}

}  // namespace mg
