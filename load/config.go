package load

import (
	"errors"
	"fmt"
	"time"

	"github.com/rigorbench/rigor/model"
)

// Defaults for Config.
const (
	DefaultWarmup     = time.Second
	DefaultDuration   = 5 * time.Second
	DefaultMaxWorkers = 1024
)

// Config says how to ramp. Exactly one of Concurrency and Rates is set.
type Config struct {
	// Name overrides the target's name in the report.
	Name string
	// Concurrency lists the closed-loop steps: the number of workers,
	// each sending its next request as soon as its last one completes.
	Concurrency []int
	// Rates lists the open-loop steps in requests/s: requests are sent
	// on a fixed schedule and latency counts from each request's
	// intended start.
	Rates []float64
	// Warmup runs before each step's measured window; zero means
	// DefaultWarmup, negative means none.
	Warmup time.Duration
	// Duration is each step's measured window; zero means
	// DefaultDuration.
	Duration time.Duration
	// Knee stops the ramp after two consecutive steps that each raised
	// throughput by less than this fraction over the best earlier step
	// (0.05 for 5%); zero never stops at the knee.
	Knee float64
	// SLO, when set, is checked at every step; the ramp stops at the
	// first valid step that breaks it unless KeepGoing.
	SLO       *model.RampSLO
	KeepGoing bool
	// PID is the target's process, whose CPU time and context switches
	// are recorded for each step (Linux /proc). A Func target with no
	// PID is measured as this process.
	PID int
	// MaxWorkers caps the open loop's workers (and so its connections);
	// zero means DefaultMaxWorkers.
	MaxWorkers int
	// Progress, if set, is called after each step.
	Progress func(model.RampStep)

	// Shard, when set, runs one generator's share of every step (see
	// Shard); its results are merged with MergeShards.
	Shard *Shard
	// Start, when set, is when the first step's warm-up begins; each
	// later step then begins on a fixed timeline (StepPeriod apart), so
	// that generators started with the same Start load the target
	// together.
	Start time.Time
}

func (c *Config) check() error {
	switch {
	case len(c.Concurrency) > 0 && len(c.Rates) > 0:
		return errors.New("load: set concurrency steps or rate steps, not both")
	case len(c.Concurrency) == 0 && len(c.Rates) == 0:
		return errors.New("load: no steps: set concurrency or rate steps")
	}
	for _, v := range c.Concurrency {
		if v < 1 {
			return fmt.Errorf("load: concurrency %d is not at least 1", v)
		}
	}
	for _, v := range c.Rates {
		if !(v > 0) || v > 1e9 {
			return fmt.Errorf("load: rate %v is not between 0 and 1e9 requests/s", v)
		}
	}
	if c.Duration < 0 {
		return fmt.Errorf("load: negative duration %v", c.Duration)
	}
	if err := c.checkShard(); err != nil {
		return err
	}
	if c.Knee < 0 {
		return fmt.Errorf("load: negative knee threshold %v", c.Knee)
	}
	if s := c.SLO; s != nil {
		if s.Latency > 0 {
			if _, ok := (model.Latency{}).Percentile(s.Percentile); !ok {
				return fmt.Errorf("load: SLO percentile %v is not one of 50, 90, 99, 99.9, 100", s.Percentile)
			}
		}
		if s.MaxErrorRate != nil && (*s.MaxErrorRate < 0 || *s.MaxErrorRate > 1) {
			return fmt.Errorf("load: SLO error rate %v is not between 0 and 1", *s.MaxErrorRate)
		}
		if err := checkRequestSLOConfig(s); err != nil {
			return err
		}
	}
	return nil
}
