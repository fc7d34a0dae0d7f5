package main

import (
	"bytes"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadersRefuseForeignStore (issue 40 item 6): history, changes and
// serve given a SQLite file that is not rigor's (here the target of the
// module's .rigor/rigor.db link) refuse it in one line, exit 2, and leave
// every byte of it, and no file beside it. Before, they added rigor's
// tables to it and switched it to WAL.
func TestReadersRefuseForeignStore(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/ro\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(dir, "app.db")
	db, err := sql.Open("sqlite", app)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`PRAGMA journal_mode = DELETE`, `CREATE TABLE app (k TEXT)`, `INSERT INTO app VALUES ('x')`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	os.Mkdir(filepath.Join(dir, ".rigor"), 0o755)
	if err := os.Symlink(app, filepath.Join(dir, ".rigor", "rigor.db")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(app)
	for _, args := range [][]string{
		{"history"}, {"changes"}, {"serve", "--addr", "127.0.0.1:0"}, {"serve", "--export", filepath.Join(t.TempDir(), "pages")},
		{"history", "--store", app}, {"changes", "--store", app},
	} {
		stdout, stderr, code := rigorIn(t, dir, args...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "not a rigor history store") {
			t.Errorf("rigor %s: exit %d, stdout %q, stderr %q; want exit 2 and one line saying the file is not rigor's", strings.Join(args, " "), code, stdout, stderr)
		}
		after, _ := os.ReadFile(app)
		entries, _ := os.ReadDir(dir)
		if !bytes.Equal(before, after) || len(entries) != 3 {
			t.Fatalf("rigor %s changed app.db or made files beside it (%d entries)", strings.Join(args, " "), len(entries))
		}
	}
}

// TestImportDanglingLink (issue 40 item 6): rigor import with the module's
// .rigor/rigor.db a link to a file that does not exist refuses, exit 2,
// and does not make the link's target. Before, it created it.
func TestImportDanglingLink(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/ro\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "history.db")
	os.Mkdir(filepath.Join(dir, ".rigor"), 0o755)
	if err := os.Symlink(target, filepath.Join(dir, ".rigor", "rigor.db")); err != nil {
		t.Fatal(err)
	}
	input, err := filepath.Abs(seedBase)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := rigorIn(t, dir, "import", "--commit", "0123456789abcdef0123456789abcdef01234567", "--time", "2026-01-01T00:00:00Z", input)
	if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "does not exist") {
		t.Errorf("rigor import: exit %d, stdout %q, stderr %q; want exit 2, one line saying the link's target does not exist", code, stdout, stderr)
	}
	if _, err := os.Stat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link's target was made: %v", err)
	}
}
