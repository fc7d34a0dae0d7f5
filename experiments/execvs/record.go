package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Parts of the experiment, as results.jsonl names them.
const (
	partSides    = "side-by-side"
	partOverhead = "overhead"
	partAA       = "aa"
)

var nan = math.NaN()

// num is a float64 that JSON writes as null when it is NaN or infinite
// (encoding/json refuses those) and reads back from null as NaN.
type num float64

func (x num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

func (x *num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*x = num(nan)
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", b)
	}
	*x = num(f)
	return nil
}

// cmdStat is one command as one tool measured it (wall time, seconds).
type cmdStat struct {
	Command string `json:"command"`
	// Label is rigor's name for it ("true (2)" for a second "true").
	Label  string `json:"label,omitempty"`
	N      int    `json:"n"`
	Median num    `json:"median"`
	// Lo and Hi bound the median's confidence interval (rigor's, or for
	// hyperfine computed from its times by the same method); null when
	// there were too few runs.
	Lo num `json:"lo"`
	Hi num `json:"hi"`
	// Mean and Stddev: hyperfine's (rigor's mean; no stddev).
	Mean   num `json:"mean"`
	Stddev num `json:"stddev"`
	// CPUPerRun is the command's mean user plus system time per run as the
	// tool reported it (rigor's cpu-sec/op mean, hyperfine's user+system).
	CPUPerRun num `json:"cpu_per_run"`
	// Times is the wall time of every timed run (part 4 only, where the
	// chunks are pooled).
	Times []float64 `json:"times,omitempty"`
}

// record is one run of one tool: results.jsonl holds one per line.
type record struct {
	Part  string `json:"part"`
	Env   string `json:"env,omitempty"`
	Pair  string `json:"pair"`
	Trial int    `json:"trial"`
	// Chunk numbers part 4's chunks within a trial, from 1.
	Chunk int    `json:"chunk,omitempty"`
	Tool  string `json:"tool"`
	// Dir is the path of its files relative to -out, without extension.
	Dir   string   `json:"files"`
	Args  []string `json:"args"`
	Load1 num      `json:"load1"`
	// The tool's cost measured from outside (runner.go's toolRun).
	WallSec     num `json:"wall_sec"`
	TotalCPUSec num `json:"total_cpu_sec"`
	OwnCPUSec   num `json:"own_cpu_sec"`
	ChildCPUSec num `json:"child_cpu_sec"`
	// Runs is the timed runs per command (the fewest of any command);
	// Warmup the untimed ones before them.
	Runs     int       `json:"runs"`
	Warmup   int       `json:"warmup"`
	Commands []cmdStat `json:"commands"`
	// rigor, two commands: the second against the first.
	Verdict       string `json:"verdict,omitempty"`
	VerdictMetric string `json:"verdict_metric,omitempty"`
	// WallChange is rigor's new/old - 1 of wall time with its interval.
	WallChange   num `json:"wall_change"`
	WallChangeLo num `json:"wall_change_lo"`
	WallChangeHi num `json:"wall_change_hi"`
	// hyperfine, two commands: new/old of the means with hyperfine's σ,
	// the index of the command it calls fastest (-1: none), and whether
	// the ratio is clear of its ±σ.
	Ratio        num    `json:"hf_ratio"`
	Sigma        num    `json:"hf_sigma"`
	Fastest      int    `json:"hf_fastest"`
	ClearOfSigma bool   `json:"hf_clear_of_sigma"`
	Error        string `json:"error,omitempty"`
}

// newRecord is a record with every number unknown (NaN) until measured.
func newRecord(part, env, pair string, trial int) record {
	return record{Part: part, Env: env, Pair: pair, Trial: trial,
		Load1: num(nan), WallSec: num(nan), TotalCPUSec: num(nan), OwnCPUSec: num(nan), ChildCPUSec: num(nan),
		WallChange: num(nan), WallChangeLo: num(nan), WallChangeHi: num(nan), Ratio: num(nan), Sigma: num(nan), Fastest: -1}
}

// setCost copies a tool run's cost into r.
func (r *record) setCost(tr toolRun) {
	r.WallSec, r.TotalCPUSec, r.OwnCPUSec, r.ChildCPUSec = num(tr.WallSec), num(tr.TotalCPUSec), num(tr.OwnCPUSec), num(tr.ChildCPUSec)
}

// fromRigor fills r from rigor's reading of the commands cmds.
func (r *record) fromRigor(x rigorExec, cmds []string) error {
	if len(x.Sides) != len(cmds) {
		return fmt.Errorf("rigor reported %d commands, want %d", len(x.Sides), len(cmds))
	}
	wall, _ := x.metric("sec/op")
	cpu, hasCPU := x.metric("cpu-sec/op")
	r.Commands, r.Runs = nil, 0
	for i, label := range x.Sides {
		s, ok := wall.side(label)
		if !ok {
			return fmt.Errorf("rigor's JSON has no wall time of %q", label)
		}
		c := cmdStat{Command: cmds[i], Label: label, N: s.N, Median: num(s.Median), Lo: num(s.Lo), Hi: num(s.Hi),
			Mean: num(s.Mean), Stddev: num(nan), CPUPerRun: num(nan)}
		if cs, ok := cpu.side(label); hasCPU && ok {
			c.CPUPerRun = num(cs.Mean)
		}
		r.Commands = append(r.Commands, c)
		if i == 0 || s.N < r.Runs {
			r.Runs = s.N
		}
	}
	r.WallChange, r.WallChangeLo, r.WallChangeHi = num(nan), num(nan), num(nan)
	if len(cmds) != 2 {
		return nil
	}
	vm, _ := x.metric(x.VerdictMetric)
	ch, ok := vm.change(x.Sides[1])
	if !ok {
		return fmt.Errorf("rigor's JSON has no verdict of %q against %q", x.Sides[1], x.Sides[0])
	}
	r.Verdict, r.VerdictMetric = ch.Verdict, x.VerdictMetric
	wc, ok := wall.change(x.Sides[1])
	if !ok {
		return errors.New("rigor's JSON has no change of wall time")
	}
	r.WallChange, r.WallChangeLo, r.WallChangeHi = num(wc.Estimate), num(wc.Lo), num(wc.Hi)
	return nil
}

// fromHyperfine fills r from hyperfine's results for the commands cmds.
func (r *record) fromHyperfine(hf []hfResult, cmds []string) error {
	if len(hf) != len(cmds) {
		return fmt.Errorf("hyperfine reported %d commands, want %d", len(hf), len(cmds))
	}
	r.Commands, r.Runs = nil, 0
	for i, h := range hf {
		if h.Command != cmds[i] {
			return fmt.Errorf("hyperfine's result %d is of %q, want %q", i+1, h.Command, cmds[i])
		}
		iv := medianCI(h.Times)
		r.Commands = append(r.Commands, cmdStat{Command: h.Command, N: len(h.Times), Median: num(h.Median),
			Lo: num(iv.Lo), Hi: num(iv.Hi), Mean: num(h.Mean), Stddev: num(h.Stddev), CPUPerRun: num(h.User + h.System)})
		if r.Part == partInterleaved {
			r.Commands[i].Times = h.Times
		}
		if i == 0 || len(h.Times) < r.Runs {
			r.Runs = len(h.Times)
		}
	}
	r.Ratio, r.Sigma, r.Fastest = num(nan), num(nan), hfFastest(hf)
	if len(hf) == 2 {
		ratio, sigma := hfRatio(hf[0], hf[1])
		r.Ratio, r.Sigma, r.ClearOfSigma = num(ratio), num(sigma), hfClearOfSigma(hf[0], hf[1])
	}
	return nil
}

// brief is a record in a few words, for the progress line.
func brief(r record) string {
	if r.Error != "" {
		return fmt.Sprintf("%s failed: %s", r.Tool, r.Error)
	}
	s := fmt.Sprintf("%s %d runs", r.Tool, r.Runs)
	switch {
	case r.Verdict != "":
		s += fmt.Sprintf(" %s (%s) x%.4f", r.Verdict, r.VerdictMetric, 1+float64(r.WallChange))
	case !math.IsNaN(float64(r.Ratio)):
		s += fmt.Sprintf(" x%.4f ± %.4f, fastest #%d", float64(r.Ratio), float64(r.Sigma), r.Fastest+1)
	}
	return s + fmt.Sprintf(" in %.1fs", float64(r.WallSec))
}
