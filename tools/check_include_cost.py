#!/usr/bin/env python3
"""Checks what including metagrad.hpp costs the compiler's front end for a translation unit that only
includes the library. GCC: the memory its front end allocates (-ftime-report's TOTAL, "GGC"). Clang: the
declarations it creates (-Xclang -print-stats, "decls total"), which counts every template specialization it
instantiates. Unlike wall time neither depends on the machine or its load, and both grow with every piece of
code that each includer compiles whether it uses it or not (a non-template function that calls Tensor
members, a pattern built where a rule set is defined). See docs/design-notes.md, "Compile time".

usage: check_include_cost.py <gcc budget in MB> <clang budget in thousands of decls> <compiler command...>
"""
import pathlib, re, subprocess, sys, tempfile

root = pathlib.Path(__file__).resolve().parent.parent
gcc_budget, clang_budget, compiler = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3:] or ["g++"]
version = subprocess.run([*compiler, "--version"], capture_output=True, text=True).stdout
clang = "clang" in version.lower()
with tempfile.TemporaryDirectory() as tmp:
  src = pathlib.Path(tmp) / "include_only.cpp"
  src.write_text("#include <metagrad/metagrad.hpp>\nint main() {}\n")
  stats = ["-Xclang", "-print-stats"] if clang else ["-ftime-report"]
  r = subprocess.run([*compiler, "-std=c++20", "-O2", *stats, f"-I{root / 'include'}", "-c", str(src),
                      "-o", str(pathlib.Path(tmp) / "include_only.o")], capture_output=True, text=True)
if r.returncode:
  print(r.stderr[-3000:])
  sys.exit(1)
if clang:
  m = re.search(r"^\s*(\d+) decls total\.", r.stderr, re.M)
  if not m:
    print("no 'decls total' line in -print-stats' output")
    sys.exit(1)
  k = int(m.group(1)) / 1000
  print(f"an include-only translation unit: Clang created {k:.0f}k declarations (budget {clang_budget:.0f}k)")
  sys.exit(0 if k <= clang_budget else 1)
m = re.search(r"^\s*TOTAL\s*:.*?(\d+(?:\.\d+)?)([kMG])\s*$", r.stderr, re.M)
if not m:
  print("no TOTAL line in -ftime-report's output (not GCC?)")
  sys.exit(1)
mb = float(m.group(1)) * {"k": 1 / 1024, "M": 1, "G": 1024}[m.group(2)]
print(f"an include-only translation unit: GCC allocated {mb:.0f}M (budget {gcc_budget:.0f}M)")
sys.exit(0 if mb <= gcc_budget else 1)
