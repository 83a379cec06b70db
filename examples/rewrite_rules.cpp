// Write your own rewrite rules, apply them to a graph, print the graph before and after.
//   build and run: bash tools/run_main.sh
#include <iostream>

#include <metagrad/metagrad.hpp>

using namespace mg;

// A rule is a pattern and what to build from its captures. The patterns are C++ types: each rule
// compiles to its own matching code, and the set dispatches on the root op at compile time.
inline constexpr auto fold = rules(
    rule(var<"x"> + 0, [](UOp x) { return x; }),                        // x+0 -> x
    rule(var<"x"> * 1, [](UOp x) { return x; }),                        // x*1 -> x
    rule(var<"x"> * 0, [](UOp x) { return x.const_like(0); }),          // x*0 -> 0
    rule(var<"x"> + var<"x">, [](UOp x) { return x * 2; }),              // x+x -> x*2
    // (x+c1)+c2 -> x+(c1+c2): fold the constants
    rule((var<"x"> + cvar<"c1">) + cvar<"c2">,
         [](UOp x, UOp c1, UOp c2) { return x + x.const_like(c1.arg().as_int() + c2.arg().as_int()); }));

int main() {
  UOp a = UOp::variable("a", 0, 10), b = UOp::variable("b", 0, 10);
  UOp expr = ((a * 1 + 0) + 3 + 4) * (b + b) + a * 0;

  std::cout << "before: " << expr.render() << "\n" << expr.repr() << "\n\n";
  UOp out = graph_rewrite(expr, fold);
  std::cout << "after:  " << out.render() << "\n" << out.repr() << "\n";
}
