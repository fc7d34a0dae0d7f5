package gotest

import (
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/rigorbench/rigor/model"
)

// A Result is one benchmark result line a test binary printed.
type Result struct {
	// Line is the line as printed, for the side's benchmark file.
	Line string
	// Config is the file configuration in effect (goos, goarch, pkg,
	// cpu, ...), in the order it was printed.
	Config []KeyValue
	// Name is the name without the "Benchmark" prefix and without the
	// GOMAXPROCS suffix: "Build/size=1024". Procs is that suffix, 0
	// when absent.
	Name  string
	Procs int
	Iters int64
	// Values holds every metric, units tidied as benchstat does
	// ("sec/op", "B/s").
	Values []Value
}

// A KeyValue is one configuration line.
type KeyValue struct{ Key, Value string }

// A Value is one metric of a Result.
type Value struct {
	Unit   string
	Value  float64
	Better int    // model.LowerIsBetter or model.HigherIsBetter
	Assume string // model.AssumeNothing or model.AssumeExact
}

// FullName is the name as go test prints it after "Benchmark".
func (r *Result) FullName() string {
	if r.Procs > 0 {
		return r.Name + "-" + strconv.Itoa(r.Procs)
	}
	return r.Name
}

// Config returns the value of the configuration key, "" when absent.
func (r *Result) config(key string) string {
	for _, kv := range r.Config {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// ParseResults returns the benchmark results in a test binary's standard
// output. Lines that are not results or configuration are ignored, as
// benchstat ignores them.
func ParseResults(stdout string) []Result {
	lines := strings.Split(stdout, "\n")
	r := benchfmt.NewReader(strings.NewReader(stdout), "")
	var out []Result
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		var x Result
		if _, line := res.Pos(); line >= 1 && line <= len(lines) {
			x.Line = strings.TrimRight(lines[line-1], "\r")
		}
		for _, c := range res.Config {
			if c.File {
				x.Config = append(x.Config, KeyValue{c.Key, string(c.Value)})
			}
		}
		x.Name, x.Procs = splitProcs(res.Name)
		x.Iters = int64(res.Iters)
		for _, v := range res.Values {
			x.Values = append(x.Values, Value{Unit: v.Unit, Value: v.Value, Better: model.DefaultBetter(v.Unit), Assume: model.AssumeNothing})
		}
		out = append(out, x)
	}
	// Unit metadata lines ("Unit x/op better=higher assume=exact") may
	// follow the results they describe: apply them once all are read.
	units := r.Units()
	for i := range out {
		for j := range out[i].Values {
			v := &out[i].Values[j]
			if m := units[benchfmt.UnitMetadataKey{Unit: v.Unit, Key: "better"}]; m != nil {
				switch m.Value {
				case "higher":
					v.Better = model.HigherIsBetter
				case "lower":
					v.Better = model.LowerIsBetter
				}
			}
			if m := units[benchfmt.UnitMetadataKey{Unit: v.Unit, Key: "assume"}]; m != nil && m.Value == model.AssumeExact {
				v.Assume = model.AssumeExact
			}
		}
	}
	return out
}

// splitProcs splits a benchfmt name ("Build/size=1-8", without the
// Benchmark prefix) into the name and its GOMAXPROCS suffix.
func splitProcs(n benchfmt.Name) (string, int) {
	_, parts := n.Parts()
	full := string(n.Full())
	if len(parts) > 0 {
		last := string(parts[len(parts)-1])
		digits, ok := strings.CutPrefix(last, "-")
		// A suffix that would not print back the same ("-0", "-08")
		// stays part of the name, as package model reads it.
		if p, err := strconv.Atoi(digits); ok && err == nil && p > 0 && strconv.Itoa(p) == digits {
			return strings.TrimSuffix(full, last), p
		}
	}
	return full, 0
}
