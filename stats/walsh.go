package stats

// A walshSelector finds order statistics of the Walsh averages
// (x[i]+x[j])/2, i <= j, of sorted, finite x without listing all
// n(n+1)/2 of them: in O(n log n) expected time and O(n) memory (Johnson
// and Mizoguchi 1978; Monahan 1984, ACM Algorithm 616), where sorting
// them all costs O(n² log n) time and O(n²) memory (at 6000 paired
// rounds, 18 million averages: 144 MB and about two seconds per
// interval, at every interim look).
//
// The averages form an upper-triangular matrix whose row i (j = i..n-1)
// and whose columns are non-decreasing, floating-point rounding included
// (rounding to nearest is monotone). Selection keeps, per row, the
// columns that may still hold the answer, counts the averages below and
// at a random candidate with one pass of two pointers, and cuts the
// candidates on the side the answer is not; once few remain, they are
// listed and selected directly. The value returned is the one sorting
// all the averages would put at that rank, exactly: every average is
// computed by the same expression.
type walshSelector struct {
	x           []float64
	lo, hi      []int // row i's candidates: columns lo[i] to hi[i]-1
	belowP, atP []int // per row, the first column >= and > the pivot
	buf         []float64
	r           rng
}

// walshListMax is how many candidates are listed and selected directly.
const walshListMax = 4096

func newWalshSelector(x []float64) *walshSelector {
	n := len(x)
	return &walshSelector{x: x, lo: make([]int, n), hi: make([]int, n), belowP: make([]int, n), atP: make([]int, n), r: rng{s: 1}}
}

// kth returns the Walsh average of 0-based rank k (0 <= k < n(n+1)/2).
func (w *walshSelector) kth(k int) float64 {
	x, n := w.x, len(w.x)
	avg := func(i, j int) float64 { return (x[i] + x[j]) / 2 }
	for i := range n {
		w.lo[i], w.hi[i] = i, n
	}
	below := 0 // averages cut below the candidates: all smaller than the answer
	cand := n * (n + 1) / 2
	for cand > max(walshListMax, 2*n) {
		// A random candidate is the pivot.
		t := int(w.r.next() % uint64(cand))
		var p float64
		for i := range n {
			if c := w.hi[i] - w.lo[i]; t < c {
				p = avg(i, w.lo[i]+t)
				break
			} else {
				t -= c
			}
		}
		// Row by row, the first column whose average is >= p (and > p):
		// never further right than the row above's, since columns are
		// non-decreasing.
		lt, le := 0, 0
		j1, j2 := n, n
		for i := range n {
			j1, j2 = max(j1, i), max(j2, i)
			for j1 > i && avg(i, j1-1) >= p {
				j1--
			}
			for j2 > i && avg(i, j2-1) > p {
				j2--
			}
			w.belowP[i], w.atP[i] = j1, j2
			lt += j1 - i
			le += j2 - i
		}
		switch {
		case k < lt: // the answer is below p
			for i := range n {
				w.hi[i] = min(w.hi[i], w.belowP[i])
			}
		case k < le:
			return p
		default: // above p
			for i := range n {
				w.lo[i] = max(w.lo[i], w.atP[i])
			}
		}
		cand, below = 0, 0
		for i := range n {
			cand += w.hi[i] - w.lo[i]
			below += w.lo[i] - i
		}
	}
	w.buf = w.buf[:0]
	for i := range n {
		for j := w.lo[i]; j < w.hi[i]; j++ {
			w.buf = append(w.buf, avg(i, j))
		}
	}
	return selectKth(w.buf, k-below)
}
