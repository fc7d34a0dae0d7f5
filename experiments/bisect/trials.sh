#!/bin/bash
# trials.sh OUT N GITN RIGOR [TIME] [BENCHTIME]
#
# Issue 27's real-repository trials: cespare/xxhash (a clone in $XXHASH,
# /tmp/xxhash by default), -tags purego, BenchmarkSum64/4B, from a7909af
# ("Allow Sum64String and (*Digest).WriteString to be inlined") to
# 3c87ff8 ("Update README for arm64 asm; latest benchmarks"): 32
# first-parent commits, of which 5132688 ("Remove bounds checks from
# purego Sum64", +21% MB/s on 4B in its message) is the change to find.
#
# Trial i runs `rigor bisect --time TIME` (3m by default) on a quiet
# machine and then beside experiments/busy's neighbour (seed i); the first
# GITN trials also run gitbisect.sh (git bisect run + benchstat, -count 10
# at -benchtime BENCHTIME, 1.5s by default) after each. Every run is
# started through $RUN (e.g. a script that moves it into a cgroup of its
# own), and the neighbour too. Results: OUT/{quiet,busy}-{rigor,git}-I/.
# FIRST (1 by default) is the first trial's number; BUSYTIME, when set,
# is rigor's --time beside the neighbour.
# Tally with: bash tally.sh OUT
set -u
out=$1 n=$2 gitn=$3 rigor=$4 budget=${5:-3m} benchtime=${6:-1.5s}
repo=${XXHASH:-/tmp/xxhash}
run=${RUN:-}
here=$(cd "$(dirname "$0")" && pwd)
good=a7909af bad=3c87ff8 bench='^BenchmarkSum64$/^4B$'
mkdir -p "$out"; out=$(cd "$out" && pwd)
(cd "$here/../busy/neighbour" && go build -o "$out/neighbour" .) || exit 2
rigortrial() { # name [budget]
  local d="$out/$1" t=${2:-$budget}
  ( cd "$repo" && /usr/bin/time -f "%e s wall" $run "$rigor" bisect --good $good --bad $bad --tags purego \
      --bench "$bench" --time "$t" --no-record --out "$d" . > "$d.out" 2> "$d.err" )
  echo "$1: $(grep -A1 'found the commit' "$d.out" | tail -1 | awk '{print $1}') $(tail -1 "$d.err")"
}
gittrial() { # name
  $run bash "$here/gitbisect.sh" "$repo" $good $bad "$bench" "$out/$1" -tags purego -benchtime "$benchtime" > "$out/$1.log" 2>&1
  echo "$1: $(tail -2 "$out/$1/result" | tr '\n' ' ')"
}
for i in $(seq "${FIRST:-1}" "$n"); do
  rigortrial quiet-rigor-$i
  [ "$i" -le "$gitn" ] && gittrial quiet-git-$i
  $run "$out/neighbour" -seed "$i" > "$out/neighbour-$i.log" 2>&1 &
  npid=$!
  sleep 2
  rigortrial busy-rigor-$i "${BUSYTIME:-$budget}"
  [ "$i" -le "$gitn" ] && gittrial busy-git-$i
  kill "$npid"; wait "$npid" 2>/dev/null
done
