#!/bin/sh
# experiments/shards/run.sh: the numbers of docs/shards.md.
#
# Generates a module of N benchmarks (default 200) whose new revision
# changes four of them, then at one budget T per machine (default 180s,
# samples of BENCHTIME, default 10ms):
#   1. rigor ab --plan: what T buys on one machine, how many shards;
#   2. the whole suite on one machine (--shard 0/1);
#   3. the suite in 4 shards, each its own process and results directory;
#   4. rigor merge of the 4, checked against each shard's own report with
#      Holm over every shard's p-values computed by experiments/shards/check;
#   5. rigor merge of 3 of the 4: the gate fails, naming the missing one;
#   6. the shard holding B001 again as a "second machine" on which B001's
#      change is SHARDS_OFFSET (default 10) percent larger, merged with the
#      4: B001 is analysed with the machine as a random effect.
# Shards run one after another (this is a 2-core machine); on CI they run
# at once on their own machines.
#
#   sh experiments/shards/run.sh [WORKDIR]
set -eu
N=${N:-200}
T=${T:-180s}
OFFSET=${SHARDS_OFFSET_PCT:-10}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${1:-/tmp/rigor-shards}
BENCHTIME=${BENCHTIME:-10ms}
FLAGS="--old HEAD~1 --new HEAD --time $T --benchtime $BENCHTIME --profile off --no-record"
rm -rf "$WORK"
mkdir -p "$WORK"
(cd "$REPO" && go build -o "$WORK/rigor" ./cmd/rigor && go build -o "$WORK/check" ./experiments/shards/check && go build -o "$WORK/balance" ./experiments/shards/balance)
(cd "$REPO" && go run ./experiments/shards/gen -n "$N" -dir "$WORK/suite" ${CHANGES:+-changes "$CHANGES"})
R="$WORK/rigor"
cd "$WORK/suite"
log() { echo "== $* (load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M:%S))"; }
rounds() { # rounds of each benchmark in a run.json: min, median, max
	python3 -c '
import json, sys, statistics
r = json.load(open(sys.argv[1]))
n = {}
for b in r["benchmarks"]:
    for m in b["metrics"]:
        if m["unit"] == "sec/op":
            n[b["name"]] = len({s["round"] for s in m["samples"] if s["side"] == "new"})
v = sorted(n.values())
print("%d rows: rounds min %d, median %g, max %d" % (len(v), v[0], statistics.median(v), v[-1]))
' "$1"
}

log "plan at --time $T"
$R ab $FLAGS --plan ./... > "$WORK/plan.txt" 2>/dev/null || true
sed -n 1,5p "$WORK/plan.txt"

log "one machine: --shard 0/1"
$R ab $FLAGS --shard 0/1 --out "$WORK/one" --format json ./... > "$WORK/one.json" 2>"$WORK/one.err" || true
rounds "$WORK/one/run.json"
"$WORK/balance" -n 4 "$WORK/one"

for i in 0 1 2 3; do
	log "shard $i/4"
	$R ab $FLAGS --shard $i/4 --out "$WORK/shard-$i" --format json ./... > "$WORK/shard-$i.json" 2>"$WORK/shard-$i.err" || true
	rounds "$WORK/shard-$i/run.json"
	python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["shard"]
print("shard %d/%d: %d of %d top-level benchmarks" % (s["index"], s["count"], len(s["benchmarks"]), s["selected"]))' "$WORK/shard-$i/run.json"
done

log "merge of the 4 shards"
set +e
$R merge --format json "$WORK"/shard-0 "$WORK"/shard-1 "$WORK"/shard-2 "$WORK"/shard-3 > "$WORK/merged.json"
echo "merge exit $?"
"$WORK/check" "$WORK/merged.json" "$WORK"/shard-0.json "$WORK"/shard-1.json "$WORK"/shard-2.json "$WORK"/shard-3.json
echo "check exit $?"
$R merge "$WORK"/shard-0 "$WORK"/shard-1 "$WORK"/shard-2 "$WORK"/shard-3 > "$WORK/merged.txt" 2>&1
head -3 "$WORK/merged.txt"

log "merge of 3 shards (shard 2 missing)"
$R merge "$WORK"/shard-0 "$WORK"/shard-1 "$WORK"/shard-3 > /dev/null 2>"$WORK/missing.err"
echo "merge exit $?: $(cat "$WORK/missing.err")"
set -e

OWNER=$(python3 -c '
import json, sys
for i in range(4):
    s = json.load(open(sys.argv[1] + "/shard-%d/run.json" % i))["shard"]
    if any(k.endswith(".BenchmarkB001") for k in s["benchmarks"]):
        print(i)' "$WORK")
log "shard $OWNER/4 again on a second machine, B001 +$OFFSET% there"
SHARDS_OFFSET=$OFFSET $R ab $FLAGS --shard "$OWNER"/4 --out "$WORK/shard-$OWNER-b" --format json ./... > "$WORK/shard-$OWNER-b.json" 2>"$WORK/shard-$OWNER-b.err" || true
set +e
$R merge --format json "$WORK"/shard-0 "$WORK"/shard-1 "$WORK"/shard-2 "$WORK"/shard-3 "$WORK/shard-$OWNER-b" > "$WORK/machines.json"
echo "merge exit $?"
set -e
python3 -c '
import json, sys
def b001(path):
    for b in json.load(open(path))["benchmarks"]:
        if b["name"] == "B001":
            for m in b["metrics"]:
                if m["unit"] == b.get("verdict_metric", "sec/op"):
                    return m["changes"][0]
for name, path in (("machine A", sys.argv[1]), ("machine B", sys.argv[2]), ("merged", sys.argv[3])):
    c = b001(path)
    print("%-9s B001 (its verdict metric) %+.2f%% [%+.2f%%, %+.2f%%] test %s, %d pairs, %s" % (name, 100*c["estimate"], 100*c["lo"], 100*c["hi"], c["test"], c["n"], c["verdict"]))
' "$WORK/shard-$OWNER.json" "$WORK/shard-$OWNER-b.json" "$WORK/machines.json"
log done
