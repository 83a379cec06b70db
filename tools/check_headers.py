#!/usr/bin/env python3
"""Checks that every public header compiles on its own, warning-free: a user may include any one of them first.

usage: check_headers.py <compiler command...>   (run from the repository root or anywhere)
"""
import concurrent.futures, os, pathlib, subprocess, sys, tempfile

root = pathlib.Path(__file__).resolve().parent.parent
compiler = sys.argv[1:] or ["g++"]
headers = sorted(p.relative_to(root / "include") for p in (root / "include" / "metagrad").rglob("*.hpp"))
def check(h):
  """the compiler's complaint about a file that includes only h, or None"""
  with tempfile.TemporaryDirectory() as tmp:
    src = pathlib.Path(tmp) / "one_header.cpp"
    src.write_text(f"#include <{h.as_posix()}>\nint main() {{}}\n")
    r = subprocess.run([*compiler, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", f"-I{root / 'include'}", str(src)],
                       capture_output=True, text=True)
    return r.stderr[-3000:] if r.returncode else None

# one compiler per core: the headers are independent, and CI has its 90 minutes
with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
  errors = list(pool.map(check, headers))
failed = 0
for h, err in zip(headers, errors):
  if err is not None:
    failed += 1
    print(f"FAIL {h}\n{err}")
print(f"{len(headers) - failed} of {len(headers)} headers compile on their own")
sys.exit(1 if failed else 0)
