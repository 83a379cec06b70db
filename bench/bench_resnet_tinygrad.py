# tinygrad's side of bench_resnet_null: the measurement of tinygrad's test/external/external_benchmark_schedule.py
# (ResNet-50, every parameter Tensor.empty, a 64x3x224x224 empty image, on DEV=NULL), best of N rounds, each
# round on a fresh forward graph with the schedule cache off (SCACHE=0), so that every round does the work.
#   TINYGRAD_PATH=/tmp/tinygrad python3 bench/bench_resnet_tinygrad.py [rounds]
# DEV=CPU measures with tinygrad's CPU renderer instead of the NULL device's.
# Times are this process's CPU time (as the C++ side's thread CPU time), which other work on a shared machine
# does not inflate. Prints the lines bench_resnet_null.cpp reads: "kernels N", "unique ASTs N", "schedule S", "rewrite S",
# "linearize S", "total S" (seconds, each the best over the rounds), "first total S" (the first round's total).
import os, sys, time
os.environ.setdefault("DEV", "NULL")
os.environ.setdefault("SCACHE", "0")
sys.path.insert(0, os.environ.get("TINYGRAD_PATH", "."))
from extra.models.resnet import ResNet50
from tinygrad import Tensor, nn, Device
from tinygrad.uop.ops import Ops
from tinygrad.codegen import full_rewrite_to_sink
from tinygrad.codegen.late.linearizer import linearize

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1
mdl = ResNet50()
for p in nn.state.get_parameters(mdl): p.replace(Tensor.empty(p.shape))
img = Tensor.empty(64, 3, 224, 224)
print(f"parameters {sum(p.numel() for p in nn.state.get_parameters(mdl))}")
best = {"schedule": 1e30, "rewrite": 1e30, "linearize": 1e30, "total": 1e30}
for _ in range(rounds):
  tf = time.process_time()
  out = mdl(img)
  best["forward"] = min(best.get("forward", 1e30), time.process_time() - tf)
  t0 = time.process_time()
  linear = out.schedule_linear()
  t1 = time.process_time()
  kernels = [call.src[0] for call in linear.src if call.src[0].op is Ops.SINK]
  asts = list({k.key: k for k in kernels}.values())
  rewritten = [full_rewrite_to_sink(u, ren=Device.default.renderer) for u in asts]
  t2 = time.process_time()
  lines = [linearize(u) for u in rewritten]
  t3 = time.process_time()
  for k, v in (("schedule", t1 - t0), ("rewrite", t2 - t1), ("linearize", t3 - t2), ("total", t3 - t0)): best[k] = min(best[k], v)
  best.setdefault("first total", t3 - t0)  # the first round's (cold: tinygrad's caches fill in it)
print(f"schedule items {len(linear.src)}")
print(f"kernels {len(kernels)}")
print(f"unique ASTs {len(asts)}")
print(f"linear uops {sum(len(u) for u in lines)}")
for k, v in best.items(): print(f"{k} {v:.6f}")
