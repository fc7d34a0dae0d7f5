package execbench

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// Hyperfine returns the run in the shape of hyperfine's --export-json, so
// that scripts written for hyperfine keep working: one result per command
// and parameter combination, in hyperfine's order (the commands in the
// order given within each combination, the combinations with the first
// parameter varying fastest), with the command's name (Names, or --name
// with the parameters substituted) or the command line as run, the times
// of the recorded runs in seconds (the shell's start-up subtracted, as
// hyperfine does), their mean, sample standard deviation, median, minimum
// and maximum, the mean user and system time, every run's peak RSS and
// exit code (null for a signal), and the parameters.
//
// hyperfine splits CPU time into user and system per run; rigor records
// their sum, so user holds the mean CPU time and system 0.
func (r *Result) Hyperfine() *model.HyperfineExport {
	exp := &model.HyperfineExport{Results: []model.HyperfineResult{}}
	for _, c := range r.sess.cells() {
		exp.Results = append(exp.Results, c.res)
	}
	return exp
}

// A cell is one command in one parameter combination, with its summary
// in hyperfine's shape.
type cell struct {
	u   *unit
	si  int
	res model.HyperfineResult
}

// cells returns the cells that recorded a run, in hyperfine's order.
func (s *session) cells() []cell {
	units := slices.Clone(s.units)
	slices.SortFunc(units, func(a, b *unit) int { return cmp.Compare(a.hindex, b.hindex) })
	var out []cell
	for _, u := range units {
		for si := range s.labels {
			if res, ok := s.hyperfineResult(u, si); ok {
				out = append(out, cell{u, si, res})
			}
		}
	}
	return out
}

// resultName is what hyperfine calls side si in u: its name there
// (Command.Names), its --name with u's parameters, or the command line as
// run.
func (s *session) resultName(u *unit, si int) string {
	if u.names[si] != "" {
		return u.names[si]
	}
	if l := s.cfg.Commands[si].Label; l != "" {
		return u.bind.substitute(l)
	}
	return u.line[si]
}

// hyperfineResult summarises the recorded runs of side si in u; false
// when there is none.
func (s *session) hyperfineResult(u *unit, si int) (model.HyperfineResult, bool) {
	var times, cpus []float64
	var rss []uint64
	codes := []*int{}
	for _, rec := range u.runs[si] {
		if math.IsNaN(rec.wall) {
			continue
		}
		times = append(times, rec.wall)
		if !math.IsNaN(rec.cpu) {
			cpus = append(cpus, rec.cpu)
		}
		if rec.rss > 0 {
			rss = append(rss, uint64(rec.rss))
		}
		if rec.exit >= 0 {
			c := rec.exit
			codes = append(codes, &c)
		} else {
			codes = append(codes, nil)
		}
	}
	if len(times) == 0 {
		return model.HyperfineResult{}, false
	}
	res := model.HyperfineResult{
		Command:    s.resultName(u, si),
		Mean:       stats.Mean(times),
		Median:     stats.Median(times),
		Min:        stats.Min(times),
		Max:        stats.Max(times),
		Times:      times,
		ExitCodes:  codes,
		Parameters: u.bind.config(),
	}
	if len(times) > 1 {
		sd := stats.StdDev(times)
		res.StdDev = &sd
	}
	if len(cpus) > 0 {
		res.User = stats.Mean(cpus)
	}
	if len(rss) == len(times) {
		res.MemoryUsageBytes = rss
	}
	return res, true
}

// unusedParams is what hyperfine's tables add to a command's name: the
// parameters its command line does not show, " (x = 1, y = a)".
func (s *session) unusedParams(u *unit, si int) string {
	var parts []string
	for _, p := range u.bind {
		if !strings.Contains(s.cfg.Commands[si].Line, "{"+p.name+"}") {
			parts = append(parts, p.name+" = "+p.value)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
