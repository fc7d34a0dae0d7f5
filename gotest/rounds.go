package gotest

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// RunFile is the name of the rigor JSON file in the results directory.
const RunFile = "run.json"

// open creates the results directory and one benchmark file per side.
func (s *session) open() error {
	if err := os.MkdirAll(s.cfg.Out, 0o755); err != nil {
		return fmt.Errorf("creating results directory: %w", err)
	}
	for _, sd := range s.sides {
		f, err := os.OpenFile(filepath.Join(s.cfg.Out, sd.Label+".txt"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("creating results file: %w", err)
		}
		sd.file, sd.config = f, map[string]string{}
	}
	return s.writeJSON()
}

// writeJSON rewrites run.json atomically, so that a crash leaves the last
// complete version.
func (s *session) writeJSON() error {
	tmp, err := os.CreateTemp(s.cfg.Out, ".run-*.json")
	if err != nil {
		return fmt.Errorf("writing %s: %w", RunFile, err)
	}
	err = s.run.WriteJSON(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(s.cfg.Out, RunFile))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", RunFile, err)
	}
	return nil
}

// measure calibrates every benchmark, then runs rounds until the stopping
// rule ends them.
func (s *session) measure(ctx context.Context) error {
	s.start = time.Now()
	if err := s.calibrate(ctx); err != nil {
		return err
	}
	if len(s.units) == 0 {
		return nil
	}
	var (
		resolvedBefore bool
		last           time.Duration
		unresolved     []string
		stopped        string
	)
	for round := 1; ; round++ {
		elapsed := time.Since(s.start)
		switch {
		case s.cfg.MaxRounds > 0 && round > s.cfg.MaxRounds:
			stopped = "at the maximum number of rounds"
		case round > 2 && elapsed+last+s.profileReserve(last) > s.cfg.Time:
			stopped = fmt.Sprintf("when the %v time budget was spent", s.cfg.Time)
			if s.cfg.Profile != nil {
				stopped += " (leaving room for the profiling pass)"
			}
		case !s.anyLeft():
			stopped = "because every benchmark failed"
		}
		if stopped != "" {
			break
		}
		t0 := time.Now()
		if err := s.round(ctx, round, unresolved); err != nil {
			return err
		}
		last = time.Since(t0)
		if err := s.writeJSON(); err != nil {
			return err
		}
		if round < s.cfg.MinRounds {
			continue
		}
		var err error
		if unresolved, err = s.unresolved(); err != nil {
			return err
		}
		s.progress(Progress{Phase: PhaseMeasure, Round: round, Unresolved: unresolved})
		// Stop when every benchmark is resolved in two consecutive
		// rounds: one lucky round does not end the run.
		if len(unresolved) == 0 && resolvedBefore {
			s.run.Notes = append(s.run.Notes, fmt.Sprintf("Stopped after %d rounds: every benchmark resolved.", round))
			return nil
		}
		resolvedBefore = len(unresolved) == 0
	}
	rounds := s.rounds()
	msg := fmt.Sprintf("Stopped %s, after %d rounds", stopped, rounds)
	if rounds < s.cfg.MinRounds {
		msg += fmt.Sprintf(" (fewer than the minimum of %d)", s.cfg.MinRounds)
	}
	if len(unresolved) > 0 {
		msg += fmt.Sprintf("; %d %s still unresolved: %s", len(unresolved), plural(len(unresolved), "benchmark", "benchmarks"), joinMax(unresolved, 5))
	}
	s.run.Notes = append(s.run.Notes, msg+".")
	return nil
}

// rounds returns the number of the last round that recorded a sample.
func (s *session) rounds() int {
	n := 0
	for _, b := range s.run.Benchmarks {
		for _, m := range b.Metrics {
			for _, smp := range m.Samples {
				n = max(n, smp.Round)
			}
		}
	}
	return n
}

func (s *session) anyLeft() bool {
	for _, u := range s.units {
		if !u.failed {
			return true
		}
	}
	return false
}

// unresolved applies the stopping rule, ignoring failed benchmarks.
func (s *session) unresolved() ([]string, error) {
	var keys []string
	var err error
	if s.cfg.Unresolved != nil {
		keys, err = s.cfg.Unresolved(s.run)
	} else {
		keys, err = Unresolved(s.run, s.cfg.Analysis)
	}
	if err != nil {
		return nil, fmt.Errorf("analysing round: %w", err)
	}
	failed := map[string]bool{}
	for _, u := range s.units {
		failed[u.key] = u.failed
	}
	return slices.DeleteFunc(keys, func(k string) bool { return failed[k] }), nil
}

// InterimAlpha is the significance level a change must reach, after the
// multiple-comparison correction, for the run to stop early because of it:
// the Haybittle-Peto boundary. The stopping rule looks at the data after
// every round, and stopping at the first look that happens to cross the
// usual 0.05 would call many more false changes than 5%; with interim
// looks at 0.001 the overall rate stays close to the final look's alpha.
const InterimAlpha = 0.001

// Unresolved analyses run and returns the keys (model.Benchmark.Key) of the
// benchmarks that more rounds could still settle, for the stopping rule. A
// comparison is settled when its confidence interval lies inside the noise
// band (unchanged), when it differs exactly (deterministic metrics), or
// when it is improved or regressed with a corrected p-value below
// InterimAlpha. A benchmark measured on one side only is settled when the
// confidence interval of every metric's median lies within ±noise of the
// median.
func Unresolved(run *model.Run, opts analysis.Options) ([]string, error) {
	rep, err := analysis.Analyze(run, opts)
	if err != nil {
		return nil, err
	}
	var keys []string
	for i, b := range rep.Benchmarks {
		if !settled(&b, len(rep.Sides), opts.Noise) {
			keys = append(keys, run.Benchmarks[i].Key())
		}
	}
	return keys, nil
}

func settled(b *analysis.Benchmark, sides int, noise float64) bool {
	for _, m := range b.Metrics {
		if sides == 1 {
			s := m.Sides[0]
			if s.N == 0 || m.Exact {
				continue
			}
			if !(s.Hi-s.Lo <= 2*noise*math.Abs(s.Center)) {
				return false
			}
			continue
		}
		for _, c := range m.Changes {
			if c == nil {
				continue
			}
			switch c.Verdict {
			case analysis.Inconclusive:
				return false
			case analysis.Improved, analysis.Regressed:
				if c.Test != "exact" && !(c.PAdjusted < InterimAlpha) {
					return false
				}
			}
		}
	}
	return true
}

// calibrate lists the benchmarks of every package and side, runs each
// top-level benchmark once per side with the target benchtime to find its
// sub-benchmarks and the iteration count that lasts about that long, and
// schedules every benchmark found on all sides with the smallest count.
func (s *session) calibrate(ctx context.Context) error {
	filter, err := newBenchFilter(s.cfg.Bench)
	if err != nil {
		return err
	}
	type todo struct{ pkg, name, pattern string }
	var work []todo
	for _, pkg := range s.pkgs {
		names, err := s.listBenchmarks(ctx, pkg)
		if err != nil {
			return err
		}
		for _, n := range names {
			if p := filter.pattern(n); p != "" {
				work = append(work, todo{pkg, n, p})
			}
		}
	}
	cpus := s.cfg.CPU
	if len(cpus) == 0 {
		cpus = []int{0}
	}
	steps := len(work) * len(cpus) * len(s.sides)
	step := 0
	for _, w := range work {
		for _, cpu := range cpus {
			inv := Invocation{Bench: w.pattern, Benchtime: s.cfg.Benchtime, CPU: cpu, Timeout: s.cfg.Timeout}
			if s.cfg.Iters > 0 {
				inv.Benchtime, inv.Iters = 0, 1 // only to find the sub-benchmarks
			}
			found := make([][]Result, len(s.sides))
			failed := false
			for i, sd := range s.sides {
				step++
				s.progress(Progress{Phase: PhaseCalibrate, Step: step, Steps: steps, Current: sd.Label + " " + strings.TrimPrefix(w.name, "Benchmark")})
				out, err := sd.bins[w.pkg].Run(ctx, inv)
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if err != nil {
					s.note("%s.%s failed on %s during calibration, so it is not measured: %v", w.pkg, w.name, sd.Label, err)
					failed = true
					break
				}
				found[i] = ParseResults(out.Stdout)
				if len(found[i]) == 0 {
					s.note("%s.%s printed no result on %s (skipped?), so it is not measured.", w.pkg, w.name, sd.Label)
					failed = true
					break
				}
			}
			if !failed {
				s.schedule(w.pkg, cpu, found)
			}
		}
	}
	if len(s.units) == 0 && len(work) == 0 && len(s.pkgs) > 0 {
		// Packages built, but the pattern matches nothing in them.
		return fmt.Errorf("no benchmark matches %q", s.cfg.Bench)
	}
	return nil
}

// listBenchmarks returns the top-level benchmarks of pkg present on every
// side, noting those present on some sides only.
func (s *session) listBenchmarks(ctx context.Context, pkg string) ([]string, error) {
	var common []string
	where := map[string][]string{}
	for i, sd := range s.sides {
		names, err := sd.bins[pkg].Benchmarks(ctx, s.cfg.Timeout)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			s.note("listing the benchmarks of %s on %s failed, so it is not measured: %v", pkg, sd.Label, err)
			return nil, nil
		}
		for _, n := range names {
			where[n] = append(where[n], sd.Label)
			if i == 0 {
				common = append(common, n)
			}
		}
	}
	var only []string
	for n, labels := range where {
		if len(labels) < len(s.sides) {
			only = append(only, fmt.Sprintf("%s (only on %s)", n, strings.Join(labels, ", ")))
		}
	}
	if len(only) > 0 {
		slices.Sort(only)
		s.note("%s: %d %s on one side only, not compared: %s.", pkg, len(only), plural(len(only), "benchmark is", "benchmarks are"), strings.Join(only, ", "))
	}
	return slices.DeleteFunc(common, func(n string) bool { return len(where[n]) < len(s.sides) }), nil
}

// schedule adds a unit for every benchmark a calibration run found on all
// sides, with the smallest iteration count among them.
func (s *session) schedule(pkg string, cpu int, found [][]Result) {
	index := make([]map[string]Result, len(found))
	for i, rs := range found {
		index[i] = map[string]Result{}
		for _, r := range rs {
			index[i][r.FullName()] = r
		}
	}
	var only []string
	for i, rs := range found {
		for _, r := range rs {
			var missing bool
			for j := range found {
				if _, ok := index[j][r.FullName()]; !ok {
					missing = true
				}
			}
			if missing {
				only = append(only, fmt.Sprintf("%s (on %s)", r.FullName(), s.sides[i].Label))
			}
		}
	}
	if len(only) > 0 {
		s.note("%s: %d %s on one side only, not compared: %s.", pkg, len(only), plural(len(only), "sub-benchmark is", "sub-benchmarks are"), strings.Join(only, ", "))
	}
	// Keep the order the first side printed them in.
	for _, r0 := range found[0] {
		n := r0.FullName()
		iters := r0.Iters
		common := true
		for i := 1; i < len(found); i++ {
			r, ok := index[i][n]
			if !ok {
				common = false
				break
			}
			iters = min(iters, r.Iters)
		}
		key := pkg + "." + n
		if _, dup := s.bench[key]; dup || !common {
			continue
		}
		if s.cfg.Iters > 0 {
			iters = s.cfg.Iters
		}
		s.units = append(s.units, &unit{pkg: pkg, key: key, pattern: leafPattern(r0.Name, r0.Procs), cpu: cpu, iters: max(iters, 1)})
		s.bench[key] = len(s.run.Benchmarks)
		s.run.Benchmarks = append(s.run.Benchmarks, model.Benchmark{
			Name:    r0.Name,
			Procs:   r0.Procs,
			Pkg:     pkg,
			Config:  fileConfig(r0.Config),
			Metrics: []model.Metric{},
		})
	}
}

// leafPattern is the -test.bench expression that selects exactly the
// benchmark name (without "Benchmark" and the GOMAXPROCS suffix): each
// level anchored, as go test matches level by level. A name printed with
// GOMAXPROCS 1 can end in what reads as a suffix ("n=-1"), so with procs
// the last level matches with or without "-procs".
func leafPattern(name string, procs int) string {
	levels := strings.Split("Benchmark"+name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l)
		if i == len(levels)-1 && procs > 0 {
			levels[i] += "(-" + strconv.Itoa(procs) + ")?"
		}
		levels[i] += "$"
	}
	return strings.Join(levels, "/")
}

func fileConfig(kv []KeyValue) map[string]string {
	var m map[string]string
	for _, c := range kv {
		if c.Key == "pkg" {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		m[c.Key] = c.Value
	}
	return m
}

// round runs every benchmark once on every side: benchmarks shuffled, the
// sides in the round's counterbalanced order, and one jittered iteration
// count per benchmark shared by the sides.
func (s *session) round(ctx context.Context, round int, unresolved []string) error {
	order := make([]*unit, 0, len(s.units))
	for _, u := range s.units {
		if !u.failed {
			order = append(order, u)
		}
	}
	s.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	sides := sideOrder(s.cfg.Order, round, len(s.sides))
	steps := len(order) * len(sides)
	step := 0
	for _, u := range order {
		iters := u.iters
		if s.cfg.Iters == 0 {
			iters = jitter(s.rng, u.iters)
		}
		for _, si := range sides {
			sd := s.sides[si]
			step++
			s.progress(Progress{Phase: PhaseMeasure, Round: round, Step: step, Steps: steps, Unresolved: unresolved,
				Current: sd.Label + " " + strings.TrimPrefix(u.key, u.pkg+".")})
			if u.failed {
				break
			}
			if err := s.sample(ctx, u, sd, round, iters); err != nil {
				return err
			}
		}
	}
	return nil
}

// sample runs one benchmark on one side once and records what it printed.
func (s *session) sample(ctx context.Context, u *unit, sd *sideState, round int, iters int64) error {
	obs := s.cfg.Observer
	if obs != nil {
		obs.Mark(u.key, sd.Label, round)
	}
	out, err := sd.bins[u.pkg].Run(ctx, Invocation{Bench: u.pattern, Iters: iters, CPU: u.cpu, Timeout: s.cfg.Timeout})
	if obs != nil {
		if out != nil && out.State != nil && s.cfg.ProcessStats != nil {
			obs.AddProcess(s.cfg.ProcessStats(out.State))
		}
		obs.Pause()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var results []Result
	if err == nil {
		results = ParseResults(out.Stdout)
		if len(results) == 0 {
			err = &RunError{Reason: "printed no benchmark result", Tail: tail(out.Combined, tailLines)}
		}
	}
	if err != nil {
		u.failed = true
		msg := fmt.Sprintf("failed on %s in round %d and was dropped from later rounds: %v", sd.Label, round, err)
		b := &s.run.Benchmarks[s.bench[u.key]]
		b.Notes = append(b.Notes, msg)
		fmt.Fprintf(s.cfg.Log, "rigor: %s %s\n", u.key, msg)
		return nil
	}
	return s.record(sd, round, results)
}

// record appends results to the side's benchmark file, as printed, and to
// the run.
func (s *session) record(sd *sideState, round int, results []Result) error {
	var text strings.Builder
	for _, r := range results {
		for _, kv := range r.Config {
			if v, ok := sd.config[kv.Key]; !ok || v != kv.Value {
				fmt.Fprintf(&text, "%s: %s\n", kv.Key, kv.Value)
				sd.config[kv.Key] = kv.Value
			}
		}
		text.WriteString(r.Line)
		text.WriteByte('\n')

		pkg := r.config("pkg")
		key := r.FullName()
		if pkg != "" {
			key = pkg + "." + key
		}
		bi, ok := s.bench[key]
		if !ok {
			bi = len(s.run.Benchmarks)
			s.bench[key] = bi
			s.run.Benchmarks = append(s.run.Benchmarks, model.Benchmark{
				Name: r.Name, Procs: r.Procs, Pkg: pkg, Config: fileConfig(r.Config), Metrics: []model.Metric{},
			})
		}
		b := &s.run.Benchmarks[bi]
		for _, v := range r.Values {
			m := b.Metric(v.Unit)
			if m == nil {
				b.Metrics = append(b.Metrics, model.Metric{Unit: v.Unit, Better: v.Better, Assume: v.Assume})
				m = &b.Metrics[len(b.Metrics)-1]
			}
			m.Samples = append(m.Samples, model.Sample{Side: sd.Label, Round: round, Iters: r.Iters, Value: v.Value})
		}
	}
	if _, err := sd.file.WriteString(text.String()); err != nil {
		return fmt.Errorf("writing %s: %w", sd.file.Name(), err)
	}
	return nil
}

// splitRegexp splits a -bench expression as go test does: into
// alternatives at the top-level '|', and each into per-level parts at the
// slashes outside brackets and parentheses.
func splitRegexp(s string) [][]string {
	var alts [][]string
	var levels []string
	brackets, parens := 0, 0
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			brackets++
		case ']':
			if brackets--; brackets < 0 { // an unmatched ']' is legal
				brackets = 0
			}
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				levels = append(levels, s[start:i])
				start = i + 1
				if s[i] == '|' {
					alts = append(alts, levels)
					levels = nil
				}
			}
		}
	}
	return append(alts, append(levels, s[start:]))
}

// benchFilter is a -bench expression taken apart to select top-level
// benchmarks and calibrate each with the rest of the expression.
type benchFilter struct {
	alts [][]string
	tops []*regexp.Regexp
}

func newBenchFilter(expr string) (*benchFilter, error) {
	f := &benchFilter{alts: splitRegexp(expr)}
	for _, alt := range f.alts {
		for i, e := range alt {
			re, err := regexp.Compile(e)
			if err != nil {
				return nil, fmt.Errorf("invalid benchmark pattern %q: %w", expr, err)
			}
			if i == 0 {
				f.tops = append(f.tops, re)
			}
		}
	}
	return f, nil
}

// pattern returns the -test.bench expression that runs the top-level
// benchmark name and those of its sub-benchmarks expr selects, or "" when
// expr does not select name.
func (f *benchFilter) pattern(name string) string {
	top := "^" + regexp.QuoteMeta(name) + "$"
	var alts []string
	for i, alt := range f.alts {
		if !f.tops[i].MatchString(name) {
			continue
		}
		if len(alt) == 1 {
			return top // every sub-benchmark
		}
		alts = append(alts, top+"/"+strings.Join(alt[1:], "/"))
	}
	return strings.Join(alts, "|")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func joinMax(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}
