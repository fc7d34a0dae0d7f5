#!/bin/sh
# run.sh regenerates docs/examples/xxhash-inline, the real run the README
# links to (issue 39 item 4): cespare/xxhash commit a7909af, "Allow
# Sum64String and (*Digest).WriteString to be inlined", whose author
# published benchstat numbers in the commit message, measured here by
#
#   1. rigor ab --old a7909af^ --new a7909af . at the default budget
#      (--time 1m), timed from start to end, builds included;
#   2. benchstat's usual workflow at the same budget: go test -bench .
#      -count N on the old commit, then on the new one, sequentially,
#      N the largest count whose two passes fit in rigor's wall time
#      (from a -count 1 pass of the old side, not kept), then benchstat;
#   3. the same with -count 10, the count benchstat's documentation asks
#      for, however long it takes.
#
#   experiments/readme-example/run.sh XXHASH [OUT]
#
# XXHASH is a clone of github.com/cespare/xxhash (a path, or a URL git can
# clone: with network, https://github.com/cespare/xxhash); it is cloned
# again into a temporary directory and left alone. OUT defaults to
# docs/examples/xxhash-inline of this checkout. It takes about 15 minutes
# on a busy 2-core VM; it needs git, go, jq and bc, and
# is not run in CI. rigor is built from this checkout's HEAD, benchstat from
# the golang.org/x/perf version in go.mod.
set -eu
src=${1:?usage: run.sh XXHASH-CLONE [OUT]}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$root/docs/examples/xxhash-inline}
commit=a7909af24e080cb18e105af79be6915531147a86
short=a7909af
work=$(mktemp -d /tmp/readme-example.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/old-count*.txt "$out"/new-count*.txt "$out"/benchstat-count*

# rigor and benchstat from this checkout's HEAD (not its uncommitted edits).
rigorrev=$(cd "$root" && git rev-parse --short HEAD)
mkdir "$work/src"
(cd "$root" && git archive HEAD) | tar -x -C "$work/src"
(cd "$work/src" && go build -o "$work/rigor" ./cmd/rigor && go build -o "$work/benchstat" golang.org/x/perf/cmd/benchstat)
git clone -q "$src" "$work/xxhash"
cd "$work/xxhash"
if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
	echo "run.sh: $src has no commit $commit (cespare/xxhash's a7909af)" >&2
	exit 2
fi
git show -s --format=%B "$commit" >"$out/author.txt"
git worktree add -q --detach "$work/old" "$short^"
git worktree add -q --detach "$work/new" "$short"

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc | xargs printf '%.0f'; }
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "rigor: $rigorrev ($("$work/rigor" version 2>/dev/null | head -1))"
	echo "go: $(go version)"
	echo "cpus: $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
	echo "load before rigor ab: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"

# 1. rigor ab at the default budget.
t0=$(now)
"$work/rigor" ab --old "$short^" --new "$short" --no-record --out "$work/run" -o "$out/rigor.txt" . || true
t1=$(now)
T=$(secs "$t0" "$t1")
echo "rigor ab: ${T}s; load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
cp "$work/run/run.json" "$out/run.json"
"$work/rigor" report "$out/run.json" --format json -o "$work/rigor.json"
jq '{benchmarks: [.benchmarks[] | {name, verdict, decisions}]}' "$work/rigor.json" >"$out/verdicts.json"
"$work/rigor" report "$out/run.json" --format md -o "$out/rigor.md"

# benchpass DIR COUNT [go test flags]: one sequential go test -bench pass.
benchpass() {
	d=$1 c=$2
	shift 2
	(cd "$d" && go test -run '^$' -bench . -count "$c" "$@" .)
}

# 2. benchstat's workflow in the same wall time.
t0=$(now)
benchpass "$work/old" 1 >/dev/null
t1=$(now)
pass=$(secs "$t0" "$t1")
N=$(((T / 2) / pass))
[ "$N" -ge 1 ] || N=1
t0=$(now)
benchpass "$work/old" "$N" >"$out/old-count$N.txt"
benchpass "$work/new" "$N" >"$out/new-count$N.txt"
t1=$(now)
echo "go test -count $N, old then new: $(secs "$t0" "$t1")s (a -count 1 pass took ${pass}s); load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
(cd "$out" && "$work/benchstat" old=old-count$N.txt new=new-count$N.txt >benchstat-count$N.txt &&
	"$work/benchstat" -format csv old=old-count$N.txt new=new-count$N.txt >benchstat-count$N.csv 2>/dev/null)

# 3. benchstat's recommended -count 10.
t0=$(now)
benchpass "$work/old" 10 >"$out/old-count10.txt"
benchpass "$work/new" 10 >"$out/new-count10.txt"
t1=$(now)
echo "go test -count 10, old then new: $(secs "$t0" "$t1")s; load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
(cd "$out" && "$work/benchstat" old=old-count10.txt new=new-count10.txt >benchstat-count10.txt &&
	"$work/benchstat" -format csv old=old-count10.txt new=new-count10.txt >benchstat-count10.csv 2>/dev/null)
echo "N=$N" >"$out/count.txt"

cd "$root"
go run ./experiments/readme-example/render "$out"
cat "$out/machine.txt"
