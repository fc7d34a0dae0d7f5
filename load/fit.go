package load

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/rigorbench/rigor/model"
)

// Fit models.
const (
	ModelAmdahl = "amdahl"
	ModelUSL    = "usl"
)

// minFitPoints is the number of points below which a fit is flagged: with
// three parameters and fewer than six points the coherency term is barely
// determined.
const minFitPoints = 6

// FitAmdahl fits Amdahl's law X(N) = λN / (1 + α(N−1)) to the points
// (n[i], x[i]) by least squares with α ≥ 0 and λ free.
func FitAmdahl(n, x []float64) (*model.ScalingFit, error) {
	return fitScaling(ModelAmdahl, n, x)
}

// FitUSL fits the Universal Scalability Law
// X(N) = λN / (1 + α(N−1) + βN(N−1)) to the points (n[i], x[i]) by
// least squares with α, β ≥ 0 and λ free, and reports the concurrency of
// peak throughput N* = √((1−α)/β).
func FitUSL(n, x []float64) (*model.ScalingFit, error) {
	return fitScaling(ModelUSL, n, x)
}

// uslX is the USL's throughput at concurrency n for p = (α, β, λ).
func uslX(p [3]float64, n float64) float64 {
	return p[2] * n / (1 + p[0]*(n-1) + p[1]*n*(n-1))
}

func fitScaling(kind string, n, x []float64) (*model.ScalingFit, error) {
	if len(n) != len(x) {
		return nil, fmt.Errorf("fit %s: %d concurrencies but %d throughputs", kind, len(n), len(x))
	}
	distinct := map[float64]bool{}
	for i := range n {
		if !(n[i] >= 1) || math.IsInf(n[i], 0) {
			return nil, fmt.Errorf("fit %s: concurrency %v is not at least 1", kind, n[i])
		}
		if !(x[i] >= 0) || math.IsInf(x[i], 0) {
			return nil, fmt.Errorf("fit %s: throughput %v is not a non-negative number", kind, x[i])
		}
		distinct[n[i]] = true
	}
	need := 3
	if kind == ModelAmdahl {
		need = 2
	}
	if len(distinct) < need {
		return nil, fmt.Errorf("fit %s: need at least %d distinct concurrencies, have %d", kind, need, len(distinct))
	}
	p, err := lmFit(n, x, kind == ModelUSL)
	if err != nil {
		return nil, fmt.Errorf("fit %s: %w", kind, err)
	}
	return describeFit(kind, p, n, x), nil
}

// describeFit fills a ScalingFit from fitted parameters: N*, peak, R²,
// residuals, a sampled curve and warnings.
func describeFit(kind string, p [3]float64, n, x []float64) *model.ScalingFit {
	f := &model.ScalingFit{Model: kind, Alpha: p[0], Beta: p[1], Lambda: p[2]}
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var ssRes, ssTot float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range n {
		fit := uslX(p, n[i])
		r := x[i] - fit
		ssRes += r * r
		ssTot += (x[i] - mean) * (x[i] - mean)
		f.Points = append(f.Points, model.FitPoint{N: n[i], X: x[i], Fitted: fit, Residual: r})
		lo, hi = math.Min(lo, n[i]), math.Max(hi, n[i])
	}
	sort.Slice(f.Points, func(i, j int) bool { return f.Points[i].N < f.Points[j].N })
	if ssTot > 0 {
		f.R2 = 1 - ssRes/ssTot
	} else if ssRes == 0 {
		f.R2 = 1
	}
	switch {
	case kind == ModelUSL && p[1] > 0 && p[0] < 1:
		f.NStar = math.Sqrt((1 - p[0]) / p[1])
		f.Peak = uslX(p, f.NStar)
	case kind == ModelUSL && p[1] > 0:
		// α ≥ 1: throughput never rises above λ; the peak is at N = 1.
		f.NStar = 1
		f.Peak = p[2]
	case p[0] > 0:
		f.Peak = p[2] / p[0] // Amdahl's ceiling, also the USL's with β = 0
	}

	if len(n) < minFitPoints {
		f.Warnings = append(f.Warnings, fmt.Sprintf("only %d points: %s's parameters are poorly determined below %d", len(n), modelName(kind), minFitPoints))
	}
	if kind == ModelUSL {
		switch {
		case p[1] == 0:
			f.Warnings = append(f.Warnings, "beta = 0: no coherency cost measured, so the USL has no peak (it reduces to Amdahl)")
		case f.NStar > hi:
			f.Warnings = append(f.Warnings, fmt.Sprintf("N* = %.3g lies beyond the largest concurrency measured (%g): the peak is extrapolated", f.NStar, hi))
		case f.NStar < lo:
			f.Warnings = append(f.Warnings, fmt.Sprintf("N* = %.3g lies below the smallest concurrency measured (%g): the peak is extrapolated", f.NStar, lo))
		}
	}
	if f.R2 < 0.9 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("R² = %.2f: %s does not describe these points well; something the model leaves out is going on", f.R2, modelName(kind)))
	}

	// Sample the curve for plotting up to 1.5× the larger of the largest
	// N measured and N*.
	top := hi
	if f.NStar > top && f.NStar < 4*hi {
		top = f.NStar
	}
	top *= 1.5
	const samples = 64
	for i := 0; i <= samples; i++ {
		v := 1 + (top-1)*float64(i)/samples
		f.Curve = append(f.Curve, model.CurvePoint{N: v, X: uslX(p, v)})
	}
	return f
}

func modelName(kind string) string {
	if kind == ModelUSL {
		return "the USL"
	}
	return "Amdahl's law"
}

// lmFit minimizes Σ (x − X(n))² over (α, β, λ) with α, β ≥ 0 (β fixed at
// 0 unless usl) by a projected Levenberg–Marquardt started from the best
// point of a coarse grid, on which λ is solved exactly.
func lmFit(n, x []float64, usl bool) ([3]float64, error) {
	sse := func(p [3]float64) float64 {
		var s float64
		for i := range n {
			r := x[i] - uslX(p, n[i])
			s += r * r
		}
		return s
	}
	// λ that minimizes the SSE for fixed α, β: x ≈ λ·g with g = N/D.
	bestLambda := func(a, b float64) float64 {
		var num, den float64
		for i := range n {
			g := n[i] / (1 + a*(n[i]-1) + b*n[i]*(n[i]-1))
			num += x[i] * g
			den += g * g
		}
		if den == 0 {
			return 0
		}
		return num / den
	}
	alphas := []float64{0}
	for e := -5.0; e <= 0.5; e += 0.25 {
		alphas = append(alphas, math.Pow(10, e))
	}
	betas := []float64{0}
	if usl {
		for e := -8.0; e <= 0; e += 0.25 {
			betas = append(betas, math.Pow(10, e))
		}
	}
	var start [3]float64
	best := math.Inf(1)
	for _, a := range alphas {
		for _, b := range betas {
			p := [3]float64{a, b, bestLambda(a, b)}
			if s := sse(p); s < best {
				best, start = s, p
			}
		}
	}
	if math.IsInf(best, 1) || math.IsNaN(best) {
		return start, errors.New("no finite starting point")
	}

	// Parameters that move: α, λ, and β for the USL.
	free := []int{0, 2}
	if usl {
		free = []int{0, 1, 2}
	}
	p, s := start, best
	mu := 1e-3
	for iter := 0; iter < 1000; iter++ {
		// Jacobian of the model, J[i][k] = ∂X(n_i)/∂p_k.
		var jtj [3][3]float64
		var g [3]float64 // Jᵀr; the SSE's gradient is −2g
		for i := range n {
			d := 1 + p[0]*(n[i]-1) + p[1]*n[i]*(n[i]-1)
			xi := p[2] * n[i] / d
			r := x[i] - xi
			j := [3]float64{
				-p[2] * n[i] * (n[i] - 1) / (d * d),
				-p[2] * n[i] * n[i] * (n[i] - 1) / (d * d),
				n[i] / d,
			}
			for _, a := range free {
				g[a] += j[a] * r
				for _, b := range free {
					jtj[a][b] += j[a] * j[b]
				}
			}
		}
		// A bounded parameter sitting on its bound whose descent direction
		// points out of the feasible set stays put this iteration.
		var act []int
		for _, k := range free {
			if k != 2 && p[k] <= 0 && g[k] <= 0 {
				continue
			}
			act = append(act, k)
		}
		improved := false
		for !improved && mu < 1e20 {
			delta, ok := solveDamped(jtj, g, act, mu)
			if !ok {
				mu *= 10
				continue
			}
			q := p
			for _, k := range act {
				q[k] += delta[k]
				if k != 2 && q[k] < 0 {
					q[k] = 0
				}
			}
			if sq := sse(q); sq < s {
				rel := (s - sq) / math.Max(s, 1e-300)
				p, s = q, sq
				mu = math.Max(mu/10, 1e-15)
				improved = true
				if rel < 1e-15 {
					return p, nil
				}
			} else {
				mu *= 10
			}
		}
		if !improved {
			break // no step lowers the SSE: a (constrained) minimum
		}
	}
	return p, nil
}

// solveDamped solves (JᵀJ + μ·diag(JᵀJ)) δ = Jᵀr over the parameters in
// act by Gaussian elimination with partial pivoting.
func solveDamped(jtj [3][3]float64, g [3]float64, act []int, mu float64) ([3]float64, bool) {
	var delta [3]float64
	k := len(act)
	if k == 0 {
		return delta, false
	}
	var m [3][4]float64
	for i, a := range act {
		for j, b := range act {
			m[i][j] = jtj[a][b]
		}
		d := jtj[a][a]
		if d == 0 {
			d = 1
		}
		m[i][i] += mu * d
		m[i][k] = g[a]
	}
	for c := 0; c < k; c++ {
		piv := c
		for r := c + 1; r < k; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[piv][c]) {
				piv = r
			}
		}
		if m[piv][c] == 0 || math.IsNaN(m[piv][c]) {
			return delta, false
		}
		m[c], m[piv] = m[piv], m[c]
		for r := c + 1; r < k; r++ {
			f := m[r][c] / m[c][c]
			for cc := c; cc <= k; cc++ {
				m[r][cc] -= f * m[c][cc]
			}
		}
	}
	var sol [3]float64
	for r := k - 1; r >= 0; r-- {
		v := m[r][k]
		for cc := r + 1; cc < k; cc++ {
			v -= m[r][cc] * sol[cc]
		}
		sol[r] = v / m[r][r]
		if math.IsNaN(sol[r]) || math.IsInf(sol[r], 0) {
			return delta, false
		}
	}
	for i, a := range act {
		delta[a] = sol[i]
	}
	return delta, true
}
