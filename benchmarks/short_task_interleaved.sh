#!/bin/bash
# rally-eventdata-track's `fieldstats` tasks (issue 38), Rally 2.13 and esbench taking turns on one
# warm node: the fair form of benchmarks/short_task_throughput.sh.
#
#   benchmarks/short_task_interleaved.sh OUTDIR [ROUNDS] [WARM_ROUNDS]
#
# A task of 1 to 240 requests lasts 10 ms to 2 s, and a fresh node's JVM is still compiling its
# search path for the first thousands of requests: the tool that races second on a fresh node
# meets a faster node (measured: either tool reports up to twice the other's value when it goes
# second). So here one node (in a private namespace, as benchmarks/isolated_rally_compare.sh) gets
# the daily layout once (challenge daily-fieldstats, benchmarks/tracks/eventdata-fieldstats), then
# WARM_ROUNDS (default 3) rounds whose results are discarded, then ROUNDS (default 8) measured
# rounds. Each round races only the four fieldstats tasks (--include-tasks) with both tools, Rally
# first in odd rounds and esbench first in even ones. Prints each round's Mean Throughput per task
# and tool, then per task the median of each tool and the median of the per-round ratios
# esbench/Rally, and the command. NODE_CPUS/TOOL_CPUS pin as in isolated_rally_compare.sh;
# RALLY_WITHOUT_STACKLEVEL=1 runs Rally with benchmarks/rally_without_stacklevel on its PYTHONPATH
# (an experiment: elasticsearch-py 8.6.1's per-call inspect.stack() made constant).
# RALLY_SAMPLE_LOG=1 runs Rally with benchmarks/rally_sample_log (its samples' times written down,
# an experiment) and prints benchmarks/rally_interval_parts.py over the measured rounds.
# CONNECTION_BENCH=1 then runs benchmarks/bench_new_connection_cost.py on the same warm node
# (7 concurrent fieldstats-like searches on new against kept connections) and prints it.
# Needs root (unshare) and Rally (RALLY, default a copy of /work/venvs/rally/bin/esrally).
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 OUTDIR [ROUNDS] [WARM_ROUNDS]" >&2
    exit 64
fi
if [ "${RALLY_WITHOUT_STACKLEVEL:-}" = 1 ] && [ "${RALLY_SAMPLE_LOG:-}" = 1 ]; then
    # Each is a sitecustomize module: Python imports only the first one on the path.
    echo "RALLY_WITHOUT_STACKLEVEL=1 and RALLY_SAMPLE_LOG=1 cannot be combined: set one of them" >&2
    exit 64
fi
OUT=$(realpath -m "$1"); ROUNDS=${2:-8}; WARM_ROUNDS=${3:-3}
REPO=$(cd "$(dirname "$0")/.." && pwd)
MIRROR=/work/.mirror/elastic+rally-eventdata-track/repo
rm -rf "$OUT" && mkdir -p "$OUT/track"
git --git-dir="$MIRROR" archive HEAD | tar x -C "$OUT/track"
cp "$REPO"/benchmarks/tracks/eventdata-fieldstats/*.json "$OUT/track/eventdata/challenges/"
if [ -z "${RALLY:-}" ]; then
    cp /work/venvs/rally/bin/esrally "$OUT/rally-short-task"
    RALLY=$OUT/rally-short-task
fi
RALLY_PYTHONPATH=
[ "${RALLY_WITHOUT_STACKLEVEL:-}" = 1 ] && RALLY_PYTHONPATH=$REPO/benchmarks/rally_without_stacklevel
[ "${RALLY_SAMPLE_LOG:-}" = 1 ] && RALLY_PYTHONPATH=$REPO/benchmarks/rally_sample_log
echo "command: NODE_CPUS=${NODE_CPUS:-} TOOL_CPUS=${TOOL_CPUS:-} RALLY_WITHOUT_STACKLEVEL=${RALLY_WITHOUT_STACKLEVEL:-} CONNECTION_BENCH=${CONNECTION_BENCH:-} RALLY_SAMPLE_LOG=${RALLY_SAMPLE_LOG:-} $0 $*"
export OUT REPO RALLY RALLY_PYTHONPATH ROUNDS WARM_ROUNDS NODE_CPUS=${NODE_CPUS:-} TOOL_CPUS=${TOOL_CPUS:-}
export CONNECTION_BENCH=${CONNECTION_BENCH:-} SAMPLE_LOG=${RALLY_SAMPLE_LOG:-}
export ESBENCH_DIST_CACHE=${ESBENCH_DIST_CACHE:-$HOME/.cache/esbench/distributions}
unshare --net --pid --fork --mount-proc bash -s <<'INNER'
set -u
cd "$OUT"
ip link set lo up
ip addr add 10.213.0.1/32 dev lo && ip route add default dev lo
node_pin=(); tool_pin=()
[ -n "$NODE_CPUS" ] && node_pin=(taskset -c "$NODE_CPUS")
[ -n "$TOOL_CPUS" ] && tool_pin=(taskset -c "$TOOL_CPUS")
ESBENCH_HOME=$OUT/node-home PYTHONPATH=$REPO "${node_pin[@]}" python3 -m esbench start --distribution-repository=maven \
    --distribution-version=8.8.2 > "$OUT/start.out" 2>&1
HOSTS=$(sed -n 's/^hosts: //p' "$OUT/start.out")
if [ -z "$HOSTS" ]; then echo "the node did not start: see $OUT/start.out" >&2; exit 1; fi
TRACK=$OUT/track/eventdata
TASKS=fieldstats-15-clients-15-warmup,fieldstats-7-clients,fieldstats-4-clients,fieldstats-1-client
ESBENCH_HOME=$OUT/setup-home PYTHONPATH=$REPO "${tool_pin[@]}" python3 -m esbench race --offline --track-path="$TRACK" \
    --target-hosts="$HOSTS" --challenge=daily-fieldstats --on-error=abort > "$OUT/setup.out" 2>&1 || echo "setup failed: $OUT/setup.out"
common=(--track-path="$TRACK" --target-hosts="$HOSTS" --challenge=daily-fieldstats --include-tasks="$TASKS"
    --on-error=abort --report-format=csv)
rally() {
    log=; [ "$SAMPLE_LOG" = 1 ] && log=$OUT/$1.rally.samples
    RALLY_SAMPLE_LOG=$log HOME=$OUT/rally-home PYTHONPATH=$RALLY_PYTHONPATH "${tool_pin[@]}" timeout 600 "$RALLY" race --pipeline=benchmark-only --offline "${common[@]}" \
        --report-file="$OUT/$1.rally.csv" > "$OUT/$1.rally.out" 2>&1 || echo "rally failed: $OUT/$1.rally.out"
}
esbench() {
    ESBENCH_HOME=$OUT/esbench-home PYTHONPATH=$REPO "${tool_pin[@]}" timeout 600 python3 -m esbench race --offline \
        "${common[@]}" --report-file="$OUT/$1.esbench.csv" > "$OUT/$1.esbench.out" 2>&1 || echo "esbench failed: $OUT/$1.esbench.out"
}
for w in $(seq 1 "$WARM_ROUNDS"); do rally "warm$w"; esbench "warm$w"; done
for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then rally "round$r"; esbench "round$r"; else esbench "round$r"; rally "round$r"; fi
done
if [ "$CONNECTION_BENCH" = 1 ]; then
    "${tool_pin[@]}" python3 "$REPO/benchmarks/bench_new_connection_cost.py" --host="http://${HOSTS%%,*}" \
        --clients=7 --rounds=200 > "$OUT/connections.out" 2>&1 || echo "connection bench failed: $OUT/connections.out"
fi
ESBENCH_HOME=$OUT/node-home PYTHONPATH=$REPO python3 -m esbench stop > "$OUT/stop.out" 2>&1
INNER
[ "$CONNECTION_BENCH" = 1 ] && cat "$OUT/connections.out"
[ "${RALLY_SAMPLE_LOG:-}" = 1 ] && python3 "$REPO/benchmarks/rally_interval_parts.py" "$OUT"/round*.rally.samples
python3 - "$OUT" "$ROUNDS" <<'PY'
import csv, statistics, sys
from pathlib import Path
out, rounds = Path(sys.argv[1]), int(sys.argv[2])
tasks = ["fieldstats-15-clients-15-warmup", "fieldstats-7-clients", "fieldstats-4-clients", "fieldstats-1-client"]
def mean_throughput(path):
    rows = csv.reader(path.open()) if path.exists() else []
    return {r[1]: float(r[2]) for r in rows if len(r) > 2 and r[0] == "Mean Throughput"}
values = {t: {"rally": [], "esbench": [], "ratio": []} for t in tasks}
print(f"{'round':5} {'first':7} {'task':34} {'rally':>9} {'esbench':>9} {'ratio':>6}")
for r in range(1, rounds + 1):
    got = {tool: mean_throughput(out / f"round{r}.{tool}.csv") for tool in ("rally", "esbench")}
    for t in tasks:
        ra, es = got["rally"].get(t), got["esbench"].get(t)
        if ra and es:
            values[t]["rally"].append(ra); values[t]["esbench"].append(es); values[t]["ratio"].append(es / ra)
        print(f"{r:<5} {'rally' if r % 2 else 'esbench':7} {t:34} {ra or '-':>9} {es or '-':>9} {f'{es / ra:.2f}' if ra and es else '-':>6}")
print(f"\n{'task':34} {'rounds':>6} {'rally median':>13} {'esbench median':>15} {'median ratio':>13}")
for t in tasks:
    v = values[t]
    if v["ratio"]:
        print(f"{t:34} {len(v['ratio']):>6} {statistics.median(v['rally']):>13.2f} {statistics.median(v['esbench']):>15.2f} {statistics.median(v['ratio']):>13.2f}")
PY
