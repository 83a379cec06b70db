#pragma once
// CHECK_SYMVAL(actual, expected): a bound check that prints the actual SymVal when it fails.
#include <catch2/catch.hpp>

#include <metagrad/core/symval.hpp>

#define CHECK_SYMVAL(actual, expected)       \
  do {                                       \
    INFO(#actual " is " << (actual).repr()); \
    CHECK((actual) == (expected));           \
  } while (0)
