#!/usr/bin/env bash
# vs-wrk.sh: rigor's closed-loop HTTP/1.1 generator against wrk, run the
# same way (32 keep-alive connections, loopback, a minimal Go server) in
# alternating rounds so that both see the same machine.
#
#   bash load/testdata/vs-wrk.sh [rounds] [seconds]
#
# Needs wrk (apt-get install -y wrk). Prints each round's requests/s with
# the 1-minute load average after it, and the ratio of the medians. On a
# shared machine the load average says how much the rounds can be trusted.
#
# The environment changes what is run (vs-wrk-heavy.sh sets SPIN):
#
#   SPIN=150us   the server's handler spins that long (wall time) per request
#   RIGORS="a=/path/to/rigor b=/other/rigor"
#                rigor builds to run in each round, in order, after wrk,
#                instead of one built from this tree (named "rigor")
#   THREADS=1    also sample the generator's threads, the server's and the
#                machine's CPU in each run's steady state (from 1.5 s after
#                the warm-up to 1 s before the end): CPU, wake-ups
#                (voluntary context switches) and run-queue wait per
#                request, the generator's threads ranked by CPU (t1 the
#                busiest), "others" the rest of the machine's busy time
#                (task and interrupt time), "idle", "irq" (irq and softirq,
#                part of the tasks' time too) and "steal" as the machine's;
#                threads.csv, medians at the end
#   KEEP=dir     keep rounds.csv and threads.csv in dir
set -euo pipefail
rounds=${1:-5}
secs=${2:-5}
spin=${SPIN:-0}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
srv=
trap '[ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT

mkdir -p "$tmp/srv"
cat > "$tmp/srv/main.go" <<'GO'
package main

import (
	"net/http"
	"os"
	"time"
)

func main() {
	hello := []byte("hello, world\n")
	spin, err := time.ParseDuration(os.Args[2])
	if err != nil {
		panic(err)
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if spin > 0 {
			// CPU, not sleep: the handler is the bottleneck, as in a
			// server that computes its response.
			for t := time.Now(); time.Since(t) < spin; {
			}
		}
		w.Write(hello)
	})
	http.ListenAndServe(os.Args[1], nil)
}
GO
(cd "$tmp/srv" && go mod init srv >/dev/null 2>&1 && go build -o "$tmp/server" .)
if [ -z "${RIGORS:-}" ]; then
	(cd "$root" && go build -o "$tmp/rigor" ./cmd/rigor)
	RIGORS="rigor=$tmp/rigor"
fi
names=() bins=()
for nb in $RIGORS; do
	names+=("${nb%%=*}")
	bins+=("${nb#*=}")
done

addr=127.0.0.1:18089
"$tmp/server" $addr "$spin" &
srv=$!
sleep 0.5
url=http://$addr/

hz=$(getconf CLK_TCK)
# snap WHO PID: per thread "WHO tid utime+stime(ticks) voluntary_switches runq_wait_ns"
snap() {
	local t st sw rq
	for t in /proc/$2/task/*; do
		st=$(cut -d' ' -f14,15 "$t/stat" 2>/dev/null) || continue
		sw=$(awk '/^voluntary_ctxt_switches/ {print $2}' "$t/status" 2>/dev/null) || continue
		rq=$(cut -d' ' -f2 "$t/schedstat" 2>/dev/null) || continue
		echo "$1 ${t##*/} ${st/ /+} $sw $rq"
	done
}
# cpus: the machine's task (user, nice, system), idle (with iowait),
# interrupt (irq, softirq) and steal ticks
cpus() { awk '$1 == "cpu" {print "machine", 0, $2 + $3 + $4, $5 + $6, $7 + $8, $9}' /proc/stat; }
# sample NAME ROUND PID: snapshots of PID's threads, the server's and the
# machine's, from 1.5 s after the warm-up to 1 s before the end
sample() {
	local f=$tmp/sample.$1.$2 win=$((secs - 2 - 1))
	sleep 2.5
	[ "$win" -ge 1 ] || return 0
	{ snap gen "$3"; snap server "$srv"; cpus; } >"$f.a"
	sleep "$win"
	{ snap gen "$3"; snap server "$srv"; cpus; } >"$f.b"
	echo "$win" >"$f.win"
}
# report NAME ROUND RPS: the sampled figures per request, the generator's
# threads ranked by CPU (t1 the busiest); "others" is the machine's busy
# time less the server's and the generator's
report() {
	local f=$tmp/sample.$1.$2
	[ -f "$f.win" ] || return 0
	awk -v rps="$3" -v hz="$hz" -v win="$(cat "$f.win")" -v name="$1" -v round="$2" '
	function ticks(x, p) { split(x, p, "+"); return p[1] + p[2] }
	FNR == NR { a[$1 " " $2] = $0; next }
	{
		k = $1 " " $2
		if (!(k in a)) next
		split(a[k], o, " ")
		req = rps * win
		if ($1 == "machine") {
			busy = ($3 - o[3]) / hz * 1e6 / req; idle = ($4 - o[4]) / hz * 1e6 / req
			irq = ($5 - o[5]) / hz * 1e6 / req; steal = ($6 - o[6]) / hz * 1e6 / req
			next
		}
		cpu = (ticks($3) - ticks(o[3])) / hz * 1e6 / req
		vol = ($4 - o[4]) / req; rq = ($5 - o[5]) / 1e3 / req
		if ($1 == "server") { scpu += cpu; svol += vol; srq += rq; next }
		n++; c[n] = cpu; v[n] = vol; q[n] = rq; gcpu += cpu
	}
	END {
		# rank the generator threads by CPU
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (c[j] > c[i]) {
			t = c[i]; c[i] = c[j]; c[j] = t; t = v[i]; v[i] = v[j]; v[j] = t; t = q[i]; q[i] = q[j]; q[j] = t
		}
		for (i = 1; i <= 3 && i <= n; i++) printf "%s,%s,t%d,%.2f,%.3f,%.2f\n", name, round, i, c[i], v[i], q[i]
		for (i = 4; i <= n; i++) { rc += c[i]; rv += v[i]; rqq += q[i] }
		printf "%s,%s,rest,%.2f,%.3f,%.2f\n", name, round, rc, rv, rqq
		printf "%s,%s,generator,%.2f,,\n", name, round, gcpu
		printf "%s,%s,server,%.2f,%.3f,%.2f\n", name, round, scpu, svol, srq
		# the time of a task includes the interrupts it was running when the tick
		# came, which /proc/stat counts as irq and softirq
		printf "%s,%s,others,%.2f,,\n", name, round, busy + irq - scpu - gcpu
		printf "%s,%s,idle,%.2f,,\n", name, round, idle
		printf "%s,%s,irq,%.2f,,\n", name, round, irq
		printf "%s,%s,steal,%.2f,,\n", name, round, steal
	}' "$f.a" "$f.b" >>"$tmp/threads.csv"
}

wrk_cmd=(wrk -t2 -c32 -d${secs}s --latency "$url")
rigor_args=(ramp -q --concurrency 32 --warmup 1s --duration ${secs}s --knee 0 --format csv "$url")
echo "server: handler spins $spin per request"
echo "wrk:   ${wrk_cmd[*]}"
echo "rigor: rigor ${rigor_args[*]} ($RIGORS)"
hdr="round,wrk_rps"
for n in "${names[@]}"; do hdr+=",${n}_rps,${n}_p50_us,${n}_p99_us,${n}_gen_cpu"; done
echo "$hdr,wrk_p50,load1"
[ -n "${THREADS:-}" ] && echo "generator,round,thread,cpu_us_per_req,wakeups_per_req,runq_wait_us_per_req" >"$tmp/threads.csv"
for i in $(seq "$rounds"); do
	if [ -n "${THREADS:-}" ]; then
		"${wrk_cmd[@]}" >"$tmp/wrk.out" &
		wpid=$!
		sample wrk "$i" "$wpid" &
		wait
		w=$(cat "$tmp/wrk.out")
	else
		w=$("${wrk_cmd[@]}")
	fi
	wrps=$(awk '/Requests\/sec/ {print $2}' <<<"$w")
	wp50=$(awk '$1=="50%" {print $2}' <<<"$w")
	[ -n "${THREADS:-}" ] && report wrk "$i" "$wrps"
	line="$i,$wrps"
	for j in "${!bins[@]}"; do
		if [ -n "${THREADS:-}" ]; then
			"${bins[$j]}" "${rigor_args[@]}" >"$tmp/rigor.out" &
			rpid=$!
			sample "${names[$j]}" "$i" "$rpid" &
			wait
			r=$(tail -1 "$tmp/rigor.out")
		else
			r=$("${bins[$j]}" "${rigor_args[@]}" | tail -1)
		fi
		rrps=$(cut -d, -f6 <<<"$r")
		[ -n "${THREADS:-}" ] && report "${names[$j]}" "$i" "$rrps"
		line+=",$rrps,$(($(cut -d, -f12 <<<"$r") / 1000)),$(($(cut -d, -f14 <<<"$r") / 1000)),$(cut -d, -f21 <<<"$r")"
	done
	echo "$line,$wp50,$(cut -d' ' -f1 /proc/loadavg)"
done | tee "$tmp/rounds.csv"
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
wm=$(cut -d, -f2 "$tmp/rounds.csv" | median)
for j in "${!names[@]}"; do
	rm=$(cut -d, -f$((3 + 4 * j)) "$tmp/rounds.csv" | median)
	ahead=$(awk -F, -v c=$((3 + 4 * j)) '$c > $2 {n++} END {print n + 0}' "$tmp/rounds.csv")
	awk -v w="$wm" -v r="$rm" -v n="${names[$j]}" -v a="$ahead" -v k="$rounds" \
		'BEGIN {printf "median wrk %.0f req/s, %s %.0f req/s: %s/wrk = %.3f (ahead in %d of %d)\n", w, n, r, n, r/w, a, k}'
done
if [ -n "${THREADS:-}" ]; then
	echo "steady state per request, medians over rounds (CPU, wake-ups, run-queue wait):"
	awk -F, 'NR > 1 {k = $1 "," $3; v[k] = v[k] " " $4 "/" $5 "/" $6; if (!(k in seen)) {seen[k] = 1; order[++n] = k}}
	END {for (i = 1; i <= n; i++) print order[i] ":" v[order[i]]}' "$tmp/threads.csv" |
		while IFS=: read -r k vals; do
			med() { tr ' ' '\n' | grep . | cut -d/ -f"$1" | median; }
			echo "$k,cpu $(med 1 <<<"$vals") us,wakeups $(med 2 <<<"$vals"),runq $(med 3 <<<"$vals") us"
		done
fi
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP"
	cp "$tmp/rounds.csv" "$KEEP/"
	[ -f "$tmp/threads.csv" ] && cp "$tmp/threads.csv" "$KEEP/"
fi
