#!/bin/bash
# Rally 2.13 and esbench write races into one Elasticsearch metrics store; Rally then lists and
# compares them. Run by tests/integration/test_rally_store.py inside a private network and PID
# namespace (unshare), because Rally allows one race per machine (peer-oracles.md).
#
#   rally_store_oracle.sh OUT     (environment: RALLY, REPO, ES_VERSION, TRACK, DIST_CACHE, PYTHON)
#
# In OUT: start.out; esbench1.out, rally.out, esbench2.out (races in this order: esbench's first
# race puts Rally's templates with keyword where the node has no wildcard); list.out; ids (the
# two esbench race ids and Rally's); compare.out (esbench's two races), compare-rally.out (Rally's race
# with itself); {races,results,metrics}.json (every document);
# exit codes in *.rc. The node is stopped at the end.
set -u
OUT=$1
cd "$OUT"
ip link set lo up
# Rally's actor system wants an address other than loopback, with a route.
ip addr add 10.213.0.1/32 dev lo && ip route add default dev lo
export ESBENCH_DIST_CACHE=$DIST_CACHE
PY=${PYTHON:-python3}
esb() { PYTHONPATH=$REPO "$PY" -m esbench "$@"; }
ESBENCH_HOME=$OUT/node-home esb start --distribution-repository=maven --distribution-version="$ES_VERSION" \
    > start.out 2>&1
HOSTS=$(sed -n 's/^hosts: //p' start.out)
if [ -z "$HOSTS" ]; then echo "the node did not start: see start.out" >&2; exit 1; fi
HOST=${HOSTS%%:*}; PORT=${HOSTS##*:}

export RALLY_HOME_DIR=$OUT/rally-home
mkdir -p "$RALLY_HOME_DIR/.rally/benchmarks/data/compare-tiny" "$OUT/esbench-home/corpora/compare-tiny"
cp "$TRACK/documents.json" "$RALLY_HOME_DIR/.rally/benchmarks/data/compare-tiny/"
cp "$TRACK/documents.json" "$OUT/esbench-home/corpora/compare-tiny/"
# The same [system] and [reporting] sections in both tools' configuration: a Rally user copies them.
SECTIONS="[system]
env.name = oracle

[reporting]
datastore.type = elasticsearch
datastore.host = $HOST
datastore.port = $PORT
datastore.secure = false
datastore.user =
datastore.password =
"
printf '%s' "$SECTIONS" > "$OUT/esbench-home/esbench.ini"
cat > "$RALLY_HOME_DIR/.rally/rally-oracle.ini" <<INI
[meta]
config.version = 17

$SECTIONS
[node]
root.dir = $RALLY_HOME_DIR/.rally/benchmarks
src.root.dir = $RALLY_HOME_DIR/.rally/benchmarks/src

[source]
remote.repo.url = https://github.com/elastic/elasticsearch.git
elasticsearch.src.subdir = elasticsearch

[benchmarks]
local.dataset.cache = $RALLY_HOME_DIR/.rally/benchmarks/data

[tracks]
default.url = https://github.com/elastic/rally-tracks

[teams]
default.url = https://github.com/elastic/rally-teams

[defaults]
preserve_benchmark_candidate = false

[distributions]
release.cache = true
INI
common=(--track-path="$TRACK" --target-hosts="$HOSTS" --track-params=search_time_period:2)
rally() { HOME=$RALLY_HOME_DIR timeout 600 "$RALLY" "$@" --configuration-name=oracle; }

race() { ESBENCH_HOME=$OUT/esbench-home PYTHONPATH=$REPO timeout 600 "$PY" -m esbench race --offline "$@"; }
race "${common[@]}" --user-tag=run:1 > esbench1.out 2>&1; echo $? > esbench1.rc
rally race --pipeline=benchmark-only --offline "${common[@]}" --user-tag=run:3 > rally.out 2>&1; echo $? > rally.rc
race "${common[@]}" --user-tag=run:2 > esbench2.out 2>&1; echo $? > esbench2.rc
for n in 1 2; do sed -n 's/.*race \([0-9a-f-]\{36\}\) .*results in.*/\1/p' esbench$n.out | tail -1; done > ids
sed -n 's/.*Race id is \[\([0-9a-f-]\{36\}\)\].*/\1/p' rally.out | tail -1 >> ids
rally list races > list.out 2>&1; echo $? > list.rc
mapfile -t IDS < ids
rally compare --baseline="${IDS[0]}" --contender="${IDS[1]}" > compare.out 2>&1; echo $? > compare.rc
rally compare --baseline="${IDS[2]}" --contender="${IDS[2]}" > compare-rally.out 2>&1; echo $? > compare-rally.rc
curl -s -XPOST "http://$HOSTS/rally-*/_refresh" > /dev/null
for kind in races results metrics; do
    curl -s "http://$HOSTS/rally-$kind-*/_search?size=10000" > $kind.json
done
ESBENCH_HOME=$OUT/node-home esb stop > stop.out 2>&1
