#!/usr/bin/env python3
"""Runs mg-sym on the cases in the given files and checks every output line.

usage: mg_sym_check.py MG_SYM CASES...

A cases file holds pairs of lines: an input line for mg-sym, then the output expected for it (compared as
JSON). Lines starting with '#' and blank lines are comments. "%flags ARGS" runs the cases after it with
these arguments (e.g. "%flags --no-simplify"; a bare "%flags" goes back to none). An input line that is
"%raw TEXT" sends TEXT as it is, for input that is not valid JSON.
"""
import json
import subprocess
import sys


def groups(path):
    """[(flags, [(lineno, input, expected)])] in file order."""
    out, flags, pending = [], [], None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("%flags"):
                if pending: sys.exit(f"{path}:{pending[0]}: input line without an expected line")
                flags = line.split()[1:]
                continue
            if pending is None:
                pending = (n, line[len("%raw "):] if line.startswith("%raw ") else line)
                continue
            if not out or out[-1][0] != flags: out.append((flags, []))
            out[-1][1].append((pending[0], pending[1], json.loads(line)))
            pending = None
    if pending: sys.exit(f"{path}:{pending[0]}: input line without an expected line")
    return out


def main():
    tool, failed, total = sys.argv[1], 0, 0
    for path in sys.argv[2:]:
        for flags, cases in groups(path):
            # blank lines between the cases: mg-sym must skip them and answer one line per input line
            stdin = "".join(inp + "\n\n" for _, inp, _ in cases)
            r = subprocess.run([tool, *flags], input=stdin, capture_output=True, text=True, timeout=120)
            got = r.stdout.splitlines()
            if r.returncode != 0 or len(got) != len(cases):
                print(f"{path}: mg-sym {' '.join(flags)} exited {r.returncode} with {len(got)} lines for {len(cases)} inputs\n{r.stderr}")
                failed, total = failed + len(cases), total + len(cases)
                continue
            for (n, inp, want), line in zip(cases, got):
                total += 1
                try: ok = json.loads(line) == want
                except ValueError: ok = False
                if not ok:
                    failed += 1
                    print(f"{path}:{n}: {inp}\n  want {json.dumps(want)}\n  got  {line}")
    print(f"{total - failed} of {total} mg-sym cases passed")
    sys.exit(1 if failed or not total else 0)


main()
