// Command headroom asks of a series of busy-machine trials (see
// ../trials) whether any interval could have found the +3% change more
// often at the noise those runs had, or with more rounds.
//
// For every trial's rigor run of a condition it takes the per-round log
// ratios new/old of the metric the verdict used, draws B bootstrap
// resamples of n rounds from them, and counts how often an interval
// settles the comparison: clears the noise band (a change) or lies inside
// it (unchanged). Two intervals: rigor's (the Hodges-Lehmann estimate with
// the signed-rank interval) and Student's t interval on the mean. It
// prints, per n, the expected number of trials out of 20 each settles.
//
//	go run ./experiments/busy/headroom /tmp/exp21/neighbour
//
// With n equal to each run's own rounds, the count should match what the
// trials found (a check of the resampling); larger n says how many rounds
// the bar needs at that noise.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "headroom:", err)
		os.Exit(2)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("headroom", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	resamples := fs.Int("b", 400, "bootstrap resamples per run and n")
	sizes := fs.String("n", "0,20,28,40", "rounds per resample, comma-separated; 0 is each run's own")
	noise := fs.Float64("noise", 0.01, "the noise band, as a fraction")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: headroom [-b B] [-n 0,20,40] SERIES-DIR (a trials -out directory's quiet or neighbour)")
	}
	var ns []int
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return fmt.Errorf("-n: %q is not a count", f)
		}
		ns = append(ns, n)
	}
	fmt.Fprintf(w, "condition  rounds  runs  rigor's interval: change, unchanged  t interval: change, unchanged  (expected trials of 20)\n")
	for _, cond := range []string{"plus3", "aa"} {
		runs, err := readSeries(fs.Arg(0), cond)
		if err != nil {
			return err
		}
		if len(runs) == 0 {
			continue
		}
		for _, n := range ns {
			var hl, t outcome
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			for _, d := range runs {
				size := n
				if size == 0 {
					size = len(d)
				}
				hl = hl.add(settleRate(d, size, *resamples, *noise, hlInterval, rng))
				t = t.add(settleRate(d, size, *resamples, *noise, tInterval, rng))
			}
			label := strconv.Itoa(n)
			if n == 0 {
				label = "own"
			}
			k := 20 / float64(len(runs))
			fmt.Fprintf(w, "%-9s  %6s  %4d  %17.1f, %9.1f  %12.1f, %9.1f\n", cond, label, len(runs), hl.change*k, hl.unchanged*k, t.change*k, t.unchanged*k)
		}
	}
	return nil
}

// readSeries returns, for every trial of cond in dir, the per-round log
// ratios of the metric its verdict used.
func readSeries(dir, cond string) ([][]float64, error) {
	trials, err := filepath.Glob(filepath.Join(dir, "trial-*"))
	if err != nil {
		return nil, err
	}
	var out [][]float64
	for _, tr := range trials {
		unit, err := verdictUnit(filepath.Join(tr, "rigor-"+cond+".json"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		f, err := os.Open(filepath.Join(tr, "rigor-"+cond+"-run", "run.json"))
		if err != nil {
			return nil, err
		}
		r, err := model.ReadJSON(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tr, err)
		}
		if d := logRatios(r, unit); len(d) >= 6 {
			out = append(out, d)
		}
	}
	return out, nil
}

// verdictUnit reads the unit a comparison document's first benchmark takes
// its verdict from (sec/op when it does not say).
func verdictUnit(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var doc struct {
		Benchmarks []struct {
			VerdictMetric string `json:"verdict_metric"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Benchmarks) == 0 || doc.Benchmarks[0].VerdictMetric == "" {
		return "sec/op", nil
	}
	return doc.Benchmarks[0].VerdictMetric, nil
}

// logRatios pairs the first benchmark's samples of unit by round:
// log(new/old) for every round both sides measured.
func logRatios(r *model.Run, unit string) []float64 {
	if len(r.Benchmarks) == 0 {
		return nil
	}
	old := map[int]float64{}
	var rounds []int
	var news []float64
	for _, m := range r.Benchmarks[0].Metrics {
		if m.Unit != unit {
			continue
		}
		for _, s := range m.Samples {
			if s.Side == "old" {
				old[s.Round] = s.Value
			}
		}
		for _, s := range m.Samples {
			if s.Side == "new" {
				rounds = append(rounds, s.Round)
				news = append(news, s.Value)
			}
		}
	}
	var d []float64
	for i, k := range rounds {
		if o, ok := old[k]; ok && o > 0 && news[i] > 0 {
			d = append(d, math.Log(news[i]/o))
		}
	}
	return d
}

// An outcome sums settle rates over runs.
type outcome struct{ change, unchanged float64 }

func (o outcome) add(p outcome) outcome {
	return outcome{o.change + p.change, o.unchanged + p.unchanged}
}

// An interval method returns a 95% interval on log ratios d.
type interval func(d []float64) (lo, hi float64)

// hlInterval is rigor's: the signed-rank interval around the
// Hodges-Lehmann estimate.
func hlInterval(d []float64) (float64, float64) {
	in, err := stats.PairedShift(d, 0.95)
	if err != nil {
		return math.NaN(), math.NaN()
	}
	return in.Lo, in.Hi
}

// tInterval is Student's t interval on the mean.
func tInterval(d []float64) (float64, float64) {
	n := float64(len(d))
	var mean, ss float64
	for _, x := range d {
		mean += x
	}
	mean /= n
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	se := math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975)
	return mean - q*se, mean + q*se
}

// settleRate resamples n of d b times and returns how often the interval
// clears the band ±noise (on the ratio scale, as rigor's verdict reads it)
// and how often it lies inside.
func settleRate(d []float64, n, b int, noise float64, in interval, rng *rand.Rand) outcome {
	var o outcome
	x := make([]float64, n)
	for range b {
		for i := range x {
			x[i] = d[rng.IntN(len(d))]
		}
		lo, hi := in(slices.Clone(x))
		lo, hi = math.Expm1(lo), math.Expm1(hi)
		switch {
		case lo > noise || hi < -noise:
			o.change++
		case lo >= -noise && hi <= noise:
			o.unchanged++
		}
	}
	o.change /= float64(b)
	o.unchanged /= float64(b)
	return o
}
