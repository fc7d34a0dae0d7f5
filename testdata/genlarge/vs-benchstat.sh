#!/bin/bash
# vs-benchstat.sh measures rigor compare against benchstat on
# testdata/genlarge's files (issue 28's compare rows): CPU time (user+sys)
# and peak memory (max RSS) by /usr/bin/time, each command run RUNS times,
# the commands alternating, and prints each one's medians and its ratios to
# benchstat's. CPU time, not wall time: on a shared machine a process
# waits for a CPU without spending any.
#
#	testdata/genlarge/vs-benchstat.sh [N [RUNS [RIGOR...]]]
#
# N benchmarks (1000), RUNS runs of each (7), RIGOR binaries to compare
# (rigor on PATH; several, to measure an old and a new binary in one
# sitting). benchstat is $BENCHSTAT or benchstat on PATH, installed at the
# x/perf version of go.mod:
#
#	go install golang.org/x/perf/cmd/benchstat@$(go list -m -f '{{.Version}}' golang.org/x/perf)
set -euo pipefail
n=${1:-1000}
runs=${2:-7}
shift $(($# < 2 ? $# : 2))
rigors=("$@")
[ ${#rigors[@]} -gt 0 ] || rigors=(rigor)
benchstat=${BENCHSTAT:-benchstat}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$(dirname "$0")/../.."
go run ./testdata/genlarge -o "$dir" -n "$n"
times=$dir/times
for _ in $(seq "$runs"); do
	/usr/bin/time -f "benchstat %U %S %M" -a -o "$times" "$benchstat" "$dir/old.txt" "$dir/new.txt" >/dev/null
	for r in "${rigors[@]}"; do
		/usr/bin/time -f "$r %U %S %M" -a -o "$times" "$r" compare --no-record "$dir/old.txt" "$dir/new.txt" >/dev/null
	done
done
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
stat() { # stat COMMAND: its median CPU seconds and max RSS in KiB
	cpu=$(awk -v c="$1" '$1 == c {print $2 + $3}' "$times" | median)
	rss=$(awk -v c="$1" '$1 == c {print $4}' "$times" | median)
}
stat benchstat
bcpu=$cpu brss=$rss
echo "$n benchmarks, median of $runs runs each"
printf '%-40s %8.3f s CPU %8.1f MiB\n' benchstat "$bcpu" "$(echo "$brss / 1024" | bc -l)"
for r in "${rigors[@]}"; do
	stat "$r"
	printf '%-40s %8.3f s CPU %8.1f MiB   %.2fx CPU, %.2fx memory\n' "$r" "$cpu" "$(echo "$rss / 1024" | bc -l)" \
		"$(echo "$cpu / $bcpu" | bc -l)" "$(echo "$rss / $brss" | bc -l)"
done
