// The same rule objects rewriting a constexpr graph (ct::Graph) while the program compiles, and
// runtime UOps while it runs. Callbacks are generic lambdas so they build either kind of node.
#include <catch2/catch.hpp>

#include <metagrad/metagrad.hpp>

using namespace mg;

namespace {
inline constexpr auto fold = rules(
    rule(var<"x"> + 0, [](auto x) { return x; }),                  // x+0 -> x
    rule(var<"x"> * 1, [](auto x) { return x; }),                  // x*1 -> x
    rule(var<"x"> * 0, [](auto x) { return x.const_like(0); }),    // x*0 -> 0
    rule(var<"x"> + var<"x">, [](auto x) { return x * 2; }));      // x+x -> x*2 (a name used twice)

// declines the first ordering of 0+x (x=0), accepts the second: permutations backtrack at compile time too
inline constexpr auto drop_zero = rules(rule(var<"x"> + var<"y">, [](auto x, auto y) {
  return y.op() == Ops::CONST && y.arg().as_int() == 0 ? x : decltype(x){};
}));

// filters: dtype, arg
inline constexpr auto float_one = rules(
    rule(op<Ops::CONST>.arg(1.5).dtype(dtypes::float32).named<"c">(), [](auto c) { return c.const_like(3.0); }));

// a ctx that counts the rewrites
inline constexpr auto counted = rules(rule(var<"x"> * 1, [](int& n, auto x) { ++n; return x; }));

using G = ct::Graph<64>;
}  // namespace

// ---- compile time ----

static_assert([] {
  G g;
  auto x = g.variable("x", 0, 9);
  return ct::graph_rewrite(x + 0, fold) == x && ct::graph_rewrite(x * 1, fold) == x &&
         ct::graph_rewrite(x * 0, fold) == g.const_(dtypes::weakint, 0);
}(), "x+0, x*1, x*0 fold at compile time");

static_assert([] {
  G g;
  auto x = g.variable("x", 0, 9), y = g.variable("y", 0, 9);
  return ct::graph_rewrite(x + x, fold) == x * 2 && ct::graph_rewrite(x + y, fold) == x + y;
}(), "x+x -> x*2 only when both sources are the same node");

static_assert([] {
  G g;
  auto x = g.variable("x", 0, 9);
  // 0+x: the CONST is the first source, var<"x"> + 0 matches it in the other order
  return ct::graph_rewrite(0 + x, fold) == x && ct::graph_rewrite(1 * x, fold) == x && ct::graph_rewrite(0 * x, fold) == g.const_(dtypes::weakint, 0);
}(), "commutative patterns match either order");

static_assert([] {
  G g;
  auto x = g.variable("x", 0, 9);
  return ct::graph_rewrite(0 + x, drop_zero) == x && ct::graph_rewrite(x + 0, drop_zero) == x &&
         ct::graph_rewrite(x + 1, drop_zero) == x + 1;
}(), "a declined permutation backtracks into the next");

static_assert([] {
  G g;
  auto x = g.variable("x", 0, 9), y = g.variable("y", 0, 9);
  // ((x*1)+0)*(y+y) + x*0 -> x*(y*2): rules chain, the whole graph settles
  auto e = ((x * 1) + 0) * (y + y) + x * 0;
  return ct::graph_rewrite(e, fold) == x * (y * 2);
}(), "a graph rewrites to a fixed point");

static_assert([] {
  G g;
  auto f = g.const_(dtypes::float32, 1.5), h = g.const_(dtypes::float16, 1.5), two = g.const_(dtypes::float32, 2.0);
  return ct::graph_rewrite(f, float_one) == g.const_(dtypes::float32, 3.0) && ct::graph_rewrite(h, float_one) == h &&
         ct::graph_rewrite(two, float_one) == two;
}(), "dtype and arg filters at compile time");

static_assert([] {
  G g;
  auto x = g.variable("x", 0, 9);
  auto shared = x * 1;
  int n = 0;
  auto out = ct::graph_rewrite(shared + shared * 1, counted, &n);
  // x*1 is rewritten once: (x*1)*1 rebuilds to x*1 once its source is x, and that result is reused
  return out == x + x && n == 1;
}(), "ctx callbacks and memoization at compile time");

static_assert([] {
  G g;
  auto x = g.variable("x", 0, 9);
  auto r = fold.rewrite_view(x + 0);  // one node, one rule
  return r && *r == x && !fold.rewrite_view(x * 3);
}(), "RuleSet::rewrite_view in a constant expression");

// ---- the same rules at run time ----

TEST_CASE("static: the same rules rewrite runtime UOps", "[static]") {
  UOp x = UOp::variable("x", 0, 9), y = UOp::variable("y", 0, 9);
  REQUIRE(graph_rewrite(x + 0, fold) == x);
  REQUIRE(graph_rewrite(x * 1, fold) == x);
  REQUIRE(graph_rewrite(x * 0, fold) == UOp::const_(dtypes::weakint, 0));
  REQUIRE(graph_rewrite(x + x, fold) == x * 2);
  REQUIRE(graph_rewrite(x + y, fold) == x + y);
  REQUIRE(graph_rewrite(0 + x, fold) == x);
  REQUIRE(graph_rewrite(0 * x, fold) == UOp::const_(dtypes::weakint, 0));
  REQUIRE(graph_rewrite(0 + x, drop_zero) == x);
  REQUIRE(graph_rewrite(x + 1, drop_zero) == x + 1);
  REQUIRE(graph_rewrite(((x * 1) + 0) * (y + y) + x * 0, fold) == x * (y * 2));
  UOp f = UOp::const_(dtypes::float32, 1.5), h = UOp::const_(dtypes::float16, 1.5);
  REQUIRE(graph_rewrite(f, float_one) == UOp::const_(dtypes::float32, 3.0));
  REQUIRE(graph_rewrite(h, float_one) == h);
  int n = 0;
  UOp shared = x * 1;
  REQUIRE(graph_rewrite(shared + shared * 1, counted, n) == x + x);
  REQUIRE(n == 1);
}

TEST_CASE("static: a ct::Graph also rewrites at run time", "[static]") {
  // the same nodes, not in a constant expression: the rule set takes its dispatch-table path
  G g;
  auto x = g.variable("x", 0, 9), y = g.variable("y", 0, 9);
  REQUIRE(ct::graph_rewrite(((x * 1) + 0) * (y + y) + x * 0, fold) == x * (y * 2));
  REQUIRE(ct::graph_rewrite(0 + x, drop_zero) == x);
  int fired = -1;
  REQUIRE(fold.rewrite_view<ct::Node<64>, NoCtx>(x + x, nullptr, &fired) == x * 2);
  REQUIRE(fired == 3);
  int n = 0;
  auto shared = x * 1;
  REQUIRE(ct::graph_rewrite(shared + shared * 1, counted, &n) == x + x);
  REQUIRE(n == 1);
}
