package sqlstore

import (
	"context"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// recordRuns records n runs of testRun (10 benchmarks x 20 rounds) at
// loc, and closes the store.
func recordRuns(t *testing.T, loc string, n int) {
	t.Helper()
	s, err := Open(context.Background(), loc, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		rev := fmt.Sprintf("%040x", i+1)
		if _, err := s.Record(context.Background(), testRun(uint64(i+1), rev, 10, 20), Recording{Project: "example.com/p", Branch: "main",
			Commits: map[string]Commit{rev: {Hash: rev, Subject: "c"}}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecordRefusesDamagedStore: 200 KB of garbage written into the
// middle of a store's file is found before the next run is recorded:
// an error that says the file is damaged, nothing recorded. (The run
// was recorded, its write touching none of the damaged pages, and the
// damage showed only when the history was read.)
func TestRecordRefusesDamagedStore(t *testing.T) {
	loc := filepath.Join(t.TempDir(), FileName)
	recordRuns(t, loc, 60)
	fi, err := os.Stat(loc)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(loc, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 200<<10)
	rng := mrand.New(mrand.NewPCG(13, 1))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	if _, err := f.WriteAt(garbage, fi.Size()/2-int64(len(garbage))/2); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, err := Open(context.Background(), loc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rev := fmt.Sprintf("%040x", 999)
	got, err := s.Record(context.Background(), testRun(999, rev, 1, 5), Recording{Project: "example.com/p", Branch: "main"})
	if err == nil || !Damaged(err) {
		t.Fatalf("Record into a damaged store = %+v, %v; want an error saying it is damaged", got, err)
	}
	t.Logf("%v", err)
	// Reading it says so too, through the same test.
	if _, err := s.Points(context.Background(), Filter{}); err == nil || !Damaged(err) {
		t.Errorf("Points of a damaged store: %v, want an error Damaged recognizes", err)
	}
}

// TestOpenReadOnly: a store in a directory nobody may write to is read
// (every read said "open ...migrate-lock: permission denied"), writing
// nothing, and refuses to record.
func TestOpenReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o755)
	loc := filepath.Join(dir, FileName)
	recordRuns(t, loc, 3)
	os.Remove(loc + ".migrate-lock")
	before := dirNames(t, dir)
	readOnlyDir(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "probe"), nil, 0o644); err == nil {
		t.Fatal("the directory is still writable")
	}
	s, err := Open(context.Background(), loc, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Points(context.Background(), Filter{})
	if err != nil || len(pts) != 3*10*2 {
		t.Errorf("Points: %d points, %v; want 60", len(pts), err)
	}
	if _, err := s.Record(context.Background(), testRun(7, "ab", 1, 3), Recording{Project: "example.com/p"}); err == nil {
		t.Error("a read-only store recorded a run")
	}
	s.Close()
	if after := dirNames(t, dir); !slices.Equal(before, after) {
		t.Errorf("opening read-only changed the directory: %q, then %q", before, after)
	}
}

// readOnlyDir makes dir read-only until the test ends: its mode, or, for
// root (whom modes do not stop), the immutable attribute (chattr +i;
// the test is skipped where that is not allowed).
func readOnlyDir(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("as root, a read-only directory needs chattr +i: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestSummariesArePoints: Summaries gives the points Points gives, in
// the same order, with the median of their values to the last bit
// (stats.Median's, not SQL's), its 95% interval and their number, on
// both engines, for a unit or one benchmark's name; a
// store recorded before the medians table (version 3) gets them when
// opened.
func TestSummariesArePoints(t *testing.T) {
	ctx := context.Background()
	for engine, loc := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			s := open(t, loc)
			for i := range 6 {
				run := testRun(uint64(i+1), fmt.Sprintf("%040x", i+1), 3, 4+i)
				// A second side with an odd number of samples of one metric.
				run.Sides = append(run.Sides, model.Side{Label: "other", Rev: fmt.Sprintf("%040x", 100+i)})
				for r := range 3 {
					run.Benchmarks[0].Metrics[0].Samples = append(run.Benchmarks[0].Metrics[0].Samples,
						model.Sample{Side: "other", Round: r, Iters: 10, Value: 0.1 + 0.2*float64(r)})
				}
				if _, err := s.Record(ctx, run, Recording{Project: "p", Branch: "main"}); err != nil {
					t.Fatal(err)
				}
			}
			checkSummaries(t, s, Filter{})
			checkSummaries(t, s, Filter{Unit: "sec/op", Name: "Bench1/size=2"})
			// Runs 3 to 5 of the 6: those recorded after the second,
			// through the fifth.
			all, err := s.Points(ctx, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			some := checkSummaries(t, s, Filter{AfterRun: 2, ThroughRun: 5})
			all = slices.DeleteFunc(all, func(p Point) bool { return p.RunID <= 2 || p.RunID > 5 })
			if len(some) != len(all) {
				t.Errorf("runs 3 to 5: %d points, want %d", len(some), len(all))
			}
			checkSummaries(t, s, Filter{AfterRun: 4, Unit: "sec/op"})
			checkSummaries(t, s, Filter{AfterRun: 4, Name: "Bench0/size=1"})
			if pts, err := s.Summaries(ctx, Filter{AfterRun: 6}); err != nil || len(pts) != 0 {
				t.Errorf("after the last run: %d points, %v; want none", len(pts), err)
			}
		})
	}
}

func checkSummaries(t *testing.T, s Store, f Filter) []Point {
	t.Helper()
	pts, err := s.Points(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	sums, err := s.Summaries(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) == 0 || len(sums) != len(pts) {
		t.Fatalf("Summaries(%+v): %d points, Points %d", f, len(sums), len(pts))
	}
	for i, p := range pts {
		q := sums[i]
		m := stats.Median(p.Values)
		if q.Median != m || q.N != len(p.Values) || q.Values != nil {
			t.Errorf("point %d: median %v (%x), n %d; want %v (%x), %d", i, q.Median, math.Float64bits(q.Median), q.N, m, math.Float64bits(m), len(p.Values))
		}
		// The interval from the samples read back: NaN (both) when
		// MedianCI gives none.
		lo, hi := math.NaN(), math.NaN()
		if ci, err := stats.MedianCI(p.Values, 0.95); err == nil {
			lo, hi = ci.Lo, ci.Hi
		}
		if math.Float64bits(q.CILo) != math.Float64bits(lo) || math.Float64bits(q.CIHi) != math.Float64bits(hi) {
			t.Errorf("point %d (%d values): interval [%v, %v]; want [%v, %v]", i, len(p.Values), q.CILo, q.CIHi, lo, hi)
		}
		q.Median, q.N, q.Values, q.CILo, q.CIHi = 0, 0, p.Values, 0, 0
		if !reflect.DeepEqual(p, q) {
			t.Errorf("point %d: %+v, Points has %+v", i, q, p)
		}
	}
	// EachSummary passes the same points, in some order.
	var each []Point
	if err := s.EachSummary(context.Background(), f, func(p *Point) error { each = append(each, *p); return nil }); err != nil {
		t.Fatal(err)
	}
	sortPoints(each)
	if fmt.Sprintf("%+v", each) != fmt.Sprintf("%+v", sums) { // NaN as NaN
		t.Errorf("EachSummary(%+v): %d points not Summaries' %d", f, len(each), len(sums))
	}
	return sums
}
