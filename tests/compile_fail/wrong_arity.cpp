// expect: wrong number of sources for this op
#include <metagrad/metagrad.hpp>
using namespace mg;
inline constexpr auto bad = op<Ops::ADD>(var<"x">);  // ADD takes two sources
int main() {}
