package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	mrand "math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/rigorbench/rigor/model"
)

// EnvTestPostgres names the PostgreSQL URL the tests use; without it the
// PostgreSQL half of every test is skipped.
const EnvTestPostgres = "RIGOR_TEST_POSTGRES"

// engines returns a fresh store location per engine: a SQLite file in a
// temporary directory and, when RIGOR_TEST_POSTGRES is set, a schema of
// its own in that database, dropped at the end.
func engines(t *testing.T) map[string]string {
	t.Helper()
	locs := map[string]string{SQLite: filepath.Join(t.TempDir(), ".rigor", FileName)}
	if pg := freshPostgres(t); pg != "" {
		locs[Postgres] = pg
	}
	return locs
}

// freshPostgres returns a URL whose search_path is a new empty schema, or
// "" (and logs why) when RIGOR_TEST_POSTGRES is unset.
func freshPostgres(t *testing.T) string {
	t.Helper()
	base := os.Getenv(EnvTestPostgres)
	if base == "" {
		t.Logf("PostgreSQL skipped: set %s to a postgres:// URL (as .ci/run does) to test it", EnvTestPostgres)
		return ""
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "rigor_test_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		db.Close()
		t.Fatalf("%s: %v", EnvTestPostgres, err)
	}
	t.Cleanup(func() {
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
		db.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func open(t *testing.T, loc string) Store {
	t.Helper()
	s, err := Open(context.Background(), loc, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// testRun is a run of one side at rev with benchmarks x rounds samples
// of sec/op and allocs/op, values drawn from seed.
func testRun(seed uint64, rev string, benchmarks, rounds int) *model.Run {
	rng := mrand.New(mrand.NewPCG(seed, 1))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(seed) * time.Minute)
	run := &model.Run{SchemaVersion: model.SchemaVersion, ID: fmt.Sprint(seed), Kind: model.KindRun, Paired: false,
		Start: start, End: start.Add(time.Minute), Command: []string{"rigor", "run", "./..."},
		Env:   &model.Env{GOOS: "linux", GOARCH: "amd64", CPUModel: "Test CPU @ 2.0GHz", Hostname: "host-a", LogicalCores: 2},
		Sides: []model.Side{{Label: "current", Rev: rev}}}
	for b := range benchmarks {
		bm := model.Benchmark{Name: fmt.Sprintf("Bench%d/size=%d", b, 1<<b), Procs: 2, Pkg: "example.com/p"}
		ns := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
		allocs := model.Metric{Unit: "allocs/op", Better: model.LowerIsBetter, Assume: model.AssumeExact}
		for r := range rounds {
			ns.Samples = append(ns.Samples, model.Sample{Side: "current", Round: r, Iters: 1000 + int64(r), Value: 1e-6 * (1 + 0.01*rng.NormFloat64())})
			allocs.Samples = append(allocs.Samples, model.Sample{Side: "current", Round: r, Iters: 1000 + int64(r), Value: 3})
		}
		bm.Metrics = []model.Metric{ns, allocs}
		run.Benchmarks = append(run.Benchmarks, bm)
	}
	return run
}

func TestRecordAndRead(t *testing.T) {
	ctx := context.Background()
	for engine, loc := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			s := open(t, loc)
			if s.Engine() != engine {
				t.Errorf("Engine() = %s, want %s", s.Engine(), engine)
			}
			ct := time.Date(2025, 12, 31, 10, 0, 0, 123456789, time.UTC)
			run := testRun(1, "aaaa", 3, 5)
			rec := Recording{Project: "example.com/p", Branch: "main", Source: "/tmp/run",
				Commits: map[string]Commit{"aaaa": {Hash: "aaaa", Time: ct, Subject: "first"}}}
			got, err := s.Record(ctx, run, rec)
			if err != nil {
				t.Fatal(err)
			}
			if got.Duplicate || got.Samples != 3*2*5 || got.ID == 0 {
				t.Errorf("Record = %+v, want a new run with 30 samples", got)
			}
			again, err := s.Record(ctx, run, rec)
			if err != nil {
				t.Fatal(err)
			}
			if !again.Duplicate || again.ID != got.ID {
				t.Errorf("recording the same run again = %+v, want the duplicate of %d", again, got.ID)
			}
			// A second commit, whose time was unknown when first seen.
			run2 := testRun(2, "bbbb", 3, 5)
			if _, err := s.Record(ctx, run2, Recording{Project: "example.com/p", Branch: "main"}); err != nil {
				t.Fatal(err)
			}
			pts, err := s.Points(ctx, Filter{Project: "example.com/p", Name: "Bench1/size=2", Unit: "sec/op"})
			if err != nil {
				t.Fatal(err)
			}
			if len(pts) != 2 {
				t.Fatalf("got %d points, want 2 (one per run)", len(pts))
			}
			p := pts[0]
			if p.Commit != "aaaa" || !p.CommitTime.Equal(ct) || p.Subject != "first" || p.Branch != "main" ||
				p.Pkg != "example.com/p" || p.Procs != 2 || p.Better != model.LowerIsBetter || p.Source != "/tmp/run" ||
				p.Kind != model.KindRun || !p.RunStart.Equal(run.Start) || p.Machine != MachineOf(run).Fingerprint {
				t.Errorf("first point = %+v", p)
			}
			want := run.Benchmarks[1].Metrics[0].Values("current")
			if len(p.Values) != len(want) {
				t.Fatalf("values %v, want %v", p.Values, want)
			}
			for i := range want {
				if p.Values[i] != want[i] { // stored as float64: exact
					t.Errorf("value %d = %v, want %v", i, p.Values[i], want[i])
				}
			}
			if pts[1].Commit != "bbbb" || !pts[1].CommitTime.IsZero() {
				t.Errorf("second point: commit %q at %v, want bbbb at an unknown time", pts[1].Commit, pts[1].CommitTime)
			}
			all, err := s.Points(ctx, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 2*3*2 {
				t.Errorf("all points: %d, want 12", len(all))
			}
			if none, err := s.Points(ctx, Filter{Branch: "other"}); err != nil || len(none) != 0 {
				t.Errorf("points of another branch: %d, %v", len(none), err)
			}
			ms, err := s.Machines(ctx)
			if err != nil || len(ms) != 1 || ms[0].CPUModel != "Test CPU @ 2.0GHz" || ms[0].Hostname != "host-a" {
				t.Errorf("Machines = %+v, %v", ms, err)
			}
		})
	}
}

func TestOpenMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none", FileName)
	if _, err := Open(context.Background(), path, Options{}); !errors.Is(err, ErrNoStore) {
		t.Errorf("Open of a missing file without Create: %v, want ErrNoStore", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("Open without Create created the file")
	}
}

// TestRefuseNewerSchema: a database migrated by a newer rigor is refused,
// and left as it was.
func TestRefuseNewerSchema(t *testing.T) {
	ctx := context.Background()
	for engine, loc := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			s := open(t, loc)
			v, err := s.SchemaVersion(ctx)
			if err != nil || v < 1 {
				t.Fatalf("SchemaVersion = %d, %v", v, err)
			}
			db := s.(*sqlStore).db
			if _, err := db.ExecContext(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (999, TRUE)`); err != nil {
				t.Fatal(err)
			}
			_, err = Open(ctx, loc, Options{Create: true})
			if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "999") {
				t.Errorf("Open of a newer schema: %v, want ErrNewerSchema naming 999", err)
			}
		})
	}
}

// TestSameSchema: both engines' migrations create the same tables with
// the same columns.
func TestSameSchema(t *testing.T) {
	pg := freshPostgres(t)
	if pg == "" {
		t.Skip("needs PostgreSQL: set " + EnvTestPostgres)
	}
	ctx := context.Background()
	lite := open(t, filepath.Join(t.TempDir(), FileName)).(*sqlStore)
	post := open(t, pg).(*sqlStore)
	columns := func(s *sqlStore) map[string]bool {
		q := `SELECT m.name || '.' || p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`
		if s.engine == Postgres {
			q = `SELECT table_name || '.' || column_name FROM information_schema.columns WHERE table_schema = current_schema()`
		}
		rows, err := s.db.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]bool{}
		for rows.Next() {
			var c string
			rows.Scan(&c)
			out[c] = true
		}
		return out
	}
	a, b := columns(lite), columns(post)
	for c := range a {
		if !b[c] {
			t.Errorf("column %s is in SQLite only", c)
		}
	}
	for c := range b {
		if !a[c] {
			t.Errorf("column %s is in PostgreSQL only", c)
		}
	}
	if len(a) < 40 {
		t.Errorf("only %d columns: %v", len(a), a)
	}
}

// TestRecordRejects: what cannot be recorded is refused and leaves no
// trace.
func TestRecordRejects(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), FileName))
	run := testRun(1, "aaaa", 1, 3)
	run.Benchmarks[0].Metrics[0].Samples[2].Side = "ghost"
	if _, err := s.Record(ctx, run, Recording{Project: "p"}); err == nil {
		t.Error("a sample of an unknown side was recorded")
	}
	nan := testRun(2, "aaaa", 1, 3)
	nan.Benchmarks[0].Metrics[0].Samples[0].Value = math.NaN()
	if _, err := s.Record(ctx, nan, Recording{Project: "p"}); err == nil {
		t.Error("a NaN sample was recorded")
	}
	if _, err := s.Record(ctx, testRun(3, "", 1, 3), Recording{}); err == nil {
		t.Error("a run without a project was recorded")
	}
	pts, err := s.Points(ctx, Filter{})
	if err != nil || len(pts) != 0 {
		t.Errorf("after refused records: %d points, %v; want none", len(pts), err)
	}
	var runs int
	s.(*sqlStore).db.QueryRow(`SELECT count(*) FROM runs`).Scan(&runs)
	if runs != 0 {
		t.Errorf("%d runs left by failed records, want 0 (each record is one transaction)", runs)
	}
}

// TestMigrateForward: a store made by a rigor that knew schema version 1
// only is brought to the current version on open, its runs kept, and a
// baseline in version 1's table (project and name) becomes a pointer on
// its run's machine, at the run's last side.
func TestMigrateForward(t *testing.T) {
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
			if err != nil || latest < 3 {
				t.Fatalf("latest version %d, %v", latest, err)
			}
			var later []int64
			for v := int64(2); v <= latest; v++ {
				later = append(later, v)
			}
			sub, _ := fs.Sub(migrations, dir)
			p, err := goose.NewProvider(dialect, db, sub, goose.WithExcludeVersions(later))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Up(ctx); err != nil {
				t.Fatal(err)
			}
			old := &sqlStore{db: db, engine: engine, location: loc, noMedians: true}
			if v, _ := old.SchemaVersion(ctx); v != 1 {
				t.Fatalf("old store at version %d, want 1", v)
			}
			run := testRun(1, "aaaa", 2, 3)
			run.Sides = append(run.Sides, model.Side{Label: "new", Rev: "bbbb"})
			run.Benchmarks[0].Metrics[0].Samples = append(run.Benchmarks[0].Metrics[0].Samples, model.Sample{Side: "new", Iters: 1, Value: 1e-6})
			got, err := old.Record(ctx, run, Recording{Project: "p"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO baselines (project_id, name, run_id, updated_ns)
				SELECT project_id, 'main', id, 7 FROM runs WHERE id = $1`, got.ID); err != nil {
				t.Fatal(err)
			}
			db.Close()
			s := open(t, loc)
			if v, err := s.SchemaVersion(ctx); v != latest || err != nil {
				t.Errorf("after open: version %d, %v; want %d", v, err, latest)
			}
			if pts, err := s.Points(ctx, Filter{}); err != nil || len(pts) != 5 {
				t.Errorf("after the migration: %d points, %v; want the 5 recorded before", len(pts), err)
			}
			// Version 5 computed their medians.
			checkSummaries(t, s, Filter{})
			b, err := s.Baseline(ctx, "p", MachineOf(run).Fingerprint, "main")
			if err != nil || b.RunID != got.ID || b.Side != "new" || b.Updated.UnixNano() != 7 {
				t.Errorf("version 1's baseline after the migration: %+v, %v; want run %d, side new", b, err, got.ID)
			}
		})
	}
}

// TestRunRoundTrip: a recorded run read back is the run: sides (with
// their link layouts' seeds, which were not stored before), commits,
// benchmarks, metrics, samples with their rounds, environment, notes.
func TestRunRoundTrip(t *testing.T) {
	ctx := context.Background()
	for engine, loc := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			s := open(t, loc)
			run := testRun(5, "abcd", 3, 4)
			run.Sides = append(run.Sides, model.Side{Label: "old", Rev: "0123", Tags: "x", Dirty: true, Layouts: []int64{11, 12}})
			run.Benchmarks[0].Metrics[0].Samples = append(run.Benchmarks[0].Metrics[0].Samples, model.Sample{Side: "old", Round: 7, Iters: 9, Value: 2e-6})
			run.Notes = []model.Note{{Kind: model.NoteBaseline, Text: "a note"}}
			got, err := s.Record(ctx, run, Recording{Project: "p"})
			if err != nil {
				t.Fatal(err)
			}
			back, err := s.Run(ctx, got.ID)
			if err != nil {
				t.Fatal(err)
			}
			var want, have strings.Builder
			run.WriteJSON(&want)
			back.WriteJSON(&have)
			if want.String() != have.String() {
				t.Errorf("read back differs:\n%s\nwant\n%s", have.String(), want.String())
			}
			if _, err := s.Run(ctx, got.ID+100); !errors.Is(err, ErrNoRun) {
				t.Errorf("a missing run: %v, want ErrNoRun", err)
			}
		})
	}
}

// TestNoCommitLeftOut: a side that is no commit's (no hash, or a dirty
// working tree) is kept but left out of the points unless Dirty asks.
func TestNoCommitLeftOut(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), FileName))
	dirty := testRun(2, "bbbb", 1, 3)
	dirty.Sides[0].Dirty = true
	for _, r := range []*model.Run{testRun(1, "aaaa", 1, 3), testRun(3, "", 1, 3), dirty} {
		if _, err := s.Record(ctx, r, Recording{Project: "p"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		dirty bool
		want  int
	}{{false, 2}, {true, 6}} { // 2 metrics a run
		pts, err := s.Points(ctx, Filter{Dirty: c.dirty})
		if err != nil || len(pts) != c.want {
			t.Errorf("Dirty %v: %d points, %v; want %d", c.dirty, len(pts), err, c.want)
		}
	}
}

// TestBaselines: a baseline points at one side of a recorded run, per
// project and per the machine the run was measured on; another machine's
// baseline of the same name is another pointer; what cannot be pointed at
// is refused.
func TestBaselines(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
	for engine, loc := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			s := open(t, loc)
			record := func(run *model.Run, project string) int64 {
				t.Helper()
				got, err := s.Record(ctx, run, Recording{Project: project, Branch: "main"})
				if err != nil {
					t.Fatal(err)
				}
				return got.ID
			}
			a := record(testRun(1, "aaaa", 1, 3), "p")
			two := testRun(2, "bbbb", 1, 3)
			two.Sides = append(two.Sides, model.Side{Label: "new", Rev: "cccc"})
			two.Benchmarks[0].Metrics[0].Samples = append(two.Benchmarks[0].Metrics[0].Samples, model.Sample{Side: "new", Round: 0, Iters: 1, Value: 1e-6})
			b := record(two, "p")
			other := testRun(3, "dddd", 1, 3)
			other.Env.CPUModel = "Other CPU"
			c := record(other, "p")
			d := record(testRun(4, "eeee", 1, 3), "q")
			x, y := MachineOf(testRun(1, "", 1, 1)).Fingerprint, MachineOf(other).Fingerprint

			got, err := s.SetBaseline(ctx, "p", "main", a, "", now)
			if err != nil {
				t.Fatal(err)
			}
			if got.Project != "p" || got.Name != "main" || got.RunID != a || got.Side != "current" || got.Machine.Fingerprint != x ||
				got.Commit != "aaaa" || !got.Updated.Equal(now) || !got.RunStart.Equal(testRun(1, "", 1, 1).Start) || got.Machine.CPUModel != "Test CPU @ 2.0GHz" {
				t.Errorf("SetBaseline = %+v", got)
			}
			if got, err := s.Baseline(ctx, "p", x, "main"); err != nil || got.RunID != a {
				t.Errorf("Baseline on machine x = %+v, %v; want run %d", got, err, a)
			}
			if _, err := s.Baseline(ctx, "p", y, "main"); !errors.Is(err, ErrNoBaseline) {
				t.Errorf("Baseline on machine y before any: %v, want ErrNoBaseline", err)
			}
			if _, err := s.Baseline(ctx, "q", x, "main"); !errors.Is(err, ErrNoBaseline) {
				t.Errorf("Baseline of another project: %v, want ErrNoBaseline", err)
			}
			// The same name on machine y is another pointer.
			if got, err := s.SetBaseline(ctx, "p", "main", c, "", now); err != nil || got.Machine.Fingerprint != y {
				t.Errorf("SetBaseline of machine y's run = %+v, %v", got, err)
			}
			// A run of two sides: say which.
			if _, err := s.SetBaseline(ctx, "p", "main", b, "", now); !errors.Is(err, ErrWhichSide) || !strings.Contains(err.Error(), "current, new") {
				t.Errorf("two sides, none named: %v", err)
			}
			if _, err := s.SetBaseline(ctx, "p", "main", b, "ghost", now); err == nil || !strings.Contains(err.Error(), "no side") {
				t.Errorf("an unknown side: %v", err)
			}
			later := now.Add(time.Hour)
			if got, err := s.SetBaseline(ctx, "p", "main", b, "new", later); err != nil || got.RunID != b || got.Side != "new" || got.Commit != "cccc" || !got.Updated.Equal(later) {
				t.Errorf("replacing main with run %d's side new: %+v, %v", b, got, err)
			}
			for _, bad := range []struct {
				name string
				run  int64
				want string
			}{
				{"main", d, "run of q"},
				{"../x", a, "invalid baseline name"},
				{"main", d + 100, "no such run"},
			} {
				if _, err := s.SetBaseline(ctx, "p", bad.name, bad.run, "", now); err == nil || !strings.Contains(err.Error(), bad.want) {
					t.Errorf("SetBaseline(%q, run %d): %v, want %q", bad.name, bad.run, err, bad.want)
				}
			}
			all, err := s.Baselines(ctx, "p")
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int64{x: b, y: c}
			if len(all) != 2 || all[0].Name != "main" || all[1].Name != "main" || all[0].Machine.Fingerprint > all[1].Machine.Fingerprint {
				t.Fatalf("Baselines = %+v, want main on two machines, by fingerprint", all)
			}
			for _, bl := range all {
				if want[bl.Machine.Fingerprint] != bl.RunID {
					t.Errorf("baseline main on %s points at run %d, want %d", bl.Machine.Fingerprint, bl.RunID, want[bl.Machine.Fingerprint])
				}
			}
			if latest, err := s.LatestRun(ctx, "p", x); err != nil || latest != b {
				t.Errorf("LatestRun(p, x) = %d, %v; want %d", latest, err, b)
			}
			if _, err := s.LatestRun(ctx, "p", "000000000000"); !errors.Is(err, ErrNoRun) {
				t.Errorf("LatestRun of an unknown machine: %v, want ErrNoRun", err)
			}
			if err := s.RemoveBaseline(ctx, "p", x, "main"); err != nil {
				t.Fatal(err)
			}
			if err := s.RemoveBaseline(ctx, "p", x, "main"); !errors.Is(err, ErrNoBaseline) {
				t.Errorf("removing it again: %v, want ErrNoBaseline", err)
			}
			if left, err := s.Baselines(ctx, "p"); err != nil || len(left) != 1 || left[0].Machine.Fingerprint != y {
				t.Errorf("after removing x's: %+v, %v; want y's left", left, err)
			}
			if _, err := s.Run(ctx, b); err != nil {
				t.Errorf("the run a removed baseline pointed at: %v, want it still recorded", err)
			}
		})
	}
}
