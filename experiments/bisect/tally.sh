#!/bin/bash
# tally.sh OUT [COMMIT]: what each trial of trials.sh found, and the rates.
# COMMIT is the change to find (5132688 by default). A rigor search that
# ran out of --time before it reached one commit is "left N" when the
# range it had still to search (N commits) holds COMMIT: no wrong turn.
set -u
out=$1 want=${2:-5132688}
repo=${XXHASH:-/tmp/xxhash}
holds() { # lo hi: whether (lo, hi] holds $want
  [ "$(git -C "$repo" rev-parse "$1")" != "$(git -C "$repo" rev-parse "$want")" ] &&
    git -C "$repo" merge-base --is-ancestor "$1" "$want" && git -C "$repo" merge-base --is-ancestor "$want" "$2"
}
for cond in quiet busy; do
  for tool in rigor git; do
    n=0 hit=0 times=()
    for f in "$out"/$cond-$tool-*; do
      [ -d "$f" ] || continue
      n=$((n+1))
      if [ $tool = rigor ]; then
        found=$(grep -A1 '^found the commit' "$f.out" 2>/dev/null | tail -1 | awk '{print $1}')
        if [ -z "$found" ]; then
          left=$(grep -m1 '^not searched yet' "$f.out" | sed -E 's/.* over the ([0-9]+) commits ([0-9a-f]+)\.\.([0-9a-f]+):.*/\1 \2 \3/')
          if [ -n "$left" ] && holds $(echo "$left" | cut -d' ' -f2,3); then found="left-$(echo "$left" | cut -d' ' -f1)"
          else found=$(grep -m1 -E '^(inconclusive|no change|not searched)' "$f.out" 2>/dev/null | cut -c1-40); fi
        fi
        t=$(tail -1 "$f.err" | awk '{print $1}')
        steps=$(grep -m1 -oE '^[0-9]+ steps, [0-9]+ rounds' "$f.out")
      else
        found=$(grep '^found\|^none' "$f/result" | tail -1 | awk '{print $2}')
        t=$(tail -1 "$f/result" | awk '{print $1}')
        steps="$(cat "$f/steps" 2>/dev/null | wc -l) steps"
      fi
      case "$found" in $want*) hit=$((hit+1)); ok=yes ;; *) ok=no ;; esac
      times+=("$t")
      printf '%-16s %-4s %-14s %-24s %7.1f s\n' "$(basename "$f")" "$ok" "${found:0:12}" "$steps" "$t"
    done
    [ $n -gt 0 ] && echo "== $cond $tool: $hit of $n found $want; median time $(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}') s"
  done
done
