package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rigorbench/rigor/analysis"
)

// TestJSONStreamsTheSameDocument: the JSON written one benchmark at a
// time is byte for byte the document encoding.json writes for the whole
// report at once (as rigor wrote it before streaming), for reports with
// and without benchmarks, geomeans and notes.
func TestJSONStreamsTheSameDocument(t *testing.T) {
	empty := fxSeed003(t)
	empty = &analysis.Report{Kind: empty.Kind, Sides: empty.Sides, Options: empty.Options}
	for name, rep := range map[string]*analysis.Report{
		"seed003": fxSeed003(t), "paired": fxPaired(t), "group": fxGroup(t), "empty": empty,
		"hostile": hostileRun(t, "<b>&\"x\"</b>\x1b", "new\u2028"),
	} {
		whole := jsonHead(rep)
		for i := range rep.Benchmarks {
			whole.Benchmarks = append(whole.Benchmarks, benchmarkJSON(&rep.Benchmarks[i]))
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(whole); err != nil {
			t.Fatal(err)
		}
		got := render(t, rep, Options{Format: "json"})
		if got != want.String() {
			t.Errorf("%s: streamed JSON differs from the whole document:\n%s\nwant\n%s", name, got, want.String())
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s: not valid JSON", name)
		}
	}
}
