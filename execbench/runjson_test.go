package execbench

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
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

// TestObsEncoderIsJSONs: obsEncoder writes what encoding/json writes for
// observations with every field set, found by reflection (a field added
// to model's types is set here and fails the test until obsEncoder
// encodes it), with every optional field empty, and with pointers to
// empty structs; and refuses what encoding/json refuses.
func TestObsEncoderIsJSONs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	floats := []float64{0.1, 1, 1e-7, 1e-6, 123456.789, 1e21, 1e20, 5e-324, -2.5e-9, 0.30000000000000004, math.MaxFloat64, -1}
	strs := []string{"a", "exec", "x\"y\\z", "<&>", "\u2028", "\x01\t\n", "é𝄞", "\xff"}
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				v.Set(reflect.ValueOf(time.Date(2026, 12, 2, 5, rng.IntN(60), rng.IntN(60), rng.IntN(1e9), time.FixedZone("", 3600*rng.IntN(3)))))
				return
			}
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem())
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			for i := range 2 {
				fill(v.Index(i))
			}
		case reflect.String:
			v.SetString(strs[rng.IntN(len(strs))])
		case reflect.Float64:
			f := floats[rng.IntN(len(floats))]
			if g := f * (1 + float64(rng.IntN(3))); !math.IsInf(g, 0) {
				f = g
			}
			v.SetFloat(f)
		case reflect.Int, reflect.Int64:
			v.SetInt(rng.Int64N(1<<40) - 1<<20)
		case reflect.Uint64:
			v.SetUint(rng.Uint64())
		default:
			t.Fatalf("fill: a field of kind %v: teach the test (and obsEncoder) about it", v.Kind())
		}
	}
	var obs []model.Observation
	for range 50 {
		var o model.Observation
		fill(reflect.ValueOf(&o).Elem())
		obs = append(obs, o)
	}
	obs = append(obs, model.Observation{}, model.Observation{System: &model.SystemStats{}, Process: &model.ProcessStats{},
		Runtime: &model.RuntimeStats{}, Profile: &model.ProfileStats{Top: []model.FuncShare{}}, StorageIO: &model.StorageIO{}})
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obs); err != nil {
		t.Fatal(err)
	}
	var e obsEncoder
	got, err := e.appendObservations(nil, obs)
	if err != nil {
		t.Fatal(err)
	}
	if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
		i := 0
		for i < min(len(got), len(w)) && got[i] == w[i] {
			i++
		}
		t.Errorf("differs from encoding/json at byte %d: got %q, want %q", i, got[max(0, i-60):min(len(got), i+40)], w[max(0, i-60):min(len(w), i+40)])
	}
	for _, bad := range []model.Observation{{OtherCPU: math.NaN()}, {System: &model.SystemStats{User: math.Inf(1)}}, {Start: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}} {
		if _, err := json.Marshal([]model.Observation{bad}); err == nil {
			t.Fatalf("encoding/json took %+v", bad)
		}
		if _, err := (&obsEncoder{}).appendObservations(nil, []model.Observation{bad}); err == nil {
			t.Errorf("obsEncoder took %+v, which encoding/json refuses", bad)
		}
	}
}
