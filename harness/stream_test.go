package harness

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// cancelGroup returns a group of two variants whose second cancels ctx
// in its stopAt-th timed sample, with rounds that could otherwise go on
// for a long time. The samples before the timed ones are, for each
// variant, one of warm-up (WarmUp is negative) and two for each of the
// allocation rounds and the one before them that is not recorded.
func cancelGroup(cancel context.CancelFunc, stopAt int64) *rigor.Group {
	g := rigor.NewGroup("cut")
	g.Config = rigor.Config{WarmUp: -1, Budget: time.Minute, MinRounds: 1000, MaxRounds: 1000, Precision: -1}
	g.Bench("a", func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
	const untimed = 1 + 2*(allocRounds+1)
	var calls atomic.Int64
	g.Bench("b", func(b *rigor.B) {
		if calls.Add(1) == untimed+stopAt {
			cancel()
		}
		rigor.Iter(b, func() int { return 2 })
	})
	return g
}

// TestInterruptKeepsRounds cancels a run in its fifth round: Measure
// returns the rounds completed, paired, with the context's error, and the
// -rigor.out files hold the same rounds.
func TestInterruptKeepsRounds(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := cancelGroup(cancel, 5)
	m, err := measure(ctx, g, g.Config, nil, dir, newFileRegistry())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if m == nil {
		t.Fatal("no run returned")
	}
	run := m.run
	bm := run.Benchmarks[0]
	sec := bm.Metric(unitTime)
	a, b := sec.BySide("a"), sec.BySide("b")
	// b's fifth sample ran; round 5 is complete only if b ran last in it.
	if len(a) != len(b) || len(a) < 4 || len(a) > 5 {
		t.Fatalf("%d rounds of a and %d of b, want 4 or 5 of each", len(a), len(b))
	}
	for k := range a {
		if a[k].Round != k+1 || b[k].Round != k+1 {
			t.Errorf("sample %d: rounds %d and %d, want %d", k, a[k].Round, b[k].Round, k+1)
		}
	}
	if bm.Config["stopped"] != stopInterrupted || bm.Config["rounds"] != strconv.Itoa(len(a)) {
		t.Errorf("config %v: want stopped=interrupted, rounds=%d", bm.Config, len(a))
	}
	if !slices.Contains(model.Texts(run.Notes), interruptedNote) {
		t.Errorf("notes %q do not say the run was interrupted", run.Notes)
	}

	// Each side's file holds the allocation rounds and every complete
	// timed round, with the same values up to the loop overhead: a
	// streamed line has the overhead known after its round subtracted,
	// the run the median of every round's. a and b share one loop shape,
	// so in each round both moved by the same amount per iteration,
	// whatever the machine's noise did to the overhead measurements.
	shift := map[string][]float64{}
	for _, side := range []string{"a", "b"} {
		f, err := model.ReadFile(filepath.Join(dir, side+".txt"), side)
		if err != nil {
			t.Fatal(err)
		}
		fb := f.Benchmarks[0]
		if fb.Name != "cut" || len(f.Benchmarks) != 1 {
			t.Errorf("%s.txt: benchmarks %v, want only cut", side, names(f))
		}
		got, want := fb.Metric(unitTime).BySide(side), sec.BySide(side)
		if len(got) < len(want) || len(got) > len(want)+1 {
			t.Errorf("%s.txt: %d sec/op lines, want %d (or one more, for the round cut short)", side, len(got), len(want))
		}
		for k := range min(len(got), len(want)) {
			if got[k].Iters != want[k].Iters {
				t.Errorf("%s.txt round %d: %d iterations, run has %d", side, k+1, got[k].Iters, want[k].Iters)
			}
			d := math.NaN() // a time clamped at zero moved by less
			if got[k].Value > 0 && want[k].Value > 0 {
				d = got[k].Value - want[k].Value
			}
			shift[side] = append(shift[side], d)
		}
		if n := len(fb.Metric(unitAllocs).Values(side)); n != allocRounds {
			t.Errorf("%s.txt: %d allocs/op lines, want %d", side, n, allocRounds)
		}
		data, _ := os.ReadFile(filepath.Join(dir, side+".txt"))
		if c := strings.Count(string(data), "goos:"); c != 1 {
			t.Errorf("%s.txt repeats its configuration %d times:\n%s", side, c, data)
		}
	}
	for k := range min(len(shift["a"]), len(shift["b"])) {
		da, db := shift["a"][k], shift["b"][k]
		if !math.IsNaN(da) && !math.IsNaN(db) && math.Abs(da-db) > 1e-12 {
			t.Errorf("round %d: the files differ from the run by %v s/op for a but %v for b; one overhead was subtracted from both", k+1, da, db)
		}
	}
	// run.json is the last snapshot: rounds so far, marked partial.
	js, err := model.ReadFile(filepath.Join(dir, experiment.RunFile), "")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(js.Benchmarks[0].Metric(unitTime).Values("a")); n < len(a) || n > len(a)+1 || !slices.Contains(model.Texts(js.Notes), partialNote) {
		t.Errorf("run.json: %d rounds of a, notes %q; want about %d, marked partial", n, js.Notes, len(a))
	}
	if js.Env == nil || js.Env.GoVersion == "" {
		t.Error("run.json does not say where it was measured")
	}

	// The public API keeps the rounds too.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	run2, err := Measure(ctx2, cancelGroup(cancel2, 3))
	if !errors.Is(err, context.Canceled) || run2 == nil || len(run2.Benchmarks[0].Metric(unitTime).Values("a")) < 2 {
		t.Errorf("Measure cancelled in round 3: run %v, error %v; want 2 or 3 rounds and context.Canceled", run2 != nil, err)
	}
}

// TestInterruptBeforeRounds: nothing measured, no run.
func TestInterruptBeforeRounds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := rigor.NewGroup("none")
	g.Config = quick()
	g.Bench("a", func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
	run, err := Measure(ctx, g)
	if run != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("run %v, error %v; want none and context.Canceled", run, err)
	}
}

// TestMainInterrupted: an interrupted standalone run prints the partial
// report, says so, keeps the files and exits 2.
func TestMainInterrupted(t *testing.T) {
	dir := t.TempDir()
	o := &options{maxRegression: -1, format: "text", out: dir, files: newFileRegistry()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := runGroups(ctx, o, &stdout, &stderr, []*rigor.Group{cancelGroup(cancel, 4)})
	if code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	if !strings.Contains(stdout.String(), "interrupted") || !strings.Contains(stdout.String(), "sec/op") {
		t.Errorf("the report does not show the partial results:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), dir) {
		t.Errorf("stderr %q does not say the run was interrupted and where its results are", stderr.String())
	}
	for _, f := range []string{"a.txt", "b.txt", experiment.RunFile, "cut.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not kept: %v", f, err)
		}
	}
	js, err := model.ReadFile(filepath.Join(dir, experiment.RunFile), "")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(model.Texts(js.Notes), partialNote) || !slices.Contains(model.Texts(js.Notes), interruptedNote) {
		t.Errorf("the final run.json's notes %q: want interrupted, not the in-progress mark", js.Notes)
	}
}

func TestSidePaths(t *testing.T) {
	k := &sink{dir: t.TempDir(), files: newFileRegistry()}
	if err := k.open([]string{"A'", "A_", "x/y", "A'"}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, side := range []string{"A'", "A_", "x/y"} {
		p, fresh := k.sidePath(side)
		if fresh {
			t.Errorf("%s: a second request got a fresh file", side)
		}
		if other, ok := seen[p]; ok {
			t.Errorf("%s and %s share %s", side, other, p)
		}
		seen[p] = side
		if filepath.Dir(p) != k.dir {
			t.Errorf("%s: %s is outside the directory", side, p)
		}
	}
}

// TestObservations checks the wiring of package observe: every timed
// sample is an observation of its benchmark, variant (the side the clock
// rule reads it by) and round, carrying this process's runtime statistics
// (GC CPU fraction, mutex wait, scheduling latency), and the notes say
// what limited the benchmark.
func TestObservations(t *testing.T) {
	g := rigor.NewGroup("obs")
	g.Config = quick()
	g.Config.MinRounds, g.Config.MaxRounds = 3, 3
	g.Bench("a", func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
	g.Bench("b", func(b *rigor.B) { rigor.Iter(b, func() int { return 2 }) })
	run, err := Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	bm := run.Benchmarks[0]
	type sideRound struct {
		side  string
		round int
	}
	seen := map[sideRound]int{}
	for _, o := range run.Observations {
		if o.Benchmark != bm.Key() {
			t.Errorf("observation of %q, want %q", o.Benchmark, bm.Key())
		}
		if o.Runtime == nil || o.Runtime.GOMAXPROCS < 1 {
			t.Errorf("round %d: runtime statistics %+v", o.Round, o.Runtime)
		}
		seen[sideRound{o.Side, o.Round}]++
	}
	for _, side := range []string{"a", "b"} {
		for round := 1; round <= 3; round++ {
			if seen[sideRound{side, round}] != 1 {
				t.Errorf("%d observations of %s in round %d, want 1", seen[sideRound{side, round}], side, round)
			}
		}
	}
	if len(seen) != 6 {
		t.Errorf("observations of %v, want a and b in rounds 1 to 3", seen)
	}
	if !slices.ContainsFunc(model.Texts(bm.Notes), func(n string) bool { return strings.HasPrefix(n, "bottleneck: ") }) {
		t.Errorf("notes %q: observe.Annotate did not run", bm.Notes)
	}
}

// TestStreamFailureKeepsMeasuring: when the results directory cannot be
// written (here run.json is a directory, so replacing it fails), the run
// stops streaming, says so, and still returns every round it measured.
func TestStreamFailureKeepsMeasuring(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "run.json", "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	g := rigor.NewGroup("full")
	g.Config = quick()
	g.Bench("a", func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
	g.Bench("b", func(b *rigor.B) { rigor.Iter(b, func() int { return 2 }) })
	m, err := measure(context.Background(), g, g.Config, nil, dir, newFileRegistry())
	if err != nil {
		t.Fatalf("measure: %v", err)
	}
	if m == nil || len(m.run.Benchmarks) == 0 || len(m.run.Benchmarks[0].Metric(unitTime).Values("b")) == 0 {
		t.Fatal("no measurements returned")
	}
	if !slices.ContainsFunc(model.Texts(m.run.Notes), func(n string) bool { return strings.Contains(n, "streaming stopped") }) {
		t.Errorf("no note on the failed stream: %q", m.run.Notes)
	}
}
