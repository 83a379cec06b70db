#!/usr/bin/env python3
"""Print "PASSED FAILED" for the meson test logs (meson-logs/testlog.json) given as arguments.

Tests in a "catch2" suite count their Catch2 test cases; any other test counts as one.
A Catch2 run that failed without reporting a failed case (crash, timeout) counts one failure more.
"""
import json
import re
import sys

ALL_PASSED = re.compile(r"All tests passed \(\d+ assertions? in (\d+) test cases?\)")
SUMMARY = re.compile(r"test cases:\s*\d+ \|\s*(\d+) passed \|\s*(\d+) failed")


def catch2_cases(stdout: str) -> tuple[int, int]:
    if m := ALL_PASSED.search(stdout):
        return int(m[1]), 0
    if m := SUMMARY.search(stdout):
        return int(m[1]), int(m[2])
    return 0, 0


passed = failed = 0
for log in sys.argv[1:]:
    with open(log, encoding="utf-8") as f:
        for line in f:
            t = json.loads(line)
            if t["result"] == "SKIP":
                continue
            ok = t["result"] == "OK"
            suites = t.get("suite") or [t["name"].split(" / ")[0]]  # name: "project:suite / test"
            if any("catch2" in s for s in suites):
                p, f_ = catch2_cases(t.get("stdout", ""))
            else:
                p, f_ = int(ok), 0
            passed, failed = passed + p, failed + max(f_, 0 if ok else 1)
print(passed, failed)
