#pragma once
// Json: a small JSON value (null, bool, number, string, array, object) with a reader and a compact writer,
// for tool input/output and safetensors headers. Integral numbers that fit stay exact int64s, other
// numbers are doubles; objects keep insertion order (a repeated key keeps its first place, last value).
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cmath.hpp"
#include "error.hpp"

namespace mg {

// Json is JsonT<>: a template (its parameter only delays instantiation), so that a translation unit
// that never touches JSON does not compile its members
template <class = void>
class JsonT {
 public:
  using Array = std::vector<JsonT>;
  using Object = std::vector<std::pair<std::string, JsonT>>;

  JsonT() = default;
  JsonT(std::nullptr_t) {}
  JsonT(bool b) : k_(Bool), b_(b) {}
  template <class I> requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  JsonT(I i) {
    if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(std::int64_t))
      if (i > std::uint64_t(INT64_MAX)) { k_ = Double, d_ = double(i); return; }
    k_ = Int, i_ = std::int64_t(i);
  }
  JsonT(double d) : k_(Double), d_(d) {}
  JsonT(const char* s) : k_(String), s_(s) {}
  JsonT(std::string s) : k_(String), s_(std::move(s)) {}
  JsonT(std::string_view s) : k_(String), s_(s) {}
  JsonT(Array a) : k_(ArrayKind), a_(std::move(a)) {}
  JsonT(Object o) : k_(ObjectKind), o_(std::move(o)) {}
  static JsonT array(std::initializer_list<JsonT> xs = {}) { return JsonT(Array(xs)); }
  static JsonT object(std::initializer_list<std::pair<std::string, JsonT>> kv = {}) {
    JsonT j{Object{}};
    for (const auto& [k, v] : kv) j.set(k, v);
    return j;
  }

  bool is_null() const { return k_ == Null; }
  bool is_bool() const { return k_ == Bool; }
  bool is_int() const { return k_ == Int; }
  bool is_double() const { return k_ == Double; }
  bool is_number() const { return is_int() || is_double(); }
  bool is_string() const { return k_ == String; }
  bool is_array() const { return k_ == ArrayKind; }
  bool is_object() const { return k_ == ObjectKind; }
  // "null", "bool", "integer", "number", "string", "array", "object"
  const char* type_name() const {
    static constexpr const char* names[] = {"null", "bool", "integer", "number", "string", "array", "object"};
    return names[k_];
  }

  bool as_bool() const { return want(Bool, "a bool"), b_; }
  std::int64_t as_int() const { return want(Int, "an integer"), i_; }
  double as_double() const { return is_int() ? double(i_) : (want(Double, "a number"), d_); }
  const std::string& as_string() const { return want(String, "a string"), s_; }
  const Array& as_array() const { return want(ArrayKind, "an array"), a_; }
  Array& as_array() { return want(ArrayKind, "an array"), a_; }
  const Object& as_object() const { return want(ObjectKind, "an object"), o_; }
  Object& as_object() { return want(ObjectKind, "an object"), o_; }

  // elements of an array or members of an object; 0 for anything else
  std::size_t size() const { return is_array() ? as_array().size() : is_object() ? as_object().size() : 0; }
  // the member named key, or nullptr when there is none (or this is not an object)
  const JsonT* find(std::string_view key) const {
    if (!is_object()) return nullptr;
    for (const auto& [k, v] : as_object())
      if (k == key) return &v;
    return nullptr;
  }
  const JsonT& operator[](std::string_view key) const {
    if (const JsonT* j = find(key)) return *j;
    throw Error(is_object() ? "Json: no member \"" + std::string(key) + "\"" : std::string("Json: expected an object, got ") + type_name());
  }
  const JsonT& operator[](std::size_t i) const {
    const Array& a = as_array();
    if (i >= a.size()) throw Error("Json: index " + std::to_string(i) + " out of range for an array of " + std::to_string(a.size()));
    return a[i];
  }
  JsonT& set(std::string key, JsonT value) {  // a repeated key replaces the value in place
    Object& o = as_object();
    for (auto& [k, v] : o)
      if (k == key) return v = std::move(value);
    return o.emplace_back(std::move(key), std::move(value)).second;
  }
  JsonT& push_back(JsonT value) { return as_array().emplace_back(std::move(value)); }

  // compact JSON; non-finite doubles, which JSON cannot hold, are written as null
  std::string dump() const {
    std::string out;
    dump_to(out);
    return out;
  }
  void dump_to(std::string& out) const;
  static void dump_string(std::string& out, std::string_view s);

  // numbers compare by value (1 == 1.0), objects by their members in order
  friend bool operator==(const JsonT& a, const JsonT& b) {
    if (a.is_number() && b.is_number() && a.is_int() != b.is_int()) return a.as_double() == b.as_double();
    if (a.k_ != b.k_) return false;
    switch (a.k_) {
      case Null: return true;
      case Bool: return a.b_ == b.b_;
      case Int: return a.i_ == b.i_;
      case Double: return a.d_ == b.d_;
      case String: return a.s_ == b.s_;
      case ArrayKind: return a.a_ == b.a_;
      default: return a.o_ == b.o_;
    }
  }

 private:
  // One field per kind, not a std::variant: a variant of these seven costs every translation unit
  // that includes this header a noticeable share of its compile time, and a Json value is never hot.
  enum Kind : unsigned char { Null, Bool, Int, Double, String, ArrayKind, ObjectKind };
  void want(Kind k, const char* what) const {
    if (k_ != k) throw Error(std::string("Json: expected ") + what + ", got " + type_name());
  }
  Kind k_ = Null;
  bool b_ = false;
  std::int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  Array a_;
  Object o_;
};
using Json = JsonT<>;

template <class X>
void JsonT<X>::dump_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char hex[] = "0123456789abcdef";
          out += "\\u00";
          out += hex[(c >> 4) & 0xf];
          out += hex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

template <class X>
void JsonT<X>::dump_to(std::string& out) const {
  switch (k_) {
    case Null: out += "null"; break;
    case Bool: out += b_ ? "true" : "false"; break;
    case Int: out += std::to_string(i_); break;
    case Double: {
      double d = d_;
      if (!cmath::isfinite(d)) { out += "null"; break; }
      char buf[32];
      auto r = std::to_chars(buf, buf + sizeof buf, d);  // shortest form that reads back exactly
      std::string_view s(buf, std::size_t(r.ptr - buf));
      out += s;
      if (s.find_first_of(".e") == std::string_view::npos) out += ".0";  // stays a double when read back
      break;
    }
    case String: dump_string(out, s_); break;
    case ArrayKind: {
      out += '[';
      bool first = true;
      for (const JsonT& x : a_) {
        if (!first) out += ',';
        first = false;
        x.dump_to(out);
      }
      out += ']';
      break;
    }
    default: {
      out += '{';
      bool first = true;
      for (const auto& [k, v] : o_) {
        if (!first) out += ',';
        first = false;
        dump_string(out, k);
        out += ':';
        v.dump_to(out);
      }
      out += '}';
    }
  }
}

namespace detail {

// a template (its parameter only delays instantiation): only a translation unit that reads JSON compiles it
template <class = void>
class JsonReader {
 public:
  static constexpr int max_depth = 1000;
  explicit JsonReader(std::string_view s) : s_(s) {}

  Json read() {
    Json j = value(0);
    skip_ws();
    if (at_ != s_.size()) fail("unexpected " + what_here() + " after the value");
    return j;
  }

 private:
  std::string_view s_;
  std::size_t at_ = 0;

  [[noreturn]] void fail(const std::string& what) const { fail_at(at_, what); }
  [[noreturn]] void fail_at(std::size_t pos, const std::string& what) const {
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < pos && i < s_.size(); ++i) s_[i] == '\n' ? (++line, col = 1) : ++col;
    throw Error("parse_json: " + what + " at offset " + std::to_string(pos) + " (line " + std::to_string(line) + ", column " +
                std::to_string(col) + ")");
  }
  std::string what_here() const {
    if (at_ >= s_.size()) return "end of input";
    unsigned char c = static_cast<unsigned char>(s_[at_]);
    if (c < 0x20 || c >= 0x7f) {
      static constexpr char hex[] = "0123456789abcdef";
      return std::string("byte 0x") + hex[c >> 4] + hex[c & 0xf];
    }
    return "'" + std::string(1, char(c)) + "'";
  }
  void skip_ws() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\n' || s_[at_] == '\r')) ++at_;
  }
  bool eat(char c) {
    skip_ws();
    if (at_ < s_.size() && s_[at_] == c) return ++at_, true;
    return false;
  }
  void expect(char c, const char* context) {
    if (!eat(c)) fail(std::string("expected '") + c + "' " + context + ", got " + what_here());
  }
  bool word(std::string_view w) {
    if (s_.substr(at_, w.size()) != w) return false;
    at_ += w.size();
    return true;
  }

  Json value(int depth) {
    skip_ws();
    if (at_ >= s_.size()) fail("expected a value, got end of input");
    switch (s_[at_]) {
      case '{': return object(depth);
      case '[': return array(depth);
      case '"': return Json(string());
      case 't': if (word("true")) return Json(true); break;
      case 'f': if (word("false")) return Json(false); break;
      case 'n': if (word("null")) return Json(); break;
      default:
        if (s_[at_] == '-' || (s_[at_] >= '0' && s_[at_] <= '9')) return number();
    }
    fail("expected a value, got " + what_here());
  }
  void enter(int depth) const {
    if (depth >= max_depth) fail("arrays and objects nested deeper than " + std::to_string(max_depth) + " levels");
  }
  Json array(int depth) {
    enter(depth);
    ++at_;
    Json::Array a;
    if (eat(']')) return Json(std::move(a));
    do a.push_back(value(depth + 1));
    while (eat(','));
    expect(']', "or ',' in an array");
    return Json(std::move(a));
  }
  Json object(int depth) {
    enter(depth);
    ++at_;
    Json::Object o;
    std::map<std::string_view, std::size_t> index;  // only for big objects: keeps repeated keys O(n)
    if (eat('}')) return Json(std::move(o));
    do {
      skip_ws();
      if (at_ >= s_.size() || s_[at_] != '"') fail("expected a string key in an object, got " + what_here());
      std::string key = string();
      expect(':', "after an object key");
      Json v = value(depth + 1);
      std::size_t found = o.size();
      if (o.size() < 32) {
        for (std::size_t i = 0; i < o.size(); ++i)
          if (o[i].first == key) found = i;
      } else {
        if (index.empty())
          for (std::size_t i = 0; i < o.size(); ++i) index.emplace(o[i].first, i);
        if (auto it = index.find(key); it != index.end()) found = it->second;
      }
      if (found < o.size()) {
        o[found].second = std::move(v);
      } else {
        o.emplace_back(std::move(key), std::move(v));
        if (!index.empty()) {  // the vector may have moved its strings: rebuild the views
          index.clear();
          for (std::size_t i = 0; i < o.size(); ++i) index.emplace(o[i].first, i);
        }
      }
    } while (eat(','));
    expect('}', "or ',' in an object");
    return Json(std::move(o));
  }
  unsigned hex4() {
    if (s_.size() - at_ < 4) fail("expected 4 hex digits after \\u");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i, ++at_) {
      char c = s_[at_];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) fail("expected 4 hex digits after \\u, got " + what_here());
      v = v * 16 + unsigned(d);
    }
    return v;
  }
  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xc0 | (cp >> 6)), out += char(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += char(0xe0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3f)), out += char(0x80 | (cp & 0x3f));
    } else {
      out += char(0xf0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3f));
      out += char(0x80 | ((cp >> 6) & 0x3f)), out += char(0x80 | (cp & 0x3f));
    }
  }
  std::string string() {
    const std::size_t start = at_++;
    std::string out;
    for (;;) {
      if (at_ >= s_.size()) fail_at(start, "unterminated string");
      const char c = s_[at_];
      if (c == '"') { ++at_; return out; }
      if (static_cast<unsigned char>(c) < 0x20) fail("control character (" + what_here() + ") in a string: write it as an escape");
      if (c != '\\') { out += c; ++at_; continue; }
      const std::size_t esc = at_++;
      if (at_ >= s_.size()) fail_at(start, "unterminated string");
      switch (s_[at_++]) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xdc00 && cp <= 0xdfff) fail_at(esc, "lone low surrogate \\u" + std::string(s_.substr(esc + 2, 4)));
          if (cp >= 0xd800 && cp <= 0xdbff) {
            if (s_.substr(at_, 2) != "\\u") fail_at(esc, "high surrogate \\u" + std::string(s_.substr(esc + 2, 4)) + " without a low surrogate");
            at_ += 2;
            unsigned lo = hex4();
            if (lo < 0xdc00 || lo > 0xdfff) fail_at(esc, "high surrogate \\u" + std::string(s_.substr(esc + 2, 4)) + " without a low surrogate");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          }
          utf8(out, cp);
          break;
        }
        default: --at_; fail_at(esc, "invalid escape \\" + std::string(1, s_[at_]) + " in a string");
      }
    }
  }
  // a valid number a double cannot hold: +-inf when too big, +-0 when too small, as Python's json reads them
  static double out_of_range(std::string_view num) {
    const bool neg = num[0] == '-';
    const std::size_t e_pos = std::min(num.find_first_of("eE"), num.size());
    const std::string_view mant = num.substr(neg, e_pos - neg);
    long long exp = 0;
    if (e_pos < num.size()) {
      std::string_view x = num.substr(e_pos + 1);
      const bool eneg = x[0] == '-';
      if (x[0] == '-' || x[0] == '+') x.remove_prefix(1);
      if (std::from_chars(x.data(), x.data() + x.size(), exp).ec != std::errc()) exp = 1LL << 40;
      if (eneg) exp = -exp;
    }
    const long long int_digits = (long long)std::min(mant.find('.'), mant.size());
    const long long first = (long long)std::min(mant.find_first_not_of("0."), mant.size());
    const bool big = (first < int_digits ? int_digits - first : int_digits - first + 1) + exp > 0;  // 10^(that-1) <= |x|
    return big ? (neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity()) : (neg ? -0.0 : 0.0);
  }
  Json number() {
    const std::size_t start = at_;
    auto digits = [&] {
      std::size_t b = at_;
      while (at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9') ++at_;
      return at_ - b;
    };
    if (s_[at_] == '-') ++at_;
    const std::size_t int_start = at_;
    if (digits() == 0) fail("expected a digit in a number, got " + what_here());
    if (s_[int_start] == '0' && at_ - int_start > 1) fail_at(int_start, "leading zero in a number");
    bool integral = true;
    if (at_ < s_.size() && s_[at_] == '.') {
      ++at_, integral = false;
      if (digits() == 0) fail("expected a digit after '.' in a number, got " + what_here());
    }
    if (at_ < s_.size() && (s_[at_] == 'e' || s_[at_] == 'E')) {
      ++at_, integral = false;
      if (at_ < s_.size() && (s_[at_] == '+' || s_[at_] == '-')) ++at_;
      if (digits() == 0) fail("expected a digit in a number's exponent, got " + what_here());
    }
    const char *b = s_.data() + start, *e = s_.data() + at_;
    if (integral) {
      std::int64_t i;
      if (auto r = std::from_chars(b, e, i); r.ec == std::errc() && r.ptr == e) return Json(i);
    }
    double d;
    auto r = std::from_chars(b, e, d);
    if (r.ec == std::errc::result_out_of_range) return Json(out_of_range(std::string_view(b, std::size_t(e - b))));
    if (r.ec != std::errc() || r.ptr != e) fail_at(start, "bad number");
    return Json(d);
  }
};

}  // namespace detail

// JSON text to a Json value; bad input throws mg::Error naming the offset, line and column
template <class T = void> Json parse_json(std::string_view text) { return detail::JsonReader<T>(text).read(); }

}  // namespace mg
