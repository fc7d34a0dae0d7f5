package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// fxWorkRun: two benchmarks whose time no interval of 12 rounds settles
// (±20% round to round), one doing 12% fewer instructions per op, one
// the same, both CPU-bound.
func fxWorkRun() *model.Run {
	run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindAB, Paired: true,
		Sides: []model.Side{{Label: "old", Instructions: model.InstructionsSimulated}, {Label: "new", Instructions: model.InstructionsSimulated}}}
	noisy := func(r, shift int) float64 { return 1 + 0.2*float64(((r+shift)*5)%7-3)/3 }
	bench := func(name string, insRatio float64) model.Benchmark {
		b := model.Benchmark{Name: name, Procs: 1, Pkg: "example.com/hash"}
		wall, cpu := model.Metric{Unit: "sec/op"}, model.Metric{Unit: "cpu-sec/op"}
		for r := range 12 {
			for k, side := range []string{"old", "new"} {
				v := 100e-9 * noisy(r, 2*k)
				wall.Samples = append(wall.Samples, model.Sample{Side: side, Round: r, Iters: 1000, Value: v})
				cpu.Samples = append(cpu.Samples, model.Sample{Side: side, Round: r, Iters: 1000, Value: 0.98 * v})
			}
		}
		ins := model.Metric{Unit: analysis.InstructionsUnit, Better: model.LowerIsBetter}
		for i, side := range []string{"old", "old", "old", "old", "new", "new", "new", "new"} {
			v := 15000 + float64(i%4)
			if side == "new" {
				v *= insRatio
			}
			ins.Samples = append(ins.Samples, model.Sample{Side: side, Iters: 2000, Value: v})
		}
		b.Metrics = []model.Metric{wall, cpu, ins}
		return b
	}
	run.Benchmarks = []model.Benchmark{bench("Fewer", 0.88), bench("Same", 1)}
	return run
}

// Where time is inconclusive and instructions decided, the headline and
// the JSON say both: "improved in instructions -12.00% [...]; time
// inconclusive", and "unchanged" for the same work.
func TestInstructionsVerdictWords(t *testing.T) {
	rep, err := analysis.Analyze(fxWorkRun(), analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := Render(&text, rep, Options{Format: "text"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"0 of 2 benchmarks regressed; 1 improved: Fewer-1 in instructions -12.0% [-12.0%, -12.0%]; time inconclusive; 1 unchanged",
		"Fewer-1          15.00k ± 0%  13.20k ± 0%   -12.00%  [-12.02%, -11.98%]  improved   instructions",
		"a count moved when that interval lies beyond ±0.5%",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := Render(&js, rep, Options{Format: "json"}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Benchmarks []struct {
			Name      string `json:"name"`
			Decisions []struct {
				Verdict, By, Unit string
				Time              string `json:"time_verdict"`
			} `json:"decisions"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Fewer": "improved", "Same": "unchanged"}
	for _, b := range doc.Benchmarks {
		d := b.Decisions[0]
		if d.Verdict != want[b.Name] || d.By != "instructions" || d.Unit != "instructions/op" || d.Time != "inconclusive" {
			t.Errorf("%s: decision %+v, want %s by instructions (instructions/op), time_verdict inconclusive", b.Name, d, want[b.Name])
		}
	}
}
