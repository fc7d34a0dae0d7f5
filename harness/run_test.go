package harness

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor"
)

func TestChildArgs(t *testing.T) {
	args := childTestArgs("BenchmarkX/a+b")
	tail := strings.Join(args[len(args)-5:], " ")
	for _, want := range []string{"-test.run=^$", `-test.bench=^BenchmarkX$/^a\+b$`, "-test.benchtime=1x", "-test.count=1", "-test.cpu="} {
		if !strings.Contains(tail, want) {
			t.Errorf("child args %q lack %q", tail, want)
		}
	}
}

// TestRunKeepsConfig: the -rigor.* flags change how a group is measured,
// not the caller's Group: its rigor.Config is the same after the run.
func TestRunKeepsConfig(t *testing.T) {
	saved := opts
	opts = &options{maxRegression: -1, format: "text", budget: 2 * time.Millisecond, passes: 2, policy: "best"}
	defer func() { opts = saved }()
	g := rigor.NewGroup("keep")
	g.Config = quick()
	g.Bench("a", func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
	want := g.Config
	if _, err := mainGroup(context.Background(), &bytes.Buffer{}, g); err != nil {
		t.Fatal(err)
	}
	if g.Config != want {
		t.Errorf("the run changed the group's Config:\n got %+v\nwant %+v", g.Config, want)
	}
}
