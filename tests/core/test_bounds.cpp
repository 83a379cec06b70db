// Tests of core/symval.hpp, core/bounds.hpp and core/algebra.hpp: SymVal arithmetic at the edges,
// vmin/vmax caching, deep graphs, threads, and the symbolic algebra helpers. Expected values of the
// bounds and helpers were printed by tinygrad (the reference commit); tests/symbolic/test_vmin_vmax.cpp
// ports tinygrad's own vmin/vmax tests.
#include <catch2/catch.hpp>

#include <limits>
#include <thread>
#include <vector>

#include <metagrad/metagrad.hpp>

using namespace mg;

TEST_CASE("symval: Python int semantics, infinite beyond 2^125", "[bounds]") {
  CHECK(floordiv(SymVal(-7), SymVal(2)) == -4);
  CHECK(floormod(SymVal(-7), SymVal(2)) == 1);
  CHECK(cdiv(SymVal(-7), SymVal(2)) == -3);
  CHECK(cmod(SymVal(-7), SymVal(2)) == -1);
  CHECK(shl(SymVal(3), SymVal(4)) == 48);
  CHECK(shr(SymVal(-17), SymVal(2)) == -5);
  CHECK(bitnot(SymVal(5)) == -6);
  SymVal big = SymVal(std::int64_t(1) << 62) * SymVal(std::int64_t(1) << 62);  // 2^124: exact
  CHECK(big.repr() == "21267647932558653966460912964485513216");
  CHECK(!big.is_inf());
  CHECK((big * SymVal(4)).is_inf());
  CHECK((big * SymVal(-4)) == SymVal::neg_inf());
  CHECK((SymVal::pos_inf() + SymVal(-5)) == SymVal::pos_inf());
  CHECK(SymVal::pos_inf() * SymVal(0) == 0);
  CHECK(SymVal(1.5) > SymVal(1));
  CHECK(SymVal(true) == 1);
  CHECK(min(SymVal(-std::numeric_limits<double>::infinity()), SymVal(-3)).is_float());
  CHECK(SymVal(7).as_int() == 7);
  CHECK_THROWS_WITH(big.as_int(), Catch::Contains("is not an int64"));
  CHECK_THROWS_WITH(floordiv(SymVal(1), SymVal(0)), Catch::Contains("division by zero"));
}

TEST_CASE("symval: int64 operands at int64's edges give Python's results", "[bounds]") {
  // * // % take an int64 fast path when both operands fit; the results must still be exact beyond it
  const SymVal lo(std::numeric_limits<std::int64_t>::min()), hi(std::numeric_limits<std::int64_t>::max());
  CHECK((lo * SymVal(-1)).repr() == "9223372036854775808");
  CHECK((hi * SymVal(2)).repr() == "18446744073709551614");
  CHECK((SymVal(std::int64_t(1) << 32) * SymVal(std::int64_t(1) << 32)).repr() == "18446744073709551616");
  CHECK(floordiv(lo, SymVal(-1)).repr() == "9223372036854775808");
  CHECK(floormod(lo, SymVal(-1)) == 0);
  CHECK(floordiv(lo, SymVal(3)).repr() == "-3074457345618258603");
  CHECK(floormod(lo, SymVal(3)) == 1);
  CHECK(floormod(lo + SymVal(1), SymVal(3)) == 2);  // (a//3)*3 is below int64's minimum here
  CHECK(floordiv(hi, SymVal(-7)).repr() == "-1317624576693539401");
  CHECK(floormod(hi, SymVal(-7)) == 0);
  CHECK(floordiv(lo, SymVal(7)).repr() == "-1317624576693539402");
  CHECK(floormod(lo, SymVal(7)) == 6);
  CHECK(floormod(lo + SymVal(1), SymVal(-(std::int64_t(1) << 62))).repr() == "-4611686018427387903");
  CHECK(detail::py_floormod<std::int64_t>(std::numeric_limits<std::int64_t>::min() + 1, 3) == 2);
  // against the 128-bit arithmetic on a spread of values
  const std::int64_t vals[] = {0, 1, -1, 2, -3, 7, -7, 1000003, -999999937, std::int64_t(1) << 40, -(std::int64_t(1) << 40) + 5,
                               std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min() + 1};
  for (std::int64_t a : vals)
    for (std::int64_t b : vals) {
      const __int128 x = a, y = b;
      CHECK(SymVal(a) * SymVal(b) == SymVal::from_i128(x * y));  // beyond 2^125: infinite
      if (b == 0) continue;
      CHECK(floordiv(SymVal(a), SymVal(b)).as_i128() == detail::py_floordiv(x, y));
      CHECK(floormod(SymVal(a), SymVal(b)).as_i128() == detail::py_floormod(x, y));
    }
}

TEST_CASE("bounds: tinygrad's vmin/vmax", "[bounds]") {
  UOp a = UOp::variable("a", 0, 8), b = UOp::variable("b", -3, 5);
  auto mm = [](const UOp& u) { return std::pair{u.vmin().repr(), u.vmax().repr()}; };
  CHECK(mm(a * 4 / 2) == std::pair<std::string, std::string>{"0", "16"});
  CHECK(mm(a - b) == std::pair<std::string, std::string>{"-5", "11"});
  CHECK(mm((a + 3) % 4) == std::pair<std::string, std::string>{"0", "3"});
  CHECK(mm(a < 4) == std::pair<std::string, std::string>{"0", "1"});
  CHECK(mm(b.cmod(b.const_like(3))) == std::pair<std::string, std::string>{"-2", "2"});
  CHECK(mm(a.maximum(b)) == std::pair<std::string, std::string>{"0", "8"});
  CHECK(mm(a.cast(dtypes::float32)) == std::pair<std::string, std::string>{"0", "8"});
  CHECK(mm(a.cast(dtypes::int8) * 100) == std::pair<std::string, std::string>{"0", "800"});
  CHECK(mm(UOp::range(10, 0)) == std::pair<std::string, std::string>{"0", "9"});
  // unknown weakint values are unbounded; an int32 is bounded by its dtype
  UOp x = UOp(Ops::PARAM, dtypes::weakint);
  CHECK(x.vmin().is_inf());
  CHECK(mm(UOp(Ops::PARAM, dtypes::int32)) == std::pair<std::string, std::string>{"-2147483648", "2147483647"});
  CHECK(mm(UOp(Ops::PARAM, dtypes::uint64)) == std::pair<std::string, std::string>{"0", "18446744073709551615"});
  // a product of 22 factors in [0, 10] (tinygrad: 10**22) is exact here too
  UOp p = UOp::variable("p", 0, 10), prod = p;
  for (int i = 0; i < 21; ++i) prod = prod * p;
  CHECK(prod.vmax().repr() == "10000000000000000000000");
  CHECK(a.overflows(dtypes::int8) == false);
  CHECK(prod.overflows(dtypes::int64));
}

TEST_CASE("bounds: the int64 path of a binary op agrees with the SymVal arithmetic", "[bounds]") {
  // compute_bounds tries int64_binary_bounds first (index math's usual case); wherever it answers, its
  // answer must be symval_binary_bounds', on every pair of ranges from these edges
  const std::int64_t big = std::numeric_limits<std::int64_t>::max(), small = std::numeric_limits<std::int64_t>::min();
  const std::vector<std::int64_t> v{0, 1, -1, 2, -2, 3, -5, 8, 100, -128, std::int64_t(1) << 32, big, small, big - 1, small + 1};
  std::size_t answered = 0;
  for (Ops op : {Ops::ADD, Ops::MUL, Ops::FLOORDIV, Ops::FLOORMOD, Ops::MAX, Ops::CMPLT, Ops::CMPNE, Ops::AND, Ops::SUB})
    for (std::int64_t x0 : v)
      for (std::int64_t x1 : v)
        for (std::int64_t y0 : v)
          for (std::int64_t y1 : v) {
            if (x1 < x0 && op != Ops::FLOORDIV && op != Ops::FLOORMOD) continue;  // (an empty range: only // and % look)
            if (y1 < y0) continue;
            const auto fast = detail::int64_binary_bounds(op, x0, x1, y0, y1);
            if (!fast) continue;
            ++answered;
            const auto slow = detail::symval_binary_bounds(op, dtypes::weakint, x0, x1, y0, y1);
            INFO(op_repr(op) << " [" << x0 << ", " << x1 << "] [" << y0 << ", " << y1 << "]");
            REQUIRE(slow.has_value());
            CHECK(fast->first == slow->first);
            CHECK(fast->second == slow->second);
          }
  CHECK(answered > 50000);
}

TEST_CASE("bounds: computed once, iteratively, from any thread", "[bounds]") {
  UOp a = UOp::variable("a", 0, 8);
  UOp c = a;
  for (int i = 0; i < 100000; ++i) c = c + 1;  // a 100,000-deep chain: no recursion
  CHECK(c.vmax() == 100008);
  CHECK(&c.min_max() == &c.min_max());  // cached in the node
  std::vector<std::thread> ts;
  std::vector<std::int64_t> got(4);
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      UOp d = UOp::variable("d", 0, 3);
      for (int i = 0; i < 2000; ++i) d = d * 2 + 1;
      got[std::size_t(t)] = (d % 1000).vmax().as_int();
    });
  for (auto& t : ts) t.join();
  for (auto g : got) CHECK(g == 999);
}

TEST_CASE("algebra: split_uop, const_factor, divides, divide_exact, gcd, pop_const", "[bounds]") {
  UOp a = UOp::variable("a", 0, 8), b = UOp::variable("b", 0, 8);
  auto t = a * 3 + b * 6 + 9;
  CHECK(t.split_uop(Ops::ADD).size() == 3);
  CHECK(t.const_factor() == 3);
  CHECK(t.divides(3)->render() == "(a*1+b*2+3)");
  CHECK(!t.divides(2));
  std::vector<UOp> us{a * b * 6, a * 4 * b};
  CHECK(UOp::gcd(us).render() == "(1*a*b*1)");  // tinygrad: math.prod([a, b, 1]) starts from int 1
  CHECK((a * b * 6).divide_exact(a * 3)->render() == "(2*b)");
  CHECK(!(a * 3).divide_exact(b));
  auto [x, c] = (a + 5).pop_const();
  CHECK(x == a);
  CHECK(c.as_int() == 5);
  CHECK(a.pop_const(Ops::MUL).second.as_int() == 1);
  std::vector<UOp> terms{a, b, a};
  CHECK(UOp::usum(terms).render() == "(a+b+a)");
  CHECK_THROWS_WITH(UOp::uprod(std::span<const UOp>{}), Catch::Contains("no operands"));
}
