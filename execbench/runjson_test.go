package execbench

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
)

// TestWriteRunIsWriteJSONs: writeRun writes byte for byte what
// experiment.WriteRun (model's WriteJSON) writes, for a run of rigor
// exec with the observer's observations and notes, and for a run whose
// strings hold what JSON escapes (quotes, backslashes, control
// characters, HTML, U+2028), empty arrays and objects, and extreme
// numbers.
func TestWriteRunIsWriteJSONs(t *testing.T) {
	cfg := config(t, 4, h(), h("-print", "x"))
	cfg.Warmup = 1
	ctx := context.Background()
	cfg.Observer, cfg.ProcessStats, cfg.Annotate = observe.Start(ctx, 0), true, observe.Annotate
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Run.Observations) == 0 {
		t.Fatal("the session's run has no observations")
	}
	odd := "a\"quote\\back\tslash\n<b>&amp;</b> \u2028\u2029 \x01 é 𝄞 \x7f"
	hand := &model.Run{
		ID: odd, Kind: Kind, Paired: true,
		Start:   time.Date(2026, 12, 2, 4, 30, 0, 123456789, time.FixedZone("x", 3600)),
		Command: []string{"rigor", "exec", odd, ""},
		Env:     &model.Env{},
		Sides:   []model.Side{{Label: odd, Source: "{}[]:,"}, {Label: "[]", BuildEnv: []string{}}},
		Benchmarks: []model.Benchmark{
			{Name: "B" + odd, Config: map[string]string{"k": odd, "": "<>"}, Metrics: []model.Metric{
				{Unit: WallUnit, Better: model.LowerIsBetter, Samples: []model.Sample{
					{Side: odd, Round: 1, Iters: 1, Value: 5e-324},
					{Side: "[]", Round: 2, Iters: 1, Value: math.MaxFloat64},
					{Side: odd, Round: 3, Iters: 1, Value: 1e21},
					{Side: "[]", Round: 4, Iters: 1, Value: 1e-7},
				}},
				{Unit: CPUUnit, Samples: []model.Sample{}},
			}},
			{Name: "empty", Metrics: []model.Metric{}},
		},
		Observations: []model.Observation{{Benchmark: odd, Duration: time.Nanosecond}, {}},
		Notes:        []model.Note{{Kind: model.NoteProcess, Text: odd, Evidence: map[string]float64{"x": 1.5, "nan": math.NaN()}}, {Kind: model.NoteAA}},
	}
	for name, run := range map[string]*model.Run{"session": res.Run, "escapes": hand, "empty": {Kind: Kind, Sides: []model.Side{}, Benchmarks: []model.Benchmark{}}} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := experiment.WriteRun(dir, "want.json", run); err != nil {
				t.Fatal(err)
			}
			if err := writeRun(dir, "got.json", run); err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(filepath.Join(dir, "want.json"))
			got, _ := os.ReadFile(filepath.Join(dir, "got.json"))
			if !bytes.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Errorf("run.json differs from WriteJSON's at byte %d of %d (want %d): got %q, want %q", i, len(got), len(want),
					got[max(0, i-40):min(len(got), i+40)], want[max(0, i-40):min(len(want), i+40)])
			}
			for _, f := range []string{"want.json", "got.json"} {
				if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Mode().Perm() != 0o644 {
					t.Errorf("%s: %v, mode %v; want 0644", f, err, fi.Mode())
				}
			}
		})
	}
}

// TestWriteRunRefuses: a run WriteJSON refuses, writeRun refuses with
// the same error, and writes nothing.
func TestWriteRunRefuses(t *testing.T) {
	for name, run := range map[string]*model.Run{
		"side twice": {Kind: Kind, Sides: []model.Side{{Label: "a"}, {Label: "a"}}},
		"not finite": {Kind: Kind, Sides: []model.Side{{Label: "a"}}, Benchmarks: []model.Benchmark{{Name: "B", Metrics: []model.Metric{
			{Unit: WallUnit, Samples: []model.Sample{{Side: "a", Iters: 1, Value: math.Inf(1)}}}}}}},
		"no side": {Kind: Kind, Sides: []model.Side{{Label: "a"}}, Benchmarks: []model.Benchmark{{Name: "B", Metrics: []model.Metric{
			{Unit: WallUnit, Samples: []model.Sample{{Side: "b", Iters: 1, Value: 1}}}}}}},
	} {
		dir := t.TempDir()
		want := experiment.WriteRun(dir, experiment.RunFile, run)
		got := writeRun(dir, experiment.RunFile, run)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%s: writeRun said %v, WriteRun %v; want the same error", name, got, want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: the directory holds %d files, want none", name, len(entries))
		}
	}
}

// FuzzAppendIndent: for any JSON value, compacted as encoding/json
// writes it, appendIndent indents as json.Indent does.
func FuzzAppendIndent(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,{},[]],"b":{"c":"d\"}]"}}`, `"x\\"`, `[[[]]]`, `{"":""}`, `1`, `null`, "{\"a\":\"\u2028<>\"}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if !json.Valid(src) {
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, src); err != nil {
			t.Fatal(err)
		}
		for _, c := range [][]byte{compact.Bytes(), append(compact.Bytes(), '\n')} {
			var want bytes.Buffer
			if err := json.Indent(&want, c, "", "  "); err != nil {
				t.Fatal(err)
			}
			if got := appendIndent(nil, c); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("appendIndent(%q) = %q, want %q", c, got, want.Bytes())
			}
		}
	})
}

// BenchmarkWriteRun: run.json of a session of 1000 runs of true with
// the observer on (1.3 MB), by writeRun and by experiment.WriteRun.
func BenchmarkWriteRun(b *testing.B) {
	cfg := Config{Out: filepath.Join(b.TempDir(), "out"), Time: time.Minute, Runs: 1000, Commands: []Command{{Line: "true"}}}
	ctx := context.Background()
	cfg.Observer, cfg.ProcessStats, cfg.Annotate = observe.Start(ctx, 0), true, observe.Annotate
	res, err := Run(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []struct {
		name  string
		write func(dir, name string, run *model.Run) error
	}{{"writeRun", writeRun}, {"WriteRun", experiment.WriteRun}} {
		b.Run(w.name, func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				if err := w.write(dir, "run.json", res.Run); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
