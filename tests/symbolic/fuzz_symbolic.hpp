#pragma once
// fuzz_symbolic: random integer expressions, made the way tinygrad's test/external/fuzz_symbolic.py
// makes them, checked against their simplified form on every point of the variables' ranges.
// Shared by tests/symbolic/test_fuzz.cpp (a fixed set of seeds) and tools/fuzz_symbolic.cpp (random ones).
//
// tinygrad proves `simplified != expr` unsatisfiable with z3. Here the ranges are small enough
// (at most 257^3 points) to try every point instead: both graphs are compiled into one flat program
// over columns of int64 lanes (Python int semantics: floor // and %, comparisons as 0 and 1), which
// also checks every node's value against its vmin/vmax. A case whose values leave int64 is skipped.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <metagrad/core/eval.hpp>
#include <metagrad/metagrad.hpp>
#include <metagrad/symbolic/simplify.hpp>

namespace mg::fuzz {

// ---- random numbers: deterministic per seed on every standard library ----
struct Rng {
  std::mt19937_64 gen;
  explicit Rng(std::uint64_t seed) : gen(seed) {}
  std::uint64_t below(std::uint64_t n) { return gen() % n; }  // bias < 2^-50 for these n
  std::int64_t randint(std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(below(std::uint64_t(hi - lo + 1))); }
  bool coin() { return gen() >> 63; }
  std::size_t weighted(std::initializer_list<unsigned> w) {  // random.choices(range(len(w)), weights=w)
    unsigned total = 0, i = 0;
    for (unsigned x : w) total += x;
    std::uint64_t r = below(total);
    for (unsigned x : w) {
      if (r < x) return i;
      r -= x, ++i;
    }
    return i - 1;
  }
};

inline constexpr std::array<std::int64_t, 14> upper_bounds{1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 32, 64, 128, 256};

// ---- the generator: fuzz_symbolic.py's random_int_expr / random_bool_expr ----
// Two differences, as in tools/sym_corpus.py: a comparison's constant is a weakint (fuzz_symbolic's
// dtypes.int constant makes tinygrad cast the other side, a node the render syntax has no words for),
// and of the two candidates for an operand only the chosen one is built (the same distribution).
class ExprGen {
 public:
  ExprGen(Rng& rng, std::vector<UOp> vars) : rng_(rng), v_(std::move(vars)) {}

  UOp int_expr(int depth = 6) {
    if (depth <= 0) return v_[rng_.below(v_.size())];
    UOp e1 = int_expr(depth - 1);
    switch (rng_.weighted({6, 4, 1})) {  // weights follow how many ops each branch has
      case 0: return unary(e1);
      case 1: return binary(e1, operand(depth - 1, e1));
      default: {
        UOp cond = bool_expr(operand(depth - 1, e1));  // in Python's order: condition, then the else side
        return cond.where(e1, operand(depth - 1, e1));
      }
    }
  }

 private:
  // a+c, a*c, a//c, a%c, max(a,c), min(a,c): arithmetic weighs more than max and min
  UOp unary(const UOp& a) {
    switch (rng_.weighted({4, 4, 4, 4, 1, 1})) {
      case 0: return a + rng_.randint(-4, 4);
      case 1: return a * rng_.randint(-4, 4);
      case 2: return a / rng_.randint(1, 9);
      case 3: return a % rng_.randint(1, 9);
      case 4: return a.maximum(a.const_like(rng_.randint(-10, 10)));
      default: return a.minimum(a.const_like(rng_.randint(-10, 10)));
    }
  }
  UOp binary(const UOp& a, const UOp& b) {
    switch (rng_.weighted({8, 1, 1, 1})) {
      case 0: return a + b;
      case 1: return a * b;
      case 2: return a.maximum(b);
      default: return a.minimum(b);
    }
  }
  // the second operand: a fresh expression, or one of the first operand's nodes that is not a bool
  UOp operand(int depth, const UOp& expr) {
    if (rng_.coin()) return int_expr(depth - 1);
    std::vector<UOp> subs;
    for (const UOp& e : expr.toposort()) if (!e.dtype().is_bool()) subs.push_back(e);
    return subs[rng_.below(subs.size())];
  }
  UOp bool_expr(const UOp& e1, int depth = 3) {
    UOp e2 = rng_.coin() ? operand(depth - 1, e1) : e1.const_like(rng_.randint(-10, 10));
    switch (rng_.below(4)) {
      case 0: return e1 < e2;
      case 1: return e1 <= e2;
      case 2: return e1 > e2;
      default: return e1 >= e2;
    }
  }
  Rng& rng_;
  std::vector<UOp> v_;
};

// one expression: three variables 0..ub, all drawn from the seed
struct Case {
  std::uint64_t seed = 0;
  std::vector<UOp> vars;
  std::array<std::int64_t, 3> ub{};
  UOp expr;
};
inline Case make_case(std::uint64_t seed) {
  Case c;
  c.seed = seed;
  Rng rng(seed);
  for (int i = 0; i < 3; ++i) {
    c.ub[i] = upper_bounds[rng.below(upper_bounds.size())];
    c.vars.push_back(UOp::variable("v" + std::to_string(i + 1), 0, c.ub[i]));
  }
  c.expr = ExprGen(rng, c.vars).int_expr(6);
  return c;
}

// ---- the evaluator: a flat program over columns of lanes ----
class Program {
 public:
  static constexpr std::size_t lanes = 256;
  enum class K : std::uint8_t { CONST, VAR, ADD, SUB, MUL, NEG, IDIV, MOD, CDIV, CMOD, MAX, XOR, AND, OR, SHL, SHR,
                                LT, NE, EQ, WHERE, MULACC, TOBOOL, TRUNC, TOUINT64, COPY };
  struct Instr {
    K k = K::COPY;
    std::uint32_t a = 0, b = 0, c = 0;
    std::int64_t imm = 0;       // a CONST's value, a VAR's index
    DType dt = dtypes::weakint;  // a truncating CAST's dtype
    std::int64_t lo = 0, hi = 0;  // vmin/vmax, clamped to int64
    UOp u;
  };

  // roots: the graphs to run (their nodes are shared); vars: the DEFINE_VARs, in column order.
  // Throws mg::Error naming an op it cannot run.
  Program(std::span<const UOp> roots, std::span<const UOp> vars) {
    std::unordered_map<const void*, std::uint32_t> at;
    for (const UOp& r : roots) {
      for (const UOp& u : r.toposort()) {
        if (at.contains(u.node())) continue;
        Instr in = compile(u, vars, at);
        at.emplace(u.node(), std::uint32_t(code_.size()));
        code_.push_back(std::move(in));
      }
      root_.push_back(at.at(r.node()));
    }
    val_.assign(code_.size() * lanes, 0);
    bad_.assign(code_.size() * lanes, 0);
    ovf_.assign(code_.size(), 0);
    for (std::size_t i = 0; i < code_.size(); ++i) if (code_[i].k == K::CONST) std::fill_n(col(i), lanes, code_[i].imm);
  }

  std::size_t size() const { return code_.size(); }
  const Instr& instr(std::size_t i) const { return code_[i]; }
  std::uint32_t root(std::size_t r) const { return root_[r]; }
  std::int64_t* col(std::size_t i) { return val_.data() + i * lanes; }
  const std::uint8_t* undefined(std::size_t i) const { return bad_.data() + i * lanes; }  // lanes that divided by 0
  bool overflowed(std::size_t i) const { return ovf_[i]; }
  bool any_overflow() const { return any_ovf_; }
  bool tracks_undefined() const { return track_; }

  // the values of the variables: lane k of column j is vars[j]'s value; then run n lanes
  void run(const std::array<const std::int64_t*, 3>& vals, std::size_t n) {
    for (std::size_t i = 0; i < code_.size(); ++i)
      if (code_[i].k == K::VAR) std::copy_n(vals[std::size_t(code_[i].imm)], n, col(i));
    track_ ? exec<true>(n) : exec<false>(n);
  }

 private:
  Instr compile(const UOp& u, std::span<const UOp> vars, const std::unordered_map<const void*, std::uint32_t>& at) {
    Instr in;
    in.u = u;
    auto s = [&](std::size_t i) { return at.at(u.src(i).node()); };
    if (u.nsrc() > 0) in.a = s(0);
    if (u.nsrc() > 1) in.b = s(1);
    if (u.nsrc() > 2) in.c = s(2);
    const DType dt = u.dtype();
    if (dt.count != 1 || !(dt.is_int() || dt.is_bool())) throw Error("fuzz evaluator: " + op_repr(u.op()) + " of dtype " + dt.repr());
    switch (u.op()) {
      case Ops::CONST: in.k = K::CONST, in.imm = u.arg().as_int(); break;
      case Ops::DEFINE_VAR: {
        in.k = K::VAR;
        auto it = std::find(vars.begin(), vars.end(), u);
        if (it == vars.end()) throw Error("fuzz evaluator: unknown variable " + u.render());
        in.imm = it - vars.begin();
        break;
      }
      case Ops::BIND: in.k = K::COPY; break;
      case Ops::ADD: in.k = K::ADD; break;
      case Ops::SUB: in.k = K::SUB; break;
      case Ops::MUL: in.k = K::MUL; break;
      case Ops::NEG:
        if (dt.is_bool()) throw Error("fuzz evaluator: NEG of a bool");
        in.k = K::NEG;
        break;
      case Ops::FLOORDIV: in.k = K::IDIV; break;
      case Ops::FLOORMOD: in.k = K::MOD; break;
      case Ops::CDIV: in.k = K::CDIV; break;
      case Ops::CMOD: in.k = K::CMOD; break;
      case Ops::MAX: in.k = K::MAX; break;
      case Ops::XOR: in.k = K::XOR; break;
      case Ops::AND: in.k = K::AND; break;
      case Ops::OR: in.k = K::OR; break;
      case Ops::SHL: in.k = K::SHL; break;
      case Ops::SHR: in.k = K::SHR; break;
      case Ops::CMPLT: in.k = K::LT; break;
      case Ops::CMPNE: in.k = K::NE; break;
      case Ops::CMPEQ: in.k = K::EQ; break;
      case Ops::WHERE: in.k = K::WHERE; break;
      case Ops::MULACC: in.k = K::MULACC; break;
      case Ops::CAST:
        if (dt.is_bool()) in.k = K::TOBOOL;
        else if (dt.scalar() == dtypes::weakint || dt.scalar() == dtypes::int64) in.k = K::COPY;
        else if (dt.scalar() == dtypes::uint64) in.k = K::TOUINT64;
        else in.k = K::TRUNC, in.dt = dt;
        break;
      default: throw Error("fuzz evaluator: no rule for " + op_repr(u.op()) + " (" + u.render() + ")");
    }
    // division by a value that may be 0, or a shift by one that may be negative: track undefined lanes
    if ((in.k == K::IDIV || in.k == K::MOD || in.k == K::CDIV || in.k == K::CMOD) &&
        !(u.src(1).op() == Ops::CONST && u.src(1).arg().as_int() != 0))
      track_ = true;
    if ((in.k == K::SHL || in.k == K::SHR) && !(u.src(1).op() == Ops::CONST && u.src(1).arg().as_int() >= 0)) track_ = true;
    in.lo = u.vmin().clamped_int64(), in.hi = u.vmax().clamped_int64();
    return in;
  }


  template <bool Track> void exec(std::size_t n) {
    for (std::size_t i = 0; i < code_.size(); ++i) {
      const Instr& in = code_[i];
      if (in.k == K::CONST || in.k == K::VAR) continue;
      std::int64_t* o = col(i);
      const std::int64_t *a = col(in.a), *b = col(in.b), *c = col(in.c);
      std::uint8_t* ob = bad_.data() + i * lanes;
      const std::uint8_t *ab = bad_.data() + in.a * lanes, *bb = bad_.data() + in.b * lanes, *cb = bad_.data() + in.c * lanes;
      const std::size_t nsrc = in.u.nsrc();
      bool ovf = false;
      // a lane whose divisor is 0 (or shift count negative) is undefined; its value is 0
      auto undefined_if = [&](std::size_t k, bool u) {
        if constexpr (Track) ob[k] |= std::uint8_t(u);
        return u;
      };
      if constexpr (Track) {
        if (in.k == K::WHERE)
          for (std::size_t k = 0; k < n; ++k) ob[k] = ab[k] | (a[k] ? bb[k] : cb[k]);
        else
          for (std::size_t k = 0; k < n; ++k) ob[k] = ab[k] | (nsrc > 1 ? bb[k] : 0) | (nsrc > 2 ? cb[k] : 0);
      }
      switch (in.k) {
        case K::CONST: case K::VAR: break;
        case K::COPY: std::copy_n(a, n, o); break;
        case K::ADD: for (std::size_t k = 0; k < n; ++k) ovf |= __builtin_add_overflow(a[k], b[k], &o[k]); break;
        case K::SUB: for (std::size_t k = 0; k < n; ++k) ovf |= __builtin_sub_overflow(a[k], b[k], &o[k]); break;
        case K::MUL: for (std::size_t k = 0; k < n; ++k) ovf |= __builtin_mul_overflow(a[k], b[k], &o[k]); break;
        case K::NEG: for (std::size_t k = 0; k < n; ++k) ovf |= __builtin_sub_overflow(std::int64_t(0), a[k], &o[k]); break;
        case K::MULACC:
          for (std::size_t k = 0; k < n; ++k) {
            std::int64_t t;
            ovf |= __builtin_mul_overflow(a[k], b[k], &t);
            ovf |= __builtin_add_overflow(t, c[k], &o[k]);
          }
          break;
        case K::IDIV: case K::MOD: case K::CDIV: case K::CMOD:
          for (std::size_t k = 0; k < n; ++k) {
            if (undefined_if(k, b[k] == 0)) { o[k] = 0; continue; }
            if (a[k] == INT64_MIN && b[k] == -1) { ovf = true, o[k] = 0; continue; }
            switch (in.k) {
              case K::IDIV: o[k] = mg::detail::py_floordiv(a[k], b[k]); break;
              case K::MOD: o[k] = mg::detail::py_floormod(a[k], b[k]); break;
              case K::CDIV: o[k] = a[k] / b[k]; break;
              default: o[k] = a[k] % b[k]; break;
            }
          }
          break;
        case K::MAX: for (std::size_t k = 0; k < n; ++k) o[k] = a[k] < b[k] ? b[k] : a[k]; break;
        case K::XOR: for (std::size_t k = 0; k < n; ++k) o[k] = a[k] ^ b[k]; break;
        case K::AND: for (std::size_t k = 0; k < n; ++k) o[k] = a[k] & b[k]; break;
        case K::OR: for (std::size_t k = 0; k < n; ++k) o[k] = a[k] | b[k]; break;
        case K::SHL:
          for (std::size_t k = 0; k < n; ++k) {
            if (undefined_if(k, b[k] < 0)) { o[k] = 0; continue; }
            if (b[k] >= 64) { ovf |= a[k] != 0, o[k] = 0; continue; }
            const SymVal::i128 r = SymVal::i128(a[k]) * (SymVal::i128(1) << b[k]);
            ovf |= r < SymVal::i128(INT64_MIN) || r > SymVal::i128(INT64_MAX);
            o[k] = std::int64_t(r);
          }
          break;
        case K::SHR:
          for (std::size_t k = 0; k < n; ++k) {
            if (undefined_if(k, b[k] < 0)) { o[k] = 0; continue; }
            o[k] = b[k] >= 64 ? (a[k] < 0 ? -1 : 0) : a[k] >> b[k];
          }
          break;
        case K::LT: for (std::size_t k = 0; k < n; ++k) o[k] = a[k] < b[k]; break;
        case K::NE: for (std::size_t k = 0; k < n; ++k) o[k] = a[k] != b[k]; break;
        case K::EQ: for (std::size_t k = 0; k < n; ++k) o[k] = a[k] == b[k]; break;
        case K::WHERE: for (std::size_t k = 0; k < n; ++k) o[k] = a[k] ? b[k] : c[k]; break;
        case K::TOBOOL: for (std::size_t k = 0; k < n; ++k) o[k] = a[k] != 0; break;
        case K::TRUNC: for (std::size_t k = 0; k < n; ++k) o[k] = truncate_int(in.dt, a[k]); break;
        case K::TOUINT64: for (std::size_t k = 0; k < n; ++k) ovf |= a[k] < 0, o[k] = a[k]; break;  // 2^64+a leaves int64
      }
      if (ovf) ovf_[i] = 1, any_ovf_ = true;
    }
  }

  std::vector<Instr> code_;
  std::vector<std::uint32_t> root_;
  std::vector<std::int64_t> val_;
  std::vector<std::uint8_t> bad_, ovf_;
  bool track_ = false, any_ovf_ = false;
};

// ---- checking one case ----
inline std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\';
    o += ch;
  }
  return o + "\"";
}
// the case as one line of mg-sym input
inline std::string mg_sym_input(const Case& c) {
  std::string o = "{\"vars\": [";
  for (std::size_t i = 0; i < c.vars.size(); ++i)
    o += (i ? ", [" : "[") + json_str(c.vars[i].expr()) + ", 0, " + std::to_string(c.ub[i]) + "]";
  return o + "], \"expr\": " + json_str(c.expr.render()) + "}";
}

struct Outcome {
  enum Kind { ok, skipped, failed } kind = ok;
  std::string why;             // failed: the report; skipped: the reason
  std::uint64_t points = 0;    // points evaluated
  std::size_t nodes = 0, simplified_nodes = 0;
  double simplify_s = 0;
};

// simplifier: what is checked (mg::simplify unless given; tests pass a broken one to see it caught)
inline Outcome check_case(const Case& c, int evaluate_samples = 3, const std::function<UOp(const UOp&)>& simplifier = {}) {
  using Clock = std::chrono::steady_clock;
  Outcome out;
  std::string simp_render = "(simplify threw)";
  const std::array<std::int64_t, 3> n{c.ub[0] + 1, c.ub[1] + 1, c.ub[2] + 1};
  std::array<std::array<std::int64_t, Program::lanes>, 3> vals{};
  auto point = [&](std::size_t lane) {
    std::string s;
    for (std::size_t j = 0; j < 3; ++j) s += (j ? ", " : "") + c.vars[j].expr() + "=" + std::to_string(vals[j][lane]);
    return s;
  };
  auto fail = [&](const std::string& what, const std::string& detail) {
    out.kind = Outcome::failed;
    out.why = "fuzz_symbolic seed " + std::to_string(c.seed) + ": " + what + "\n  mg-sym input: " + mg_sym_input(c) +
              "\n  simplified:   " + simp_render + "\n  " + detail + "\n  rerun: fuzz_symbolic --seed " +
              std::to_string(c.seed) + " --count 1\n";
    return out;
  };
  UOp s;
  try {
    auto t0 = Clock::now();
    s = simplifier ? simplifier(c.expr) : simplify(c.expr);
    out.simplify_s = std::chrono::duration<double>(Clock::now() - t0).count();
    simp_render = s.render();
  } catch (const std::exception& e) {
    return fail("simplify threw", std::string("error: ") + e.what());
  }
  out.nodes = c.expr.toposort().size(), out.simplified_nodes = s.toposort().size();
  std::optional<Program> prog;
  try {
    const std::array<UOp, 2> roots{c.expr, s};
    prog.emplace(roots, c.vars);
  } catch (const std::exception& e) {
    return fail("cannot evaluate", std::string("error: ") + e.what());
  }
  Program& p = *prog;
  const std::uint32_t re = p.root(0), rs = p.root(1);
  const std::array<const std::int64_t*, 3> cols{vals[0].data(), vals[1].data(), vals[2].data()};
  // an overflow in the original skips the case; one only in the simplified graph is counted apart
  // (the simplifier made a value the original never had). The original's nodes are instructions 0..re.
  auto overflow_skip = [&] {
    bool orig = false;
    for (std::size_t i = 0; i <= re; ++i) orig |= p.overflowed(i);
    out.kind = Outcome::skipped;
    out.why = orig ? "int64 overflow" : "int64 overflow in the simplified graph only";
    return out;
  };
  auto describe_node = [&](std::size_t i) {
    const auto& in = p.instr(i);
    return in.u.render() + " (vmin " + in.u.vmin().repr() + ", vmax " + in.u.vmax().repr() + ")";
  };

  // every point, lanes at a time
  std::array<std::int64_t, 3> x{0, 0, 0};
  const std::uint64_t total = std::uint64_t(n[0] * n[1] * n[2]);
  for (std::uint64_t done = 0; done < total;) {
    const std::size_t m = std::size_t(std::min<std::uint64_t>(Program::lanes, total - done));
    for (std::size_t k = 0; k < m; ++k) {
      for (std::size_t j = 0; j < 3; ++j) vals[j][k] = x[j];
      for (std::size_t j = 0; j < 3 && ++x[j] == n[j]; ++j) x[j] = 0;
    }
    p.run(cols, m);
    done += m;
    if (p.any_overflow()) return overflow_skip();
    const std::int64_t *ve = p.col(re), *vs = p.col(rs);
    const std::uint8_t *ue = p.undefined(re), *us = p.undefined(rs);
    for (std::size_t k = 0; k < m; ++k) {
      if (p.tracks_undefined() && ue[k]) { out.kind = Outcome::skipped, out.why = "the expression divides by 0"; return out; }
      if (p.tracks_undefined() && us[k])
        return fail("the simplified expression divides by zero", "at " + point(k) + ": expr = " + std::to_string(ve[k]));
      if (ve[k] != vs[k])
        return fail("simplified value differs", "at " + point(k) + ": expr = " + std::to_string(ve[k]) + ", simplified = " + std::to_string(vs[k]));
    }
    // every node's value within its vmin/vmax (lanes where it is undefined excepted); sources come first,
    // so the first node out of bounds is the one whose bounds are wrong
    for (std::size_t i = 0; i < p.size(); ++i) {
      const auto& in = p.instr(i);
      const std::int64_t* v = p.col(i);
      const std::uint8_t* ud = p.undefined(i);
      bool bad = false;
      for (std::size_t k = 0; k < m; ++k) bad |= (v[k] < in.lo) | (v[k] > in.hi);
      if (!bad) continue;
      for (std::size_t k = 0; k < m; ++k) {
        if ((v[k] >= in.lo && v[k] <= in.hi) || (p.tracks_undefined() && ud[k])) continue;
        const std::string what = i == re ? "value outside the expression's vmin/vmax"
                               : i == rs ? "value outside the simplified expression's vmin/vmax"
                                         : "a node's value outside its vmin/vmax";
        return fail(what, "at " + point(k) + ": " + describe_node(i) + " = " + std::to_string(v[k]));
      }
    }
  }
  out.points = total;

  // the fast evaluator against mg::evaluate, on the corners and a few random points
  Rng rng(c.seed ^ 0x5eed5eed5eedull);
  for (int t = 0; t < evaluate_samples; ++t) {
    for (std::size_t j = 0; j < 3; ++j) vals[j][0] = t == 0 ? 0 : t == 1 ? c.ub[j] : rng.randint(0, c.ub[j]);
    p.run(cols, 1);
    bool undefined = false;
    for (std::size_t i = 0; i < p.size(); ++i) undefined |= p.tracks_undefined() && p.undefined(i)[0];
    if (undefined) continue;  // mg::evaluate may evaluate both sides of a WHERE
    std::map<std::string, Arg> vars;
    for (std::size_t j = 0; j < 3; ++j) vars.emplace(c.vars[j].expr(), Arg(vals[j][0]));
    for (std::uint32_t r : {re, rs}) {
      const std::int64_t fast = p.col(r)[0];
      try {
        const Arg ref = evaluate(p.instr(r).u, vars);
        if (!ref.is_number() || ref.is_float() || ref.as_int() != fast)
          return fail("the fuzz evaluator and mg::evaluate disagree",
                      "at " + point(0) + ": " + p.instr(r).u.render() + " = " + std::to_string(fast) + " here, " + ref.repr() + " by mg::evaluate");
      } catch (const std::exception& e) {
        return fail("mg::evaluate threw", "at " + point(0) + ": " + p.instr(r).u.render() + " = " + std::to_string(fast) + " here; " + e.what());
      }
    }
  }
  return out;
}

// ---- running many ----
struct Stats {
  std::uint64_t cases = 0, ok = 0, skipped = 0, failed = 0, points = 0, nodes = 0, simplified_nodes = 0;
  double simplify_s = 0;
  std::map<std::string, std::uint64_t> skip_reasons;
  std::vector<std::string> failures;

  void add(const Outcome& o) {
    ++cases, points += o.points, nodes += o.nodes, simplified_nodes += o.simplified_nodes, simplify_s += o.simplify_s;
    if (o.kind == Outcome::ok) ++ok;
    if (o.kind == Outcome::skipped) ++skipped, ++skip_reasons[o.why];
    if (o.kind == Outcome::failed) ++failed, failures.push_back(o.why);
  }
  std::string summary() const {
    char buf[320];
    std::snprintf(buf, sizeof buf, "%llu cases: %llu ok, %llu skipped, %llu failed; %.3g points; nodes %llu -> %llu after simplify (%.2f s in simplify)",
                  (unsigned long long)cases, (unsigned long long)ok, (unsigned long long)skipped, (unsigned long long)failed,
                  double(points), (unsigned long long)nodes, (unsigned long long)simplified_nodes, simplify_s);
    std::string s = buf;
    for (const auto& [why, k] : skip_reasons) s += "; " + std::to_string(k) + " skipped: " + why;
    return s;
  }
};

}  // namespace mg::fuzz
