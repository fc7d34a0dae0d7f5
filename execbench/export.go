package execbench

import (
	"math"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// Hyperfine returns the run in the shape of hyperfine's --export-json, so
// that scripts written for hyperfine keep working: one result per command
// and parameter combination (commands in the order given, then
// combinations), with the command line as run (its --name when it has
// one), the times of the recorded runs in seconds (the shell's start-up
// subtracted, as hyperfine does), their mean, sample standard deviation,
// median, minimum and maximum, the mean user and system time, every run's
// peak RSS and exit code (null for a signal), and the parameters.
//
// hyperfine splits CPU time into user and system per run; rigor records
// their sum, so user holds the mean CPU time and system 0.
func (r *Result) Hyperfine() *model.HyperfineExport {
	s := r.sess
	exp := &model.HyperfineExport{Results: []model.HyperfineResult{}}
	for si := range s.labels {
		for _, u := range s.units {
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
				continue
			}
			name := u.line[si]
			if l := s.cfg.Commands[si].Label; l != "" {
				name = u.bind.substitute(l)
			}
			res := model.HyperfineResult{
				Command:    name,
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
			exp.Results = append(exp.Results, res)
		}
	}
	return exp
}
