package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// fxVerdictsRun is the fixture of issue 24's golden files: an A/A run
// (its sources said so) on a busy machine, with a benchmark that
// regressed, one unchanged, one inconclusive, one whose only change is
// exact (fewer allocations at the same time), one that failed on new,
// and one the clock decides on CPU time (its wall time waited for a CPU
// in some rounds).
func fxVerdictsRun() *model.Run {
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	run := &model.Run{
		SchemaVersion: model.SchemaVersion, Kind: model.KindAB, Paired: true,
		Start: t0, End: t0.Add(90 * time.Second),
		Command: []string{"rigor", "ab", "--old", "HEAD~1", "--max-regression", "5", "./..."},
		Sides: []model.Side{
			{Label: "old", Source: "HEAD~1", Rev: "3333333333333333333333333333333333333333"},
			{Label: "new", Source: ".", Rev: "3333333333333333333333333333333333333333"},
		},
		Env: &model.Env{GoVersion: "go1.26.8", GoToolchain: "go1.26.8", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 2,
			CPUModel: "AMD EPYC", PhysicalCores: 2, LogicalCores: 2, Kernel: "6.1.0", MemTotalBytes: 8 << 30},
	}
	const rounds = 20
	wig := func(r, shift int) float64 { return 1 + 0.002*float64(((r+shift)*7)%5-2) }
	add := func(b *model.Benchmark, unit string, f func(side string, r int) float64) {
		m := model.Metric{Unit: unit}
		for r := range rounds {
			for _, side := range []string{"old", "new"} {
				m.Samples = append(m.Samples, model.Sample{Side: side, Round: r, Iters: 1000, Value: f(side, r)})
			}
		}
		b.Metrics = append(b.Metrics, m)
	}
	timed := func(name string, old, new float64, noise func(r int) float64) model.Benchmark {
		b := model.Benchmark{Name: name, Procs: 2, Pkg: "example.com/lab", Config: map[string]string{"goos": "linux", "goarch": "amd64"}}
		at := func(side string, r int) float64 {
			if side == "old" {
				return old * wig(r, 0) * noise(r)
			}
			return new * wig(r, 3) * noise(r+1)
		}
		add(&b, "sec/op", at)
		add(&b, "cpu-sec/op", func(side string, r int) float64 { return 0.98 * at(side, r) })
		add(&b, "wait-sec/op", func(string, int) float64 { return 0 })
		add(&b, "B/op", func(string, int) float64 { return 0 })
		add(&b, "allocs/op", func(string, int) float64 { return 0 })
		return b
	}
	quiet := func(int) float64 { return 1 }
	noisy := func(r int) float64 { return 1 + 0.3*float64(r%2*2-1) }
	alloc := timed("Alloc", 500e-9, 500e-9, quiet)
	alloc.Metrics[3] = model.Metric{Unit: "B/op"}
	alloc.Metrics[4] = model.Metric{Unit: "allocs/op"}
	for r := range rounds {
		for _, side := range []string{"old", "new"} {
			bytes, allocs := 64.0, 2.0
			if side == "new" {
				bytes, allocs = 32, 1
			}
			alloc.Metrics[3].Samples = append(alloc.Metrics[3].Samples, model.Sample{Side: side, Round: r, Iters: 1000, Value: bytes})
			alloc.Metrics[4].Samples = append(alloc.Metrics[4].Samples, model.Sample{Side: side, Round: r, Iters: 1000, Value: allocs})
		}
	}
	crash := timed("Crash", 200e-9, 200e-9, quiet)
	for j := range crash.Metrics {
		var kept []model.Sample
		for _, s := range crash.Metrics[j].Samples {
			if s.Side == "old" {
				kept = append(kept, s)
			}
		}
		crash.Metrics[j].Samples = kept
	}
	crash.Missing = map[string]model.Missing{"new": {Kind: model.MissingFailed, Reason: "panicked (exit status 2) in round 1"}}
	// Busy runs at GOMAXPROCS 1 on one busy thread: its CPU time is
	// steady, +10%; its wall time waited for a CPU in every third round.
	busy := model.Benchmark{Name: "Busy", Pkg: "example.com/lab", Config: map[string]string{"goos": "linux", "goarch": "amd64"}}
	cpu := func(side string, r int) float64 {
		if side == "old" {
			return 1e-6 * wig(r, 0)
		}
		return 1.1e-6 * wig(r, 3)
	}
	wait := func(side string, r int) float64 {
		if (r+len(side))%3 == 0 {
			return 0.4e-6
		}
		return 0
	}
	add(&busy, "sec/op", func(side string, r int) float64 { return cpu(side, r) + wait(side, r) })
	add(&busy, "cpu-sec/op", cpu)
	add(&busy, "wait-sec/op", wait)
	run.Benchmarks = []model.Benchmark{
		timed("Work", 1000e-9, 1150e-9, quiet),
		timed("Sum", 300e-9, 300e-9, quiet),
		timed("Noisy", 800e-9, 808e-9, noisy),
		alloc, crash, busy,
	}
	for i := range run.Benchmarks {
		b := &run.Benchmarks[i]
		for r := range rounds {
			for k, side := range []string{"old", "new"} {
				run.Observations = append(run.Observations, model.Observation{
					Start: t0.Add(time.Duration(r*2+k) * time.Second), Duration: time.Second, Benchmark: b.Key(), Side: side, Round: r,
					OtherCPU: 0.6, System: &model.SystemStats{CPUs: 2, User: 0.8, System: 0.1, Idle: 0.1, Load1: 3.5, Running: 3, Samples: 4},
					Process: &model.ProcessStats{UserSec: 0.3, SystemSec: 0.01},
				})
			}
		}
	}
	run.Notes = []model.Note{
		{Kind: model.NoteAA, Source: "gotest", Text: "A/A run: old and new build the same source with the same settings, so this run measures the noise floor; any verdict other than unchanged is a false alarm."},
		{Kind: model.NoteMachine, Topic: "busy", Source: "observe", Evidence: map[string]float64{"other_cpu": 0.6},
			Text: "the machine was busy: other processes used 60% of the CPU during the run; the load average was 3.5 on 2 logical CPUs; the numbers may reflect the machine, not the code"},
		{Kind: model.NoteRounds, Source: "gotest", Text: "Stopped at the maximum number of rounds, after 20 rounds."},
		{Kind: model.NoteBudget, Source: "gotest", Text: "The time budget 1m30s: calibration 2s, rounds 88s (20 rounds)."},
		{Kind: model.NoteProfile, Source: "gotest", Text: "After the timed rounds every benchmark ran once more per side, untimed, writing CPU and mutex profiles to /tmp/run/profiles."},
	}
	return run
}

// fxVerdicts is fxVerdictsRun analysed, with a 5% gate applied.
func fxVerdicts(t testing.TB) *analysis.Report {
	t.Helper()
	rep := fxAnalyze(t, fxVerdictsRun())
	rep.ApplyGate(0.05, false)
	return rep
}

// Every format on the verdicts fixture, as golden files: what issue 24
// asks a newcomer to read in seconds.
func TestGoldenVerdicts(t *testing.T) {
	rep := fxVerdicts(t)
	for _, c := range []struct {
		suffix string
		opts   Options
	}{
		{"text", Options{Format: "text"}},
		{"text-v", Options{Format: "text", Verbose: true}},
		{"tree", Options{Format: "tree", Width: 100}},
		{"table", Options{Format: "text", Style: "table", Width: 120}},
		{"md", Options{Format: "md"}},
		{"json", Options{Format: "json"}},
		{"csv", Options{Format: "csv"}},
		{"llm", Options{Format: "llm"}},
		{"html", Options{Format: "html"}},
		{"benchfmt", Options{Format: "benchfmt"}},
	} {
		t.Run(c.suffix, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, rep, c.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, "verdicts."+c.suffix+".golden", b.Bytes())
		})
	}
}

// What the fixture's report must say, format by format: each benchmark
// once with its one verdict, counted by benchmark; the A/A run and the
// failed gate in the head; CPU time named where it decided; no p=? on an
// exact row; the notes a reader acts on, not the budget's or the
// profiles'.
func TestVerdictsSaid(t *testing.T) {
	rep := fxVerdicts(t)
	// The fixture is what it claims: the analysis decided so.
	want := map[string]struct {
		verdict analysis.Verdict
		unit    string
	}{
		"Work-2": {analysis.Regressed, "sec/op"}, "Sum-2": {analysis.Unchanged, "sec/op"}, "Noisy-2": {analysis.Inconclusive, "sec/op"},
		"Alloc-2": {analysis.Improved, "B/op"}, "Crash-2": {"", ""}, "Busy": {analysis.Regressed, "cpu-sec/op"},
	}
	for _, b := range rep.Benchmarks {
		d := b.Decisions[0]
		if w := want[b.FullName]; d.Verdict != w.verdict || d.Unit != w.unit {
			t.Errorf("%s: %s by %s, want %s by %s", b.FullName, d.Verdict, d.Unit, w.verdict, w.unit)
		}
	}
	if !rep.AA() || rep.Gated == nil || rep.Gated.Passed() {
		t.Fatalf("fixture: AA %v, gate %+v; want an A/A run and a failed gate", rep.AA(), rep.Gated)
	}
	head := "2 of 6 benchmarks regressed: Work-2 +15.2% [+14.7%, +15.2%] and Busy on CPU time +10.2% [+9.7%, +10.2%]; 1 improved: Alloc-2 B/op -50.0% (exact); 1 unchanged; 1 inconclusive, their 95% CIs ruling out changes beyond ±87%; 1 failed or missing on new: Crash-2"
	for _, c := range []struct {
		format string
		want   []string
		not    []string
	}{
		{"text", []string{"A/A run: both sides build the same code", head, "gate (--max-regression 5%): failed", "decided by", "CPU time",
			"the machine was busy", "Noisy-2 sec/op: inconclusive",
			// Noisy's interval [-45.51%, +86.08%] rules out changes
			// beyond 86.08%, said rounded up: ±87%.
			"inconclusive, within ±87%", "a band of ±87% (--noise 87"},
			[]string{"cpu-sec/op  ", "wait-sec/op", "The time budget", "profiles to /tmp", "Stopped at", "p=?"}},
		{"md", []string{"**A/A run: both sides build the same code**", "**" + mdEscape(head[:strings.Index(head, ";")]) + "**",
			"**gate (--max-regression 5%): failed**", "| :--- |"},
			[]string{"wait-sec/op", "profiles to /tmp", "p=?", "| ---: | ---: |  ---: |"}},
		{"html", []string{"A/A run: both sides build the same code", "gate (--max-regression 5%): failed", "<h2>Results</h2>",
			"Change against old", "context"},
			[]string{"p=?", "<th>slope</th>"}},
	} {
		var b bytes.Buffer
		if err := Render(&b, rep, Options{Format: c.format}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, w := range c.want {
			if c.format == "html" {
				w = strings.ReplaceAll(w, "+", "&#43;")
			}
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%s", c.format, w, out)
			}
		}
		for _, n := range c.not {
			if strings.Contains(out, n) {
				t.Errorf("%s has %q:\n%s", c.format, n, out)
			}
		}
		if c.format == "html" {
			// The results come before the machine.
			if r, m := strings.Index(out, "<h2>Results</h2>"), strings.Index(out, "<h2>Run</h2>"); r < 0 || m < r {
				t.Errorf("html: results at %d, the run at %d: the results must lead", r, m)
			}
		}
	}
	// The JSON keeps every metric and adds each benchmark's verdict, the
	// counts and the gate.
	var b bytes.Buffer
	if err := Render(&b, rep, Options{Format: "json"}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		AA      bool `json:"aa"`
		Tallies []struct {
			Regressed []string `json:"regressed"`
			Lost      []string `json:"lost"`
		} `json:"tallies"`
		Gate struct {
			Passed   bool              `json:"passed"`
			Failures []json.RawMessage `json:"failures"`
		} `json:"gate"`
		Benchmarks []struct {
			FullName      string `json:"full_name"`
			Verdict       string `json:"verdict"`
			VerdictMetric string `json:"verdict_metric"`
			Decisions     []struct {
				Unit, By string
				Within   *float64
			} `json:"decisions"`
			Metrics []struct {
				Unit      string   `json:"unit"`
				Verdict   string   `json:"verdict"`
				Context   string   `json:"context"`
				P         *float64 `json:"p"`
				PAdjusted *float64 `json:"p_adjusted"`
			} `json:"metrics"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.AA || len(doc.Tallies) != 1 || len(doc.Tallies[0].Regressed) != 2 || len(doc.Tallies[0].Lost) != 1 || doc.Gate.Passed || len(doc.Gate.Failures) != 3 {
		t.Errorf("json head: %+v", doc)
	}
	for _, jb := range doc.Benchmarks {
		if jb.FullName == "Busy" && (jb.Verdict != "regressed" || jb.VerdictMetric != "cpu-sec/op" || jb.Decisions[0].Unit != "cpu-sec/op" || jb.Decisions[0].By != "cpu-time" || len(jb.Metrics) != 3) {
			t.Errorf("json Busy: %+v", jb)
		}
		if jb.FullName == "Work-2" && (jb.Verdict != "regressed" || len(jb.Metrics) != 5 || jb.Metrics[1].Verdict == "") {
			t.Errorf("json Work-2 lost a metric or its verdict: %+v", jb)
		}
		// Busy's wall time is context (CPU time decided): outside the
		// correction, so no adjusted p (before, p_adjusted repeated its
		// raw p, as if it had survived the correction).
		for _, m := range jb.Metrics {
			if m.Context != "" && m.PAdjusted != nil || m.Context == "" && m.P != nil && m.PAdjusted == nil {
				t.Errorf("json %s %s: context %q, p %v, p_adjusted %v", jb.FullName, m.Unit, m.Context, m.P, m.PAdjusted)
			}
		}
		// Only an interval that found nothing bounds the change: Noisy's
		// [-45.51%, +86.08%] and Sum's [-0.30%, +0.20%] (as the text
		// table prints them), not Work's regression nor Alloc's exact
		// change.
		want, bounded := map[string]float64{"Noisy-2": 0.8608, "Sum-2": 0.0030}[jb.FullName]
		if w := jb.Decisions[0].Within; bounded != (w != nil) || w != nil && math.Abs(*w-want) > 0.00005 {
			t.Errorf("json %s: within %v, want %v (bounded %v)", jb.FullName, w, want, bounded)
		}
	}
}

// fxExecRun is a rigor exec run of two commands, 30 rounds: the second
// sleeps 20% longer.
func fxExecRun() *model.Run {
	run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindExec, Paired: true,
		Sides: []model.Side{{Label: "sleep 0.01"}, {Label: "sleep 0.012"}}}
	b := model.Benchmark{Name: "exec"}
	m := model.Metric{Unit: "sec/op"}
	for r := range 30 {
		w := 1 + 0.004*float64((r*7)%5-2)
		m.Samples = append(m.Samples,
			model.Sample{Side: "sleep 0.01", Round: r, Iters: 1, Value: 10.6e-3 * w},
			model.Sample{Side: "sleep 0.012", Round: r, Iters: 1, Value: 12.6e-3 * (2 - w)})
	}
	b.Metrics = []model.Metric{m}
	run.Benchmarks = []model.Benchmark{b}
	return run
}

// rigor exec names its rows by command and says the result as hyperfine
// does, with rigor's interval and verdict (issue 24 item 5): before, one
// row "exec" with the commands as columns, and "regressed" where
// hyperfine says "ran 1.19 times as long".
func TestGoldenExec(t *testing.T) {
	rep := fxAnalyze(t, fxExecRun())
	for _, format := range []string{"text", "md"} {
		var b bytes.Buffer
		if err := Render(&b, rep, Options{Format: format}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		golden(t, "exec."+format+".golden", b.Bytes())
		want := "`sleep 0.012` ran 1.189x [1.184, 1.193] as long as `sleep 0.01`: regressed"
		if format == "md" {
			want = mdEscape(want)
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %q:\n%s", format, want, out)
		}
		for _, cmd := range []string{"sleep 0.01", "sleep 0.012"} {
			row := cmd + " "
			if format == "md" {
				row = "| " + cmd + " |"
			}
			if !strings.Contains(out, "\n"+row) {
				t.Errorf("%s has no row named %q:\n%s", format, cmd, out)
			}
		}
	}
}

// An inconclusive rigor exec comparison is said of the command, as its
// row is named: before, "commands sec/op: inconclusive: ...", the name of
// the one benchmark that holds the commands.
func TestExecNoteNamesCommand(t *testing.T) {
	run := fxExecRun()
	m := &run.Benchmarks[0].Metrics[0]
	for i := range m.Samples {
		if m.Samples[i].Side == "sleep 0.012" {
			// Spread over ±30% round by round, as on a busy
			// machine: no interval clears the band.
			m.Samples[i].Value = 10.6e-3 * (1 + 0.06*float64((m.Samples[i].Round*7)%11-5))
		}
	}
	rep := fxAnalyze(t, run)
	var b bytes.Buffer
	if err := Render(&b, rep, Options{Format: "text"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "\n  - `sleep 0.012`: inconclusive: ") {
		t.Errorf("the inconclusive note is not said of the command:\n%s", out)
	}
}

// An exact change beside an inconclusive time is said with the verdict
// (allocs/op 16 -> 14 went unsaid when the time was inconclusive: issue
// 39 item 3), in the words and in the row's verdict cell, without
// deciding it.
func TestExactBesideInconclusive(t *testing.T) {
	rep := &analysis.Report{Kind: model.KindAB, Sides: []string{"old", "new"}}
	d := analysis.Decision{Side: "new", Verdict: analysis.Inconclusive, By: analysis.ByTime, Unit: analysis.WallUnit,
		Change:    &analysis.Change{Estimate: 0.01, Lo: -0.2, Hi: 0.25},
		Within:    0.25,
		Exact:     &analysis.Change{Estimate: -0.125, Lo: -0.125, Hi: -0.125, Delta: -2, Test: "exact", Verdict: analysis.Improved},
		ExactUnit: "allocs/op"}
	if got, want := decisionWords(rep, &d), "+1.0% [-20.0%, +25.0%]; allocs/op -12.5% (exact, improved)"; got != want {
		t.Errorf("words %q, want %q", got, want)
	}
	if got, want := exactWords(&d), "allocs/op -12.5% (exact, improved)"; got != want {
		t.Errorf("exactWords %q, want %q", got, want)
	}
	d.Exact = nil
	if got := exactWords(&d); got != "" {
		t.Errorf("no exact change: %q", got)
	}
}

// The clock's evidence that a benchmark never blocks is in the JSON's
// clock object (it was only in a note's evidence), absent where the
// switches were not read.
func TestClockSwitchesInJSON(t *testing.T) {
	for _, tc := range []struct {
		switches float64
		want     *float64
	}{
		{0.092, func() *float64 { v := 0.092; return &v }()},
		{math.NaN(), nil},
	} {
		b := &analysis.Benchmark{FullName: "X", Clock: &analysis.Clock{Unit: analysis.CPUUnit, Switches: tc.switches, CPUPerWall: 1, Waiting: math.NaN()}}
		got := benchmarkJSON(b).Clock.SwitchesPerMs
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("switches %v: switches_per_ms %v, want %v", tc.switches, got, tc.want)
		}
	}
}
