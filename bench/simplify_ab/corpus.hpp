#pragma once
// What simplify_ab.sh's two sides share: the corpus as plain data (no metagrad type, so that both
// versions of the library can take it) and a round's result.
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

struct AbExpr {
  std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> vars;
  std::string expr;
};
struct AbRound {
  double fresh = 0, warm = 0;
  std::size_t nodes = 0;
};
AbRound ab_round_a(const std::vector<AbExpr>& corpus);
AbRound ab_round_b(const std::vector<AbExpr>& corpus);
