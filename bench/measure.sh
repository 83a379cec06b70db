# Sourced by the compile-time scripts: measure LABEL COMMAND... runs COMMAND $runs times, prints the
# best wall time padded to ${label_width:-34} columns, and leaves it in $last (nanoseconds).
measure() {
  local label=$1 best=-1 t0 t1; shift
  for ((i = 0; i < runs; ++i)); do
    t0=$(date +%s%N)
    "$@" || { echo "$label: compile failed" >&2; exit 1; }
    t1=$(date +%s%N)
    (( best < 0 || t1 - t0 < best )) && best=$(( t1 - t0 ))
  done
  awk -v l="$label" -v ns="$best" -v w="${label_width:-34}" 'BEGIN { printf "%-*s %6.2f s\n", w, l, ns / 1e9 }'
  last=$best
}
