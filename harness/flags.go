package harness

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor"
)

// options are the settings Run and Main take from flags and environment
// variables; Measure ignores them.
type options struct {
	saveBaseline  string
	baseline      string
	updateOnPass  bool
	maxRegression float64 // percent; negative disables the gate
	format        string
	out           string
	budget        time.Duration
	processes     int
	passes        int
	policy        string
	// files are the results files this process started (not a flag):
	// processFiles for Run and Main.
	files *fileRegistry
}

// The flags, each with its environment equivalent (RIGOR_ and the name in
// capitals with '-' as '_'). A flag given on the command line wins over
// its variable.
var flagDefs = []struct {
	name, usage string
	set         func(o *options, v string) error
	get         func(o *options) string
}{
	{"save-baseline", "save each group's results as the named `baseline` under .rigor/baselines in the module root",
		func(o *options, v string) error { o.saveBaseline = v; return nil },
		func(o *options) string { return o.saveBaseline }},
	{"baseline", "compare each group's results with the named `baseline` saved earlier",
		func(o *options, v string) error { o.baseline = v; return nil },
		func(o *options) string { return o.baseline }},
	{"update-on-pass", "with -rigor.baseline, save this run as that baseline when the gate passes (as zenbench's --update-on-pass)",
		func(o *options, v string) error { return parseBool(&o.updateOnPass, v) },
		func(o *options) string { return strconv.FormatBool(o.updateOnPass) }},
	{"max-regression", "fail when a comparison regressed by more than this `percent` (negative: off)",
		func(o *options, v string) error { return parseFloat(&o.maxRegression, v) },
		func(o *options) string { return strconv.FormatFloat(o.maxRegression, 'g', -1, 64) }},
	{"format", "report `format`: text, json, csv, md, ...",
		func(o *options, v string) error { o.format = v; return nil },
		func(o *options) string { return o.format }},
	{"out", "write raw results into this `directory` as they are measured: <variant>.txt in Go benchmark format, run.json after every round, <group>.json at the end",
		func(o *options, v string) error { o.out = v; return nil },
		func(o *options) string { return o.out }},
	{"budget", "measuring time per benchmark (`duration`), overriding the group's",
		func(o *options, v string) error { return parseDuration(&o.budget, v) },
		func(o *options) string { return durString(o.budget) }},
	{"processes", "repeat each group in this many fresh `processes` (needs -rigor.policy)",
		func(o *options, v string) error { return parseInt(&o.processes, v) },
		func(o *options) string { return strconv.Itoa(o.processes) }},
	{"passes", "repeat each group this many `times` in each process (needs -rigor.policy)",
		func(o *options, v string) error { return parseInt(&o.passes, v) },
		func(o *options) string { return strconv.Itoa(o.passes) }},
	{"policy", "combine passes and processes: best, mean or median",
		func(o *options, v string) error { o.policy = v; return nil },
		func(o *options) string { return o.policy }},
}

func durString(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

func parseFloat(dst *float64, v string) error {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 1) {
		return fmt.Errorf("not a number: %q", v)
	}
	*dst = f
	return nil
}

func parseBool(dst *bool, v string) error {
	if v == "" {
		*dst = false
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("not true or false: %q", v)
	}
	*dst = b
	return nil
}

func parseInt(dst *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("not a count: %q", v)
	}
	*dst = n
	return nil
}

func parseDuration(dst *time.Duration, v string) error {
	if v == "" {
		*dst = 0
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("not a duration: %q", v)
	}
	*dst = d
	return nil
}

// envName is the environment variable of a flag: RIGOR_MAX_REGRESSION.
func envName(flagName string) string {
	return "RIGOR_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func defaultOptions() *options {
	return &options{maxRegression: -1, format: "text", files: processFiles}
}

// A setting is one -rigor.* flag as the command line gave it. It lives
// in the flag set it is registered on, so that the flags hold no state of
// this package's: Run and Main read them back with readOptions.
type setting struct {
	name  string
	value string
	given bool // on the command line
	set   func(*options, string) error
	get   func(*options) string
}

// String returns the value given, or the default.
func (s *setting) String() string {
	switch {
	case s == nil || s.get == nil: // the zero value the flag package makes
		return ""
	case s.given:
		return s.value
	}
	return s.get(defaultOptions())
}

// IsBoolFlag lets a true-or-false flag stand alone on the command line
// (-rigor.update-on-pass), as the flag package's own booleans do.
func (s *setting) IsBoolFlag() bool { return boolFlags[s.name] }

// boolFlags are the flags that take true or false.
var boolFlags = map[string]bool{"update-on-pass": true}

// Set checks v, so that a bad value fails when the command line is
// parsed, and keeps it.
func (s *setting) Set(v string) error {
	if err := s.set(defaultOptions(), v); err != nil {
		return err
	}
	s.value, s.given = v, true
	return nil
}

// registerFlags registers the -rigor.* flags on fs, unless they are
// there already.
func registerFlags(fs *flag.FlagSet) {
	for _, d := range flagDefs {
		if fs.Lookup("rigor."+d.name) == nil {
			fs.Var(&setting{name: d.name, set: d.set, get: d.get}, "rigor."+d.name, d.usage+" (env "+envName(d.name)+")")
		}
	}
}

// init registers the flags on flag.CommandLine in a test binary, which
// parses its flags before any benchmark runs, so the flags must exist by
// then; other programs get them from Main. flag.CommandLine is the only
// package-level state the flags have.
func init() {
	if testing.Testing() {
		registerFlags(flag.CommandLine)
	}
}

// readOptions returns the options in force: the defaults, overridden by
// the environment variables (read with lookupEnv), overridden by the
// flags given on fs's command line.
func readOptions(fs *flag.FlagSet, lookupEnv func(string) (string, bool)) (*options, error) {
	o := defaultOptions()
	for _, d := range flagDefs {
		if v, ok := lookupEnv(envName(d.name)); ok {
			if err := d.set(o, v); err != nil {
				return nil, fmt.Errorf("%s: %w", envName(d.name), err)
			}
		}
		if f := fs.Lookup("rigor." + d.name); f != nil {
			if s, ok := f.Value.(*setting); ok && s.given {
				if err := d.set(o, s.value); err != nil {
					return nil, fmt.Errorf("-rigor.%s: %w", d.name, err)
				}
			}
		}
	}
	return o, nil
}

// apply overrides a group's configuration with the options.
func (o *options) apply(cfg rigor.Config) (rigor.Config, error) {
	if o.budget > 0 {
		cfg.Budget = o.budget
	}
	if o.processes > 0 {
		cfg.Processes = o.processes
	}
	if o.passes > 0 {
		cfg.Passes = o.passes
	}
	if o.policy != "" {
		p, err := rigor.ParsePolicy(o.policy)
		if err != nil {
			return cfg, err
		}
		cfg.Policy = p
	}
	return cfg, nil
}
