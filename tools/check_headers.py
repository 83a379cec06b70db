#!/usr/bin/env python3
"""Checks that every public header compiles on its own, warning-free: a user may include any one of them first.

usage: check_headers.py <compiler command...>   (run from the repository root or anywhere)
"""
import pathlib, subprocess, sys, tempfile

root = pathlib.Path(__file__).resolve().parent.parent
compiler = sys.argv[1:] or ["g++"]
headers = sorted(p.relative_to(root / "include") for p in (root / "include" / "metagrad").rglob("*.hpp"))
failed = 0
with tempfile.TemporaryDirectory() as tmp:
  for h in headers:
    src = pathlib.Path(tmp) / "one_header.cpp"
    src.write_text(f"#include <{h.as_posix()}>\nint main() {{}}\n")
    r = subprocess.run([*compiler, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", f"-I{root / 'include'}", str(src)],
                       capture_output=True, text=True)
    if r.returncode:
      failed += 1
      print(f"FAIL {h}\n{r.stderr[-3000:]}")
print(f"{len(headers) - failed} of {len(headers)} headers compile on their own")
sys.exit(1 if failed else 0)
