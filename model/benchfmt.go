package model

import (
	"bufio"
	"bytes"
	"errors"
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

// maxParseNotes caps the per-line parse warnings kept in Run.Notes; the
// rest are counted in one final note.
const maxParseNotes = 10

// A sideBuilder accumulates the benchmark results of one input into a Run
// whose only side is side. Lookups are by map, so building is linear in
// the number of results.
type sideBuilder struct {
	run    *Run
	source string // input name, for notes and errors
	side   string

	bench  map[string]map[string]int // pkg -> full name -> index in run.Benchmarks
	metric map[metricKey]int         // (benchmark, unit) -> index in its Metrics
	rounds []int                     // results seen so far, per benchmark
	// maxRounds is the most results of any benchmark so far: the
	// capacity a new metric's samples start with (go test -count).
	maxRounds int
	// configNoted marks benchmarks whose configuration change has
	// already been noted.
	configNoted map[int]bool

	results   int
	parseErrs []string // first maxParseNotes per-line warnings
	moreErrs  int      // warnings beyond those

	// pkg caches the last "pkg" configuration value, to avoid
	// allocating a string per result.
	pkgBytes []byte
	pkg      string
}

type metricKey struct {
	bench int
	unit  string
}

func newSideBuilder(source, side string) *sideBuilder {
	return &sideBuilder{
		run: &Run{
			SchemaVersion: SchemaVersion,
			Kind:          KindFiles,
			Sides:         []Side{{Label: side, Source: source}},
			Benchmarks:    []Benchmark{},
		},
		source:      source,
		side:        side,
		bench:       make(map[string]map[string]int),
		metric:      make(map[metricKey]int),
		configNoted: make(map[int]bool),
	}
}

// warn records a per-line warning, as benchstat prints one and goes on.
func (b *sideBuilder) warn(msg string) {
	if len(b.parseErrs) < maxParseNotes {
		b.parseErrs = append(b.parseErrs, msg)
		return
	}
	b.moreErrs++
}

// scan reads Go benchmark format from r with br (reset to r), adding every
// result. defaultPkg is the package of results that have no "pkg"
// configuration. It returns only I/O errors; malformed lines become
// warnings.
func (b *sideBuilder) scan(br *benchfmt.Reader, r io.Reader, name, defaultPkg string) error {
	br.Reset(r, name)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			b.warn(rec.Error() + "; line skipped")
		case *benchfmt.Result:
			b.add(rec, defaultPkg)
		}
	}
	if err := br.Err(); err != nil {
		var long *LineTooLongError
		if errors.As(err, &long) {
			return long // it names the input and the line already
		}
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s: a line is longer than 64 KiB, so this is not Go benchmark format (%w)", name, bufio.ErrTooLong)
		}
		return err
	}
	return nil
}

// add adds one result line.
func (b *sideBuilder) add(res *benchfmt.Result, defaultPkg string) {
	where := func() string {
		fileName, line := res.Pos()
		return fileName + ":" + strconv.Itoa(line)
	}
	if res.Iters < 1 {
		b.warn(fmt.Sprintf("%s: iteration count %d is not positive; line skipped", where(), res.Iters))
		return
	}
	if !utf8.Valid(res.Name) {
		b.warn(where() + ": benchmark name is not valid UTF-8; line skipped")
		return
	}
	for i := range res.Values {
		v := &res.Values[i]
		if !utf8.ValidString(v.Unit) {
			b.warn(where() + ": unit is not valid UTF-8; line skipped")
			return
		}
		if v.Value == 0 && v.OrigUnit == "" {
			// benchfmt leaves the unit of a zero value untidied
			// ("0 ns/op" stays ns/op); tidy it like any other.
			_, v.Unit = benchunit.Tidy(0, v.Unit)
		}
		tidyTime(v)
		// A value that cannot be a measurement skips its line, as a
		// malformed line does. It is judged as tidied, and a nonzero
		// value that tidies to zero (5e-324 ns/op is 0 sec/op) is as
		// small as that; the note shows it as written.
		why := Implausible(v.Value, v.Unit)
		if why == "" && v.Value == 0 && v.OrigUnit != "" && v.OrigValue != 0 {
			why = Implausible(math.SmallestNonzeroFloat64, v.Unit)
		}
		if why != "" {
			val, unit := v.Value, v.Unit
			if v.OrigUnit != "" {
				val, unit = v.OrigValue, v.OrigUnit
			}
			b.warn(fmt.Sprintf("%s: value %v %s %s; line skipped", where(), val, unit, why))
			return
		}
	}
	if u, ok := repeatedUnit(res.Values); ok {
		b.warn(fmt.Sprintf("%s: unit %s appears twice; line skipped", where(), u))
		return
	}

	pkg := defaultPkg
	if i, ok := res.ConfigIndex("pkg"); ok && res.Config[i].File && len(res.Config[i].Value) > 0 {
		if v := res.Config[i].Value; !bytes.Equal(v, b.pkgBytes) {
			b.pkgBytes = append(b.pkgBytes[:0], v...)
			b.pkg = validString(v)
		}
		pkg = b.pkg
	}

	byName := b.bench[pkg]
	if byName == nil {
		byName = make(map[string]int)
		b.bench[pkg] = byName
	}
	bi, ok := byName[string(res.Name)]
	if !ok {
		bi = len(b.run.Benchmarks)
		byName[string(res.Name)] = bi
		name, procs := SplitName(string(res.Name))
		b.run.Benchmarks = append(b.run.Benchmarks, Benchmark{
			Name:    name,
			Procs:   procs,
			Pkg:     pkg,
			Config:  FileConfig(res.Config),
			Metrics: []Metric{},
		})
		b.rounds = append(b.rounds, 0)
	} else if !b.configNoted[bi] {
		if diff := configDiff(b.run.Benchmarks[bi].Config, res); diff != "" {
			b.configNoted[bi] = true
			b.run.Notes = append(b.run.Notes, inputNote(fmt.Sprintf(
				"%s: configuration of %s changed within the file (%s); its results are kept together under the first configuration",
				where(), res.Name, diff)))
		}
	}
	bm := &b.run.Benchmarks[bi]
	round := b.rounds[bi]
	b.rounds[bi]++
	b.maxRounds = max(b.maxRounds, round+1)
	for _, v := range res.Values {
		mk := metricKey{bi, v.Unit}
		mi, ok := b.metric[mk]
		if !ok {
			mi = len(bm.Metrics)
			b.metric[mk] = mi
			bm.Metrics = append(bm.Metrics, Metric{Unit: v.Unit, Samples: make([]Sample, 0, b.maxRounds)})
		}
		bm.Metrics[mi].Samples = append(bm.Metrics[mi].Samples, Sample{
			Side:  b.side,
			Round: round,
			Iters: int64(res.Iters),
			Value: v.Value,
		})
	}
	b.results++
}

// timeDivisors are the time units benchmarks print per operation (or per
// anything) and how many of them make a second. benchunit.Tidy turns ns into
// sec and leaves the others as they are, so that 1.4 us/op and 1400
// ns/op would be two metrics that never compare.
var timeDivisors = map[string]float64{"ns": 1e9, "us": 1e6, "µs": 1e6, "μs": 1e6, "ms": 1e3, "s": 1}

// tidyTime rewrites a value in a time unit ("us/op", "µs/op", "ms/op",
// "s/op", "ms") in seconds ("sec/op", "sec"), as benchunit.Tidy does for
// ns, keeping what was written in OrigValue and OrigUnit. Other units
// are left as they are.
func tidyTime(v *benchfmt.Value) {
	num, rest, per := strings.Cut(v.Unit, "/")
	d, ok := timeDivisors[num]
	if !ok {
		return
	}
	if v.OrigUnit == "" {
		v.OrigValue, v.OrigUnit = v.Value, v.Unit
	}
	v.Value /= d // 1.4 us is 1.4e-06 s, not 1.3999999999999998e-06
	v.Unit = "sec"
	if per {
		v.Unit += "/" + rest
	}
}

// repeatedUnit returns a unit that appears more than once in vs.
func repeatedUnit(vs []benchfmt.Value) (string, bool) {
	if len(vs) <= 8 {
		for i, v := range vs {
			for _, w := range vs[:i] {
				if w.Unit == v.Unit {
					return v.Unit, true
				}
			}
		}
		return "", false
	}
	seen := make(map[string]bool, len(vs))
	for _, v := range vs {
		if seen[v.Unit] {
			return v.Unit, true
		}
		seen[v.Unit] = true
	}
	return "", false
}

// finish sets each metric's direction and assumption from units and
// returns the Run, or an error if the input held no benchmark result.
func (b *sideBuilder) finish(units benchfmt.UnitMetadataMap) (*Run, error) {
	if b.results == 0 {
		msg := b.source + ": no benchmark results"
		if len(b.parseErrs) > 0 {
			msg += fmt.Sprintf(" (%d malformed lines, the first: %s)", len(b.parseErrs)+b.moreErrs, b.parseErrs[0])
		}
		return nil, errors.New(msg)
	}
	for _, e := range b.parseErrs {
		b.run.Notes = append(b.run.Notes, inputNote(e))
	}
	if b.moreErrs > 0 {
		b.run.Notes = append(b.run.Notes, inputNote(fmt.Sprintf("%s: %d more malformed lines skipped", b.source, b.moreErrs)))
	}
	noted := make(map[benchfmt.UnitMetadataKey]bool)
	for i := range b.run.Benchmarks {
		for j := range b.run.Benchmarks[i].Metrics {
			m := &b.run.Benchmarks[i].Metrics[j]
			var bad []*benchfmt.UnitMetadata
			m.Better, m.Assume, bad = UnitMetadata(units, m.Unit)
			for _, md := range bad {
				if !noted[md.UnitMetadataKey] {
					noted[md.UnitMetadataKey] = true
					b.run.Notes = append(b.run.Notes, inputNote(fmt.Sprintf("%s:%d: %s", b.source, metadataLine(md), BadMetadata(md))))
				}
			}
		}
	}
	return b.run, nil
}

// UnitMetadata returns what the unit metadata lines in units ("Unit x/op
// better=higher assume=exact") say of unit: its direction, DefaultBetter
// when they say nothing, and its assumption, AssumeExact or "" (assume
// nothing). A value that is neither (better=sideways) is ignored and
// returned in bad, for the caller to note in BadMetadata's words.
func UnitMetadata(units benchfmt.UnitMetadataMap, unit string) (better int, assume string, bad []*benchfmt.UnitMetadata) {
	better = DefaultBetter(unit)
	if md := units[benchfmt.UnitMetadataKey{Unit: unit, Key: "better"}]; md != nil {
		switch md.Value {
		case "higher":
			better = HigherIsBetter
		case "lower":
			better = LowerIsBetter
		default:
			bad = append(bad, md)
		}
	}
	if md := units[benchfmt.UnitMetadataKey{Unit: unit, Key: "assume"}]; md != nil {
		switch md.Value {
		case AssumeExact:
			assume = AssumeExact
		case AssumeNothing:
		default:
			bad = append(bad, md)
		}
	}
	return better, assume, bad
}

// BadMetadata says why UnitMetadata ignored md: "unit x/op:
// better=sideways is neither higher nor lower; using the default".
func BadMetadata(md *benchfmt.UnitMetadata) string {
	if md.Key == "better" {
		return fmt.Sprintf("unit %s: better=%s is neither higher nor lower; using the default", md.OrigUnit, md.Value)
	}
	return fmt.Sprintf("unit %s: %s=%s is neither nothing nor exact; assuming nothing", md.OrigUnit, md.Key, md.Value)
}

func metadataLine(md *benchfmt.UnitMetadata) int {
	_, line := md.Pos()
	return line
}

// DefaultBetter is the direction of unit when no metadata says otherwise:
// HigherIsBetter for rates (units ending in "/s", such as B/s), and
// LowerIsBetter for everything else (sec/op, B/op, allocs/op...).
func DefaultBetter(unit string) int {
	if strings.HasSuffix(unit, "/s") {
		return HigherIsBetter
	}
	return LowerIsBetter
}

// SplitName splits a benchmark's name as go test prints it after
// "Benchmark" ("Build/size=1024-8") into the name and its GOMAXPROCS
// suffix ("Build/size=1024", 8), as benchstat reads it. A suffix that
// would not print back the same ("-0", "-08") stays part of the name, and
// procs is 0.
func SplitName(full string) (name string, procs int) {
	_, parts := benchfmt.Name(full).Parts()
	if n := len(parts); n > 0 && parts[n-1][0] == '-' {
		digits := string(parts[n-1][1:])
		if p, err := strconv.Atoi(digits); err == nil && p > 0 && strconv.Itoa(p) == digits {
			return full[:len(full)-len(parts[n-1])], p
		}
	}
	return full, 0
}

// FileConfig returns the file configuration in cfg (goos, goarch, cpu,
// ...) other than pkg, as a Benchmark's Config holds it, or nil when
// there is none. Invalid UTF-8 is replaced, since a Run must survive
// JSON.
func FileConfig(cfg []benchfmt.Config) map[string]string {
	var m map[string]string
	for _, c := range cfg {
		if !c.File || c.Key == "pkg" {
			continue
		}
		if m == nil {
			m = make(map[string]string, len(cfg))
		}
		m[validString([]byte(c.Key))] = validString(c.Value)
	}
	return m
}

// validString returns b as a string with invalid UTF-8 replaced by U+FFFD,
// since a Run must survive JSON.
func validString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// configDiff describes how res's file configuration differs from have,
// or returns "" if it does not.
func configDiff(have map[string]string, res *benchfmt.Result) string {
	n := 0
	for _, c := range res.Config {
		if !c.File || c.Key == "pkg" {
			continue
		}
		n++
		if utf8.ValidString(c.Key) && utf8.Valid(c.Value) {
			if v, ok := have[c.Key]; ok && v == string(c.Value) {
				continue // the common case, without allocating
			}
		}
		k, val := validString([]byte(c.Key)), validString(c.Value)
		if v, ok := have[k]; !ok || v != val {
			return fmt.Sprintf("%s: %q -> %q", k, v, val)
		}
	}
	if n != len(have) {
		for k, v := range have {
			if _, ok := res.ConfigIndex(k); !ok {
				return fmt.Sprintf("%s: %q -> %q", k, v, "")
			}
		}
	}
	return ""
}

// readBenchfmt reads Go benchmark format.
func readBenchfmt(r io.Reader, name, label string) (*Run, error) {
	b := newSideBuilder(name, label)
	br := benchfmt.NewReader(nil, name)
	if err := b.scan(br, r, name, ""); err != nil {
		return nil, err
	}
	return b.finish(br.Units())
}

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
