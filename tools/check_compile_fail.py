#!/usr/bin/env python3
"""Checks that each tests/compile_fail/*.cpp fails to compile with the messages its leading "// expect:" lines name.

usage: check_compile_fail.py <compiler command...>   (run from the repository root or anywhere)
"""
import pathlib, subprocess, sys

root = pathlib.Path(__file__).resolve().parent.parent
compiler = sys.argv[1:] or ["g++"]
failed = 0
for src in sorted((root / "tests" / "compile_fail").glob("*.cpp")):
  # every leading "// expect:" line must appear in the errors (GCC and Clang spell templates differently)
  expects = [l.removeprefix("// expect:").strip() for l in src.read_text().splitlines() if l.startswith("// expect:")]
  r = subprocess.run([*compiler, "-std=c++20", "-fsyntax-only", f"-I{root / 'include'}", str(src)],
                     capture_output=True, text=True)
  ok = r.returncode != 0 and all(e in r.stderr for e in expects)
  print(f"{'ok  ' if ok else 'FAIL'} {src.name}: expects " + ", ".join(f'"{e}"' for e in expects))
  if not ok:
    failed += 1
    print(r.stderr[-3000:] if r.returncode else "  compiled without error")
sys.exit(1 if failed else 0)
