package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
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

// TestJSONReasonAsData: each change's reason_kind and settle fields say
// as data what its reason says in words (the xxhash fixture has changes
// left open by the noise band, with the rounds that would settle them,
// and changes decided), so scripts need not read the words.
func TestJSONReasonAsData(t *testing.T) {
	var doc struct {
		Benchmarks []struct {
			FullName string `json:"full_name"`
			Metrics  []struct {
				Unit    string `json:"unit"`
				Changes []struct {
					Verdict      string `json:"verdict"`
					Reason       string `json:"reason"`
					ReasonKind   string `json:"reason_kind"`
					SettleRounds int    `json:"settle_rounds"`
					SettleBeyond int    `json:"settle_beyond"`
				} `json:"changes"`
			} `json:"metrics"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal([]byte(render(t, fxXXHash(t), Options{Format: "json"})), &doc); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, b := range doc.Benchmarks {
		for _, m := range b.Metrics {
			for _, c := range m.Changes {
				kinds[c.ReasonKind]++
				if c.ReasonKind == "" {
					t.Errorf("%s %s: no reason_kind for %q", b.FullName, m.Unit, c.Reason)
				}
				if (c.SettleRounds > 0) != strings.Contains(c.Reason, fmt.Sprintf("about %d rounds", c.SettleRounds)) ||
					(c.SettleBeyond > 0) != strings.Contains(c.Reason, "settling it would take more than") {
					t.Errorf("%s %s: settle_rounds %d, settle_beyond %d for %q", b.FullName, m.Unit, c.SettleRounds, c.SettleBeyond, c.Reason)
				}
				if c.ReasonKind == string(analysis.ReasonOpen) && !strings.Contains(c.Reason, "includes no change") {
					t.Errorf("%s %s: reason_kind open for %q", b.FullName, m.Unit, c.Reason)
				}
			}
		}
	}
	if kinds[string(analysis.ReasonOpen)] == 0 || kinds[string(analysis.ReasonInsideBand)] == 0 {
		t.Errorf("reason kinds %v: want open and inside-band among them", kinds)
	}
}
