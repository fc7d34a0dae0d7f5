package gotest

import (
	"fmt"
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
	// Values holds every metric, units tidied as package model tidies
	// them (see model.TidyUnits): "sec/op" for ns/op, us/op and ms/op,
	// "B/s" for MB/s.
	Values []Value

	// fileConfig is Config as a model.Benchmark holds it: without pkg.
	fileConfig map[string]string
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

// value returns r's value of unit, 0 when absent.
func (r *Result) value(unit string) float64 {
	for _, v := range r.Values {
		if v.Unit == unit {
			return v.Value
		}
	}
	return 0
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
// benchstat ignores them. Unit metadata lines ("Unit x/op better=higher
// assume=exact") set the direction and assumption of their unit as
// package model reads them; warnings says, in model.BadMetadata's words,
// each value they hold that is neither, and was ignored.
func ParseResults(stdout string) (results []Result, warnings []string) {
	lines := strings.Split(stdout, "\n")
	r := benchfmt.NewReader(strings.NewReader(stdout), "")
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
		x.fileConfig = model.FileConfig(res.Config)
		x.Name, x.Procs = model.SplitName(string(res.Name))
		x.Iters = int64(res.Iters)
		// us/op and ms/op in seconds, as package model reads them from
		// a file.
		model.TidyUnits(res.Values)
		for _, v := range res.Values {
			// A value that cannot be a measurement (a NaN a benchmark
			// reported with b.ReportMetric, say) is left out, with a
			// warning, as package model leaves out its line: it must
			// not reach the analysis, nor run.json, which refuses it.
			if why := model.Implausible(v.Value, v.Unit); why != "" {
				val, unit := v.Value, v.Unit
				if v.OrigUnit != "" {
					val, unit = v.OrigValue, v.OrigUnit // as printed
				}
				warnings = append(warnings, fmt.Sprintf("%s: value %v %s %s; left out", x.FullName(), val, unit, why))
				continue
			}
			x.Values = append(x.Values, Value{Unit: v.Unit, Value: v.Value})
		}
		if len(x.Values) == 0 {
			continue
		}
		results = append(results, x)
	}
	// Unit metadata lines may follow the results they describe: apply
	// them once all are read.
	units := r.Units()
	noted := map[benchfmt.UnitMetadataKey]bool{}
	for i := range results {
		for j := range results[i].Values {
			v := &results[i].Values[j]
			var bad []*benchfmt.UnitMetadata
			v.Better, v.Assume, bad = model.UnitMetadata(units, v.Unit)
			if v.Assume == "" {
				v.Assume = model.AssumeNothing
			}
			for _, md := range bad {
				if !noted[md.UnitMetadataKey] {
					noted[md.UnitMetadataKey] = true
					warnings = append(warnings, model.BadMetadata(md))
				}
			}
		}
	}
	return results, warnings
}
