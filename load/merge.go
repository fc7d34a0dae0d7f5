package load

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rigorbench/rigor/model"
)

// Thresholds of the shards' overlap: the fraction of a step's measured
// window during which every shard was measuring.
const (
	minOverlap  = 0.90 // below: the merged step is invalid
	fullOverlap = 0.99 // below: a note says how much
)

// ShardResult is one shard's ramp and where it was read from, which
// errors name.
type ShardResult struct {
	Source string
	Ramp   *model.Ramp
}

// MergeShards merges the results of every shard of one ramp (Config.Shard)
// into the ramp one generator sending all their load would have reported:
// per step, the shards' requests, successes, errors, bytes and throughput
// add, their latency histograms merge without loss, and the step is
// invalid if any shard's was (a shard whose generator was saturated makes
// the merged step client-bound) or if the shards' measured windows did not
// overlap. The gains, SLO checks, fits, headline and bottleneck are then
// computed from the merged steps, as for one generator's ramp. The
// generator's CPU and scheduler latency are the busiest shard's.
//
// It refuses shards of different configurations, and a set with a shard
// missing or given twice. When shards ran different numbers of steps (one
// was interrupted), the steps every shard ran are merged and Stopped says
// so.
func MergeShards(in []ShardResult) (*model.Ramp, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("no shard results to merge")
	}
	for _, s := range in {
		switch r := s.Ramp; {
		case r == nil:
			return nil, fmt.Errorf("%s: not a ramp result", s.Source)
		case r.MergedShards > 0:
			return nil, fmt.Errorf("%s: already merged from %d shards; merge the shards' own results", s.Source, r.MergedShards)
		case r.Shard == nil:
			return nil, fmt.Errorf("%s: not a shard's result (the ramp ran without --shard)", s.Source)
		}
	}
	first := in[0]
	n := first.Ramp.Shard.Count
	byIndex := make([]*ShardResult, n)
	for i := range in {
		s := &in[i]
		sh := s.Ramp.Shard
		if sh.Count != n {
			return nil, fmt.Errorf("%s is shard %d/%d but %s is shard %d/%d: not shards of one ramp", s.Source, sh.Index, sh.Count, first.Source, first.Ramp.Shard.Index, n)
		}
		if sh.Index < 0 || sh.Index >= n {
			return nil, fmt.Errorf("%s: shard index %d is not between 0 and %d", s.Source, sh.Index, n-1)
		}
		if d := byIndex[sh.Index]; d != nil {
			return nil, fmt.Errorf("%s and %s are both shard %d/%d", d.Source, s.Source, sh.Index, n)
		}
		if what := differs(first.Ramp, s.Ramp); what != "" {
			return nil, fmt.Errorf("%s (shard %d/%d) and %s (shard %d/%d) were not run with the same configuration: their %s differ",
				first.Source, first.Ramp.Shard.Index, n, s.Source, sh.Index, n, what)
		}
		byIndex[sh.Index] = s
	}
	var missing []string
	for i, s := range byIndex {
		if s == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		which := "shard " + missing[0] + " is"
		if len(missing) > 1 {
			which = "shards " + strings.Join(missing, ", ") + " are"
		}
		return nil, fmt.Errorf("%s missing: %d of %d shards given", which, len(in), n)
	}

	f := first.Ramp
	out := &model.Ramp{
		Target:       f.Target,
		Protocol:     f.Protocol,
		Mode:         f.Mode,
		Warmup:       f.Warmup,
		StepDuration: f.StepDuration,
		CPUs:         f.CPUs,
		SLO:          f.SLO,
		MergedShards: n,
	}
	steps := len(f.Steps)
	for _, s := range byIndex {
		steps = min(steps, len(s.Ramp.Steps))
	}
	if planned := max(len(f.Shard.Concurrency), len(f.Shard.Rates)); steps < planned {
		var short []string
		for _, s := range byIndex {
			if r := s.Ramp; len(r.Steps) == steps {
				why := fmt.Sprintf("shard %d/%d ran %d of %d steps", r.Shard.Index, n, steps, planned)
				if r.Stopped != "" {
					why += " (" + r.Stopped + ")"
				}
				short = append(short, why)
			}
		}
		out.Stopped = strings.Join(short, "; ") + ": the merge holds the steps every shard ran"
	}
	if err := mergeWorkload(out, byIndex); err != nil {
		return nil, err
	}
	for k := 0; k < steps; k++ {
		st, err := mergeStep(byIndex, k)
		if err != nil {
			return nil, err
		}
		out.Steps = append(out.Steps, st)
	}
	// Gains and the SLO, as one generator's ramp sets them (a shard's
	// ramp never stops early, and neither does the merge).
	var stop stopper
	judge := Config{SLO: out.SLO, KeepGoing: true}
	for i := range out.Steps {
		stop.after(&judge, &out.Steps[i], len(out.Steps))
	}
	cpus := map[int]bool{}
	for _, s := range byIndex {
		cpus[s.Ramp.CPUs] = true
	}
	out.Notes = append(out.Notes, fmt.Sprintf("merged from %d shards, each a generator sending its share of every step: requests, errors and throughput are their sums, latency their merged histograms; a step is invalid when any shard's was, and the generator's CPU is the busiest shard's", n))
	if len(cpus) > 1 {
		out.Notes = append(out.Notes, fmt.Sprintf("the shards' machines had different numbers of CPUs: cpus is shard 0's (%d)", f.CPUs))
	}
	conclude(out)
	return out, nil
}

// differs names what two shards' ramps do not share, or returns "".
func differs(a, b *model.Ramp) string {
	sa, sb := a.Shard, b.Shard
	switch {
	case a.Target != b.Target:
		return "targets"
	case a.Protocol != b.Protocol:
		return "protocols"
	case a.Mode != b.Mode:
		return "modes (closed or open loop)"
	case !slicesEqual(sa.Concurrency, sb.Concurrency) || !slicesEqual(sa.Rates, sb.Rates):
		return "steps"
	case a.Warmup != b.Warmup:
		return "warm-ups"
	case a.StepDuration != b.StepDuration:
		return "step durations"
	case !reflect.DeepEqual(a.SLO, b.SLO):
		return "SLOs"
	case !sa.Start.Equal(sb.Start):
		return "start times (--start-at)"
	case sa.Config != sb.Config:
		return "request settings (configuration fingerprints)"
	}
	return ""
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// mergeStep merges step k of every shard, shards ordered by index.
func mergeStep(shards []*ShardResult, k int) (model.RampStep, error) {
	n := len(shards)
	f := shards[0].Ramp
	lat := hdrhistogram.New(histMin, histMax, histDigits)
	svc := hdrhistogram.New(histMin, histMax, histDigits)
	errLat := hdrhistogram.New(histMin, histMax, histDigits)
	classes := map[string]int64{}
	st := model.RampStep{Index: k, Duration: f.Steps[k].Duration}
	var invalid []string
	var notes []string
	var windows []time.Time
	for i, s := range shards {
		p := s.Ramp.Steps[k]
		where := fmt.Sprintf("%s step %d", s.Source, k+1)
		if p.Index != k {
			return st, fmt.Errorf("%s: index %d, want %d", where, p.Index, k)
		}
		if p.Duration != st.Duration {
			return st, fmt.Errorf("%s: a window of %v where shard 0's was %v", where, p.Duration, st.Duration)
		}
		if p.WindowStart.IsZero() {
			return st, fmt.Errorf("%s: no window_start: written by a rigor that kept no histograms, it cannot be merged", where)
		}
		if p.Latency.Count+errCount(p) > 0 && p.Histograms == nil {
			return st, fmt.Errorf("%s: no histograms: it cannot be merged exactly", where)
		}
		hs := model.StepHistograms{}
		if p.Histograms != nil {
			hs = *p.Histograms
		}
		for _, m := range []struct {
			into *hdrhistogram.Histogram
			enc  string
			want int64
			name string
		}{
			{lat, hs.Latency, p.Latency.Count, "latency"},
			{svc, hs.Service, serviceCount(p), "service latency"},
			{errLat, hs.Errors, errCount(p), "error latency"},
		} {
			h, err := decodeHist(m.enc)
			if err != nil {
				return st, fmt.Errorf("%s: %s histogram: %w", where, m.name, err)
			}
			if h.TotalCount() != m.want {
				return st, fmt.Errorf("%s: the %s histogram holds %d requests, the step says %d", where, m.name, h.TotalCount(), m.want)
			}
			if dropped := m.into.Merge(h); dropped != 0 {
				return st, fmt.Errorf("%s: %s histogram: %d values out of range", where, m.name, dropped)
			}
		}

		st.Concurrency += p.Concurrency
		st.Rate += p.Rate
		st.Requests += p.Requests
		st.Successes += p.Successes
		st.InFlight += p.InFlight
		st.Unfinished += p.Unfinished
		st.NotSent += p.NotSent
		st.Achieved += p.Achieved
		st.BytesPerSec += p.BytesPerSec
		for _, e := range p.Errors {
			classes[e.Class] += e.Count
		}
		g := &st.Generator
		g.UserSec += p.Generator.UserSec
		g.SystemSec += p.Generator.SystemSec
		g.CPU = max(g.CPU, p.Generator.CPU)
		g.SchedLatencyP99 = max(g.SchedLatencyP99, p.Generator.SchedLatencyP99)
		g.Workers += p.Generator.Workers
		st.MachineCPU = max(st.MachineCPU, p.MachineCPU)
		if p.Target != nil {
			if st.Target == nil {
				t := *p.Target
				st.Target = &t
			} else {
				notes = append(notes, fmt.Sprintf("shard %d/%d also measured the target process: the target's figures are shard %d/%d's", i, n, shardOf(shards, st.Target), n))
			}
		}
		if !p.Valid {
			invalid = append(invalid, fmt.Sprintf("shard %d/%d: %s", i, n, p.Invalid))
		}
		for _, note := range p.Notes {
			notes = append(notes, fmt.Sprintf("shard %d/%d: %s", i, n, note))
		}
		windows = append(windows, p.WindowStart)
		st.Shards = append(st.Shards, model.ShardStep{
			Shard:        i,
			Concurrency:  p.Concurrency,
			Rate:         p.Rate,
			Throughput:   p.Throughput,
			Achieved:     p.Achieved,
			P99:          p.Latency.P99,
			GeneratorCPU: p.Generator.CPU,
			WindowStart:  p.WindowStart,
			Valid:        p.Valid,
			Invalid:      p.Invalid,
		})
	}

	plan := f.Shard
	secs := st.Duration.Seconds()
	open := f.Mode == model.RampOpen
	switch {
	case open && k < len(plan.Rates):
		want := plan.Rates[k]
		if math.Abs(st.Rate-want) > 1e-9*want {
			return st, fmt.Errorf("step %d: the shards' rates sum to %g/s, not the planned %g/s", k+1, st.Rate, want)
		}
		st.Rate = want
	case !open && k < len(plan.Concurrency):
		if want := plan.Concurrency[k]; st.Concurrency != want {
			return st, fmt.Errorf("step %d: the shards' workers sum to %d, not the planned %d", k+1, st.Concurrency, want)
		}
	default:
		return st, fmt.Errorf("step %d: beyond the %d planned steps", k+1, max(len(plan.Rates), len(plan.Concurrency)))
	}
	if st.Target != nil && st.Requests > 0 {
		st.Target.CtxPerRequest = float64(st.Target.VoluntaryCtx) / float64(st.Requests)
	}

	completed := st.Requests
	st.Throughput = float64(st.Successes) / secs
	st.Offered = st.Achieved
	if open {
		st.Offered = st.Rate
	} else {
		st.Achieved = float64(completed) / secs
		st.Offered = st.Achieved
	}
	if completed > 0 {
		st.ErrorRate = float64(completed-st.Successes) / float64(completed)
	}
	for c, v := range classes {
		st.Errors = append(st.Errors, model.ErrorCount{Class: c, Count: v})
	}
	sort.Slice(st.Errors, func(i, j int) bool {
		if st.Errors[i].Count != st.Errors[j].Count {
			return st.Errors[i].Count > st.Errors[j].Count
		}
		return st.Errors[i].Class < st.Errors[j].Class
	})
	st.Latency = summarize(lat)
	if open {
		l := summarize(svc)
		st.ServiceLatency = &l
	}
	if errLat.TotalCount() > 0 {
		l := summarize(errLat)
		st.ErrorLatency = &l
	}
	st.Histograms = &model.StepHistograms{Latency: encodeHist(lat), Service: encodeHist(svc), Errors: encodeHist(errLat)}
	if *st.Histograms == (model.StepHistograms{}) {
		st.Histograms = nil
	}

	// Did the shards load the target together?
	lo, hi := windows[0], windows[0]
	loI, hiI := 0, 0
	for i, w := range windows {
		if w.Before(lo) {
			lo, loI = w, i
		}
		if w.After(hi) {
			hi, hiI = w, i
		}
	}
	st.WindowStart = hi
	lag := hi.Sub(lo)
	overlap := max(0, 1-lag.Seconds()/secs)
	if overlap < fullOverlap {
		what := fmt.Sprintf("the shards' measured windows overlapped for %.0f%% of the window (shard %d/%d began %v after shard %d/%d)",
			100*overlap, hiI, n, fmtDur(lag), loI, n)
		if overlap < minOverlap {
			invalid = append(invalid, what+": they did not load the target together; give every shard the same --start-at")
		} else {
			notes = append(notes, what)
		}
	}
	switch {
	case completed == 0:
		invalid = append([]string{"no request completed in the measured window"}, invalid...)
	case open && len(invalid) == 0 && st.Achieved < minAchieved*st.Rate:
		invalid = append(invalid, fmt.Sprintf("sent %.0f/s of the %.0f/s offered (%.0f%%, below %.0f%%): the schedule was not kept, so the load was not what it claims",
			st.Achieved, st.Rate, 100*st.Achieved/st.Rate, 100*minAchieved))
	}
	st.Valid = len(invalid) == 0
	st.Invalid = strings.Join(invalid, "; ")
	st.Notes = notes
	return st, mergeRequests(&st, shards, k)
}

// shardOf returns the index of the shard whose step holds t.
func shardOf(shards []*ShardResult, t *model.TargetStats) int {
	for i, s := range shards {
		for _, p := range s.Ramp.Steps {
			if p.Target != nil && p.Target.PID == t.PID {
				return i
			}
		}
	}
	return 0
}

func errCount(p model.RampStep) int64 {
	if p.ErrorLatency == nil {
		return 0
	}
	return p.ErrorLatency.Count
}

func serviceCount(p model.RampStep) int64 {
	if p.ServiceLatency == nil {
		return 0
	}
	return p.ServiceLatency.Count
}
