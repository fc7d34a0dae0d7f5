// Command changepoints calibrates the history's change-point detection
// and its check of the newest result (issue 22) by simulation: seeded
// histories of pure noise, of one step and of one short burst, at 5, 10
// and 30 samples per result, per-sample noise of 2% and 5%, with and
// without a factor shared by every series of a result (a machine a little
// faster or slower each day). For each condition it counts what `rigor
// changes` would report, as it reports it (history.Analyze over the
// series of one history, and the newest-result check of each series):
// false change points per 100 series of pure noise (series with at least
// one, and change points in all), and false transients; newest-result
// false alarms per 100 checks of pure noise (the check at 50, 100, 150
// and 200 results of each series); steps of +3%, +5% and -10% found (a
// change within 10 results of the step, in its direction), the position
// error of those found, and changes elsewhere in stepped series; bursts
// of 1, 2, 3 and 6 results at +20% reported as a transient (or bracketed
// by two changes), where a burst of 1 is an outlier and should not be
// reported.
//
// The program's first version in the repository (git log --diff-filter=A
// -- experiments/changepoints/main.go) is the same simulation of the
// method before issue 22: the before table of docs/history.md.
//
//	go run ./experiments/changepoints              # 1,000 series per condition
//	go run ./experiments/changepoints -series 100  # quicker
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/rigorbench/rigor/history"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// A condition is one noise model.
type condition struct {
	samples int     // per result
	noise   float64 // per-sample lognormal sd
	factor  float64 // per-result lognormal sd, shared by the series of a result
}

func conditions() []condition {
	var out []condition
	for _, n := range []int{5, 10, 30} {
		for _, sd := range []float64{0.02, 0.05} {
			for _, f := range []float64{0, 0.01} {
				out = append(out, condition{n, sd, f})
			}
		}
	}
	return out
}

const (
	commits = 200 // results per series
	width   = 10  // series per history, analyzed together
)

// An event changes the level of one series: from commit At on (for
// Len results, or to the end when Len is 0) it is multiplied by Factor.
type event struct {
	At, Len int
	Factor  float64
}

func (e event) covers(c int) bool { return c >= e.At && (e.Len == 0 || c < e.At+e.Len) }

// generate returns one history: width series of commits results, the
// series i with events[i] (a zero event is none).
func generate(rng *rand.Rand, cond condition, events []event) []*history.Series {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]*history.Series, width)
	for i := range out {
		out[i] = &history.Series{Name: fmt.Sprintf("Bench%d", i), Benchmark: fmt.Sprintf("Bench%d", i), Unit: "sec/op", Better: model.LowerIsBetter}
	}
	for c := range commits {
		factor := math.Exp(cond.factor * rng.NormFloat64())
		for i, s := range out {
			level := 1e-6 * factor
			if e := events[i]; e.Factor != 0 && e.covers(c) {
				level *= e.Factor
			}
			v := make([]float64, cond.samples)
			for k := range v {
				v[k] = level * math.Exp(cond.noise*rng.NormFloat64())
			}
			s.Points = append(s.Points, history.Point{Commit: fmt.Sprintf("%040x", c+1), Time: t0.Add(time.Duration(c) * time.Hour), RunID: int64(c + 1), Samples: v})
		}
	}
	return out
}

// tally is one condition's counts.
type tally struct {
	nullSeries, nullWithFalse, nullFalse int
	nullTransients                       int
	checks, checkFalse                   int
	steps                                map[float64]*found
	positionErrors                       []float64
	stepFalse, stepSeries                int
	bursts                               map[int]*found
}

type found struct{ n, of int }

func (f *found) String() string {
	if f == nil || f.of == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", f.n, f.of)
}

// near is how far from its step a change finds it.
const near = 10

var (
	stepFactors = []float64{1.03, 1.05, 0.90}
	burstLens   = []int{1, 2, 3, 6}
)

func main() {
	series := flag.Int("series", 1000, "series per condition and kind of history (a multiple of 10)")
	p := flag.Float64("p", history.DefaultMaxPValue, "the detection's level (rigor changes --p)")
	seed := flag.Uint64("seed", 1, "first seed")
	flag.Parse()
	if *series < width || *series%width != 0 {
		fmt.Fprintf(os.Stderr, "changepoints: -series %d: want a positive multiple of %d\n", *series, width)
		os.Exit(2)
	}
	opts := history.Options{MaxPValue: *p}
	start := time.Now()
	fmt.Printf("%d series of %d results per condition and kind of history (pure noise; one step; one +20%% burst), %d series a history, level %g, seeds from %d\n\n",
		*series, commits, width, *p, *seed)
	fmt.Println("| samples | noise | factor | false change points per 100 series (series with any; all) | false transients per 100 series | newest-result false alarms per 100 checks | +3% found | +5% found | -10% found | position error: median (max) | changes elsewhere per 100 stepped series | bursts reported: 1 (an outlier) | 2 | 3 | 6 |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for ci, cond := range conditions() {
		t := run(cond, *series/width, *seed+uint64(1000*ci), opts)
		fmt.Printf("| %d | %.0f%% | %.0f%% | %s; %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			cond.samples, 100*cond.noise, 100*cond.factor,
			per100(t.nullWithFalse, t.nullSeries), per100(t.nullFalse, t.nullSeries), per100(t.nullTransients, t.nullSeries),
			per100(t.checkFalse, t.checks), t.steps[1.03], t.steps[1.05], t.steps[0.90], posError(t.positionErrors),
			per100(t.stepFalse, t.stepSeries), t.bursts[1], t.bursts[2], t.bursts[3], t.bursts[6])
	}
	fmt.Printf("\n(%v)\n", time.Since(start).Round(time.Second))
}

func per100(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", 100*float64(n)/float64(of))
}

func posError(e []float64) string {
	if len(e) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f (%.0f)", stats.Median(e), slices.Max(e))
}

// run simulates histories of one condition: histories of each kind, each
// from its own seed.
func run(cond condition, histories int, seed uint64, opts history.Options) *tally {
	t := &tally{steps: map[float64]*found{}, bursts: map[int]*found{}}
	for h := range histories {
		rng := rand.New(rand.NewPCG(seed, uint64(h)))
		// Pure noise.
		ss := generate(rng, cond, make([]event, width))
		a := history.Analyze(ss, opts)
		t.nullTransients += len(a.Transients)
		for _, s := range ss {
			t.nullSeries++
			n := countChanges(a, s)
			t.nullFalse += n
			if n > 0 {
				t.nullWithFalse++
			}
			for _, at := range []int{50, 100, 150, 200} {
				t.checks++
				if newestBreaks(&history.Series{Name: s.Name, Better: s.Better, Points: s.Points[:at]}, opts) {
					t.checkFalse++
				}
			}
		}
		// One step per series, at a random commit in [50, 150).
		events := make([]event, width)
		for i := range events {
			events[i] = event{At: 50 + rng.IntN(100), Factor: stepFactors[i%len(stepFactors)]}
		}
		ss = generate(rng, cond, events)
		a = history.Analyze(ss, opts)
		for i, s := range ss {
			e := events[i]
			f := foundOf(t.steps, e.Factor)
			f.of++
			t.stepSeries++
			best := -1
			for _, c := range a.Changes {
				if c.Series != s {
					continue
				}
				d := abs(c.Index - e.At)
				if d <= near && (c.Ratio.Estimate > 1) == (e.Factor > 1) && (best < 0 || d < best) {
					best = d
				}
				if d > near {
					t.stepFalse++
				}
			}
			if best >= 0 {
				f.n++
				t.positionErrors = append(t.positionErrors, float64(best))
			}
		}
		// One +20% burst per series.
		for i := range events {
			events[i] = event{At: 50 + rng.IntN(100), Len: burstLens[i%len(burstLens)], Factor: 1.20}
		}
		ss = generate(rng, cond, events)
		a = history.Analyze(ss, opts)
		for i, s := range ss {
			e := events[i]
			f := foundOf(t.bursts, e.Len)
			f.of++
			if burstReported(a, s, e) {
				f.n++
			}
		}
	}
	return t
}

// foundOf returns m's count of k, made when there is none.
func foundOf[K comparable](m map[K]*found, k K) *found {
	f := m[k]
	if f == nil {
		f = &found{}
		m[k] = f
	}
	return f
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// countChanges is the number of changes a reports in s.
func countChanges(a *history.Analysis, s *history.Series) int {
	n := 0
	for _, c := range a.Changes {
		if c.Series == s {
			n++
		}
	}
	return n
}

// newestBreaks is rigor changes' check of s's newest result: against the
// segment since the last change of the results before it (history.Check,
// as Analyze calls it; Analyze then leaves out a break that a change
// already reports, which can only lower the count).
func newestBreaks(s *history.Series, opts history.Options) bool {
	n := len(s.Points)
	if n < 3 {
		return false
	}
	prefix := &history.Series{Better: s.Better, Points: s.Points[:n-1]}
	return history.Check(prefix, s.Points[n-1], opts).Breaks
}

// burstReported tells whether a reports the burst e of s: as a transient
// that overlaps it, or as two changes, one within 2 results of either end.
func burstReported(a *history.Analysis, s *history.Series, e event) bool {
	for _, tr := range a.Transients {
		if tr.Series == s && tr.From < e.At+e.Len && e.At < tr.To {
			return true
		}
	}
	up, down := false, false
	for _, c := range a.Changes {
		if c.Series != s {
			continue
		}
		up = up || abs(c.Index-e.At) <= 2
		down = down || abs(c.Index-(e.At+e.Len)) <= 2
	}
	return up && down
}
