package rigor

import (
	"strings"
	"testing"
	"time"
)

func TestConfigDefaults(t *testing.T) {
	got := Config{}.withDefaults()
	want := DefaultConfig()
	if got != want {
		t.Errorf("zero config with defaults = %+v, want %+v", got, want)
	}
	if err := got.validate(); err != nil {
		t.Errorf("default config invalid: %v", err)
	}
	// Set fields survive.
	c := Config{Budget: time.Second, MinRounds: 20, Noise: 0.02}.withDefaults()
	if c.Budget != time.Second || c.MinRounds != 20 || c.Noise != 0.02 || c.MaxRounds != DefaultMaxRounds {
		t.Errorf("withDefaults overwrote set fields: %+v", c)
	}
	// MaxRounds follows a MinRounds above its default.
	if c := (Config{MinRounds: 2000}).withDefaults(); c.MaxRounds != 2000 {
		t.Errorf("MaxRounds = %d, want 2000 (at least MinRounds)", c.MaxRounds)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string // substring of the error; "" for valid
	}{
		{"ok", func(c *Config) {}, ""},
		{"no warm-up", func(c *Config) { c.WarmUp = -1 }, ""},
		{"one round", func(c *Config) { c.MinRounds = 1 }, "min rounds"},
		{"max below min", func(c *Config) { c.MinRounds, c.MaxRounds = 50, 10 }, "max rounds"},
		{"precision 1", func(c *Config) { c.Precision = 1 }, "precision"},
		{"noise 1", func(c *Config) { c.Noise = 1 }, "noise"},
		{"confidence 1", func(c *Config) { c.Confidence = 1 }, "confidence"},
		{"sampling", func(c *Config) { c.Sampling = 7 }, "sampling"},
		{"passes without policy", func(c *Config) { c.Passes = 3 }, "policy"},
		{"processes without policy", func(c *Config) { c.Processes = 2 }, "policy"},
		{"passes with policy", func(c *Config) { c.Passes, c.Policy = 3, Best }, ""},
		{"bad policy", func(c *Config) { c.Policy = "fastest" }, "unknown policy"},
		{"negative budget", func(c *Config) { c.Budget = -time.Second }, "budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.edit(&c)
			err := c.validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"auto", "flat", "linear"} {
		m, err := ParseSamplingMode(s)
		if err != nil || m.String() != s {
			t.Errorf("ParseSamplingMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseSamplingMode("log"); err == nil {
		t.Error("ParseSamplingMode(log): no error")
	}
	for _, s := range []string{"best", "mean", "median"} {
		if p, err := ParsePolicy(s); err != nil || string(p) != s {
			t.Errorf("ParsePolicy(%q) = %v, %v", s, p, err)
		}
	}
	if _, err := ParsePolicy("min"); err == nil {
		t.Error("ParsePolicy(min): no error")
	}
}

func TestBatchSize(t *testing.T) {
	tests := []struct {
		s    BatchSize
		n    int
		want int
	}{
		// Criterion.rs: SmallInput is ceil(n/10) per batch, LargeInput
		// ceil(n/1000), PerIteration 1.
		{SmallInput, 100, 10},
		{SmallInput, 101, 11},
		{SmallInput, 5, 1},
		{LargeInput, 100000, 100},
		{LargeInput, 10, 1},
		{PerIteration, 1000, 1},
		{NumBatches(3), 10, 4},
		{NumIterations(7), 100, 7},
		{NumIterations(7), 5, 5},
		{0, 100, 10}, // the zero value is SmallInput
	}
	for _, tt := range tests {
		if got := tt.s.perBatch(tt.n); got != tt.want {
			t.Errorf("BatchSize(%d).perBatch(%d) = %d, want %d", tt.s, tt.n, got, tt.want)
		}
	}
}
