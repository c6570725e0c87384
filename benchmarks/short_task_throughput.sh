#!/bin/bash
# Throughput of short tasks (no complete 1-second measurement window), Rally 2.13 vs esbench on the
# same node: the `fieldstats` tasks of Elastic's rally-eventdata-track (issue 38).
#
#   benchmarks/short_task_throughput.sh OUTDIR [RUNS]
#
# Copies rally-eventdata-track (EVENTDATA_TRACK, default: the mirror's newest commit) to
# OUTDIR/track, adds the challenge benchmarks/tracks/eventdata-fieldstats/short-fieldstats.json
# (20,000 documents into elasticlogs_q-*, then `fieldstats` with 15 clients x (15 warmup + 1)
# requests, 7, 4 and 1 clients x 1 request; with CHALLENGE=daily-fieldstats the same tasks over
# 24 daily indices of 3 shards, the layout of the track's daily-volume challenges; TRACK_PARAMS=
# number_of_days:N,daily_volume:SIZE changes it), and races it RUNS times (default 3) with both tools
# on a fresh node each time (benchmarks/isolated_rally_compare.sh: Rally first, then esbench).
# Prints, per run and task, Rally's and esbench's Mean Throughput and their ratio, and the command;
# with ESBENCH_BEFORE=DIR (an older esbench source tree, e.g. a commit's `git archive` with its C
# extensions built) also that esbench's value, raced third on the same node.
# With ALTERNATE=1, even runs race esbench first and Rally second on the fresh node (the "first"
# column says which): the second tool finds the node's JVM warmed by the first.
# With WARM=1, each run first races the challenge once, results discarded, so that neither tool
# meets the fresh node's cold JVM.
# With RALLY_WITHOUT_STACKLEVEL=1, Rally runs with benchmarks/rally_without_stacklevel on its
# PYTHONPATH (an experiment: elasticsearch-py 8.6.1's per-call inspect.stack() made constant).
# Needs root (unshare) and Rally (RALLY, default: a copy of /work/venvs/rally/bin/esrally).
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 OUTDIR [RUNS]" >&2
    exit 64
fi
OUT=$(realpath -m "$1"); RUNS=${2:-3}; CHALLENGE=${CHALLENGE:-short-fieldstats}
REPO=$(cd "$(dirname "$0")/.." && pwd)
MIRROR=/work/.mirror/elastic+rally-eventdata-track/repo
mkdir -p "$OUT"
rm -rf "$OUT/track" && mkdir -p "$OUT/track"
if [ -n "${EVENTDATA_TRACK:-}" ]; then
    cp -r "$EVENTDATA_TRACK"/. "$OUT/track/"
else
    git --git-dir="$MIRROR" archive HEAD | tar x -C "$OUT/track"
fi
cp "$REPO"/benchmarks/tracks/eventdata-fieldstats/*.json "$OUT/track/eventdata/challenges/"
if [ -z "${RALLY:-}" ]; then
    # Another file name, so that other sessions' --kill-running-processes does not match it.
    cp /work/venvs/rally/bin/esrally "$OUT/rally-short-task"
    export RALLY=$OUT/rally-short-task
fi
if [ "${RALLY_WITHOUT_STACKLEVEL:-}" = 1 ]; then
    export RALLY_PYTHONPATH=$REPO/benchmarks/rally_without_stacklevel
fi
echo "command: CHALLENGE=$CHALLENGE TRACK_PARAMS=${TRACK_PARAMS:-} ALTERNATE=${ALTERNATE:-} WARM=${WARM:-} RALLY_WITHOUT_STACKLEVEL=${RALLY_WITHOUT_STACKLEVEL:-} $0 $*"
# "rally n/t": the task's requests over the longest time a Rally worker logged for it ("finished
# executing tasks [...] in X seconds"): what Rally's running average approximates.
printf '%-4s %-8s %-34s %12s %12s %8s %12s %10s\n' run first task "rally ops/s" "esbench" ratio "before" "rally n/t"
for run in $(seq 1 "$RUNS"); do
    first=rally
    [ "${ALTERNATE:-}" = 1 ] && [ $((run % 2)) = 0 ] && first=esbench
    FIRST=$first "$REPO/benchmarks/isolated_rally_compare.sh" "$OUT/run$run" "$OUT/track/eventdata" \
        --challenge="$CHALLENGE" --on-error=abort ${TRACK_PARAMS:+--track-params="$TRACK_PARAMS"} > "$OUT/run$run.log" 2>&1 || true
    for spec in fieldstats-15-clients-15-warmup:240 fieldstats-7-clients:7 fieldstats-4-clients:4 fieldstats-1-client:1; do
        task=${spec%%:*}; requests=${spec#*:}
        took=$(grep -h "finished executing tasks \['$task'" "$OUT/run$run"/rally-home/.rally/logs/rally.log 2>/dev/null \
            | sed -n 's/.* in \([0-9.]*\) seconds$/\1/p' | sort -g | tail -1 || true)
        nt=$(awk -v n="$requests" -v t="${took:-0}" 'BEGIN {if (t > 0) printf "%.2f", n / t; else print "-"}')
        r=$(awk -F, -v t="$task" '$1 == "Mean Throughput" && $2 == t {print $3}' "$OUT/run$run/rally.csv" 2>/dev/null || true)
        e=$(awk -F, -v t="$task" '$1 == "Mean Throughput" && $2 == t {print $3}' "$OUT/run$run/esbench.csv" 2>/dev/null || true)
        b=$(awk -F, -v t="$task" '$1 == "Mean Throughput" && $2 == t {print $3}' "$OUT/run$run/before.csv" 2>/dev/null || true)
        ratio=$(awk -v r="${r:-0}" -v e="${e:-0}" 'BEGIN {if (r > 0 && e > 0) printf "%.2f", e / r; else print "-"}')
        printf '%-4s %-8s %-34s %12s %12s %8s %12s %10s\n' "$run" "$first" "$task" "${r:--}" "${e:--}" "$ratio" "${b:--}" "$nt"
    done
done
