package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

// fixtureRecords are the part 1 sleep pair and the part 3 sleep A/A of the
// fixtures, read as the experiment reads them.
func fixtureRecords(t *testing.T) []record {
	t.Helper()
	var recs []record
	for _, f := range []struct {
		part, env, pair, rigor, hf string
		cmds                       []string
	}{
		{partSides, "", "sleep", "rigor-sleep.json", "hyperfine-sleep.json", []string{"sleep 0.01", "sleep 0.012"}},
		{partAA, "quiet", "sleep 0.02", "rigor-aa-sleep.json", "hyperfine-aa-sleep.json", []string{"sleep 0.02", "sleep 0.02"}},
	} {
		x, err := parseRigorExec(readFixture(t, f.rigor))
		if err != nil {
			t.Fatal(err)
		}
		r := newRecord(f.part, f.env, f.pair, 1)
		r.Tool = "rigor"
		if err := r.fromRigor(x, f.cmds); err != nil {
			t.Fatal(err)
		}
		hf, err := parseHyperfine(readFixture(t, f.hf))
		if err != nil {
			t.Fatal(err)
		}
		h := newRecord(f.part, f.env, f.pair, 1)
		h.Tool = "hyperfine"
		if err := h.fromHyperfine(hf, f.cmds); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r, h)
	}
	return recs
}

// TestSideRowsFixtures: from the fixtures' numbers (python): rigor's
// sleep 0.01 median 0.011911937 lies in hyperfine's [0.011723725,
// 0.011978061] and hyperfine's 0.011926925 in rigor's [0.011784277,
// 0.01200962]; for sleep 0.012, 0.013877526 in [0.013849182, 0.013982321]
// and 0.0139408195 in [0.013844444, 0.013962124].
func TestSideRowsFixtures(t *testing.T) {
	rows := sideRows(pairRuns(fixtureRecords(t), partSides))
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for _, r := range rows {
		if !r.RigorInHF || !r.HFInRigor {
			t.Errorf("%s: rigor's in hf's %v, hf's in rigor's %v; want both", r.Command, r.RigorInHF, r.HFInRigor)
		}
	}
	if rows[1].HF.Lo != 0.013849182000000002 || rows[1].Rigor.Hi != 0.013962124 {
		t.Errorf("row 2 intervals: hf %v, rigor %v", rows[1].HF, rows[1].Rigor)
	}
}

func TestSideRowsOutside(t *testing.T) {
	cmd := func(med, lo, hi float64) []cmdStat {
		return []cmdStat{{Command: "a", Median: num(med), Lo: num(lo), Hi: num(hi)}}
	}
	r := record{Part: partSides, Pair: "p", Trial: 1, Tool: "rigor", Commands: cmd(10, 9, 11)}
	for _, tc := range []struct {
		name      string
		hf        []cmdStat
		inHF, inR bool
	}{
		{"hf's median above rigor's CI", cmd(11.5, 10.5, 12), false, false},
		{"rigor's median on hf's lower bound", cmd(10.5, 10, 12), true, true},
		{"hf's interval too wide to miss, its median outside rigor's", cmd(12, 1, 20), true, false},
		{"hf had too few runs", cmd(10, math.NaN(), math.NaN()), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := record{Part: partSides, Pair: "p", Trial: 1, Tool: "hyperfine", Commands: tc.hf}
			rows := sideRows(pairRuns([]record{r, h}, partSides))
			if len(rows) != 1 || rows[0].RigorInHF != tc.inHF || rows[0].HFInRigor != tc.inR {
				t.Errorf("rows %+v, want rigor's in hf's %v, hf's in rigor's %v", rows, tc.inHF, tc.inR)
			}
		})
	}
	// A failed or missing tool, or different commands: no row.
	failed := record{Part: partSides, Pair: "p", Trial: 1, Tool: "hyperfine", Error: "boom"}
	other := record{Part: partSides, Pair: "p", Trial: 1, Tool: "hyperfine", Commands: []cmdStat{{Command: "b"}}}
	for _, recs := range [][]record{{r}, {r, failed}, {r, other}} {
		if rows := sideRows(pairRuns(recs, partSides)); len(rows) != 0 {
			t.Errorf("%+v: rows %+v, want none", recs, rows)
		}
	}
}

func TestOverheadRowOf(t *testing.T) {
	// By hand: 100 timed + 3 warm-up runs; 1.03 s of wall is 10 ms a run;
	// own 0.206 s is 2 ms a run; total 0.515 s is 5 ms a run, of which the
	// command took 3 ms: 2 ms outside.
	r := record{Tool: "rigor", Trial: 1, Runs: 100, Warmup: 3, WallSec: 1.03, OwnCPUSec: 0.206, TotalCPUSec: 0.515,
		Commands: []cmdStat{{Command: "true", Median: 0.0007, CPUPerRun: 0.003}}}
	o := overheadRowOf(r)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if o.Runs != 103 || o.Reported != 0.0007 || !near(o.WallPerRun, 0.01) || !near(o.OwnCPUPerRun, 0.002) ||
		!near(o.OutsidePerRun, 0.002) || o.CmdCPUPerRun != 0.003 || o.Error != "" {
		t.Errorf("%+v", o)
	}
	if o := overheadRowOf(record{Tool: "hyperfine", Error: "boom"}); o.Error != "boom" || !math.IsNaN(o.WallPerRun) {
		t.Errorf("failed run: %+v", o)
	}
	m := medianOverhead([]overheadRow{{WallPerRun: 1, OwnCPUPerRun: nan, Reported: nan}, {WallPerRun: 3, OwnCPUPerRun: 2, Reported: nan}, {WallPerRun: 2, OwnCPUPerRun: nan, Reported: nan}})
	if m.WallPerRun != 2 || m.OwnCPUPerRun != 2 || !math.IsNaN(m.Reported) {
		t.Errorf("medians %+v, want wall 2 and own 2 (NaN left out), reported NaN", m)
	}
}

func TestAACounts(t *testing.T) {
	var recs []record
	add := func(env, cmd, tool, verdict, metric string, fastest int, clear bool, err string) {
		recs = append(recs, record{Part: partAA, Env: env, Pair: cmd, Tool: tool, Verdict: verdict, VerdictMetric: metric,
			Fastest: fastest, ClearOfSigma: clear, Error: err, WallSec: 2, Runs: 7, Warmup: 3,
			Commands: []cmdStat{{Command: cmd}, {Command: cmd}}})
	}
	add("quiet", "true", "rigor", "unchanged", "sec/op", -1, false, "")
	add("quiet", "true", "hyperfine", "", "", 0, false, "")
	add("quiet", "true", "rigor", "unchanged", "sec/op", -1, false, "")
	add("quiet", "true", "hyperfine", "", "", 1, true, "")
	add("quiet", "true", "rigor", "regressed", "cpu-sec/op", -1, false, "")
	add("quiet", "true", "hyperfine", "", "", 1, false, "")
	add("quiet", "true", "rigor", "", "", -1, false, "rigor exec: exit status 2")
	add("quiet", "true", "hyperfine", "", "", -1, false, "hyperfine: boom")
	add("neighbour", "true", "rigor", "inconclusive", "sec/op", -1, false, "")
	recs = append(recs, record{Part: partSides, Pair: "true", Tool: "rigor", Verdict: "regressed"}) // another part
	got := aaCounts(recs)
	if len(got) != 3 {
		t.Fatalf("%d tallies, want 3", len(got))
	}
	r, h, n := got[0], got[1], got[2]
	if r.Tool != "rigor" || r.Trials != 4 || r.Errors != 1 || r.Verdicts["unchanged"] != 2 || r.Verdicts["regressed"] != 1 || r.CPUClock != 1 {
		t.Errorf("rigor quiet: %+v", r)
	}
	if h.Tool != "hyperfine" || h.Trials != 4 || h.Errors != 1 || h.FirstFaster != 1 || h.SecondFaster != 2 || h.ClearOfSigma != 1 {
		t.Errorf("hyperfine quiet: %+v", h)
	}
	if n.Env != "neighbour" || n.Verdicts["inconclusive"] != 1 || len(n.Walls) != 1 {
		t.Errorf("rigor neighbour: %+v", n)
	}
	// 2 s over 2 commands × (7 + 3) runs: 0.1 s a run.
	if len(r.Walls) != 3 || medianOf(r.Runs) != 7 || medianOf(r.PerRun) != 0.1 {
		t.Errorf("walls %v runs %v: the failed run must be left out", r.Walls, r.Runs)
	}
}

// TestWriteTables renders the fixtures' records and a failure; it checks
// the summary line and that every part's table is there.
func TestWriteTables(t *testing.T) {
	recs := fixtureRecords(t)
	recs = append(recs,
		record{Part: partSides, Pair: "gzip", Trial: 1, Tool: "rigor", Error: "rigor exec: exit status 2: rigor: gzip: not found"},
		record{Part: partOverhead, Pair: "true", Trial: 1, Tool: "rigor", Runs: 100, Warmup: 3, WallSec: 1.03, OwnCPUSec: 0.206,
			TotalCPUSec: 0.515, Commands: []cmdStat{{Command: "true", Median: 0.0007, CPUPerRun: 0.003}}},
		record{Part: partOverhead, Pair: "true", Trial: 1, Tool: "hyperfine", Runs: 100, Warmup: 3, WallSec: 0.515, OwnCPUSec: 0.103,
			TotalCPUSec: 0.412, Commands: []cmdStat{{Command: "true", Median: 0.0008, CPUPerRun: 0.003}}})
	var b bytes.Buffer
	if err := writeTables(&b, recs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Part 1a", "Part 1b", "Part 2", "Part 3a", "Part 3b",
		"rigor's median inside hyperfine's CI: 2 of 2; hyperfine's inside rigor's: 2 of 2.",
		"left out: gzip trial 1: rigor: rigor exec: exit status 2",
		"1.1681 [1.1594, 1.1767]", // rigor's change +16.81% [+15.94%, +17.67%]
		"1.1731 ± 0.0181",         // hyperfine's, as TestHfAgreesWithHyperfine checks
		"rigor/hyperfine",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// rigor/hyperfine per-run wall: 10 ms over 5 ms.
	if !strings.Contains(out, "2.0000") {
		t.Errorf("output lacks the wall ratio 2.0000:\n%s", out)
	}
}

// TestDetections: part 1b's tally counts, per pair, the trials both
// tools finished: rigor's regressed and improved, hyperfine's ratio above
// 1 and clear of its σ, and below 1.
func TestDetections(t *testing.T) {
	cmds := []cmdStat{{Command: "sleep 0.01"}, {Command: "sleep 0.0102"}}
	pair := func(trial int, verdict string, ratio float64, clear bool) []record {
		return []record{
			{Part: partSides, Pair: "sleep", Trial: trial, Tool: "rigor", Verdict: verdict, Commands: cmds},
			{Part: partSides, Pair: "sleep", Trial: trial, Tool: "hyperfine", Ratio: num(ratio), ClearOfSigma: clear, Commands: cmds},
		}
	}
	var recs []record
	recs = append(recs, pair(1, "regressed", 1.02, true)...)
	recs = append(recs, pair(2, "regressed", 1.02, false)...)
	recs = append(recs, pair(3, "inconclusive", 0.97, false)...)
	recs = append(recs, pair(4, "improved", 0.9, true)...) // clear, the wrong way
	recs = append(recs, record{Part: partSides, Pair: "sleep", Trial: 5, Tool: "rigor", Verdict: "regressed", Commands: cmds},
		record{Part: partSides, Pair: "sleep", Trial: 5, Tool: "hyperfine", Error: "hyperfine: killed"})
	got := detections(pairRuns(recs, partSides))
	want := []detection{{Pair: "sleep", Trials: 4, RigorRegressed: 2, RigorImproved: 1, HFClear: 1, HFBelow: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	var b bytes.Buffer
	if err := writeTables(&b, recs); err != nil {
		t.Fatal(err)
	}
	if w := "sleep: rigor said regressed in 2 of 4 trials (the wrong way in 1); hyperfine's means ratio was above 1 and clear of its ±σ in 1 of 4 (below 1 in 2)."; !strings.Contains(b.String(), w) {
		t.Errorf("tables lack %q:\n%s", w, b.String())
	}
}

func TestNumJSON(t *testing.T) {
	b, err := json.Marshal(struct{ A, B, C num }{num(math.NaN()), num(math.Inf(1)), 0.25})
	if err != nil || string(b) != `{"A":null,"B":null,"C":0.25}` {
		t.Fatalf("%s, %v", b, err)
	}
	var back struct{ A, C num }
	if err := json.Unmarshal(b, &back); err != nil || !math.IsNaN(float64(back.A)) || back.C != 0.25 {
		t.Errorf("%+v, %v", back, err)
	}
	// A whole record with NaNs encodes (encoding/json refuses NaN floats).
	if _, err := json.Marshal(newRecord(partAA, "quiet", "true", 1)); err != nil {
		t.Error(err)
	}
}

func TestFmtSec(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want string
	}{
		{math.NaN(), "-"}, {0, "0"}, {0.0000123456, "12.35µs"}, {0.0123456, "12.35ms"}, {1.5, "1.5s"}, {120, "120s"},
	} {
		if got := fmtSec(tc.s); got != tc.want {
			t.Errorf("fmtSec(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestGenInput(t *testing.T) {
	gen := func(size int64, seed uint64) []byte {
		var b bytes.Buffer
		if err := genInput(&b, size, seed); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a := gen(1<<20, 1)
	if len(a) != 1<<20 || !bytes.Equal(a, gen(1<<20, 1)) {
		t.Fatalf("%d bytes, or not the same for the same seed", len(a))
	}
	if bytes.Equal(a[:4096], gen(4096, 2)) {
		t.Error("seeds 1 and 2 gave the same bytes")
	}
	if got := gen(1000, 1); !bytes.Equal(got, a[:1000]) {
		t.Error("a shorter input is not a prefix of a longer one")
	}
	// Realistic compression: text that gzip shrinks, but not to nothing
	// (the random tokens and numbers). gzip -1 on this 1 MiB gives about
	// 3.5:1 (4.4:1 at -9, as the gzip program does on 20 MiB).
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
	if _, err := io.Copy(w, bytes.NewReader(a)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if ratio := float64(len(a)) / float64(z.Len()); ratio < 2.5 || ratio > 6 {
		t.Errorf("compression ratio %.2f, want between 2.5 and 6", ratio)
	}
}
