package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// The JSON contract of an analysed comparison (documented in
// docs/schema.md). Numbers that do not exist (no interval with too few
// samples) are null, never NaN.
type jsonReport struct {
	SchemaVersion int         `json:"schema_version"`
	Kind          string      `json:"kind"`
	Paired        bool        `json:"paired"`
	Sides         []string    `json:"sides"`
	Options       jsonOptions `json:"options"`
	// AA, Tallies and Gate are the head every view opens with: an A/A
	// run, the benchmarks counted by verdict (one per side after the
	// baseline), the gate's outcome when one was applied.
	AA          bool            `json:"aa,omitempty"`
	Tallies     []jsonTally     `json:"tallies,omitempty"`
	Gate        *jsonGate       `json:"gate,omitempty"`
	Benchmarks  []jsonBenchmark `json:"benchmarks"`
	Geomeans    []jsonGeomean   `json:"geomeans,omitempty"`
	Comparisons int             `json:"comparisons"`
	Notes       []model.Note    `json:"notes,omitempty"`
}

type jsonOptions struct {
	Confidence float64 `json:"confidence"`
	Alpha      float64 `json:"alpha"`
	Noise      float64 `json:"noise"`
	Test       string  `json:"test"`
	Correction string  `json:"correction"`
	Resamples  int     `json:"resamples"`
	Seed       uint64  `json:"seed"`
	// InstructionsTolerance is the half-width of the band of a count of
	// instructions per op (a fraction), absent when 0.
	InstructionsTolerance float64 `json:"instructions_tolerance,omitempty"`
}

type jsonBenchmark struct {
	Name     string `json:"name"`
	FullName string `json:"full_name"`
	Pkg      string `json:"pkg,omitempty"`
	// Verdict is the benchmark's one verdict against the first side
	// after the baseline (analysis.Decision), first so that a script
	// finds it; Decisions has one per side after the baseline.
	Verdict   string            `json:"verdict,omitempty"`
	Decisions []jsonDecision    `json:"decisions,omitempty"`
	Group     string            `json:"group,omitempty"`
	Variant   string            `json:"variant,omitempty"`
	Config    map[string]string `json:"config,omitempty"`
	Metrics   []jsonMetric      `json:"metrics"`
	Notes     []model.Note      `json:"notes,omitempty"`
	// VerdictMetric is the unit the benchmark's verdict is taken from
	// when it measured both clocks; Clock says why.
	VerdictMetric string     `json:"verdict_metric,omitempty"`
	Clock         *jsonClock `json:"clock,omitempty"`
	// Missing is analysis.Benchmark.Missing: by side, why it lacks
	// results.
	Missing map[string]model.Missing `json:"missing,omitempty"`
}

type jsonDecision struct {
	Side    string `json:"side"`
	Verdict string `json:"verdict,omitempty"`
	// Unit is the metric the verdict is taken from and By why: "time"
	// (wall time, the clock verdict_metric), "cpu-time" (CPU time, the
	// clock verdict_metric), "exact" (an exact metric that changed
	// while the time did not), "metric" (no time: the first independent
	// metric).
	// "instructions": the time could not decide and the instructions per
	// op did; Time then holds the time's own verdict (inconclusive).
	Unit     string   `json:"unit,omitempty"`
	By       string   `json:"by,omitempty"`
	Time     string   `json:"time_verdict,omitempty"`
	Estimate *float64 `json:"estimate,omitempty"`
	Lo       *float64 `json:"lo,omitempty"`
	Hi       *float64 `json:"hi,omitempty"`
	Delta    *float64 `json:"delta,omitempty"`
	// Within is analysis.Decision.Within: the largest change the
	// interval of an unchanged or inconclusive verdict that includes no
	// change leaves possible.
	Within *float64 `json:"within,omitempty"`
	// Exact is analysis.Decision.Exact: an exact metric's change beside
	// an inconclusive time, which it does not decide.
	Exact *jsonExact `json:"exact,omitempty"`
	// Missing is the side's (or the baseline's) missing kind when there
	// is no verdict for it; Lost when it fails the gate.
	Missing string `json:"missing,omitempty"`
	Lost    bool   `json:"lost,omitempty"`
}

// jsonExact is an exact metric's change said beside a decision.
type jsonExact struct {
	Unit     string   `json:"unit"`
	Verdict  string   `json:"verdict"`
	Estimate *float64 `json:"estimate"`
	Delta    *float64 `json:"delta"`
}

type jsonTally struct {
	Side         string   `json:"side"`
	Benchmarks   int      `json:"benchmarks"`
	Regressed    []string `json:"regressed"`
	Improved     []string `json:"improved"`
	Unchanged    int      `json:"unchanged"`
	Inconclusive int      `json:"inconclusive"`
	Lost         []string `json:"lost,omitempty"`
	Other        int      `json:"other,omitempty"`
}

type jsonGate struct {
	MaxRegression float64           `json:"max_regression"`
	AllowMissing  bool              `json:"allow_missing,omitempty"`
	Passed        bool              `json:"passed"`
	Failures      []jsonGateFailure `json:"failures,omitempty"`
	// On is what the limit applied to: "time" or "instructions";
	// Ungated, under "instructions", the benchmarks with no count.
	On      string   `json:"on,omitempty"`
	Ungated []string `json:"ungated,omitempty"`
}

type jsonGateFailure struct {
	Benchmark string   `json:"benchmark"`
	Unit      string   `json:"unit,omitempty"`
	Side      string   `json:"side"`
	Change    *float64 `json:"change,omitempty"`
	Missing   string   `json:"missing,omitempty"`
	Text      string   `json:"text"`
}

type jsonClock struct {
	Unit       string   `json:"unit"`
	Reason     string   `json:"reason,omitempty"`
	Why        string   `json:"why,omitempty"`
	Contended  float64  `json:"contended"`
	Intervals  int      `json:"intervals"`
	CPUPerWall *float64 `json:"cpu_per_wall"`
	CPUBasis   string   `json:"cpu_basis,omitempty"`
	Procs      int      `json:"procs,omitempty"`
	Waiting    *float64 `json:"waiting"`
	// SwitchesPerMs is analysis.Clock.Switches: the working threads'
	// voluntary context switches per ms of CPU time in the timed window,
	// the evidence that the benchmark never blocks; absent unread.
	SwitchesPerMs *float64 `json:"switches_per_ms,omitempty"`
}

type jsonMetric struct {
	Unit   string `json:"unit"`
	Better string `json:"better"`
	Exact  bool   `json:"exact"`
	// DerivedFrom is analysis.Metric.DerivedFrom.
	DerivedFrom string `json:"derived_from,omitempty"`
	// Old and New are the baseline and the first other side; Change, P
	// and Verdict compare them. Sides and Changes hold every side.
	Old       *jsonSummary  `json:"old,omitempty"`
	New       *jsonSummary  `json:"new,omitempty"`
	Change    *jsonChange   `json:"change,omitempty"`
	P         *float64      `json:"p,omitempty"`
	PAdjusted *float64      `json:"p_adjusted,omitempty"`
	Verdict   string        `json:"verdict,omitempty"`
	Sides     []jsonSummary `json:"sides"`
	Changes   []*jsonChange `json:"changes,omitempty"`
	Notes     []model.Note  `json:"notes,omitempty"`
	// Context, when set, says why this metric does not decide the
	// benchmark's verdict.
	Context string `json:"context,omitempty"`
}

type jsonSummary struct {
	Side     string        `json:"side"`
	Center   *float64      `json:"center"`
	Lo       *float64      `json:"lo"`
	Hi       *float64      `json:"hi"`
	N        int           `json:"n"`
	Mean     *float64      `json:"mean,omitempty"`
	StdDev   *float64      `json:"stddev,omitempty"`
	MAD      *float64      `json:"mad,omitempty"`
	CV       *float64      `json:"cv,omitempty"`
	Min      *float64      `json:"min,omitempty"`
	Max      *float64      `json:"max,omitempty"`
	Iters    *float64      `json:"iters,omitempty"`
	Outliers *jsonOutliers `json:"outliers,omitempty"`
	Slope    *jsonEstimate `json:"slope,omitempty"`
	// Estimates are analysis.Summary.Estimates, in the shape of
	// Criterion.rs's estimates.json.
	Estimates *jsonEstimates `json:"estimates,omitempty"`
}

type jsonOutliers struct {
	LowSevere  int `json:"low_severe"`
	LowMild    int `json:"low_mild"`
	HighMild   int `json:"high_mild"`
	HighSevere int `json:"high_severe"`
	// Fences are Tukey's four fences, as Criterion.rs's tukey.json.
	Fences *jsonFences `json:"fences,omitempty"`
}

type jsonFences struct {
	LowSevere  *float64 `json:"low_severe"`
	LowMild    *float64 `json:"low_mild"`
	HighMild   *float64 `json:"high_mild"`
	HighSevere *float64 `json:"high_severe"`
}

// jsonEstimates is Criterion.rs's estimates.json, with the headline and
// the line's fit.
type jsonEstimates struct {
	Mean         *jsonPointEstimate `json:"mean"`
	Median       *jsonPointEstimate `json:"median"`
	StdDev       *jsonPointEstimate `json:"std_dev"`
	MedianAbsDev *jsonPointEstimate `json:"median_abs_dev"`
	Slope        *jsonPointEstimate `json:"slope,omitempty"`
	FitR2        *float64           `json:"fit_r2,omitempty"`
	Headline     string             `json:"headline"`
}

type jsonPointEstimate struct {
	ConfidenceInterval jsonCI   `json:"confidence_interval"`
	PointEstimate      *float64 `json:"point_estimate"`
	StandardError      *float64 `json:"standard_error"`
	// Approximate is stats.Estimate.Approximate: the interval's measured
	// shortfall in simulation, when it has one at this sample size.
	Approximate string `json:"approximate,omitempty"`
}

type jsonCI struct {
	ConfidenceLevel float64  `json:"confidence_level"`
	LowerBound      *float64 `json:"lower_bound"`
	UpperBound      *float64 `json:"upper_bound"`
}

func pointEstimateJSON(e stats.Estimate) *jsonPointEstimate {
	return &jsonPointEstimate{
		ConfidenceInterval: jsonCI{ConfidenceLevel: e.Confidence, LowerBound: num(e.Lo), UpperBound: num(e.Hi)},
		PointEstimate:      num(e.Estimate),
		StandardError:      num(e.StdErr),
		Approximate:        e.Approximate,
	}
}

func estimatesJSON(e *analysis.Estimates) *jsonEstimates {
	if e == nil {
		return nil
	}
	j := &jsonEstimates{Mean: pointEstimateJSON(e.Mean), Median: pointEstimateJSON(e.Median), StdDev: pointEstimateJSON(e.StdDev),
		MedianAbsDev: pointEstimateJSON(e.MAD), FitR2: num(e.FitR2), Headline: e.Headline}
	if e.Slope != nil {
		j.Slope = pointEstimateJSON(*e.Slope)
	}
	return j
}

type jsonEstimate struct {
	Estimate *float64 `json:"estimate"`
	Lo       *float64 `json:"lo"`
	Hi       *float64 `json:"hi"`
}

type jsonChange struct {
	Side      string   `json:"side"`
	Estimate  *float64 `json:"estimate"`
	Lo        *float64 `json:"lo"`
	Hi        *float64 `json:"hi"`
	Delta     *float64 `json:"delta,omitempty"`
	P         *float64 `json:"p"`
	PAdjusted *float64 `json:"p_adjusted"`
	Test      string   `json:"test"`
	Paired    bool     `json:"paired"`
	N         int      `json:"n"`
	Effect    *float64 `json:"effect_size"`
	Verdict   string   `json:"verdict"`
	Reason    string   `json:"reason"`
	// ReasonKind and the Settle fields are analysis.Change's: Reason
	// as data.
	ReasonKind    string `json:"reason_kind,omitempty"`
	SettleRounds  int    `json:"settle_rounds,omitempty"`
	SettleBeyond  int    `json:"settle_beyond,omitempty"`
	SettleSamples int    `json:"settle_samples,omitempty"`
	// Layouts and SettleLayouts are analysis.Change's: a paired change
	// across several links per side, how many pairs of links its
	// interval spans, and how many would likely settle it.
	Layouts       int `json:"layouts,omitempty"`
	SettleLayouts int `json:"settle_layouts,omitempty"`
	// SessionLimited is analysis.Change's: for a comparison across
	// sessions, more samples could not settle it.
	SessionLimited bool `json:"session_limited,omitempty"`
}

type jsonGeomean struct {
	Unit    string     `json:"unit"`
	Better  string     `json:"better"`
	Centers []*float64 `json:"centers"`
	Changes []*float64 `json:"changes"`
	// Paired is analysis.Geomean.Paired: the geometric mean of the
	// paired changes, what a paired run's rows say.
	Paired []*float64 `json:"paired_changes,omitempty"`
	N      int        `json:"n"`
}

// num turns NaN and infinities into JSON null.
func num(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// renderJSON writes the document one benchmark at a time, so that its
// memory does not grow with the number of benchmarks: the bytes are those
// of encoding a whole jsonReport with two-space indentation (a test
// checks it), but only one benchmark's encoding is held at once.
func renderJSON(w io.Writer, rep *analysis.Report, _ Options) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// field writes `  "key": value` at the top level of the document.
	field := func(key string, v any, last bool) error {
		buf.Reset()
		enc.SetIndent("  ", "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		fmt.Fprintf(bw, "  %q: ", key)
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		if !last {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
		return nil
	}
	bw.WriteString("{\n")
	head := jsonHead(rep)
	for _, f := range []struct {
		key string
		v   any
	}{{"schema_version", head.SchemaVersion}, {"kind", head.Kind}, {"paired", head.Paired}, {"sides", head.Sides}, {"options", head.Options}} {
		if err := field(f.key, f.v, false); err != nil {
			return err
		}
	}
	if head.AA {
		if err := field("aa", true, false); err != nil {
			return err
		}
	}
	if len(head.Tallies) > 0 {
		if err := field("tallies", head.Tallies, false); err != nil {
			return err
		}
	}
	if head.Gate != nil {
		if err := field("gate", head.Gate, false); err != nil {
			return err
		}
	}
	if len(rep.Benchmarks) == 0 {
		bw.WriteString("  \"benchmarks\": [],\n")
	} else {
		bw.WriteString("  \"benchmarks\": [\n")
		enc.SetIndent("    ", "  ")
		for i := range rep.Benchmarks {
			buf.Reset()
			if err := enc.Encode(benchmarkJSON(&rep.Benchmarks[i])); err != nil {
				return err
			}
			bw.WriteString("    ")
			bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
			if i < len(rep.Benchmarks)-1 {
				bw.WriteByte(',')
			}
			bw.WriteByte('\n')
		}
		bw.WriteString("  ],\n")
	}
	if len(head.Geomeans) > 0 {
		if err := field("geomeans", head.Geomeans, false); err != nil {
			return err
		}
	}
	if err := field("comparisons", head.Comparisons, len(head.Notes) == 0); err != nil {
		return err
	}
	if len(head.Notes) > 0 {
		if err := field("notes", head.Notes, true); err != nil {
			return err
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// jsonHead is the document without its benchmarks.
func jsonHead(rep *analysis.Report) jsonReport {
	out := jsonReport{
		SchemaVersion: model.SchemaVersion,
		Kind:          rep.Kind,
		Paired:        rep.Paired,
		Sides:         rep.Sides,
		Options: jsonOptions{
			Confidence: rep.Options.Confidence, Alpha: rep.Options.Alpha, Noise: rep.Options.Noise,
			Test: rep.Options.Test, Correction: rep.Options.Correction,
			Resamples: rep.Options.Resamples, Seed: rep.Options.Seed,
			InstructionsTolerance: rep.Options.InstructionsTolerance,
		},
		Benchmarks:  []jsonBenchmark{},
		Comparisons: rep.Comparisons,
		Notes:       rep.Notes,
		AA:          rep.AA(),
	}
	names := func(idx []int) []string {
		out := make([]string, 0, len(idx))
		for _, i := range idx {
			out = append(out, rep.Benchmarks[i].Key())
		}
		return out
	}
	for _, t := range rep.Tallies {
		jt := jsonTally{Side: t.Side, Benchmarks: t.Benchmarks, Regressed: names(t.Regressed), Improved: names(t.Improved),
			Unchanged: len(t.Unchanged), Inconclusive: len(t.Inconclusive), Other: len(t.Other)}
		if len(t.Lost) > 0 {
			jt.Lost = names(t.Lost)
		}
		out.Tallies = append(out.Tallies, jt)
	}
	if g := rep.Gated; g != nil {
		jg := &jsonGate{MaxRegression: g.Limit, AllowMissing: g.AllowMissing, Passed: g.Passed(), On: g.On, Ungated: g.Ungated}
		for _, f := range g.Failures {
			jf := jsonGateFailure{Benchmark: f.Benchmark, Unit: f.Unit, Side: f.Side, Change: num(f.Estimate), Text: f.String()}
			if f.Missing != nil {
				jf.Missing = f.Missing.Kind
			}
			jg.Failures = append(jg.Failures, jf)
		}
		out.Gate = jg
	}
	for _, g := range rep.Geomeans {
		jg := jsonGeomean{Unit: g.Unit, Better: better(g.Better), N: g.N}
		for _, c := range g.Centers {
			jg.Centers = append(jg.Centers, num(c))
		}
		for _, c := range g.Changes {
			jg.Changes = append(jg.Changes, num(c))
		}
		for _, c := range g.Paired {
			jg.Paired = append(jg.Paired, num(c))
		}
		out.Geomeans = append(out.Geomeans, jg)
	}
	return out
}

// benchmarkJSON is one benchmark of the document.
func benchmarkJSON(b *analysis.Benchmark) jsonBenchmark {
	jb := jsonBenchmark{Name: b.Name, FullName: b.FullName, Pkg: b.Pkg, Group: b.Group,
		Variant: b.Variant, Config: b.Config, Notes: b.Notes, Metrics: []jsonMetric{}, Missing: b.Missing}
	for k, d := range b.Decisions {
		jd := jsonDecision{Side: d.Side, Verdict: string(d.Verdict), Unit: d.Unit, By: d.By, Time: string(d.Time)}
		if c := d.Change; c != nil {
			jd.Estimate, jd.Lo, jd.Hi, jd.Delta = num(c.Estimate), num(c.Lo), num(c.Hi), num(c.Delta)
		}
		jd.Within = num(d.Within)
		if e := d.Exact; e != nil {
			jd.Exact = &jsonExact{Unit: d.ExactUnit, Verdict: string(e.Verdict), Estimate: num(e.Estimate), Delta: num(e.Delta)}
		}
		if m := d.Missing; m != nil && d.Change == nil {
			jd.Missing, jd.Lost = m.Kind, m.Lost
		}
		if k == 0 {
			jb.Verdict = jd.Verdict
		}
		jb.Decisions = append(jb.Decisions, jd)
	}
	if c := b.Clock; c != nil {
		jb.VerdictMetric = c.Unit
		jb.Clock = &jsonClock{Unit: c.Unit, Reason: c.Reason, Why: c.Why, Contended: c.Contended, Intervals: c.Intervals,
			CPUPerWall: num(c.CPUPerWall), CPUBasis: c.Basis, Procs: c.Procs, Waiting: num(c.Waiting), SwitchesPerMs: num(c.Switches)}
	}
	for _, m := range b.Metrics {
		jm := jsonMetric{Unit: m.Unit, Better: better(m.Better), Exact: m.Exact, DerivedFrom: m.DerivedFrom, Notes: m.Notes, Context: m.Context}
		for _, s := range m.Sides {
			jm.Sides = append(jm.Sides, summaryJSON(s))
		}
		for _, c := range m.Changes {
			jc := changeJSON(c)
			if jc != nil && m.Context != "" {
				// A context metric stays out of the correction: its p was
				// never adjusted, and a p_adjusted equal to it would read
				// as one that survived the correction.
				jc.PAdjusted = nil
			}
			jm.Changes = append(jm.Changes, jc)
		}
		if len(jm.Sides) > 0 && jm.Sides[0].N > 0 {
			jm.Old = &jm.Sides[0]
		}
		if len(jm.Sides) > 1 && jm.Sides[1].N > 0 {
			jm.New = &jm.Sides[1]
		}
		if len(jm.Changes) > 0 && jm.Changes[0] != nil {
			c := jm.Changes[0]
			jm.Change = c
			jm.P, jm.PAdjusted, jm.Verdict = c.P, c.PAdjusted, c.Verdict
		}
		jb.Metrics = append(jb.Metrics, jm)
	}
	return jb
}

func summaryJSON(s analysis.Summary) jsonSummary {
	j := jsonSummary{Side: s.Side, N: s.N}
	if s.N == 0 {
		return j
	}
	j.Center, j.Lo, j.Hi = num(s.Center), num(s.Lo), num(s.Hi)
	j.Mean, j.StdDev, j.MAD, j.CV = num(s.Mean), num(s.StdDev), num(s.MAD), num(s.CV)
	j.Min, j.Max, j.Iters = num(s.Min), num(s.Max), num(s.Iters)
	o := s.Outliers
	j.Outliers = &jsonOutliers{LowSevere: o.LowSevere, LowMild: o.LowMild, HighMild: o.HighMild, HighSevere: o.HighSevere}
	if !math.IsNaN(o.LowMildFence) {
		j.Outliers.Fences = &jsonFences{LowSevere: num(o.LowSevereFence), LowMild: num(o.LowMildFence), HighMild: num(o.HighMildFence), HighSevere: num(o.HighSevereFence)}
	}
	j.Estimates = estimatesJSON(s.Estimates)
	if s.Slope != nil {
		j.Slope = &jsonEstimate{Estimate: num(s.Slope.Estimate), Lo: num(s.Slope.Lo), Hi: num(s.Slope.Hi)}
	}
	return j
}

func changeJSON(c *analysis.Change) *jsonChange {
	if c == nil {
		return nil
	}
	return &jsonChange{
		Side: c.Side, Estimate: num(c.Estimate), Lo: num(c.Lo), Hi: num(c.Hi), Delta: num(c.Delta),
		P: num(c.P), PAdjusted: num(c.PAdjusted), Test: c.Test, Paired: c.Paired, N: c.N,
		Effect: num(c.Effect), Verdict: string(c.Verdict), Reason: c.Reason,
		ReasonKind: string(c.ReasonKind), SettleRounds: c.SettleRounds, SettleBeyond: c.SettleBeyond, SettleSamples: c.SettleSamples,
		SessionLimited: c.SessionLimited, Layouts: c.Layouts, SettleLayouts: c.SettleLayouts,
	}
}
