package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// FuzzRenderNames renders a small paired run whose benchmark and side
// names are arbitrary (invalid UTF-8, control characters, markup, wide
// runes) in every format: nothing panics, the tree's CI column stays
// aligned, the HTML never carries a raw '<' from a name, and llm lines
// read back as key=value pairs.
func FuzzRenderNames(f *testing.F) {
	for _, s := range []string{"Build", "<script>alert(1)</script>", "日本語/テキスト", "🚀🔥/a=b", "a b\tc", "\xff\xfe", "x=\"y\"", strings.Repeat("long/", 40)} {
		f.Add(s, "new")
	}
	f.Fuzz(func(t *testing.T, name, side string) {
		if name == "" || side == "" || side == "old" {
			return
		}
		run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindAB, Paired: true,
			Sides: []model.Side{{Label: "old"}, {Label: side}}}
		m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
		for r := 1; r <= 6; r++ {
			m.Samples = append(m.Samples,
				model.Sample{Side: "old", Round: r, Iters: 100, Value: 100e-9 + float64(r)*1e-9},
				model.Sample{Side: side, Round: r, Iters: 100, Value: 90e-9 + float64(r%3)*1e-9})
		}
		run.Benchmarks = []model.Benchmark{{Name: name, Procs: 4, Metrics: []model.Metric{m}}}
		o := analysis.DefaultOptions()
		o.Resamples = 100
		rep, err := analysis.Analyze(run, o)
		if err != nil {
			t.Skip(err)
		}
		for _, format := range Formats() {
			var b bytes.Buffer
			err := Render(&b, rep, Options{Format: format, Width: 80})
			if format == "benchfmt" {
				continue // names Go benchmark format cannot carry are an error, not a panic
			}
			if err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			out := b.String()
			switch format {
			case "text", "md":
				for _, r := range out {
					if escapable(r) && r != '\n' {
						t.Errorf("%s: name %q, side %q: output holds %q", format, name, side, r)
						break
					}
				}
			case "html":
				if bad := unexpectedTags(out); len(bad) > 0 {
					t.Errorf("name %q: html has tags %q", name, bad)
				}
				_, after, _ := strings.Cut(out, `<span class="name">`)
				shown, _, _ := strings.Cut(after, "</span>")
				if strings.ContainsAny(shown, "<>") {
					t.Errorf("name %q shown unescaped: %q", name, shown)
				}
			case "llm":
				for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
					parseKV(t, line)
				}
			}
		}
	})
}
