package gotest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/version"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// MinAutoLayouts and MaxAutoLayouts bound the number of links per side
// that Config.Layouts 0 chooses: the rounds per benchmark the budget is
// expected to fit over roundsPerLayout. Fewer than four links leave the
// interval over links (on three degrees of freedom) very wide; more than
// eight cost links that a budget's rounds hardly measure.
//
// A test binary is one draw from the possible code layouts: where the
// linker puts each function decides which cache sets, branch-predictor
// entries and decoder alignment windows its hot loops get, and an edit
// anywhere moves everything after it. With one binary per side that luck
// is a fixed offset between the sides, which more rounds only make look
// surer. So each side's test binary of a package is compiled once and
// linked several times, each link with its own random function layout
// (the linker's -randlayout, Go 1.23 and later), and the rounds cycle
// through the links: round r runs link (r-1) mod L + 1 on every side, so
// that a round's pair is old link k against new link k, and every sample
// of the round carries Layout k (model.Sample.Layout). Package analysis
// treats the layout as a random effect. Calibration, the checks before
// timing and the passes after the rounds run the first link.
//
// Both sides are always randomized: the linker's own layout is not a draw
// from the same distribution (issue 38 measured the default link of a
// golang.org/x package +1.0% to +1.9% faster than randomized ones), so
// old at the default link against new at a random one would be biased.
// The seeds come from Config.Seed, distinct per link, and the same list
// serves every side: a seed on other code gives another layout, and on
// the same code (an A/A run) the same one, so each pair compares like
// with like.
//
// The compile is shared: the go command's build cache holds the compiled
// packages, so a link after the first only links: measured on this
// project's 2-core VM, 0.53-0.58 s a link (eight seeds) for the test
// binary of golang.org/x/text/unicode/norm, whose first build with a cold
// cache took 22 s. Links are outside the time budget, as builds are.
const (
	MinAutoLayouts = 4
	MaxAutoLayouts = 8
)

const (
	// roundsPerLayout is how many rounds per link the default plans.
	roundsPerLayout = 3
	// layoutStream is the PCG stream of the layout seeds, apart from the
	// schedule's.
	layoutStream = 0x6c61796f757473 // "layouts"
)

// autoLayouts is the default number of links per side for a run expected
// to take rounds rounds per benchmark: rounds/roundsPerLayout, between
// MinAutoLayouts and MaxAutoLayouts.
func autoLayouts(rounds int) int {
	return min(max(rounds/roundsPerLayout, MinAutoLayouts), MaxAutoLayouts)
}

// layoutSeeds returns n distinct positive -randlayout seeds drawn from
// seed: the same seed gives the same list, and a longer list begins with
// a shorter one (a layout's binary is cached by its seed, so a rigor
// bisect step that chose more links reuses the others').
func layoutSeeds(seed uint64, n int) []int64 {
	rng := rand.New(rand.NewPCG(seed, layoutStream))
	seen := map[int64]bool{}
	seeds := make([]int64, 0, n)
	for len(seeds) < n {
		// Below 2^31: short enough to read in run.json and on a go
		// command line; 0 would mean the linker's own layout.
		v := rng.Int64N(1<<31-1) + 1
		if !seen[v] {
			seen[v] = true
			seeds = append(seeds, v)
		}
	}
	return seeds
}

// layoutOf is the link that round runs on every side: 1 to layouts,
// cycling, or 0 when the sides are linked once with the linker's own
// layout (layouts 0).
func layoutOf(round, layouts int) int {
	if layouts == 0 || round < 1 {
		return min(layouts, 1)
	}
	return (round-1)%layouts + 1
}

// layoutFlags returns the go command flags that link with seed's random
// layout, keeping the user's own -ldflags from goflags (GOFLAGS's value,
// as go env reports it): on the go command line an -ldflags replaces
// every one GOFLAGS gives, so each of those is given again with
// -randlayout appended. A user's -ldflags with a package pattern
// (pattern=flags) keeps its pattern; since the last -ldflags matching a
// package wins, a first one without a pattern gives the package under
// test its seed when none of the user's matches it.
func layoutFlags(goflags string, seed int64) ([]string, error) {
	entries, err := splitQuoted(goflags)
	if err != nil {
		return nil, fmt.Errorf("GOFLAGS: %w", err)
	}
	own := "-randlayout=" + strconv.FormatInt(seed, 10)
	var user []string
	unpatterned := false
	for _, e := range entries {
		v, ok := strings.CutPrefix(strings.TrimPrefix(e, "-"), "ldflags=")
		if !ok {
			v, ok = strings.CutPrefix(e, "--ldflags=")
		}
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		pattern := ""
		if v != "" && v[0] != '-' {
			// pattern=flags, as the go command reads it.
			i := strings.Index(v, "=")
			if i <= 0 {
				return nil, fmt.Errorf("GOFLAGS: -ldflags=%s: want flags or pattern=flags", v)
			}
			pattern, v = strings.TrimSpace(v[:i])+"=", strings.TrimSpace(v[i+1:])
		} else {
			unpatterned = true
		}
		if v != "" {
			v += " "
		}
		user = append(user, "-ldflags="+pattern+v+own)
	}
	if unpatterned {
		return user, nil
	}
	return append([]string{"-ldflags=" + own}, user...), nil
}

// splitQuoted splits s into fields as the go command splits GOFLAGS:
// separated by spaces, a field quoted with ' or " whole (its quotes
// removed) when it holds spaces.
func splitQuoted(s string) ([]string, error) {
	var fields []string
	for {
		s = strings.TrimLeft(s, " \t\n\r")
		if s == "" {
			return fields, nil
		}
		if q := s[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return nil, fmt.Errorf("unterminated %c string", q)
			}
			fields = append(fields, s[1:1+end])
			s = s[2+end:]
			if s != "" && !strings.ContainsRune(" \t\n\r", rune(s[0])) {
				return nil, errors.New("a quoted string is followed by a character other than a space")
			}
			continue
		}
		end := strings.IndexAny(s, " \t\n\r")
		if end < 0 {
			end = len(s)
		}
		fields = append(fields, s[:end])
		s = s[end:]
	}
}

// randLayoutSince is the first Go release whose linker has -randlayout.
const randLayoutSince = "go1.23"

// setupLayouts reads what side sd's links need: the user's GOFLAGS (its
// -ldflags are merged with the seed's) and whether the side's toolchain's
// linker has -randlayout. It returns why the side cannot be linked with
// random layouts, or "".
func (s *session) setupLayouts(ctx context.Context, sd *sideState) string {
	out, err := goCmd(ctx, sd.tree.Dir, sd.Settings, "env", "-json", "GOFLAGS", "GOVERSION")
	if err != nil {
		return "go env failed: " + firstLine(err.Error())
	}
	var env struct{ GOFLAGS, GOVERSION string }
	if err := json.Unmarshal(out, &env); err != nil {
		return fmt.Sprintf("reading go env: %v", err)
	}
	if v := env.GOVERSION; version.IsValid(v) && version.Compare(v, randLayoutSince) < 0 {
		return fmt.Sprintf("%s's linker has no -randlayout (Go %s added it)", v, strings.TrimPrefix(randLayoutSince, "go"))
	}
	if _, err := layoutFlags(env.GOFLAGS, 1); err != nil {
		return err.Error()
	}
	sd.goflags = env.GOFLAGS
	return ""
}

// setupRandom decides, before anything is built, whether the sides'
// binaries are linked with random layouts: unless Config.Layouts is 1,
// when every side's linker can. When one cannot, every side is linked
// once with the linker's own layout (a random layout against the
// linker's own would be biased), with a note; or, when Config.Layouts
// asks for several, Run fails.
func (s *session) setupRandom(ctx context.Context) error {
	if s.cfg.Layouts == 1 {
		return nil
	}
	for _, sd := range s.sides {
		why := s.setupLayouts(ctx, sd)
		if why == "" {
			continue
		}
		if s.cfg.Layouts > 1 {
			return fmt.Errorf("%s: %d layouts: %s", sd.Label, s.cfg.Layouts, why)
		}
		s.note(model.NoteBuild, "Each side's test binaries were linked once, with the linker's own function layout, since %s cannot be linked with random ones: %s. Where the linker put each function is then a fixed offset between the sides that no interval covers.", sd.Label, why)
		s.run.Notes[len(s.run.Notes)-1].Topic = topicLayouts
		return nil
	}
	s.random = true
	s.seeds = layoutSeeds(s.cfg.Seed, max(s.cfg.Layouts, 1))
	return nil
}

// randomized reports whether the sides' binaries are linked with random
// layouts: Config.Layouts is not 1 and every side's linker can.
func (s *session) randomized() bool {
	return s.random
}

// planLayouts decides, once the benchmarks are calibrated and their
// samples planned, how many links each side has (Config.Layouts, or the
// default from the rounds the budget is expected to fit), raises the
// minimum of rounds to it, and records the seeds in the run.
func (s *session) planLayouts() {
	if !s.randomized() {
		s.layouts = 1
		return
	}
	n := s.cfg.Layouts
	if n == 0 {
		n = autoLayouts(s.expectedRounds())
		if s.cfg.MaxRounds > 0 {
			n = min(n, s.cfg.MaxRounds)
		}
	}
	s.layouts = n
	s.seeds = layoutSeeds(s.cfg.Seed, n)
	for i := range s.run.Sides {
		s.run.Sides[i].Layouts = slices.Clone(s.seeds)
	}
	if s.cfg.MinRounds < n {
		s.minRaised = s.cfg.MinRounds
		s.cfg.MinRounds = n
	}
}

// expectedRounds is how many rounds of every benchmark the budget left is
// expected to fit, with the samples planSamples planned: what a round
// takes is each benchmark's work and its process's start-up, on every
// side.
func (s *session) expectedRounds() int {
	var round time.Duration
	for _, u := range s.units {
		op := u.perOp
		if op == 0 {
			op = u.calOp
		}
		work := time.Duration(float64(u.iters) * op * float64(time.Second))
		round += time.Duration(len(s.sides)) * (work + u.startWall)
	}
	if round <= 0 {
		return 0
	}
	n := int((s.budget.Left() - s.reserve(0)) / round)
	if s.cfg.MaxRounds > 0 {
		n = min(n, s.cfg.MaxRounds)
	}
	return max(n, 0)
}

// link links layouts 2 and on of every side's test binaries, outside the
// time budget (whose clock it stops, as a build is outside it), and notes
// how many links each side has and what the extra ones cost. A package
// whose link fails on some side is dropped, as one that does not build.
func (s *session) link(ctx context.Context) error {
	if !s.randomized() {
		if s.cfg.Layouts == 1 {
			n := gotestNote(model.NoteBuild, "Each side's test binaries were linked once, with the linker's own function layout (--layouts 1): where the linker put each function is then a fixed offset between the sides that no interval covers.")
			n.Topic = topicLayouts
			s.run.Notes = append(s.run.Notes, n)
		}
		return nil
	}
	resume := s.budget.Pause()
	t0 := time.Now()
	defer func() {
		resume()
		// The progress bar counts the budget from s.start.
		s.start = s.start.Add(time.Since(t0))
	}()
	var pkgs []string
	for _, u := range s.units {
		if len(pkgs) == 0 || pkgs[len(pkgs)-1] != u.pkg {
			pkgs = append(pkgs, u.pkg)
		}
	}
	steps := len(pkgs) * len(s.sides) * (s.layouts - 1)
	step, links := 0, 0
packages:
	for _, pkg := range pkgs {
		for _, sd := range s.sides {
			first := sd.bins[pkg]
			if first == nil {
				continue
			}
			for k := 2; k <= s.layouts; k++ {
				step++
				s.progress(Progress{Phase: PhaseLink, Step: step, Steps: steps, Current: fmt.Sprintf("%s %s layout %d", sd.Label, pkg, k)})
				bin, err := s.buildLayout(ctx, sd, first.Pkg, k)
				if ctx.Err() != nil {
					return ctx.Err()
				}
				var be *BuildError
				if errors.As(err, &be) {
					s.unlinked(pkg, sd.Label, k, be)
					continue packages
				} else if err != nil {
					return err
				}
				links++
				sd.links[pkg] = append(sd.links[pkg], bin)
			}
		}
	}
	took := time.Since(t0)
	text := fmt.Sprintf("Each side's test binaries were linked %d times, each with its own random function layout (-randlayout seeds %s), and round r ran link (r-1) mod %d + 1 on every side: where the linker puts each function is luck that an interval must cover, not an offset between the sides.",
		s.layouts, seedList(s.seeds), s.layouts)
	if links > 0 {
		text += fmt.Sprintf(" The %s after the first took %v (%v each), outside the time budget.",
			words.Count(links, "link", "links"), took.Round(10*time.Millisecond), (took / time.Duration(links)).Round(10*time.Millisecond))
	}
	if s.minRaised > 0 {
		text += fmt.Sprintf(" The minimum of %d rounds was raised to %d, so that every link is measured.", s.minRaised, s.layouts)
	}
	n := gotestNote(model.NoteRounds, text)
	n.Topic = topicLayouts
	n.Evidence = map[string]float64{"layouts": float64(s.layouts), "links": float64(links), "link_seconds": took.Seconds()}
	s.run.Notes = append(s.run.Notes, n)
	return nil
}

// unlinked drops the benchmarks of pkg, whose layout k does not link on
// side: a package that does not build on some side is not measured.
func (s *session) unlinked(pkg, side string, k int, be *BuildError) {
	s.note(model.NoteBuild, "package %s does not link on %s with layout %d (-randlayout=%d), so it is not measured:\n%s", pkg, side, k, s.seeds[k-1], indent(words.Tail(be.Output, tailLines)))
	for _, u := range s.units {
		if u.pkg != pkg || u.failed {
			continue
		}
		u.failed = true
		b := &s.run.Benchmarks[s.bench[u.key]]
		b.MarkMissing(side, model.MissingBuild, fmt.Sprintf("its layout %d does not link on %s", k, side))
	}
}

// topicLayouts is the Topic of the notes on how the sides were linked.
const topicLayouts = "layouts"

// seedList is the seeds, comma-separated.
func seedList(seeds []int64) string {
	s := make([]string, len(seeds))
	for i, v := range seeds {
		s[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, ", ")
}

// layoutPath is where side sd's test binary of package path with layout k
// goes in dir: the first layout's directly, the others' in a directory
// of their own (a label or import path may end in a number).
func layoutPath(dir, side, path string, k int) string {
	if k <= 1 {
		return filepath.Join(dir, binaryName(side, path))
	}
	return filepath.Join(dir, fmt.Sprintf("layout%d", k), binaryName(side, path))
}

// buildLayout builds side sd's test binary of pkg linked with layout k
// (1-based), through the build cache: with the k-th seed when the run is
// randomized, with the linker's own layout otherwise.
func (s *session) buildLayout(ctx context.Context, sd *sideState, pkg Package, k int) (*Binary, error) {
	out := layoutPath(s.binDir, sd.Label, pkg.ImportPath, k)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	var flags []string
	if s.randomized() {
		var err error
		if flags, err = layoutFlags(sd.goflags, s.seeds[k-1]); err != nil {
			return nil, err
		}
	}
	bin, err := cachedBuild(ctx, s.cfg.BuildCache, sd.tree, sd.Settings, flags, pkg, out)
	if err != nil {
		return nil, err
	}
	bin.Env = append(bin.Env, s.runEnv()...)
	return bin, nil
}

// binaryFor is side sd's test binary of pkg that round runs.
func (s *session) binaryFor(sd *sideState, pkg string, round int) *Binary {
	if links := sd.links[pkg]; len(links) > 1 {
		return links[layoutOf(round, len(links))-1]
	}
	return sd.bins[pkg]
}

// sampleLayout is the Layout of a sample of round: the link it ran, or 0
// when the sides are linked once with the linker's own layout. Round 0
// (the simulation pass) runs the first link.
func (s *session) sampleLayout(round int) int {
	if !s.randomized() {
		return 0
	}
	return layoutOf(round, s.layouts)
}
