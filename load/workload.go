package load

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rigorbench/rigor/model"
)

// NewWorkload returns a Target that sends w's requests, each picked in
// proportion to its weight. common gives what every request shares:
// Timeout, DisableKeepAlive, HTTP2, SuccessCodes, TLS, and headers added
// to each request that does not set them itself; its Method, URL and Body
// are not used.
//
// Requests are picked from one sequence shared by all workers, built
// from w.Seed: blocks in which each request appears in proportion to its
// weight (integer weights exactly; others to 1 part in 10,000), each
// block shuffled. The shares of the requests sent are therefore exact at
// the end of every block, whatever the run's length. A worker keeps one
// connection per host, whichever request it sends on it.
//
// With a think time, a closed-loop worker pauses after the request before
// sending its next one; the pause is not in any latency. The open loop
// sends on its schedule and does not think.
func NewWorkload(w *Workload, common HTTP) (Target, error) {
	if w == nil || len(w.Requests) == 0 {
		return nil, fmt.Errorf("load: the workload has no requests")
	}
	t := &mixTarget{w: w, addrs: map[string]int{}}
	weights := make([]float64, len(w.Requests))
	var shared *stdTarget // net/http requests share one transport
	protos := map[string]bool{}
	for i, r := range w.Requests {
		if !(r.Weight > 0) || math.IsInf(r.Weight, 0) {
			return nil, fmt.Errorf("load: request %q: weight %v is not positive", r.Name, r.Weight)
		}
		weights[i] = r.Weight
		h := common
		h.Method, h.URL, h.Body = r.Method, r.URL, r.Body
		h.Header = mergeHeaders(r.Header, common.Header)
		tg, err := NewHTTP(h)
		if err != nil {
			return nil, fmt.Errorf("load: request %q: %w", r.Name, err)
		}
		protos[tg.Protocol()] = true
		mr := mixReq{thinkMin: r.ThinkMin, thinkMax: max(r.ThinkMin, r.ThinkMax)}
		switch tg := tg.(type) {
		case *h1Target:
			a, ok := t.addrs[tg.addr]
			if !ok {
				a = len(t.addrs)
				t.addrs[tg.addr] = a
			}
			mr.h1, mr.addr = tg, a
		case *stdTarget:
			if shared == nil {
				shared = tg
			} else {
				tg.tr = shared.tr
			}
			mr.std = tg
		}
		t.reqs = append(t.reqs, mr)
		t.names = append(t.names, r.Name)
	}
	var ps []string
	for p := range protos {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	t.proto = strings.Join(ps, ", ")
	t.pick = newPicker(weights, w.Seed)
	return t, nil
}

// mergeHeaders returns own with the headers of common it does not set.
func mergeHeaders(own, common http.Header) http.Header {
	h := own.Clone()
	if h == nil {
		h = http.Header{}
	}
	for k, v := range common {
		if _, ok := h[k]; !ok && h.Get(k) == "" {
			h[k] = v
		}
	}
	return h
}

type mixTarget struct {
	w       *Workload
	reqs    []mixReq
	names   []string
	addrs   map[string]int // host:port of the plain HTTP/1.1 requests
	proto   string
	pick    *picker
	clients atomic.Uint64
}

type mixReq struct {
	h1                 *h1Target // plain HTTP/1.1, sent on the worker's connection to addr
	addr               int
	std                *stdTarget // https or HTTP/2, through net/http
	thinkMin, thinkMax time.Duration
}

func (t *mixTarget) Name() string                  { return t.w.Source }
func (t *mixTarget) Protocol() string              { return t.proto }
func (t *mixTarget) requestNames() []string        { return t.names }
func (t *mixTarget) describe() *model.RampWorkload { return describeWorkload(t.w) }

func (t *mixTarget) NewClient() Client {
	k := t.clients.Add(1)
	c := &mixClient{t: t, h1: make([]*h1Client, len(t.addrs)), std: make([]*stdClient, len(t.reqs)),
		rng: rand.New(rand.NewPCG(t.w.Seed, k))}
	for _, r := range t.reqs {
		if r.h1 != nil && c.h1[r.addr] == nil {
			c.h1[r.addr] = &h1Client{t: r.h1}
		}
	}
	for i, r := range t.reqs {
		if r.std != nil {
			c.std[i] = r.std.NewClient().(*stdClient)
		}
	}
	return c
}

// mixClient is one worker's client: a connection per host for plain
// HTTP/1.1, net/http's shared pool for the rest.
type mixClient struct {
	t    *mixTarget
	h1   []*h1Client
	std  []*stdClient
	last int // the request sent last, whose think time follows it
	rng  *rand.Rand
}

func (c *mixClient) Do(ctx context.Context) Outcome {
	i := c.t.pick.next()
	c.last = i
	r := &c.t.reqs[i]
	var out Outcome
	if r.h1 != nil {
		hc := c.h1[r.addr]
		hc.t = r.h1 // the same host: the connection carries any of its requests
		out = hc.Do(ctx)
	} else {
		out = c.std[i].Do(ctx)
	}
	out.Request = i
	return out
}

func (c *mixClient) Close() error {
	for _, h := range c.h1 {
		if h != nil {
			h.Close()
		}
	}
	for _, s := range c.std {
		if s != nil {
			s.Close()
		}
	}
	return nil
}

// thinkTime is the pause after the request sent last.
func (c *mixClient) thinkTime() time.Duration {
	r := &c.t.reqs[c.last]
	if r.thinkMax <= r.thinkMin {
		return r.thinkMin
	}
	return r.thinkMin + time.Duration(c.rng.Int64N(int64(r.thinkMax-r.thinkMin)+1))
}

// A thinker is a client that pauses between requests in the closed loop.
type thinker interface{ thinkTime() time.Duration }

// think pauses a closed-loop worker after a request for its client's
// think time, but not past the window's end (we, ns after base).
func think(ctx context.Context, c Client, base time.Time, we int64) {
	th, ok := c.(thinker)
	if !ok {
		return
	}
	if d := th.thinkTime(); d > 0 {
		sleepUntil(ctx, base, min(int64(time.Since(base))+int64(d), we))
	}
}

// picker is a shared sequence of request indexes: blocks in which each
// request appears in proportion to its weight, each shuffled.
type picker struct {
	mu    sync.Mutex
	block []int32
	pos   int
	rng   *rand.Rand
}

// blockParts is the size of a block when the weights are not small
// integers.
const blockParts = 10000

func newPicker(weights []float64, seed uint64) *picker {
	p := &picker{rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	for i, n := range apportion(weights) {
		for range n {
			p.block = append(p.block, int32(i))
		}
	}
	return p
}

// apportion returns how many parts of a block each weight gets: the
// weights themselves, divided by their greatest common divisor, when they
// are integers summing to at most blockParts; otherwise blockParts parts
// shared by the largest-remainder method, each weight getting at least
// one.
func apportion(weights []float64) []int {
	parts := make([]int, len(weights))
	integer, sum := true, 0.0
	for _, w := range weights {
		integer = integer && w == math.Trunc(w)
		sum += w
	}
	if integer && sum <= blockParts {
		g := 0
		for i, w := range weights {
			parts[i] = int(w)
			g = gcd(g, parts[i])
		}
		for i := range parts {
			parts[i] /= g
		}
		return parts
	}
	type rem struct {
		i int
		r float64
	}
	var rems []rem
	total := 0
	for i, w := range weights {
		exact := w / sum * blockParts
		parts[i] = int(exact)
		rems = append(rems, rem{i, exact - float64(parts[i])})
		total += parts[i]
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for k := 0; total < blockParts && k < len(rems); k++ {
		parts[rems[k].i]++
		total++
	}
	for i := range parts {
		parts[i] = max(parts[i], 1)
	}
	return parts
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func (p *picker) next() int {
	if len(p.block) == 1 {
		return 0
	}
	p.mu.Lock()
	if p.pos == 0 {
		p.rng.Shuffle(len(p.block), func(i, j int) { p.block[i], p.block[j] = p.block[j], p.block[i] })
	}
	i := p.block[p.pos]
	if p.pos++; p.pos == len(p.block) {
		p.pos = 0
	}
	p.mu.Unlock()
	return int(i)
}

// A describer is a target that sends a workload and says what it is.
type describer interface{ describe() *model.RampWorkload }

// describeRamp records in r the workload t sends, if any, with the
// caveat that goes with it.
func describeRamp(r *model.Ramp, t Target) {
	d, ok := t.(describer)
	if !ok {
		return
	}
	r.Workload = d.describe()
	think := false
	for _, q := range r.Workload.Requests {
		think = think || q.ThinkMax > 0
	}
	if think && r.Mode == model.RampOpen {
		r.Notes = append(r.Notes, "the think times were not used: the open loop sends on its schedule, whatever a client would have paused")
	}
}

// MixCaveat is what a mix cannot show (Systems Performance §12.2.2);
// every mix's report says it.
const MixCaveat = "a workload file is a simulation: it sends its requests in fixed proportions at a steady load, so it reproduces the mix, not production's bursts or the order of a user's requests"

func describeWorkload(w *Workload) *model.RampWorkload {
	d := &model.RampWorkload{Kind: model.WorkloadMix, Source: w.Source, Format: w.Format, Seed: w.Seed, Caveat: MixCaveat}
	parts := apportion(weightsOf(w))
	total := 0
	for _, n := range parts {
		total += n
	}
	for i, r := range w.Requests {
		d.Requests = append(d.Requests, model.WorkloadRequest{
			Name: r.Name, Method: r.Method, URL: r.URL, Weight: r.Weight,
			Share:    float64(parts[i]) / float64(total),
			ThinkMin: r.ThinkMin, ThinkMax: max(r.ThinkMin, r.ThinkMax),
		})
	}
	return d
}

func weightsOf(w *Workload) []float64 {
	ws := make([]float64, len(w.Requests))
	for i, r := range w.Requests {
		ws[i] = r.Weight
	}
	return ws
}

// RequestSLOs returns the objectives w's requests set.
func (w *Workload) RequestSLOs() []model.RequestSLO {
	var out []model.RequestSLO
	for _, r := range w.Requests {
		if r.SLO != nil {
			out = append(out, *r.SLO)
		}
	}
	return out
}
