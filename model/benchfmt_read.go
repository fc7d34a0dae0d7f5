package model

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
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
	metric map[metricKey]int         // (benchmark, unit) -> index in metrics
	rounds []int                     // results seen so far, per benchmark
	// configNoted marks benchmarks whose configuration change has
	// already been noted.
	configNoted map[int]bool

	// Samples wait in pending, in input order, until finish gives every
	// metric its exact share of one array: appending to each metric's
	// own slice grew 1, 2, 4, 8, 16 when the input repeats all its
	// benchmarks round after round (the output of several go test runs
	// concatenated), a third of reading's time and most of its memory.
	pending [][]pendingSample // chunks of pendingChunk
	metrics []metricRef       // every metric, by the index pending uses
	counts  []int             // samples per metric
	// byBench lists, per benchmark, the indexes in metrics of its
	// Metrics, in order: found by a scan when there are few (a result
	// line's units are the same few, line after line), by metric else.
	byBench [][]int

	// cfg is a copy of the configuration of the last result, and cfgID
	// changes whenever it does; cfgMap is its FileConfig, shared by the
	// benchmarks first seen under it (made at cfgMapID). benchCfg is, per
	// benchmark, the cfgID under which its configuration was last found
	// equal to its Config: a result under the same cfgID needs no
	// configDiff.
	cfg      []benchfmt.Config
	cfgID    int
	cfgMap   map[string]string
	cfgMapID int
	benchCfg []int

	results   int
	parseErrs []string // first maxParseNotes per-line warnings
	moreErrs  int      // warnings beyond those

	// pkg caches the last "pkg" configuration value, to avoid
	// allocating a string per result.
	pkgBytes []byte
	pkg      string

	// deferPlace leaves the samples in pending when finish returns the
	// run, every metric's Samples nil, for merge to place them straight
	// into the merged run (see ReadFiles).
	deferPlace bool
}

type metricKey struct {
	bench int
	unit  string
}

// A pendingSample is a sample of metrics[metric], before finish places it.
// Its indexes are 32 bits (24 bytes a sample, not 32): both files' pending
// samples are live beside the merged run's when merge places them, the
// peak of rigor compare's heap. add refuses a line beyond that.
type pendingSample struct {
	iters  int64
	value  float64
	metric int32
	round  int32
}

// maxPending bounds a pendingSample's indexes.
const maxPending = math.MaxInt32

// pendingChunk is the length of each chunk of sideBuilder.pending.
const pendingChunk = 1024

// A metricRef locates a metric: run.Benchmarks[bench].Metrics[metric].
type metricRef struct{ bench, metric int }

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
		cfgMapID:    -1,
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
	TidyUnits(res.Values)
	for i := range res.Values {
		v := &res.Values[i]
		if !utf8.ValidString(v.Unit) {
			b.warn(where() + ": unit is not valid UTF-8; line skipped")
			return
		}
		// A value that cannot be a measurement skips its line, as a
		// malformed line does. It is judged as tidied, and a nonzero
		// value that tidies to zero (5e-324 ns/op is 0 sec/op) is as
		// small as that; the note shows it as written.
		why := Implausible(v.Value, v.Unit)
		if why == "" && v.Value == 0 && v.OrigUnit != "" && v.OrigValue != 0 {
			why = Implausible(math.SmallestNonzeroFloat64, v.Unit)
		}
		if why != "" {
			shown := fmt.Sprintf("%v %s", v.Value, v.Unit)
			if v.OrigUnit != "" {
				shown = fmt.Sprintf("%v %s", v.OrigValue, v.OrigUnit)
				if Implausible(v.OrigValue, v.OrigUnit) == "" {
					// Only the tidied value is out of bounds (1e-149
					// ns/op is 1e-158 sec/op): show it too, or the note
					// would compare the written value with a bound it
					// meets.
					shown += fmt.Sprintf(" (%.4g %s)", v.Value, v.Unit)
				}
			}
			b.warn(fmt.Sprintf("%s: value %s %s; line skipped", where(), shown, why))
			return
		}
	}
	if len(b.metrics)+len(res.Values) > maxPending {
		b.warn(fmt.Sprintf("%s: more than %d metrics in all; line skipped", where(), maxPending))
		return
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

	b.noteConfig(res.Config)
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
		if b.cfgMapID != b.cfgID {
			b.cfgMap, b.cfgMapID = FileConfig(res.Config), b.cfgID
		}
		b.run.Benchmarks = append(b.run.Benchmarks, Benchmark{
			Name:   name,
			Procs:  procs,
			Pkg:    pkg,
			Config: b.cfgMap,
			// As many as the first result has, the usual count.
			Metrics: make([]Metric, 0, len(res.Values)),
		})
		b.rounds = append(b.rounds, 0)
		b.benchCfg = append(b.benchCfg, b.cfgID)
		b.byBench = append(b.byBench, make([]int, 0, len(res.Values)))
	} else if !b.configNoted[bi] && b.benchCfg[bi] != b.cfgID {
		if diff := configDiff(b.run.Benchmarks[bi].Config, res); diff != "" {
			b.configNoted[bi] = true
			b.run.Notes = append(b.run.Notes, inputNote(fmt.Sprintf(
				"%s: configuration of %s changed within the file (%s); its results are kept together under the first configuration",
				where(), res.Name, diff)))
		} else {
			b.benchCfg[bi] = b.cfgID
		}
	}
	round := b.rounds[bi]
	if round >= maxPending {
		b.warn(fmt.Sprintf("%s: more than %d results of %s; line skipped", where(), maxPending, res.Name))
		return
	}
	b.rounds[bi]++
	for _, v := range res.Values {
		gi := b.metricIndex(bi, v.Unit)
		b.counts[gi]++
		if len(b.pending) == 0 || len(b.pending[len(b.pending)-1]) == pendingChunk {
			b.pending = append(b.pending, make([]pendingSample, 0, pendingChunk))
		}
		last := &b.pending[len(b.pending)-1]
		*last = append(*last, pendingSample{metric: int32(gi), round: int32(round), iters: int64(res.Iters), value: v.Value})
	}
	b.results++
}

// metricIndex returns the index in b.metrics of benchmark bi's metric of
// unit, adding the metric if bi has none.
func (b *sideBuilder) metricIndex(bi int, unit string) int {
	bm := &b.run.Benchmarks[bi]
	if len(bm.Metrics) <= 8 {
		for mi := range bm.Metrics {
			if bm.Metrics[mi].Unit == unit {
				return b.byBench[bi][mi]
			}
		}
	} else if gi, ok := b.metric[metricKey{bi, unit}]; ok {
		return gi
	}
	gi := len(b.metrics)
	// The map holds a benchmark's metrics only once it has more than the
	// scan looks through: for the usual three, a map entry per metric
	// cost more than the scan saves (0.6 MB a file of 1,000 benchmarks).
	switch n := len(bm.Metrics); {
	case n == 8:
		for mi, g := range b.byBench[bi] {
			b.metric[metricKey{bi, bm.Metrics[mi].Unit}] = g
		}
		fallthrough
	case n > 8:
		b.metric[metricKey{bi, unit}] = gi
	}
	b.metrics = append(b.metrics, metricRef{bi, len(bm.Metrics)})
	b.counts = append(b.counts, 0)
	b.byBench[bi] = append(b.byBench[bi], gi)
	bm.Metrics = append(bm.Metrics, Metric{Unit: unit})
	return gi
}

// place gives every metric its samples, in input order, from one array.
func (b *sideBuilder) place() {
	all := make([]Sample, sum(b.counts))
	win := make([][]Sample, len(b.counts))
	for gi, n := range b.counts {
		ref := b.metrics[gi]
		b.run.Benchmarks[ref.bench].Metrics[ref.metric].Samples = all[:n:n]
		win[gi], all = all[:n], all[n:]
	}
	b.placeInto(win)
}

// placeInto writes every pending sample, in input order, into the window
// of its metric: win[gi] has room for exactly b.counts[gi] samples of
// metric gi (an index in b.metrics). The pending samples are then gone.
func (b *sideBuilder) placeInto(win [][]Sample) {
	for _, chunk := range b.pending {
		for _, p := range chunk {
			w := win[p.metric]
			w[0] = Sample{Side: b.side, Round: int(p.round), Iters: p.iters, Value: p.value}
			win[p.metric] = w[1:]
		}
	}
	b.pending = nil
}

// release drops all that placeInto does not need: the run read (which
// merge has copied from) and the indexes that built it.
func (b *sideBuilder) release() {
	b.run, b.byBench, b.rounds, b.benchCfg = nil, nil, nil, nil
}

func sum(v []int) int {
	t := 0
	for _, x := range v {
		t += x
	}
	return t
}

// noteConfig sets b.cfg to cfg, with a new b.cfgID if it differs from the
// last result's.
func (b *sideBuilder) noteConfig(cfg []benchfmt.Config) {
	if len(cfg) == len(b.cfg) {
		same := true
		for i := range cfg {
			if cfg[i].Key != b.cfg[i].Key || cfg[i].File != b.cfg[i].File || !bytes.Equal(cfg[i].Value, b.cfg[i].Value) {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	b.cfgID++
	b.cfg = b.cfg[:0]
	for _, c := range cfg {
		b.cfg = append(b.cfg, benchfmt.Config{Key: c.Key, Value: bytes.Clone(c.Value), File: c.File})
	}
}

// timeDivisors are the time units benchmarks print per operation (or per
// anything) and how many of them make a second. benchunit.Tidy turns ns into
// sec and leaves the others as they are, so that 1.4 us/op and 1400
// ns/op would be two metrics that never compare.
var timeDivisors = map[string]float64{"ns": 1e9, "us": 1e6, "µs": 1e6, "μs": 1e6, "ms": 1e3, "s": 1}

// TidyUnits tidies the units of one result line's values in place, as
// Read does: benchfmt turns ns into sec and MB/s into B/s except for a
// zero value, which it leaves as written, and us, µs, ms and s ("us/op",
// "ms/op", "s/op", "ms") become sec too ("sec/op", "sec"), so that files
// that print their time in different units compare. What was written
// stays in OrigValue and OrigUnit.
//
// A time value keeps its unit when another value of the line already has
// the unit it would take: go test prints a b.ReportMetric(x, "ms/op")
// beside its own ns/op, and that is another metric, as benchstat keeps
// it, not a second sec/op (which would skip the line as a repeated unit).
// So does a value whose unit the line repeats: that line is malformed.
//
// Package gotest parses a test binary's output with it, so that a result
// has the same units whether rigor ran it or read it from a file.
func TidyUnits(vs []benchfmt.Value) {
	for i := range vs {
		if v := &vs[i]; v.Value == 0 && v.OrigUnit == "" {
			_, v.Unit = benchunit.Tidy(0, v.Unit)
		}
	}
	var count map[string]int // values by unit, for a long line
	otherHas := func(i int, unit string) bool {
		if len(vs) <= 8 {
			for j := range vs {
				if j != i && vs[j].Unit == unit {
					return true
				}
			}
			return false
		}
		if count == nil {
			count = make(map[string]int, len(vs))
			for _, v := range vs {
				count[v.Unit]++
			}
		}
		n := count[unit]
		if vs[i].Unit == unit {
			n--
		}
		return n > 0
	}
	for i := range vs {
		v := &vs[i]
		num, rest, per := strings.Cut(v.Unit, "/")
		d, ok := timeDivisors[num]
		if !ok {
			continue
		}
		unit := "sec"
		if per {
			unit += "/" + rest
		}
		if otherHas(i, unit) || otherHas(i, v.Unit) {
			continue
		}
		if count != nil {
			count[v.Unit]--
			count[unit]++
		}
		if v.OrigUnit == "" {
			v.OrigValue, v.OrigUnit = v.Value, v.Unit
		}
		v.Value /= d // 1.4 us is 1.4e-06 s, not 1.3999999999999998e-06
		v.Unit = unit
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
	if b.deferPlace {
		// Only what placing needs is kept until merge does it.
		b.bench, b.metric, b.configNoted, b.cfg, b.cfgMap = nil, nil, nil, nil, nil
	} else {
		b.place()
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
	run, _, err := readBenchfmtDeferred(r, name, label, false)
	return run, err
}

// readBenchfmtDeferred reads Go benchmark format; with deferPlace, the
// run's samples are still in the builder it returns (sideBuilder's
// deferPlace), else the builder is nil.
func readBenchfmtDeferred(r io.Reader, name, label string, deferPlace bool) (*Run, *sideBuilder, error) {
	b := newSideBuilder(name, label)
	b.deferPlace = deferPlace
	br := benchfmt.NewReader(nil, name)
	if err := b.scan(br, r, name, ""); err != nil {
		return nil, nil, err
	}
	run, err := b.finish(br.Units())
	if err != nil || !deferPlace {
		return run, nil, err
	}
	return run, b, nil
}
