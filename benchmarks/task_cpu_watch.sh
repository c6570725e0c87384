#!/bin/bash
# CPU seconds that Rally, esbench and the node spend during one task of a comparison run by
# benchmarks/isolated_rally_compare.sh (started beside it, before the run reaches the task).
#
#   benchmarks/task_cpu_watch.sh OUTDIR TASK [SECONDS]
#
# Waits until Rally's log says its workers execute TASK, reads utime+stime (/proc/PID/stat) of
# Rally's processes (those whose command line names $RALLY's file, default "rally-short-task") and
# of the node (the Elasticsearch JVM) for SECONDS (default 4); then the same for esbench's race
# process and its children once esbench's live line shows TASK with a rate. Prints per tool the
# window, the tool's and the node's CPU seconds in it, and the command. With the node pinned to one
# core (NODE_CPUS=1), node CPU equal to the window means the node was saturated; CPU per request
# is then the node's CPU over the requests the tool's reported throughput gives for the window.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 OUTDIR TASK [SECONDS]" >&2
    exit 64
fi
OUT=$1; TASK=$2; SECONDS_=${3:-4}; RALLY_NAME=$(basename "${RALLY:-rally-short-task}")
echo "command: $0 $*"
cpu() {
    local s=0 p
    for p in "$@"; do
        [ -r "/proc/$p/stat" ] && s=$((s + $(awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$p/stat")))
    done
    echo "$s"
}
tree() {
    local c
    echo "$1"
    for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do tree "$c"; done
}
sample() {
    local tool=$1; shift
    local node a n t b m u tick
    node=$(pgrep -f "org.elasticsearch.bootstrap.Elasticsearch" | tr '\n' ' ')
    tick=$(getconf CLK_TCK)
    a=$(cpu "$@"); n=$(cpu $node); t=$(date +%s.%N)
    sleep "$SECONDS_"
    b=$(cpu "$@"); m=$(cpu $node); u=$(date +%s.%N)
    awk -v tool="$tool" -v w="$(echo "$u - $t" | bc)" -v c="$((b - a))" -v n="$((m - n))" -v k="$tick" \
        'BEGIN {printf "%-8s window %.2f s: tool CPU %.2f s, node CPU %.2f s\n", tool, w, c / k, n / k}'
}
for _ in $(seq 1 14400); do
    grep -q "executing tasks: \['$TASK'" "$OUT/rally-home/.rally/logs/rally.log" 2>/dev/null && break
    sleep 0.25
done
sleep 1
sample rally $(pgrep -f "$RALLY_NAME" | tr '\n' ' ')
for _ in $(seq 1 14400); do
    grep -q "$TASK .*ops/s" "$OUT/esbench.out" 2>/dev/null && break
    sleep 0.25
done
sample esbench $(tree "$(pgrep -f "m esbench race" | head -1)" | tr '\n' ' ')
