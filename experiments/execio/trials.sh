#!/bin/sh
# trials.sh: N A/A runs of rigor exec ('true' against 'true', the default
# budget and stopping rule) beside a neighbour, one after another, each
# run's report (JSON) and samples (run.json) kept, and a line per run in
# OUT/trials.tsv: trial, verdict, estimate and CI of the deciding clock,
# rounds, seconds, load average before the run.
#
#   experiments/execio/trials.sh RIGOR NEIGHBOUR N OUT [rigor exec flags...]
#
# RIGOR is the rigor binary; NEIGHBOUR is fsync, drop, dropall, apt or aptfull (this
# directory's neighbour.sh), cpu (experiments/busy/neighbour, up to 3
# CPU-bound threads in phases of 2-8 s), or none. The neighbour starts 5 s
# before the first run and is stopped after the last. Then
#
#   go run ./experiments/execio/positions OUT/*.run/run.json
#
# reads the samples by position in the round.
set -eu
rigor=$1 neighbour=$2 n=$3 out=$4
shift 4
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
pid=
case $neighbour in
fsync | drop | dropall | apt | aptfull)
	"$root/experiments/execio/neighbour.sh" "$neighbour" "$out/neighbour.d" &
	pid=$!
	;;
cpu)
	go build -o "$out/cpuneighbour" "$root/experiments/busy/neighbour"
	"$out/cpuneighbour" -seed 1 &
	pid=$!
	;;
none) ;;
*)
	echo "trials.sh: unknown neighbour $neighbour" >&2
	exit 2
	;;
esac
stop() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; }
trap stop EXIT INT TERM
[ -z "$pid" ] || sleep 5
printf 'trial\tverdict\tby\testimate\tlo\thi\trounds\tsec\tload\n' >"$out/trials.tsv"
i=1
while [ "$i" -le "$n" ]; do
	load=$(cut -d' ' -f1 /proc/loadavg)
	t0=$(date +%s.%N)
	"$rigor" exec --no-record --out "$out/$i.run" --format json -o "$out/$i.json" "$@" true true 2>"$out/$i.err" || true
	t1=$(date +%s.%N)
	jq -r --arg i "$i" --arg load "$load" --arg sec "$(echo "$t1 - $t0" | bc)" \
		'.benchmarks[0] as $b | $b.decisions[0] as $d |
		 [$i, $b.verdict, $d.unit, ($d.estimate*100|tostring), ($d.lo*100|tostring), ($d.hi*100|tostring),
		  ([$b.metrics[0].change.n]|.[0]|tostring), $sec, $load] | @tsv' "$out/$i.json" >>"$out/trials.tsv"
	tail -1 "$out/trials.tsv"
	i=$((i + 1))
done
