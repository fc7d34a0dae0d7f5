// Command history is the experiment of docs/history.md (issue 14): a
// generated history of 300 commits x 50 benchmarks with three injected
// steps (+5%, -8%, +3%) under a shared CI runner's noise, analyzed with
// rigor's change-point detection (Otava's defaults) and with a fixed 5%
// alert; and the time to record 1,000 such runs into SQLite and
// PostgreSQL.
//
//	go run ./experiments/history                       # detection, 20 seeds
//	go run ./experiments/history -record 1000 -postgres postgres://...
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rigorbench/rigor/history"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// A step injected into one benchmark from one commit on.
type step struct {
	bench, commit int
	factor        float64
}

var steps = []step{{7, 100, 1.05}, {23, 180, 0.92}, {41, 250, 1.03}}

const (
	commits    = 300
	benchmarks = 50
	samples    = 10 // per benchmark per run
)

// Noise of a CPU-bound benchmark on a shared CI runner, per run (one run
// per commit, every benchmark measured in it):
//   - a machine factor shared by every benchmark of the run (frequency,
//     host load): lognormal, sd 1%;
//   - in 5% of runs a noisy neighbour for part of the run: half the
//     benchmarks (at random) slower by 5% to 25%;
//   - per sample: lognormal, sd 2%, and 2% of samples outliers slower by
//     10% to 50%.
//
// A point is the median of the run's 10 samples.
type noise struct {
	machineSD, neighbourP, sampleSD, outlierP float64
}

var sharedRunner = noise{machineSD: 0.01, neighbourP: 0.05, sampleSD: 0.02, outlierP: 0.02}

// generate returns the samples [commit][bench][sample] of one history.
func generate(seed uint64, nz noise) [][][]float64 {
	rng := rand.New(rand.NewPCG(seed, 14))
	base := make([]float64, benchmarks)
	for b := range base {
		base[b] = 1e-7 * math.Exp(rng.Float64()*math.Log(1000)) // 100ns..100µs
	}
	out := make([][][]float64, commits)
	for c := range commits {
		machine := math.Exp(nz.machineSD * rng.NormFloat64())
		neighbour := 1.0
		if rng.Float64() < nz.neighbourP {
			neighbour = 1.05 + 0.20*rng.Float64()
		}
		out[c] = make([][]float64, benchmarks)
		for b := range benchmarks {
			level := base[b] * machine
			for _, s := range steps {
				if b == s.bench && c >= s.commit {
					level *= s.factor
				}
			}
			if neighbour > 1 && rng.IntN(2) == 0 {
				level *= neighbour
			}
			v := make([]float64, samples)
			for i := range v {
				v[i] = level * math.Exp(nz.sampleSD*rng.NormFloat64())
				if rng.Float64() < nz.outlierP {
					v[i] *= 1.10 + 0.40*rng.Float64()
				}
			}
			out[c][b] = v
		}
	}
	return out
}

func hash(c int) string { return fmt.Sprintf("%040x", c+1) }

func series(data [][][]float64) []*history.Series {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]*history.Series, benchmarks)
	for b := range benchmarks {
		s := &history.Series{Name: fmt.Sprintf("Bench%02d", b), Unit: "sec/op", Better: model.LowerIsBetter}
		for c := range commits {
			s.Points = append(s.Points, history.Point{Commit: hash(c), Time: t0.Add(time.Duration(c) * time.Hour), RunID: int64(c + 1), Samples: data[c][b]})
		}
		out[b] = s
	}
	return out
}

// result of one method on one history.
type result struct {
	exact, near []bool // per step: found at its commit; within 2 commits
	false_      int    // alerts or changes elsewhere
	falseSeries int    // benchmarks without a step that had any
}

func isStep(b, c, slack int) (int, bool) {
	for i, s := range steps {
		if s.bench == b && abs(c-s.commit) <= slack {
			return i, true
		}
	}
	return -1, false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// score counts the flagged (bench, commit) pairs: one at a step's commit
// (or within 2 commits, counted apart) finds it; any other is false.
func score(flags [][2]int) result {
	r := result{exact: make([]bool, len(steps)), near: make([]bool, len(steps))}
	falseIn := map[int]bool{}
	for _, f := range flags {
		b, c := f[0], f[1]
		if i, ok := isStep(b, c, 0); ok {
			r.exact[i] = true
			continue
		}
		if i, ok := isStep(b, c, 2); ok {
			r.near[i] = true
			continue
		}
		r.false_++
		stepped := false
		for _, s := range steps {
			stepped = stepped || s.bench == b
		}
		if !stepped {
			falseIn[b] = true
		}
	}
	r.falseSeries = len(falseIn)
	return r
}

// changePoints: history.Analyze with opts, each series on its own.
func changePoints(ss []*history.Series, opts history.Options) result {
	a := history.Analyze(ss, opts)
	var flags [][2]int
	for _, c := range a.Changes {
		b := slices.Index(ss, c.Series)
		flags = append(flags, [2]int{b, c.Index})
	}
	return score(flags)
}

// fixedAlert: a point more than limit from the previous one, in either
// direction, alerts (github-action-benchmark compares with the previous
// result this way; its default threshold is 200%).
func fixedAlert(ss []*history.Series, limit float64, window int) result {
	var flags [][2]int
	for b, s := range ss {
		v := s.Values()
		for c := window; c < len(v); c++ {
			ref := stats.Mean(v[c-window : c])
			if math.Abs(v[c]/ref-1) > limit {
				flags = append(flags, [2]int{b, c})
			}
		}
	}
	return score(flags)
}

type tally struct {
	name        string
	exact, near []int
	false_      []int
	falseSeries []int
}

func (t *tally) add(r result) {
	if t.exact == nil {
		t.exact, t.near = make([]int, len(steps)), make([]int, len(steps))
	}
	for i := range steps {
		if r.exact[i] {
			t.exact[i]++
		} else if r.near[i] {
			t.near[i]++
		}
	}
	t.false_ = append(t.false_, r.false_)
	t.falseSeries = append(t.falseSeries, r.falseSeries)
}

func median(x []int) float64 {
	f := make([]float64, len(x))
	for i, v := range x {
		f[i] = float64(v)
	}
	return stats.Median(f)
}

func main() {
	seeds := flag.Int("seeds", 20, "histories to generate (seeds 1..N)")
	record := flag.Int("record", 0, "also record this many runs into SQLite (and -postgres), timing each")
	pg := flag.String("postgres", "", "PostgreSQL URL to record into as well (an empty database or schema)")
	flag.Parse()

	opts := history.Options{} // Otava's defaults: window 50, p 0.001
	tallies := []*tally{{name: "rigor changes (defaults): corrected for the search, outliers and transients left out"},
		{name: "corrected for the search, no outliers or transients looked for (--transient 0)"},
		{name: "Otava exactly (rigor changes --otava): not corrected"}}
	tallies = append(tallies, &tally{name: "fixed 5% alert vs the previous result"}, &tally{name: "fixed 5% alert vs the mean of the previous 5"})
	if *seeds > 0 {
		detection(*seeds, opts, tallies)
	}
	if *record > 0 {
		dir, err := os.MkdirTemp("", "rigor-history-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer os.RemoveAll(dir)
		locs := []string{filepath.Join(dir, sqlstore.FileName)}
		if *pg != "" {
			locs = append(locs, *pg)
		}
		fmt.Println()
		for _, loc := range locs {
			if err := timeRecording(loc, *record); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
}

func detection(seeds int, opts history.Options, tallies []*tally) {
	start := time.Now()
	for seed := 1; seed <= seeds; seed++ {
		ss := series(generate(uint64(seed), sharedRunner))
		tallies[0].add(changePoints(ss, opts))
		tallies[1].add(changePoints(ss, history.Options{Transient: -1}))
		tallies[2].add(changePoints(ss, history.Options{OtavaMerge: true}))
		tallies[3].add(fixedAlert(ss, 0.05, 1))
		tallies[4].add(fixedAlert(ss, 0.05, 5))
	}
	fmt.Printf("%d histories of %d commits x %d benchmarks, steps %+.0f%% @%d (bench %d), %+.0f%% @%d (bench %d), %+.0f%% @%d (bench %d); analyzed in %v\n\n",
		seeds, commits, benchmarks, 100*(steps[0].factor-1), steps[0].commit, steps[0].bench,
		100*(steps[1].factor-1), steps[1].commit, steps[1].bench, 100*(steps[2].factor-1), steps[2].commit, steps[2].bench,
		time.Since(start).Round(time.Millisecond))
	fmt.Println("| method | +5% found at its commit (within 2) | -8% | +3% | false flags per history: median (min-max) | histories with any false flag | series without a step flagged (median) |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- |")
	for _, t := range tallies {
		withFalse := 0
		for _, f := range t.false_ {
			if f > 0 {
				withFalse++
			}
		}
		fmt.Printf("| %s | %d/%d (%d) | %d/%d (%d) | %d/%d (%d) | %.1f (%d-%d) | %d/%d | %.1f |\n", t.name,
			t.exact[0], seeds, t.near[0], t.exact[1], seeds, t.near[1], t.exact[2], seeds, t.near[2],
			median(t.false_), slices.Min(t.false_), slices.Max(t.false_), withFalse, seeds, median(t.falseSeries))
	}
}

// timeRecording records n runs, each one commit of a generated history
// with three metrics per benchmark, and prints the time per run.
func timeRecording(loc string, n int) error {
	ctx := context.Background()
	t0 := time.Now()
	s, err := sqlstore.Open(ctx, loc, sqlstore.Options{Create: true})
	if err != nil {
		return err
	}
	defer s.Close()
	openTime := time.Since(t0)
	var per []float64
	total := 0
	data := generate(1, sharedRunner)
	for r := range n {
		c := r % commits
		run := &model.Run{SchemaVersion: model.SchemaVersion, ID: fmt.Sprint(r), Kind: model.KindRun,
			Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r) * time.Minute),
			Env:   &model.Env{GOOS: "linux", GOARCH: "amd64", CPUModel: "Shared runner CPU", Hostname: fmt.Sprintf("runner-%d", r%7)},
			Sides: []model.Side{{Label: "current", Rev: hash(c)}}}
		for b := range benchmarks {
			bm := model.Benchmark{Name: fmt.Sprintf("Bench%02d", b), Procs: 2, Pkg: "example.com/exp"}
			ns := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
			bytes := model.Metric{Unit: "B/op", Better: model.LowerIsBetter, Assume: model.AssumeExact}
			allocs := model.Metric{Unit: "allocs/op", Better: model.LowerIsBetter, Assume: model.AssumeExact}
			for i, v := range data[c][b] {
				ns.Samples = append(ns.Samples, model.Sample{Side: "current", Round: i, Iters: 1000, Value: v})
				bytes.Samples = append(bytes.Samples, model.Sample{Side: "current", Round: i, Iters: 1000, Value: 64})
				allocs.Samples = append(allocs.Samples, model.Sample{Side: "current", Round: i, Iters: 1000, Value: 2})
			}
			bm.Metrics = []model.Metric{ns, bytes, allocs}
			run.Benchmarks = append(run.Benchmarks, bm)
		}
		st := time.Now()
		got, err := s.Record(ctx, run, sqlstore.Recording{Project: "example.com/exp", Branch: "main",
			Commits: map[string]sqlstore.Commit{hash(c): {Hash: hash(c), Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(c) * time.Hour)}}})
		if err != nil {
			return err
		}
		per = append(per, float64(time.Since(st)))
		total += got.Samples
	}
	q := time.Now()
	pts, err := s.Points(ctx, sqlstore.Filter{Name: "Bench07", Unit: "sec/op"})
	if err != nil {
		return err
	}
	query := time.Since(q)
	size := ""
	if fi, err := os.Stat(loc); err == nil {
		size = fmt.Sprintf(", file %.0f MB", float64(fi.Size())/1e6)
	}
	fmt.Printf("%s: %d runs, %d samples (%d per run): per run median %v, p90 %v, max %v; open %v; one series read back (%d points) %v%s\n",
		s.Engine(), n, total, total/n, time.Duration(stats.Median(per)).Round(time.Microsecond),
		time.Duration(stats.Quantile(per, 0.9)).Round(time.Microsecond), time.Duration(slices.Max(per)).Round(time.Microsecond),
		openTime.Round(time.Millisecond), len(pts), query.Round(time.Millisecond), size)
	return nil
}
