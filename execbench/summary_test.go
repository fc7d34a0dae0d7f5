package execbench

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// planned returns a session planned from cfg (its commands must be
// found), with no run done.
func planned(t *testing.T, cfg Config) *session {
	t.Helper()
	s := &session{cfg: cfg, run: &model.Run{Kind: Kind, Paired: len(cfg.Commands) > 1}}
	if err := s.plan(); err != nil {
		t.Fatal(err)
	}
	return s
}

// fill records rounds runs of every side of every unit, side si of unit
// u taking wall(u, si, k) in round k (CPU time half of it).
func fill(s *session, rounds int, wall func(u *unit, si, k int) time.Duration) {
	for k := 1; k <= rounds; k++ {
		for _, u := range s.units {
			for si := range s.labels {
				w := wall(u, si, k)
				s.record(u, si, k, &measurement{wall: w, user: w / 2})
			}
		}
	}
}

// TestExportOrderIsHyperfines: results come in hyperfine's order, the
// commands within each combination and the first parameter varying
// fastest (hyperfine 1.15: -L x 1,2 -L y p,q 'echo a{x}{y}' 'echo
// b{x}{y}' exports a1p b1p a2p b2p a1q b1q a2q b2q), and per-benchmark
// names go where hyperfine puts them.
func TestExportOrderIsHyperfines(t *testing.T) {
	cfg := Config{
		Commands: []Command{{Line: "true a{x}{y}"}, {Line: "true b{x}{y}"}},
		Params:   []Param{{"x", []string{"1", "2"}}, {"y", []string{"p", "q"}}},
	}
	s := planned(t, cfg)
	fill(s, 2, func(*unit, int, int) time.Duration { return time.Millisecond })
	var got []string
	for _, r := range (&Result{Run: s.run, sess: s}).Hyperfine().Results {
		got = append(got, r.Command)
	}
	want := []string{"true a1p", "true b1p", "true a2p", "true b2p", "true a1q", "true b1q", "true a2q", "true b2q"}
	if !slices.Equal(got, want) {
		t.Errorf("export order %q, want hyperfine's %q", got, want)
	}

	// hyperfine -L x 1,2 -n A -n B -n C -n D 'echo a{x}' 'echo b{x}'
	// names a1 A, b1 B, a2 C, b2 D.
	cfg = Config{
		Commands: []Command{{Line: "true a{x}", Names: []string{"A", "C"}}, {Line: "true b{x}", Names: []string{"B {x}", "D {x}"}}},
		Params:   []Param{{"x", []string{"1", "2"}}},
	}
	s = planned(t, cfg)
	fill(s, 2, func(*unit, int, int) time.Duration { return time.Millisecond })
	got = nil
	for _, r := range (&Result{Run: s.run, sess: s}).Hyperfine().Results {
		got = append(got, r.Command)
	}
	if want := []string{"A", "B 1", "C", "D 2"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	// Different names per combination: the side keeps its command line.
	if !slices.Equal(s.labels, []string{"true a{x}", "true b{x}"}) {
		t.Errorf("labels %q", s.labels)
	}
	// The same name in every combination is the side's label.
	cfg.Commands[0].Names = []string{"same", "same"}
	if s := planned(t, cfg); s.labels[0] != "same" {
		t.Errorf("label %q, want same", s.labels[0])
	}
	cfg.Commands[0].Names = []string{"one"}
	if err := (&session{cfg: cfg, run: &model.Run{}}).plan(); err == nil {
		t.Error("1 name for 2 combinations: no error")
	}
}

// TestSummaryRows: the summary reads its intervals and verdicts from the
// analysis, for the right command and combination. The second command
// takes exactly twice the reference's time in every round, so the
// paired ratio and both ends of its interval are 2 (every per-round
// ratio is 2), and the verdict is regressed; the third takes the same
// time: ratio 1.
func TestSummaryRows(t *testing.T) {
	cfg := Config{
		Commands: []Command{{Line: "true a{n}"}, {Line: "true b{n}"}, {Line: "true c{n}"}},
		Params:   []Param{{"n", []string{"1", "2"}}},
	}
	s := planned(t, cfg)
	fill(s, 12, func(u *unit, si, k int) time.Duration {
		base := time.Duration(1+u.hindex)*time.Millisecond + time.Duration(k)*10*time.Microsecond
		if si == 1 {
			return 2 * base
		}
		return base
	})
	rep, err := analysis.Analyze(s.run, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	sum := (&Result{Run: s.run, sess: s}).Summary(rep)
	if len(sum.Rows) != 6 {
		t.Fatalf("%d rows, want 6", len(sum.Rows))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	for i, r := range sum.Rows {
		si, n := i%3, i/3 // hyperfine's order
		b := rep.Benchmarks[slices.IndexFunc(rep.Benchmarks, func(b analysis.Benchmark) bool { return b.Config["n"] == r.Parameters["n"] })]
		wall := b.Metrics[slices.IndexFunc(b.Metrics, func(m analysis.Metric) bool { return m.Unit == WallUnit })]
		if r.Parameters["n"] != []string{"1", "2"}[n] || r.MedianLo != wall.Sides[si].Lo || r.MedianHi != wall.Sides[si].Hi {
			t.Errorf("row %d (%s): n=%s median CI [%v, %v], want n=%s and side %d's [%v, %v]", i, r.Command, r.Parameters["n"], r.MedianLo, r.MedianHi, []string{"1", "2"}[n], si, wall.Sides[si].Lo, wall.Sides[si].Hi)
		}
		// 12 rounds of 1 ms (n=1) or 2 ms (n=2) plus 10 µs per round:
		// the median is halfway between rounds 6 and 7.
		wantMedian := (float64(1+n)*1e-3 + 65e-6) * []float64{1, 2, 1}[si]
		if !near(r.Median, wantMedian) {
			t.Errorf("row %d: median %v, want %v", i, r.Median, wantMedian)
		}
		switch si {
		case 0:
			if !r.Reference || r.Relative != 1 || !math.IsNaN(r.RelativeLo) || r.Verdict != "" {
				t.Errorf("reference row %+v", r)
			}
		case 1:
			if r.Reference || !near(r.Relative, 2) || !near(r.RelativeLo, 2) || !near(r.RelativeHi, 2) || r.Verdict != analysis.Regressed || r.Clock != WallUnit {
				t.Errorf("twice as slow: %+v", r)
			}
		case 2:
			if !near(r.Relative, 1) || r.Verdict != analysis.Unchanged {
				t.Errorf("as fast: %+v", r)
			}
		}
	}
}

// TestSummaryOneCommand: with one command, each row relates to the
// fastest median, as hyperfine relates rows to the fastest, without an
// interval or a verdict.
func TestSummaryOneCommand(t *testing.T) {
	s := planned(t, Config{Commands: []Command{{Line: "true {n}"}}, Params: []Param{{"n", []string{"1", "2", "3"}}}})
	fill(s, 3, func(u *unit, _, _ int) time.Duration { return []time.Duration{4, 2, 8}[u.hindex] * time.Millisecond })
	rep, err := analysis.Analyze(s.run, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var rel []float64
	for _, r := range (&Result{Run: s.run, sess: s}).Summary(rep).Rows {
		rel = append(rel, r.Relative)
		if r.Reference || r.Verdict != "" || !math.IsNaN(r.RelativeLo) {
			t.Errorf("row %+v: a reference, verdict or interval without a comparison", r)
		}
	}
	if !slices.Equal(rel, []float64{2, 1, 4}) {
		t.Errorf("relative %v, want [2 1 4]", rel)
	}
}
