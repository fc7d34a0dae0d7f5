#!/bin/bash
# gitbisect.sh REPO GOOD BAD BENCH OUT [GO TEST ARGS...]
#
# The usual way to bisect a benchmark, as issue 27's comparison runs it:
# `go test -bench BENCH -count 10` at good and at bad, then `git bisect
# run` with a script that measures each midpoint the same way and asks
# benchstat whether it differs from good in the direction good -> bad
# (p < 0.05, benchstat's default): if it does the midpoint is bad, if not
# it is good; a midpoint whose benchmark does not build or run is skipped
# (exit 125). Runs are sequential and unpaired, as the workflow is.
#
# GO TEST ARGS (after OUT) are passed to every go test run: -tags, and the
# -benchtime that gives the search the total time to compare with
# (BENCHTIME=1s by default). The first-bad commit git reports is printed
# as the last line of OUT/result ("found HASH" or "none: REASON"), with
# the search's wall time.
set -u
repo=$1 good=$2 bad=$3 bench=$4 out=$5
shift 5
mkdir -p "$out"
out=$(cd "$out" && pwd)
start=$(date +%s.%N)
wt=$(mktemp -d /tmp/gitbisect-XXXXXX)
trap 'cd /; git -C "$repo" worktree remove --force "$wt" >/dev/null 2>&1; rm -rf "$wt"' EXIT
git -C "$repo" worktree add -q --detach "$wt" "$bad" || exit 2
cd "$wt"
measure() { # rev file: go test at rev into file; fails when nothing was measured
  git checkout -q "$1" || return 1
  go test -run '^$' -bench "$bench" -count 10 $GOTESTARGS . > "$2" 2>&1
  grep -q '^Benchmark' "$2"
}
export GOTESTARGS="$*"
measure "$good" "$out/good.txt" || { echo "none: good does not measure" > "$out/result"; exit 1; }
measure "$bad" "$out/bad.txt" || { echo "none: bad does not measure" > "$out/result"; exit 1; }
# The change good -> bad: benchstat's delta column, e.g. "-17.22%" or "~".
delta() { benchstat -format csv "$1" "$2" 2>/dev/null | awk -F, '$1 ~ /\// && $0 ~ /%|~/ {print $(NF-1); exit}'; }
total=$(delta "$out/good.txt" "$out/bad.txt")
echo "good -> bad: $total" > "$out/result"
case "$total" in
  ''|'~') echo "none: benchstat finds no change between good and bad ($total)" >> "$out/result"
     echo "$(echo "$(date +%s.%N) - $start" | bc) s" >> "$out/result"; exit 0 ;;
esac
sign=${total:0:1}
cat > "$out/step.sh" <<STEP
#!/bin/bash
# git bisect run's script: exit 1 when HEAD is like bad, 0 like good, 125 to skip.
n=\$(ls "$out"/step-*.txt 2>/dev/null | wc -l)
f="$out/step-\$((n+1))-\$(git rev-parse --short=12 HEAD).txt"
go test -run '^\$' -bench '$bench' -count 10 $GOTESTARGS . > "\$f" 2>&1
grep -q '^Benchmark' "\$f" || exit 125
d=\$(benchstat -format csv "$out/good.txt" "\$f" 2>/dev/null | awk -F, '\$1 ~ /\\// && \$0 ~ /%|~/ {print \$(NF-1); exit}')
echo "\$(git rev-parse --short=12 HEAD) vs good: \$d" >> "$out/steps"
case "\$d" in $sign*) exit 1 ;; *) exit 0 ;; esac
STEP
chmod +x "$out/step.sh"
git bisect start --first-parent "$bad" "$good" >/dev/null
git bisect run "$out/step.sh" > "$out/bisect.log" 2>&1
found=$(grep -m1 'is the first bad commit' "$out/bisect.log" | awk '{print $1}')
git bisect reset -q >/dev/null 2>&1
if [ -n "$found" ]; then echo "found $found" >> "$out/result"; else echo "none: $(tail -1 "$out/bisect.log")" >> "$out/result"; fi
echo "$(echo "$(date +%s.%N) - $start" | bc) s" >> "$out/result"
