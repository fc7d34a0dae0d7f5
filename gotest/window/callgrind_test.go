package window

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A dump in callgrind's format, names compressed as callgrind writes
// them: sysmon's block holds its own cost (5 + 1) and two calls' inclusive
// costs (40, 7), 53 in all; its name is defined by a cfn= line before its
// own fn= block refers to it by number alone. Other functions' costs,
// and calls into sysmon's callees from elsewhere (usleep's 1000 from
// main), are not sysmon's.
const dumpFixture = `version: 1
creator: callgrind-3.19.0
positions: line
events: Ir
summary: 999999

fl=(1) proc.go
fn=(1) runtime.mstart1
10 3
cfn=(2) runtime.sysmon
calls=1 20
10 53

fn=(3) main.work
30 100000
cfn=(5) runtime.usleep
calls=1 0
31 1000

fn=(2)
20 5
+1 1
cfn=(4) runtime.retake
calls=2 40
* 40
cfn=(5)
calls=1 0
-3 7

fn=(4)
40 40
fn=(5)
0 1007
totals: 101103
`

func TestReadDump(t *testing.T) {
	d, err := readDump(strings.NewReader(dumpFixture), "fixture")
	if err != nil {
		t.Fatal(err)
	}
	if d.Totals != 101103 || d.Sysmon != 53 {
		t.Errorf("totals %v, sysmon %v; want 101103 and 53", d.Totals, d.Sysmon)
	}
	// A sleep of sysmon's that began before the zeroing returns with an
	// inclusive cost above a tiny segment's totals: kept within them.
	if d, err := readDump(strings.NewReader("fn=(1) runtime.sysmon\n1 9\ncfn=(2) runtime.usleep\ncalls=1 0\n2 559\ntotals: 227\n"), "tiny"); err != nil || d.Sysmon != 227 {
		t.Errorf("a tiny segment: sysmon %v (%v), want its totals, 227", d.Sysmon, err)
	}
	for _, bad := range []string{
		"events: Ir\nfn=(1) main.f\n1 2\n",        // no totals
		"fn=(1) runtime.sysmon\n1 x\ntotals: 5\n", // a cost that is no count
		"totals: many\n",                          // totals that are no count
	} {
		if _, err := readDump(strings.NewReader(bad), "bad"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// Beside a busy machine the runtime's sysmon thread, which wakes by the
// clock, ran thousands of instructions more in some windows than in
// others: windows of Steps10000 (14 million instructions) read 0.15% to
// 0.46% apart in three runs of this test beside this process's busy
// threads. Left out, they read 0.035% to 0.13% apart (what remains is
// also by the clock: the scheduler's preemptions every 10 ms, the
// scavenger returning memory at its pace), far inside a count's 0.5%
// tolerance. The test keeps this process's own threads busy while it
// simulates, so that sysmon wakes in every window.
func TestSimulateSysmonLeftOut(t *testing.T) {
	needValgrind(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	mod, bin, _ := buildWithOverlay(t, ctx, "testdata/sim", "local")
	var stop atomic.Bool
	for range runtime.GOMAXPROCS(0) + 1 {
		go func() {
			for x := 0; !stop.Load(); x++ {
				_ = x * x
			}
		}()
	}
	defer stop.Store(true)
	var with, without []float64
	woke := false
	for range 2 {
		rs, err := Simulate(ctx, SimConfig{Binary: bin, Dir: mod, Pattern: "^BenchmarkSteps10000$", Iters: 200, Count: 4})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			woke = woke || r.Sysmon > 0
			without = append(without, r.PerOp)
			with = append(with, (r.Instructions+r.Sysmon)/float64(r.Iters))
		}
	}
	if !woke {
		t.Errorf("no window beside a busy machine has instructions of sysmon's: were they counted?")
	}
	spread := func(v []float64) float64 { return slices.Max(v)/slices.Min(v) - 1 }
	t.Logf("Steps10000 in 8 windows of 2 processes: %.3f to %.3f instructions/op (%.4f%% apart); with sysmon's, %.4f%% apart",
		slices.Min(without), slices.Max(without), 100*spread(without), 100*spread(with))
	if spread(without) > 2.5e-3 {
		t.Errorf("windows of a loop read %.3f to %.3f instructions/op, %.4f%% apart: want them within 0.25%%", slices.Min(without), slices.Max(without), 100*spread(without))
	}
}

// FuzzReadDump: any text is read without a panic, and what is read keeps
// sysmon's part within the totals.
func FuzzReadDump(f *testing.F) {
	f.Add(dumpFixture)
	f.Add("fn=(1) runtime.sysmon\n1 9\ncfn=(2) runtime.usleep\ncalls=1 0\n2 559\ntotals: 227\n")
	f.Add("fn=(1)\n+1 5\n* 3\n-2 1\ntotals: 9\n")
	f.Fuzz(func(t *testing.T, text string) {
		d, err := readDump(strings.NewReader(text), "fuzz")
		if err == nil && !(d.Sysmon >= 0 && d.Sysmon <= d.Totals) {
			t.Errorf("totals %v, sysmon %v", d.Totals, d.Sysmon)
		}
	})
}
