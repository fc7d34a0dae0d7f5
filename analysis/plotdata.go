package analysis

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// This file computes what charts show beyond the report's summaries: a
// kernel density of each side's values, the per-round pairs of a paired
// run, the batch totals of linear sampling, and a summary of what the
// system was doing. Renderers call these functions instead of computing.

// A Density is a Gaussian kernel density estimate evaluated on an evenly
// spaced grid.
type Density struct {
	// Bandwidth is the kernel's standard deviation: Silverman's rule of
	// thumb, 0.9·min(sd, IQR/1.34)·n^(-1/5) (R's bw.nrd0).
	Bandwidth float64
	// X is the grid, from min-3·Bandwidth to max+3·Bandwidth; Y the
	// density at each X (it integrates to 1 over the real line).
	X, Y []float64
}

// KernelDensity estimates the density of x on a grid of points points
// (at least 2). It returns a zero Density when x is empty or holds NaN.
// When the rule of thumb gives no bandwidth (fewer than two distinct
// values), the bandwidth falls back to 1% of the largest magnitude (or 1
// when every value is zero) so that the estimate is a narrow spike, not a
// division by zero.
func KernelDensity(x []float64, points int) Density {
	if len(x) == 0 || slices.ContainsFunc(x, math.IsNaN) || points < 2 {
		return Density{}
	}
	h := Bandwidth(x)
	lo, hi := stats.Min(x)-3*h, stats.Max(x)+3*h
	d := Density{Bandwidth: h, X: make([]float64, points), Y: make([]float64, points)}
	step := (hi - lo) / float64(points-1)
	norm := 1 / (float64(len(x)) * h * math.Sqrt(2*math.Pi))
	for i := range points {
		at := lo + float64(i)*step
		sum := 0.0
		for _, v := range x {
			z := (at - v) / h
			sum += math.Exp(-z * z / 2)
		}
		d.X[i], d.Y[i] = at, sum*norm
	}
	return d
}

// Bandwidth is Silverman's rule-of-thumb bandwidth for a Gaussian kernel,
// 0.9·min(sd, IQR/1.34)·n^(-1/5), with the fallbacks of R's bw.nrd0 when
// the spread is zero: sd alone, then |x₁|, then 1; the first two are
// scaled down as the rule scales the spread.
func Bandwidth(x []float64) float64 {
	n := float64(len(x))
	sd := stats.StdDev(x)
	if math.IsNaN(sd) {
		sd = 0
	}
	iqr := (stats.Quantile(x, 0.75) - stats.Quantile(x, 0.25)) / 1.34
	lo := math.Min(sd, iqr)
	if !(lo > 0) {
		lo = sd
	}
	if !(lo > 0) {
		lo = math.Abs(x[0])
	}
	if !(lo > 0) {
		lo = 1
	}
	return 0.9 * lo * math.Pow(n, -0.2)
}

// A Pair is one round of a paired comparison: the baseline's and the
// other side's value in the same round, and their ratio Other/Base.
type Pair struct {
	Round       int
	Base, Other float64
	Ratio       float64
}

// Pairs matches m's samples of side with the baseline's by round, as the
// paired comparison does, in the order of side's samples. The ratio is
// NaN when the baseline value is zero.
func Pairs(m *model.Metric, base, side string) []Pair {
	byRound := map[int]float64{}
	for _, s := range m.BySide(base) {
		byRound[s.Round] = s.Value
	}
	var out []Pair
	for _, s := range m.BySide(side) {
		b, ok := byRound[s.Round]
		if !ok {
			continue
		}
		r := math.NaN()
		if b != 0 {
			r = s.Value / b
		}
		out = append(out, Pair{Round: s.Round, Base: b, Other: s.Value, Ratio: r})
	}
	return out
}

// Totals returns each sample's iteration count and batch total (per-op
// value × iterations): the points of a linear-sampling regression, whose
// slope through the origin is Summary.Slope.
func Totals(samples []model.Sample) (iters, totals []float64) {
	for _, s := range samples {
		iters = append(iters, float64(s.Iters))
		totals = append(totals, s.Value*float64(s.Iters))
	}
	return iters, totals
}

// ObservationSummary is what the system did over a run, from its
// observations: means weighted by each interval's duration, and maxima.
// A field is NaN when no observation recorded it.
type ObservationSummary struct {
	Intervals int
	// Span is from the first interval's start to the last one's end.
	Span time.Duration
	// CPU fractions of all logical CPUs (0..1).
	User, System, IOWait, Steal float64
	// OtherCPU is the CPU that processes other than the measured ones
	// used (mean and max over intervals).
	OtherCPU, OtherCPUMax float64
	Load1, Load1Max       float64
	CtxSwitches           float64 // per second
	// FreqMinMHz and FreqMaxMHz are the extremes over every interval.
	FreqMHz, FreqMinMHz, FreqMaxMHz float64
	// Pressure stall percentages, maxima over intervals.
	CPUPressureMax, MemoryPressureMax, IOPressureMax float64
	// GCCPU is the mean GC CPU fraction of in-process runs.
	GCCPU float64
	// ObserverCPUSec is the observer's own CPU time, summed.
	ObserverCPUSec float64
}

// SummarizeObservations summarises obs. It returns a summary with
// Intervals 0 when obs is empty.
func SummarizeObservations(obs []model.Observation) ObservationSummary {
	nan := math.NaN()
	s := ObservationSummary{
		User: nan, System: nan, IOWait: nan, Steal: nan, OtherCPU: nan, OtherCPUMax: nan,
		Load1: nan, Load1Max: nan, CtxSwitches: nan, FreqMHz: nan, FreqMinMHz: nan, FreqMaxMHz: nan,
		CPUPressureMax: nan, MemoryPressureMax: nan, IOPressureMax: nan, GCCPU: nan,
	}
	if len(obs) == 0 {
		return s
	}
	s.Intervals = len(obs)
	first, last := obs[0].Start, obs[0].Start.Add(obs[0].Duration)
	var sys, other, rt weighted
	var user, system, iowait, steal, load, ctx, freq weighted
	for _, o := range obs {
		if o.Start.Before(first) {
			first = o.Start
		}
		if end := o.Start.Add(o.Duration); end.After(last) {
			last = end
		}
		w := o.Duration.Seconds()
		if !(w > 0) {
			w = 1e-9 // a zero-length interval still counts, barely
		}
		if st := o.System; st != nil {
			sys.add(1, w)
			user.add(st.User, w)
			system.add(st.System, w)
			iowait.add(st.IOWait, w)
			steal.add(st.Steal, w)
			load.add(st.Load1, w)
			s.Load1Max = maxNaN(s.Load1Max, st.Load1)
			ctx.add(st.CtxSwitches, w)
			if st.FreqMHz > 0 {
				freq.add(st.FreqMHz, w)
			}
			if st.FreqMinMHz > 0 {
				s.FreqMinMHz = minNaN(s.FreqMinMHz, st.FreqMinMHz)
			}
			s.FreqMaxMHz = maxNaN(s.FreqMaxMHz, positiveOrNaN(st.FreqMaxMHz))
			s.CPUPressureMax = maxNaN(s.CPUPressureMax, st.CPUPressure)
			s.MemoryPressureMax = maxNaN(s.MemoryPressureMax, st.MemoryPressure)
			s.IOPressureMax = maxNaN(s.IOPressureMax, st.IOPressure)
			s.ObserverCPUSec += st.ObserverCPUSec
			if o.Process != nil {
				other.add(o.OtherCPU, w)
				s.OtherCPUMax = maxNaN(s.OtherCPUMax, o.OtherCPU)
			}
		}
		if o.Runtime != nil {
			rt.add(o.Runtime.GCCPUFraction, w)
		}
	}
	s.Span = last.Sub(first)
	s.User, s.System, s.IOWait, s.Steal = user.mean(), system.mean(), iowait.mean(), steal.mean()
	s.Load1, s.CtxSwitches, s.FreqMHz = load.mean(), ctx.mean(), freq.mean()
	s.OtherCPU, s.GCCPU = other.mean(), rt.mean()
	return s
}

// A weighted accumulates a weighted mean.
type weighted struct{ sum, weight float64 }

func (a *weighted) add(v, w float64) { a.sum += v * w; a.weight += w }

func (a *weighted) mean() float64 {
	if a.weight == 0 {
		return math.NaN()
	}
	return a.sum / a.weight
}

func maxNaN(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	if math.IsNaN(b) {
		return a
	}
	return math.Max(a, b)
}

func minNaN(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	if math.IsNaN(b) {
		return a
	}
	return math.Min(a, b)
}

func positiveOrNaN(v float64) float64 {
	if v > 0 {
		return v
	}
	return math.NaN()
}

// A CPUPoint is one observation interval on a run's timeline: its
// midpoint in seconds since the first interval began, the fraction of all
// CPUs that were busy, and the fraction other processes used.
type CPUPoint struct {
	At       float64
	Busy     float64
	OtherCPU float64 // NaN when the interval has no process stats
	Side     string
}

// CPUTimeline returns one point per observation with system stats, in
// time order.
func CPUTimeline(obs []model.Observation) []CPUPoint {
	var pts []CPUPoint
	var first time.Time
	for _, o := range obs {
		if o.System != nil && (first.IsZero() || o.Start.Before(first)) {
			first = o.Start
		}
	}
	for _, o := range obs {
		if o.System == nil {
			continue
		}
		p := CPUPoint{
			At:       o.Start.Add(o.Duration / 2).Sub(first).Seconds(),
			Busy:     1 - o.System.Idle - o.System.IOWait,
			OtherCPU: math.NaN(),
			Side:     o.Side,
		}
		if o.Process != nil {
			p.OtherCPU = o.OtherCPU
		}
		pts = append(pts, p)
	}
	slices.SortStableFunc(pts, func(a, b CPUPoint) int { return cmp.Compare(a.At, b.At) })
	return pts
}
