package sqlstore

import (
	"context"
	"database/sql"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/rigorbench/rigor/model"
)

// secretCommand is a command line with a password in its store URL, an
// Authorization header and a --token value.
var secretCommand = []string{"rigor", "exec", "--store", "postgres://rigor:SECRETPW@db.example/rigor", "-H", "Authorization: Bearer SECRETPW", "--token", "SECRETPW", "true"}

// maskedCommand is secretCommand as it is stored.
var maskedCommand = []string{"rigor", "exec", "--store", "postgres://rigor:xxxxx@db.example/rigor", "-H", "Authorization: xxxxx", "--token", "xxxxx", "true"}

// storedText is every runs.command and env_json of runs and machines.
func storedText(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{`SELECT command || env_json FROM runs`, `SELECT env_json FROM machines`} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			b.WriteString(s + "\n")
		}
		rows.Close()
	}
	return b.String()
}

// TestRecordRedacts: a run whose command carries secrets (one made by an
// older rigor, imported) is stored without them, read back masked, and is
// still one run when recorded again.
func TestRecordRedacts(t *testing.T) {
	ctx := context.Background()
	for engine, loc := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			s := open(t, loc)
			run := testRun(1, "aaaa", 1, 3)
			run.Command = slices.Clone(secretCommand)
			run.Env.CommandLine = slices.Clone(secretCommand)
			got, err := s.Record(ctx, run, Recording{Project: "p"})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(run.Command, secretCommand) {
				t.Errorf("Record changed its run's command: %q", run.Command)
			}
			if text := storedText(t, s.(*sqlStore).db); strings.Contains(text, "SECRETPW") || !strings.Contains(text, "rigor:xxxxx@db.example") {
				t.Errorf("stored: %s\nwant the command without SECRETPW", text)
			}
			back, err := s.Run(ctx, got.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(back.Command, maskedCommand) || !slices.Equal(back.Env.CommandLine, maskedCommand) || back.Env.CPUModel != run.Env.CPUModel {
				t.Errorf("read back: command %q, env %+v; want %q", back.Command, back.Env, maskedCommand)
			}
			again, err := s.Record(ctx, run, Recording{Project: "p"})
			if err != nil || !again.Duplicate || again.ID != got.ID {
				t.Errorf("recorded again: %+v, %v; want a duplicate of run %d", again, err, got.ID)
			}
		})
	}
}

// TestMigrateRedacts: the commands a store kept before version 8, with
// their secrets, are masked when the store is opened; the rest of each
// row is kept.
func TestMigrateRedacts(t *testing.T) {
	ctx := context.Background()
	for engine, loc := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			var db *sql.DB
			var err error
			dialect, dir := goose.DialectSQLite3, "migrations/sqlite"
			if engine == Postgres {
				dialect, dir = goose.DialectPostgres, "migrations/postgres"
				db, err = sql.Open("pgx", loc)
			} else {
				if err := os.MkdirAll(filepath.Dir(loc), 0o755); err != nil {
					t.Fatal(err)
				}
				db, err = sql.Open("sqlite", loc)
			}
			if err != nil {
				t.Fatal(err)
			}
			latest, err := latestVersion(dir)
			if err != nil || latest < redactVersion {
				t.Fatalf("latest version %d, %v", latest, err)
			}
			var later []int64
			for v := int64(redactVersion); v <= latest; v++ {
				later = append(later, v)
			}
			sub, _ := fs.Sub(migrations, dir)
			var before []*goose.Migration
			for _, m := range goMigrations() {
				if m.Version < redactVersion {
					before = append(before, m)
				}
			}
			p, err := goose.NewProvider(dialect, db, sub, goose.WithGoMigrations(before...), goose.WithExcludeVersions(later))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Up(ctx); err != nil {
				t.Fatal(err)
			}
			old := &sqlStore{db: db, engine: engine, location: loc}
			if v, _ := old.SchemaVersion(ctx); v != redactVersion-1 {
				t.Fatalf("old store at version %d, want %d", v, redactVersion-1)
			}
			clean := testRun(2, "bbbb", 1, 3)
			cleanRec, err := old.Record(ctx, clean, Recording{Project: "p"})
			if err != nil {
				t.Fatal(err)
			}
			run := testRun(1, "aaaa", 1, 3)
			got, err := old.Record(ctx, run, Recording{Project: "p"})
			if err != nil {
				t.Fatal(err)
			}
			// What an older rigor stored: the command as it was given.
			cmd := `["rigor","exec","--store","postgres://rigor:SECRETPW@db.example/rigor","-H","Authorization: Bearer SECRETPW","--token","SECRETPW","true"]`
			env := `{"goos":"linux","cpu_model":"Test CPU @ 2.0GHz","command_line":` + cmd + `,"hostname":"host-a"}`
			if _, err := db.ExecContext(ctx, `UPDATE runs SET command = $1, env_json = $2 WHERE id = $3`, cmd, env, got.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, `UPDATE machines SET env_json = $1`, env); err != nil {
				t.Fatal(err)
			}
			if text := storedText(t, db); strings.Count(text, "SECRETPW") != 9 {
				t.Fatalf("before the migration: %s\nwant SECRETPW 9 times", text)
			}
			var cleanBefore string
			db.QueryRow(`SELECT command || env_json FROM runs WHERE id = $1`, cleanRec.ID).Scan(&cleanBefore)
			db.Close()

			s := open(t, loc)
			if v, err := s.SchemaVersion(ctx); v != latest || err != nil {
				t.Errorf("after open: version %d, %v; want %d", v, err, latest)
			}
			sdb := s.(*sqlStore).db
			if text := storedText(t, sdb); strings.Contains(text, "SECRETPW") || strings.Count(text, "rigor:xxxxx@db.example") != 3 {
				t.Errorf("after the migration: %s\nwant every SECRETPW masked", text)
			}
			var cleanAfter string
			sdb.QueryRow(`SELECT command || env_json FROM runs WHERE id = $1`, cleanRec.ID).Scan(&cleanAfter)
			if cleanAfter != cleanBefore {
				t.Errorf("a run without secrets was rewritten:\n%s\nwas\n%s", cleanAfter, cleanBefore)
			}
			back, err := s.Run(ctx, got.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := &model.Env{GOOS: "linux", CPUModel: "Test CPU @ 2.0GHz", Hostname: "host-a", CommandLine: maskedCommand}
			if !slices.Equal(back.Command, maskedCommand) || back.Env == nil || !slices.Equal(back.Env.CommandLine, want.CommandLine) ||
				back.Env.GOOS != want.GOOS || back.Env.CPUModel != want.CPUModel || back.Env.Hostname != want.Hostname {
				t.Errorf("read back: command %q, env %+v; want %q, %+v", back.Command, back.Env, maskedCommand, want)
			}
		})
	}
}
