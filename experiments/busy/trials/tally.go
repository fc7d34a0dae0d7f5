package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

// Conditions of a trial.
const (
	condAA    = "aa"    // both sides the same build: any detection is a false alarm
	condPlus3 = "plus3" // the new side does 3% more work: regressed is a detection
)

// record is one run of one tool in one condition of one trial, as written
// to results.jsonl.
type record struct {
	Env        string  `json:"env"`       // quiet or neighbour
	Trial      int     `json:"trial"`     // from 1
	Cond       string  `json:"condition"` // aa or plus3
	Tool       string  `json:"tool"`      // rigor or benchstat
	WallSec    float64 `json:"wall_sec"`  // the tool's whole run, builds included for rigor
	SessionSec float64 `json:"session_sec,omitempty"`
	// Load1 is the machine's 1-minute load average as the run started
	// (/proc/loadavg); 0 where it cannot be read.
	Load1  float64 `json:"load1,omitempty"`
	Rounds int     `json:"rounds"`
	// Verdicts by method: for rigor "sec/op", the CPU-time unit if
	// reported, and "verdict metric" when the benchmark names the metric
	// its verdict is taken from; for benchstat "sec/op". Values are rigor's
	// verdicts, or for benchstat "regressed", "improved" or "~".
	Verdicts map[string]string `json:"verdicts,omitempty"`
	// Changes by method, fractions; absent when there is none.
	Changes      map[string]float64 `json:"changes,omitempty"`
	HeadlineUnit string             `json:"headline_unit,omitempty"` // the unit named by HeadlineField
	HeadlineFrom string             `json:"headline_field,omitempty"`
	ClockReason  string             `json:"clock_reason,omitempty"` // rigor's clock.reason
	Error        string             `json:"error,omitempty"`
	Dir          string             `json:"dir"` // where its files are, relative to the output directory
}

// methodHeadline is the method of a rigor record whose verdict comes from
// the metric the benchmark names as its verdict's.
const methodHeadline = "verdict metric"

// fromRigor fills r's verdicts from rigor's reading.
func (r *record) fromRigor(rd rigorReading) error {
	sec, ok := rd.metric("sec/op")
	if !ok {
		return fmt.Errorf("rigor reported no sec/op")
	}
	r.Verdicts, r.Changes = map[string]string{}, map[string]float64{}
	add := func(method string, m metricReading) {
		r.Verdicts[method] = m.Verdict
		if !math.IsNaN(m.Change) {
			r.Changes[method] = m.Change
		}
	}
	add("sec/op", sec)
	r.Rounds = sec.Rounds
	r.ClockReason = rd.ClockReason
	if u := rd.cpuUnit(); u != "" {
		m, _ := rd.metric(u)
		add(u, m)
	}
	if rd.HeadlineUnit != "" {
		m, _ := rd.metric(rd.HeadlineUnit)
		add(methodHeadline, m)
		r.HeadlineUnit, r.HeadlineFrom = rd.HeadlineUnit, rd.HeadlineField
	}
	return nil
}

// benchstatAlpha is benchstat's default significance level, which the
// trials do not change.
const benchstatAlpha = 0.05

// fromBenchstat fills r's verdict from benchstat's sec/op row: a
// significant increase of time per op is "regressed", a decrease
// "improved", anything else "~".
func (r *record) fromBenchstat(rows []bsRow) error {
	var row *bsRow
	for i := range rows {
		if rows[i].Unit != "sec/op" {
			continue
		}
		if row != nil {
			return fmt.Errorf("benchstat compared more than one benchmark (%s, %s)", row.Name, rows[i].Name)
		}
		row = &rows[i]
	}
	if row == nil {
		return fmt.Errorf("benchstat reported no sec/op")
	}
	v := "~"
	switch {
	case row.significant(benchstatAlpha) && row.Delta > 0:
		v = "regressed"
	case row.significant(benchstatAlpha) && row.Delta < 0:
		v = "improved"
	}
	r.Verdicts = map[string]string{"sec/op": v}
	if !math.IsNaN(row.Delta) {
		r.Changes = map[string]float64{"sec/op": row.Delta}
	}
	r.Rounds = row.N
	return nil
}

// summary is one row of the table: one method in one environment.
type summary struct {
	Env, Tool, Method string
	Trials            int // distinct trials with a record of this tool
	AA, Plus3         int // records per condition
	FalseAlarms       int // improved or regressed on A/A
	Found             int // regressed on +3%
	WrongSign         int // improved on +3%
	Errors            int // runs that failed or lack this method's verdict
	// Medians over the runs that did not fail; NaN when there are none
	// (Session also when no run recorded one).
	Wall, Session, Rounds float64
	Load1                 float64        // median over all runs with a reading; NaN when none
	HeadlineUnits         map[string]int // for the verdict-metric method: units used, counted
}

// tally summarises records per environment and method: a method appears
// when at least one record has it (rigor's sec/op and benchstat's always).
func tally(recs []record) []summary {
	type key struct{ env, tool, method string }
	methods := map[key]bool{}
	for _, r := range recs {
		methods[key{r.Env, r.Tool, "sec/op"}] = true
		for m := range r.Verdicts {
			methods[key{r.Env, r.Tool, m}] = true
		}
	}
	var out []summary
	for k := range methods {
		s := summary{Env: k.env, Tool: k.tool, Method: k.method, HeadlineUnits: map[string]int{}}
		trials := map[int]bool{}
		var wall, session, rounds, load []float64
		for _, r := range recs {
			if r.Env != k.env || r.Tool != k.tool {
				continue
			}
			trials[r.Trial] = true
			if r.Load1 > 0 {
				load = append(load, r.Load1)
			}
			if r.Error == "" {
				wall = append(wall, r.WallSec)
				rounds = append(rounds, float64(r.Rounds))
				if r.SessionSec > 0 {
					session = append(session, r.SessionSec)
				}
			}
			switch r.Cond {
			case condAA:
				s.AA++
			case condPlus3:
				s.Plus3++
			}
			v, ok := r.Verdicts[k.method]
			if r.Error != "" || !ok {
				s.Errors++
				continue
			}
			if k.method == methodHeadline {
				s.HeadlineUnits[r.HeadlineUnit]++
			}
			switch {
			case r.Cond == condAA && (v == "improved" || v == "regressed"):
				s.FalseAlarms++
			case r.Cond == condPlus3 && v == "regressed":
				s.Found++
			case r.Cond == condPlus3 && v == "improved":
				s.WrongSign++
			}
		}
		s.Trials = len(trials)
		s.Wall, s.Session, s.Rounds, s.Load1 = median(wall), median(session), median(rounds), median(load)
		out = append(out, s)
	}
	envOrder := map[string]int{"quiet": 0, "neighbour": 1}
	methodOrder := func(s summary) int {
		switch {
		case s.Tool == "benchstat":
			return 3
		case s.Method == "sec/op":
			return 0
		case s.Method == methodHeadline:
			return 2
		}
		return 1
	}
	slices.SortFunc(out, func(a, b summary) int {
		return cmp.Or(
			cmp.Compare(envOrder[a.Env], envOrder[b.Env]),
			cmp.Compare(methodOrder(a), methodOrder(b)),
			strings.Compare(a.Method, b.Method))
	})
	return out
}

// median of xs; NaN when empty.
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

// writeTable prints the summaries as an aligned table with a legend.
func writeTable(w io.Writer, sums []summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "env\tmethod\ttrials\tA/A false alarms\t+3% found\t+3% wrong sign\terrors\tmedian wall\tmedian session\tmedian rounds\tmedian load1")
	for _, s := range sums {
		method := s.Tool + " " + s.Method
		if s.Method == methodHeadline && len(s.HeadlineUnits) > 0 {
			var parts []string
			for _, u := range slices.Sorted(maps.Keys(s.HeadlineUnits)) {
				parts = append(parts, fmt.Sprintf("%s %d", u, s.HeadlineUnits[u]))
			}
			method += " (" + strings.Join(parts, ", ") + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d/%d\t%d/%d\t%d/%d\t%d\t%s\t%s\t%s\t%s\n",
			s.Env, method, s.Trials, s.FalseAlarms, s.AA, s.Found, s.Plus3, s.WrongSign, s.Plus3,
			s.Errors, seconds(s.Wall), seconds(s.Session), number(s.Rounds), load1(s.Load1))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, `
A/A false alarms: improved or regressed on A/A. +3% found: regressed on +3%.
errors: runs that failed or lack this method's verdict (counted as neither).
Medians are over the runs that did not fail. wall: the tool's whole run (rigor's
builds included, cached); session: rigor's run.json start to end, or benchstat's two
test-binary runs; rounds: rigor's pairs, or benchstat's -count; load1: the 1-minute load
average as each run started (a "quiet" series on a loaded machine is not quiet).
benchstat: sequential runs, old then new; found/alarm when p <= 0.05 (its printed change).
`)
	return err
}

func seconds(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.2fs", x)
}

func number(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%g", x)
}

func load1(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.1f", x)
}
