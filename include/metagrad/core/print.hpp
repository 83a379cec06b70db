#pragma once
// Printing UOps: tinygrad's pretty_print (UOp(Ops.ADD, dtypes.int, arg=None, src=(...))) and the infix
// render of integer expressions ((a*4+b)). Both iterative, so a 100,000-deep chain prints.
#include <string>
#include <vector>

#include "ptr_map.hpp"
#include "uop.hpp"
#include "walk.hpp"

namespace mg {

namespace detail {
// a CONST's value as Python prints it: uint64 constants are stored as their int64 bit pattern
inline std::string const_str(const UOp& u) {
  const Arg& a = u.arg();
  if (a.is_int() && a.as_int() < 0 && u.dtype().scalar() == dtypes::uint64) return std::to_string(std::uint64_t(a.as_int()));
  return a.str();
}
inline std::string argstr(const UOp& u) {
  const Arg& a = u.arg();
  if (u.op() == Ops::CONST && a.is_int()) return const_str(u);
  if (u.op() == Ops::REDUCE && a.is_tuple()) {
    std::string s = "(";
    for (std::size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + a[i].repr();
    return s + ")";
  }
  return a.is_float() ? "ConstFloat(" + a.repr() + ")" : a.repr();
}
inline std::string tagstr(const UOp& u) {
  if (u.tag().is_none()) return "";
  return ", tag=" + (u.tag().is<std::string>() ? u.tag().as_str() : u.tag().repr());
}
}  // namespace detail

template <class> std::string UOp::repr() const {
  if (!p_) return "UOp()";
  // number each node in depth-first discovery order and count its users, as tinygrad's pretty_print
  struct Info { int idx = 0, users = 0; bool printed = false; };
  detail::PtrMap<Info> info;
  int next = 0;
  {
    std::vector<std::pair<const detail::Node*, std::size_t>> st{{p_, 0}};
    while (!st.empty()) {
      auto& [n, i] = st.back();
      if (i == n->src.size()) { st.pop_back(); continue; }
      const detail::Node* s = n->src[i++].node();
      Info* e = info.find(s);
      if (!e) e = &info.set(s, Info{next++, 0, false});
      if (++e->users == 1) st.emplace_back(s, 0);
    }
  }
  if (!info.find(p_)) info.set(p_, Info{0, 0, false});
  std::string out;
  struct Frame { const detail::Node* n; std::size_t depth, i; };
  std::vector<Frame> st{{p_, 0, 0}};
  bool entering = true;
  while (!st.empty()) {
    Frame& f = st.back();
    if (entering) {
      Info& e = *info.find(f.n);
      out.append(f.depth, ' ');
      if (e.printed) { out += "x" + std::to_string(e.idx); st.pop_back(); entering = false; continue; }
      e.printed = true;
      UOp u = from_node(f.n);
      if (e.users > 1) out += "x" + std::to_string(e.idx) + ":=";
      out += "UOp(" + op_repr(u.op()) + ", " + u.dtype().repr() + ", arg=" + detail::argstr(u) + detail::tagstr(u) + ", src=(";
    } else {
      out += ",";  // a child just finished
    }
    if (f.i < f.n->src.size()) {
      out += "\n";
      const detail::Node* c = f.n->src[f.i++].node();
      st.push_back({c, f.depth + 2, 0});
      entering = true;
    } else {
      out += "))";
      st.pop_back();
      entering = false;
    }
  }
  return out;
}

namespace detail {
// binding strength for the infix render (smaller binds tighter), as tinygrad's render.py
constexpr int render_precedence(Ops o) {
  switch (o) {
    case Ops::MUL: case Ops::FLOORDIV: case Ops::FLOORMOD: return 1;
    case Ops::ADD: case Ops::SUB: return 2;
    case Ops::SHL: case Ops::SHR: return 3;
    case Ops::AND: return 4;
    case Ops::XOR: return 5;
    case Ops::OR: return 6;
    default: return 99;
  }
}
constexpr const char* render_sym(Ops o) {
  switch (o) {
    case Ops::ADD: return "+"; case Ops::SUB: return "-"; case Ops::FLOORDIV: return "//"; case Ops::FLOORMOD: return "%";
    case Ops::SHL: return "<<"; case Ops::SHR: return ">>"; case Ops::MUL: return "*"; case Ops::CMPLT: return "<";
    case Ops::CMPNE: return "!="; case Ops::AND: return "&"; case Ops::OR: return "|"; case Ops::XOR: return "^";
    default: return nullptr;
  }
}
// renders that are "(...)" around a balanced inside, so a parent may strip the outer parens
inline bool render_wrapped(const Node* n) {
  return render_sym(n->op) || n->op == Ops::WHERE || n->op == Ops::NEG || n->op == Ops::RECIPROCAL || n->op == Ops::MULACC;
}
struct Piece {
  std::string lit;
  const Node* child = nullptr;
  bool strip = false;
};
template <class = void> std::vector<Piece> render_shape(const Node* n) {
  UOp u = UOp::from_node(n);
  auto c = [&](std::size_t i, bool strip = false) { return Piece{"", u.src(i).node(), strip}; };
  auto L = [](std::string s) { return Piece{std::move(s)}; };
  switch (n->op) {
    case Ops::DEFINE_VAR: return {L(u.arg()[0].as_str())};
    case Ops::PARAM: {
      const ParamArg& p = u.arg().as_param();
      return {L(p.name ? *p.name : "p" + std::to_string(p.slot))};
    }
    case Ops::SPECIAL: return {L(u.arg().is<std::string>() ? u.arg().as_str() : u.arg().repr())};
    case Ops::RANGE: {
      std::string s = "r";
      const auto& t = u.arg().as_tuple();
      for (std::size_t i = 0; i + 1 < t.size(); ++i) {
        std::int64_t v = t[i].as_int();
        s += (i ? "_" : "") + (v >= 0 ? std::to_string(v) : "m" + std::to_string(-v));
      }
      return {L(s)};
    }
    case Ops::CONST: return {L(const_str(u))};
    case Ops::CAST: return {L("(" + u.dtype().repr().substr(7) + ")("), c(0), L(")")};
    case Ops::BIND: return {c(0)};
    case Ops::NEG: return {L("("), L("-"), c(0), L(")")};
    case Ops::RECIPROCAL: return {L("("), L("1/"), c(0), L(")")};
    case Ops::MAX: return {L("max("), c(0), L(", "), c(1), L(")")};
    case Ops::MULACC: return {L("("), c(0), L("*"), c(1), L("+"), c(2), L(")")};
    case Ops::WHERE: return {L("("), c(1), L(" if "), c(0), L(" else "), c(2), L(")")};
    case Ops::CDIV: return {L("cdiv("), c(0), L(", "), c(1), L(")")};
    case Ops::CMOD: return {L("cmod("), c(0), L(", "), c(1), L(")")};
    case Ops::INDEX: case Ops::STAGE: {
      std::vector<Piece> v;
      for (std::size_t i = 1; i < u.nsrc(); ++i) v.push_back(L("[")), v.push_back(c(i, true)), v.push_back(L("]"));
      return v;
    }
    case Ops::STACK: {
      bool same = u.nsrc() > 0;
      for (const UOp& s : u.src()) same = same && s == u.src(0);
      if (same) return {L("{"), c(0), L(", ...}")};
      std::vector<Piece> v{L("{")};
      for (std::size_t i = 0; i < u.nsrc(); ++i) { if (i) v.push_back(L(",")); v.push_back(c(i)); }
      v.push_back(L("}"));
      return v;
    }
    default: break;
  }
  if (const char* sym = render_sym(n->op); sym && u.nsrc() == 2) {
    const int p = render_precedence(n->op);
    if (p == 99) return {L("("), c(0), L(sym), c(1), L(")")};
    return {L("("), c(0, render_precedence(u.src(0).op()) <= p), L(sym), c(1, render_precedence(u.src(1).op()) < p), L(")")};
  }
  return {L(u.repr())};
}
}  // namespace detail

template <class> std::string UOp::render() const {
  std::string out;
  if (!p_) return "UOp()";
  std::vector<detail::Piece> st{{"", p_, false}};
  while (!st.empty()) {
    detail::Piece p = std::move(st.back());
    st.pop_back();
    if (!p.child) { out += p.lit; continue; }
    auto shape = detail::render_shape(p.child);
    std::size_t b = 0, e = shape.size();
    if (p.strip && detail::render_wrapped(p.child)) ++b, --e;  // drop the outer "(" and ")"
    for (std::size_t i = e; i > b; --i) st.push_back(std::move(shape[i - 1]));
  }
  return out;
}

}  // namespace mg
