// Command instrspread reads the simulated instruction counts of the busy
// experiment's rigor runs (issue 37: trials with -extra-args
// '--instructions simulate') and says how they agreed: per run and side,
// the windows counted, their least, median and greatest count per
// operation, the spread between windows and between processes; rigor's own
// instructions/op change and verdict (from the run's rigor-COND.json beside
// it); the range rule rigor used before 7031447 (the ratio of the sides'
// medians within the range of every window's value) and the ratio of the
// sides' least windows, each against the tolerance; and, for runs without
// a count, the note that says why.
//
//	go run ./experiments/busy/instrspread /tmp/ins-n1 /tmp/ins-n2
//
// The simulation pass runs each side's benchmark in processes of -windows
// (2) timed windows each, one process after another, so a side's samples
// in run.json are its processes' windows in order.
package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "instrspread:", err)
		os.Exit(2)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("instrspread", flag.ContinueOnError)
	windows := fs.Int("windows", 2, "timed windows per simulated process")
	tol := fs.Float64("tolerance", 0.005, "the tolerance of a count, a fraction (rigor's --instructions-tolerance)")
	bench := fs.String("bench", "Op", "the benchmark")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 || *windows < 1 {
		return errors.New("usage: instrspread [-windows 2] [-tolerance 0.005] DIR [DIR]: the -out directories of experiments/busy/trials")
	}
	var runs []runCounts
	for _, dir := range fs.Args() {
		paths, err := filepath.Glob(filepath.Join(dir, "*", "trial-*", "rigor-*-run", "run.json"))
		if err != nil {
			return err
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rc, err := readRun(data, *bench, *windows)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			rel, _ := filepath.Rel(dir, filepath.Dir(p))
			parts := strings.Split(filepath.ToSlash(rel), "/")
			rc.Env, rc.Trial = parts[0], parts[1]
			rc.Cond = strings.TrimSuffix(strings.TrimPrefix(parts[2], "rigor-"), "-run")
			if data, err := os.ReadFile(strings.TrimSuffix(filepath.Dir(p), "-run") + ".json"); err == nil {
				rc.Rigor = rigorInstructions(data, *bench)
			}
			runs = append(runs, rc)
		}
	}
	slices.SortStableFunc(runs, func(a, b runCounts) int {
		return cmp.Or(strings.Compare(a.Env, b.Env), strings.Compare(condKey(a.Cond), condKey(b.Cond)), strings.Compare(a.Trial, b.Trial))
	})
	return write(w, runs, *tol)
}

func condKey(c string) string {
	return map[string]string{"aa": "0", "plus1": "1", "plus3": "3", "plus5": "5", "plus10": "9"}[c] + c
}

// side is one side's simulated counts.
type side struct {
	Windows []float64 // instructions/op of each window, in order
	Procs   []float64 // each process's median
}

func (s side) min() float64    { return slices.Min(s.Windows) }
func (s side) max() float64    { return slices.Max(s.Windows) }
func (s side) median() float64 { return median(s.Windows) }

// spread is max/min - 1 of xs.
func spread(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return slices.Max(xs)/slices.Min(xs) - 1
}

// runCounts is one rigor run's counts.
type runCounts struct {
	Env, Trial, Cond string
	Old, New         side
	// Why is the benchmark's note on instructions when it has no count.
	Why string
	// Rigor is rigor's own instructions/op change and verdict, from the
	// run's --format json output; empty when it has none.
	Rigor string
}

func (r runCounts) counted() bool { return len(r.Old.Windows) > 0 && len(r.New.Windows) > 0 }

func readRun(data []byte, bench string, windows int) (runCounts, error) {
	var doc struct {
		Benchmarks []struct {
			Name    string `json:"name"`
			Metrics []struct {
				Unit    string `json:"unit"`
				Samples []struct {
					Side  string  `json:"side"`
					Value float64 `json:"value"`
				} `json:"samples"`
			} `json:"metrics"`
			Notes []struct {
				Text string `json:"text"`
			} `json:"notes"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return runCounts{}, err
	}
	var rc runCounts
	for _, b := range doc.Benchmarks {
		if b.Name != bench {
			continue
		}
		for _, m := range b.Metrics {
			if m.Unit != "instructions/op" {
				continue
			}
			for _, s := range m.Samples {
				switch s.Side {
				case "old":
					rc.Old.Windows = append(rc.Old.Windows, s.Value)
				case "new":
					rc.New.Windows = append(rc.New.Windows, s.Value)
				}
			}
		}
		for _, n := range b.Notes {
			if strings.Contains(n.Text, "instructions per op") {
				rc.Why = n.Text
				break
			}
		}
	}
	for _, s := range []*side{&rc.Old, &rc.New} {
		for i := 0; i < len(s.Windows); i += windows {
			s.Procs = append(s.Procs, median(s.Windows[i:min(i+windows, len(s.Windows))]))
		}
	}
	return rc, nil
}

// rigorInstructions is bench's instructions/op change in rigor's --format
// json output: "+1.00% [+0.97%, +1.03%] regressed", or "".
func rigorInstructions(data []byte, bench string) string {
	var doc struct {
		Benchmarks []struct {
			Name    string `json:"name"`
			Metrics []struct {
				Unit    string `json:"unit"`
				Changes []*struct {
					Estimate, Lo, Hi *float64
					Verdict          string
				} `json:"changes"`
			} `json:"metrics"`
		} `json:"benchmarks"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return ""
	}
	for _, b := range doc.Benchmarks {
		for _, m := range b.Metrics {
			if b.Name != bench || m.Unit != "instructions/op" || len(m.Changes) == 0 || m.Changes[0] == nil {
				continue
			}
			c := m.Changes[0]
			v := func(p *float64) float64 {
				if p == nil {
					return math.NaN()
				}
				return *p
			}
			return fmt.Sprintf("%s [%s, %s] %s", pct(v(c.Estimate)), pct(v(c.Lo)), pct(v(c.Hi)), c.Verdict)
		}
	}
	return ""
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// verdict of a change range [lo, hi] against ±tol, as rigor decides a
// count (analysis.decideInstructions).
func verdict(lo, hi, tol float64) string {
	switch {
	case lo > tol:
		return "regressed"
	case hi < -tol:
		return "improved"
	case lo >= -tol && hi <= tol:
		return "unchanged"
	}
	return "inconclusive"
}

// minVerdict is the verdict of the sides' least windows: a count moved
// when their ratio lies beyond ±tol, and did not when inside.
func minVerdict(change, tol float64) string {
	switch {
	case change > tol:
		return "regressed"
	case change < -tol:
		return "improved"
	}
	return "unchanged"
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%+.3f%%", 100*x)
}

func write(w io.Writer, runs []runCounts, tol float64) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "env\tcond\ttrial\told n/procs\told min\told spread\told procs\tnew n/procs\tnew min\tnew spread\tnew procs\trigor's change\tmedians [range]\trange rule\tleast/least\tleast rule\twhy no count")
	type key struct{ env, cond string }
	type tallyRow struct {
		runs, counted       int
		rule, least, rigor  map[string]int
		spreads, procSpread []float64
		noCount             map[string]int
	}
	tallies := map[key]*tallyRow{}
	var order []key
	for _, r := range runs {
		k := key{r.Env, r.Cond}
		t := tallies[k]
		if t == nil {
			t = &tallyRow{rule: map[string]int{}, least: map[string]int{}, rigor: map[string]int{}, noCount: map[string]int{}}
			tallies[k] = t
			order = append(order, k)
		}
		t.runs++
		if !r.counted() {
			why := r.Why
			if i := strings.Index(why, "("); i > 0 {
				why = strings.TrimSpace(why[:i])
			}
			if why == "" {
				why = "no count, no note"
			}
			t.noCount[why]++
			fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t%s\n", r.Env, r.Cond, r.Trial, "no count: "+why)
			continue
		}
		t.counted++
		est := r.New.median()/r.Old.median() - 1
		lo, hi := r.New.min()/r.Old.max()-1, r.New.max()/r.Old.min()-1
		least := r.New.min()/r.Old.min() - 1
		rv, lv := verdict(lo, hi, tol), minVerdict(least, tol)
		t.rule[rv]++
		t.least[lv]++
		rigorV := "-"
		if f := strings.Fields(r.Rigor); len(f) > 0 {
			rigorV = f[len(f)-1]
			t.rigor[rigorV]++
		}
		t.spreads = append(t.spreads, spread(r.Old.Windows), spread(r.New.Windows))
		t.procSpread = append(t.procSpread, spread(r.Old.Procs), spread(r.New.Procs))
		rigor := r.Rigor
		if rigor == "" {
			rigor = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%.0f\t%s\t%s\t%d/%d\t%.0f\t%s\t%s\t%s\t%s [%s, %s]\t%s\t%s\t%s\t\n",
			r.Env, r.Cond, r.Trial,
			len(r.Old.Windows), len(r.Old.Procs), r.Old.min(), pct(spread(r.Old.Windows)), pct(spread(r.Old.Procs)),
			len(r.New.Windows), len(r.New.Procs), r.New.min(), pct(spread(r.New.Windows)), pct(spread(r.New.Procs)),
			rigor, pct(est), pct(lo), pct(hi), rv, pct(least), lv)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nPer condition (tolerance ±%g%%): rigor's verdict on instructions/op as it wrote it; the range rule (rigor before 7031447) the medians' ratio within the range of every window; the least rule the ratio of each side's least window against the same tolerance.\n", 100*tol)
	for _, k := range order {
		t := tallies[k]
		fmt.Fprintf(w, "%s %s: %d runs, %d with counts; rigor's verdict %s; range rule %s; least rule %s; window spread per side median %s max %s; process spread median %s max %s",
			k.env, k.cond, t.runs, t.counted, counts(t.rigor), counts(t.rule), counts(t.least),
			pct(median(t.spreads)), pct(maxOr(t.spreads)), pct(median(t.procSpread)), pct(maxOr(t.procSpread)))
		if len(t.noCount) > 0 {
			fmt.Fprintf(w, "; without a count: %s", counts(t.noCount))
		}
		fmt.Fprintln(w)
	}
	return nil
}

func maxOr(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return slices.Max(xs)
}

func counts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
