package harness

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// Units the harness reports besides throughput.
const (
	unitTime   = "sec/op"
	unitCPU    = "cpu-sec/op"
	unitWait   = "wait-sec/op"
	unitBytes  = "B/op"
	unitAllocs = "allocs/op"
	unitGCs    = "GCs/op"
)

// benchmark turns a measured set into the model's benchmark: sides are
// variants; sec/op, throughput and GCs/op come from the timed rounds,
// B/op and allocs/op from the allocation rounds.
func (s *setResult) benchmark(r *runner) model.Benchmark {
	b := s.header(r)
	b.Metrics = s.allMetrics()
	b.Notes = s.notes(r, b.Key())
	return b
}

// header returns the set's benchmark with its configuration, without
// metrics or notes.
func (s *setResult) header(r *runner) model.Benchmark {
	b := model.Benchmark{
		Name:   s.set.name,
		Pkg:    r.pkg,
		Procs:  gomaxprocs(),
		Group:  r.group,
		Config: map[string]string{},
	}
	p := s.plan
	b.Config["sampling"] = p.mode.String()
	switch p.mode {
	case rigor.Linear:
		b.Config["iterations"] = fmt.Sprintf("m·%d for m = 1..%d, shuffled", p.n, len(p.mult))
	default:
		b.Config["iterations"] = fmt.Sprintf("%d ±20%%", p.n)
	}
	b.Config["rounds"] = strconv.Itoa(s.rounds)
	b.Config["timer-resolution"] = r.clock.Resolution.String()
	if s.stop != "" {
		b.Config["stopped"] = s.stop
	}
	// Per-variant settings are lists of variant=value, since a
	// configuration key of Go benchmark format cannot hold an arbitrary
	// variant name.
	var overhead, scale variantList
	for i, c := range s.set.cells {
		if l := s.loopOf(i); l > 0 {
			if m := s.overhead[l]; len(m) > 0 {
				overhead.add(c.variant, fmtSeconds(stats.Median(m)))
			}
		}
		if p.scale[i] > 1 {
			scale.add(c.variant, strconv.Itoa(p.scale[i]))
		}
	}
	overhead.set(b.Config, configLoopOverhead)
	scale.set(b.Config, configScale)
	s.goroutines().set(b.Config, configGoroutines)
	return b
}

// goroutines lists the parallel variants' goroutine counts.
func (s *setResult) goroutines() variantList {
	var l variantList
	for _, c := range s.set.cells {
		if c.goroutines > 0 {
			l.add(c.variant, strconv.Itoa(c.goroutines))
		}
	}
	return l
}

// allMetrics returns every metric of the rounds measured so far.
func (s *setResult) allMetrics() []model.Metric {
	sec, tps, gcs, anyGC := s.timedMetrics(0, s.rounds)
	bytes, allocs := s.allocMetrics()
	ms := append([]model.Metric{sec}, tps...)
	ms = append(ms, bytes, allocs)
	// GC cycles are counted for the whole process: they belong to a
	// variant only when some variant allocates (otherwise the garbage is
	// someone else's, the observer's say).
	if anyGC && s.allocates(allocs) {
		ms = append(ms, gcs)
	}
	return ms
}

// timedMetrics returns sec/op, the other per-round metrics (throughput,
// cpu-sec/op and wait-sec/op when the system reports CPU time, then the
// metrics the variants reported with B.ReportMetric, by unit) and GCs/op of the timed
// rounds lo+1 to hi, and whether any of them saw a garbage collection.
func (s *setResult) timedMetrics(lo, hi int) (sec model.Metric, tps []model.Metric, gcs model.Metric, anyGC bool) {
	sec = model.Metric{Unit: unitTime, Better: model.LowerIsBetter}
	gcs = model.Metric{Unit: unitGCs, Better: model.LowerIsBetter}
	tpMetric := func(unit string) *model.Metric {
		for i := range tps {
			if tps[i].Unit == unit {
				return &tps[i]
			}
		}
		tps = append(tps, model.Metric{Unit: unit, Better: model.HigherIsBetter})
		return &tps[len(tps)-1]
	}
	var cpu, wait *model.Metric
	own := map[string]*model.Metric{}
	for i, c := range s.set.cells {
		for k := lo; k < min(hi, len(s.samples[i])); k++ {
			x := s.samples[i][k]
			round := k + 1
			sec.Samples = append(sec.Samples, model.Sample{Side: c.variant, Round: round, Iters: int64(x.Iters), Value: x.net / float64(x.Iters)})
			if !math.IsNaN(x.cpuNet) && !x.Custom {
				if cpu == nil {
					cpu = &model.Metric{Unit: unitCPU, Better: model.LowerIsBetter}
				}
				cpu.Samples = append(cpu.Samples, model.Sample{Side: c.variant, Round: round, Iters: int64(x.Iters), Value: x.cpuNet / float64(x.Iters)})
			}
			if !math.IsNaN(x.Wait) && x.Wall > 0 {
				// The call's wait, in the share of it that sec/op counts
				// (the timed windows less the loop's overhead), per
				// operation: wait-sec/op over sec/op is the share of the
				// time the benchmark waited for a CPU, as for a go test
				// binary (package analysis's busy rule). Scaled to the
				// timed windows instead, a near-empty body whose loop was
				// 70% of them read 2% waited as 6.7%.
				if wait == nil {
					wait = &model.Metric{Unit: unitWait, Better: model.LowerIsBetter}
				}
				wait.Samples = append(wait.Samples, model.Sample{Side: c.variant, Round: round, Iters: int64(x.Iters),
					Value: x.Wait * min(x.net/x.Wall, 1) / float64(x.Iters)})
			}
			ops := float64(x.Iters * x.Goroutines)
			gcs.Samples = append(gcs.Samples, model.Sample{Side: c.variant, Round: round, Iters: int64(ops), Value: float64(x.GCs) / ops})
			anyGC = anyGC || x.GCs > 0
			if x.ThroughputUnit != "" && x.net > 0 {
				m := tpMetric(x.ThroughputUnit)
				m.Samples = append(m.Samples, model.Sample{Side: c.variant, Round: round, Iters: int64(x.Iters), Value: x.Throughput * ops / x.net})
			}
			// A reported metric is the variant's own figure, taken as
			// given (as testing.B.ReportMetric's): nothing is
			// subtracted or divided.
			for u, v := range x.Metrics {
				m := own[u]
				if m == nil {
					m = &model.Metric{Unit: u, Better: model.DefaultBetter(u)}
					own[u] = m
				}
				m.Samples = append(m.Samples, model.Sample{Side: c.variant, Round: round, Iters: int64(x.Iters), Value: v})
			}
		}
	}
	if cpu != nil {
		tps = append(tps, *cpu)
	}
	if wait != nil && cpu != nil && len(wait.Samples) == len(cpu.Samples) {
		tps = append(tps, *wait)
	}
	for _, u := range slices.Sorted(maps.Keys(own)) {
		// A unit one variant reports and another's throughput is
		// (sampleErr refuses both in one variant) is one metric, as in
		// go test's output: each variant's samples, from either source.
		if i := slices.IndexFunc(tps, func(m model.Metric) bool { return m.Unit == u }); i >= 0 {
			tps[i].Samples = append(tps[i].Samples, own[u].Samples...)
			continue
		}
		tps = append(tps, *own[u])
	}
	return sec, tps, gcs, anyGC
}

// allocMetrics returns B/op and allocs/op from the allocation rounds.
func (s *setResult) allocMetrics() (bytes, allocs model.Metric) {
	bytes = model.Metric{Unit: unitBytes, Better: model.LowerIsBetter}
	allocs = model.Metric{Unit: unitAllocs, Better: model.LowerIsBetter}
	// Per operation, in whole bytes and allocations, truncated, as
	// testing.B reports them: an allocation made meanwhile by another
	// goroutine (a finalizer run by the bracketing GC, say) then cannot
	// turn 0 allocs/op into 0.005.
	for i, c := range s.set.cells {
		for k, x := range s.allocs[i] {
			ops := uint64(x.Iters * x.Goroutines)
			bytes.Samples = append(bytes.Samples, model.Sample{Side: c.variant, Round: k + 1, Iters: int64(ops), Value: float64(x.Bytes / ops)})
			allocs.Samples = append(allocs.Samples, model.Sample{Side: c.variant, Round: k + 1, Iters: int64(ops), Value: float64(x.Objects / ops)})
		}
	}
	return bytes, allocs
}

// allocates reports whether some variant's median allocs/op is above 0.
func (s *setResult) allocates(allocs model.Metric) bool {
	for _, c := range s.set.cells {
		if v := allocs.Values(c.variant); len(v) > 0 && stats.Median(v) > 0 {
			return true
		}
	}
	return false
}
