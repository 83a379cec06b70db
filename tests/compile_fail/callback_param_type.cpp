// expect: rule callback cannot be called with this pattern's captures
#include <metagrad/metagrad.hpp>
using namespace mg;
// one capture, one parameter, but an int is not a node
inline constexpr auto bad = rules(rule(var<"x"> * 1, [](int x) { return UOp::const_(dtypes::int32, x); }));
int main() { return graph_rewrite(UOp::variable("a", 0, 3) * 1, bad).nsrc() > 0; }
