package model

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"
)

// WriteBenchfmt writes side's samples of run in the Go benchmark format,
// which benchstat reads: file configuration lines (pkg, goos, ...) as
// they change, one result line per round with every unit measured in that
// round, and Unit metadata lines for directions and assumptions that
// benchstat would not infer.
//
// Tidied units are written as go test writes them (ns/op, ns/item, MB/s)
// when every value of the unit has an exact decimal form in that unit no
// longer than its tidied one (as values read from go test output do);
// otherwise they are written tidied (7.992e-07 sec/op), which benchstat
// reads as well. Either way, reading the output gives the same values.
// Names are written as go test would, with spaces replaced by
// underscores.
func WriteBenchfmt(w io.Writer, run *Run, side string) error {
	if !slices.ContainsFunc(run.Sides, func(s Side) bool { return s.Label == side }) {
		return fmt.Errorf("writing Go benchmark format: no side %q in the run", side)
	}
	units, order, err := unitsOut(run, side)
	if err != nil {
		return fmt.Errorf("writing Go benchmark format: %w", err)
	}

	bw := benchfmt.NewWriter(w)
	for _, u := range order {
		uo := units[u]
		if uo.better != benchstatBetter(u) {
			v := "lower"
			if uo.better == HigherIsBetter {
				v = "higher"
			}
			if err := bw.Write(&benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u, Key: "better"}, OrigUnit: uo.orig, Value: v}); err != nil {
				return err
			}
		}
		if uo.assume == AssumeExact {
			if err := bw.Write(&benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u, Key: "assume"}, OrigUnit: uo.orig, Value: AssumeExact}); err != nil {
				return err
			}
		}
	}

	var res benchfmt.Result
	for i := range run.Benchmarks {
		bm := &run.Benchmarks[i]
		lines, err := resultLines(bm, side, units)
		if err != nil {
			return fmt.Errorf("writing Go benchmark format: %w", err)
		}
		if len(lines) == 0 {
			continue
		}
		res.Config, err = configOut(bm, res.Config[:0])
		if err != nil {
			return fmt.Errorf("writing Go benchmark format: %w", err)
		}
		res.Name = benchfmt.Name(writtenName(bm.FullName()))
		for _, l := range lines {
			res.Iters = int(l.iters)
			res.Values = l.values
			if err := bw.Write(&res); err != nil {
				return err
			}
		}
	}
	return nil
}

// A unitOut says how one tidied unit is written.
type unitOut struct {
	orig   string  // unit as written: "ns/op" or the tidied unit itself
	factor float64 // benchunit.Tidy's factor from orig to the tidied unit
	better int
	assume string
}

// untidyUnit returns the unit go test would have printed for the tidied
// unit: ns for sec (sec/op, sec/item) and MB/s for B/s, with the factor
// benchunit.Tidy applies to it, or unit and 1.
func untidyUnit(unit string) (string, float64) {
	orig := unit
	if unit == "B/s" {
		orig = "MB/s"
	} else if strings.Contains(unit, "sec") {
		orig = strings.Replace(unit, "sec", "ns", 1)
	}
	if factor, tidy := benchunit.Tidy(1, orig); tidy == unit && factor != 1 {
		return orig, factor
	}
	return unit, 1
}

// unitsOut decides how every unit of side's samples is written, checking
// that each can be written and that its metadata is consistent.
func unitsOut(run *Run, side string) (map[string]*unitOut, []string, error) {
	units := make(map[string]*unitOut)
	var order []string
	for i := range run.Benchmarks {
		bm := &run.Benchmarks[i]
		for j := range bm.Metrics {
			m := &bm.Metrics[j]
			if !slices.ContainsFunc(m.Samples, func(s Sample) bool { return s.Side == side }) {
				continue
			}
			better := m.Better
			if better == 0 {
				better = DefaultBetter(m.Unit)
			}
			assume := m.Assume
			if assume == AssumeNothing {
				assume = ""
			}
			uo := units[m.Unit]
			if uo == nil {
				if err := checkField("unit", m.Unit); err != nil {
					return nil, nil, fmt.Errorf("%s: %w", oneLine(bm.FullName()), err)
				}
				uo = &unitOut{better: better, assume: assume}
				uo.orig, uo.factor = untidyUnit(m.Unit)
				units[m.Unit] = uo
				order = append(order, m.Unit)
			} else if uo.better != better || uo.assume != assume {
				return nil, nil, fmt.Errorf("unit %s has different better/assume settings in different benchmarks (%s), which Go benchmark format cannot express", oneLine(m.Unit), oneLine(bm.FullName()))
			}
			for _, s := range m.Samples {
				if s.Side != side {
					continue
				}
				if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
					return nil, nil, fmt.Errorf("%s: %v %s is not a finite number", oneLine(bm.FullName()), s.Value, oneLine(m.Unit))
				}
				if uo.factor != 1 {
					// Keep go test's unit only if it is exact and no
					// longer than the tidied value.
					if _, prec := untidyValue(s.Value, uo.factor); prec == 0 || prec > shortestDigits(s.Value) {
						uo.orig, uo.factor = m.Unit, 1
					}
				}
			}
		}
	}
	return units, order, nil
}

// untidyValue returns the shortest decimal x such that benchunit.Tidy
// maps x in the scaled unit to exactly v, and its number of significant
// digits; or 0, 0 if there is none.
func untidyValue(v, factor float64) (x float64, digits int) {
	for prec := 1; prec <= 17; prec++ {
		x, err := strconv.ParseFloat(strconv.FormatFloat(v/factor, 'e', prec-1, 64), 64)
		if err == nil && x*factor == v {
			return x, prec
		}
	}
	return 0, 0
}

// shortestDigits is the number of significant digits of the shortest
// decimal that reads back as v.
func shortestDigits(v float64) int {
	s := strconv.FormatFloat(v, 'e', -1, 64)
	mant, _, _ := strings.Cut(strings.TrimPrefix(s, "-"), "e")
	return len(strings.ReplaceAll(mant, ".", ""))
}

// benchstatBetter is the direction benchstat assumes for unit without
// metadata (benchfmt.UnitMetadataMap.GetBetter's defaults).
func benchstatBetter(unit string) int {
	return benchfmt.UnitMetadataMap(nil).GetBetter(unit)
}

type resultLine struct {
	round  int
	iters  int64
	values []benchfmt.Value
}

// resultLines groups side's samples of bm into result lines: one per
// round, or more if a round's samples disagree on the iteration count or
// repeat a unit.
func resultLines(bm *Benchmark, side string, units map[string]*unitOut) ([]resultLine, error) {
	var lines []resultLine
	byRound := make(map[int][]int) // round -> indexes in lines
	for j := range bm.Metrics {
		m := &bm.Metrics[j]
		uo := units[m.Unit]
		for _, s := range m.Samples {
			if s.Side != side {
				continue
			}
			if s.Iters < 1 || int64(int(s.Iters)) != s.Iters {
				return nil, fmt.Errorf("%s: iteration count %d cannot be written", oneLine(bm.FullName()), s.Iters)
			}
			v := benchfmt.Value{Value: s.Value, Unit: m.Unit}
			if uo.factor != 1 {
				v.OrigValue, _ = untidyValue(s.Value, uo.factor)
				v.OrigUnit = uo.orig
			}
			li := -1
			for _, k := range byRound[s.Round] {
				l := &lines[k]
				if l.iters == s.Iters && !slices.ContainsFunc(l.values, func(x benchfmt.Value) bool { return x.Unit == m.Unit }) {
					li = k
					break
				}
			}
			if li < 0 {
				li = len(lines)
				lines = append(lines, resultLine{round: s.Round, iters: s.Iters})
				byRound[s.Round] = append(byRound[s.Round], li)
			}
			lines[li].values = append(lines[li].values, v)
		}
	}
	slices.SortStableFunc(lines, func(a, b resultLine) int { return a.round - b.round })
	return lines, nil
}

// configOut appends bm's file configuration to cfg in go test's order:
// goos, goarch, pkg, cpu, then the other keys sorted.
func configOut(bm *Benchmark, cfg []benchfmt.Config) ([]benchfmt.Config, error) {
	add := func(k, v string) error {
		if v == "" {
			return nil // an empty value means "unset" in Go benchmark format
		}
		if err := checkConfig(k, v); err != nil {
			return fmt.Errorf("%s: %w", oneLine(bm.FullName()), err)
		}
		cfg = append(cfg, benchfmt.Config{Key: k, Value: []byte(v), File: true})
		return nil
	}
	first := []string{"goos", "goarch", "pkg", "cpu"}
	for _, k := range first {
		v := bm.Config[k]
		if k == "pkg" {
			v = bm.Pkg
		}
		if err := add(k, v); err != nil {
			return nil, err
		}
	}
	keys := make([]string, 0, len(bm.Config))
	for k := range bm.Config {
		if !slices.Contains(first, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := add(k, bm.Config[k]); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// checkConfig reports whether k: v reads back as the same configuration.
func checkConfig(k, v string) error {
	ok := k != "" && utf8.ValidString(k)
	for i, r := range k {
		if (i == 0 && !unicode.IsLower(r)) || unicode.IsSpace(r) || unicode.IsUpper(r) || r == ':' {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("configuration key %q cannot be written in Go benchmark format", k)
	}
	if v[0] == ' ' || v[0] == '\t' || strings.ContainsAny(v, "\n\r") {
		return fmt.Errorf("configuration %s: value %q cannot be written in Go benchmark format", k, v)
	}
	return nil
}

// checkField reports whether s can be written as one field of a result
// line.
func checkField(what, s string) error {
	if s == "" || strings.IndexFunc(s, unicode.IsSpace) >= 0 || !utf8.ValidString(s) {
		return fmt.Errorf("%s %q cannot be written in Go benchmark format", what, s)
	}
	return nil
}

// writtenName is name as go test would print it: spaces become
// underscores.
func writtenName(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, name)
}
