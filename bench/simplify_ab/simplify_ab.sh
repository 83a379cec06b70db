#!/usr/bin/env bash
# simplify_ab.sh <treeA> <treeB> [rounds]: bench_simplify's fresh and warm passes for two source trees of
# metagrad (say, `git worktree add /tmp/before HEAD~1` and this checkout), both in one process, alternating
# round by round, pinned to one CPU. The per-round ratio B/A is what to read: on a shared machine whose
# speed drifts by 2x within minutes, two separate runs compare minutes more than versions.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
a=$(cd "$1" && pwd) b=$(cd "$2" && pwd) rounds=${3:-30}
out=$(mktemp -d)
flags="-std=c++20 -O2 -DNDEBUG -pthread"
g++ $flags -I"$a/include" -I"$here" -Dmg=mg_ab_a -DMG_AB_ROUND=ab_round_a -c "$here/variant.cpp" -o "$out/a.o" & pa=$!
g++ $flags -I"$b/include" -I"$here" -Dmg=mg_ab_b -DMG_AB_ROUND=ab_round_b -c "$here/variant.cpp" -o "$out/b.o" & pb=$!
g++ $flags -I"$here/../../include" -I"$here" -c "$here/main.cpp" -o "$out/main.o"
wait $pa && wait $pb
g++ $flags "$out/main.o" "$out/a.o" "$out/b.o" -o "$out/simplify_ab" -ldl
taskset -c 0 "$out/simplify_ab" "$here/../data/sym_exprs.jsonl" "$rounds"
rm -rf "$out"
