package harness

import (
	"bytes"
	"context"
	"github.com/rigorbench/rigor/model"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor"
)

func TestChildArgs(t *testing.T) {
	args := childTestArgs("BenchmarkX/a+b", nil)
	tail := strings.Join(args[len(args)-5:], " ")
	for _, want := range []string{"-test.run=^$", `-test.bench=^BenchmarkX$/^a\+b$`, "-test.benchtime=1x", "-test.count=1", "-test.cpu="} {
		if !strings.Contains(tail, want) {
			t.Errorf("child args %q lack %q", tail, want)
		}
	}
}

// TestRunKeepsConfig: the -rigor.* flags and go test's -count change how
// a group is measured, not the caller's Group: its Config is the same
// after Run and after Main's measurement of it.
func TestRunKeepsConfig(t *testing.T) {
	o := &options{maxRegression: -1, format: "text", budget: 2 * time.Millisecond, passes: 2, policy: "best", files: newFileRegistry()}
	g := rigor.NewGroup("keep")
	g.Config = quick()
	g.Bench("a", func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
	want := g.Config
	if _, err := mainGroup(context.Background(), o, &bytes.Buffer{}, g); err != nil {
		t.Fatal(err)
	}
	if g.Config != want {
		t.Errorf("Main changed the group's Config:\n got %+v\nwant %+v", g.Config, want)
	}
	var out *Outcome
	testing.Benchmark(func(b *testing.B) {
		if out == nil { // testing.Benchmark calls this more than once
			out = runBench(b, g, o, &bytes.Buffer{})
		}
	})
	if out == nil {
		t.Fatal("Run measured nothing")
	}
	if g.Config != want {
		t.Errorf("Run changed the group's Config:\n got %+v\nwant %+v", g.Config, want)
	}
	if notes := out.Run.Benchmarks[0].Notes; !hasPrefix(model.Texts(notes), "best of 2 passes") {
		t.Errorf("notes %q: the options' two passes were not applied", notes)
	}
}
