package load

import (
	"sort"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rigorbench/rigor/model"
)

// Latencies are recorded in nanoseconds from 1 ns to an hour with three
// significant digits, as wrk2 does.
const (
	histMin    = 1
	histMax    = int64(time.Hour)
	histDigits = 3
	batchSize  = 256
)

// stepRecorder collects one step's measurements. Workers record into
// their own batches and flush them here under a lock every batchSize
// requests, so the hot path takes no lock and allocates nothing.
type stepRecorder struct {
	open   bool  // open loop: latency window keyed on the intended start
	ws, we int64 // measured window, ns since the step's base time
	index  int   // the step's

	mu     sync.Mutex
	lat    *hdrhistogram.Histogram // successes and requests in flight at the window's end: from intended start
	svc    *hdrhistogram.Histogram // the same: from actual send (open loop)
	errLat *hdrhistogram.Histogram // failures
	lag    *hdrhistogram.Histogram // open loop: actual send − intended send
	reqs   *requestRecorder        // a workload's requests, or nil
	tally
	loopCPU  float64       // the busiest event-loop thread's share of a CPU (closedLoop.busiest)
	loopSpun time.Duration // the event loop's time spent spinning (closedLoop.spun)
}

// A tally counts requests by outcome. Each worker keeps its own and hands
// it to the step's when it flushes.
type tally struct {
	successes int64
	failures  int64
	classes   map[string]int64 // failures by error class
	bytes     int64
	sent      int64
	counts    tail
}

// take adds o's counts to t and empties o.
func (t *tally) take(o *tally) {
	t.successes += o.successes
	t.failures += o.failures
	t.bytes += o.bytes
	t.sent += o.sent
	t.counts.merge(o.counts)
	for k, v := range o.classes {
		t.classes[k] += v
		delete(o.classes, k)
	}
	*o = tally{classes: o.classes}
}

// tail counts the requests the window's end caught unfinished.
type tail struct {
	inFlight    int64 // outstanding at the window's end
	inFlightMax int64 // the longest latency recorded for one of them, ns
	doneMax     int64 // the longest latency of a success completed in time, ns
	unfinished  int64 // of which abandoned
	notSent     int64 // open loop: scheduled in the window, never sent
}

func (t *tail) merge(o tail) {
	t.inFlight += o.inFlight
	t.inFlightMax = max(t.inFlightMax, o.inFlightMax)
	t.doneMax = max(t.doneMax, o.doneMax)
	t.unfinished += o.unfinished
	t.notSent += o.notSent
}

func newStepRecorder(open bool, ws, we int64) *stepRecorder {
	r := &stepRecorder{
		open:   open,
		ws:     ws,
		we:     we,
		lat:    hdrhistogram.New(histMin, histMax, histDigits),
		errLat: hdrhistogram.New(histMin, histMax, histDigits),
		tally:  tally{classes: map[string]int64{}},
	}
	if open {
		r.svc = hdrhistogram.New(histMin, histMax, histDigits)
		r.lag = hdrhistogram.New(histMin, histMax, histDigits)
	}
	return r
}

type sample struct {
	lat, svc int64
	class    string
	req      int32 // Outcome.Request
}

// workerRecorder is one worker's batch.
type workerRecorder struct {
	r       *stepRecorder
	n       int
	samples [batchSize]sample
	tally
	reqs []tally // per request of a workload, or nil
}

func (r *stepRecorder) worker() *workerRecorder {
	return &workerRecorder{r: r, tally: tally{classes: map[string]int64{}}, reqs: r.reqs.tallies()}
}

func (w *workerRecorder) in(t int64) bool { return t >= w.r.ws && t < w.r.we }

// outstanding reports whether a request intended to start at intended,
// sent at sent and ending at end was in flight at the window's end and
// belongs to the step's latency: in the closed loop any request sent
// before the end, in the open loop one scheduled in the window.
func (w *workerRecorder) outstanding(intended, sent, end int64) bool {
	return sent < w.r.we && end >= w.r.we && (!w.r.open || w.in(intended))
}

// add records one request intended to start at intended, sent at sent and
// completed at end (ns since the step's base time).
func (w *workerRecorder) add(intended, sent, end int64, out Outcome) {
	sentIn := w.in(sent)
	if sentIn {
		w.sent++
	}
	if w.outstanding(intended, sent, end) {
		w.countRequest(out.Request, sentIn, false, out)
		// It had not completed when the window ended: whatever its
		// outcome, its latency was at least its age then, and leaving it
		// out would hide a stalled request. Its full age goes into the
		// latency; it is not a completion of the window.
		w.counts.inFlight++
		w.counts.inFlightMax = max(w.counts.inFlightMax, end-intended)
		w.push(sample{lat: end - intended, svc: end - sent, req: int32(out.Request)})
		return
	}
	w.countRequest(out.Request, sentIn, w.in(end), out)
	if w.in(end) {
		if out.Class == "" {
			w.successes++
		} else {
			w.failures++
			w.classes[out.Class]++
		}
		w.bytes += out.Bytes
	}
	key := end
	if w.r.open {
		key = intended
	}
	if !w.in(key) {
		return
	}
	if out.Class == "" {
		w.counts.doneMax = max(w.counts.doneMax, end-intended)
	}
	w.push(sample{lat: end - intended, svc: end - sent, class: out.Class, req: int32(out.Request)})
}

// abandon records a request intended to start at intended and sent at
// sent that the step stopped waiting for at at: it is in the latency at
// its age then, a lower bound of its latency.
func (w *workerRecorder) abandon(intended, sent, at int64) {
	if w.outstanding(intended, sent, at) {
		w.counts.unfinished++
	}
	w.add(intended, sent, at, Outcome{Class: ClassCanceled})
}

// skip counts an open-loop request scheduled at intended that was never
// sent.
func (w *workerRecorder) skip(intended int64) {
	if w.in(intended) {
		w.counts.notSent++
	}
}

func (w *workerRecorder) push(s sample) {
	w.samples[w.n] = s
	w.n++
	if w.n == batchSize {
		w.flush()
	}
}

func (w *workerRecorder) flush() {
	r := w.r
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range w.samples[:w.n] {
		if r.lag != nil {
			r.lag.RecordValue(clampHist(s.lat - s.svc))
		}
		if s.class != "" {
			r.errLat.RecordValue(clampHist(s.lat))
			continue
		}
		r.lat.RecordValue(clampHist(s.lat))
		if testHookRecord != nil {
			testHookRecord(r.index, clampHist(s.lat))
		}
		r.reqs.record(s)
		if r.svc != nil {
			r.svc.RecordValue(clampHist(s.svc))
		}
	}
	w.n = 0
	r.tally.take(&w.tally)
	r.reqs.take(w.reqs)
}

func clampHist(v int64) int64 {
	if v < histMin {
		return histMin
	}
	if v > histMax {
		return histMax
	}
	return v
}

func summarize(h *hdrhistogram.Histogram) model.Latency {
	if h == nil || h.TotalCount() == 0 {
		return model.Latency{}
	}
	return model.Latency{
		Count:  h.TotalCount(),
		Min:    time.Duration(h.Min()),
		Mean:   time.Duration(h.Mean()),
		StdDev: time.Duration(h.StdDev()),
		P50:    time.Duration(h.ValueAtQuantile(50)),
		P90:    time.Duration(h.ValueAtQuantile(90)),
		P99:    time.Duration(h.ValueAtQuantile(99)),
		P999:   time.Duration(h.ValueAtQuantile(99.9)),
		Max:    time.Duration(h.Max()),
	}
}

func (r *stepRecorder) errorCounts() []model.ErrorCount {
	var e []model.ErrorCount
	for k, v := range r.classes {
		e = append(e, model.ErrorCount{Class: k, Count: v})
	}
	sort.Slice(e, func(i, j int) bool {
		if e[i].Count != e[j].Count {
			return e[i].Count > e[j].Count
		}
		return e[i].Class < e[j].Class
	})
	return e
}
