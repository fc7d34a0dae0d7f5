package stats

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// The resampled median of a large sample, by its band. medianWeights
// lists all n(n+1)/2 points of the support of an even sample's resampled
// median: 2 million at n = 2,000, where nearly all of the probability
// lies on a few hundred of them. A resample's k-th order statistic falls
// at position a of the sorted sample with a probability that, as a
// function of a, is a Beta(k, n-k+1) density over cells of width 1/n: its
// spread is about sqrt(n)/2 positions. And the k-th and (k+1)-th are b -
// a positions apart with a probability that falls by a factor of about e
// with each position between them, no draw landing there. bandedWeights
// keeps the points within the band where the mass lies, leaving out at
// most bandTail of it (reported by the sum of what it keeps), which moves
// no quantile rigor reports.

// bandTail bounds the probability bandedWeights leaves out on each side
// of the band, and pairTail what it leaves out of each position's pairs.
const (
	bandTail = 1e-16
	pairTail = 1e-19
)

// legendreNodes and legendreWeights are the 20-point Gauss-Legendre rule
// on [-1, 1]: exact for polynomials up to degree 39, so for the densities
// of samples up to 40 values, and within a few ulps for larger samples,
// whose density is smooth over a cell (bandedWeights' tests check the
// cells against exact rational values).
var legendreNodes, legendreWeights = func() ([]float64, []float64) {
	x, w := make([]float64, 20), make([]float64, 20)
	quad.Legendre{}.FixedLocations(x, w, -1, 1)
	return x, w
}()

// orderStatCells are the cells of the k-th order statistic of n draws
// with replacement from positions 1..n, for 2 <= k <= n-1: cell a is the
// probability that it lands at position a (1-based), P(U in ((a-1)/n,
// a/n]) for U ~ Beta(k, n-k+1), the k-th order statistic of n uniform
// draws. The density is f(x) = N x^(k-1) (1-x)^(n-k), N = n! / ((k-1)!
// (n-k)!). In floating point log N, a difference of numbers near n log n,
// carries an error of about n ulps (3e-11 of every probability at n =
// 3,000); so a cell is taken as c ∫ g over it, with g(x) = f(x)/f(x0) at
// the density's mode x0 = (k-1)/(n-1), computed by log1p from x - x0
// (exact to a few ulps wherever the mass lies), and c = f(x0) found by
// normalisation: 1 over the sum of ∫ g dx over the band's cells, which hold
// all but 2 bandTail of the probability.
type orderStatCells struct {
	n, k int
	c    float64 // f(x0): 1 / the sum of ∫ g over the band's cells
	lo   int     // band's first position
	cell []float64
}

func newOrderStatCells(n, k int) *orderStatCells {
	c := &orderStatCells{n: n, k: k}
	lo, hi := c.band()
	c.lo, c.cell = lo, make([]float64, hi-lo+1)
	for a := lo; a <= hi; a++ {
		c.cell[a-lo] = c.integral(a)
	}
	c.c = 1 / compensatedSum(c.cell)
	return c
}

// g is f(x)/f(x0) at x = (a-1+frac)/n, frac in [0, 1]. The exponent's
// two terms are each about n times d = x - x0, and cancel to a few
// units: d is computed from the offset in positions, (a-k) + frac -
// (k-1)/(n-1), whose terms are exact or rounded by an ulp of a number
// below sqrt(n), where x - x0 in floating point would be off by an ulp of
// 1/2, 2 10^-13 of g at n = 3,000.
func (c *orderStatCells) g(a int, frac float64) float64 {
	x := (float64(a-1) + frac) / float64(c.n)
	if x <= 0 || x >= 1 {
		return 0
	}
	n, k := float64(c.n), float64(c.k)
	off := float64(a-c.k) + frac - (k-1)/(n-1)
	return math.Exp((k-1)*math.Log1p(off*(n-1)/(n*(k-1))) + (n-k)*math.Log1p(-off*(n-1)/(n*(n-k))))
}

// integral is ∫ g over cell a, by the Gauss-Legendre rule.
func (c *orderStatCells) integral(a int) float64 {
	sum := 0.0
	for i, t := range legendreNodes {
		sum += legendreWeights[i] * c.g(a, (1+t)/2)
	}
	return sum / (2 * float64(c.n))
}

// at is the probability of cell a, for a in the band.
func (c *orderStatCells) at(a int) float64 { return c.c * c.cell[a-c.lo] }

// band returns the 1-based positions [lo, hi] outside which the order
// statistic falls with probability at most bandTail on each side: P(a <
// lo) = P(U <= (lo-1)/n) and P(a > hi) = P(U > hi/n).
func (c *orderStatCells) band() (lo, hi int) {
	u := distuv.Beta{Alpha: float64(c.k), Beta: float64(c.n - c.k + 1)}
	nf := float64(c.n)
	lo = int(math.Floor(nf*u.Quantile(bandTail))) + 1
	hi = int(math.Ceil(nf * u.Quantile(1-bandTail)))
	return max(lo, 1), min(hi, c.n)
}

// bandedWeights returns medianWeights(n) (the support of the resampled
// median of a sorted sample of n >= 3 values, by positions, and the
// probability of each point), less points of negligible probability:
// those with the lower (or only) middle order statistic outside its band,
// the upper one outside its own, and for each position the pairs farther
// apart than the nearest whose remaining mass is below pairTail.
//
// For odd n the median is the k-th order statistic, k = (n+1)/2, at
// position a with the probability of cell a. For even n, k = n/2, with m =
// n-k, L(a) = (a/n)^k - ((a-1)/n)^k and R(b) = ((n-b+1)/n)^m - ((n-b)/n)^m,
// the middle pair is at positions a < b with probability C(n,k) L(a) R(b)
// (medianDistribution), whose sum over all b > a telescopes to C(n,k) L(a)
// ((n-a)/n)^m: the rest of the k-th order statistic's cell a is the
// probability that both are at a. With y = a/n, and g and c those of the
// k-th order statistic's cells, C(n,k) y^k (1-y)^m = N y^k (1-y)^m / k =
// c y g(y) / k, so that
//
//	C(n,k) L(a) R(b) = c y g(y)/k · E(k, a) · ((n-b+1)/(n-a))^m · E(m, n-b+1)
//
// with E(e, j) = 1 - (1 - 1/j)^e: no factor overflows, underflows or
// cancels.
func bandedWeights(n int) []medianWeight {
	if n%2 == 1 {
		c := newOrderStatCells(n, (n+1)/2)
		w := make([]medianWeight, 0, len(c.cell))
		for i := range c.cell {
			a := c.lo + i
			if p := c.at(a); p > 0 {
				w = append(w, medianWeight{int32(a - 1), int32(a - 1), p})
			}
		}
		return w
	}
	k := n / 2
	nf, kf, mf := float64(n), float64(k), float64(n-k)
	cells := newOrderStatCells(n, k)
	_, top := (&orderStatCells{n: n, k: k + 1}).band()
	// e(p, j) is 1 - (1 - 1/j)^p.
	e := func(p float64, j int) float64 { return -math.Expm1(p * math.Log1p(-1/float64(j))) }
	w := make([]medianWeight, 0, 48*len(cells.cell))
	for i := range cells.cell {
		a := cells.lo + i
		y := float64(a) / nf
		// allPairs is C(n,k) L(a) ((n-a)/n)^m, the pairs from a (0 at a
		// = n, where g is).
		allPairs := cells.c * y * cells.g(a, 1) / kf * e(kf, a)
		for b := a + 1; b <= top; b++ {
			// Left of a's pairs from b on: allPairs ((n-b+1)/(n-a))^m.
			shrink := math.Exp(mf * math.Log1p(-float64(b-a-1)/float64(n-a)))
			if allPairs*shrink < pairTail {
				break
			}
			if p := allPairs * shrink * e(mf, n-b+1); p > 0 {
				w = append(w, medianWeight{int32(a - 1), int32(b - 1), p})
			}
		}
		if p := cells.at(a) - allPairs; p > 0 {
			w = append(w, medianWeight{int32(a - 1), int32(a - 1), p})
		}
	}
	return w
}

// bandedWeightCache holds the bandedWeights of the last few sizes: a
// series' segments have many sizes, so only a few are kept, whatever the
// history's length.
var bandedWeightCache struct {
	sync.Mutex
	sizes []int
	w     [][]medianWeight
}

// bandedWeightsOf returns bandedWeights(n), from the cache when n is one
// of the last 8 sizes asked for.
func bandedWeightsOf(n int) []medianWeight {
	c := &bandedWeightCache
	c.Lock()
	for i, s := range c.sizes {
		if s == n {
			w := c.w[i]
			c.Unlock()
			return w
		}
	}
	c.Unlock()
	w := bandedWeights(n)
	c.Lock()
	if len(c.sizes) == 8 {
		c.sizes, c.w = c.sizes[1:], c.w[1:]
	}
	c.sizes, c.w = append(c.sizes, n), append(c.w, w)
	c.Unlock()
	return w
}

// compensatedSum is the sum of v by Neumaier's compensated summation:
// within an ulp or two of the exact sum, where adding in order loses up
// to len(v) ulps.
func compensatedSum(v []float64) float64 {
	var sum, comp float64
	for _, x := range v {
		t := sum + x
		if math.Abs(sum) >= math.Abs(x) {
			comp += (sum - t) + x
		} else {
			comp += (x - t) + sum
		}
		sum = t
	}
	return sum + comp
}
