# tinygrad's times for bench_engine's workloads, measured the same way (realize of the same graph, kernels
# compiled first, best of N wall time):  cd /tmp/tinygrad && PYTHONPATH=. python3 /work/main/bench/bench_engine_tinygrad.py
import time, sys
from tinygrad import Tensor, Device
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
def best(f):
  b = 1e30
  for _ in range(rounds):
    t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
  return b
n = 4096
a = Tensor.full((n, n), 1.5).contiguous().realize(); b = Tensor.full((n, n), 2.0).contiguous().realize()
c = Tensor.full((n, n), -4.0).contiguous().realize()
t0 = time.perf_counter(); x = Tensor.full((1024, 1024), 1.5).contiguous().realize(); y = Tensor.full((1024, 1024), 2.0).contiguous().realize()
t1 = time.perf_counter(); (x + y).realize(); Device[x.device].synchronize(); print(f"first run a+b 1024^2: {(time.perf_counter()-t1)*1e3:.2f} ms (after input setup, realized and synchronized)")
for name, f in [("a+b 4096^2", lambda: (a + b).realize()), ("(a*b+c).relu() 4096^2", lambda: (a * b + c).relu().realize()),
                ("sum 4096^2", lambda: a.sum().realize()), ("softmax(1) 4096^2", lambda: a.softmax(1).realize())]:
  f(); Device[a.device].synchronize(); print(f"{name:24s} {best(lambda: (f(), Device[a.device].synchronize()))*1e3:.2f} ms")
m1 = Tensor.rand(1024, 1024).realize(); m2 = Tensor.rand(1024, 1024).realize()
(m1 @ m2).realize(); s = best(lambda: ((m1 @ m2).realize(), Device[m1.device].synchronize()))
print(f"matmul 1024^2: {s*1e3:.2f} ms, {2*1024**3/s/1e9:.1f} GFLOP/s")
