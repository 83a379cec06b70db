#pragma once
// Arg: the small closed variant a UOp carries as its arg and tag. Value equality (floats compare by
// bits, like tinygrad's ConstFloat), hashing, and tinygrad's repr.
#include <bit>
#include <charconv>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cmath.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "ops.hpp"

namespace mg {

// tinygrad's Invalid: the value of an index that is masked off
struct Invalid {
  constexpr bool operator==(const Invalid&) const = default;
};

// what a PARAM (kernel parameter) knows about itself
struct ParamArg {
  std::int64_t slot = 0;
  std::optional<std::pair<std::int64_t, std::int64_t>> vmin_vmax{};
  std::optional<std::string> name{};
  AddrSpace addrspace = AddrSpace::GLOBAL;
  std::optional<int> axis{};
  std::optional<std::string> device{};
  bool operator==(const ParamArg&) const = default;
};

// Python's repr of a float: shortest round-trip digits, fixed notation for 1e-4 <= |x| < 1e16
inline std::string py_float_repr(double x) {
  if (cmath::isnan(x)) return "nan";
  if (cmath::isinf(x)) return x < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string s(buf, end);
  auto epos = s.find('e');
  std::string mant = s.substr(0, epos);
  int exp = std::stoi(s.substr(epos + 1));
  bool neg = mant[0] == '-';
  if (neg) mant.erase(0, 1);
  std::string digits;
  for (char c : mant) if (c != '.') digits += c;
  std::string out;
  if (exp >= -4 && exp < 16) {
    int point = exp + 1;  // digits before the decimal point
    if (point <= 0) out = "0." + std::string(std::size_t(-point), '0') + digits;
    else if (std::size_t(point) >= digits.size()) out = digits + std::string(point - digits.size(), '0') + ".0";
    else out = digits.substr(0, std::size_t(point)) + "." + digits.substr(std::size_t(point));
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += eb;
  }
  return neg ? "-" + out : out;
}

// Python's repr of a string: single quotes unless the string holds one and no double quote
inline std::string py_str_repr(const std::string& s) {
  char q = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    if (c == q || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if ((unsigned char)c < 0x20 || c == 0x7f) {  // other control characters print as \xNN, as Python does
      char hx[8];
      std::snprintf(hx, sizeof hx, "\\x%02x", unsigned((unsigned char)c));
      out += hx;
    } else out += c;
  }
  return out + q;
}

class Arg;
using ArgTuple = std::vector<Arg>;

class Arg {
 public:
  // the alternatives, in the order of their index; value() returns an Arg as this variant
  using Value = std::variant<std::monostate, bool, std::int64_t, double, std::string, Ops, AxisType, DType, Invalid,
                             std::shared_ptr<const ParamArg>, ArgTuple>;

  Arg() noexcept {}
  Arg(std::nullptr_t) noexcept {}
  Arg(bool b) noexcept : k_(Bool) { u_.b = b; }
  template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  Arg(I i) noexcept : k_(Int) { u_.i = std::int64_t(i); }
  Arg(double d) noexcept : k_(Float) { u_.d = d; }
  Arg(float d) noexcept : k_(Float) { u_.d = double(d); }
  Arg(const char* s) : Arg(std::string(s)) {}
  Arg(std::string s) noexcept : k_(Str) { new (&u_.s) std::string(std::move(s)); }
  Arg(std::string_view s) : Arg(std::string(s)) {}
  Arg(Ops o) noexcept : k_(Op) { u_.op = o; }
  Arg(AxisType a) noexcept : k_(Axis) { u_.axis = a; }
  Arg(DType d) noexcept : k_(Dt) { u_.dt = d; }
  Arg(Invalid) noexcept : k_(Inv) {}
  Arg(ParamArg p) : k_(Param) { new (&u_.p) std::shared_ptr<const ParamArg>(std::make_shared<const ParamArg>(std::move(p))); }
  Arg(ArgTuple t) noexcept : k_(Tuple) { new (&u_.t) ArgTuple(std::move(t)); }
  Arg(std::initializer_list<Arg> t) : Arg(ArgTuple(t)) {}
  // Copy, move and destruction are forced inline: their in-place path is a branch and a memcpy, but
  // the compiler's budget runs out in the big functions that build nodes (intern, rule callbacks).
  [[gnu::always_inline]] Arg(const Arg& o) : k_(o.k_) {
    if (holds_heap(k_)) copy_heap(o);
    else copy_trivial(o);
  }
  [[gnu::always_inline]] Arg(Arg&& o) noexcept : k_(o.k_) {
    if (holds_heap(k_)) move_heap(std::move(o));
    else copy_trivial(o);
  }
  Arg& operator=(const Arg& o) {
    if (this != &o) { Arg t(o); *this = std::move(t); }
    return *this;
  }
  Arg& operator=(Arg&& o) noexcept {
    if (this != &o) {
      if (holds_heap(k_)) destroy_heap();
      k_ = o.k_;
      if (holds_heap(k_)) move_heap(std::move(o));
      else copy_trivial(o);
    }
    return *this;
  }
  [[gnu::always_inline]] ~Arg() {
    if (holds_heap(k_)) destroy_heap();
  }

  // this arg as a std::variant (a template: instantiated only where it is used)
  template <class V = Value> V value() const {
    switch (k_) {
      case None: return V(std::in_place_index<None>);
      case Bool: return V(std::in_place_index<Bool>, u_.b);
      case Int: return V(std::in_place_index<Int>, u_.i);
      case Float: return V(std::in_place_index<Float>, u_.d);
      case Str: return V(std::in_place_index<Str>, u_.s);
      case Op: return V(std::in_place_index<Op>, u_.op);
      case Axis: return V(std::in_place_index<Axis>, u_.axis);
      case Dt: return V(std::in_place_index<Dt>, u_.dt);
      case Inv: return V(std::in_place_index<Inv>);
      case Param: return V(std::in_place_index<Param>, u_.p);
      default: return V(std::in_place_index<Tuple>, u_.t);
    }
  }
  bool is_none() const { return k_ == None; }
  template <class T> bool is() const { return k_ == kind_of<T>(); }
  bool is_int() const { return k_ == Int; }
  bool is_float() const { return k_ == Float; }
  bool is_bool() const { return k_ == Bool; }
  bool is_number() const { return is_int() || is_float() || is_bool(); }
  bool is_tuple() const { return k_ == Tuple; }

  std::int64_t as_int() const {
    if (k_ == Int) return u_.i;
    if (k_ == Bool) return u_.b;
    not_a("Arg::as_int", "an integer");
  }
  double as_float() const {
    if (k_ == Float) return u_.d;
    if (k_ == Int) return double(u_.i);
    if (k_ == Bool) return u_.b;
    not_a("Arg::as_float", "a number");
  }
  bool as_bool() const {
    if (k_ == Bool) return u_.b;
    not_a("Arg::as_bool", "a bool");
  }
  const std::string& as_str() const { return want(Str, "a string"), u_.s; }
  Ops as_op() const { return want(Op, "an Ops"), u_.op; }
  AxisType as_axis_type() const { return want(Axis, "an AxisType"), u_.axis; }
  DType as_dtype() const { return want(Dt, "a DType"), u_.dt; }
  const ParamArg& as_param() const { return want(Param, "a ParamArg"), *u_.p; }
  const ArgTuple& as_tuple() const { return want(Tuple, "a tuple"), u_.t; }
  const Arg& operator[](std::size_t i) const {
    const auto& t = as_tuple();
    if (i >= t.size()) throw Error("Arg[" + std::to_string(i) + "]: index out of range for " + repr());
    return t[i];
  }
  std::size_t size() const { return is_tuple() ? u_.t.size() : 0; }

  // identity equality, as the intern table needs it: same alternative, floats by bits
  // (the kinds nodes mostly carry are compared in place; the others in equal_slow)
  friend bool operator==(const Arg& a, const Arg& b) {
    if (a.k_ != b.k_) return false;
    if (a.k_ == None || a.k_ == Inv) return true;
    if (a.k_ == Int) return a.u_.i == b.u_.i;
    return equal_slow(a, b);
  }
 private:
  [[gnu::noinline]] static bool equal_slow(const Arg& a, const Arg& b) {
    switch (a.k_) {
      case None: case Inv: return true;
      case Bool: return a.u_.b == b.u_.b;
      case Int: return a.u_.i == b.u_.i;
      case Float: {
        const double x = a.u_.d, y = b.u_.d;
        return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y) || (cmath::isnan(x) && cmath::isnan(y));
      }
      case Str: return a.u_.s == b.u_.s;
      case Op: return a.u_.op == b.u_.op;
      case Axis: return a.u_.axis == b.u_.axis;
      case Dt: return a.u_.dt == b.u_.dt;
      case Param: return a.u_.p == b.u_.p || *a.u_.p == *b.u_.p;
      default: return a.u_.t == b.u_.t;
    }
  }

 public:
  // Python's ==, as a pattern's arg filter uses it: numbers compare by value (0 == 0.0 == False).
  // The number overloads compare in place: a pattern's arg filter runs on the matching hot path.
  template <class T> bool py_equals(const T& v) const {
    if constexpr (std::is_same_v<T, bool>) return eq_int(std::int64_t(v));
    else if constexpr (std::is_integral_v<T>) return eq_int(std::int64_t(v));
    else if constexpr (std::is_floating_point_v<T>) return eq_float(double(v));
    else if constexpr (std::is_same_v<T, Ops>) return k_ == Op && u_.op == v;
    else return py_equals(Arg(v));
  }
  bool py_equals(const Arg& o) const {
    if (o.is_float()) return eq_float(o.as_float());
    if (o.is_number()) return eq_int(o.as_int());
    if (is_tuple() && o.is_tuple()) {
      const auto &x = as_tuple(), &y = o.as_tuple();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) if (!x[i].py_equals(y[i])) return false;
      return true;
    }
    return *this == o;
  }

  std::size_t hash() const {  // (the kinds nodes mostly carry in place, the others in hash_slow)
    const std::size_t h = std::size_t(k_) * 0x9e3779b97f4a7c15ull;
    if (k_ == None || k_ == Inv) return h;
    if (k_ == Int) return h ^ std::hash<std::int64_t>{}(u_.i);
    return hash_slow();
  }
 private:
  [[gnu::noinline]] std::size_t hash_slow() const {
    const std::size_t h = std::size_t(k_) * 0x9e3779b97f4a7c15ull;
    switch (k_) {
      case None: case Inv: return h;
      case Bool: return h ^ std::hash<bool>{}(u_.b);
      case Int: return h ^ std::hash<std::int64_t>{}(u_.i);
      case Float: return h ^ std::hash<std::uint64_t>{}(cmath::isnan(u_.d) ? 0x7ff8000000000000ull : std::bit_cast<std::uint64_t>(u_.d));
      case Str: return h ^ std::hash<std::string>{}(u_.s);
      case Op: return h ^ std::size_t(u_.op);
      case Axis: return h ^ std::size_t(u_.axis);
      case Dt: return h ^ u_.dt.hash();
      case Param: return h ^ std::hash<std::int64_t>{}(u_.p->slot);
      default: {
        std::size_t t = h;
        for (const Arg& e : u_.t) t = (t ^ e.hash()) * 0x100000001b3ull;
        return t;
      }
    }
  }

 public:
  // tinygrad's repr of the arg (what UOp printing shows after arg=)
  std::string repr() const {
    switch (k_) {
      case None: return "None";
      case Bool: return u_.b ? "True" : "False";
      case Int: return std::to_string(u_.i);
      case Float: return py_float_repr(u_.d);
      case Str: return py_str_repr(u_.s);
      case Op: return op_repr(u_.op);
      case Axis: return "AxisType." + std::string(axis_type_names[std::size_t(u_.axis)]);
      case Dt: return u_.dt.repr();
      case Inv: return "Invalid";
      case Param: {
        const ParamArg& x = *u_.p;
        std::string s = "ParamArg(" + std::to_string(x.slot);
        if (x.vmin_vmax) s += ", vmin_vmax=(" + std::to_string(x.vmin_vmax->first) + ", " + std::to_string(x.vmin_vmax->second) + ")";
        if (x.name) s += ", name=" + py_str_repr(*x.name);
        if (x.addrspace != AddrSpace::GLOBAL) s += x.addrspace == AddrSpace::LOCAL ? ", addrspace=AddrSpace.LOCAL" : ", addrspace=AddrSpace.REG";
        if (x.axis) s += ", axis=" + std::to_string(*x.axis);
        if (x.device) s += ", device=" + py_str_repr(*x.device);
        return s + ")";
      }
      default: {
        std::string s = "(";
        for (std::size_t i = 0; i < u_.t.size(); ++i) s += (i ? ", " : "") + u_.t[i].repr();
        return s + (u_.t.size() == 1 ? ",)" : ")");
      }
    }
  }
  // str() of a const value as tinygrad's render prints it (floats without the ConstFloat wrapper)
  std::string str() const { return repr(); }

 private:
  // A tagged union rather than a std::variant: the same layout and behaviour, at a fraction of the
  // compile time every translation unit pays for a variant of eleven alternatives. Kinds are in
  // the order of Value's alternatives (hash() mixes the kind in, as it mixed the index).
  enum Kind : std::uint8_t { None, Bool, Int, Float, Str, Op, Axis, Dt, Inv, Param, Tuple };
  union U {
    bool b;
    std::int64_t i;
    double d;
    Ops op;
    AxisType axis;
    DType dt;
    std::string s;
    std::shared_ptr<const ParamArg> p;
    ArgTuple t;
    U() noexcept {}
    ~U() {}
  };
  template <class T> static constexpr Kind kind_of() {
    if constexpr (std::is_same_v<T, std::monostate>) return None;
    else if constexpr (std::is_same_v<T, bool>) return Bool;
    else if constexpr (std::is_same_v<T, std::int64_t>) return Int;
    else if constexpr (std::is_same_v<T, double>) return Float;
    else if constexpr (std::is_same_v<T, std::string>) return Str;
    else if constexpr (std::is_same_v<T, Ops>) return Op;
    else if constexpr (std::is_same_v<T, AxisType>) return Axis;
    else if constexpr (std::is_same_v<T, DType>) return Dt;
    else if constexpr (std::is_same_v<T, Invalid>) return Inv;
    else if constexpr (std::is_same_v<T, ParamArg> || std::is_same_v<T, std::shared_ptr<const ParamArg>>) return Param;
    else {
      static_assert(std::is_same_v<T, ArgTuple>, "Arg::is<T>: T is not one of Arg's alternatives");
      return Tuple;
    }
  }
  static constexpr bool holds_heap(Kind k) { return k == Str || k == Param || k == Tuple; }
  // Copying, moving and destroying: the kinds held in place are copied as the union's bytes
  // (inline, one branch); the heap kinds go out of line, so the fast paths stay small enough for
  // the compiler to inline wherever an Arg is copied, moved or dropped.
  [[gnu::noinline]] void copy_heap(const Arg& o) {  // k_ is already o.k_, a heap kind
    switch (k_) {
      case Str: new (&u_.s) std::string(o.u_.s); break;
      case Param: new (&u_.p) std::shared_ptr<const ParamArg>(o.u_.p); break;
      default: new (&u_.t) ArgTuple(o.u_.t); break;
    }
  }
  [[gnu::noinline]] void move_heap(Arg&& o) noexcept {  // k_ is already o.k_, a heap kind
    switch (k_) {
      case Str: new (&u_.s) std::string(std::move(o.u_.s)); break;
      case Param: new (&u_.p) std::shared_ptr<const ParamArg>(std::move(o.u_.p)); break;
      default: new (&u_.t) ArgTuple(std::move(o.u_.t)); break;
    }
  }
  void copy_trivial(const Arg& o) noexcept {  // k_ is already o.k_, a kind held in place
    std::memcpy(static_cast<void*>(&u_), static_cast<const void*>(&o.u_), sizeof(U));
  }
  [[gnu::noinline]] void destroy_heap() noexcept {  // k_ is a heap kind
    switch (k_) {
      case Str: u_.s.~basic_string(); break;
      case Param: u_.p.~shared_ptr(); break;
      default: u_.t.~vector(); break;
    }
  }
  void want(Kind k, const char* what) const {
    if (k_ != k) not_a("Arg", what);
  }
  // the error of an accessor asked for what the arg is not (out of line: the accessors stay small)
  [[noreturn, gnu::noinline, gnu::cold]] void not_a(const char* who, const char* what) const {
    throw Error(std::string(who) + ": arg " + repr() + " is not " + what);
  }
  bool eq_int(std::int64_t v) const {
    if (k_ == Int) return u_.i == v;
    if (k_ == Float) return u_.d == double(v);
    if (k_ == Bool) return std::int64_t(u_.b) == v;
    return false;
  }
  bool eq_float(double v) const {
    if (k_ == Float) return u_.d == v;
    if (k_ == Int) return double(u_.i) == v;
    if (k_ == Bool) return double(u_.b) == v;
    return false;
  }
  Kind k_ = None;
  U u_;
};

// the value of a CONST: what UOp::const_ accepts
using ConstValue = std::variant<bool, std::int64_t, double, Invalid>;

// a template, so that only a translation unit that calls it instantiates std::visit over ConstValue
template <std::same_as<ConstValue> C> Arg to_arg(const C& c) { return std::visit([](auto x) { return Arg(x); }, c); }

// the number part of normalize_const, for runtime Args and compile-time constants (ct::CArg) alike:
// bool → 0/1, ints wrap to the width (a float is truncated), float16/bfloat16/fp8 round to the
// format; float32/float64 keep the double, as tinygrad's ConstFloat does
template <class A> constexpr A normalize_number(DType dt, const A& v) {
  const DType s = dt.scalar();
  if (s.is_bool()) return A(v.is_float() ? v.as_float() != 0.0 : v.as_int() != 0);
  if (s.is_float()) return A(s == dtypes::float32 ? v.as_float() : truncate_float(s, v.as_float()));
  if (s.is_int()) {
    if (v.is_float()) {
      const double d = v.as_float();
      if (!(d > -9.2e18 && d < 9.2e18)) throw Error("const: cannot make a " + dt.repr() + " constant from " + Arg(d).repr());
      return A(truncate_int(s, std::int64_t(d)));
    }
    return A(truncate_int(s, v.as_int()));
  }
  return v;  // void and others: keep
}

// normalize a constant for a dtype (normalize_number); Invalid stays, anything else is an error
inline Arg normalize_const(DType dt, const Arg& v) {
  if (v.is<Invalid>()) return v;
  if (!v.is_number()) throw Error("const: value " + v.repr() + " is not a number (dtype " + dt.repr() + ")");
  return normalize_number(dt, v);
}

}  // namespace mg
