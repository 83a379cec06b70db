// placeholder: replaced by the lead
#include <catch2/catch.hpp>

TEST_CASE("placeholder: test_pattern_matcher", "[placeholder]") { REQUIRE(1 + 1 == 2); }
