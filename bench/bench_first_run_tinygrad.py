# tinygrad's first run of bench_engine's "first run" workload, a+b on 1024^2 float32, graph to result in
# host memory, in a fresh process (the inputs are realized before the clock starts). Run it several times
# with one CACHEDB: the first run fills tinygrad's disk cache, the later ones find their kernel there.
#   cd /tmp/tinygrad && D=$(mktemp -d) && for i in 1 2 3 4; do CACHEDB=$D/cache.db PYTHONPATH=. \
#     python3 /work/main/bench/bench_first_run_tinygrad.py; done        # DEV=CPU:LLVM for its LLVM backend
import time
from tinygrad import Tensor, Device
x = Tensor([1.5] * (1024 * 1024)).reshape(1024, 1024).realize()
y = Tensor([2.0] * (1024 * 1024)).reshape(1024, 1024).realize()
t0 = time.perf_counter()
out = (x + y).data()
t1 = time.perf_counter()
assert out.cast("B")[0:4].tobytes() == bytes.fromhex("00006040"), "a+b is not 3.5"
print(f"tinygrad first run a+b 1024^2 ({Device.DEFAULT}): {(t1 - t0) * 1e3:.2f} ms")
