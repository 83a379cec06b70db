// expect: shapes_do_not_broadcast<
// expect: {"add"}, mg::shape<4, 3>, mg::shape<5, 3>
// expect: this op's two shapes do not broadcast
#include <metagrad/static/kernel.hpp>
using namespace mg;
int main() {
  auto k = static_kernel<input<float, 4, 3>, input<float, 5, 3>>([](auto a, auto b) { return a + b; });
  (void)k;
}
