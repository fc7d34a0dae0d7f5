package rigor

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
)

// A Group is a set of variants measured together: every round runs each
// variant once, in a shuffled order, with one shared iteration count, so
// that round i of one variant and round i of another ran under the same
// conditions and form a pair. Every variant is compared with the baseline,
// the first one added unless Baseline says otherwise.
//
// A variant's name may carry parameters after a slash, as go test's
// sub-benchmarks do: "std/size=1024". The part before the first slash names
// the variant and the rest the benchmark: every distinct set of parameters
// is measured as its own interleaved experiment, with its own calibration,
// and appears as one benchmark whose sides are the variants.
//
// A Group is not safe for concurrent use.
type Group struct {
	// Name names the group; it prefixes every benchmark's name.
	Name string
	// Config controls the measurement; NewGroup sets DefaultConfig.
	Config Config

	benches  []*bench
	baseline string
	subgroup string
	tp       throughput
	err      error
}

// NewGroup returns an empty group with the default configuration.
func NewGroup(name string) *Group {
	return &Group{Name: name, Config: DefaultConfig()}
}

// A bench is one (variant, parameters) cell of a group.
type bench struct {
	variant  string
	params   string // "size=1024", "" when none
	subgroup string
	fn       func(*B)
	// goroutines > 0 runs every sample on that many goroutines at once.
	goroutines int
	tp         throughput
}

// A throughput is the work one call of a timing loop's function does.
type throughput struct {
	n    float64
	unit string // "B/s", "elems/s", "<custom>/s"; "" when unset
}

// Bench adds a variant. fn is called once per sample, and must call
// exactly one of Iter, B.Iter, IterWithSetup or B.IterCustom, which run and
// time the sample's iterations. Work fn does before that call is not timed
// but runs for every sample: keep expensive setup outside fn.
func (g *Group) Bench(name string, fn func(b *B)) {
	g.add(name, fn, 0)
}

// BenchParallel adds a contended variant: each sample starts goroutines
// goroutines together, each calling fn with its own *B (see B.Goroutine)
// and running the sample's iteration count, while sharing whatever fn
// captures. The sample's time is the wall time from their common start to
// the last one's end, so sec/op is the time per operation as one goroutine
// saw it, and throughput is multiplied by the goroutine count.
//
// In a parallel variant fn must call Iter or B.Iter.
func (g *Group) BenchParallel(name string, goroutines int, fn func(b *B)) {
	if goroutines < 1 {
		g.setErr(fmt.Errorf("variant %q: %d goroutines (want at least 1)", name, goroutines))
		return
	}
	g.add(name, fn, goroutines)
}

// BenchScaling adds one parallel variant per goroutine count, 1, 2, 4, ...
// up to GOMAXPROCS (which is always included), named name_1t, name_2t, ...
// The first is a plain variant run on one goroutine, so the others compare
// with it when it is the baseline.
func (g *Group) BenchScaling(name string, fn func(b *B)) {
	v, params, _ := strings.Cut(name, "/")
	for _, n := range scalingCounts(runtime.GOMAXPROCS(0)) {
		label := fmt.Sprintf("%s_%dt", v, n)
		if params != "" {
			label += "/" + params
		}
		g.add(label, fn, n)
	}
}

// scalingCounts returns 1, 2, 4, ... below procs, then procs.
func scalingCounts(procs int) []int {
	var c []int
	for n := 1; n < procs; n *= 2 {
		c = append(c, n)
	}
	return append(c, procs)
}

// Baseline makes the named variant the one every other variant is
// compared with. By default it is the first variant added.
func (g *Group) Baseline(variant string) {
	g.baseline = variant
}

// Subgroup files the variants added after it under a heading, for display
// (see zenbench's subgroups): it becomes their model.Side's Subgroup. An
// empty name ends the subgroup. A variant has one subgroup, whatever its
// parameters.
func (g *Group) Subgroup(name string) {
	g.subgroup = name
}

// Bytes declares that one call of the timing loop's function processes n
// bytes, for the variants added after it: results then include B/s.
func (g *Group) Bytes(n int64) { g.tp = throughput{float64(n), "B/s"} }

// Elements declares that one call processes n elements: results then
// include elems/s.
func (g *Group) Elements(n int64) { g.tp = throughput{float64(n), "elems/s"} }

// Throughput declares that one call processes n units of a custom unit:
// results then include unit/s ("checks" gives "checks/s").
func (g *Group) Throughput(n float64, unit string) {
	g.tp = throughput{n, unit + "/s"}
}

func (g *Group) add(name string, fn func(*B), goroutines int) {
	v, params, _ := strings.Cut(name, "/")
	switch {
	case v == "":
		g.setErr(fmt.Errorf("variant %q has an empty name", name))
		return
	case fn == nil:
		g.setErr(fmt.Errorf("variant %q has a nil function", name))
		return
	}
	for _, b := range g.benches {
		switch {
		case b.variant != v:
		case b.params == params:
			g.setErr(fmt.Errorf("variant %q added twice", name))
			return
		case b.subgroup != g.subgroup:
			g.setErr(fmt.Errorf("variant %q is filed under two subgroups, %q and %q: a variant has one subgroup", v, b.subgroup, g.subgroup))
			return
		}
	}
	g.benches = append(g.benches, &bench{
		variant:    v,
		params:     params,
		subgroup:   g.subgroup,
		fn:         fn,
		goroutines: goroutines,
		tp:         g.tp,
	})
}

func (g *Group) setErr(err error) {
	if g.err == nil {
		g.err = err
	}
}

// variants returns the variant names in order, baseline first.
func (g *Group) variants() ([]string, error) {
	var vs []string
	seen := map[string]bool{}
	for _, b := range g.benches {
		if !seen[b.variant] {
			seen[b.variant] = true
			vs = append(vs, b.variant)
		}
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("group %q has no variants", g.Name)
	}
	if g.baseline != "" {
		i := indexOf(vs, g.baseline)
		if i < 0 {
			return nil, fmt.Errorf("group %q: baseline %q is not a variant", g.Name, g.baseline)
		}
		vs = append([]string{vs[i]}, append(vs[:i:i], vs[i+1:]...)...)
	}
	return vs, nil
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// Select returns a copy of g holding only the cells (a variant and its
// parameters, "" when none) that keep accepts, as go test -bench selects
// sub-benchmarks: only they are measured, and the comparison is among
// them. The baseline stays the one Baseline named when it is kept, and
// is otherwise the first variant kept.
func (g *Group) Select(keep func(variant, params string) bool) *Group {
	out := *g
	out.benches = nil
	for _, b := range g.benches {
		if keep(b.variant, b.params) {
			out.benches = append(out.benches, b)
		}
	}
	if g.baseline != "" && !slices.ContainsFunc(out.benches, func(b *bench) bool { return b.variant == g.baseline }) {
		out.baseline = ""
	}
	return &out
}

// Len returns the number of the group's cells: one per variant and set
// of parameters.
func (g *Group) Len() int { return len(g.benches) }
