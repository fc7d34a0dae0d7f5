// Command tabulate prints issue 37's real-repository table: per benchmark,
// the change its commit's author published (the first sec/op or time/op
// table of benchstat output in the commit message), and for each rigor ab
// run given (--format json, with --instructions simulate) the time's own
// verdict, the instructions/op change and the final verdict; then, over the
// benchmarks named untouched (-controls), how many each run called
// unchanged.
//
//	go run ./experiments/realrepo/tabulate -author msg.txt -controls PermutationFunction \
//	    quiet=quiet/rigor.json neighbour=neighbour/rigor.json
//
// See experiments/realrepo/run.sh, which makes those files.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tabulate:", err)
		os.Exit(2)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("tabulate", flag.ContinueOnError)
	author := fs.String("author", "", "the commit message holding the author's benchstat table")
	controls := fs.String("controls", "", "comma-separated benchmarks the commit did not reach")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("name at least one LABEL=rigor.json")
	}
	var pub map[string]string
	if *author != "" {
		f, err := os.Open(*author)
		if err != nil {
			return err
		}
		pub, err = parseAuthor(f)
		f.Close()
		if err != nil {
			return err
		}
	}
	var runs []runResult
	for _, a := range fs.Args() {
		label, path, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("%q: want LABEL=rigor.json", a)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		r, err := parseRun(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		r.Label = label
		runs = append(runs, r)
	}
	var ctl []string
	if *controls != "" {
		ctl = strings.Split(*controls, ",")
	}
	return writeTable(w, pub, runs, ctl)
}

// parseAuthor reads the first table of time per op from benchstat output
// in a commit message: benchstat's current form (a header line with
// "sec/op", rows "Name-8  270.8n ± 0%  270.4n ± 0%  ~ (p=0.099 n=10)")
// or the older one ("name old time/op new time/op delta", rows ending
// "-1.80%  (p=0.000 n=10+10)" or "~  (p=...)"). It returns the printed
// change by benchmark name without its -GOMAXPROCS suffix: "-1.80%" or "~".
func parseAuthor(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	in := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !in && (strings.Contains(line, "sec/op") || strings.Contains(line, "time/op")):
			in = true
			continue
		case !in:
			continue
		case line == "" || strings.HasPrefix(line, "│") && len(out) > 0:
			return out, nil // the table ended
		case strings.HasPrefix(line, "│") || strings.HasPrefix(line, "geomean"):
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		name := nameRE.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		change := ""
		for i := len(f) - 1; i > 0; i-- {
			if f[i] == "~" || pctRE.MatchString(f[i]) && !strings.HasPrefix(f[i-1], "±") && f[i-1] != "±" {
				change = f[i]
				break
			}
		}
		if change != "" {
			out[name] = change
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no table of sec/op or time/op found")
	}
	return out, nil
}

var (
	nameRE = regexp.MustCompile(`-\d+$`)
	pctRE  = regexp.MustCompile(`^[+-]?\d+(\.\d+)?%$`)
)

// runResult is what the table needs of one rigor ab --format json.
type runResult struct {
	Label      string
	Benchmarks []benchResult
}

type benchResult struct {
	Name string
	// Verdict, By: the final decision (decisions[0]).
	Verdict, By string
	// Time: the time's own verdict and its change (the metric the clock
	// chose, verdict_metric).
	TimeUnit, TimeVerdict   string
	TimeEst, TimeLo, TimeHi float64
	// Instr: the instructions/op change and its verdict; InstrN the
	// smaller side's count of simulated windows (0: no count).
	InstrVerdict               string
	InstrEst, InstrLo, InstrHi float64
	InstrN                     int
	// InstrSpread is the larger side's range of its counts over its
	// median (max/min - 1), NaN without counts.
	InstrSpread float64
}

type jsonChange struct {
	Estimate, Lo, Hi *float64
	Verdict          string
}

func parseRun(data []byte) (runResult, error) {
	var doc struct {
		SchemaVersion *int `json:"schema_version"`
		Benchmarks    []struct {
			Name      string `json:"name"`
			Verdict   string `json:"verdict"`
			Decisions []struct {
				Verdict, By, Unit string
				TimeVerdict       string `json:"time_verdict"`
			} `json:"decisions"`
			VerdictMetric string `json:"verdict_metric"`
			Metrics       []struct {
				Unit    string        `json:"unit"`
				Changes []*jsonChange `json:"changes"`
				Sides   []struct {
					N        int
					Min, Max *float64
				} `json:"sides"`
			} `json:"metrics"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return runResult{}, err
	}
	if doc.SchemaVersion == nil {
		return runResult{}, errors.New("not rigor's JSON: no schema_version")
	}
	var r runResult
	for _, b := range doc.Benchmarks {
		br := benchResult{Name: b.Name, Verdict: b.Verdict, TimeEst: math.NaN(), TimeLo: math.NaN(), TimeHi: math.NaN(),
			InstrEst: math.NaN(), InstrLo: math.NaN(), InstrHi: math.NaN(), InstrSpread: math.NaN()}
		timeUnit := b.VerdictMetric
		if timeUnit == "" {
			timeUnit = "sec/op"
		}
		if len(b.Decisions) > 0 {
			d := b.Decisions[0]
			br.Verdict, br.By = d.Verdict, d.By
			br.TimeVerdict = d.TimeVerdict
		}
		for _, m := range b.Metrics {
			var c *jsonChange
			if len(m.Changes) > 0 {
				c = m.Changes[0]
			}
			switch m.Unit {
			case timeUnit:
				br.TimeUnit = m.Unit
				if c != nil {
					br.TimeEst, br.TimeLo, br.TimeHi = val(c.Estimate), val(c.Lo), val(c.Hi)
					if br.TimeVerdict == "" {
						br.TimeVerdict = c.Verdict
					}
				}
			case "instructions/op":
				if c != nil {
					br.InstrVerdict = c.Verdict
					br.InstrEst, br.InstrLo, br.InstrHi = val(c.Estimate), val(c.Lo), val(c.Hi)
				}
				br.InstrN = math.MaxInt
				for _, s := range m.Sides {
					br.InstrN = min(br.InstrN, s.N)
					if s.N > 0 && s.Min != nil && s.Max != nil && *s.Min > 0 {
						sp := *s.Max / *s.Min - 1
						if math.IsNaN(br.InstrSpread) || sp > br.InstrSpread {
							br.InstrSpread = sp
						}
					}
				}
				if br.InstrN == math.MaxInt {
					br.InstrN = 0
				}
			}
		}
		if br.TimeVerdict == "" && (br.By == "time" || br.By == "cpu-time") {
			br.TimeVerdict = br.Verdict
		}
		r.Benchmarks = append(r.Benchmarks, br)
	}
	return r, nil
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "?"
	}
	return strconv.FormatFloat(100*x, 'f', 2, 64) + "%"
}

func signed(x float64) string {
	s := pct(x)
	if !math.IsNaN(x) && x >= 0 {
		s = "+" + s
	}
	return s
}

func interval(est, lo, hi float64) string {
	if math.IsNaN(est) {
		return "-"
	}
	return fmt.Sprintf("%s [%s, %s]", signed(est), signed(lo), signed(hi))
}

func writeTable(w io.Writer, pub map[string]string, runs []runResult, controls []string) error {
	isControl := map[string]bool{}
	for _, c := range controls {
		isControl[c] = true
	}
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, b := range r.Benchmarks {
			if !seen[b.Name] {
				seen[b.Name] = true
				names = append(names, b.Name)
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "benchmark\tauthor")
	for _, r := range runs {
		fmt.Fprintf(tw, "\t%s: time\t%s: instructions/op\t%s: final", r.Label, r.Label, r.Label)
	}
	fmt.Fprintln(tw)
	for _, n := range names {
		label := n
		if isControl[n] {
			label += " (untouched)"
		}
		a := pub[n]
		if a == "" {
			a = "-"
		}
		fmt.Fprintf(tw, "%s\t%s", label, a)
		for _, r := range runs {
			b, ok := find(r, n)
			if !ok {
				fmt.Fprint(tw, "\t-\t-\t-")
				continue
			}
			t := b.TimeVerdict
			if !math.IsNaN(b.TimeEst) {
				t += " " + interval(b.TimeEst, b.TimeLo, b.TimeHi)
			}
			in := "no count"
			if b.InstrN > 0 || b.InstrVerdict != "" {
				in = b.InstrVerdict + " " + interval(b.InstrEst, b.InstrLo, b.InstrHi)
				if !math.IsNaN(b.InstrSpread) {
					in += fmt.Sprintf(" n=%d spread %s", b.InstrN, pct(b.InstrSpread))
				}
			}
			final := b.Verdict
			if b.By != "" && b.By != "time" && b.By != "cpu-time" {
				final += " (by " + b.By + ")"
			}
			fmt.Fprintf(tw, "\t%s\t%s\t%s", t, in, final)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, r := range runs {
		counts := map[string]int{}
		byInstr, timeDecided, unchangedCtl, nCtl := 0, 0, 0, 0
		for _, b := range r.Benchmarks {
			counts[b.Verdict]++
			if b.By == "instructions" {
				byInstr++
			}
			if b.TimeVerdict == "improved" || b.TimeVerdict == "regressed" {
				timeDecided++
			}
			if isControl[b.Name] {
				nCtl++
				if b.Verdict == "unchanged" {
					unchangedCtl++
				}
			}
		}
		fmt.Fprintf(w, "%s: %d benchmarks: %d improved, %d regressed, %d unchanged, %d inconclusive; %d decided by instructions; the time alone decided %d",
			r.Label, len(r.Benchmarks), counts["improved"], counts["regressed"], counts["unchanged"], counts["inconclusive"], byInstr, timeDecided)
		if len(controls) > 0 {
			fmt.Fprintf(w, "; untouched unchanged: %d of %d", unchangedCtl, nCtl)
		}
		fmt.Fprintln(w)
	}
	return nil
}

func find(r runResult, name string) (benchResult, bool) {
	for _, b := range r.Benchmarks {
		if b.Name == name {
			return b, true
		}
	}
	return benchResult{}, false
}
