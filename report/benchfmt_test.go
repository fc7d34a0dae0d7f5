package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/rigorbench/rigor/analysis"
)

// The benchfmt output reads back, through golang.org/x/perf/benchfmt,
// as every raw sample of every side, each tagged with its side.
func TestBenchfmtReadsBack(t *testing.T) {
	for _, fx := range []struct {
		name string
		rep  func(testing.TB) *analysis.Report
	}{{"seed003", fxSeed003}, {"paired", fxPaired}, {"group", fxGroup}} {
		rep := fx.rep(t)
		var out bytes.Buffer
		if err := Render(&out, rep, Options{Format: "benchfmt"}); err != nil {
			t.Fatalf("%s: %v", fx.name, err)
		}
		// Expected: side -> benchmark -> unit -> values in order.
		want := map[string]map[string]map[string][]float64{}
		for _, b := range rep.Run.Benchmarks {
			for _, m := range b.Metrics {
				for _, s := range m.Samples {
					if want[s.Side] == nil {
						want[s.Side] = map[string]map[string][]float64{}
					}
					name := strings.ReplaceAll(b.FullName(), " ", "_")
					if want[s.Side][name] == nil {
						want[s.Side][name] = map[string][]float64{}
					}
					want[s.Side][name][m.Unit] = append(want[s.Side][name][m.Unit], s.Value)
				}
			}
		}
		got := map[string]map[string]map[string][]float64{}
		r := benchfmt.NewReader(&out, fx.name)
		for r.Scan() {
			switch rec := r.Result().(type) {
			case *benchfmt.SyntaxError:
				t.Errorf("%s: %v", fx.name, rec)
			case *benchfmt.Result:
				side := rec.GetConfig("side")
				if side == "" {
					t.Fatalf("%s: result %s has no side", fx.name, rec.Name)
				}
				if got[side] == nil {
					got[side] = map[string]map[string][]float64{}
				}
				name := string(rec.Name)
				if got[side][name] == nil {
					got[side][name] = map[string][]float64{}
				}
				for _, v := range rec.Values {
					got[side][name][v.Unit] = append(got[side][name][v.Unit], v.Value)
				}
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		for side, bs := range want {
			for name, units := range bs {
				for unit, vals := range units {
					g := got[side][name][unit]
					if len(g) != len(vals) {
						t.Errorf("%s: %s %s %s: read %d values, want %d", fx.name, side, name, unit, len(g), len(vals))
						continue
					}
					for i := range vals {
						// ns/op and MB/s round-trip exactly; the rest are
						// written with full precision.
						if d := g[i] - vals[i]; d > 1e-12*vals[i] || d < -1e-12*vals[i] {
							t.Errorf("%s: %s %s %s[%d] = %v, want %v", fx.name, side, name, unit, i, g[i], vals[i])
						}
					}
				}
			}
		}
		if len(got) != len(rep.Sides) {
			t.Errorf("%s: read sides %v, want %v", fx.name, got, rep.Sides)
		}
	}
}

// benchstat itself reads the output and finds seed 003's changes: the
// oracle is benchstat's table in seed 003 (-90.13% sec/op, -95.57% B/op,
// -93.70% allocs/op).
func TestBenchstatReadsBenchfmt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchstat with go run; skipped with -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	var out bytes.Buffer
	if err := Render(&out, fxSeed003(t), Options{Format: "benchfmt"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "seed003.txt")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gobin, "run", "golang.org/x/perf/cmd/benchstat", "-col", "side", path)
	res, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, res)
	}
	for _, want := range []string{"base", "optimized", "-90.13%", "-95.57%", "-93.70%", "8107.5n ± 7%", "800.4n ± 13%"} {
		if !strings.Contains(string(res), want) {
			t.Errorf("benchstat output lacks %q:\n%s", want, res)
		}
	}
}
