package main

import (
	"cmp"
	"encoding/json"
	"errors"
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

// condLabels names each condition a trial can run: aa, and the build tags
// of cpubench's new sides (1%, 3%, 5%, 10% more work).
var condLabels = map[string]string{condAA: "A/A", "plus1": "+1%", condPlus3: "+3%", "plus5": "+5%", "plus10": "+10%"}

// condOrder orders the conditions in the table.
var condOrder = map[string]int{condAA: 0, "plus1": 1, condPlus3: 2, "plus5": 3, "plus10": 4}

// condTag is the build tag of a condition's new side; "" for A/A.
func condTag(cond string) string {
	if cond == condAA {
		return ""
	}
	return cond
}

// toolSamples is the tool of benchstat's comparison of a rigor run's own
// samples (its old.txt and new.txt).
const toolSamples = "benchstat-samples"

// record is one run of one tool in one condition of one trial, as written
// to results.jsonl.
type record struct {
	Env        string  `json:"env"`       // quiet or neighbour
	Trial      int     `json:"trial"`     // from 1
	Cond       string  `json:"condition"` // aa, plus1, plus3, plus5 or plus10
	Tool       string  `json:"tool"`      // rigor, benchstat or benchstat-samples
	WallSec    float64 `json:"wall_sec"`  // the tool's whole run, builds included for rigor
	SessionSec float64 `json:"session_sec,omitempty"`
	// Load1 is the machine's 1-minute load average as the run started
	// (/proc/loadavg); 0 where it cannot be read.
	Load1  float64 `json:"load1,omitempty"`
	Rounds int     `json:"rounds"`
	// Exit is rigor's exit status: 1 when its gate failed
	// (--max-regression in -extra-args), else 0.
	Exit int `json:"exit,omitempty"`
	// Verdicts by method: for rigor "sec/op", the CPU-time unit if
	// reported, "verdict metric" when the benchmark names the metric
	// its verdict is taken from, and when rigor reports them (issue 37)
	// "decision" (the benchmark's one verdict), "decision by
	// instructions" (the same, only when the instructions per op made
	// it), "time verdict" (the time's own verdict beside it) and
	// "instructions/op" (that metric's own verdict); for benchstat
	// "sec/op" and the CPU-time unit if reported. Values are rigor's
	// verdicts, or for benchstat "regressed", "improved" or "~".
	Verdicts map[string]string `json:"verdicts,omitempty"`
	// Changes by method, fractions; absent when there is none.
	Changes      map[string]float64 `json:"changes,omitempty"`
	HeadlineUnit string             `json:"headline_unit,omitempty"` // the unit named by HeadlineField
	HeadlineFrom string             `json:"headline_field,omitempty"`
	ClockReason  string             `json:"clock_reason,omitempty"` // rigor's clock.reason
	// Decision is rigor's decision as it wrote it (decisions[0]): the
	// verdict, the unit and why (by), the time's own verdict when the
	// instructions decided; nil when rigor wrote none.
	Decision *decisionRecord `json:"decision,omitempty"`
	// Instructions is the instructions/op metric's change against the
	// new side; nil when rigor did not compare instruction counts.
	Instructions *changeRecord `json:"instructions,omitempty"`
	Error        string        `json:"error,omitempty"`
	Dir          string        `json:"dir"` // where its files are, relative to the output directory
}

// decisionRecord is a rigor decision in results.jsonl.
type decisionRecord struct {
	By           string `json:"by,omitempty"`
	Unit         string `json:"unit,omitempty"`
	TimeVerdict  string `json:"time_verdict,omitempty"`
	changeRecord        // the verdict and the deciding metric's change
}

// changeRecord is a change in results.jsonl: fractions, absent when
// rigor gave none (JSON has no NaN).
type changeRecord struct {
	Verdict  string   `json:"verdict,omitempty"`
	Estimate *float64 `json:"estimate,omitempty"`
	Lo       *float64 `json:"lo,omitempty"`
	Hi       *float64 `json:"hi,omitempty"`
}

func newChangeRecord(verdict string, estimate, lo, hi float64) changeRecord {
	num := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	return changeRecord{Verdict: verdict, Estimate: num(estimate), Lo: num(lo), Hi: num(hi)}
}

// readRecords reads a results.jsonl.
func readRecords(rd io.Reader) ([]record, error) {
	var recs []record
	dec := json.NewDecoder(rd)
	for {
		var r record
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("results.jsonl, record %d: %w", len(recs)+1, err)
		}
		if _, ok := condLabels[r.Cond]; !ok {
			return nil, fmt.Errorf("results.jsonl, record %d: unknown condition %q", len(recs)+1, r.Cond)
		}
		recs = append(recs, r)
	}
}

// methodHeadline is the method of a rigor record whose verdict comes from
// the metric the benchmark names as its verdict's.
const methodHeadline = "verdict metric"

// Methods of a rigor record read from its decision (issue 37).
const (
	// methodDecision: the benchmark's one verdict, whatever decided it.
	methodDecision = "decision"
	// methodByInstructions: the decision, only where the instructions
	// per op made it (by "instructions"); a record without it is no
	// error, only not counted.
	methodByInstructions = "decision by instructions"
	// methodTime: the time's own verdict: time_verdict where the
	// instructions decided, else the decision's where the time did,
	// else the verdict metric's.
	methodTime = "time verdict"
)

// byInstructions is the decision's by where the instructions decided.
const byInstructions = "instructions"

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
	if m, ok := rd.metric(instructionsUnit); ok {
		add(instructionsUnit, m)
		c := newChangeRecord(m.Verdict, m.Change, m.Lo, m.Hi)
		r.Instructions = &c
	}
	if d := rd.Decision; d != nil {
		r.Decision = &decisionRecord{By: d.By, Unit: d.Unit, TimeVerdict: d.TimeVerdict,
			changeRecord: newChangeRecord(d.Verdict, d.Estimate, d.Lo, d.Hi)}
		add(methodDecision, metricReading{Verdict: d.Verdict, Change: d.Estimate})
		if d.By == byInstructions {
			add(methodByInstructions, metricReading{Verdict: d.Verdict, Change: d.Estimate})
		}
		switch {
		case d.TimeVerdict != "":
			// The time metric's own change, where it is known.
			m, ok := rd.metric(rd.HeadlineUnit)
			if !ok {
				m, _ = rd.metric("sec/op")
			}
			add(methodTime, metricReading{Verdict: d.TimeVerdict, Change: m.Change})
		case d.By == "time" || d.By == "cpu-time" || d.By == "":
			add(methodTime, metricReading{Verdict: d.Verdict, Change: d.Estimate})
		case rd.HeadlineUnit != "":
			m, _ := rd.metric(rd.HeadlineUnit)
			add(methodTime, m)
		}
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
	byUnit := map[string]*bsRow{}
	for i := range rows {
		u := rows[i].Unit
		if u != "sec/op" && !(strings.HasPrefix(u, "cpu") && strings.HasSuffix(u, "sec/op")) {
			continue
		}
		if row := byUnit[u]; row != nil {
			return fmt.Errorf("benchstat compared more than one benchmark (%s, %s)", row.Name, rows[i].Name)
		}
		byUnit[u] = &rows[i]
	}
	if byUnit["sec/op"] == nil {
		return fmt.Errorf("benchstat reported no sec/op")
	}
	r.Verdicts, r.Changes = map[string]string{}, map[string]float64{}
	for u, row := range byUnit {
		v := "~"
		switch {
		case row.significant(benchstatAlpha) && row.Delta > 0:
			v = "regressed"
		case row.significant(benchstatAlpha) && row.Delta < 0:
			v = "improved"
		}
		r.Verdicts[u] = v
		if !math.IsNaN(row.Delta) {
			r.Changes[u] = row.Delta
		}
	}
	r.Rounds = byUnit["sec/op"].N
	return nil
}

// summary is one row of the table: one method in one condition of one
// environment.
type summary struct {
	Env, Tool, Method, Cond string
	Runs                    int // records of this tool in this condition
	Regressed, Improved     int // verdicts: on A/A both are false alarms
	Unchanged               int // verdicts unchanged (rigor's; benchstat never says it)
	Gate                    int // rigor runs that exited 1 (the gate failed); 0 for benchstat
	Errors                  int // runs that failed or lack this method's verdict
	// Medians over the runs that did not fail; NaN when there are none
	// (Session also when no run recorded one, Change when no run had one).
	Change, Wall, Session, Rounds float64
	Load1                         float64        // median over all runs with a reading; NaN when none
	HeadlineUnits                 map[string]int // for the verdict-metric method: units used, counted
}

// FalseAlarms is the count of a change called on A/A; 0 in another condition.
func (s summary) FalseAlarms() int {
	if s.Cond != condAA {
		return 0
	}
	return s.Regressed + s.Improved
}

// tally summarises records per environment, condition and method: a
// method appears when at least one record has it (rigor's sec/op and
// benchstat's always).
func tally(recs []record) []summary {
	type key struct{ env, tool, method, cond string }
	methods := map[key]bool{}
	for _, r := range recs {
		methods[key{r.Env, r.Tool, "sec/op", r.Cond}] = true
		for m := range r.Verdicts {
			methods[key{r.Env, r.Tool, m, r.Cond}] = true
			if m == methodDecision {
				// Its row by instructions, also where they decided none.
				methods[key{r.Env, r.Tool, methodByInstructions, r.Cond}] = true
			}
		}
	}
	var out []summary
	for k := range methods {
		s := summary{Env: k.env, Tool: k.tool, Method: k.method, Cond: k.cond, HeadlineUnits: map[string]int{}}
		var change, wall, session, rounds, load []float64
		for _, r := range recs {
			if r.Env != k.env || r.Tool != k.tool || r.Cond != k.cond {
				continue
			}
			s.Runs++
			if r.Load1 > 0 {
				load = append(load, r.Load1)
			}
			if r.Tool == "rigor" && r.Exit == 1 {
				s.Gate++
			}
			if r.Error == "" {
				wall = append(wall, r.WallSec)
				rounds = append(rounds, float64(r.Rounds))
				if r.SessionSec > 0 {
					session = append(session, r.SessionSec)
				}
			}
			v, ok := r.Verdicts[k.method]
			if r.Error != "" || !ok {
				// A decision not made by the instructions is no
				// failure of that row: it is only not counted.
				if r.Error != "" || k.method != methodByInstructions {
					s.Errors++
				}
				continue
			}
			if c, ok := r.Changes[k.method]; ok {
				change = append(change, c)
			}
			if k.method == methodHeadline {
				s.HeadlineUnits[r.HeadlineUnit]++
			}
			switch v {
			case "regressed":
				s.Regressed++
			case "improved":
				s.Improved++
			case "unchanged":
				s.Unchanged++
			}
		}
		s.Change, s.Wall, s.Session, s.Rounds, s.Load1 = median(change), median(wall), median(session), median(rounds), median(load)
		out = append(out, s)
	}
	envOrder := map[string]int{"quiet": 0, "neighbour": 1}
	methodOrder := func(s summary) int {
		switch {
		case s.Tool == "benchstat":
			return 8
		case s.Tool == toolSamples:
			return 7
		case s.Method == methodDecision:
			return 0
		case s.Method == methodByInstructions:
			return 1
		case s.Method == methodTime:
			return 2
		case s.Method == instructionsUnit:
			return 3
		case s.Method == "sec/op":
			return 4
		case s.Method == methodHeadline:
			return 6
		}
		return 5
	}
	slices.SortFunc(out, func(a, b summary) int {
		return cmp.Or(
			cmp.Compare(envOrder[a.Env], envOrder[b.Env]),
			cmp.Compare(condOrder[a.Cond], condOrder[b.Cond]),
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
	fmt.Fprintln(tw, "env\tcondition\tmethod\truns\tregressed\timproved\tunchanged\tgate exit 1\terrors\tmedian change\tmedian rounds\tmedian wall\tmedian session\tmedian load1")
	for _, s := range sums {
		tool := s.Tool
		if tool == toolSamples {
			tool = "benchstat (rigor's samples)"
		}
		method := tool + " " + s.Method
		if s.Method == methodHeadline && len(s.HeadlineUnits) > 0 {
			var parts []string
			for _, u := range slices.Sorted(maps.Keys(s.HeadlineUnits)) {
				parts = append(parts, fmt.Sprintf("%s %d", u, s.HeadlineUnits[u]))
			}
			method += " (" + strings.Join(parts, ", ") + ")"
		}
		gate := "-"
		if s.Tool == "rigor" {
			gate = fmt.Sprintf("%d/%d", s.Gate, s.Runs)
		}
		wall, session := seconds(s.Wall), seconds(s.Session)
		if s.Tool == toolSamples {
			wall, session = "-", "-" // no run of its own
		}
		unchanged := fmt.Sprintf("%d/%d", s.Unchanged, s.Runs)
		if s.Tool != "rigor" {
			unchanged = "-" // benchstat has no verdict unchanged
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d/%d\t%d/%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n",
			s.Env, condLabels[s.Cond], method, s.Runs, s.Regressed, s.Runs, s.Improved, s.Runs, unchanged, gate,
			s.Errors, percent(s.Change), number(s.Rounds), wall, session, load1(s.Load1))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, `
On A/A, regressed and improved are false alarms; on +1%, +3%, +5%, +10% regressed is
found and improved the wrong sign. rigor decision: the benchmark's one verdict
(decisions[0]); rigor decision by instructions: the same, counted only where the
instructions per op decided it (the time inconclusive); rigor time verdict: the time's
own verdict beside it; rigor instructions/op: that metric's own verdict (its change
against a tolerance of a count). gate exit 1: rigor runs that exited 1, the gate failing
(--max-regression in -extra-args; the run's exit, the same on each rigor row).
errors: runs that failed or lack this method's verdict (counted as neither).
Medians are over the runs that did not fail. change: the method's estimate (rigor's
Hodges-Lehmann, benchstat's printed change where significant); wall: the tool's whole
run (rigor's builds included, cached); session: rigor's run.json start to end, or
benchstat's two test-binary runs; rounds: rigor's pairs, or benchstat's n; load1: the
1-minute load average as each run started (a "quiet" series on a loaded machine is not quiet).
benchstat: sequential runs, old then new; benchstat (rigor's samples): benchstat on the
rigor run's own old.txt and new.txt; found/alarm when p <= 0.05 (its printed change).
`)
	return err
}

func percent(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%+.2f%%", 100*x)
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
