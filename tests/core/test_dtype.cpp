// placeholder: replaced by the lead
#include <catch2/catch.hpp>

TEST_CASE("placeholder: test_dtype", "[placeholder]") { REQUIRE(1 + 1 == 2); }
