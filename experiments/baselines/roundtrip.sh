#!/bin/bash
# Issue 22's baseline round trips (docs/history.md#baselines): a scratch
# module of two benchmarks, Work and Sum, and a branch `slow` where Work
# does 15% more steps. Each trip saves a baseline on main, then on the
# branch compares with it re-measured (--baseline main: paired) and across
# sessions (--baseline FILE), and prints each benchmark's verdict.
#
#	experiments/baselines/roundtrip.sh OUT TRIPS [NEIGHBOUR-SEED]
#
# With a seed, experiments/busy/neighbour runs beside every trip. Needs
# python3 for the summary. rigor is built from this checkout.
set -eu
out=$(mkdir -p "$1" && cd "$1" && pwd); trips=$2; seed=${3:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
(cd "$src" && go build -o "$out/rigor" ./cmd/rigor && go build -o "$out/neighbour" ./experiments/busy/neighbour)
mod=$(mktemp -d)
trap 'rm -rf "$mod"' EXIT
cd "$mod"
git init -q -b main
cat > go.mod <<'GO'
module example.com/rt

go 1.22
GO
cat > rt.go <<'GO'
package rt

var steps = 2000

func Work() uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < steps; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func Sum(s []uint64) (t uint64) {
	for _, v := range s {
		t += v
	}
	return t
}
GO
cat > rt_test.go <<'GO'
package rt

import "testing"

var sink uint64

func BenchmarkWork(b *testing.B) {
	for b.Loop() {
		sink = Work()
	}
}

var data = make([]uint64, 4096)

func BenchmarkSum(b *testing.B) {
	for b.Loop() {
		sink = Sum(data)
	}
}
GO
printf '.rigor/\n' > .gitignore
git add -A && git -c user.name=rt -c user.email=rt@example.com commit -qm base
git checkout -qb slow && sed -i 's/steps = 2000/steps = 2300/' rt.go
git -c user.name=rt -c user.email=rt@example.com commit -qam 'Work: 15% more steps'
flags=(--time 30s --profile off --format json)
for i in $(seq "$trips"); do
	git checkout -q main && rm -rf .rigor
	npid=
	if [ -n "$seed" ]; then "$out/neighbour" -seed $((seed + i - 1)) 2>/dev/null & npid=$!; sleep 2; fi
	"$out/rigor" run --save-baseline main "${flags[@]}" --out "$out/$i-save" ./... > "$out/$i-save.json" 2>/dev/null
	git checkout -q slow
	"$out/rigor" run --baseline main "${flags[@]}" --out "$out/$i-re" ./... > "$out/$i-re.json" 2>/dev/null || true
	"$out/rigor" run --baseline "$out/$i-save/run.json" --no-record "${flags[@]}" --out "$out/$i-across" ./... > "$out/$i-across.json" 2>/dev/null || true
	if [ -n "$npid" ]; then kill "$npid"; wait "$npid" 2>/dev/null || true; fi
	for path in re across; do
		python3 - "$out/$i-$path.json" "$i" "$path" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    for m in b["metrics"]:
        if m["unit"] == "sec/op":
            c = m.get("change") or {}
            est = c.get("estimate")
            lo, hi = c.get("lo"), c.get("hi")
            fmt = lambda v: "?" if v is None else "%+.1f%%" % (100 * v)
            print("trip %s %-7s %-5s %-12s %s [%s, %s]" % (sys.argv[2], sys.argv[3], b["name"], m.get("verdict"), fmt(est), fmt(lo), fmt(hi)))
PY
	done
done
