package load

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/textproto"
	"net/url"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rigorbench/rigor/model"
)

// ReplayCaveat is what a replay cannot show (Systems Performance
// §12.2.3); every replay's report says it.
const ReplayCaveat = "a replay sends the recorded requests at the recorded times (or as fast as its workers can), whatever the target does: it does not react to latency as real clients do, who wait for a slow response before their next request, retry or leave, so the load a slower or faster system would really get differs from the recording"

// maxReplayGroups bounds the groups a replay's per-request results are
// reported by.
const maxReplayGroups = 20

// A Replay sends the requests of a Recording that were for one host to a
// target, never to the hosts recorded. NewReplay makes one; ReplayRamp
// runs it.
type Replay struct {
	entries []replayEntry // in time order
	names   []string      // the groups
	src     model.ReplaySource
	rec     *Recording
	base    *url.URL // where requests go
	h       HTTP
	h1      *h1Target  // plain HTTP/1.1: the template of a worker's requests
	std     *stdTarget // https or HTTP/2
	proto   string
}

type replayEntry struct {
	at    time.Duration // after the first request
	q     *RecordedRequest
	group int32
}

// NewReplay prepares rec's requests for host (a host name, with a port
// to match only that port; an access log's requests without a host are
// host's) to be sent to h.URL, a scheme://host[:port] URL with no path.
// h's Timeout, DisableKeepAlive, HTTP2, SuccessCodes and TLS apply, and
// its headers replace the recorded ones of the same name. It is an error
// when no request is left for host.
func NewReplay(rec *Recording, host string, h HTTP) (*Replay, error) {
	u, err := url.Parse(h.URL)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("bad URL %q: want http[s]://host[:port]", h.URL)
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		return nil, fmt.Errorf("bad URL %q: a replay sends the recorded paths, so give only scheme://host[:port]", h.URL)
	}
	if host == "" {
		host = u.Host
	}
	rp := &Replay{rec: rec, base: &url.URL{Scheme: u.Scheme, Host: u.Host}, h: h}
	rp.src = model.ReplaySource{Entries: rec.Entries, Host: host, Resolution: rec.Resolution}
	others := map[string]int64{}
	kept := make([]*RecordedRequest, 0, len(rec.Requests))
	for i := range rec.Requests {
		q := &rec.Requests[i]
		if !hostMatches(q.Scheme, q.Host, host) {
			others[q.Host]++
			continue
		}
		kept = append(kept, q)
	}
	for _, c := range sortedCounts(others) {
		rp.src.OtherHosts = append(rp.src.OtherHosts, model.HostCount{Host: c.key, Count: c.n})
	}
	for _, c := range sortedCounts(rec.Skipped) {
		rp.src.Skipped = append(rp.src.Skipped, model.SkipCount{Reason: c.key, Count: c.n})
	}
	if len(kept) == 0 {
		msg := fmt.Sprintf("%s: none of its %d requests is for %s", rec.Source, rec.Entries, host)
		if len(rp.src.OtherHosts) > 0 {
			o := rp.src.OtherHosts[0]
			msg += fmt.Sprintf(" (%d are for %s): name the recorded host to replay with --replay-host", o.Count, o.Host)
		}
		return nil, fmt.Errorf("%s", msg)
	}
	rp.src.Replayed = int64(len(kept))

	// In time order; an access log's whole seconds are spread evenly.
	for i := 1; i < len(kept); i++ {
		if kept[i].At.Before(kept[i-1].At) {
			rp.src.Unordered++
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].At.Before(kept[j].At) })
	first := kept[0].At
	rp.entries = make([]replayEntry, len(kept))
	for i := 0; i < len(kept); {
		j := i
		for j < len(kept) && kept[j].At.Sub(kept[i].At) < rec.Resolution {
			j++
		}
		// Entries i..j-1 share one tick of the clock: spread them across it.
		for k := i; k < j; k++ {
			off := kept[i].At.Sub(first)
			if rec.Resolution > time.Millisecond {
				off += time.Duration(float64(rec.Resolution) * float64(k-i) / float64(j-i))
			}
			rp.entries[k] = replayEntry{at: off, q: kept[k]}
		}
		i = j
	}
	rp.src.Span = rp.entries[len(rp.entries)-1].at

	// Groups for the per-request results: method and path.
	counts := map[string]int64{}
	key := func(q *RecordedRequest) string {
		p, _, _ := strings.Cut(q.Target, "?")
		return q.Method + " " + p
	}
	for _, e := range rp.entries {
		counts[key(e.q)]++
		if m := e.q.Method; len(e.q.Body) == 0 && (m == "POST" || m == "PUT" || m == "PATCH") {
			rp.src.NoBody++
		}
	}
	group := map[string]int32{}
	var other int64
	for i, c := range sortedCounts(counts) {
		if i < maxReplayGroups || len(counts) == maxReplayGroups+1 {
			group[c.key] = int32(len(rp.names))
			rp.names = append(rp.names, c.key)
		} else {
			other += c.n
		}
	}
	if other > 0 {
		rp.names = append(rp.names, "(other)")
	}
	for i := range rp.entries {
		g, ok := group[key(rp.entries[i].q)]
		if !ok {
			g = int32(len(rp.names) - 1)
		}
		rp.entries[i].group = g
	}

	// The target: check h as NewHTTP does and keep its client's template.
	h.URL = rp.base.String() + "/"
	h.Method, h.Body = http.MethodGet, nil
	t, err := NewHTTP(h)
	if err != nil {
		return nil, err
	}
	rp.proto = t.Protocol()
	switch t := t.(type) {
	case *h1Target:
		rp.h1 = t
	case *stdTarget:
		rp.std = t
	}
	return rp, nil
}

// Name is where the replay sends its requests.
func (rp *Replay) Name() string { return rp.base.String() }

// Requests is the number of requests each step sends.
func (rp *Replay) Requests() int { return len(rp.entries) }

func (rp *Replay) describe() *model.RampWorkload {
	d := &model.RampWorkload{Kind: model.WorkloadReplay, Source: rp.rec.Source, Format: rp.rec.Format, Caveat: ReplayCaveat}
	src := rp.src
	d.Replay = &src
	counts := make([]int64, len(rp.names))
	for _, e := range rp.entries {
		counts[e.group]++
	}
	for i, n := range rp.names {
		d.Requests = append(d.Requests, model.WorkloadRequest{Name: n, Share: float64(counts[i]) / float64(len(rp.entries))})
	}
	return d
}

// ReplayRamp replays rp once per step: at the recorded pacing sped up by
// each of paces (open loop: every request is sent at its recorded time
// over the pace, and its latency counts from then), or, with
// cfg.Concurrency, by that many workers as fast as they can (closed
// loop). Every step sends every request: it has no warm-up, and its
// duration is the replay's. cfg's SLO, Knee, KeepGoing, PID, MaxWorkers
// and Progress apply as in Ramp; its Rates, Warmup and Duration do not.
func ReplayRamp(ctx context.Context, rp *Replay, cfg Config, paces []float64) (*model.Ramp, error) {
	switch {
	case len(cfg.Rates) > 0:
		return nil, fmt.Errorf("load: a replay has no rate steps: it is paced by its recording")
	case cfg.Shard != nil:
		return nil, fmt.Errorf("load: a replay is not sharded: every shard would send the whole recording")
	case len(paces) > 0 && len(cfg.Concurrency) > 0:
		return nil, fmt.Errorf("load: replay at paces or at concurrencies, not both")
	case len(paces) == 0 && len(cfg.Concurrency) == 0:
		paces = []float64{1}
	}
	for _, p := range paces {
		if !(p > 0) || p > 1e6 {
			return nil, fmt.Errorf("load: pace %v is not between 0 and 1e6", p)
		}
	}
	check := cfg
	check.Rates = nil
	if len(check.Concurrency) == 0 {
		check.Concurrency = []int{1}
	}
	if err := check.check(); err != nil {
		return nil, err
	}
	r := &model.Ramp{
		Target:       rp.Name(),
		Protocol:     rp.proto,
		Mode:         model.RampClosed,
		StepDuration: rp.src.Span,
		CPUs:         runtime.NumCPU(),
		SLO:          cfg.SLO,
	}
	if cfg.Name != "" {
		r.Target = cfg.Name
	}
	n := len(cfg.Concurrency)
	if len(paces) > 0 {
		r.Mode = model.RampOpen
		n = len(paces)
	}
	if cfg.PID > 0 {
		if _, err := pidSample(cfg.PID); err != nil {
			return nil, err
		}
	}
	maxWorkers := cfg.MaxWorkers
	if maxWorkers <= 0 {
		maxWorkers = DefaultMaxWorkers
	}
	err := steps(ctx, r, &cfg, n, nil, func(i int) (model.RampStep, error) {
		sc := stepConfig{index: i, pid: cfg.PID, maxWorkers: maxWorkers}
		pace := 0.0
		if r.Mode == model.RampOpen {
			pace = paces[i]
		} else {
			sc.workers = cfg.Concurrency[i]
		}
		return replayStep(ctx, rp, sc, pace)
	})
	if err != nil {
		return nil, err
	}
	r.Workload = rp.describe()
	conclude(r)
	return r, nil
}

type replayJob struct {
	i  int
	at int64 // intended send, ns after the step's start
}

// replayStep sends every request of rp once: at its recorded time over
// pace (open loop), or by sc.workers workers as fast as they can.
func replayStep(parent context.Context, rp *Replay, sc stepConfig, pace float64) (model.RampStep, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	open := pace > 0
	rec := newStepRecorder(open, 0, math.MaxInt64)
	rec.reqs = newRequestRecorder(rp.names)
	n := len(rp.entries)
	planned := time.Duration(0) // the open loop's schedule: n requests, one mean gap each
	if open && n > 1 {
		last := time.Duration(float64(rp.entries[n-1].at) / pace)
		planned = time.Duration(float64(last) * float64(n) / float64(n-1))
	}
	offered := 0.0
	if planned > 0 {
		// To 9 digits: planned is whole nanoseconds.
		offered, _ = strconv.ParseFloat(strconv.FormatFloat(float64(n)/planned.Seconds(), 'g', 9, 64), 64)
	}
	obsA := observe(sc)
	base := time.Now()

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		clients  []*replayClient
		workers  int
		lastSent atomic.Int64
	)
	startWorker := func(run func(c *replayClient, w *workerRecorder)) {
		c := rp.newClient()
		mu.Lock()
		clients = append(clients, c)
		workers++
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := rec.worker()
			run(c, w)
			w.flush()
		}()
	}
	if !open {
		var next atomic.Int64
		for range sc.workers {
			startWorker(func(c *replayClient, w *workerRecorder) {
				for ctx.Err() == nil {
					k := next.Add(1) - 1
					if k >= int64(n) {
						return
					}
					s := int64(time.Since(base))
					out := c.send(ctx, &rp.entries[k])
					w.add(s, s, int64(time.Since(base)), out)
				}
			})
		}
	} else {
		queue := make(chan replayJob, 1<<16)
		var busy atomic.Int64
		work := func(c *replayClient, w *workerRecorder) {
			for j := range queue {
				s := int64(time.Since(base))
				busy.Add(1)
				out := c.send(ctx, &rp.entries[j.i])
				e := int64(time.Since(base))
				busy.Add(-1)
				w.add(j.at, s, e, out)
				for {
					old := lastSent.Load()
					if s <= old || lastSent.CompareAndSwap(old, s) {
						break
					}
				}
			}
		}
		initial := min(sc.maxWorkers, max(1, int(offered/1000)))
		for range initial {
			startWorker(work)
		}
		for i := range rp.entries {
			at := int64(float64(rp.entries[i].at) / pace)
			if d := time.Duration(at) - time.Since(base); d > 50*time.Microsecond {
				if !sleepUntil(ctx, base, at) {
					break
				}
			}
			if b := len(queue); b > 0 {
				mu.Lock()
				add := 0
				if int(busy.Load()) >= workers {
					add = min(b, sc.maxWorkers-workers)
				}
				mu.Unlock()
				for range add {
					startWorker(work)
				}
			}
			select {
			case queue <- replayJob{i: i, at: at}:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
		}
		close(queue)
	}
	wg.Wait()
	elapsed := time.Since(base)
	for _, c := range clients {
		c.Close()
	}
	if err := parent.Err(); err != nil {
		return model.RampStep{}, err
	}
	obsB := observe(sc)

	// The open loop's window is the schedule, or as long as the sends
	// took when they fell behind it: the achieved rate then falls below
	// the offered one, as a rate step's does.
	dur := elapsed
	if open && planned > 0 {
		gap := planned / time.Duration(n)
		dur = max(planned, time.Duration(lastSent.Load())+gap)
		sc.rate = offered
	}
	sc.duration = dur
	st := buildStep(sc, rec, [2]observation{obsA, obsB}, workers)
	st.Pace = pace
	if open && planned == 0 {
		st.Notes = append(st.Notes, "the recording has one request, or all at one instant: it has no pacing to keep")
	}
	return st, nil
}

// replayClient is one worker's client for a replay.
type replayClient struct {
	rp  *Replay
	hc  *h1Client
	tt  h1Target // hc's target, its request rebuilt for each send
	std *stdClient
}

func (rp *Replay) newClient() *replayClient {
	c := &replayClient{rp: rp}
	if rp.h1 != nil {
		c.tt = *rp.h1
		c.tt.req = nil // its own buffer: the template's is shared
		c.hc = &h1Client{t: &c.tt}
	} else {
		c.std = rp.std.NewClient().(*stdClient)
	}
	return c
}

func (c *replayClient) send(ctx context.Context, e *replayEntry) Outcome {
	var out Outcome
	if c.hc != nil {
		c.tt.req = c.rp.appendRequest(c.tt.req[:0], e.q)
		c.tt.head = e.q.Method == http.MethodHead
		c.tt.retry = idempotent(e.q.Method)
		out = c.hc.Do(ctx)
	} else {
		out = c.sendStd(ctx, e.q)
	}
	out.Request = int(e.group)
	return out
}

func (c *replayClient) Close() error {
	if c.hc != nil {
		return c.hc.Close()
	}
	return c.std.Close()
}

// header returns q's headers for the new request: the recorded ones,
// those given with the replay (h.Header) replacing theirs.
func (rp *Replay) header(q *RecordedRequest, add func(k, v string)) {
	for i := 0; i+1 < len(q.Header); i += 2 {
		if k := q.Header[i]; rp.h.Header.Get(k) == "" {
			add(k, q.Header[i+1])
		}
	}
	for k, vs := range rp.h.Header {
		if hopHeaders[strings.ToLower(k)] {
			continue
		}
		for _, v := range vs {
			add(k, v)
		}
	}
}

// appendRequest appends q as an HTTP/1.1 request to the replay's host.
func (rp *Replay) appendRequest(b []byte, q *RecordedRequest) []byte {
	b = append(b, q.Method...)
	b = append(b, ' ')
	b = append(b, q.Target...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, rp.base.Host...)
	b = append(b, "\r\n"...)
	ua := false
	rp.header(q, func(k, v string) {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		ua = ua || ck == "User-Agent"
		b = append(b, ck...)
		b = append(b, ": "...)
		b = append(b, v...)
		b = append(b, "\r\n"...)
	})
	if !ua {
		b = append(b, "User-Agent: rigor-ramp\r\n"...)
	}
	if m := q.Method; len(q.Body) > 0 || m == "POST" || m == "PUT" || m == "PATCH" {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(q.Body)), 10)
		b = append(b, "\r\n"...)
	}
	if rp.h.DisableKeepAlive {
		b = append(b, "Connection: close\r\n"...)
	}
	b = append(b, "\r\n"...)
	return append(b, q.Body...)
}

// sendStd sends q through net/http (https, HTTP/2).
func (c *replayClient) sendStd(ctx context.Context, q *RecordedRequest) Outcome {
	t := c.std.t
	if t.h.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.h.Timeout)
		defer cancel()
	}
	u := *c.rp.base
	path, query, _ := strings.Cut(q.Target, "?")
	u.RawQuery = query
	if p, err := url.PathUnescape(path); err == nil {
		u.Path, u.RawPath = p, path
	} else {
		u.Path = path
	}
	req := &http.Request{
		Method: q.Method, URL: &u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Host: u.Host, ContentLength: int64(len(q.Body)),
	}
	c.rp.header(q, func(k, v string) { req.Header.Add(k, v) })
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "rigor-ramp")
	}
	if len(q.Body) > 0 {
		req.Body = io.NopCloser(bytes.NewReader(q.Body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(q.Body)), nil }
	}
	resp, err := t.tr.RoundTrip(req.WithContext(ctx))
	if err != nil {
		return Outcome{Class: stdErrClass(ctx, err)}
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return Outcome{Class: stdErrClass(ctx, err), Bytes: n}
	}
	return Outcome{Class: t.success.class(resp.StatusCode), Bytes: n}
}
