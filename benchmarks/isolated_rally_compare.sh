#!/bin/bash
# Race one track with Rally 2.13 and with esbench against the same fresh Elasticsearch node, in a
# private network and PID namespace, and print each tool's report rows side by side.
#
#   benchmarks/isolated_rally_compare.sh OUTDIR TRACK_PATH [race options for both tools...]
#
# Why a namespace: Rally allows one benchmark per machine (it looks for other esrally processes and
# its actor system listens on 127.0.0.1:1900), so a comparison on a shared machine either waits for
# or kills other sessions' runs. Inside its own PID and network namespace a Rally run sees only its
# own processes and port 1900. The node (--distribution-version, default 8.8.2: the newest
# integ-test build that still answers GET /, which Rally needs) is provisioned by esbench inside the
# namespace and stopped at the end; only loopback exists there, with a route so that Rally's actor
# system finds a non-loopback address.
#
# Environment:
#   RALLY          Rally's executable (default /opt/rally/bin/esrally; a copy under another file
#                  name keeps other sessions' --kill-running-processes from matching it).
#   ES_VERSION     node version (default 8.8.2).
#   CORPUS_FILES   NAME=DIR[,NAME=DIR...]: copy DIR/* into both tools' data directory of corpus NAME
#                  (test-mode -1k files, when there is no network to download them from).
#   ESBENCH_BEFORE an esbench source tree to race too, as "before" (e.g. an older commit's archive).
#   FIRST          the tool that races first on the fresh node: rally (default) or esbench. The
#                  second races on a node whose JVM has compiled the first one's request path;
#                  alternate it (benchmarks/short_task_throughput.sh does with ALTERNATE=1).
#   WARM           1: race the same options once more before both tools, results discarded, so
#                  that neither measured race meets a cold JVM.
#   RALLY_PYTHONPATH  PYTHONPATH for Rally's processes only (an experiment's sitecustomize, e.g.
#                  benchmarks/rally_without_stacklevel).
#   NODE_CPUS, TOOL_CPUS  taskset CPU lists for the node and for the tools (e.g. 1 and 0): on a
#                  2-core machine a tool that spends more CPU per request otherwise also slows the
#                  node it measures, and the two tools are compared on different nodes in effect.
#
# Output: OUTDIR/{rally,esbench[,before]}.{csv,out} and, on stdout, the rows (metric, task) each
# tool reported, and the tasks with an error-rate row per tool. Needs root (unshare).
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 OUTDIR TRACK_PATH [race options...]" >&2
    exit 64
fi
OUT=$(realpath -m "$1"); TRACK=$(realpath "$2"); shift 2
REPO=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
export OUT TRACK REPO
export RALLY=${RALLY:-/opt/rally/bin/esrally} ES_VERSION=${ES_VERSION:-8.8.2}
export CORPUS_FILES=${CORPUS_FILES:-} ESBENCH_BEFORE=${ESBENCH_BEFORE:-}
export NODE_CPUS=${NODE_CPUS:-} TOOL_CPUS=${TOOL_CPUS:-} RALLY_PYTHONPATH=${RALLY_PYTHONPATH:-}
export FIRST=${FIRST:-rally} WARM=${WARM:-}
exec unshare --net --pid --fork --mount-proc bash -s -- "$@" <<'INNER'
set -u
# Not the repository: "python3 -m" would import the esbench of the current directory.
cd "$OUT"
ip link set lo up
ip addr add 10.213.0.1/32 dev lo && ip route add default dev lo
export ESBENCH_DIST_CACHE=${ESBENCH_DIST_CACHE:-$HOME/.cache/esbench/distributions}
RALLY_HOME=$OUT/rally-home
tools=(rally esbench)
[ -n "$ESBENCH_BEFORE" ] && tools+=(before)
IFS=',' read -ra pairs <<< "$CORPUS_FILES"
for pair in "${pairs[@]}"; do
    name=${pair%%=*}; dir=${pair#*=}
    for d in "$RALLY_HOME/.rally/benchmarks/data/$name" "$OUT/esbench-home/corpora/$name" "$OUT/before-home/corpora/$name"; do
        mkdir -p "$d" && cp "$dir"/* "$d"/
    done
done
node_pin=(); tool_pin=()
[ -n "$NODE_CPUS" ] && node_pin=(taskset -c "$NODE_CPUS")
[ -n "$TOOL_CPUS" ] && tool_pin=(taskset -c "$TOOL_CPUS")
ESBENCH_HOME=$OUT/node-home PYTHONPATH=$REPO "${node_pin[@]}" python3 -m esbench start --distribution-repository=maven \
    --distribution-version="$ES_VERSION" > "$OUT/start.out" 2>&1
HOSTS=$(sed -n 's/^hosts: //p' "$OUT/start.out")
if [ -z "$HOSTS" ]; then echo "the node did not start: see $OUT/start.out" >&2; exit 1; fi
common=(--track-path="$TRACK" --target-hosts="$HOSTS" --report-format=csv)
race_rally() {
    HOME=$RALLY_HOME PYTHONPATH=$RALLY_PYTHONPATH "${tool_pin[@]}" timeout 1800 "$RALLY" race --pipeline=benchmark-only \
        --offline "${common[@]}" --report-file="$OUT/rally.csv" "$@" > "$OUT/rally.out" 2>&1
    echo "rally exit $?"
}
race_esbench() {
    ESBENCH_HOME=$OUT/esbench-home PYTHONPATH=$REPO "${tool_pin[@]}" timeout 1800 python3 -m esbench race --offline \
        "${common[@]}" --report-file="$OUT/esbench.csv" "$@" > "$OUT/esbench.out" 2>&1
    echo "esbench exit $?"
}
if [ "$WARM" = 1 ]; then
    # A race whose results are discarded, so that both measured races find the node's JVM warm.
    ESBENCH_HOME=$OUT/warm-home PYTHONPATH=$REPO "${tool_pin[@]}" timeout 1800 python3 -m esbench race --offline \
        --track-path="$TRACK" --target-hosts="$HOSTS" "$@" > "$OUT/warm.out" 2>&1
    echo "warm-up race exit $?"
fi
if [ "$FIRST" = esbench ]; then
    race_esbench "$@"; race_rally "$@"
else
    race_rally "$@"; race_esbench "$@"
fi
if [ -n "$ESBENCH_BEFORE" ]; then
    ESBENCH_HOME=$OUT/before-home PYTHONPATH=$ESBENCH_BEFORE "${tool_pin[@]}" timeout 1800 python3 -m esbench race --offline \
        "${common[@]}" --report-file="$OUT/before.csv" --on-error=continue "$@" > "$OUT/before.out" 2>&1
    echo "before exit $?"
fi
ESBENCH_HOME=$OUT/node-home PYTHONPATH=$REPO python3 -m esbench stop > "$OUT/stop.out" 2>&1
for tool in "${tools[@]}"; do
    [ -f "$OUT/$tool.csv" ] || { echo "$tool: no report"; continue; }
    # Task rows only (cluster rows have an empty task); esbench's "failed requests" rows are extra.
    grep -v '^"\?failed requests' "$OUT/$tool.csv" | awk -F, 'NR > 1 && $2 != "" {print $1 "," $2}' > "$OUT/$tool.rows"
    echo "$tool: $(wc -l < "$OUT/$tool.rows") task rows, $(grep -c '^error rate' "$OUT/$tool.rows") tasks with an error rate"
done
if cmp -s "$OUT/rally.rows" "$OUT/esbench.rows"; then
    echo "rally and esbench report the same (metric, task) rows"
else
    echo "rows that differ (< rally, > esbench):"; diff "$OUT/rally.rows" "$OUT/esbench.rows"
fi
INNER
