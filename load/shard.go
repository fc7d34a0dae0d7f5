package load

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rigorbench/rigor/model"
)

// Shard is one load generator's share of a ramp run from several machines
// at once, when one machine cannot load the target alone. Each of Count
// generators runs the same ramp with its own Index (0 to Count-1):
//
//   - a closed-loop step of c workers gives every shard c/Count workers
//     (integer division) and the first c%Count shards, by index, one more,
//     so that the shards' workers sum to c; each shard needs at least one
//     worker at every step;
//   - an open-loop step of r requests/s gives every shard r/Count.
//
// A shard runs every planned step: it does not stop at the knee or at a
// broken SLO, which only the merged result can judge. Give every shard the
// same Config.Start so that their steps coincide; MergeShards checks that
// their measured windows overlapped.
type Shard struct {
	Index, Count int
	// Config fingerprints what the shards must share beyond the steps
	// (the request, say); MergeShards refuses shards whose Config differ.
	Config string
}

// ShareConcurrency returns shard i of n's share of c workers: c/n, plus
// one for the first c%n shards.
func ShareConcurrency(c, i, n int) int {
	share := c / n
	if i < c%n {
		share++
	}
	return share
}

// ShareRate returns one of n shards' share of a rate: r/n.
func ShareRate(r float64, n int) float64 { return r / float64(n) }

// stepMargin is the time StepPeriod leaves after a step's wait for
// requests in flight, to build its result and close its connections.
const stepMargin = 500 * time.Millisecond

// StepPeriod is how far apart the steps of a ramp with a Config.Start
// begin: the warm-up, the measured window, the longest wait for requests
// in flight after it, and half a second.
func StepPeriod(warmup, duration time.Duration) time.Duration {
	return max(warmup, 0) + duration + drainGrace + stepMargin
}

func (c *Config) checkShard() error {
	s := c.Shard
	if s == nil {
		return nil
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("load: shard %d/%d: want an index from 0 to the count minus one", s.Index, s.Count)
	}
	for _, v := range c.Concurrency {
		if v < s.Count {
			return fmt.Errorf("load: concurrency %d cannot be shared by %d shards: each shard needs at least one worker at every step", v, s.Count)
		}
	}
	return nil
}

// sharded returns the configuration of cfg's shard (its share of every
// step, never stopping early) and the plan it records; cfg itself when it
// is not sharded.
func (c Config) sharded() (Config, *model.RampShard) {
	s := c.Shard
	if s == nil {
		return c, nil
	}
	plan := &model.RampShard{
		Index:       s.Index,
		Count:       s.Count,
		Concurrency: c.Concurrency,
		Rates:       c.Rates,
		Config:      s.Config,
		Start:       c.Start,
	}
	out := c
	out.Concurrency, out.Rates = nil, nil
	for _, v := range c.Concurrency {
		out.Concurrency = append(out.Concurrency, ShareConcurrency(v, s.Index, s.Count))
	}
	for _, v := range c.Rates {
		out.Rates = append(out.Rates, ShareRate(v, s.Count))
	}
	out.Knee = 0
	out.KeepGoing = true
	return out, plan
}

// waitStep sleeps until step i's place on the timeline that begins at
// start, steps period apart; a zero start has no timeline. A step whose
// time has passed (the one before overran) starts at once. It reports
// false when ctx is done first.
func waitStep(ctx context.Context, start time.Time, period time.Duration, i int) bool {
	if start.IsZero() {
		return true
	}
	d := time.Until(start.Add(time.Duration(i) * period))
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// testHookRecord, when a test sets it, is called with every latency (ns)
// recorded in a step's latency histogram, under the recorder's lock.
var testHookRecord func(step int, lat int64)

// keepForMerge stores what merging st with other shards' needs: when its
// window opened and its histograms.
func keepForMerge(st *model.RampStep, rec *stepRecorder, window time.Time) {
	st.WindowStart = window.Round(0)
	h := &model.StepHistograms{Latency: encodeHist(rec.lat), Service: encodeHist(rec.svc), Errors: encodeHist(rec.errLat), SendLag: encodeHist(rec.lag)}
	if *h != (model.StepHistograms{}) {
		st.Histograms = h
	}
}

// encodeHist returns h in HdrHistogram's V2 compressed encoding, base64;
// "" for an empty or missing histogram.
func encodeHist(h *hdrhistogram.Histogram) string {
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "" // it writes to memory: it cannot fail
	}
	return string(b)
}

// maxEncodedHist bounds an encoded histogram read from a file: a step's
// histogram of rigor's geometry is a few kilobytes.
const maxEncodedHist = 1 << 20

// decodeHist decodes a histogram encoded by encodeHist, refusing any of
// another geometry (whose merge would lose precision) before allocating
// it. "" is an empty histogram.
func decodeHist(s string) (*hdrhistogram.Histogram, error) {
	if s == "" {
		return hdrhistogram.New(histMin, histMax, histDigits), nil
	}
	if len(s) > maxEncodedHist {
		return nil, fmt.Errorf("encoded histogram of %d bytes, more than the %d a step's can be", len(s), maxEncodedHist)
	}
	if err := checkHistGeometry(s); err != nil {
		return nil, err
	}
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decoding histogram: %w", err)
	}
	return h, nil
}

// checkHistGeometry reads the header of an encoded histogram and checks
// that its range and precision are rigor's.
func checkHistGeometry(s string) error {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("decoding histogram: %w", err)
	}
	if len(raw) < 8 {
		return errors.New("decoding histogram: too short")
	}
	n := int64(binary.BigEndian.Uint32(raw[4:8]))
	if n > int64(len(raw)-8) {
		return errors.New("decoding histogram: truncated")
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8 : 8+n]))
	if err != nil {
		return fmt.Errorf("decoding histogram: %w", err)
	}
	defer z.Close()
	var hdr struct {
		Cookie, PayloadLength, Offset, Digits int32
		Lowest, Highest                       int64
	}
	if err := binary.Read(io.LimitReader(z, 40), binary.BigEndian, &hdr); err != nil {
		return fmt.Errorf("decoding histogram header: %w", err)
	}
	if hdr.Lowest != histMin || hdr.Highest != histMax || hdr.Digits != histDigits {
		return fmt.Errorf("histogram of range %d..%d ns with %d digits, not rigor's %d..%d with %d: it would not merge exactly",
			hdr.Lowest, hdr.Highest, hdr.Digits, int64(histMin), int64(histMax), histDigits)
	}
	return nil
}
