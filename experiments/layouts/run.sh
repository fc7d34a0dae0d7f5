#!/bin/sh
# Issue 38's layout experiment (docs/layouts.md): rigor ab with one link per
# side (--layouts 1) against the default (several links, each with its own
# random function layout) on layout-only A/A' pairs and on public commits
# whose authors published benchstat numbers.
#
#   experiments/layouts/run.sh setup DIR          clone the three repositories into DIR
#                                                 and commit the A/A' edit on branch layouts-aa
#   experiments/layouts/run.sh series DIR OUT N   N trials per method per repository, then
#                                                 the real commits once per method, into OUT
#   experiments/layouts/run.sh table OUT          the tables of docs/layouts.md
#
# RIGOR is the rigor binary (default: built from this checkout into OUT);
# RIGOR_FLAGS adds flags to every run; FIRST=T starts at trial T (more
# trials into an OUT that has some; the real commits run only in trial 1).
# Runs go one at a time, alternating the two methods; trial t uses
# --seed t (so the default's layouts differ between trials). Each run
# leaves OUT/KIND/REPO/METHOD-T.json (--format json), .run/ (run.json,
# old.txt, new.txt), .stderr and .wall (seconds, exit status).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)

# The A/A' pairs: name, clone, package, benchmarks (--bench), old revision.
# new is always branch layouts-aa: old plus a new non-test file holding an
# unused exported function, so no benchmark's code changes but the link does.
aa_cases='
xxhash xxhash . /(4B|16B|100B|4KB)$ ab37246
sha3 crypto ./sha3 . c17aa50
trace net ./trace ^BenchmarkTrace_(Default|10|100)_(2|10|100)$ 0ca694d2
'
# The real commits: name, clone, package, benchmarks, old, new.
real_cases='
sha3-c17aa50 crypto ./sha3 . c17aa50^ c17aa50
xxhash-a7909af xxhash . String a7909af^ a7909af
'

setup() {
	dir=$1
	mkdir -p "$dir"
	[ -d "$dir/xxhash" ] || git clone -q https://github.com/cespare/xxhash "$dir/xxhash"
	[ -d "$dir/crypto" ] || git clone -q https://go.googlesource.com/crypto "$dir/crypto"
	[ -d "$dir/net" ] || git clone -q https://go.googlesource.com/net "$dir/net"
	echo "$aa_cases" | while read -r name clone pkg bench old; do
		[ -n "$name" ] || continue
		r=$dir/$clone
		git -C "$r" rev-parse -q --verify layouts-aa >/dev/null && continue
		git -C "$r" checkout -q -b layouts-aa "$old"
		p=$(cd "$r/$pkg" && go list -f '{{.Name}}' .)
		printf 'package %s\n\n// LayoutsUnused is an unused exported function: it changes the link, not the benchmarks (rigor issue 38).\nfunc LayoutsUnused(x []byte) int {\n\tn := 0\n\tfor _, c := range x {\n\t\tn += int(c) * 31\n\t}\n\treturn n\n}\n' "$p" >"$r/$pkg/layouts_unused.go"
		git -C "$r" add "$pkg/layouts_unused.go"
		git -C "$r" -c user.email=rigor@example.com -c user.name=rigor commit -q -m "unused function (rigor issue 38 A/A')"
	done
}

one() { # one KIND NAME CLONE PKG BENCH OLD NEW METHOD TRIAL
	kind=$1 name=$2 clone=$3 pkg=$4 bench=$5 old=$6 new=$7 method=$8 trial=$9
	o=$out/$kind/$name
	mkdir -p "$o"
	flags=
	[ "$method" = single ] && flags="--layouts 1"
	echo "layouts: $kind $name $method trial $trial, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	start=$(date +%s)
	set +e
	# shellcheck disable=SC2086
	(cd "$dir/$clone" && "$RIGOR" ab --old "$old" --new "$new" --bench "$bench" --seed "$trial" $flags \
		--no-record --out "$o/$method-$trial.run" --format json -o "$o/$method-$trial.json" ${RIGOR_FLAGS:-} "$pkg") \
		2>"$o/$method-$trial.stderr"
	status=$?
	set -e
	echo "$(( $(date +%s) - start )) $status" >"$o/$method-$trial.wall"
	echo "layouts: $kind $name $method trial $trial: exit $status, $(cut -d' ' -f1 "$o/$method-$trial.wall")s" >&2
}

series() {
	dir=$(cd "$1" && pwd) out=$2 n=$3
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	if [ -z "${RIGOR:-}" ]; then
		(cd "$here" && go build -o "$out/rigor" ./cmd/rigor)
		RIGOR=$out/rigor
	fi
	"$RIGOR" version >"$out/rigor-version.txt" 2>&1 || true
	t=${FIRST:-1}
	while [ "$t" -le "$n" ]; do
		echo "$aa_cases" | while read -r name clone pkg bench old; do
			[ -n "$name" ] || continue
			# alternate which method goes first
			if [ $((t % 2)) = 1 ]; then m1=single m2=default; else m1=default m2=single; fi
			one aa "$name" "$clone" "$pkg" "$bench" "$old" layouts-aa $m1 "$t"
			one aa "$name" "$clone" "$pkg" "$bench" "$old" layouts-aa $m2 "$t"
		done
		if [ "$t" = 1 ]; then
			echo "$real_cases" | while read -r name clone pkg bench old new; do
				[ -n "$name" ] || continue
				git -C "$dir/$clone" show -s --format=%B "$new" >"$out/$name.author.txt"
				mkdir -p "$out/real/$name"
				cp "$out/$name.author.txt" "$out/real/$name/author.txt"
				one real "$name" "$clone" "$pkg" "$bench" "$old" "$new" single 1
				one real "$name" "$clone" "$pkg" "$bench" "$old" "$new" default 1
			done
		fi
		t=$((t + 1))
	done
}

case ${1:-} in
setup) setup "$2" ;;
series) series "$2" "$3" "${4:-5}" ;;
table) (cd "$here" && go run ./experiments/layouts/tabulate "$2") ;;
*)
	sed -n '2,19p' "$0" >&2
	exit 2
	;;
esac
