#!/usr/bin/env bash
# The steps of rigor's GitHub Action (action.yml at the repository's root),
# one subcommand each, so that they run the same on a runner and in the
# local end-to-end test (action/action_test.go):
#
#   rigor-action.sh check     refuse bad inputs and unsafe events
#   rigor-action.sh install   build rigor from the action's own checkout
#   rigor-action.sh fetch     find the base revision and fetch its history
#   rigor-action.sh compare   rigor ab base..HEAD: rigor.md, run.json, report.html
#                             (with shard I/N, that part of the benchmarks)
#   rigor-action.sh merge     rigor merge of the shards' artifacts in shards-dir:
#                             rigor.md, report.html and the gate's result
#   rigor-action.sh summary   append rigor.md to the job summary
#   rigor-action.sh comment   post or update one pull-request comment (of
#                             this job's report, or with mode comment of
#                             another job's artifact)
#   rigor-action.sh history   record the run in a SQLite store, export pages
#   rigor-action.sh restore-branch, save-branch   carry that store on a branch
#   rigor-action.sh gate      exit with rigor's exit status
#
# Inputs come as INPUT_* variables (action.yml sets them from its inputs),
# the rest from the runner's GITHUB_* and RUNNER_* variables. Nothing here
# needs a database server or a secret beyond the job's own token, and only
# the comment step uses that (docs/action-security.md).
set -euo pipefail

step=${1:?usage: rigor-action.sh check|install|fetch|compare|merge|summary|comment|history|restore-branch|save-branch|gate}
out=${INPUT_OUT_DIR:-${RUNNER_TEMP:?RUNNER_TEMP is not set}/rigor}
mkdir -p "$out"
state="$out/state" # what one step tells the next, KEY=VALUE lines

say() { printf 'rigor-action: %s\n' "$*" >&2; }
setstate() { printf '%s=%s\n' "$1" "$2" >>"$state"; }
getstate() { [ -f "$state" ] && sed -n "s/^$1=//p" "$state" | tail -1; }
output() { [ -n "${GITHUB_OUTPUT:-}" ] && printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; return 0; }
event() { # a field of the event payload, "" when absent
  [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ] || return 0
  python3 - "$GITHUB_EVENT_PATH" "$1" <<'EOF' 2>/dev/null || true
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)
EOF
}
marker='<!-- rigor-action -->' # the first line of rigor's comment
# owncomments prints the ids, oldest first, of the comments in $1 (what
# gh api --paginate prints: one JSON array a page) that $2 wrote and that
# start with the marker.
owncomments() {
  python3 - "$1" "$2" "$marker" <<'EOF'
import json, sys
text, author, marker = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
dec, i, ids = json.JSONDecoder(), 0, []
while True:
    while i < len(text) and text[i].isspace():
        i += 1
    if i == len(text):
        break
    page, i = dec.raw_decode(text, i)
    for c in page if isinstance(page, list) else []:
        if not isinstance(c, dict):
            continue
        if (c.get("user") or {}).get("login") == author and (c.get("body") or "").startswith(marker):
            ids.append(int(c["id"]))
for n in sorted(ids):
    print(n)
EOF
}
# warn prints a warning that GitHub shows on the run's page (fixed text
# and numbers only: nothing that a pull request's code wrote).
warn() { printf '::warning title=rigor::%s\n' "$*"; }
# ghfailure is the last line gh wrote to stderr, letters, digits and a
# little punctuation only.
ghfailure() { tail -n 1 "$out/gh.err" | tr -cd '[:alnum:] ().,:/-' | cut -c 1-200; }
# regular succeeds if $1 is a regular file, not a link.
regular() { [ -f "$1" ] && [ ! -L "$1" ]; }
# field prints the value of KEY in a KEY=VALUE file (result.txt) if it
# has the shape REGEX, else nothing: in mode comment the file is
# untrusted.
field() {
  regular "$3" || return 0
  local v
  v=$(head -c 4096 "$3" | sed -n "s/^$1=//p" | tail -n 1)
  [[ $v =~ $2 ]] && printf '%s\n' "$v"
  return 0
}
# notoption refuses a value that git would take for an option (--upload-pack=...
# runs a command): what comes from an input never starts with "-".
notoption() {
  case "$2" in -*) say "$1: $2 starts with \"-\", which git would take for an option"; exit 2 ;; esac
}
# branchname refuses what is not a branch name (git check-ref-format).
branchname() {
  notoption "$1" "$2"
  git check-ref-format --branch "$2" >/dev/null 2>&1 || { say "$1: $2 is not a branch name"; exit 2; }
}
# lines prints the non-empty lines of $1, one word each (inputs that hold
# several arguments take one a line, so that no argument is re-split).
lines() { printf '%s\n' "$1" | sed '/^[[:space:]]*$/d'; }
# noreport writes rigor.md when rigor wrote none (exit 2): what rigor
# said instead, so that the summary and the comment are never empty. What
# it said can quote the pull request's text (a compiler's errors), so the
# fence is longer than any run of backticks in it: nothing there can close
# the block and be rendered as Markdown (@mentions, links, images).
noreport() {
  tail -n 30 "$out/rigor.stderr" >"$out/rigor.stderr.tail"
  # shellcheck disable=SC2016 # backticks for python, not for the shell
  fence=$(python3 -c 'import re, sys; t = open(sys.argv[1], errors="replace").read(); print("`" * max([3] + [len(r) + 1 for r in re.findall("`+", t)]))' "$out/rigor.stderr.tail")
  {
    echo "### rigor: no comparison (exit $1)"
    echo
    echo "$fence"
    cat "$out/rigor.stderr.tail"
    echo "$fence"
  } >"$out/rigor.md"
}
# shardpattern is what the shard input must match: INDEX/COUNT, INDEX
# from 0 to COUNT-1 (rigor ab --shard's numbering).
shardpattern='^(0|[1-9][0-9]{0,3})/([1-9][0-9]{0,3})$'

case "$step" in
check)
  # The inputs, before anything is built or run.
  mode=${INPUT_MODE:-run}
  case "$mode" in run | comment | merge) ;; *) say "mode: $mode is none of run, comment, merge"; exit 2 ;; esac
  case "${INPUT_COMMENT:-true}" in true | false) ;; *) say "comment: ${INPUT_COMMENT} is neither true nor false"; exit 2 ;; esac
  case "${INPUT_HISTORY:-none}" in none | cache | branch) ;; *) say "history: ${INPUT_HISTORY} is none of none, cache, branch"; exit 2 ;; esac
  case "${INPUT_ALLOW_MISSING:-false}" in true | false) ;; *) say "allow-missing: ${INPUT_ALLOW_MISSING} is neither true nor false"; exit 2 ;; esac
  shard=${INPUT_SHARD:-}
  if [ -n "$shard" ]; then
    if ! [[ $shard =~ $shardpattern ]] || [ "${BASH_REMATCH[1]}" -ge "${BASH_REMATCH[2]}" ]; then
      say "shard: $shard is not INDEX/COUNT with INDEX from 0 to COUNT-1 (0/4 to 3/4, rigor ab --shard's numbering)"
      exit 2
    fi
    [ "$mode" = run ] || { say "shard: only mode run measures a shard (mode merge merges them)"; exit 2; }
    [ "${INPUT_HISTORY:-none}" = none ] || { say "history: a shard measures a part of the suite: keep the history from an unsharded run"; exit 2; }
    # The shard's artifact is named by its index and count (a name
    # cannot hold "/"): N shards' artifacts do not collide.
    output shard "${shard%/*}-of-${shard#*/}"
  fi
  if [ "$mode" = run ]; then
    # Mode run builds and runs the checked-out code. These events run in
    # the base repository's context, with its secrets and a token that
    # can write, and a workflow that checks out the pull request's head
    # there hands them to whoever opened the pull request.
    case "${GITHUB_EVENT_NAME:-}" in
    pull_request_target | issue_comment)
      say "mode run refuses to run under $GITHUB_EVENT_NAME, which has the repository's secrets and a token that can write: benchmark on pull_request and post the report from another job (docs/action-security.md)"
      exit 2
      ;;
    esac
    notoption base "${INPUT_BASE:-}"
    if [ "${INPUT_HISTORY:-none}" = branch ]; then branchname history-branch "${INPUT_HISTORY_BRANCH:-}"; fi
  elif [ "$mode" = merge ]; then
    [ -n "${INPUT_SHARDS_DIR:-}" ] || { say "mode merge needs shards-dir, where the shards' artifacts were downloaded"; exit 2; }
  elif [ -z "${INPUT_REPORT_DIR:-}" ]; then
    say "mode comment needs report-dir, where the benchmark job's artifact was downloaded"
    exit 2
  fi
  ;;

install)
  # rigor's own Go (action.yml's setup-go step), whatever the repository's
  # go.mod says; built from the action's checkout, at the action's ref.
  bin="${RUNNER_TEMP}/rigor-bin"
  (cd "${ACTION_PATH:?}" && GOBIN="$bin" go install ./cmd/rigor)
  [ -n "${GITHUB_PATH:-}" ] && echo "$bin" >>"$GITHUB_PATH"
  "$bin/rigor" version
  ;;

fetch)
  # The base: the input, else the pull request's base branch (compared at
  # its merge base with HEAD), else the push's previous head.
  base=${INPUT_BASE:-}
  ref=${GITHUB_BASE_REF:-}
  notoption base "$base"
  notoption "the base branch" "$ref"
  if [ -z "$base" ] && [ -n "$ref" ]; then
    if ! git fetch --no-tags --quiet origin "+refs/heads/$ref:refs/remotes/origin/$ref"; then
      # A private repository checked out with persist-credentials: false
      # can fetch nothing more: what the checkout fetched must do.
      git rev-parse --verify --quiet "refs/remotes/origin/$ref" >/dev/null || {
        say "cannot fetch the base branch $ref (a private repository checked out without credentials needs actions/checkout's fetch-depth: 0)"
        exit 2
      }
      say "cannot fetch $ref: the clone's origin/$ref is the base"
    fi
    base="origin/$ref"
  fi
  if [ -z "$base" ]; then
    base=$(event before)
    case "$base" in "" | 0000000000000000000000000000000000000000) base=HEAD~1 ;; esac
  fi
  # actions/checkout clones one commit by default: deepen until the
  # merge base (or the base commit itself) is there, then give up and
  # fetch everything.
  shallow=$(git rev-parse --is-shallow-repository)
  found() {
    git rev-parse --verify --quiet "$base^{commit}" >/dev/null || return 1
    [ -z "$ref" ] || git merge-base "$base" HEAD >/dev/null 2>&1
  }
  if [ "$shallow" = true ]; then
    for depth in 10 100 1000; do
      found && break
      say "shallow clone: git fetch --deepen=$depth"
      git fetch --no-tags --quiet --deepen="$depth" origin HEAD ${ref:+"+refs/heads/$ref:refs/remotes/origin/$ref"} || true
      if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null && [ -z "$ref" ]; then
        git fetch --no-tags --quiet origin "$base" 2>/dev/null || true
      fi
    done
    if ! found; then
      say "shallow clone: git fetch --unshallow"
      git fetch --no-tags --quiet --unshallow origin || true
    fi
  fi
  found || { say "the base $base is not in this clone's history"; exit 2; }
  if [ -n "$ref" ]; then
    sha=$(git merge-base "$base" HEAD)
  else
    sha=$(git rev-parse "$base^{commit}")
  fi
  say "base: $base at $sha"
  setstate base "$sha"
  output base "$sha"
  ;;

compare)
  base=$(getstate base)
  [ -n "$base" ] || { say "no base: run the fetch step first"; exit 2; }
  run="$out/run"
  rm -rf "$run"
  flags=(ab --old "$base" --new HEAD --out "$run" --format md -o "$out/rigor.md"
    --time "${INPUT_TIME:-10m}" --bench "${INPUT_BENCH:-.}")
  if [ -n "${INPUT_SHARD:-}" ]; then
    # A part of the suite: its own gate would correct over the part only,
    # so the merge job gates (exit 2 still fails this job: nothing
    # measured).
    flags+=(--shard "$INPUT_SHARD")
  elif [ -n "${INPUT_MAX_REGRESSION:-}" ]; then
    flags+=(--max-regression "$INPUT_MAX_REGRESSION")
  fi
  while IFS= read -r f; do flags+=("$f"); done < <(lines "${INPUT_FLAGS:-}")
  while IFS= read -r p; do flags+=("$p"); done < <(lines "${INPUT_PACKAGES:-./...}")
  testargs=()
  while IFS= read -r a; do testargs+=("$a"); done < <(lines "${INPUT_ARGS:-}")
  if [ ${#testargs[@]} -gt 0 ]; then flags+=(-- "${testargs[@]}"); fi
  rm -f "$out/rigor.md"
  # rigor's stderr to the log as it comes and to rigor.stderr, through a
  # pipe that is whole when the pipeline ends (a process substitution,
  # not waited for, left rigor.stderr empty when rigor failed at once).
  set +e
  { rigor "${flags[@]}" 2>&1 1>&3 3>&- | tee "$out/rigor.stderr" >&2 3>&-; } 3>&1
  code=${PIPESTATUS[0]}
  set -e
  say "rigor ab exited $code"
  if [ -f "$run/run.json" ]; then
    rigor report "$run/run.json" --format html -o "$out/report.html" || true
  fi
  if [ ! -s "$out/rigor.md" ]; then noreport "$code"; fi
  setstate code "$code"
  # The gate's result beside the report, for a comment job that has only
  # the artifact (mode comment).
  {
    echo "exit-code=$code"
    echo "max-regression=${INPUT_MAX_REGRESSION:-}"
    echo "pull-request=$(event pull_request.number)"
  } >"$out/result.txt"
  output exit-code "$code"
  output report "$out/rigor.md"
  ;;

merge)
  # The shards' artifacts, each downloaded to a directory of shards-dir
  # (actions/download-artifact with a pattern, without merge-multiple),
  # merged by rigor merge into one report and one gate: the correction
  # over the whole suite, and a shard missing or failed fails the gate
  # unless allow-missing. The artifacts were written by jobs that ran the
  # pull request's code, so they are data: rigor parses them, nothing of
  # them is run, a directory that holds a symbolic link is left out (its
  # shard then counts as missing), and what rigor says about them goes to
  # the log with workflow commands off (a "::" line of theirs obeys
  # nothing).
  dir=${INPUT_SHARDS_DIR:?mode merge needs shards-dir}
  case "$dir" in /*) ;; *) dir="./$dir" ;; esac # never an option to rigor
  stop=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  echo "::stop-commands::$stop"
  dirs=()
  if [ -d "$dir" ] && [ ! -L "$dir" ]; then
    shopt -s nullglob
    for d in "$dir"/*; do
      if [ -L "$d" ] || [ ! -d "$d" ]; then
        say "$d is not a shard's directory: left out"
      elif [ -n "$(find "$d" -type l -print -quit)" ]; then
        say "$d holds a symbolic link: left out, its shard counts as missing"
      else
        dirs+=("$d")
      fi
    done
    shopt -u nullglob
  fi
  rm -f "$out/rigor.md" "$out/report.html"
  flags=()
  if [ -n "${INPUT_MAX_REGRESSION:-}" ]; then flags+=(--max-regression "$INPUT_MAX_REGRESSION"); fi
  if [ "${INPUT_ALLOW_MISSING:-false}" = true ]; then flags+=(--allow-missing); fi
  while IFS= read -r f; do flags+=("$f"); done < <(lines "${INPUT_FLAGS:-}")
  if [ ${#dirs[@]} -eq 0 ]; then
    echo "rigor-action: no shard's results in $dir: was the shards' artifacts' download given another path or pattern?" | tee "$out/rigor.stderr" >&2
    code=2
  else
    say "rigor merge of ${#dirs[@]} directories"
    set +e
    { rigor merge --format md -o "$out/rigor.md" "${flags[@]}" "${dirs[@]}" 2>&1 1>&3 3>&- | tee "$out/rigor.stderr" >&2 3>&-; } 3>&1
    code=${PIPESTATUS[0]}
    set -e
    if [ "$code" != 2 ]; then
      rigor merge --format html -o "$out/report.html" "${flags[@]}" "${dirs[@]}" >/dev/null 2>&1 || true
    fi
  fi
  echo "::$stop::"
  say "rigor merge exited $code"
  if [ ! -s "$out/rigor.md" ]; then noreport "$code"; fi
  # A shard missing or failed (rigor merge's gate lines for them), for
  # the comment's headline.
  gate=regressed
  if grep -Eq '^rigor: gate: (shard [0-9]+/[0-9]+ (is missing|failed)|.* holds no run[.]json: its shard failed before measuring$)' "$out/rigor.stderr"; then
    gate=shards
  fi
  setstate code "$code"
  {
    echo "exit-code=$code"
    echo "max-regression=${INPUT_MAX_REGRESSION:-}"
    echo "pull-request=$(event pull_request.number)"
    echo "gate=$gate"
  } >"$out/result.txt"
  output exit-code "$code"
  output report "$out/rigor.md"
  ;;

summary)
  [ -n "${GITHUB_STEP_SUMMARY:-}" ] && cat "$out/rigor.md" >>"$GITHUB_STEP_SUMMARY"
  ;;

comment)
  # One comment per pull request, found again by its first line (the
  # marker) and its author, and updated in place, so that a busy pull
  # request is not flooded (the oldest, if there are several). A comment
  # that starts with the marker but was written by anyone else than the
  # token's identity (comment-author) is left alone: anyone who can
  # comment could plant one, and the report must not appear under their
  # name.
  #
  # mode run: the report this job made. mode comment: the report in
  # report-dir, an artifact that a benchmark job uploaded after running
  # the pull request's code, so untrusted text: its Markdown is posted
  # (cut at 60,000 bytes, never executed, never printed to the log,
  # nothing of it written to GITHUB_ENV or GITHUB_OUTPUT), and of
  # result.txt only values of the expected shape are used.
  #
  # A comment that cannot be posted (403 for a fork's pull request, whose
  # token is read-only) is a warning: the gate and the upload never
  # depend on it.
  author=${INPUT_COMMENT_AUTHOR:-github-actions[bot]}
  [[ $author =~ ^[A-Za-z0-9][A-Za-z0-9-]*(\[bot\])?$ ]] || { say "comment-author: $author is not a GitHub login"; exit 2; }
  if [ "${INPUT_MODE:-run}" = comment ]; then
    dir=${INPUT_REPORT_DIR:-}
    [ -n "$dir" ] || { say "mode comment needs report-dir, where the benchmark job's artifact was downloaded"; exit 2; }
    report="$dir/rigor.md" result="$dir/result.txt"
  else
    report="$out/rigor.md" result="$out/result.txt"
  fi
  regular "$report" || { say "no report to post (rigor.md in ${dir:-$out})"; exit 0; }
  repo=${GITHUB_REPOSITORY:?}
  case "${GITHUB_EVENT_NAME:-}" in
  pull_request)
    pr=$(event pull_request.number)
    ;;
  workflow_run)
    # The benchmark run's pull request, as its artifact names it, only
    # if that pull request's head is the commit that run benchmarked
    # (GitHub's payload lists no pull request for a fork's).
    [ "$(event workflow_run.event)" = pull_request ] || { say "the run was not for a pull request: no comment"; exit 0; }
    pr=$(field pull-request '^[1-9][0-9]{0,9}$' "$result")
    [ -n "$pr" ] || { say "the artifact names no pull request: no comment"; exit 0; }
    sha=$(event workflow_run.head_sha)
    if ! gh api "repos/$repo/pulls/$pr" >"$out/pull.json" 2>"$out/gh.err"; then
      warn "could not read pull request #$pr: $(ghfailure)"
      exit 0
    fi
    head=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["head"]["sha"])' "$out/pull.json" 2>/dev/null || true)
    if [ -z "$sha" ] || [ "$head" != "$sha" ]; then
      warn "pull request #$pr's head is not the commit the benchmark run measured (a newer push, or an artifact that names another pull request): no comment"
      exit 0
    fi
    ;;
  *) pr="" ;;
  esac
  [ -n "$pr" ] || { say "not a pull request: no comment"; exit 0; }
  code=$(field exit-code '^[0-9]{1,3}$' "$result")
  limit=$(field max-regression '^[0-9]{1,3}([.][0-9]{1,3})?$' "$result")
  case "$code" in
  0) gate="passed" ;;
  1) if [ "$(field gate '^(regressed|shards)$' "$result")" = shards ]; then
    gate="failed: a shard is missing or failed (the report says which)"
  else
    gate="failed: a benchmark regressed by more than ${limit:-max-regression}%"
  fi ;;
  "") gate="no verdict (the benchmark job left no exit code)" ;;
  *) gate="no verdict (rigor exited $code)" ;;
  esac
  body="$out/comment.md"
  python3 - "$report" "$body" "$marker" "**rigor**: $gate." <<'EOF'
import sys
src, dst, marker, headline = sys.argv[1:]
limit = 60000  # bytes; GitHub takes 65,536 characters
with open(src, "rb") as f:
    data = f.read(limit + 1)
text = data[:limit].decode("utf-8", "replace").replace("\0", "")
if len(data) > limit:
    text = text[: text.rfind("\n") + 1] + "\n*(cut at 60,000 bytes: the whole report is in the workflow run's artifact)*\n"
with open(dst, "w", encoding="utf-8") as f:
    f.write(marker + "\n" + headline + "\n\n" + text)
EOF
  # Every page into a file, then the ids: no head in a pipe, which under
  # pipefail fails the step with 141 (SIGPIPE) when gh writes a second
  # page after head has gone.
  listing="$out/comments.json"
  if ! gh api "repos/$repo/issues/$pr/comments?per_page=100" --paginate >"$listing" 2>"$out/gh.err"; then
    warn "could not list the comments of #$pr: $(ghfailure)"
    exit 0
  fi
  if ! ids=$(owncomments "$listing" "$author"); then
    warn "could not read the comments of #$pr"
    exit 0
  fi
  id=${ids%%$'\n'*}
  if [ -n "$id" ]; then
    if gh api --method PATCH "repos/$repo/issues/comments/$id" -F "body=@$body" >/dev/null 2>"$out/gh.err"; then
      say "updated comment $id on #$pr"
    else
      warn "could not update comment $id on #$pr: $(ghfailure)"
    fi
  elif gh api --method POST "repos/$repo/issues/$pr/comments" -F "body=@$body" >/dev/null 2>"$out/gh.err"; then
    say "commented on #$pr"
  else
    warn "could not comment on #$pr: $(ghfailure)"
  fi
  ;;

restore-branch)
  # The history's store from the history branch, when it has one.
  branch=${INPUT_HISTORY_BRANCH:-rigor-history}
  branchname history-branch "$branch"
  mkdir -p "$out/history"
  if git fetch --no-tags --quiet --depth 1 origin "refs/heads/$branch"; then
    git show "FETCH_HEAD:rigor.db" >"$out/history/rigor.db" 2>/dev/null || rm -f "$out/history/rigor.db"
  fi
  ;;

save-branch)
  # rigor.db and the static pages, force-pushed as one commit: the store
  # holds the history, the branch only carries it.
  branch=${INPUT_HISTORY_BRANCH:-rigor-history}
  branchname history-branch "$branch"
  tree=$(mktemp -d)
  cp "$out/history/rigor.db" "$tree/"
  cp -r "$out/pages/." "$tree/"
  git -C "$tree" init -q -b "$branch"
  git -C "$tree" add -A
  git -C "$tree" -c user.name=rigor -c user.email=rigor@users.noreply.github.com commit -q -m "rigor history at ${GITHUB_SHA:-HEAD}"
  # Pushed from the checkout, whose config holds the credentials
  # actions/checkout keeps (a push from "$tree" would have none): the job
  # needs permissions: contents: write.
  git fetch -q "$tree" "refs/heads/$branch"
  git push -q --force origin "FETCH_HEAD:refs/heads/$branch"
  ;;

history)
  # A SQLite store carried between runs (by the Actions cache, or a
  # branch: see action.yml), and static pages of its dashboard.
  db="$out/history/rigor.db"
  mkdir -p "$out/history"
  branch=${GITHUB_REF_NAME:-main}
  if [ -f "$out/run/run.json" ]; then
    rigor import --store "$db" --branch "$branch" "$out/run"
  fi
  rigor serve --store "$db" --export "$out/pages"
  say "history: $(find "$out/pages" -mindepth 1 -maxdepth 1 | wc -l) pages in $out/pages"
  ;;

gate)
  code=$(getstate code)
  exit "${code:-2}"
  ;;

*)
  say "unknown step $step"
  exit 2
  ;;
esac
