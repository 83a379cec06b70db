# The main job's peer: tinygrad's examples/beautiful_mnist.py, unchanged, on Debian's Fashion-MNIST files
# (dataset-fashion-mnist) instead of the download, timed whole as examples/fashion_mnist.cpp is:
#   cd /tmp/tinygrad && PYTHONPATH=. python3 <repo>/bench/fashion_mnist_tinygrad.py    # STEPS=70 by default
# (tinygrad at the reference commit, REFERENCE.md). Prints the final test accuracy and the wall time.
# SEED=n seeds tinygrad's generator (Tensor.manual_seed); without it tinygrad seeds from the clock, as usual.
import gzip, os, runpy, time
from tinygrad import Tensor
import tinygrad.nn.datasets as datasets

DIR = "/usr/share/datasets/fashion-mnist/"

def _idx(name): return Tensor(gzip.open(os.path.join(DIR, name)).read())

def local_mnist(device=None, fashion=False):
  return _idx("train-images-idx3-ubyte.gz")[0x10:].reshape(-1,1,28,28).to(device), _idx("train-labels-idx1-ubyte.gz")[8:].to(device), \
         _idx("t10k-images-idx3-ubyte.gz")[0x10:].reshape(-1,1,28,28).to(device), _idx("t10k-labels-idx1-ubyte.gz")[8:].to(device)

datasets.mnist = local_mnist  # beautiful_mnist.py imports it by name when it runs below
if "SEED" in os.environ: Tensor.manual_seed(int(os.environ["SEED"]))
t0 = time.perf_counter()
g = runpy.run_path("examples/beautiful_mnist.py", run_name="__main__")
print(f"test accuracy: {g['test_acc']:.2f}%  wall: {time.perf_counter() - t0:.1f} s")
