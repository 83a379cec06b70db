// Compiled against single_include/ only: the amalgamated header must stand on its own.
#include "metagrad.hpp"

#include <catch2/catch.hpp>

TEST_CASE("single header: build and render an expression", "[single_include]") {
  auto a = mg::UOp::variable("a", 0, 10);
  auto b = a + 1;
  REQUIRE(b.op() == mg::Ops::ADD);
  REQUIRE(mg::render(b) == "(a+1)");
}
