#pragma once
// parse_sym: tinygrad's UOp.render() syntax for integer expressions, read back into the graph that
// tinygrad's Python operators build from the same text, so parse_sym(u.render()).render() == u.render().
//
//   a-b -> a+b*-1     -a -> a*-1     a<=b -> (b<a)!=True     a==b -> (a!=b)!=True     min(a, b) -> ~max(~a, ~b)
//
// Literals follow Python: -3 and -(3) are the constant -3, not 3*-1; a literal beside an expression takes
// the expression's dtype (tinygrad's ufix); mixed dtypes are cast to their least upper dtype. Integer
// literals are dtypes.weakint, True/False dtypes.bool (so (a<3)+1 is weakint here where Python makes it
// dtypes.int). Ops that Python operators never build (NEG, SUB, CAST...) are not read back.
// The parser keeps its own stacks (shunting-yard), so deep text cannot overflow the C++ stack; nesting
// is still capped at parse_sym_max_depth.
#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../core/error.hpp"
#include "../core/print.hpp"
#include "../core/uop.hpp"

namespace mg {

inline constexpr int parse_sym_max_depth = 10000;  // open brackets, conditionals and unary operators
// A template (T only delays instantiation): a translation unit that never parses does not compile the parser.
template <class T = void> UOp parse_sym(std::string_view text, std::span<const UOp> vars);

namespace detail {

template <class = void>
class SymParser {
 public:
  SymParser(std::string_view text, std::span<const UOp> vars) : text_(text) {
    for (std::size_t i = 0; i < vars.size(); ++i) {
      if (!vars[i] || vars[i].op() != Ops::DEFINE_VAR) throw Error("parse_sym: vars[" + std::to_string(i) + "] is not a DEFINE_VAR");
      auto [it, fresh] = vars_.emplace(vars[i].expr(), vars[i]);
      if (!fresh && it->second != vars[i]) throw Error("parse_sym: two different variables named '" + vars[i].expr() + "'");
    }
  }

  UOp parse() {
    bool want_operand = true;
    for (;;) {
      const Tok t = lex();
      if (want_operand) want_operand = operand(t);
      else if (t.kind == Tok::End) break;
      else want_operand = infix(t);
    }
    close_conditionals(text_.size());
    if (!frames_.empty()) fail(frames_.back().pos, "'(' is never closed");
    return node(vals_.back());
  }

 private:
  using i128 = __int128;
  enum class Bin { Add, Sub, Mul, FloorDiv, Mod, Shl, Shr, And, Xor, Or, Lt, Le, Gt, Ge, Eq, Ne };
  enum class Fn { Max, Min, CDiv, CMod };
  struct Tok {
    enum Kind { End, Int, True, False, Name, LParen, RParen, Comma, Op, Tilde, If, Else } kind;
    std::size_t pos, len;
    i128 value = 0;
    Bin op = Bin::Add;
  };
  // a parsed operand: a node, or a Python literal that becomes a constant once its dtype is known
  struct Val {
    enum Kind { Node, Int, Bool } kind;
    UOp u;
    i128 lit = 0;
    std::size_t pos = 0;
  };
  // what waits on the operator stack
  struct Frame {
    enum Kind { Binary, Neg, Invert, Paren, Call, If, Else } kind;
    std::size_t pos;
    Bin op = Bin::Add;
    Fn fn = Fn::Max;
    int argc = 0;
  };

  std::string_view text_;
  std::map<std::string_view, UOp> vars_;  // views of the names the DEFINE_VARs hold
  std::size_t at_ = 0;
  std::vector<Val> vals_;
  std::vector<Frame> frames_;
  int depth_ = 0;

  // ---- errors ----
  [[noreturn]] void fail(std::size_t pos, const std::string& what) const {
    std::string at = "parse_sym: at column " + std::to_string(pos + 1);
    if (text_.size() <= 80) throw Error(at + " of \"" + std::string(text_) + "\": " + what);
    std::size_t b = pos < 30 ? 0 : pos - 30, e = std::min(text_.size(), pos + 30);
    throw Error(at + " near \"" + (b ? "..." : "") + std::string(text_.substr(b, e - b)) + (e < text_.size() ? "..." : "") + "\": " + what);
  }
  std::string tok_str(const Tok& t) const {
    return t.kind == Tok::End ? "end of input" : "'" + std::string(text_.substr(t.pos, t.len)) + "'";
  }
  static std::string short_render(const UOp& u) {
    std::string s = u.render();
    return s.size() <= 120 ? s : s.substr(0, 58) + "..." + s.substr(s.size() - 58);
  }
  void enter(std::size_t pos) {
    if (++depth_ > parse_sym_max_depth) fail(pos, "expression nested deeper than " + std::to_string(parse_sym_max_depth) + " levels");
  }

  // ---- lexer ----
  static bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
  Tok lex() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) ++at_;
    const std::size_t p = at_;
    if (p == text_.size()) return {Tok::End, p, 0};
    const char c = text_[p];
    auto two = [&](char d) { return p + 1 < text_.size() && text_[p + 1] == d; };
    auto op = [&](Bin b, std::size_t n) { at_ = p + n; return Tok{Tok::Op, p, n, 0, b}; };
    if (c >= '0' && c <= '9') {
      std::size_t e = p;
      while (e < text_.size() && text_[e] >= '0' && text_[e] <= '9') ++e;
      if (e < text_.size() && ident_char(text_[e])) fail(p, "invalid integer literal");
      const std::string digits(text_.substr(p, e - p));
      if (digits[0] == '0' && digits.size() > 1) fail(p, "leading zeros in integer literal '" + digits + "'");
      if (digits.size() > 20) fail(p, "integer literal " + digits + " out of int64 range");
      i128 v = 0;  // exact: -, ~ and the int64 check come later, as -9223372036854775808 needs
      for (char d : digits) v = v * 10 + (d - '0');
      at_ = e;
      return {Tok::Int, p, e - p, v};
    }
    if (ident_start(c)) {
      std::size_t e = p;
      while (e < text_.size() && ident_char(text_[e])) ++e;
      at_ = e;
      std::string_view w = text_.substr(p, e - p);
      typename Tok::Kind k = w == "True" ? Tok::True : w == "False" ? Tok::False : w == "if" ? Tok::If : w == "else" ? Tok::Else : Tok::Name;
      return {k, p, e - p};
    }
    switch (c) {
      case '(': at_ = p + 1; return {Tok::LParen, p, 1};
      case ')': at_ = p + 1; return {Tok::RParen, p, 1};
      case ',': at_ = p + 1; return {Tok::Comma, p, 1};
      case '~': at_ = p + 1; return {Tok::Tilde, p, 1};
      case '+': return op(Bin::Add, 1);
      case '-': return op(Bin::Sub, 1);
      case '*': return op(Bin::Mul, 1);
      case '%': return op(Bin::Mod, 1);
      case '&': return op(Bin::And, 1);
      case '|': return op(Bin::Or, 1);
      case '^': return op(Bin::Xor, 1);
      case '/':
        if (two('/')) return op(Bin::FloorDiv, 2);
        fail(p, "'/' is true division, integer expressions use '//'");
      case '<': return two('<') ? op(Bin::Shl, 2) : two('=') ? op(Bin::Le, 2) : op(Bin::Lt, 1);
      case '>': return two('>') ? op(Bin::Shr, 2) : two('=') ? op(Bin::Ge, 2) : op(Bin::Gt, 1);
      case '=':
        if (two('=')) return op(Bin::Eq, 2);
        fail(p, "unexpected '=' (comparison is '==')");
      case '!':
        if (two('=')) return op(Bin::Ne, 2);
        fail(p, "unexpected '!'");
      default: fail(p, "unexpected character '" + std::string(1, c) + "'");
    }
  }
  bool peek_lparen() {
    std::size_t save = at_;
    bool r = lex().kind == Tok::LParen;
    at_ = save;
    return r;
  }

  // ---- operands ----
  // returns whether an operand is still wanted
  bool operand(const Tok& t) {
    switch (t.kind) {
      case Tok::Int: vals_.push_back({Val::Int, {}, t.value, t.pos}); return false;
      case Tok::True: case Tok::False: vals_.push_back({Val::Bool, {}, t.kind == Tok::True, t.pos}); return false;
      case Tok::LParen: enter(t.pos); frames_.push_back({Frame::Paren, t.pos}); return true;
      case Tok::Tilde: enter(t.pos); frames_.push_back({Frame::Invert, t.pos}); return true;
      case Tok::Op:
        if (t.op != Bin::Sub) break;
        enter(t.pos);
        frames_.push_back({Frame::Neg, t.pos});
        return true;
      case Tok::Name: {
        std::string_view name = text_.substr(t.pos, t.len);
        if (peek_lparen()) {
          static constexpr std::pair<std::string_view, Fn> fns[] = {{"max", Fn::Max}, {"min", Fn::Min}, {"cdiv", Fn::CDiv}, {"cmod", Fn::CMod}};
          auto f = std::find_if(std::begin(fns), std::end(fns), [&](const auto& x) { return x.first == name; });
          if (f == std::end(fns)) fail(t.pos, "unknown function '" + std::string(name) + "' (known: max, min, cdiv, cmod)");
          lex();  // the '('
          enter(t.pos);
          frames_.push_back({Frame::Call, t.pos, Bin::Add, f->second});
          return true;
        }
        auto v = vars_.find(name);
        if (v == vars_.end()) fail(t.pos, "unknown variable '" + std::string(name) + "'");
        vals_.push_back({Val::Node, v->second, 0, t.pos});
        return false;
      }
      default: break;
    }
    fail(t.pos, "expected an expression, got " + tok_str(t));
  }

  // ---- operators ----
  static int prec(Bin b) {
    switch (b) {
      case Bin::Mul: case Bin::FloorDiv: case Bin::Mod: return 7;
      case Bin::Add: case Bin::Sub: return 6;
      case Bin::Shl: case Bin::Shr: return 5;
      case Bin::And: return 4;
      case Bin::Xor: return 3;
      case Bin::Or: return 2;
      default: return 1;  // comparisons
    }
  }
  // returns whether an operand is wanted next
  bool infix(const Tok& t) {
    switch (t.kind) {
      case Tok::Op: {
        const int p = prec(t.op);
        reduce(p == 1 ? 2 : p);
        if (p == 1 && !frames_.empty() && frames_.back().kind == Frame::Binary && prec(frames_.back().op) == 1)
          fail(t.pos, "chained comparison: Python reads a<b<c as (a<b and b<c), write (a<b)<c or (a<b)&(b<c)");
        frames_.push_back({Frame::Binary, t.pos, t.op});
        return true;
      }
      case Tok::If:
        reduce(0);
        if (!frames_.empty() && frames_.back().kind == Frame::If) fail(t.pos, "a conditional inside a condition needs parentheses");
        enter(t.pos);
        frames_.push_back({Frame::If, t.pos});
        return true;
      case Tok::Else:
        reduce(0);
        if (frames_.empty() || frames_.back().kind != Frame::If) fail(t.pos, "'else' without 'if'");
        frames_.back().kind = Frame::Else;
        return true;
      case Tok::Comma:
        close_conditionals(t.pos);
        if (frames_.empty() || frames_.back().kind != Frame::Call) fail(t.pos, "unexpected ','");
        frames_.back().argc++;
        return true;
      case Tok::RParen: {
        close_conditionals(t.pos);
        if (frames_.empty()) fail(t.pos, "unmatched ')'");
        Frame f = frames_.back();
        frames_.pop_back();
        --depth_;
        if (f.kind == Frame::Call) call(f);  // a Paren just leaves its value, a literal stays a literal
        return false;
      }
      default: fail(t.pos, "expected an operator, got " + tok_str(t));
    }
  }
  // apply the waiting unary and binary operators that bind at least as tightly as min_prec
  void reduce(int min_prec) {
    while (!frames_.empty()) {
      const Frame& f = frames_.back();
      if (f.kind == Frame::Neg || f.kind == Frame::Invert) unary(f);
      else if (f.kind == Frame::Binary && prec(f.op) >= min_prec) binary(f);
      else return;
      frames_.pop_back();
    }
  }
  // at ')', ',' and the end: finish the operators and every conditional whose else-branch ends here
  void close_conditionals(std::size_t pos) {
    for (;;) {
      reduce(0);
      if (frames_.empty() || frames_.back().kind == Frame::Paren || frames_.back().kind == Frame::Call) return;
      if (frames_.back().kind == Frame::If) fail(pos, "expected 'else' for the 'if' at column " + std::to_string(frames_.back().pos + 1));
      Val y = pop(), c = pop(), x = pop();  // an Else frame
      frames_.pop_back();
      --depth_;
      vals_.push_back({Val::Node, where(x, c, y), 0, x.pos});
    }
  }
  Val pop() {
    Val v = std::move(vals_.back());
    vals_.pop_back();
    return v;
  }

  // ---- building, as tinygrad's Python operators do ----
  UOp lit_const(DType dt, const Val& v) const {
    if (v.lit < i128(INT64_MIN) || v.lit > i128(INT64_MAX))
      fail(v.pos, "integer literal " + SymVal::from_i128(v.lit).repr() + " out of int64 range");
    return UOp::const_(dt, v.kind == Val::Bool ? Arg(v.lit != 0) : Arg(std::int64_t(v.lit)));
  }
  UOp node(const Val& v) const { return v.kind == Val::Node ? v.u : lit_const(v.kind == Val::Int ? dtypes::weakint : dtypes::bool_, v); }
  // tinygrad's ufix: a literal beside an int or float expression takes its dtype, else keeps its own
  UOp ufix(DType dt, const Val& lit) const { return dt.is_int() || dt.is_float() ? lit_const(dt, lit) : node(lit); }
  // tinygrad's _broadcasted: ufix the literal, then cast both sides to their least upper dtype
  std::pair<UOp, UOp> unify(const Val& x, const Val& y) const {
    UOp a, b;
    if (x.kind == Val::Node && y.kind != Val::Node) a = x.u, b = ufix(a.dtype(), y);
    else if (y.kind == Val::Node && x.kind != Val::Node) b = y.u, a = ufix(b.dtype(), x);
    else if (x.kind != Val::Node && x.kind != y.kind) a = lit_const(dtypes::weakint, x), b = lit_const(dtypes::weakint, y);  // 3+True
    else a = node(x), b = node(y);
    if (a.dtype() == b.dtype()) return {a, b};
    const DType dt = least_upper_dtype(a.dtype().scalar(), b.dtype().scalar());
    return {a.cast(dt), b.cast(dt)};
  }
  UOp where(const Val& x, const Val& c, const Val& y) const {
    UOp cond = node(c);
    if (x.kind == Val::Node) return cond.where(x.u, y.kind == Val::Node ? y.u : ufix(x.u.dtype(), y));
    if (y.kind == Val::Node) return cond.where(ufix(y.u.dtype(), x), y.u);
    const DType dt = x.kind == y.kind ? node(x).dtype() : dtypes::weakint;
    return cond.where(lit_const(dt, x), lit_const(dt, y));
  }
  // a literal zero divisor is an error here, as Python's 1//0 is
  UOp checked_div(const UOp& r, const UOp& divisor, std::size_t pos, bool mod) const {
    if (divisor.op() == Ops::CONST && divisor.arg().py_equals(0)) fail(pos, (mod ? "modulo by zero: " : "division by zero: ") + short_render(r));
    return r;
  }
  void unary(const Frame& f) {
    Val& v = vals_.back();
    --depth_;
    if (v.kind != Val::Node) {  // Python folds -3, -(3), ~3 and -True to int literals
      v.lit = f.kind == Frame::Neg ? -v.lit : ~v.lit;
      v.kind = Val::Int;
      v.pos = f.pos;
      return;
    }
    v.u = f.kind == Frame::Neg ? -v.u : ~v.u;
    v.pos = f.pos;
  }
  void binary(const Frame& f) {
    Val y = pop(), x = pop();
    auto [a, b] = unify(x, y);
    UOp r;
    switch (f.op) {
      case Bin::Add: r = a + b; break;
      case Bin::Sub: r = a - b; break;
      case Bin::Mul: r = a * b; break;
      case Bin::FloorDiv: r = checked_div(a.floordiv(b), b, f.pos, false); break;
      case Bin::Mod: r = checked_div(a.floormod(b), b, f.pos, true); break;
      case Bin::Shl: r = a << b; break;
      case Bin::Shr: r = a >> b; break;
      case Bin::And: r = a & b; break;
      case Bin::Xor: r = a ^ b; break;
      case Bin::Or: r = a | b; break;
      case Bin::Lt: r = a < b; break;
      case Bin::Le: r = a <= b; break;
      case Bin::Gt: r = a > b; break;
      case Bin::Ge: r = a >= b; break;
      case Bin::Eq: r = a.eq(b); break;
      case Bin::Ne: r = a.ne(b); break;
    }
    vals_.push_back({Val::Node, r, 0, x.pos});
  }
  void call(const Frame& f) {
    static constexpr const char* names[] = {"max", "min", "cdiv", "cmod"};
    if (f.argc + 1 != 2) fail(f.pos, std::string(names[int(f.fn)]) + "() takes 2 arguments, got " + std::to_string(f.argc + 1));
    Val y = pop(), x = pop();
    auto [a, b] = unify(x, y);
    UOp r;
    switch (f.fn) {
      case Fn::Max: r = a.maximum(b); break;
      case Fn::Min: r = a.minimum(b); break;
      case Fn::CDiv: r = checked_div(a.cdiv(b), b, f.pos, false); break;
      case Fn::CMod: r = checked_div(a.cmod(b), b, f.pos, true); break;
    }
    vals_.push_back({Val::Node, r, 0, f.pos});
  }
};

}  // namespace detail

template <class T> UOp parse_sym(std::string_view text, std::span<const UOp> vars) { return detail::SymParser<T>(text, vars).parse(); }

}  // namespace mg
