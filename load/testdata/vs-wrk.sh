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
set -euo pipefail
rounds=${1:-5}
secs=${2:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'kill "$srv" 2>/dev/null || true; rm -rf "$tmp"' EXIT

mkdir -p "$tmp/srv"
cat > "$tmp/srv/main.go" <<'GO'
package main

import (
	"net/http"
	"os"
)

func main() {
	hello := []byte("hello, world\n")
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { w.Write(hello) })
	http.ListenAndServe(os.Args[1], nil)
}
GO
(cd "$tmp/srv" && go mod init srv >/dev/null 2>&1 && go build -o "$tmp/server" .)
(cd "$root" && go build -o "$tmp/rigor" ./cmd/rigor)

addr=127.0.0.1:18089
"$tmp/server" $addr &
srv=$!
sleep 0.5
url=http://$addr/

wrk_cmd=(wrk -t2 -c32 -d${secs}s --latency "$url")
rigor_cmd=("$tmp/rigor" ramp -q --concurrency 32 --warmup 1s --duration ${secs}s --knee 0 --format csv "$url")
echo "wrk:   ${wrk_cmd[*]}"
echo "rigor: rigor ramp -q --concurrency 32 --warmup 1s --duration ${secs}s --knee 0 --format csv $url"
echo "round,wrk_rps,rigor_rps,rigor_p50_us,rigor_p99_us,rigor_gen_cpu,wrk_p50,load1"
for i in $(seq "$rounds"); do
	w=$("${wrk_cmd[@]}")
	wrps=$(awk '/Requests\/sec/ {print $2}' <<<"$w")
	wp50=$(awk '$1=="50%" {print $2}' <<<"$w")
	r=$("${rigor_cmd[@]}" | tail -1)
	rrps=$(cut -d, -f6 <<<"$r")
	rp50=$(cut -d, -f12 <<<"$r")
	rp99=$(cut -d, -f14 <<<"$r")
	rcpu=$(cut -d, -f21 <<<"$r")
	echo "$i,$wrps,$rrps,$((rp50/1000)),$((rp99/1000)),$rcpu,$wp50,$(cut -d' ' -f1 /proc/loadavg)"
done | tee "$tmp/rounds.csv"
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
wm=$(cut -d, -f2 "$tmp/rounds.csv" | median)
rm=$(cut -d, -f3 "$tmp/rounds.csv" | median)
awk -v w="$wm" -v r="$rm" 'BEGIN {printf "median wrk %.0f req/s, rigor %.0f req/s: rigor/wrk = %.3f\n", w, r, r/w}'
