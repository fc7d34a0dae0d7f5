package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/report"
	"github.com/rigorbench/rigor/store"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// recordFlags say whether and where rigor run, ab, compare and exec
// record their result in the history store.
type recordFlags struct {
	record, noRecord bool
	store            string
}

func (f *recordFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.record, "record", false, "record the result in the history store, creating it if needed (default: record when a store exists)")
	fs.BoolVar(&f.noRecord, "no-record", false, "do not record the result in the history store")
	registerStoreFlag(fs, &f.store)
}

func registerStoreFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "store", "", "history `store`: a postgres:// URL or a SQLite file (default $"+sqlstore.EnvStore+", else .rigor/"+sqlstore.FileName+" in the module root)")
}

// check refuses contradictory flags, and a store location that is not
// one, before anything is measured.
func (f *recordFlags) check() error {
	if f.record && f.noRecord {
		return usageErrorf("--record and --no-record contradict each other")
	}
	if !f.noRecord {
		if _, _, err := storeLocation(f.store); err != nil && storeNamed(f.store) {
			return err
		}
	}
	return nil
}

// storeNamed reports whether a store was named: by --store (flag) or
// $RIGOR_STORE.
func storeNamed(flag string) bool {
	return flag != "" || os.Getenv(sqlstore.EnvStore) != ""
}

// storeLocation is where the history store is, for every command: --store
// (flag), else $RIGOR_STORE, else .rigor/rigor.db in the module root
// (root, "" outside a module). A usage error when no store is named
// outside a module, or when the one named is neither a PostgreSQL URL
// nor a file path.
func storeLocation(flag string) (loc, root string, err error) {
	root, _ = store.ModuleRoot(".")
	if root == "" && !storeNamed(flag) {
		return "", "", usageErrorf("no go.mod here, so no .rigor directory: give --store or set $%s", sqlstore.EnvStore)
	}
	loc = sqlstore.Default(flag, root)
	if err := sqlstore.CheckLocation(loc); err != nil {
		from := "--store"
		if flag == "" {
			from = "$" + sqlstore.EnvStore
		}
		return "", root, usageErrorf("%s %s", from, report.TerminalSafe(err.Error()))
	}
	return loc, root, nil
}

// after records run, as the flags say, once the command has produced
// result (its error, nil on success). A failure to record is one line on
// stderr; it changes the exit status (to 2) only when --record asked for
// the recording and the command had otherwise succeeded.
func (f *recordFlags) after(ctx context.Context, stderr io.Writer, run *model.Run, result error) error {
	return f.afterPlacing(ctx, stderr, run, result, nil)
}

// afterPlacing is after, with place, when not nil, giving the run's sides
// their commits before it is recorded (see atWorkingTree).
func (f *recordFlags) afterPlacing(ctx context.Context, stderr io.Writer, run *model.Run, result error, place func(context.Context, *model.Run) *model.Run) error {
	var ee *exitError
	if f.noRecord || run == nil || (result != nil && !(errors.As(result, &ee) && ee.code == exitGateFail)) {
		return result // nothing asked for, or a failed command: nothing to keep
	}
	loc, root, err := storeLocation(f.store)
	if !f.record && !storeNamed(f.store) && (err != nil || !sqlstore.Exists(loc)) {
		return result // no store, none asked for
	}
	if err != nil {
		fmt.Fprintln(stderr, "rigor: not recorded:", storeError(err))
		return recordFailed(f.record, result)
	}
	if place != nil {
		run = place(ctx, run)
	}
	rec, err := recording(ctx, root, run)
	if err == nil {
		var got sqlstore.Recorded
		if got, err = recordRun(ctx, loc, run, rec); err == nil {
			what := "recorded"
			if got.Duplicate {
				what = "already recorded"
			}
			fmt.Fprintf(stderr, "rigor: %s run %d in %s (%d samples, machine %s)\n", what, got.ID, locationName(loc), got.Samples, got.Machine)
			if place != nil && !slices.ContainsFunc(run.Sides, func(sd model.Side) bool { return sd.Rev != "" }) {
				fmt.Fprintf(stderr, "rigor: run %d names no commit (not in a git repository): history and changes show it only with --dirty\n", got.ID)
			}
			return result
		}
	}
	fmt.Fprintln(stderr, "rigor: not recorded:", storeError(err))
	return recordFailed(f.record, result)
}

// atWorkingTree places the sides of run that name no commit, such as
// rigor exec's (commands, not revisions), at the commit checked out in
// the current directory: HEAD, dirty when the working tree has
// uncommitted changes, as rigor run places the working tree. Outside a
// git repository they stay without a commit. run is not modified.
func atWorkingTree(ctx context.Context, run *model.Run) *model.Run {
	t, err := gotest.Checkout(ctx, ".", gotest.WorkingTree)
	if err != nil || t.Rev == "" {
		return run
	}
	out := *run
	out.Sides = slices.Clone(run.Sides)
	for i := range out.Sides {
		if out.Sides[i].Rev == "" {
			out.Sides[i].Rev, out.Sides[i].Dirty = t.Rev, t.Dirty
		}
	}
	return &out
}

func recordFailed(asked bool, result error) error {
	if asked && result == nil {
		return &exitError{code: exitUsage}
	}
	return result
}

// locationName is a store's location for people: relative to the working
// directory when that is shorter, a URL without its passwords, escaped
// for a terminal.
func locationName(loc string) string {
	if sqlstore.IsURL(loc) {
		return report.TerminalSafe(sqlstore.Redact(loc))
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, loc); err == nil && len(rel) < len(loc) {
			return report.TerminalSafe(rel)
		}
	}
	return report.TerminalSafe(loc)
}

// openStore opens the store at loc, creating a SQLite file when create
// is set. Its errors are usage errors: one line, exit 2.
func openStore(ctx context.Context, loc string, create bool) (sqlstore.Store, error) {
	return openStoreWith(ctx, loc, sqlstore.Options{Create: create})
}

// openReader opens the store at loc, which must exist, for reading only
// (history, changes, serve): a store the user may not write to is read.
func openReader(ctx context.Context, loc string) (sqlstore.Store, error) {
	return openStoreWith(ctx, loc, sqlstore.Options{ReadOnly: true})
}

func openStoreWith(ctx context.Context, loc string, opts sqlstore.Options) (sqlstore.Store, error) {
	s, err := sqlstore.Open(ctx, loc, opts)
	if errors.Is(err, sqlstore.ErrNoStore) {
		return nil, usageErrorf("%s: no history recorded yet (record with rigor run --record, rigor ab --record or rigor import)", locationName(loc))
	}
	if err != nil {
		return nil, usageErrorf("%s", storeError(err))
	}
	return s, nil
}

// storeError is a store's error in one line, whole: the driver's errors
// run to several lines (pgx gives one per address it tried, after
// "failed to connect to `user=rigor database=rigor`:"), joined with "; ",
// and escaped for a terminal. A damaged SQLite file says what to do.
func storeError(err error) string {
	if sqlstore.Damaged(err) && !errors.Is(err, sqlstore.ErrDamaged) {
		err = fmt.Errorf("%w: %w", sqlstore.ErrDamaged, err)
	}
	if sqlstore.Damaged(err) {
		err = fmt.Errorf("%w; restore it from a backup, or move it aside to start a new history (the sqlite3 shell's .recover saves what can be read)", err)
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(err.Error()), "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if b.Len() > 0 {
			if s := b.String(); !strings.HasSuffix(s, ":") {
				b.WriteString(";")
			}
			b.WriteString(" ")
		}
		b.WriteString(l)
	}
	return report.TerminalSafe(b.String())
}

func recordRun(ctx context.Context, loc string, run *model.Run, rec sqlstore.Recording) (sqlstore.Recorded, error) {
	s, err := sqlstore.Open(ctx, loc, sqlstore.Options{Create: true})
	if err != nil {
		return sqlstore.Recorded{}, err
	}
	defer s.Close()
	return s.Record(ctx, run, rec)
}

// recording is what run is recorded with: the module's path as the
// project, the branch checked out (or $RIGOR_BRANCH, or the CI's), and
// the time and subject of each side's commit, from git.
func recording(ctx context.Context, root string, run *model.Run) (sqlstore.Recording, error) {
	rec := sqlstore.Recording{Project: projectOf(root), Source: run.ID, Commits: map[string]sqlstore.Commit{}}
	dir := root
	if dir == "" {
		dir = "."
	}
	rec.Branch = currentBranch(ctx, dir)
	for _, sd := range run.Sides {
		if sd.Rev == "" {
			continue
		}
		if c, ok := gitCommit(ctx, dir, sd.Rev); ok {
			rec.Commits[sd.Rev] = c
		}
	}
	return rec, nil
}

// projectOf is the project that runs measured in the module at root
// belong to: $RIGOR_PROJECT, else the module path; outside a module, the
// git repository's: the address of its origin as a path
// (github.com/org/repo, the same in every clone and subdirectory), else
// its top-level directory; outside a repository, the current directory
// (as an absolute path: two directories of one name are two projects).
func projectOf(root string) string {
	if p := os.Getenv("RIGOR_PROJECT"); p != "" {
		return p
	}
	if root != "" {
		if p := modulePath(root); p != "" {
			return p
		}
	}
	ctx := context.Background()
	if u, err := gitOutput(ctx, ".", "remote", "get-url", "origin"); err == nil {
		if p := remotePath(u); p != "" {
			return p
		}
	}
	if top, err := gitOutput(ctx, ".", "rev-parse", "--show-toplevel"); err == nil && top != "" {
		return top
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return ""
}

// remotePath is a git remote's address as a path, as Go names modules:
// github.com/org/repo for https://user:token@github.com/org/repo.git,
// ssh://git@github.com/org/repo and git@github.com:org/repo.git; "" for
// one it cannot read (a local path).
func remotePath(remote string) string {
	remote = strings.TrimSpace(remote)
	var host, path string
	if u, err := url.Parse(remote); err == nil && u.Host != "" {
		host, path = u.Hostname(), u.Path
	} else if at, rest, ok := strings.Cut(remote, "@"); ok && !strings.Contains(at, "/") {
		// scp-like: [user@]host:path
		host, path, ok = strings.Cut(rest, ":")
		if !ok {
			return ""
		}
	} else {
		return ""
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || path == "" || strings.ContainsAny(host, "/\\") {
		return ""
	}
	return strings.ToLower(host) + "/" + path
}

// modulePath returns the module path in root's go.mod, or "".
func modulePath(root string) string {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// currentBranch is $RIGOR_BRANCH, else the branch checked out in dir,
// else (a detached HEAD, as in CI) the CI's branch variables, else "".
func currentBranch(ctx context.Context, dir string) string {
	if b := os.Getenv("RIGOR_BRANCH"); b != "" {
		return b
	}
	if out, err := gitOutput(ctx, dir, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil && out != "" {
		return out
	}
	for _, k := range []string{"GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "BRANCH_NAME"} {
		if b := os.Getenv(k); b != "" {
			return b
		}
	}
	return ""
}

// gitCommit returns rev's committer time and subject.
func gitCommit(ctx context.Context, dir, rev string) (sqlstore.Commit, bool) {
	out, err := gitOutput(ctx, dir, "show", "-s", "--format=%H%x00%ct%x00%s", "--end-of-options", rev)
	if err != nil {
		return sqlstore.Commit{}, false
	}
	parts := strings.SplitN(out, "\x00", 3)
	if len(parts) != 3 {
		return sqlstore.Commit{}, false
	}
	secs, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return sqlstore.Commit{}, false
	}
	return sqlstore.Commit{Hash: parts[0], Time: time.Unix(secs, 0), Subject: parts[2]}, true
}

func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}
