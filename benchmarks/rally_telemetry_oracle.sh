#!/bin/bash
# What Rally 2.13 does with each cluster-sampling telemetry device on a node that lacks the device's
# feature (the Maven integ-test build: no CCR, transforms, searchable snapshots, ingest-geoip, not
# serverless). docs/telemetry.md and esbench/telemetry/devices/*.py cite its result; esbench's devices
# end the same way (tests/integration/test_telemetry_rally_devices.py).
#
#   benchmarks/rally_telemetry_oracle.sh OUTDIR
#
# Prints "<device> exit <code>" per device; OUTDIR/<device>.out is Rally's console output and
# OUTDIR/<device>.log its rally.log (the sampler errors and warnings are there only). Run on
# 2026-11-28: ccr-stats 0, transform-stats 64, searchable-snapshots-stats 0, geoip-stats 64,
# master-node-stats 0, blob-store-stats 0.
#
# Like isolated_rally_compare.sh: one Rally race at a time in a private PID and network namespace
# (needs root), on an 8.8.2 node esbench provisions there (the newest integ-test build that answers
# GET /, which Rally needs). RALLY: Rally's executable, copied under another name so other sessions'
# --kill-running-processes do not match it (default /work/venvs/rally/bin/esrally).
set -u
if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 64
fi
OUT=$(realpath -m "$1")
REPO=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
cp "${RALLY:-/work/venvs/rally/bin/esrally}" "$OUT/rally-telemetry-oracle"
export OUT REPO TRACK=$REPO/tests/resources/tracks/compare-tiny
exec unshare --net --pid --fork --mount-proc bash -s <<'INNER'
set -u
cd "$OUT"
ip link set lo up
ip addr add 10.213.0.1/32 dev lo && ip route add default dev lo
export ESBENCH_DIST_CACHE=${ESBENCH_DIST_CACHE:-$HOME/.cache/esbench/distributions}
ESBENCH_HOME=$OUT/node-home PYTHONPATH=$REPO python3 -m esbench start --distribution-repository=maven \
    --distribution-version=8.8.2 > "$OUT/start.out" 2>&1
HOSTS=$(sed -n 's/^hosts: //p' "$OUT/start.out")
if [ -z "$HOSTS" ]; then echo "the node did not start: see $OUT/start.out" >&2; exit 1; fi
for device in ccr-stats transform-stats searchable-snapshots-stats geoip-stats master-node-stats blob-store-stats; do
    rm -rf "$OUT/rally-home/.rally/logs"
    HOME=$OUT/rally-home timeout 600 "$OUT/rally-telemetry-oracle" race --pipeline=benchmark-only --offline \
        --track-path="$TRACK" --target-hosts="$HOSTS" --test-mode --telemetry="$device" \
        --kill-running-processes > "$OUT/$device.out" 2>&1
    echo "$device exit $?"
    cp "$OUT/rally-home/.rally/logs/rally.log" "$OUT/$device.log" 2>/dev/null
done
ESBENCH_HOME=$OUT/node-home PYTHONPATH=$REPO python3 -m esbench stop > "$OUT/stop.out" 2>&1
INNER
