#!/usr/bin/env python3
"""Checks what including metagrad.hpp costs GCC: the memory its front end allocates for a translation unit
that only includes the library (-ftime-report's TOTAL, "GGC"). Unlike wall time it does not depend on the
machine or its load, and it grows with every piece of code that each includer compiles whether it uses it or
not (a non-template function that calls Tensor members, say). See docs/design-notes.md, "Compile time".

usage: check_include_cost.py <budget in MB> <g++ command...>
"""
import pathlib, re, subprocess, sys, tempfile

root = pathlib.Path(__file__).resolve().parent.parent
budget, compiler = float(sys.argv[1]), sys.argv[2:] or ["g++"]
with tempfile.TemporaryDirectory() as tmp:
  src = pathlib.Path(tmp) / "include_only.cpp"
  src.write_text("#include <metagrad/metagrad.hpp>\nint main() {}\n")
  r = subprocess.run([*compiler, "-std=c++20", "-O2", "-ftime-report", f"-I{root / 'include'}", "-c", str(src),
                      "-o", str(pathlib.Path(tmp) / "include_only.o")], capture_output=True, text=True)
if r.returncode:
  print(r.stderr[-3000:])
  sys.exit(1)
m = re.search(r"^\s*TOTAL\s*:.*?(\d+(?:\.\d+)?)([kMG])\s*$", r.stderr, re.M)
if not m:
  print("no TOTAL line in -ftime-report's output (not GCC?)")
  sys.exit(1)
mb = float(m.group(1)) * {"k": 1 / 1024, "M": 1, "G": 1024}[m.group(2)]
print(f"an include-only translation unit: GCC allocated {mb:.0f}M (budget {budget:.0f}M)")
sys.exit(0 if mb <= budget else 1)
