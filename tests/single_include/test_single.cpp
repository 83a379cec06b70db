// Compiled against single_include/ only: the amalgamated header must stand on its own.
#include "metagrad.hpp"

#include <catch2/catch.hpp>

using namespace mg;

TEST_CASE("single header: build, rewrite and render an expression", "[single_include]") {
  constexpr auto fold = rules(rule(var<"x"> + 0, [](auto x) { return x; }));
  UOp a = UOp::variable("a", 0, 10);
  UOp b = (a + 0) * 4 + 1;
  REQUIRE(b.op() == Ops::ADD);
  REQUIRE(b.render() == "((a+0)*4+1)");
  REQUIRE(graph_rewrite(b, fold).render() == "(a*4+1)");
}
