#pragma once
// Arg: the small closed variant a UOp carries as its arg and tag. Value equality (floats compare by
// bits, like tinygrad's ConstFloat), hashing, and tinygrad's repr.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

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
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
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
  using Value = std::variant<std::monostate, bool, std::int64_t, double, std::string, Ops, AxisType, DType, Invalid,
                             std::shared_ptr<const ParamArg>, ArgTuple>;

  Arg() = default;
  Arg(std::nullptr_t) {}
  Arg(bool b) : v_(b) {}
  template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  Arg(I i) : v_(std::int64_t(i)) {}
  Arg(double d) : v_(d) {}
  Arg(float d) : v_(double(d)) {}
  Arg(const char* s) : v_(std::string(s)) {}
  Arg(std::string s) : v_(std::move(s)) {}
  Arg(std::string_view s) : v_(std::string(s)) {}
  Arg(Ops o) : v_(o) {}
  Arg(AxisType a) : v_(a) {}
  Arg(DType d) : v_(d) {}
  Arg(Invalid i) : v_(i) {}
  Arg(ParamArg p) : v_(std::make_shared<const ParamArg>(std::move(p))) {}
  Arg(ArgTuple t) : v_(std::move(t)) {}
  Arg(std::initializer_list<Arg> t) : v_(ArgTuple(t)) {}

  const Value& value() const { return v_; }
  bool is_none() const { return v_.index() == 0; }
  template <class T> bool is() const {
    if constexpr (std::is_same_v<T, ParamArg>) return std::holds_alternative<std::shared_ptr<const ParamArg>>(v_);
    else return std::holds_alternative<T>(v_);
  }
  bool is_int() const { return is<std::int64_t>(); }
  bool is_float() const { return is<double>(); }
  bool is_bool() const { return is<bool>(); }
  bool is_number() const { return is_int() || is_float() || is_bool(); }
  bool is_tuple() const { return is<ArgTuple>(); }

  std::int64_t as_int() const {
    if (auto* i = std::get_if<std::int64_t>(&v_)) return *i;
    if (auto* b = std::get_if<bool>(&v_)) return *b;
    throw Error("Arg::as_int: arg " + repr() + " is not an integer");
  }
  double as_float() const {
    if (auto* d = std::get_if<double>(&v_)) return *d;
    if (auto* i = std::get_if<std::int64_t>(&v_)) return double(*i);
    if (auto* b = std::get_if<bool>(&v_)) return *b;
    throw Error("Arg::as_float: arg " + repr() + " is not a number");
  }
  bool as_bool() const {
    if (auto* b = std::get_if<bool>(&v_)) return *b;
    throw Error("Arg::as_bool: arg " + repr() + " is not a bool");
  }
  const std::string& as_str() const { return get<std::string>("a string"); }
  Ops as_op() const { return get<Ops>("an Ops"); }
  AxisType as_axis_type() const { return get<AxisType>("an AxisType"); }
  DType as_dtype() const { return get<DType>("a DType"); }
  const ParamArg& as_param() const { return *get<std::shared_ptr<const ParamArg>>("a ParamArg"); }
  const ArgTuple& as_tuple() const { return get<ArgTuple>("a tuple"); }
  const Arg& operator[](std::size_t i) const {
    const auto& t = as_tuple();
    if (i >= t.size()) throw Error("Arg[" + std::to_string(i) + "]: index out of range for " + repr());
    return t[i];
  }
  std::size_t size() const { return is_tuple() ? as_tuple().size() : 0; }

  // identity equality, as the intern table needs it: same alternative, floats by bits
  friend bool operator==(const Arg& a, const Arg& b) {
    if (a.v_.index() != b.v_.index()) return false;
    return std::visit([&](const auto& x) -> bool {
      using T = std::decay_t<decltype(x)>;
      const T& y = std::get<T>(b.v_);
      if constexpr (std::is_same_v<T, double>) return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y) || (std::isnan(x) && std::isnan(y));
      else if constexpr (std::is_same_v<T, std::shared_ptr<const ParamArg>>) return x == y || *x == *y;
      else return x == y;
    }, a.v_);
  }

  // Python's ==, as a pattern's arg filter uses it: numbers compare by value (0 == 0.0 == False).
  // The number overloads compare in place: a pattern's arg filter runs on the matching hot path.
  template <class T> bool py_equals(const T& v) const {
    if constexpr (std::is_same_v<T, bool>) return eq_int(std::int64_t(v));
    else if constexpr (std::is_integral_v<T>) return eq_int(std::int64_t(v));
    else if constexpr (std::is_floating_point_v<T>) return eq_float(double(v));
    else if constexpr (std::is_same_v<T, Ops>) { auto* o = std::get_if<Ops>(&v_); return o && *o == v; }
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

  std::size_t hash() const {
    return std::visit([&](const auto& x) -> std::size_t {
      using T = std::decay_t<decltype(x)>;
      std::size_t h = v_.index() * 0x9e3779b97f4a7c15ull;
      if constexpr (std::is_same_v<T, std::monostate> || std::is_same_v<T, Invalid>) return h;
      else if constexpr (std::is_same_v<T, double>) return h ^ std::hash<std::uint64_t>{}(std::isnan(x) ? 0x7ff8000000000000ull : std::bit_cast<std::uint64_t>(x));
      else if constexpr (std::is_same_v<T, DType>)
        return h ^ x.hash();
      else if constexpr (std::is_same_v<T, std::shared_ptr<const ParamArg>>) return h ^ std::hash<std::int64_t>{}(x->slot);
      else if constexpr (std::is_same_v<T, ArgTuple>) {
        for (const auto& e : x) h = (h ^ e.hash()) * 0x100000001b3ull;
        return h;
      } else if constexpr (std::is_enum_v<T>) return h ^ std::size_t(x);
      else return h ^ std::hash<T>{}(x);
    }, v_);
  }

  // tinygrad's repr of the arg (what UOp printing shows after arg=)
  std::string repr() const {
    return std::visit([&](const auto& x) -> std::string {
      using T = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<T, std::monostate>) return "None";
      else if constexpr (std::is_same_v<T, bool>) return x ? "True" : "False";
      else if constexpr (std::is_same_v<T, std::int64_t>) return std::to_string(x);
      else if constexpr (std::is_same_v<T, double>) return py_float_repr(x);
      else if constexpr (std::is_same_v<T, std::string>) return py_str_repr(x);
      else if constexpr (std::is_same_v<T, Ops>) return op_repr(x);
      else if constexpr (std::is_same_v<T, AxisType>) return "AxisType." + std::string(axis_type_names[std::size_t(x)]);
      else if constexpr (std::is_same_v<T, DType>) return x.repr();
      else if constexpr (std::is_same_v<T, Invalid>) return "Invalid";
      else if constexpr (std::is_same_v<T, std::shared_ptr<const ParamArg>>) {
        std::string s = "ParamArg(" + std::to_string(x->slot);
        if (x->vmin_vmax) s += ", vmin_vmax=(" + std::to_string(x->vmin_vmax->first) + ", " + std::to_string(x->vmin_vmax->second) + ")";
        if (x->name) s += ", name=" + py_str_repr(*x->name);
        if (x->addrspace != AddrSpace::GLOBAL) s += x->addrspace == AddrSpace::LOCAL ? ", addrspace=AddrSpace.LOCAL" : ", addrspace=AddrSpace.REG";
        if (x->axis) s += ", axis=" + std::to_string(*x->axis);
        if (x->device) s += ", device=" + py_str_repr(*x->device);
        return s + ")";
      } else {
        std::string s = "(";
        for (std::size_t i = 0; i < x.size(); ++i) s += (i ? ", " : "") + x[i].repr();
        return s + (x.size() == 1 ? ",)" : ")");
      }
    }, v_);
  }
  // str() of a const value as tinygrad's render prints it (floats without the ConstFloat wrapper)
  std::string str() const { return repr(); }

 private:
  bool eq_int(std::int64_t v) const {
    if (auto* i = std::get_if<std::int64_t>(&v_)) return *i == v;
    if (auto* d = std::get_if<double>(&v_)) return *d == double(v);
    if (auto* b = std::get_if<bool>(&v_)) return std::int64_t(*b) == v;
    return false;
  }
  bool eq_float(double v) const {
    if (auto* d = std::get_if<double>(&v_)) return *d == v;
    if (auto* i = std::get_if<std::int64_t>(&v_)) return double(*i) == v;
    if (auto* b = std::get_if<bool>(&v_)) return double(*b) == v;
    return false;
  }
  template <class T> const T& get(const char* what) const {
    if (auto* p = std::get_if<T>(&v_)) return *p;
    throw Error(std::string("Arg: arg ") + repr() + " is not " + what);
  }
  Value v_;
};

// the value of a CONST: what UOp::const_ accepts
using ConstValue = std::variant<bool, std::int64_t, double, Invalid>;

inline Arg to_arg(const ConstValue& c) { return std::visit([](auto x) { return Arg(x); }, c); }

// normalize a constant for a dtype: bool → bool, ints wrap to the width, float16/bfloat16/fp8 round to the format
inline Arg normalize_const(DType dt, const Arg& v) {
  if (v.is<Invalid>()) return v;
  if (!v.is_number()) throw Error("const: value " + v.repr() + " is not a number (dtype " + dt.repr() + ")");
  DType s = dt.scalar();
  if (s.is_bool()) return Arg(v.is_float() ? v.as_float() != 0.0 : v.as_int() != 0);
  // float32/float64 keep the double, as tinygrad's ConstFloat does; narrower formats round to the format
  if (s.is_float()) return Arg(s == dtypes::float32 ? v.as_float() : truncate_float(s, v.as_float()));
  if (s.is_int()) {
    if (v.is_float()) {
      double d = v.as_float();
      if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) throw Error("const: cannot make a " + dt.repr() + " constant from " + v.repr());
      return Arg(truncate_int(s, std::int64_t(d)));
    }
    return Arg(truncate_int(s, v.as_int()));
  }
  return v;  // void and others: keep
}

}  // namespace mg
