// expect: rule callback: it must take one parameter per named capture
#include <metagrad/metagrad.hpp>
using namespace mg;
// the pattern captures x and y, the callback takes only x
inline constexpr auto bad = rules(rule(var<"x"> + var<"y">, [](UOp x) { return x; }));
int main() {}
