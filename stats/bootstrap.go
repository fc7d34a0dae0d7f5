package stats

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Bootstrap computes percentile bootstrap confidence intervals: it resamples
// the data with replacement Resamples times, computes the statistic on each
// resample, and reports the (1-Confidence)/2 and (1+Confidence)/2 quantiles
// (type 7) of those values around the statistic of the original data, as
// Criterion.rs does.
//
// Results are reproducible: the resamples are cut into fixed chunks, each
// drawn from its own generator derived from Seed and the chunk number, so the
// same Seed gives the same interval whatever Workers or GOMAXPROCS is.
//
// The zero value is usable: 100,000 resamples, 95% confidence, seed 0, one
// worker per GOMAXPROCS.
type Bootstrap struct {
	Resamples  int     // resamples to draw; 0 means 100,000
	Confidence float64 // confidence level in (0, 1); 0 means 0.95
	Seed       uint64  // seed of the resampling streams
	Workers    int     // goroutines to use; 0 means GOMAXPROCS
}

const (
	defaultResamples  = 100_000
	defaultConfidence = 0.95
	// chunkSize is the number of resamples drawn from one stream. It is
	// fixed so that results do not depend on the number of workers.
	chunkSize = 1024
)

func (b Bootstrap) resamples() int {
	if b.Resamples <= 0 {
		return defaultResamples
	}
	return b.Resamples
}

func (b Bootstrap) confidence() float64 {
	if b.Confidence == 0 {
		return defaultConfidence
	}
	return b.Confidence
}

// kernel fills out with the statistic of len(out) resamples drawn from r.
// Each worker gets its own kernel, so a kernel may own scratch buffers.
type kernel func(r *rng, out []float64)

// distribution returns the bootstrap distribution: Resamples values computed
// chunk by chunk, in parallel, each chunk from its own stream.
func (b Bootstrap) distribution(newKernel func() kernel) []float64 {
	dist := make([]float64, b.resamples())
	b.chunks(len(dist), func() func(r *rng, lo, hi int) {
		k := newKernel()
		return func(r *rng, lo, hi int) { k(r, dist[lo:hi]) }
	})
	return dist
}

// chunks cuts n resamples into chunks of chunkSize and runs them on the
// workers, each chunk from its own stream: newWorker returns one worker's
// function, called with the stream and the chunk's resamples [lo, hi).
func (b Bootstrap) chunks(n int, newWorker func() func(r *rng, lo, hi int)) {
	chunks := (n + chunkSize - 1) / chunkSize
	workers := b.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, chunks)
	var next atomic.Int64
	work := func() {
		k := newWorker()
		r := new(rng)
		for {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			*r = newStream(b.Seed, c)
			k(r, c*chunkSize, min((c+1)*chunkSize, n))
		}
	}
	if workers == 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(work)
	}
	wg.Wait()
}

// interval turns a bootstrap distribution (which it reorders) into the
// percentile interval around estimate. Any NaN in dist gives NaN bounds.
func (b Bootstrap) interval(estimate float64, dist []float64) Interval {
	c := b.confidence()
	iv := Interval{Estimate: estimate, Lo: math.NaN(), Hi: math.NaN(), Confidence: c}
	if !(c > 0 && c < 1) || len(dist) == 0 || hasNaN(dist) {
		return iv
	}
	iv.Lo, iv.Hi = selectQuantiles(dist, (1-c)/2, (1+c)/2)
	return iv
}

// nanInterval is the answer for input the bootstrap cannot resample.
func (b Bootstrap) nanInterval() Interval {
	return Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Confidence: b.confidence()}
}

// Statistic returns the bootstrap interval of stat. stat receives a scratch
// slice holding one resample; it may reorder it but must not keep it, and it
// must be safe for concurrent use when Workers != 1.
func (b Bootstrap) Statistic(x []float64, stat func([]float64) float64) Interval {
	if len(x) == 0 || hasNaN(x) {
		return b.nanInterval()
	}
	n := uint64(len(x))
	dist := b.distribution(func() kernel {
		buf := make([]float64, len(x))
		return func(r *rng, out []float64) {
			for i := range out {
				fill(r, buf, x, n)
				out[i] = stat(buf)
			}
		}
	})
	return b.interval(stat(slices.Clone(x)), dist)
}

// fill sets buf to len(buf) values drawn with replacement from x (len n).
func fill(r *rng, buf, x []float64, n uint64) {
	j := 0
	for ; j+1 < len(buf); j += 2 {
		v := r.next()
		buf[j] = x[index(v, n)]
		buf[j+1] = x[index(v>>32, n)]
	}
	if j < len(buf) {
		buf[j] = x[index(r.next(), n)]
	}
}

// sumResample returns the sum of len(x) values drawn with replacement
// from x. Four accumulators keep the floating-point adds from serializing.
func sumResample(r *rng, x []float64) float64 {
	n := uint64(len(x))
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+3 < len(x); j += 4 {
		v, w := r.next(), r.next()
		s0 += x[index(v, n)]
		s1 += x[index(v>>32, n)]
		s2 += x[index(w, n)]
		s3 += x[index(w>>32, n)]
	}
	for ; j < len(x); j++ {
		s0 += x[index(r.next(), n)]
	}
	return (s0 + s1) + (s2 + s3)
}

// Mean returns the bootstrap interval of the mean. It allocates nothing per
// resample and does not sort.
func (b Bootstrap) Mean(x []float64) Interval {
	if len(x) == 0 || hasNaN(x) {
		return b.nanInterval()
	}
	inv := 1 / float64(len(x))
	dist := b.distribution(func() kernel {
		return func(r *rng, out []float64) {
			for i := range out {
				out[i] = sumResample(r, x) * inv
			}
		}
	})
	return b.interval(Mean(x), dist)
}

// StdDev returns the bootstrap interval of the sample standard deviation.
func (b Bootstrap) StdDev(x []float64) Interval {
	if len(x) < 2 || hasNaN(x) {
		return b.nanInterval()
	}
	// Center the data so the one-pass sum of squares loses no precision.
	m := Mean(x)
	c := make([]float64, len(x))
	for i, v := range x {
		c[i] = v - m
	}
	nf := float64(len(x))
	n := uint64(len(x))
	dist := b.distribution(func() kernel {
		return func(r *rng, out []float64) {
			for i := range out {
				var s0, s1, ss0, ss1 float64
				j := 0
				for ; j+1 < len(c); j += 2 {
					w := r.next()
					a, b := c[index(w, n)], c[index(w>>32, n)]
					s0 += a
					ss0 += a * a
					s1 += b
					ss1 += b * b
				}
				if j < len(c) {
					a := c[index(r.next(), n)]
					s0 += a
					ss0 += a * a
				}
				s, ss := s0+s1, ss0+ss1
				out[i] = math.Sqrt(max(0, (ss-s*s/nf)/(nf-1)))
			}
		}
	})
	return b.interval(StdDev(x), dist)
}

// counter resamples by counting: with the data sorted, a resample is fully
// described by how many times it drew each position, and its order
// statistics are found by walking the counts, so no resample is sorted.
type counter struct {
	s      []float64 // the sorted data
	counts []int32
}

func newCounter(sorted []float64) *counter {
	return &counter{s: sorted, counts: make([]int32, len(sorted))}
}

// draw resamples len(s) positions into counts.
func (c *counter) draw(r *rng) {
	clear(c.counts)
	n := uint64(len(c.s))
	j := 0
	for ; j+1 < len(c.s); j += 2 {
		v := r.next()
		c.counts[index(v, n)]++
		c.counts[index(v>>32, n)]++
	}
	if j < len(c.s) {
		c.counts[index(r.next(), n)]++
	}
}

// middle returns the two values at 0-based ranks (n-1)/2 and n/2 of the
// drawn resample; they are equal for odd n.
func (c *counter) middle() (a, b float64) {
	n := len(c.s)
	lo, hi := int32((n-1)/2), int32(n/2)
	i, cum := 0, c.counts[0]
	for cum <= lo {
		i++
		cum += c.counts[i]
	}
	a = c.s[i]
	for cum <= hi {
		i++
		cum += c.counts[i]
	}
	return a, c.s[i]
}

// median returns the type-7 median of the drawn resample.
func (c *counter) median() float64 {
	a, b := c.middle()
	if a == b {
		return a
	}
	return a + 0.5*(b-a)
}

// mad returns the MAD of the drawn resample around its median m. The
// absolute deviations are visited in increasing order by merging the values
// below m (walking down) with those above it (walking up).
func (c *counter) mad(m float64) float64 {
	n := len(c.s)
	lo, hi := int32((n-1)/2), int32(n/2)
	up, _ := slices.BinarySearch(c.s, m) // first value >= m
	down := up - 1
	var cum int32
	var a float64
	haveA := false
	for {
		for down >= 0 && c.counts[down] == 0 {
			down--
		}
		for up < n && c.counts[up] == 0 {
			up++
		}
		var d float64
		if up < n && (down < 0 || c.s[up]-m <= m-c.s[down]) {
			d = c.s[up] - m
			cum += c.counts[up]
			up++
		} else {
			d = m - c.s[down]
			cum += c.counts[down]
			down--
		}
		if !haveA && cum > lo {
			a, haveA = d, true
		}
		if cum > hi {
			return madScale * (a + 0.5*(d-a))
		}
	}
}

// Median returns the bootstrap interval of the median. Resamples are
// summarized by counts over the sorted data, not sorted themselves.
func (b Bootstrap) Median(x []float64) Interval {
	return b.counted(x, Median, func(c *counter) float64 { return c.median() })
}

// MAD returns the bootstrap interval of the MAD (1.4826 times the median
// absolute deviation from the median).
func (b Bootstrap) MAD(x []float64) Interval {
	return b.counted(x, MAD, func(c *counter) float64 { return c.mad(c.median()) })
}

// counted bootstraps an order statistic of x: each resample is drawn as
// counts over the sorted data and summarized by stat, and the estimate is
// estimate(x).
func (b Bootstrap) counted(x []float64, estimate func([]float64) float64, stat func(*counter) float64) Interval {
	if len(x) == 0 || hasNaN(x) {
		return b.nanInterval()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	dist := b.distribution(func() kernel {
		c := newCounter(s)
		return func(r *rng, out []float64) {
			for i := range out {
				c.draw(r)
				out[i] = stat(c)
			}
		}
	})
	return b.interval(estimate(x), dist)
}

// Slope returns the bootstrap interval of Slope(iters, totals), resampling
// (iters[i], totals[i]) pairs, as Criterion.rs does for linear sampling.
func (b Bootstrap) Slope(iters, totals []float64) Interval {
	est := Slope(iters, totals)
	if math.IsNaN(est) || hasNaN(totals) || hasNaN(iters) {
		return b.nanInterval()
	}
	xy := make([]float64, len(iters))
	xx := make([]float64, len(iters))
	for i, x := range iters {
		xy[i] = x * totals[i]
		xx[i] = x * x
	}
	n := uint64(len(xy))
	dist := b.distribution(func() kernel {
		return func(r *rng, out []float64) {
			for i := range out {
				// Two accumulators per sum keep the adds from
				// serializing on their latency.
				var sxy0, sxy1, sxx0, sxx1 float64
				j := 0
				for ; j+1 < len(xy); j += 2 {
					v := r.next()
					k0, k1 := index(v, n), index(v>>32, n)
					sxy0 += xy[k0]
					sxx0 += xx[k0]
					sxy1 += xy[k1]
					sxx1 += xx[k1]
				}
				if j < len(xy) {
					k := index(r.next(), n)
					sxy0 += xy[k]
					sxx0 += xx[k]
				}
				sxy, sxx := sxy0+sxy1, sxx0+sxx1
				out[i] = sxy / sxx
			}
		}
	})
	return b.interval(est, dist)
}

// Ratio returns the bootstrap interval of stat(y)/stat(x) for independent
// (unpaired) samples: each resample draws x and y separately. The estimate
// is stat(y)/stat(x) on the data; 0.9 means y is 10% below x. stat follows
// the rules of Statistic.
func (b Bootstrap) Ratio(x, y []float64, stat func([]float64) float64) Interval {
	if len(x) == 0 || len(y) == 0 || hasNaN(x) || hasNaN(y) {
		return b.nanInterval()
	}
	nx, ny := uint64(len(x)), uint64(len(y))
	dist := b.distribution(func() kernel {
		bx := make([]float64, len(x))
		by := make([]float64, len(y))
		return func(r *rng, out []float64) {
			for i := range out {
				fill(r, bx, x, nx)
				fill(r, by, y, ny)
				out[i] = stat(by) / stat(bx)
			}
		}
	})
	return b.interval(stat(slices.Clone(y))/stat(slices.Clone(x)), dist)
}

// medianRatioResampled is Ratio(x, y, Median) by Monte Carlo, with each
// resample's median found by counting (no sorting, no allocation).
func (b Bootstrap) medianRatioResampled(x, y []float64) Interval {
	if len(x) == 0 || len(y) == 0 || hasNaN(x) || hasNaN(y) {
		return b.nanInterval()
	}
	sx, sy := slices.Sorted(slices.Values(x)), slices.Sorted(slices.Values(y))
	dist := b.distribution(func() kernel {
		cx, cy := newCounter(sx), newCounter(sy)
		return func(r *rng, out []float64) {
			for i := range out {
				cx.draw(r)
				cy.draw(r)
				out[i] = cy.median() / cx.median()
			}
		}
	})
	return b.interval(quantileSorted(sy, 0.5)/quantileSorted(sx, 0.5), dist)
}

// PairedGeoMeanRatio returns the bootstrap interval of the geometric mean of
// y[i]/x[i], resampling the pairs: the change measured by interleaved A/B
// rounds, where round i of x and round i of y ran under the same
// conditions. It bootstraps the mean of log(y[i]/x[i]) and maps the interval
// back with exp. Every value must be positive; otherwise, or if the lengths
// differ, the interval is NaN.
func (b Bootstrap) PairedGeoMeanRatio(x, y []float64) Interval {
	if len(x) != len(y) || len(x) == 0 {
		return b.nanInterval()
	}
	l := make([]float64, len(x))
	for i := range x {
		if !(x[i] > 0 && y[i] > 0) || math.IsInf(x[i], 0) || math.IsInf(y[i], 0) {
			return b.nanInterval()
		}
		l[i] = math.Log(y[i] / x[i])
	}
	iv := b.Mean(l)
	iv.Estimate, iv.Lo, iv.Hi = math.Exp(iv.Estimate), math.Exp(iv.Lo), math.Exp(iv.Hi)
	return iv
}

// selectQuantiles returns the type-7 quantiles p1 <= p2 of d, which must
// not contain NaN. It may reorder d. It never sorts all of d: small inputs
// use quickselect; large ones (bootstrap distributions) bracket each needed
// order statistic between two values of a systematic subsample, keep the
// few values inside the brackets in one pass, and sort only those, falling
// back to quickselect if a bracket misses (possible only for data ordered
// adversarially against the subsample).
func selectQuantiles(d []float64, p1, p2 float64) (q1, q2 float64) {
	n := len(d)
	h1, h2 := float64(n-1)*p1, float64(n-1)*p2
	k1, k2 := int(h1), int(h2)
	interp := func(lo, hi float64, h float64, k int) float64 {
		frac := h - float64(k)
		if frac <= 0 {
			return lo
		}
		return lo + frac*(hi-lo)
	}
	if n >= 1<<14 {
		if v, ok := bracketSelect(d, k1, k2); ok {
			return interp(v[0], v[1], h1, k1), interp(v[2], v[3], h2, k2)
		}
	}
	at := func(k, from int) (v, next float64) {
		v = selectKth(d[from:], k-from)
		if k+1 >= n {
			return v, v
		}
		// Everything after position k is >= d[k]: the next order
		// statistic is the minimum there.
		return v, slices.Min(d[k+1:])
	}
	a, b := at(k1, 0)
	q1 = interp(a, b, h1, k1)
	a, b = at(k2, k1)
	return q1, interp(a, b, h2, k2)
}

// bracketSelect returns the order statistics of d at 0-based ranks k1,
// k1+1, k2 and k2+1 (clamped to n-1), or false if its brackets missed.
func bracketSelect(d []float64, k1, k2 int) ([4]float64, bool) {
	n := len(d)
	const m = 4096 // subsample size
	sub := make([]float64, m)
	for i := range sub {
		sub[i] = d[int(uint64(i)*uint64(n)/m)]
	}
	slices.Sort(sub)
	type bracket struct {
		k      int
		lo, hi float64
		below  int
		keep   []float64
	}
	bs := [2]bracket{{k: k1}, {k: k2}}
	for i := range bs {
		b := &bs[i]
		// The subsample rank of the k-th value has standard deviation
		// about sqrt(m q(1-q)), q = k/n; brackets of ±6 of those (plus
		// a little) miss with probability below 1e-8.
		q := float64(b.k) / float64(n)
		r := int(q * m)
		slack := int(6*math.Sqrt(m*q*(1-q))) + 4
		b.lo, b.hi = math.Inf(-1), math.Inf(1)
		if r-slack > 0 {
			b.lo = sub[r-slack]
		}
		if r+slack+1 < m-1 {
			b.hi = sub[r+slack+1]
		}
		b.keep = make([]float64, 0, 4*slack*n/m+16)
	}
	for _, v := range d {
		if v < bs[0].lo {
			bs[0].below++
		} else if v <= bs[0].hi {
			bs[0].keep = append(bs[0].keep, v)
		}
		if v < bs[1].lo {
			bs[1].below++
		} else if v <= bs[1].hi {
			bs[1].keep = append(bs[1].keep, v)
		}
	}
	var out [4]float64
	for i := range bs {
		b := &bs[i]
		j := b.k - b.below
		if j < 0 || j >= len(b.keep) {
			return out, false
		}
		slices.Sort(b.keep)
		out[2*i] = b.keep[j]
		if j+1 < len(b.keep) {
			out[2*i+1] = b.keep[j+1]
		} else if b.k+1 < n {
			// The next value lies above the bracket.
			return out, false
		} else {
			out[2*i+1] = b.keep[j]
		}
	}
	return out, true
}

// selectKth reorders d so that d[k] is its k-th smallest value (0-based),
// everything before it is <= and everything after it is >=, and returns it.
// It partitions three ways, so runs of equal values (common in bootstrap
// distributions of medians) cost nothing extra.
func selectKth(d []float64, k int) float64 {
	lo, hi := 0, len(d)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		p := median3(d[lo], d[mid], d[hi])
		lt, i, gt := lo, lo, hi
		for i <= gt {
			switch v := d[i]; {
			case v < p:
				d[lt], d[i] = v, d[lt]
				lt++
				i++
			case v > p:
				d[gt], d[i] = v, d[gt]
				gt--
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt - 1
		case k > gt:
			lo = gt + 1
		default:
			return d[k]
		}
	}
	return d[k]
}

func median3(a, b, c float64) float64 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return max(a, b)
}
