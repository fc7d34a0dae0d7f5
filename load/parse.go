package load

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rigorbench/rigor/model"
)

// maxSteps bounds the number of steps a range may expand to.
const maxSteps = 1000

// maxConcurrency bounds a closed-loop step: each worker is a goroutine
// and a connection, and one client cannot open many more connections to
// one address than it has ephemeral ports.
const maxConcurrency = 100000

// ParseConcurrency parses concurrency steps: a list "1,2,4,8", a
// geometric range "1..64x2" (1, 2, 4, ..., 64) or a linear one "8..64+8",
// or lists of them ("1..8x2,12,16").
func ParseConcurrency(s string) ([]int, error) {
	v, err := parseSteps(s, true)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(v))
	for i, f := range v {
		out[i] = int(f)
	}
	return out, nil
}

// ParseRates parses rate steps in requests/s with the same syntax as
// ParseConcurrency: "1000,2000", "1000..8000x2", "500..5000+500".
func ParseRates(s string) ([]float64, error) {
	return parseSteps(s, false)
}

func parseSteps(s string, integer bool) ([]float64, error) {
	what := "rate"
	if integer {
		what = "concurrency"
	}
	num := func(t string) (float64, error) {
		var v float64
		if integer {
			n, err := strconv.Atoi(t)
			if err != nil || n < 1 || n > maxConcurrency {
				return 0, fmt.Errorf("bad %s %q: want a whole number from 1 to %d", what, t, maxConcurrency)
			}
			v = float64(n)
		} else {
			f, err := strconv.ParseFloat(t, 64)
			if err != nil || !(f > 0) || f > 1e9 {
				return 0, fmt.Errorf("bad %s %q: want a number of requests/s above 0", what, t)
			}
			v = f
		}
		return v, nil
	}
	var out []float64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, rest, isRange := strings.Cut(part, "..")
		if !isRange {
			v, err := num(part)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		var hi, step string
		var geometric bool
		if h, f, ok := strings.Cut(rest, "x"); ok {
			hi, step, geometric = h, f, true
		} else if h, d, ok := strings.Cut(rest, "+"); ok {
			hi, step = h, d
		} else {
			return nil, fmt.Errorf("bad %s range %q: want LO..HIxFACTOR or LO..HI+STEP", what, part)
		}
		a, err := num(lo)
		if err != nil {
			return nil, err
		}
		b, err := num(hi)
		if err != nil {
			return nil, err
		}
		if b < a {
			return nil, fmt.Errorf("bad %s range %q: end below start", what, part)
		}
		f, err := strconv.ParseFloat(step, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || (geometric && !(f > 1)) || (!geometric && !(f > 0)) {
			return nil, fmt.Errorf("bad %s range %q: the factor must be above 1, the step above 0", what, part)
		}
		for v := a; v <= b*(1+1e-12); {
			out = append(out, v)
			if len(out) > maxSteps {
				return nil, fmt.Errorf("bad %s steps %q: more than %d steps", what, s, maxSteps)
			}
			next := v + f
			if geometric {
				next = v * f
			}
			if integer {
				next = math.Round(next)
				if next <= v {
					next = v + 1
				}
			}
			v = next
		}
	}
	if len(out) > maxSteps {
		return nil, fmt.Errorf("bad %s steps %q: more than %d steps", what, s, maxSteps)
	}
	return out, nil
}

// ParseSLO parses service-level objectives separated by commas:
// "p99=50ms", "p99.9=200ms", "max=1s", "errors=1%" (or "errors=0.01"),
// and adds them to slo, which may be nil.
func ParseSLO(s string, slo *model.RampSLO) (*model.RampSLO, error) {
	if slo == nil {
		slo = &model.RampSLO{}
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || v == "" {
			return nil, fmt.Errorf("bad SLO %q: want p99=50ms or errors=1%%", part)
		}
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		switch {
		case k == "errors" || k == "error" || k == "error-rate":
			var f float64
			var err error
			if p, found := strings.CutSuffix(v, "%"); found {
				f, err = strconv.ParseFloat(p, 64)
				f /= 100
			} else {
				f, err = strconv.ParseFloat(v, 64)
			}
			if err != nil || !(f >= 0) || f > 1 {
				return nil, fmt.Errorf("bad SLO %q: the error rate must be between 0%% and 100%%", part)
			}
			slo.MaxErrorRate = &f
		case k == "max" || strings.HasPrefix(k, "p"):
			p := 100.0
			if k != "max" {
				var err error
				p, err = strconv.ParseFloat(k[1:], 64)
				if err != nil {
					return nil, fmt.Errorf("bad SLO %q: unknown percentile %q", part, k)
				}
			}
			if _, ok := (model.Latency{}).Percentile(p); !ok {
				return nil, fmt.Errorf("bad SLO %q: the percentile must be p50, p90, p99, p99.9 or max", part)
			}
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("bad SLO %q: want a positive duration such as 50ms", part)
			}
			if slo.Latency > 0 && slo.Percentile != p {
				return nil, fmt.Errorf("bad SLO %q: one latency objective at a time (already %s)", part, percentileName(slo.Percentile))
			}
			slo.Percentile, slo.Latency = p, d
		default:
			return nil, fmt.Errorf("bad SLO %q: want pNN=DURATION or errors=PERCENT", part)
		}
	}
	return slo, nil
}

// HTTP status codes a success code may be: three digits.
const (
	minStatus = 100
	maxStatus = 999
)

// ParseStatusCodes parses HTTP status codes separated by commas: single
// codes ("304"), ranges ("200-299") and classes ("2xx"). It returns the
// codes in increasing order, each once.
func ParseStatusCodes(s string) ([]int, error) {
	var set statusSet
	code := func(t, part string) (int, error) {
		n, err := strconv.Atoi(t)
		if err != nil || len(t) != 3 || n < minStatus || n > maxStatus {
			return 0, fmt.Errorf("bad status code %q in %q: want three digits from %d to %d, a range 200-299 or a class 2xx", t, part, minStatus, maxStatus)
		}
		return n, nil
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		var lo, hi int
		var err error
		switch a, b, isRange := strings.Cut(part, "-"); {
		case isRange:
			if lo, err = code(strings.TrimSpace(a), part); err != nil {
				return nil, err
			}
			if hi, err = code(strings.TrimSpace(b), part); err != nil {
				return nil, err
			}
			if hi < lo {
				return nil, fmt.Errorf("bad status range %q: end below start", part)
			}
		case len(part) == 3 && part[0] >= '1' && part[0] <= '9' && strings.EqualFold(part[1:], "xx"):
			lo = int(part[0]-'0') * 100
			hi = lo + 99
		default:
			if lo, err = code(part, part); err != nil {
				return nil, err
			}
			hi = lo
		}
		for c := lo; c <= hi; c++ {
			set.add(c)
		}
	}
	var out []int
	for c := minStatus; c <= maxStatus; c++ {
		if set.has(c) {
			out = append(out, c)
		}
	}
	return out, nil
}
