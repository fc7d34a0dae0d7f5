#!/bin/sh
# Issue 37's real-repository run: rigor ab of a public commit whose author
# published benchstat numbers, at the default budget with simulated
# instruction counts, once on a quiet machine and once beside the busy
# experiment's noisy neighbour; then the table of docs/instructions.md.
#
#   experiments/realrepo/run.sh CLONE PARENT COMMIT PKG OUT [CONTROLS]
#
# CLONE is a git clone of the repository (not committed here; see
# docs/instructions.md for how it was made), PKG the package path inside
# it (./sha3), OUT a new directory, CONTROLS the comma-separated
# benchmarks the commit does not reach. RIGOR_FLAGS adds flags to both
# runs (e.g. "--time 2m"); RIGOR a rigor binary (default: built from this
# checkout).
#
# Example (docs/instructions.md):
#   experiments/realrepo/run.sh /tmp/realrepo/crypto c17aa50^ c17aa50 ./sha3 /tmp/rr-sha3 PermutationFunction
set -eu
if [ $# -lt 5 ]; then
	sed -n '2,18p' "$0" >&2
	exit 2
fi
clone=$1 parent=$2 commit=$3 pkg=$4 out=$5 controls=${6:-}
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin="$out/bin"
mkdir -p "$bin"
if [ -z "${RIGOR:-}" ]; then
	(cd "$here" && go build -o "$bin/rigor" ./cmd/rigor)
	RIGOR="$bin/rigor"
fi
(cd "$here" && go build -o "$bin/neighbour" ./experiments/busy/neighbour)
git -C "$clone" show -s --format=%B "$commit" >"$out/author.txt"
"$RIGOR" version >"$out/rigor-version.txt" 2>&1 || true

one() { # one ENV: a rigor ab run into $out/ENV
	env=$1
	mkdir -p "$out/$env"
	echo "realrepo: $env run, $(cat /proc/loadavg 2>/dev/null)" >&2
	start=$(date +%s)
	set +e
	# shellcheck disable=SC2086
	(cd "$clone" && "$RIGOR" ab --old "$parent" --new "$commit" --instructions simulate \
		--out "$out/$env/run" --format json -o "$out/$env/rigor.json" ${RIGOR_FLAGS:-} "$pkg") \
		2>"$out/$env/stderr.txt"
	status=$?
	set -e
	echo "exit $status, $(( $(date +%s) - start ))s wall" >"$out/$env/status.txt"
	"$RIGOR" report --format text "$out/$env/run/run.json" >"$out/$env/rigor.txt" 2>>"$out/$env/stderr.txt" || true
	echo "realrepo: $env: $(cat "$out/$env/status.txt")" >&2
}

one quiet
"$bin/neighbour" -v -seed 1 -max-threads 3 -duration 30m 2>"$out/neighbour.log" &
npid=$!
trap 'kill $npid 2>/dev/null || true' EXIT
sleep 5 # let its first phase start
one neighbour
kill "$npid" 2>/dev/null || true
wait "$npid" 2>/dev/null || true
trap - EXIT

(cd "$here" && go run ./experiments/realrepo/tabulate -author "$out/author.txt" -controls "$controls" \
	quiet="$out/quiet/rigor.json" neighbour="$out/neighbour/rigor.json") | tee "$out/table.txt"
