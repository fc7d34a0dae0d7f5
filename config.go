package rigor

import (
	"cmp"
	"errors"
	"fmt"
	"time"
)

// SamplingMode chooses the iteration counts of a benchmark's rounds.
type SamplingMode int

// Sampling modes.
const (
	// Auto picks Flat for a group of several variants. For a single
	// variant it picks Linear when its planned total time stays within
	// twice the budget (Criterion.rs's rule), Flat otherwise.
	//
	// Comparisons rest on per-round ratios, and linear sampling spreads
	// them: its shortest samples carry the cost of switching from another
	// variant (cold caches and branch predictors), its longest ones more
	// preemptions. Measured on fib(21)/fib(20), the middle 80% of the
	// per-round ratios spanned 1.14 to 2.57 with linear sampling and 1.57
	// to 1.65 with flat sampling, in the same second on the same machine.
	Auto SamplingMode = iota
	// Flat gives every round one shared iteration count, jittered by up
	// to ±20% from round to round so that periodic noise cannot lock in.
	Flat
	// Linear gives round k an iteration count of m·d, where the
	// multipliers m = 1..N are shuffled and d is Criterion.rs's
	// d = ceil(budget / (met · N(N+1)/2)), met being the warm-up estimate
	// of the time per iteration summed over the variants. The per-op time
	// is then also estimated as the slope of a line through the origin
	// fitted to (iterations, total time).
	Linear
)

func (m SamplingMode) String() string {
	switch m {
	case Auto:
		return "auto"
	case Flat:
		return "flat"
	case Linear:
		return "linear"
	}
	return fmt.Sprintf("SamplingMode(%d)", int(m))
}

// ParseSamplingMode parses "auto", "flat" or "linear".
func ParseSamplingMode(s string) (SamplingMode, error) {
	for _, m := range []SamplingMode{Auto, Flat, Linear} {
		if m.String() == s {
			return m, nil
		}
	}
	return Auto, fmt.Errorf("unknown sampling mode %q (want auto, flat or linear)", s)
}

// Policy combines repeated passes or processes of the same benchmark.
type Policy string

// Policies, as zenbench's.
const (
	// Best keeps, for every benchmark, the pass with the lowest times: the
	// one least disturbed on a noisy host.
	Best Policy = "best"
	// Mean keeps every pass: rounds from all passes are pooled, so the
	// estimate is their (geometric) mean.
	Mean Policy = "mean"
	// Median keeps, for every benchmark, the pass whose times are the
	// median of the passes: robust to one odd process.
	Median Policy = "median"
)

// ParsePolicy parses "best", "mean" or "median".
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case Best, Mean, Median:
		return p, nil
	}
	return "", fmt.Errorf("unknown policy %q (want best, mean or median)", s)
}

// Config controls how a group is measured. Start from DefaultConfig; a
// zero field means the default.
type Config struct {
	// WarmUp is the time spent running the variants, round-robin with
	// doubling iteration counts, before anything is recorded. It also
	// estimates each variant's time per iteration for calibration. A
	// negative WarmUp runs each variant once, for the estimate only.
	WarmUp time.Duration
	// Budget is the time the measured rounds of one benchmark (one set of
	// parameters) may take. Rounds stop earlier when every comparison is
	// resolved and every variant reached Precision, and later only to
	// reach MinRounds.
	Budget time.Duration
	// MinRounds and MaxRounds bound the number of measured rounds.
	MinRounds, MaxRounds int
	// Precision is the target half-width of each variant's confidence
	// interval, as a fraction of its estimate (0.01 for ±1%). Negative
	// disables the target: rounds then stop as soon as every comparison is
	// resolved.
	Precision float64
	// Noise is the half-width of the band, as a fraction, inside which a
	// change counts as no change (0.01 = ±1%).
	Noise float64
	// Confidence is the level of every confidence interval.
	Confidence float64
	// Sampling chooses the iteration counts of the rounds.
	Sampling SamplingMode
	// Seed seeds the round order, the jitter and the bootstrap. The same
	// seed gives the same schedule.
	Seed uint64
	// KeepLoopOverhead keeps the harness's own loop overhead in the
	// results instead of subtracting it (see B).
	KeepLoopOverhead bool
	// Passes repeats the whole measurement (warm-up, calibration, rounds)
	// in this process; Processes repeats it in fresh processes, re-executing
	// the program. Policy, required when either is above 1, combines them.
	Passes, Processes int
	Policy            Policy
}

// Defaults used by DefaultConfig.
const (
	DefaultWarmUp     = 500 * time.Millisecond
	DefaultBudget     = 3 * time.Second
	DefaultMinRounds  = 10
	DefaultMaxRounds  = 1000
	DefaultPrecision  = 0.01
	DefaultNoise      = 0.01
	DefaultConfidence = 0.95
	DefaultSeed       = 1
)

// DefaultConfig returns the defaults: 500ms warm-up, a 3s budget per
// benchmark, 10 to 1000 rounds, ±1% precision and noise band, 95%
// confidence, automatic sampling, seed 1, one pass in one process.
func DefaultConfig() Config {
	return Config{
		WarmUp:     DefaultWarmUp,
		Budget:     DefaultBudget,
		MinRounds:  DefaultMinRounds,
		MaxRounds:  DefaultMaxRounds,
		Precision:  DefaultPrecision,
		Noise:      DefaultNoise,
		Confidence: DefaultConfidence,
		Seed:       DefaultSeed,
		Passes:     1,
		Processes:  1,
	}
}

// withDefaults fills zero fields from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	c.WarmUp = cmp.Or(c.WarmUp, d.WarmUp)
	c.Budget = cmp.Or(c.Budget, d.Budget)
	c.MinRounds = cmp.Or(c.MinRounds, d.MinRounds)
	c.MaxRounds = cmp.Or(c.MaxRounds, max(d.MaxRounds, c.MinRounds))
	c.Precision = cmp.Or(c.Precision, d.Precision)
	c.Noise = cmp.Or(c.Noise, d.Noise)
	c.Confidence = cmp.Or(c.Confidence, d.Confidence)
	c.Seed = cmp.Or(c.Seed, d.Seed)
	c.Passes = cmp.Or(c.Passes, 1)
	c.Processes = cmp.Or(c.Processes, 1)
	return c
}

// validate reports the first invalid field of a config with defaults
// filled in.
func (c Config) validate() error {
	switch {
	case c.Budget < 0:
		return fmt.Errorf("budget must not be negative, got %v", c.Budget)
	case c.MinRounds < 2:
		return fmt.Errorf("min rounds must be at least 2, got %d", c.MinRounds)
	case c.MaxRounds < c.MinRounds:
		return fmt.Errorf("max rounds (%d) is below min rounds (%d)", c.MaxRounds, c.MinRounds)
	case c.Precision >= 1:
		return fmt.Errorf("precision must be a fraction below 1, got %v", c.Precision)
	case !(c.Noise >= 0 && c.Noise < 1):
		return fmt.Errorf("noise must be a fraction between 0 and 1, got %v", c.Noise)
	case !(c.Confidence > 0 && c.Confidence < 1):
		return fmt.Errorf("confidence must be between 0 and 1, got %v", c.Confidence)
	case c.Sampling < Auto || c.Sampling > Linear:
		return fmt.Errorf("unknown sampling mode %d", int(c.Sampling))
	case c.Passes < 1 || c.Processes < 1:
		return fmt.Errorf("passes and processes must be at least 1, got %d and %d", c.Passes, c.Processes)
	case (c.Passes > 1 || c.Processes > 1) && c.Policy == "":
		return errors.New("several passes or processes need a policy: best, mean or median")
	case c.Policy != "" && c.Policy != Best && c.Policy != Mean && c.Policy != Median:
		return fmt.Errorf("unknown policy %q (want best, mean or median)", c.Policy)
	}
	return nil
}
