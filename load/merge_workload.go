package load

import (
	"fmt"
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rigorbench/rigor/model"
)

// mergeWorkload gives a merged ramp its shards' workload, which must be
// the same requests in every shard. A replay is never sharded.
func mergeWorkload(out *model.Ramp, shards []*ShardResult) error {
	first := shards[0].Ramp.Workload
	for _, s := range shards[1:] {
		w := s.Ramp.Workload
		if (w == nil) != (first == nil) || w != nil && !sameRequests(w.Requests, first.Requests) {
			return fmt.Errorf("%s and %s did not send the same workload", shards[0].Source, s.Source)
		}
	}
	if first != nil && first.Kind == model.WorkloadReplay {
		return fmt.Errorf("%s: a replay is not sharded", shards[0].Source)
	}
	out.Workload = first
	return nil
}

func sameRequests(a, b []model.WorkloadRequest) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Method != b[i].Method || a[i].URL != b[i].URL || a[i].Weight != b[i].Weight {
			return false
		}
	}
	return true
}

// mergeRequests adds to a merged step st the shards' sends, schedule
// error and per-request results: counts add, histograms merge without
// loss, and shares and rates are recomputed from the sums.
func mergeRequests(st *model.RampStep, shards []*ShardResult, k int) error {
	first := shards[0].Ramp.Steps[k]
	lag := hdrhistogram.New(histMin, histMax, histDigits)
	merge := func(into *hdrhistogram.Histogram, enc string, want int64, where string) error {
		h, err := decodeHist(enc)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if h.TotalCount() != want {
			return fmt.Errorf("%s: the histogram holds %d requests, the step says %d", where, h.TotalCount(), want)
		}
		if dropped := into.Merge(h); dropped != 0 {
			return fmt.Errorf("%s: %d values out of range", where, dropped)
		}
		return nil
	}
	for _, s := range shards {
		p := s.Ramp.Steps[k]
		where := fmt.Sprintf("%s step %d", s.Source, k+1)
		st.Sent += p.Sent
		if p.SendLag != nil {
			enc := ""
			if p.Histograms != nil {
				enc = p.Histograms.SendLag
			}
			if err := merge(lag, enc, p.SendLag.Count, where+": send lag"); err != nil {
				return err
			}
		}
		if len(p.ByRequest) != len(first.ByRequest) {
			return fmt.Errorf("%s: %d requests by name where %s has %d", where, len(p.ByRequest), shards[0].Source, len(first.ByRequest))
		}
		for j, q := range p.ByRequest {
			if q.Name != first.ByRequest[j].Name {
				return fmt.Errorf("%s: request %d is %q where %s's is %q", where, j+1, q.Name, shards[0].Source, first.ByRequest[j].Name)
			}
		}
	}
	if lag.TotalCount() > 0 {
		l := summarize(lag)
		st.SendLag = &l
		if st.Histograms == nil {
			st.Histograms = &model.StepHistograms{}
		}
		st.Histograms.SendLag = encodeHist(lag)
	}
	secs := st.Duration.Seconds()
	for j := range first.ByRequest {
		m := model.RampRequestStep{Name: first.ByRequest[j].Name}
		h := hdrhistogram.New(histMin, histMax, histDigits)
		classes := map[string]int64{}
		for _, s := range shards {
			q := s.Ramp.Steps[k].ByRequest[j]
			m.Sent += q.Sent
			m.Requests += q.Requests
			m.Successes += q.Successes
			for _, e := range q.Errors {
				classes[e.Class] += e.Count
			}
			if err := merge(h, q.Histogram, q.Latency.Count, fmt.Sprintf("%s step %d: request %q", s.Source, k+1, m.Name)); err != nil {
				return err
			}
		}
		if st.Sent > 0 {
			m.Share = float64(m.Sent) / float64(st.Sent)
		}
		if m.Requests > 0 {
			m.ErrorRate = float64(m.Requests-m.Successes) / float64(m.Requests)
		}
		if secs > 0 {
			m.Throughput = float64(m.Successes) / secs
		}
		for c, v := range classes {
			m.Errors = append(m.Errors, model.ErrorCount{Class: c, Count: v})
		}
		sort.Slice(m.Errors, func(a, b int) bool {
			if m.Errors[a].Count != m.Errors[b].Count {
				return m.Errors[a].Count > m.Errors[b].Count
			}
			return m.Errors[a].Class < m.Errors[b].Class
		})
		m.Latency = summarize(h)
		m.Histogram = encodeHist(h)
		st.ByRequest = append(st.ByRequest, m)
	}
	return nil
}
