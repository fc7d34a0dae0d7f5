#!/bin/sh
# tally.sh: one line per trials directory (experiments/execio/trials.sh's
# OUT): verdicts, false alarms, median rounds and seconds, load average
# range, then the position analysis's summary for wall and CPU time.
#
#   experiments/execio/tally.sh OUT...
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$root" && go build -o "$bin/positions" ./experiments/execio/positions)
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for d in "$@"; do
	t=$d/trials.tsv
	n=$(tail -n +2 "$t" | wc -l)
	verdicts=$(tail -n +2 "$t" | cut -f2 | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
	alarms=$(tail -n +2 "$t" | cut -f2 | grep -c -E 'improved|regressed' || true)
	clocks=$(tail -n +2 "$t" | cut -f3 | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
	rounds=$(tail -n +2 "$t" | cut -f7 | med)
	secs=$(tail -n +2 "$t" | cut -f8 | med)
	load=$(tail -n +2 "$t" | cut -f9 | sort -g | sed -n '1p;$p' | paste -sd- -)
	echo "$(basename "$d"): $n runs: $verdicts; false alarms $alarms; deciding clock $clocks; median $rounds rounds, ${secs}s; load $load"
	files=$(ls -d "$d"/*.run | sort -V | sed 's|$|/run.json|')
	for u in sec/op cpu-sec/op; do
		# shellcheck disable=SC2086
		"$bin/positions" -unit $u $files | tail -2 | sed "s|^|  $u: |"
	done
done
