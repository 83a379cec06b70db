// expect: rule callback cannot be called with this pattern's captures
#include <vector>
#include <metagrad/metagrad.hpp>
using namespace mg;
// the callback asks for a ctx, but graph_rewrite is given none
inline constexpr auto bad = rules(rule(var<"x"> * 1, [](std::vector<int>& seen, UOp x) { seen.push_back(1); return x; }));
int main() { return graph_rewrite(UOp::variable("a", 0, 3) * 1, bad).nsrc() > 0; }
