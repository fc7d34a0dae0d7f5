package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"
)

// foreignSQLite makes another program's SQLite database at path: one
// table, a rollback journal (not WAL).
func foreignSQLite(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{`PRAGMA journal_mode = DELETE`, `CREATE TABLE app (k TEXT PRIMARY KEY, v TEXT)`, `INSERT INTO app VALUES ('a', 'b')`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot is every file of dir with its content.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			files[path], _ = os.ReadFile(path)
		}
		return err
	})
	return files
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// TestReaderChangesNothing (issue 40 item 6): opening for reading
// (history, changes, serve) never creates, migrates or switches a
// database to WAL: another program's SQLite file, an empty one and a
// store of an older rigor are refused, each byte left as it was; a writer
// refuses another program's file too. Before, a reader added rigor's
// tables to any SQLite file and switched it to WAL.
func TestReaderChangesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	foreign := filepath.Join(dir, "app.db")
	foreignSQLite(t, foreign)
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	older := filepath.Join(dir, "old", FileName)
	oldStore(t, SQLite, older)
	for _, c := range []struct {
		path string
		opts Options
		want error
	}{
		{foreign, Options{ReadOnly: true}, ErrNotStore},
		{foreign, Options{Create: true}, ErrNotStore},
		{foreign, Options{}, ErrNotStore},
		{empty, Options{ReadOnly: true}, ErrNotStore},
		{older, Options{ReadOnly: true}, ErrOlderSchema},
		{filepath.Join(dir, "missing.db"), Options{ReadOnly: true}, ErrNoStore},
	} {
		before := snapshot(t, dir)
		s, err := Open(ctx, c.path, c.opts)
		if err == nil {
			s.Close()
		}
		if !errors.Is(err, c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Open(%s, %+v): %v; want one line wrapping %v", filepath.Base(c.path), c.opts, err, c.want)
		}
		if after := snapshot(t, dir); !sameFiles(before, after) {
			t.Errorf("Open(%s, %+v) changed the directory: %d files, then %d", filepath.Base(c.path), c.opts, len(before), len(after))
		}
	}
	// The older store is still a store: a writer migrates it.
	s := open(t, older)
	latest, _ := latestVersion("migrations/sqlite")
	if v, err := s.SchemaVersion(ctx); err != nil || v != latest {
		t.Errorf("an older store opened to record: version %d, %v; want %d", v, err, latest)
	}
	// An empty file is a new store for a writer.
	open(t, empty)
}

// TestReaderChangesNothingPostgres: the same for PostgreSQL: a database
// (schema) without rigor's tables gets none from a reader, and an older
// store keeps its version.
func TestReaderChangesNothingPostgres(t *testing.T) {
	ctx := context.Background()
	loc := freshPostgres(t)
	if loc == "" {
		t.Skip("no PostgreSQL")
	}
	db, err := sql.Open("pgx", loc)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables := func() []string {
		rows, err := db.Query(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var n string
			rows.Scan(&n)
			out = append(out, n)
		}
		return out
	}
	if _, err := Open(ctx, loc, Options{ReadOnly: true}); !errors.Is(err, ErrNotStore) {
		t.Errorf("reading a database without rigor's tables: %v, want ErrNotStore", err)
	}
	if got := tables(); len(got) != 0 {
		t.Errorf("a reader made tables: %q", got)
	}
	oldStore(t, Postgres, loc)
	before := tables()
	if _, err := Open(ctx, loc, Options{ReadOnly: true}); !errors.Is(err, ErrOlderSchema) {
		t.Errorf("reading an older store: %v, want ErrOlderSchema", err)
	}
	var v int64
	db.QueryRow(`SELECT max(version_id) FROM goose_db_version`).Scan(&v)
	if after := tables(); v != redactVersion-1 || !slices.Equal(before, after) {
		t.Errorf("after reading an older store: version %d, tables %q (were %q)", v, after, before)
	}
}

// oldStore makes a store at loc at the schema version before
// redactVersion, as an older rigor left it.
func oldStore(t *testing.T, engine, loc string) {
	t.Helper()
	ctx := context.Background()
	dialect, dir, driver := goose.DialectSQLite3, "migrations/sqlite", "sqlite"
	if engine == Postgres {
		dialect, dir, driver = goose.DialectPostgres, "migrations/postgres", "pgx"
	} else if err := os.MkdirAll(filepath.Dir(loc), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(driver, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	latest, _ := latestVersion(dir)
	var later []int64
	for v := int64(redactVersion); v <= latest; v++ {
		later = append(later, v)
	}
	var before []*goose.Migration
	for _, m := range goMigrations() {
		if m.Version < redactVersion {
			before = append(before, m)
		}
	}
	sub, _ := fs.Sub(migrations, dir)
	p, err := goose.NewProvider(dialect, db, sub, goose.WithGoMigrations(before...), goose.WithExcludeVersions(later))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestDanglingLinkNotCreated (issue 40 item 6): a store path that is a
// link to a file that does not exist is refused, and the link's target
// is not made. Before, recording created it, wherever it pointed.
func TestDanglingLinkNotCreated(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere", "target.db")
	link := filepath.Join(dir, ".rigor", FileName)
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), link, Options{Create: true})
	if err == nil {
		s.Close()
		t.Fatal("a dangling link was opened")
	}
	if !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("error %q does not say the link's target does not exist", err)
	}
	if _, err := os.Stat(filepath.Dir(target)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link's target's directory was made: %v", err)
	}
}
