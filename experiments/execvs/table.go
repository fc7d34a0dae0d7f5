package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/rigorbench/rigor/stats"
)

// sideRow is one command of one pair in one trial of part 1, as both
// tools measured it.
type sideRow struct {
	Pair    string
	Trial   int
	Command string
	Rigor   cmdStat
	HF      cmdStat
	// RigorInHF: rigor's median lies in hyperfine's interval;
	// HFInRigor: hyperfine's median lies in rigor's.
	RigorInHF, HFInRigor bool
}

// pairRun is one pair in one trial of part 1 (or one command against
// itself in part 3): the record of each tool; a missing one is the zero
// record with Error set.
type pairRun struct {
	Env, Pair   string
	Trial       int
	Rigor, HF   record
	hasR, hasHF bool
}

// pairRuns groups the records of part into pairs of runs, in the order
// they were made.
func pairRuns(recs []record, part string) []pairRun {
	var out []pairRun
	index := map[string]int{}
	for _, r := range recs {
		if r.Part != part {
			continue
		}
		key := fmt.Sprintf("%s\x00%s\x00%d", r.Env, r.Pair, r.Trial)
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, pairRun{Env: r.Env, Pair: r.Pair, Trial: r.Trial})
		}
		switch r.Tool {
		case "rigor":
			out[i].Rigor, out[i].hasR = r, true
		case "hyperfine":
			out[i].HF, out[i].hasHF = r, true
		}
	}
	return out
}

// ok reports whether both tools ran and measured the same commands.
func (p pairRun) ok() bool {
	if !p.hasR || !p.hasHF || p.Rigor.Error != "" || p.HF.Error != "" || len(p.Rigor.Commands) != len(p.HF.Commands) {
		return false
	}
	for i := range p.Rigor.Commands {
		if p.Rigor.Commands[i].Command != p.HF.Commands[i].Command {
			return false
		}
	}
	return true
}

// sideRows compares the tools' medians command by command, for the pairs
// in which both tools ran.
func sideRows(pairs []pairRun) []sideRow {
	var rows []sideRow
	for _, p := range pairs {
		if !p.ok() {
			continue
		}
		for i, rc := range p.Rigor.Commands {
			hc := p.HF.Commands[i]
			rows = append(rows, sideRow{Pair: p.Pair, Trial: p.Trial, Command: rc.Command, Rigor: rc, HF: hc,
				RigorInHF: within(float64(rc.Median), float64(hc.Lo), float64(hc.Hi)),
				HFInRigor: within(float64(hc.Median), float64(rc.Lo), float64(rc.Hi))})
		}
	}
	return rows
}

// overheadRow is one tool's run of part 2, per run.
type overheadRow struct {
	Tool  string
	Trial int
	// Runs counts the timed and the warm-up runs.
	Runs int
	// Reported is the median wall time of `true` the tool reported.
	Reported float64
	// WallPerRun is the tool's whole wall time over Runs; OwnCPUPerRun its
	// own CPU time (/proc); OutsidePerRun its total CPU time (wait4) less
	// the commands' CPU time as the tool reported it; CmdCPUPerRun that.
	WallPerRun, OwnCPUPerRun, OutsidePerRun, CmdCPUPerRun float64
	WallSec, Load1                                        float64
	Error                                                 string
}

func overheadRowOf(r record) overheadRow {
	o := overheadRow{Tool: r.Tool, Trial: r.Trial, Runs: r.Runs + r.Warmup, Reported: nan,
		WallPerRun: nan, OwnCPUPerRun: nan, OutsidePerRun: nan, CmdCPUPerRun: nan,
		WallSec: float64(r.WallSec), Load1: float64(r.Load1), Error: r.Error}
	if r.Error != "" || len(r.Commands) != 1 || o.Runs < 1 {
		if o.Error == "" {
			o.Error = "not one command"
		}
		return o
	}
	n := float64(o.Runs)
	c := r.Commands[0]
	o.Reported, o.CmdCPUPerRun = float64(c.Median), float64(c.CPUPerRun)
	o.WallPerRun = float64(r.WallSec) / n
	o.OwnCPUPerRun = float64(r.OwnCPUSec) / n
	o.OutsidePerRun = float64(r.TotalCPUSec)/n - o.CmdCPUPerRun
	return o
}

// aaCount tallies part 3 for one environment, command and tool.
type aaCount struct {
	Env, Command, Tool string
	Trials, Errors     int
	// rigor: verdicts by name, and how often CPU time decided.
	Verdicts map[string]int
	CPUClock int
	// hyperfine: how often it called the first or the second command the
	// faster, and how often its ratio was clear of its ±σ.
	FirstFaster, SecondFaster, ClearOfSigma int
	// Walls, Runs and PerRun of the runs that did not fail: the tool's
	// wall time, its timed runs per command, and its wall time over all
	// its runs (timed and warm-up, of both commands).
	Walls, Runs, PerRun []float64
}

// medianOf is the median of x, NaN when x is empty.
func medianOf(x []float64) float64 {
	if len(x) == 0 {
		return nan
	}
	return stats.Median(x)
}

// aaCounts tallies part 3 in the order the runs were made.
func aaCounts(recs []record) []*aaCount {
	var out []*aaCount
	index := map[string]*aaCount{}
	for _, r := range recs {
		if r.Part != partAA {
			continue
		}
		key := r.Env + "\x00" + r.Pair + "\x00" + r.Tool
		c := index[key]
		if c == nil {
			c = &aaCount{Env: r.Env, Command: r.Pair, Tool: r.Tool, Verdicts: map[string]int{}}
			index[key] = c
			out = append(out, c)
		}
		c.Trials++
		if r.Error == "" {
			c.Walls = append(c.Walls, float64(r.WallSec))
			c.Runs = append(c.Runs, float64(r.Runs))
			c.PerRun = append(c.PerRun, float64(r.WallSec)/float64(len(r.Commands)*(r.Runs+r.Warmup)))
		}
		switch {
		case r.Error != "":
			c.Errors++
		case r.Tool == "rigor":
			c.Verdicts[r.Verdict]++
			if r.VerdictMetric != "sec/op" {
				c.CPUClock++
			}
		case r.Tool == "hyperfine":
			switch r.Fastest {
			case 0:
				c.FirstFaster++
			case 1:
				c.SecondFaster++
			}
			if r.ClearOfSigma {
				c.ClearOfSigma++
			}
		}
	}
	return out
}

// writeTables writes one table per part that has records.
func writeTables(w io.Writer, recs []record) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var parts []string
	if pairs := pairRuns(recs, partSides); len(pairs) > 0 {
		parts = append(parts, "1")
		writeSides(tw, pairs)
	}
	var oh []overheadRow
	for _, r := range recs {
		if r.Part == partOverhead {
			oh = append(oh, overheadRowOf(r))
		}
	}
	if len(oh) > 0 {
		parts = append(parts, "2")
		writeOverhead(tw, oh)
	}
	if aa := aaCounts(recs); len(aa) > 0 {
		parts = append(parts, "3")
		writeAA(tw, aa)
	}
	if rows, failed := pooledRows(recs); len(rows) > 0 || len(failed) > 0 {
		parts = append(parts, "4")
		writeInterleaved(tw, rows, failed)
	}
	if len(parts) == 0 {
		fmt.Fprintln(tw, "No run finished.")
	}
	return tw.Flush()
}

func writeSides(tw *tabwriter.Writer, pairs []pairRun) {
	fmt.Fprintf(tw, "Part 1a: side by side, wall time per run: each tool's median and its %.0f%% CI\n", confidence*100)
	fmt.Fprintln(tw, "pair\ttrial\tcommand\trigor n\trigor median\trigor CI\thf runs\thf median\thf CI\trigor's in hf CI\thf's in rigor CI\t")
	rows := sideRows(pairs)
	inHF, inR := 0, 0
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n", r.Pair, r.Trial, r.Command,
			r.Rigor.N, fmtSec(float64(r.Rigor.Median)), fmtCI(float64(r.Rigor.Lo), float64(r.Rigor.Hi)),
			r.HF.N, fmtSec(float64(r.HF.Median)), fmtCI(float64(r.HF.Lo), float64(r.HF.Hi)),
			yesNo(r.RigorInHF), yesNo(r.HFInRigor))
		if r.RigorInHF {
			inHF++
		}
		if r.HFInRigor {
			inR++
		}
	}
	fmt.Fprintf(tw, "rigor's median inside hyperfine's CI: %d of %d; hyperfine's inside rigor's: %d of %d.\n", inHF, len(rows), inR, len(rows))
	writeFailures(tw, pairs)
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "Part 1b: side by side, new/old (second command over first)")
	fmt.Fprintln(tw, "pair\ttrial\trigor new/old [CI]\trigor verdict\thf means new/old ± σ\thf medians new/old\trigor wall\thf wall\tload1\t")
	for _, p := range pairs {
		if !p.ok() {
			continue
		}
		r, h := p.Rigor, p.HF
		verdict := r.Verdict
		if r.VerdictMetric != "" && r.VerdictMetric != "sec/op" {
			verdict += " (" + r.VerdictMetric + ")"
		}
		hfMed := nan
		if len(h.Commands) == 2 {
			hfMed = float64(h.Commands[1].Median) / float64(h.Commands[0].Median)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s [%s, %s]\t%s\t%s ± %s\t%s\t%s\t%s\t%.1f\t\n", p.Pair, p.Trial,
			fmtRatio(1+float64(r.WallChange)), fmtRatio(1+float64(r.WallChangeLo)), fmtRatio(1+float64(r.WallChangeHi)),
			verdict, fmtRatio(float64(h.Ratio)), fmtRatio(float64(h.Sigma)), fmtRatio(hfMed),
			fmtSec(float64(r.WallSec)), fmtSec(float64(h.WallSec)), float64(r.Load1))
	}
	for _, d := range detections(pairs) {
		fmt.Fprintf(tw, "%s: rigor said regressed in %d of %d trials (the wrong way in %d); hyperfine's means ratio was above 1 and clear of its ±σ in %d of %d (below 1 in %d).\n",
			d.Pair, d.RigorRegressed, d.Trials, d.RigorImproved, d.HFClear, d.Trials, d.HFBelow)
	}
	fmt.Fprintln(tw)
}

// detection tallies, per pair of part 1, how often each tool found the
// second command slower, which it is in every pair part 1 runs.
type detection struct {
	Pair                          string
	Trials                        int
	RigorRegressed, RigorImproved int
	HFClear, HFBelow              int
}

// detections tallies pairs (the trials both tools finished), in the
// order the pairs first appear.
func detections(pairs []pairRun) []detection {
	var out []detection
	index := map[string]int{}
	for _, p := range pairs {
		if !p.ok() {
			continue
		}
		i, seen := index[p.Pair]
		if !seen {
			i = len(out)
			index[p.Pair] = i
			out = append(out, detection{Pair: p.Pair})
		}
		d := &out[i]
		d.Trials++
		switch p.Rigor.Verdict {
		case "regressed":
			d.RigorRegressed++
		case "improved":
			d.RigorImproved++
		}
		if r := float64(p.HF.Ratio); r > 1 && p.HF.ClearOfSigma {
			d.HFClear++
		} else if r < 1 {
			d.HFBelow++
		}
	}
	return out
}

func writeInterleaved(tw *tabwriter.Writer, rows []pooledRow, failed []record) {
	fmt.Fprintf(tw, "Part 4: interleaved chunk by chunk, wall time per run: each tool's runs pooled over the chunks, median and %.0f%% CI by one method\n", confidence*100)
	fmt.Fprintln(tw, "pair\ttrial\tcommand\tchunks\trigor n\trigor median\trigor CI\thf n\thf median\thf CI\thf - rigor\trigor's in hf CI\thf's in rigor CI\t")
	inHF, inR := 0, 0
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", r.Pair, r.Trial, r.Command, r.Chunks,
			r.Rigor.N, fmtSec(float64(r.Rigor.Median)), fmtCI(float64(r.Rigor.Lo), float64(r.Rigor.Hi)),
			r.HF.N, fmtSec(float64(r.HF.Median)), fmtCI(float64(r.HF.Lo), float64(r.HF.Hi)),
			fmtSec(float64(r.HF.Median-r.Rigor.Median)), yesNo(r.RigorInHF), yesNo(r.HFInRigor))
		if r.RigorInHF {
			inHF++
		}
		if r.HFInRigor {
			inR++
		}
	}
	fmt.Fprintf(tw, "rigor's median inside hyperfine's CI: %d of %d; hyperfine's inside rigor's: %d of %d.\n", inHF, len(rows), inR, len(rows))
	for _, r := range failed {
		fmt.Fprintf(tw, "left out: %s trial %d chunk %d (both tools): %s: %s\n", r.Pair, r.Trial, r.Chunk, r.Tool, r.Error)
	}
	fmt.Fprintln(tw)
}

// writeFailures lists the pairs a tool failed in.
func writeFailures(tw *tabwriter.Writer, pairs []pairRun) {
	for _, p := range pairs {
		if p.ok() {
			continue
		}
		for _, r := range []record{p.Rigor, p.HF} {
			if r.Error != "" {
				fmt.Fprintf(tw, "left out: %s trial %d: %s: %s\n", p.Pair, p.Trial, r.Tool, r.Error)
			}
		}
		if !p.hasR || !p.hasHF {
			fmt.Fprintf(tw, "left out: %s trial %d: one tool did not run\n", p.Pair, p.Trial)
		} else if p.Rigor.Error == "" && p.HF.Error == "" {
			fmt.Fprintf(tw, "left out: %s trial %d: the tools report different commands\n", p.Pair, p.Trial)
		}
	}
}

func writeOverhead(tw *tabwriter.Writer, rows []overheadRow) {
	fmt.Fprintln(tw, "Part 2: per-run overhead, timing `true` (per run: warm-up runs included)")
	fmt.Fprintln(tw, "tool\ttrial\truns\treported median\twall/run\town CPU/run\tCPU/run outside commands\tcommands' CPU/run\twall\tload1\t")
	byTool := map[string][]overheadRow{}
	var tools []string
	for _, o := range rows {
		if o.Error != "" {
			fmt.Fprintf(tw, "%s\t%d\tfailed: %s\t\n", o.Tool, o.Trial, o.Error)
			continue
		}
		if byTool[o.Tool] == nil {
			tools = append(tools, o.Tool)
		}
		byTool[o.Tool] = append(byTool[o.Tool], o)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t\n", o.Tool, o.Trial, o.Runs, fmtSec(o.Reported),
			fmtSec(o.WallPerRun), fmtSec(o.OwnCPUPerRun), fmtSec(o.OutsidePerRun), fmtSec(o.CmdCPUPerRun), fmtSec(o.WallSec), o.Load1)
	}
	med := map[string]overheadRow{}
	for _, t := range tools {
		m := medianOverhead(byTool[t])
		med[t] = m
		fmt.Fprintf(tw, "%s\tmedian\t\t%s\t%s\t%s\t%s\t%s\t\t\t\n", t, fmtSec(m.Reported), fmtSec(m.WallPerRun),
			fmtSec(m.OwnCPUPerRun), fmtSec(m.OutsidePerRun), fmtSec(m.CmdCPUPerRun))
	}
	r, h := med["rigor"], med["hyperfine"]
	if len(byTool["rigor"]) > 0 && len(byTool["hyperfine"]) > 0 {
		fmt.Fprintf(tw, "rigor/hyperfine\t\t\t%s\t%s\t%s\t%s\t\t\t\t\n", fmtRatio(r.Reported/h.Reported), fmtRatio(r.WallPerRun/h.WallPerRun),
			fmtRatio(r.OwnCPUPerRun/h.OwnCPUPerRun), fmtRatio(r.OutsidePerRun/h.OutsidePerRun))
	}
	fmt.Fprintln(tw)
}

// medianOverhead is the median of each column over a tool's trials
// (each column on its own), NaN values left out.
func medianOverhead(rows []overheadRow) overheadRow {
	col := func(f func(overheadRow) float64) float64 {
		var x []float64
		for _, o := range rows {
			if v := f(o); !math.IsNaN(v) {
				x = append(x, v)
			}
		}
		return medianOf(x)
	}
	return overheadRow{
		Reported:      col(func(o overheadRow) float64 { return o.Reported }),
		WallPerRun:    col(func(o overheadRow) float64 { return o.WallPerRun }),
		OwnCPUPerRun:  col(func(o overheadRow) float64 { return o.OwnCPUPerRun }),
		OutsidePerRun: col(func(o overheadRow) float64 { return o.OutsidePerRun }),
		CmdCPUPerRun:  col(func(o overheadRow) float64 { return o.CmdCPUPerRun }),
	}
}

func writeAA(tw *tabwriter.Writer, counts []*aaCount) {
	fmt.Fprintln(tw, "Part 3a: A/A, rigor's verdicts (anything but unchanged on an A/A is not a finding; improved/regressed are false alarms)")
	fmt.Fprintln(tw, "env\tcommand\ttrials\tunchanged\tinconclusive\timproved\tregressed\terrors\tCPU clock\tmedian runs\tmedian wall\twall/run\t")
	for _, c := range counts {
		if c.Tool != "rigor" {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.0f\t%s\t%s\t\n", c.Env, c.Command, c.Trials, c.Verdicts["unchanged"],
			c.Verdicts["inconclusive"], c.Verdicts["improved"], c.Verdicts["regressed"], c.Errors, c.CPUClock,
			medianOf(c.Runs), fmtSec(medianOf(c.Walls)), fmtSec(medianOf(c.PerRun)))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "Part 3b: A/A, which command hyperfine calls faster (its summary, by mean)")
	fmt.Fprintln(tw, "env\tcommand\ttrials\tfirst faster\tsecond faster\tclear of ±σ\terrors\tmedian runs\tmedian wall\twall/run\t")
	for _, c := range counts {
		if c.Tool != "hyperfine" {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.0f\t%s\t%s\t\n", c.Env, c.Command, c.Trials, c.FirstFaster, c.SecondFaster,
			c.ClearOfSigma, c.Errors, medianOf(c.Runs), fmtSec(medianOf(c.Walls)), fmtSec(medianOf(c.PerRun)))
	}
	fmt.Fprintln(tw)
}

// fmtSec prints seconds with 4 significant digits in a fitting unit; "-"
// for NaN.
func fmtSec(s float64) string {
	a := math.Abs(s)
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return "-"
	case a == 0:
		return "0"
	case a < 1e-3:
		return trimG(s*1e6) + "µs"
	case a < 1:
		return trimG(s*1e3) + "ms"
	}
	return trimG(s) + "s"
}

func trimG(x float64) string { return strings.TrimSpace(fmt.Sprintf("%.4g", x)) }

func fmtCI(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "too few runs"
	}
	return "[" + fmtSec(lo) + ", " + fmtSec(hi) + "]"
}

func fmtRatio(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf("%.4f", x)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}
