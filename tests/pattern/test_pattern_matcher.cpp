// Port of tinygrad test/null/test_pattern_matcher.py: every test, same inputs, same outcomes.
// Where tinygrad's callback returns True, ours returns a tagged node (x.rtag()) or a bool CONST.
// Skipped: _assert_eq_upat (a helper comparing UPat internals, not a test; our patterns are types).
// test_match_sz_0 is skipped in tinygrad only because Python pattern matchers reject closures;
// C++ callbacks may capture, so it is ported here.
#include <catch2/catch.hpp>

#include <optional>
#include <vector>

#include <metagrad/metagrad.hpp>

using namespace mg;

namespace {
// tinygrad's `lambda: True`: a value the test can see came back
UOp yes() { return UOp::const_(dtypes::bool_, true); }
}  // namespace

TEST_CASE("pattern_matcher: simple_match", "[pattern_matcher]") {
  auto matcher = rules(rule(op<Ops::CONST>.named<"x">().dtype(dtypes::float32), [](UOp x) { return x.rtag(); }));
  UOp c1 = UOp::const_(dtypes::float32, 1.0), c2 = UOp::const_(dtypes::int32, 1);
  REQUIRE(matcher.rewrite(c1) == c1.rtag());
  REQUIRE(matcher.rewrite(c2) == std::nullopt);
}

TEST_CASE("pattern_matcher: upat_any", "[pattern_matcher]") {
  // names never bound by the alternative that matched arrive as null UOps (tinygrad's None)
  auto matcher = rules(rule(var<"a"> + any_of(var<"x">, var<"y">, var<"z">), [](UOp a, UOp x, UOp y, UOp z) {
    (void)x, (void)z;
    return y ? (a + y).rtag() : UOp{};
  }));
  UOp v1 = UOp::variable("a", 0, 10), v2 = UOp::variable("b", 0, 10);
  UOp c1 = v1 + v2;
  REQUIRE(matcher.rewrite(c1) == c1.rtag());
}

TEST_CASE("pattern_matcher: minimum_len", "[pattern_matcher]") {
  auto matcher = rules(rule(op<Ops::NOOP>(op<Ops::NOOP>, op<Ops::NOOP>, etc), [] { return yes(); }));
  UOp n = UOp(Ops::NOOP);
  REQUIRE(matcher.rewrite(UOp(Ops::NOOP, dtypes::void_, {n, n, n})) == yes());
  REQUIRE(matcher.rewrite(UOp(Ops::NOOP, dtypes::void_, {n, n})) == yes());
  REQUIRE(matcher.rewrite(UOp(Ops::NOOP, dtypes::void_, {n})) == std::nullopt);
}

TEST_CASE("pattern_matcher: match_sz_0", "[pattern_matcher]") {
  int match_cnt = 0;
  auto matcher = rules(rule(op<Ops::CONST>().named<"x">(), [&match_cnt](UOp x) {
    ++match_cnt;
    REQUIRE(x.nsrc() == 0);
    return UOp(Ops::CONST, dtypes::void_, {UOp(Ops::CONST)});
  }));
  UOp c1 = UOp(Ops::CONST, dtypes::float32, {}, 1.0);
  // the second rewrite must not match: the result has a source
  c1 = matcher.rewrite(c1).value();
  REQUIRE(matcher.rewrite(c1) == std::nullopt);
  REQUIRE(match_cnt == 1);
}

TEST_CASE("pattern_matcher: match_sz_0_ctx", "[pattern_matcher]") {
  auto matcher = rules(rule(op<Ops::CONST>().named<"x">(), [](std::vector<bool>& ctx, UOp x) {
    ctx.push_back(true);
    REQUIRE(x.nsrc() == 0);
    return x.replace({.src = std::vector<UOp>{UOp(Ops::DEVICE, dtypes::void_, {}, "blah")}});
  }));
  UOp c1 = UOp::const_(dtypes::float32, 1.0);
  std::vector<bool> ctx;
  // the second rewrite must not match
  c1 = matcher.rewrite(c1, &ctx).value();
  REQUIRE(c1.nsrc() == 1);
  REQUIRE(c1.src(0).arg().as_str() == "blah");
  REQUIRE(matcher.rewrite(c1, &ctx) == std::nullopt);
  REQUIRE(ctx.size() == 1);
}

TEST_CASE("pattern_matcher: uop", "[pattern_matcher]") {
  auto matcher = rules(rule(op<Ops::CONST>.named<"x">(), [](UOp x) { return x.rtag(); }));
  UOp c1 = UOp::const_(dtypes::float32, 1.0);
  UOp c2 = UOp(Ops::ADD, dtypes::float32, {c1, c1});
  REQUIRE(matcher.rewrite(c1) == c1.rtag());
  REQUIRE(matcher.rewrite(c2) == std::nullopt);
}

TEST_CASE("pattern_matcher: uop_set", "[pattern_matcher]") {
  auto matcher = rules(rule(op<Ops::CONST, Ops::CAST>.named<"x">(), [](UOp x) { return x.rtag(); }));
  UOp c1 = UOp::const_(dtypes::bool_, false);
  UOp c2 = UOp(Ops::CAST, dtypes::int32, {c1});
  UOp c3 = UOp::const_(dtypes::float32, 1.0);
  UOp c4 = UOp(Ops::ADD, dtypes::float32, {c3, c3});
  REQUIRE(matcher.rewrite(c1) == c1.rtag());
  REQUIRE(matcher.rewrite(c2) == c2.rtag());
  REQUIRE(matcher.rewrite(c4) == std::nullopt);
}

TEST_CASE("pattern_matcher: arg", "[pattern_matcher]") {
  auto matcher = rules(
      rule(op<Ops::CONST>.arg(0).named<"x">(), [](UOp x) { return x.rtag(); }),
      rule(op<Ops::CONST>.arg(false).named<"x">(), [](UOp x) { return x.rtag(); }),
      rule(op<Ops::MAX>.named<"x">(), [](UOp x) { return x.rtag(); }));
  UOp c1 = UOp::const_(dtypes::float32, 0.0);
  UOp c2 = UOp::const_(dtypes::bool_, false);
  UOp c3 = UOp(Ops::MAX, dtypes::float32, {c1, c1});
  UOp c4 = UOp(Ops::MUL, dtypes::float32, {c1, c1});
  UOp c5 = UOp::const_(dtypes::int32, -1);
  REQUIRE(matcher.rewrite(c1) == c1.rtag());  // 0.0 == 0, as in Python
  REQUIRE(matcher.rewrite(c2) == c2.rtag());
  REQUIRE(matcher.rewrite(c3) == c3.rtag());
  REQUIRE(matcher.rewrite(c4) == std::nullopt);
  REQUIRE(matcher.rewrite(c5) == std::nullopt);
}

TEST_CASE("pattern_matcher: filter_arg", "[pattern_matcher]") {
  auto matcher = rules(rule(op<Ops::MUL>(any_order(op<Ops::CONST>.named<"c">(), op<Ops::CONST>.arg(2))).named<"x">(),
                            [](UOp x, UOp c) { return c.arg().as_int() == 1 || c.arg().as_int() == -1 ? x.rtag() : UOp{}; }));
  UOp y1 = UOp::const_(dtypes::int32, 1), y2 = UOp::const_(dtypes::int32, 2), y3 = UOp::const_(dtypes::int32, -1);
  UOp c1 = UOp(Ops::MUL, dtypes::int32, {y1, y2});
  UOp c2 = UOp(Ops::MUL, dtypes::int32, {y2, y2});
  UOp c3 = UOp(Ops::MUL, dtypes::int32, {y3, y2});
  UOp c4 = UOp(Ops::MUL, dtypes::int32, {y2, y1});
  UOp c5 = UOp(Ops::MUL, dtypes::int32, {y2, y3});
  REQUIRE(matcher.rewrite(c1) == c1.rtag());
  REQUIRE(matcher.rewrite(c2) == std::nullopt);
  REQUIRE(matcher.rewrite(c3) == c3.rtag());
  REQUIRE(matcher.rewrite(c4) == c4.rtag());
  REQUIRE(matcher.rewrite(c5) == c5.rtag());
}

TEST_CASE("pattern_matcher: dup_name", "[pattern_matcher]") {
  auto matcher = rules(rule(op<GroupOp::ALU>(cvar<"y">, cvar<"y">).named<"x">(), [](UOp x, UOp y) { (void)y; return x.rtag(); }));
  UOp y1 = UOp::const_(dtypes::float32, 1.0), y2 = UOp::const_(dtypes::float32, 1.0);
  UOp c1 = UOp(Ops::ADD, dtypes::float32, {y1, y1});
  UOp c2 = UOp(Ops::ADD, dtypes::float32, {y1, y2});  // interned: y1 and y2 are one node, so c2 is c1
  REQUIRE(c1 == c2);
  REQUIRE(matcher.rewrite(c1) == c1.rtag());
  REQUIRE(matcher.rewrite(c2) == c1.rtag());
}

TEST_CASE("pattern_matcher: dtype", "[pattern_matcher]") {
  auto matcher = rules(rule(op<Ops::CONST>.named<"x">().dtype(dtypes::float32), [](UOp x) { return x.rtag(); }));
  UOp c1 = UOp::const_(dtypes::float32, 1.0), c2 = UOp::const_(dtypes::float64, 1.0);
  REQUIRE(matcher.rewrite(c1) == c1.rtag());
  REQUIRE(matcher.rewrite(c2) == std::nullopt);
}

TEST_CASE("pattern_matcher: dtype_set", "[pattern_matcher]") {
  auto matcher = rules(rule(op<Ops::CONST>.named<"x">().dtype(dtypes::float32, dtypes::float64), [](UOp x) { return x.rtag(); }));
  UOp c1 = UOp::const_(dtypes::float32, 1.0), c2 = UOp::const_(dtypes::float64, 1.0);
  UOp c3 = UOp::const_(dtypes::float16, 1.0), c4 = UOp::const_(dtypes::int32, 1);
  REQUIRE(matcher.rewrite(c1) == c1.rtag());
  REQUIRE(matcher.rewrite(c2) == c2.rtag());
  REQUIRE(matcher.rewrite(c3) == std::nullopt);
  REQUIRE(matcher.rewrite(c4) == std::nullopt);
}

TEST_CASE("pattern_matcher: src_one", "[pattern_matcher]") {
  auto matcher = rules(rule(op<GroupOp::ALU>(op<Ops::CONST>, op<Ops::CONST>).named<"x">(), [](UOp x) { return x.rtag(); }));
  UOp c1 = UOp::const_(dtypes::float32, 1.0), c2 = UOp::const_(dtypes::float32, 2.0);
  UOp c3 = UOp(Ops::ADD, dtypes::float32, {c1, c2});
  REQUIRE(matcher.rewrite(c3) == c3.rtag());
  REQUIRE(matcher.rewrite(c2) == std::nullopt);
  // (tinygrad keeps a commented-out CONST/ALU ordering check here; it is not run there, so not here)
}

TEST_CASE("pattern_matcher: src_permutations", "[pattern_matcher]") {
  auto matcher = rules(rule(op<GroupOp::ALU>(any_order(op<Ops::CONST>, op<GroupOp::ALU>)).named<"x">(), [](UOp x) { return x.rtag(); }));
  UOp c1 = UOp::const_(dtypes::float32, 1.0), c2 = UOp::const_(dtypes::float32, 2.0);
  UOp c3 = UOp(Ops::ADD, dtypes::float32, {c1, c2});
  UOp c4 = UOp(Ops::ADD, dtypes::float32, {c3, c2});
  UOp c5 = UOp(Ops::ADD, dtypes::float32, {c2, c3});
  UOp c6 = UOp(Ops::ADD, dtypes::float32, {c3, c4});
  REQUIRE(matcher.rewrite(c3) == std::nullopt);
  REQUIRE(matcher.rewrite(c4) == c4.rtag());
  REQUIRE(matcher.rewrite(c5) == c5.rtag());
  REQUIRE(matcher.rewrite(c6) == std::nullopt);
}

TEST_CASE("pattern_matcher: src_repeat", "[pattern_matcher]") {
  auto matcher = rules(rule(op<GroupOp::ALU>(repeat(op<Ops::CONST>)).named<"x">(), [](UOp x) { return x.rtag(); }));
  UOp c1 = UOp::const_(dtypes::float32, 1.0), c2 = UOp::const_(dtypes::float32, 2.0);
  UOp c3 = UOp(Ops::ADD, dtypes::float32, {c1, c2});
  UOp c4 = UOp(Ops::ADD, dtypes::float32, {c2, c3});
  REQUIRE(matcher.rewrite(c3) == c3.rtag());
  REQUIRE(matcher.rewrite(c4) == std::nullopt);
}

TEST_CASE("pattern_matcher: allow_len", "[pattern_matcher]") {
  auto matcher = rules(rule(op<Ops::MULACC>(op<Ops::CONST>, etc).named<"x">(), [](UOp x) { return x.rtag(); }));
  UOp c1 = UOp::const_(dtypes::float32, 1.0), c2 = UOp::const_(dtypes::float32, 2.0), c3 = UOp::const_(dtypes::float32, 3.0);
  UOp c4 = UOp(Ops::EXP2, dtypes::float32, {c1});
  UOp c5 = UOp(Ops::ADD, dtypes::float32, {c1, c2});
  UOp c6 = UOp(Ops::MULACC, dtypes::float32, {c1, c2, c3});
  REQUIRE(matcher.rewrite(c4) == std::nullopt);
  REQUIRE(matcher.rewrite(c5) == std::nullopt);
  REQUIRE(matcher.rewrite(c6) == c6.rtag());
}

TEST_CASE("pattern_matcher: deep_src_permutations", "[pattern_matcher]") {
  UOp c1 = UOp::const_(dtypes::float32, 1.0), c2 = UOp::const_(dtypes::float32, 2.0);
  UOp u1 = (c1 + c2) + c1, u2 = (c2 + c1) + c1;
  auto matcher = rules(rule(op<GroupOp::ALU>(any_order(op<GroupOp::ALU>(any_order(var<"a">, var<"b">)), var<"b">)),
                            [](UOp a, UOp b) { (void)a; return b; }));
  // b must be the same node in both places, so b=c1 in both: the inner sum's other source is a=c2
  REQUIRE(matcher.rewrite(u1) == c1);
  REQUIRE(matcher.rewrite(u2) == c1);
}
