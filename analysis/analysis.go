package analysis

import (
	"math"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// A Verdict is the outcome of one comparison.
type Verdict string

// Verdicts.
const (
	Improved     Verdict = "improved"
	Regressed    Verdict = "regressed"
	Unchanged    Verdict = "unchanged"
	Inconclusive Verdict = "inconclusive"
)

// Tests and corrections accepted in Options.
const (
	TestUTest = "utest"
	TestWelch = "welch"
	// TestMixedBootstrap is Criterion.rs's test: Welch's t with its
	// p-value from a bootstrap of the pooled samples (stats.MixedBootstrapT).
	TestMixedBootstrap = "mixed-bootstrap"

	CorrectionHolm = "holm"
	CorrectionBH   = "bh"
	CorrectionNone = "none"
)

// Options control the analysis. The zero value is not useful; start from
// DefaultOptions.
type Options struct {
	// Confidence is the level of every confidence interval.
	Confidence float64
	// Alpha is the significance level applied to corrected p-values.
	Alpha float64
	// Noise is the half-width of the band, as a fraction (0.01 = ±1%),
	// inside which a change counts as no change.
	Noise float64
	// Test is the unpaired test: TestUTest (Mann-Whitney U, as benchstat),
	// TestWelch or TestMixedBootstrap (Criterion.rs's). Paired runs always use Wilcoxon's signed-rank test.
	Test string
	// Correction is the multiple-comparison correction across all
	// comparisons of a report: CorrectionHolm, CorrectionBH or
	// CorrectionNone.
	Correction string
	// Resamples is the number of bootstrap resamples; Seed makes them
	// reproducible.
	Resamples int
	Seed      uint64
	// Estimates asks for every summary's estimates (Summary.Estimates):
	// the mean, median, standard deviation, MAD and, in linear sampling,
	// the slope, each with its interval and standard error, as
	// Criterion.rs gives them. They cost a bootstrap of each, so they are
	// asked for (the harness does), not computed for every file compared.
	Estimates bool
	// TimerResolution, in seconds, is the smallest difference in one
	// sample's total time that the clock can resolve. A sec/op difference
	// whose per-sample total is below it is never called significant.
	// Zero means unknown.
	TimerResolution float64
	// InstructionsTolerance is the half-width of the band, as a fraction
	// (0.005 = ±0.5%), inside which a change of instructions per op
	// counts as no change, and beyond which the range of its repeats
	// must lie to count as one (see TestInstructions).
	InstructionsTolerance float64
	// Gate is what a gate's --max-regression applies to: GateTime (the
	// default when empty) or GateInstructions.
	Gate string
}

// DefaultOptions returns the defaults documented in the README.
func DefaultOptions() Options {
	return Options{
		Confidence: 0.95,
		Alpha:      0.05,
		Noise:      0.01,
		Test:       TestUTest,
		Correction: CorrectionHolm,
		Resamples:  10000,
		Seed:       1,

		InstructionsTolerance: DefaultInstructionsTolerance,
		Gate:                  GateTime,
	}
}

// A Report is an analysed Run.
type Report struct {
	Kind   string
	Paired bool
	// Sides are the labels compared; Sides[0] is the baseline.
	Sides   []string
	Options Options
	// Benchmarks are in the order of the Run.
	Benchmarks []Benchmark
	// Geomeans has one row per unit present in more than one benchmark.
	Geomeans []Geomean
	// Comparisons is the number of comparisons the correction spans.
	Comparisons int
	// Missing lists, benchmark by benchmark in the order of Benchmarks
	// and side by side, every side that lacks a benchmark's results or
	// stopped having them (Benchmark.Missing, flattened).
	Missing []Missing
	// Notes are run-level notes: the run's own and the analysis's.
	Notes []model.Note
	// Tallies count the benchmarks by their verdict, one per side after
	// the baseline: what a headline says.
	Tallies []SideTally
	// Gated is the gate's outcome when a command applied one
	// (ApplyGate); nil otherwise.
	Gated *GateResult
	// Run is the analysed run, for views that show raw samples.
	Run *model.Run `json:"-"`
}

// A Benchmark is one analysed benchmark.
type Benchmark struct {
	Name     string // without the GOMAXPROCS suffix
	FullName string // with it, as go test prints it
	Pkg      string
	Group    string
	Variant  string
	Config   map[string]string
	Metrics  []Metric
	Notes    []model.Note
	// Clock says which time metric the verdict is taken from, when both
	// wall and CPU time were measured; nil otherwise.
	Clock *Clock
	// Decisions are the benchmark's verdicts, one per side after the
	// baseline, each from the one metric that decides it.
	Decisions []Decision
	main      int // index of the metric that decides by default (see Decider)
	// Missing says, by side label, why a side lacks the benchmark's
	// results or stopped having them: the source's record
	// (model.Benchmark.Missing), or model.MissingAbsent for a side with
	// no samples when another side has some.
	Missing map[string]model.Missing
}

// A Missing is one side that lacks a benchmark's results, or stopped
// having them.
type Missing struct {
	Benchmark string // full name, with the package when there is one
	Side      string
	// Kind is model.MissingBuild, model.MissingFailed or
	// model.MissingAbsent; Reason is one line in plain words.
	Kind, Reason string
	// Lost is true when Side is not the baseline and the baseline has no
	// such record: the benchmark built and ran on the baseline and does
	// not on Side (removed, failed, or did not build). The gate fails on
	// a lost benchmark.
	Lost bool
}

// A Metric is one unit of one benchmark, summarised per side and compared.
type Metric struct {
	Unit   string
	Better int // model.LowerIsBetter or model.HigherIsBetter
	// Exact is true when the values never vary within a side (or the unit
	// says assume=exact): they are compared exactly.
	Exact bool
	// Sides has one Summary per Report.Sides entry (N is 0 when the
	// benchmark did not report this unit on that side).
	Sides []Summary
	// Changes[i] compares Report.Sides[i+1] with the baseline; nil when
	// a side has no samples.
	Changes []*Change
	// Notes are footnotes on the metric.
	Notes []model.Note
	// Context, when not empty, says why this metric does not decide the
	// benchmark's verdict (it is the clock the verdict is not taken
	// from): it keeps its own comparison, but stays out of the
	// multiple-comparison correction, the gate and the stopping rule.
	Context string
	// DerivedFrom names the metric this one is a fixed transform of:
	// "sec/op" for B/s from SetBytes, or for a ReportMetric whose value
	// times (or divided by) sec/op is the same in every sample of every
	// side. It is one measurement, so it shares that metric's test: its
	// changes' verdict, p-values and interval are those of the primary
	// (the interval transformed), and the multiple-comparison correction
	// counts them once. Empty for an independent metric.
	DerivedFrom string
	reciprocal  bool // value = k / primary, not k × primary
	primary     int  // index of the primary in the benchmark's Metrics
	// sessions is the run's Sessions, for the reasons of comparisons
	// across sessions.
	sessions *model.Sessions
}

// A Summary describes one side's samples of one metric.
type Summary struct {
	Side string
	N    int
	// Center is the median; Lo and Hi its order-statistics confidence
	// interval (benchstat's), NaN when there are too few samples.
	Center, Lo, Hi        float64
	Mean, StdDev, MAD, CV float64
	Min, Max              float64
	// Iters is the median number of iterations per sample.
	Iters    float64
	Outliers stats.Outliers
	// Slope is the per-op time from linear sampling (iters vs total
	// time), when the iteration counts vary enough to fit it; sec/op only.
	// Its interval is stats.SlopeEstimate's.
	Slope *stats.Interval
	// Estimates, when Options.Estimates asked for them and the metric is
	// not exact, are the side's estimates with intervals and standard
	// errors; nil otherwise.
	Estimates *Estimates
}

// Estimates are one side's estimates of one metric, each with its
// confidence interval and standard error (the fields of Criterion.rs's
// estimates.json), from the per-op values; the methods are those of
// package stats (Bootstrap.MeanEstimate and so on), whose coverage was
// checked in simulation.
type Estimates struct {
	Mean, Median, StdDev, MAD stats.Estimate
	// Slope is the per-op time of linear sampling, the slope of the line
	// through the origin fitted to (iterations, total); nil unless the
	// samples were linear. FitR2 is the R² of a straight line (with an
	// intercept) through the same points: how well a line fits at all.
	Slope *stats.Estimate
	FitR2 float64
	// Headline names the estimate a report shows first: HeadlineSlope in
	// linear sampling when the line fits (FitR2 at least MinFitR2),
	// HeadlineMedian otherwise.
	Headline string
}

// Headlines.
const (
	HeadlineMedian = "median"
	HeadlineSlope  = "slope"
)

// MinFitR2 is the R² below which the slope of linear sampling is set
// aside for the median: with iterations spread evenly over 1..N times d,
// a per-op noise of CV c leaves R² about 1 - 4c², so 0.99 is a per-op
// noise of about 5%, where a line through the origin no longer says more
// than the median of the per-op times.
const MinFitR2 = 0.99

// Headline returns the estimate shown first for s, with its name:
// the slope when Estimates says so, the median (Center, Lo, Hi)
// otherwise.
func (s Summary) Headline() (name string, iv stats.Interval) {
	if e := s.Estimates; e != nil && e.Headline == HeadlineSlope && e.Slope != nil {
		return HeadlineSlope, e.Slope.Interval
	}
	return HeadlineMedian, stats.Interval{Estimate: s.Center, Lo: s.Lo, Hi: s.Hi}
}

// A Change compares one side with the baseline.
type Change struct {
	Side   string
	Paired bool
	// N is the number of pairs (paired) or the smaller sample size.
	N int
	// Estimate, Lo and Hi are the relative change new/old - 1 and its
	// confidence interval, as fractions (-0.9013 for -90.13%). They are
	// NaN when the baseline's center is zero: a relative change from zero
	// is undefined, and Delta gives the change.
	Estimate, Lo, Hi float64
	// Delta is the absolute change, new - old in the metric's unit (+1
	// for 0 -> 1 allocs/op): the difference of the exact values, or of
	// the medians when the baseline's is zero. NaN for other changes.
	Delta float64
	// P is the test's p-value, PAdjusted after the correction.
	P, PAdjusted float64
	// Test names the test: "utest", "welch", "wilcoxon", "exact",
	// TestInstructions, TestLayouts or TestMachines.
	Test string
	// Effect is Cohen's d (unpaired) or d_z (paired).
	Effect  float64
	Verdict Verdict
	// Reason says, in plain words, why the verdict is what it is;
	// ReasonKind says which case of the verdict rule that is, as data.
	Reason     string
	ReasonKind ReasonKind
	// SettleRounds is, for a paired change the noise band leaves open,
	// about how many rounds would likely settle it at this run's
	// variation, and SettleBeyond, instead, 100 times this run's rounds
	// when more than that would be needed (its estimate sits near the
	// band's edge; the reason says about how many). SettleSamples is, for an unpaired one, about how many
	// samples per side would resolve a change the size of the band. 0
	// when not estimated.
	SettleRounds, SettleBeyond, SettleSamples int
	// SettleLayouts is, for a change across links (TestLayouts) that
	// the band leaves open, about how many pairs of links would likely
	// settle it; 0 when not estimated.
	SettleLayouts int
	// Layouts is, for a paired change across several links per side
	// (TestLayouts), how many pairs of links its interval spans: it
	// narrows with more of them, not with more rounds. 0 otherwise.
	Layouts int
	layouts *stats.ClusteredShift
	// Machines is, for a paired change measured on several machines
	// (TestMachines: result directories merged by rigor merge), how many
	// its interval spans: it narrows with more machines, not with more
	// rounds. 0 otherwise.
	Machines int
	// BelowResolution is true when the difference is below the timer's
	// resolution: inconclusive, and more samples cannot change that.
	BelowResolution bool
	// SessionLimited is true, for a comparison across sessions (Test
	// TestSessions), when more samples of this run could not settle it:
	// how much results vary between sessions is not known, or it
	// dominates the interval's width.
	SessionLimited bool
}

// A ReasonKind names the case of the verdict rule that decided a Change.
type ReasonKind string

// Reason kinds.
const (
	ReasonZeroTime        ReasonKind = "zero-time"        // a median time of 0 is not a measurement: inconclusive
	ReasonExactIdentical  ReasonKind = "exact-identical"  // exact values, the same on both sides: unchanged
	ReasonExactDiffer     ReasonKind = "exact-differ"     // exact values that differ: improved or regressed
	ReasonZeroMedians     ReasonKind = "zero-medians"     // both medians 0 with confidence: unchanged
	ReasonFromZero        ReasonKind = "from-zero"        // a baseline median of 0: decided by the test alone
	ReasonTooFew          ReasonKind = "too-few"          // too few samples for an interval: inconclusive
	ReasonInsideBand      ReasonKind = "inside-band"      // the interval lies inside the noise band: unchanged
	ReasonClears          ReasonKind = "clears"           // the interval clears the band and p < alpha: improved or regressed
	ReasonBelowResolution ReasonKind = "below-resolution" // significant, but below the timer's resolution: inconclusive
	ReasonNotSignificant  ReasonKind = "not-significant"  // the interval clears the band, p is not below alpha: inconclusive
	ReasonSmall           ReasonKind = "small"            // a real change whose interval overlaps the band: inconclusive
	ReasonUnsure          ReasonKind = "unsure"           // an interval off zero that overlaps the band, p not below alpha: inconclusive
	ReasonOpen            ReasonKind = "open"             // the interval includes no change and reaches beyond the band: inconclusive
	ReasonImplausible     ReasonKind = "implausible"      // a side's values cannot be a measurement: inconclusive
	ReasonOverflow        ReasonKind = "overflow"         // the change overflows floating point: inconclusive
	ReasonSessions        ReasonKind = "sessions-unknown" // measured in different sessions, their variation not known: inconclusive
)

// A Geomean is the geometric mean of every benchmark's center in one unit,
// over the benchmarks present on all sides.
type Geomean struct {
	Unit   string
	Better int
	// Centers has one geometric mean per Report.Sides entry.
	Centers []float64
	// Changes[i] is the relative change of Sides[i+1] against the
	// baseline: the ratio of the geometric means of the centers, as
	// benchstat's geomean row has it.
	Changes []float64
	// Paired[i] is the geometric mean of the benchmarks' paired changes
	// against Sides[i+1] (exp of the mean of log(1+change), less 1), NaN
	// unless every benchmark included has one. In a paired run the
	// medians' ratio can contradict every paired change (the medians
	// mix the rounds' drift into each side); this cannot.
	Paired []float64
	N      int
}

// Change returns the geomean's change against Sides[k+1]: the paired
// one when there is one, else the ratio of the centers'.
func (g Geomean) Change(k int) float64 {
	if k < len(g.Paired) && !math.IsNaN(g.Paired[k]) {
		return g.Paired[k]
	}
	return g.Changes[k]
}

// Spread is the confidence interval's half-width relative to the center,
// as benchstat prints it after "±": the larger of Hi/Center-1 and
// 1-Lo/Center. It is +Inf when there is no interval and NaN when the
// interval crosses zero.
func (s Summary) Spread() float64 {
	if math.IsNaN(s.Lo) || math.IsNaN(s.Hi) {
		return math.Inf(1)
	}
	return stats.Interval{Estimate: s.Center, Lo: s.Lo, Hi: s.Hi}.RelativeRange()
}

// Key is the benchmark's full name, with the package when there is one,
// as model.Benchmark.Key.
func (b *Benchmark) Key() string { return b.key() }

func (b *Benchmark) key() string {
	if b.Pkg == "" {
		return b.FullName
	}
	return b.Pkg + "." + b.FullName
}

// side returns the summary of side, or a summary with N = 0.
func (m *Metric) side(label string) Summary {
	for _, s := range m.Sides {
		if s.Side == label {
			return s
		}
	}
	return Summary{Side: label, Center: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
}

// Significant reports whether the verdict is improved or regressed.
func (v Verdict) Significant() bool { return v == Improved || v == Regressed }
