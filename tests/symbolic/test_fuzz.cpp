// simplify on random expressions (tinygrad's fuzz_symbolic), checked on every point of the variables'
// ranges; tools/fuzz_symbolic runs the same check on as many random seeds as you like.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>

#include "fuzz_symbolic.hpp"

using namespace mg;

// Seeds 0..n-1, about 15 s in an optimized build on this machine; a build without optimization or
// with a sanitizer runs a tenth of them.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MG_FUZZ_SANITIZED 1
#endif
#endif
#if defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && !defined(MG_FUZZ_SANITIZED)
static constexpr std::uint64_t fuzz_seeds = 6000;
#else
static constexpr std::uint64_t fuzz_seeds = 600;
#endif

TEST_CASE("fuzz evaluator: Python semantics, against hand-computed values", "[fuzz]") {
  UOp a = UOp::variable("v1", 0, 9), b = UOp::variable("v2", 0, 9), c = UOp::variable("v3", 0, 9);
  const std::vector<UOp> vars{a, b, c};
  auto at = [&](const UOp& e, std::int64_t x, std::int64_t y, std::int64_t z) {
    fuzz::Program p(std::span<const UOp>(&e, 1), vars);
    p.run({&x, &y, &z}, 1);
    REQUIRE_FALSE(p.any_overflow());
    return p.col(p.root(0))[0];
  };
  CHECK(at((a - 7) / 2, 0, 0, 0) == -4);    // floor, not C's truncation
  CHECK(at((a - 7) % 3, 0, 0, 0) == 2);     // the sign of the divisor
  CHECK(at(a % (b - 5), 7, 2, 0) == -2);
  CHECK(at((a - 7).cdiv(a.const_like(2)), 0, 0, 0) == -3);
  CHECK(at((a - 7).cmod(a.const_like(3)), 0, 0, 0) == -1);
  CHECK(at(a.minimum(b), 4, 2, 0) == 2);
  CHECK(at((a <= b).where(c, a + b), 3, 3, 5) == 5);
  CHECK(at((a >= b).where(c, a + b), 2, 3, 5) == 5);
  CHECK(at((a < b).cast(dtypes::weakint) * 3, 1, 2, 0) == 3);
  CHECK(at((a * 1000000000 + 2147483647).cast(dtypes::int32), 1, 0, 0) == -1147483649);  // wraps like int32
  // int64 overflow is detected, not wrapped
  UOp big = a * 3037000500ll * 3037000500ll;
  fuzz::Program p(std::span<const UOp>(&big, 1), vars);
  std::int64_t x = 1, y = 0, z = 0;
  p.run({&x, &y, &z}, 1);
  CHECK(p.any_overflow());
  // a division by 0 in the branch a WHERE does not take leaves the result defined
  UOp guarded = (b < 1).where(a.const_like(0), a / b);
  fuzz::Program g(std::span<const UOp>(&guarded, 1), vars);
  REQUIRE(g.tracks_undefined());
  std::int64_t x0 = 5, y0 = 0, z0 = 0;
  g.run({&x0, &y0, &z0}, 1);
  CHECK(g.col(g.root(0))[0] == 0);
  CHECK_FALSE(g.undefined(g.root(0))[0]);
}

TEST_CASE("fuzz generator: deterministic per seed, renders mg-sym input", "[fuzz]") {
  fuzz::Case c1 = fuzz::make_case(42), c2 = fuzz::make_case(42), c3 = fuzz::make_case(43);
  CHECK(c1.expr == c2.expr);
  CHECK(c1.ub == c2.ub);
  CHECK_FALSE(c1.expr == c3.expr);
  const std::string line = fuzz::mg_sym_input(c1);
  CHECK(line.starts_with("{\"vars\": [[\"v1\", 0, " + std::to_string(c1.ub[0]) + "], "));
  CHECK(line.find("\"expr\": \"" + c1.expr.render() + "\"}") != std::string::npos);
}

TEST_CASE("fuzz checker: a simplifier wrong on one point is caught there", "[fuzz]") {
  fuzz::Case c = fuzz::make_case(7);
  // right everywhere but at the corner where every variable is at its upper bound
  auto off_by_one_at_corner = [&](const UOp& u) {
    UOp s = simplify(u);
    UOp corner = c.vars[0].eq(c.ub[0]) & c.vars[1].eq(c.ub[1]) & c.vars[2].eq(c.ub[2]);
    return corner.where(s + 1, s);
  };
  fuzz::Outcome o = fuzz::check_case(c, 3, off_by_one_at_corner);
  REQUIRE(o.kind == fuzz::Outcome::failed);
  INFO(o.why);
  CHECK(o.why.find("simplified value differs") != std::string::npos);
  CHECK(o.why.find("at v1=" + std::to_string(c.ub[0]) + ", v2=" + std::to_string(c.ub[1]) + ", v3=" + std::to_string(c.ub[2])) != std::string::npos);
  CHECK(o.why.find(fuzz::mg_sym_input(c)) != std::string::npos);
  CHECK(fuzz::check_case(c).kind == fuzz::Outcome::ok);
}

TEST_CASE("fuzz_symbolic: simplify agrees with the expression on every point", "[fuzz]") {
  const auto t0 = std::chrono::steady_clock::now();
  fuzz::Stats stats;
  for (std::uint64_t seed = 0; seed < fuzz_seeds; ++seed) {
    fuzz::Outcome o = fuzz::check_case(fuzz::make_case(seed));
    if (o.kind == fuzz::Outcome::failed && stats.failed < 5) UNSCOPED_INFO(o.why);  // the first few
    stats.add(o);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("fuzz_symbolic: %s; %.1f s\n", stats.summary().c_str(), secs);
  CHECK(stats.failed == 0);
  CHECK(stats.skipped * 20 <= stats.cases);  // at most 5% of the cases leave int64
}
