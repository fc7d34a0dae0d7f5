// Command positions reads run.json files of two-command rigor exec runs
// (A/A trials, experiments/execio) and reports, per run, the paired
// effects by position: the side effect (second command over the first,
// what rigor's verdict reads), the order effect (the command that ran
// second in its round over the one that ran first, whichever it was),
// how unbalanced the run's order was (rounds with the reference first
// minus rounds with it second), and the first rounds' share.
//
// Effects are Hodges-Lehmann centres of the per-round log ratios with
// their 95% intervals (stats.PairedShift), printed as percentages.
//
//	go run ./experiments/execio/positions [-unit cpu-sec/op] OUT/*.run/run.json
//
// -unit reads another metric than wall time (sec/op).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

func main() {
	unit := flag.String("unit", "sec/op", "the metric to read")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: positions [-unit UNIT] RUN.json...")
		os.Exit(2)
	}
	if err := run(flag.Args(), *unit, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "positions:", err)
		os.Exit(2)
	}
}

// A pair is one round of two sides: the wall times in the order they
// ran, and whether the reference ran first.
type pair struct {
	first, second float64
	refFirst      bool
}

// rounds returns the paired rounds of a run's first benchmark (its
// metric unit), in order; rounds missing a side are left out.
func rounds(r *model.Run, unit string) ([]pair, error) {
	if len(r.Sides) != 2 || len(r.Benchmarks) == 0 {
		return nil, errors.New("not a run of two commands")
	}
	ref := r.Sides[0].Label
	m := r.Benchmarks[0].Metric(unit)
	if m == nil {
		return nil, fmt.Errorf("no %s", unit)
	}
	var out []pair
	for i := 0; i+1 < len(m.Samples); {
		a, b := m.Samples[i], m.Samples[i+1]
		if a.Round != b.Round || a.Side == b.Side {
			i++ // a round with one side only
			continue
		}
		out = append(out, pair{first: a.Value, second: b.Value, refFirst: a.Side == ref})
		i += 2
	}
	return out, nil
}

// effects are one run's paired effects, in percent.
type effects struct {
	n, imbalance int
	side, order  stats.Interval
	// orderRefFirst and orderRefSecond are the order effect in the rounds
	// where the reference ran first and where it ran second.
	orderRefFirst, orderRefSecond float64
}

func analyse(ps []pair) (effects, error) {
	var side, order, of, os []float64
	e := effects{n: len(ps)}
	for _, p := range ps {
		o := math.Log(p.second / p.first)
		order = append(order, o)
		if p.refFirst {
			e.imbalance++
			side = append(side, o)
			of = append(of, o)
		} else {
			e.imbalance--
			side = append(side, -o)
			os = append(os, o)
		}
	}
	var err error
	if e.side, err = stats.PairedShift(side, 0.95); err != nil {
		return e, err
	}
	if e.order, err = stats.PairedShift(order, 0.95); err != nil {
		return e, err
	}
	e.orderRefFirst, e.orderRefSecond = stats.Median(of), stats.Median(os)
	return e, nil
}

func pct(x float64) string { return fmt.Sprintf("%+.1f%%", 100*math.Expm1(x)) }

func civ(iv stats.Interval) string {
	return fmt.Sprintf("%s [%s, %s]", pct(iv.Estimate), pct(iv.Lo), pct(iv.Hi))
}

// excludes0 reports whether iv lies wholly on one side of zero.
func excludes0(iv stats.Interval) bool { return iv.Lo > 0 || iv.Hi < 0 }

func run(files []string, unit string, w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "run\trounds\tB over A (side)\tsecond over first (order)\torder | A first\torder | B first\tA first - B first")
	var sides, orders int
	var sideEst, orderEst []float64
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var r model.Run
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		ps, err := rounds(&r, unit)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		e, err := analyse(ps)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		sideEst, orderEst = append(sideEst, e.side.Estimate), append(orderEst, e.order.Estimate)
		if excludes0(e.side) {
			sides++
		}
		if excludes0(e.order) {
			orders++
		}
		name := strings.TrimSuffix(filepath.Base(filepath.Dir(f)), ".run")
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%+d\n", name, e.n, civ(e.side), civ(e.order), pct(e.orderRefFirst), pct(e.orderRefSecond), e.imbalance)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d of %d runs: the side effect's 95%% interval excludes 0; %d of %d: the order effect's does.\n", sides, len(files), orders, len(files))
	fmt.Fprintf(w, "median over the runs: side effect %s (from %s to %s), order effect %s (from %s to %s)\n",
		pct(stats.Median(sideEst)), pct(stats.Min(sideEst)), pct(stats.Max(sideEst)),
		pct(stats.Median(orderEst)), pct(stats.Min(orderEst)), pct(stats.Max(orderEst)))
	return nil
}
