// expect: shape_mismatch<
// expect: {"reshape"}, mg::shape<4, 3>, mg::shape<5, 2>
#include <metagrad/static/kernel.hpp>
using namespace mg;
int main() {
  auto k = static_kernel<input<float, 4, 3>>([](auto a) { return a.reshape(shape<5, 2>{}); });
  (void)k;
}
