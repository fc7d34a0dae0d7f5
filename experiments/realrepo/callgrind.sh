#!/bin/sh
# A reference count of instructions per op without rigor, as issue 37
# measured it by hand: each benchmark of two test binaries under Valgrind's
# callgrind at -test.benchtime N and 2N iterations (GOMAXPROCS=1,
# GODEBUG=asyncpreemptoff=1), twice each; the difference of the two
# processes' totals over N is the count per op, start-up and set-up (the
# benchmark's one-iteration run included) cancelled, the timer's stops
# ignored. Prints one line per benchmark: old and new per op (both
# repeats) and new/old - 1.
#
#   experiments/realrepo/callgrind.sh OLD.test NEW.test BENCH:N ...
#   experiments/realrepo/callgrind.sh old.test new.test PermutationFunction:20000 Sha3_512_MTU:2000
set -eu
if [ $# -lt 3 ]; then
	sed -n '2,13p' "$0" >&2
	exit 2
fi
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
old=$(abs "$1") new=$(abs "$2")
shift 2
total() { # total BIN BENCH ITERS: the instructions callgrind collected
	GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$1" -test.run '^$' -test.bench "^Benchmark$2\$" -test.benchtime "$3x" -test.count 1 2>&1 >/dev/null |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
perop() { # perop BIN BENCH N: instructions per op, (total at 2N - total at N) / N
	a=$(total "$1" "$2" "$3")
	b=$(total "$1" "$2" $(($3 * 2)))
	echo "$a $b $3" | awk '{printf "%.1f", ($2 - $1) / $3}'
}
printf 'benchmark\told/op\t\tnew/op\t\tchange\n'
for spec in "$@"; do
	bench=${spec%%:*} n=${spec#*:}
	o1=$(perop "$old" "$bench" "$n") o2=$(perop "$old" "$bench" "$n")
	n1=$(perop "$new" "$bench" "$n") n2=$(perop "$new" "$bench" "$n")
	echo "$bench $o1 $o2 $n1 $n2" | awk '{o=($2+$3)/2; n=($4+$5)/2; printf "%s\t%s %s\t%s %s\t%+.2f%%\n", $1, $2, $3, $4, $5, 100*(n/o-1)}'
done
