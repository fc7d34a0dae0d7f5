package load

import (
	"fmt"
	"sort"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rigorbench/rigor/model"
)

// A target that sends more than one kind of request (a workload, a
// replay) names them, and its clients set Outcome.Request to the index of
// the one each outcome is of. A step then records every request's counts
// and latency beside the step's own, by the same rules.
type requestNamer interface {
	requestNames() []string
}

// requestRecorder is a step's record of each request of a workload.
type requestRecorder struct {
	names []string
	lat   []*hdrhistogram.Histogram // as stepRecorder.lat
	tally []tally
}

func newRequestRecorder(names []string) *requestRecorder {
	r := &requestRecorder{names: names, lat: make([]*hdrhistogram.Histogram, len(names)), tally: make([]tally, len(names))}
	for i := range names {
		r.lat[i] = hdrhistogram.New(histMin, histMax, histDigits)
		r.tally[i].classes = map[string]int64{}
	}
	return r
}

// recordRequests makes rec record each of t's requests, when t has more
// than one.
func recordRequests(rec *stepRecorder, t Target) {
	if n, ok := t.(requestNamer); ok {
		rec.reqs = newRequestRecorder(n.requestNames())
	}
}

// tallies returns a worker's empty tallies, one per request; nil for no
// workload.
func (r *requestRecorder) tallies() []tally {
	if r == nil {
		return nil
	}
	return make([]tally, len(r.names))
}

// countRequest counts out in the tally of request i, as add counts it in
// the step's: sentIn when it was sent in the window, done when it
// completed in it.
func (w *workerRecorder) countRequest(i int, sentIn, done bool, out Outcome) {
	if i < 0 || i >= len(w.reqs) {
		return
	}
	t := &w.reqs[i]
	if sentIn {
		t.sent++
	}
	if !done {
		return
	}
	if out.Class == "" {
		t.successes++
	} else {
		t.failures++
		if t.classes == nil {
			t.classes = map[string]int64{}
		}
		t.classes[out.Class]++
	}
	t.bytes += out.Bytes
}

// record puts a successful (or in-flight) sample in its request's
// latency. The caller holds the step's lock.
func (r *requestRecorder) record(s sample) {
	if r == nil || s.req < 0 || int(s.req) >= len(r.lat) {
		return
	}
	r.lat[s.req].RecordValue(clampHist(s.lat))
}

// take adds a worker's per-request tallies to r's and empties them. The
// caller holds the step's lock.
func (r *requestRecorder) take(ts []tally) {
	if r == nil {
		return
	}
	for i := range ts {
		r.tally[i].take(&ts[i])
	}
}

// results are the step's per-request results over a window of secs
// seconds, when it sent the total requests.
func (r *requestRecorder) results(secs float64, total int64) []model.RampRequestStep {
	if r == nil {
		return nil
	}
	out := make([]model.RampRequestStep, len(r.names))
	for i, name := range r.names {
		t := &r.tally[i]
		q := model.RampRequestStep{
			Name:      name,
			Sent:      t.sent,
			Requests:  t.successes + t.failures,
			Successes: t.successes,
			Latency:   summarize(r.lat[i]),
			Histogram: encodeHist(r.lat[i]),
		}
		if total > 0 {
			q.Share = float64(t.sent) / float64(total)
		}
		if q.Requests > 0 {
			q.ErrorRate = float64(t.failures) / float64(q.Requests)
		}
		if secs > 0 {
			q.Throughput = float64(t.successes) / secs
		}
		for k, v := range t.classes {
			q.Errors = append(q.Errors, model.ErrorCount{Class: k, Count: v})
		}
		sort.Slice(q.Errors, func(a, b int) bool {
			if q.Errors[a].Count != q.Errors[b].Count {
				return q.Errors[a].Count > q.Errors[b].Count
			}
			return q.Errors[a].Class < q.Errors[b].Class
		})
		out[i] = q
	}
	return out
}

// checkRequestSLOs checks each request's objective in slo against the
// step's per-request results, and returns the misses, each prefixed with
// its request's name.
func checkRequestSLOs(st *model.RampStep, slo *model.RampSLO) []string {
	if slo == nil || len(slo.Requests) == 0 {
		return nil
	}
	var miss []string
	for _, o := range slo.Requests {
		found := false
		for i := range st.ByRequest {
			q := &st.ByRequest[i]
			if q.Name != o.Name {
				continue
			}
			found = true
			m := requestMisses(q, o)
			q.SLOMet = len(m) == 0 && st.Valid
			q.SLOMiss = joinPlain(m)
			for _, s := range m {
				miss = append(miss, o.Name+": "+s)
			}
		}
		if !found {
			miss = append(miss, o.Name+": no such request in the step")
		}
	}
	return miss
}

func requestMisses(q *model.RampRequestStep, o model.RequestSLO) []string {
	var miss []string
	if q.Successes == 0 && q.Latency.Count == 0 {
		miss = append(miss, "no request succeeded")
	}
	if o.Latency > 0 && q.Latency.Count > 0 {
		if got, _ := q.Latency.Percentile(o.Percentile); got > o.Latency {
			miss = append(miss, fmt.Sprintf("%s %v > %v", percentileName(o.Percentile), fmtDur(got), o.Latency))
		}
	}
	if o.MaxErrorRate != nil && q.ErrorRate > *o.MaxErrorRate {
		miss = append(miss, fmt.Sprintf("errors %.2f%% > %.2f%%", 100*q.ErrorRate, 100**o.MaxErrorRate))
	}
	return miss
}

// checkRequestSLOConfig checks the per-request objectives of an SLO.
func checkRequestSLOConfig(slo *model.RampSLO) error {
	if slo == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, o := range slo.Requests {
		if o.Name == "" {
			return fmt.Errorf("load: a request's SLO names no request")
		}
		if seen[o.Name] {
			return fmt.Errorf("load: two SLOs for request %q", o.Name)
		}
		seen[o.Name] = true
		if o.Latency > 0 {
			if _, ok := (model.Latency{}).Percentile(o.Percentile); !ok {
				return fmt.Errorf("load: SLO of %q: percentile %v is not one of 50, 90, 99, 99.9, 100", o.Name, o.Percentile)
			}
		}
		if o.MaxErrorRate != nil && (*o.MaxErrorRate < 0 || *o.MaxErrorRate > 1) {
			return fmt.Errorf("load: SLO of %q: error rate %v is not between 0 and 1", o.Name, *o.MaxErrorRate)
		}
	}
	return nil
}

// describeRequestSLOs describes each request's objective.
func describeRequestSLOs(slo *model.RampSLO) []string {
	var out []string
	for _, o := range slo.Requests {
		var parts []string
		if o.Latency > 0 {
			parts = append(parts, fmt.Sprintf("%s ≤ %v", percentileName(o.Percentile), o.Latency))
		}
		if o.MaxErrorRate != nil {
			parts = append(parts, fmt.Sprintf("errors ≤ %g%%", 100**o.MaxErrorRate))
		}
		out = append(out, o.Name+": "+strings.Join(parts, " and "))
	}
	return out
}
