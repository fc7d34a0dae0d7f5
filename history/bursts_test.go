package history

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// naiveStrongestBurst is strongestBurst's search done the plain way, the
// test's reference: every run's moments and those of its two contexts
// from their own values (two passes, no running sums, no blocks, no
// memo), the strongest run kept by the same rule.
// It also returns the kept run's smaller |t| and the normal bound of
// strongestBurst at the level strict.
func naiveStrongestBurst(u []float64, maxLen, context int, alpha, strict float64) (lo, hi int, p, stat, zStrict float64) {
	n := len(u)
	type run struct{ i, l int }
	var runs []run
	for l := 1; l <= maxLen; l++ {
		for i := 0; i+l <= n; i++ {
			c1, c2 := max(0, i-context), min(n, i+l+context)
			if i-c1 >= minSide && c2-(i+l) >= minSide {
				runs = append(runs, run{i, l})
			}
		}
	}
	if len(runs) == 0 {
		return 0, 0, 1, 0, 0
	}
	level := alpha / float64(len(runs))
	if level > 0.0027 {
		panic("naiveStrongestBurst: a level its shortcut below does not hold for")
	}
	zStrict = distuv.UnitNormal.Quantile(1 - strict/float64(len(runs))/2)
	best, bestStat := 1.0, -1.0
	for _, r := range runs {
		c1, c2 := max(0, r.i-context), min(n, r.i+r.l+context)
		b := momentsOf(u[r.i : r.i+r.l])
		t1, df1 := pooledT(b, momentsOf(u[c1:r.i]))
		t2, df2 := pooledT(b, momentsOf(u[r.i+r.l:c2]))
		// |t| <= 3 has a p-value of at least the normal's 0.0027, above
		// every level searched here (at most 0.05 over 1,000 runs).
		if !(t1*t2 > 0) || math.Abs(t1) <= 3 || math.Abs(t2) <= 3 {
			continue
		}
		p1, p2 := twoSided(t1, df1), twoSided(t2, df2)
		if !(p1 < level) || !(p2 < level) {
			continue
		}
		q, stat := max(p1, p2), min(math.Abs(t1), math.Abs(t2))
		if q < best || q == best && stat > bestStat {
			best, bestStat, lo, hi = q, stat, r.i, r.i+r.l
		}
	}
	if bestStat < 0 {
		return 0, 0, 1, 0, zStrict
	}
	return lo, hi, min(1, best*float64(len(runs))), bestStat, zStrict
}

// TestStrongestBurst checks strongestBurst, without a memo and with one
// kept over a series growing a result at a time (as rigor serve's index
// after each run), against naiveStrongestBurst: the same run, and its
// p-value to 1e-9. The series have bursts of 1 to 10 results placed
// across the blocks' edges (64 starting points a block), steps, and
// noise alone; each is searched at a stricter level, then a looser one
// (the memo's blocks searched at the stricter first). With the longer
// context, some runs the looser level keeps have t statistics the
// stricter level's normal bound drops: the memo must search those
// blocks again.
func TestStrongestBurst(t *testing.T) {
	for _, tc := range []struct {
		context, trials, grow int
		alphas                [2]float64
	}{
		{25, 60, 5, [2]float64{0.001, 0.05}},
		{200, 20, 1, [2]float64{0.001, 0.01}},
	} {
		rng := rand.New(rand.NewPCG(26, uint64(tc.context)))
		var memo burstMemo
		found, looser := 0, 0
		for trial := range tc.trials {
			n := 150 + rng.IntN(200)
			v := make([]float64, n)
			step := 1 + 0.1*float64(trial%3)
			if tc.context > 25 {
				step = 1 // a step in a long context hides a burst
			}
			for i := range v {
				v[i] = 100 * math.Exp(0.01*rng.NormFloat64())
				if i > n/2 {
					v[i] *= step
				}
			}
			if trial%4 != 3 {
				at, l := 60+rng.IntN(10), 1+rng.IntN(10)
				if trial%2 == 0 {
					at = 124 + rng.IntN(10)
				}
				size := 1 + 0.005*float64(1+rng.IntN(16))
				if tc.context > 25 {
					// One result about as far off as the looser level
					// needs: 4.5-5.5 standard deviations.
					l, size = 1, 1.045+0.001*float64(rng.IntN(11))
				}
				for i := at; i < at+l && i < n; i++ {
					v[i] *= size
				}
			}
			kept := make([]int, n)
			for i := range kept {
				kept[i] = i
			}
			for _, alpha := range tc.alphas {
				for m := n - tc.grow; m <= n; m++ {
					wantLo, wantHi, wantP, stat, zStrict := naiveStrongestBurst(v[:m], 10, tc.context, alpha, tc.alphas[0])
					for _, memo := range []*burstMemo{nil, &memo} {
						lo, hi, p, _ := strongestBurst(v[:m], kept[:m], 10, tc.context, alpha, memo)
						if lo != wantLo || hi != wantHi || math.Abs(p-wantP) > 1e-9*wantP {
							t.Errorf("context %d, trial %d, %d results, level %g, memo %v: run [%d, %d) at p %g; want [%d, %d) at p %g", tc.context, trial, m, alpha, memo != nil, lo, hi, p, wantLo, wantHi, wantP)
						}
					}
					if wantP < 1 {
						found++
						if stat <= zStrict {
							looser++
						}
					}
				}
			}
		}
		// The trials must test the search's choice, not only its "none".
		if searches := 2 * (tc.grow + 1) * tc.trials; found < searches/5 {
			t.Errorf("context %d: a burst in %d of %d searches; want more", tc.context, found, searches)
		}
		if tc.context == 200 && looser < 3 {
			t.Errorf("context %d: %d runs kept below the stricter level's bound; want some", tc.context, looser)
		}
		if len(memo.blocks) == 0 {
			t.Errorf("context %d: the memo kept no block", tc.context)
		}
	}
}
