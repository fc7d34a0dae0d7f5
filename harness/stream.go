package harness

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// partialNote marks a run.json written while the run was still measuring.
const partialNote = "partial results: written while the run was still measuring (a crash or an interrupt leaves this version)"

// A sink writes results into the -rigor.out directory as they are
// measured, so that a crash or an interrupt loses nothing already
// measured:
//
//   - every side (variant) has a file <side>.txt in Go benchmark format,
//     which benchstat reads: the allocation rounds' lines, then one line
//     per timed round, appended as each round ends, by every group and
//     pass of the process (and by the child processes of a multi-process
//     run);
//   - run.json holds the rigor JSON of the group being measured, rewritten
//     atomically after every round (by the parent only, in a
//     multi-process run), and its final version when the group is done.
//
// Streamed sec/op values have the loop overhead measured so far
// subtracted; the final run.json subtracts the median of every round's,
// so the two can differ in the last digits.
type sink struct {
	dir   string
	files *fileRegistry
	child bool // a child process: append lines, leave run.json to the parent
	// cpu names the processor in the streamed lines' configuration.
	cpu string
}

// A fileRegistry maps each side label to its results file, so that two
// labels never share a file and a file is truncated only the first time
// this process writes it, and remembers what this process last wrote to
// each file.
type fileRegistry struct {
	mu      sync.Mutex
	byLabel map[string]string     // directory and label -> path
	taken   map[string]*fileState // paths in use
}

func newFileRegistry() *fileRegistry {
	return &fileRegistry{byLabel: map[string]string{}, taken: map[string]*fileState{}}
}

// processFiles is the registry of Run and Main, for the life of the
// process: go test calls Run once per benchmark function, and a later
// group must append to the files an earlier one started in the same
// -rigor.out directory, not truncate them. It is the package's one
// mutable global besides the flags on flag.CommandLine.
var processFiles = newFileRegistry()

// A fileState is what this process last wrote to a side's file: the
// configuration in force and the unit metadata lines, which need not be
// repeated.
type fileState struct {
	config string
	units  map[string]bool
}

// open creates the directory and starts each side's file: empty, unless
// this process already started it or is a child of a multi-process run
// (whose parent started it).
func (k *sink) open(sides []string) error {
	if err := os.MkdirAll(k.dir, 0o755); err != nil {
		return fmt.Errorf("creating the results directory: %w", err)
	}
	for _, side := range sides {
		path, fresh := k.sidePath(side)
		if !fresh || k.child {
			continue
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			return fmt.Errorf("creating the results file of %s: %w", side, err)
		}
	}
	return nil
}

// sidePath returns side's file, and whether this is the first time this
// process asked for it.
func (k *sink) sidePath(side string) (string, bool) {
	r := k.files
	r.mu.Lock()
	defer r.mu.Unlock()
	key := k.dir + "\x00" + side
	if p, ok := r.byLabel[key]; ok {
		return p, false
	}
	base := fileName(side)
	path := filepath.Join(k.dir, base+".txt")
	for n := 2; r.taken[path] != nil; n++ {
		path = filepath.Join(k.dir, base+"-"+strconv.Itoa(n)+".txt")
	}
	r.byLabel[key] = path
	r.taken[path] = &fileState{units: map[string]bool{}}
	return path, true
}

// compact drops from data, Go benchmark format about to be appended to
// path, what this process already wrote there and still holds: unit
// metadata lines, and a configuration block equal to the one in force.
func (r *fileRegistry) compact(path string, data []byte) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.taken[path]
	if st == nil {
		return data
	}
	var out, block bytes.Buffer
	flush := func() {
		if block.Len() > 0 && block.String() != st.config {
			st.config = block.String()
			out.Write(block.Bytes())
		}
		block.Reset()
	}
	for line := range bytes.Lines(data) {
		switch {
		case bytes.HasPrefix(line, []byte("Unit ")):
			if !st.units[string(line)] {
				st.units[string(line)] = true
				out.Write(line)
			}
		case bytes.HasPrefix(line, []byte("Benchmark")):
			flush()
			out.Write(line)
		default: // a configuration line, or the blank line ending a block
			block.Write(line)
		}
	}
	flush()
	return out.Bytes()
}

// lines appends the samples of ms to each side's file, under the
// benchmark described by hdr: only the configuration that stays the same
// for the benchmark is written, so that benchstat sees one benchmark
// rather than one per round.
func (k *sink) lines(run *model.Run, hdr *model.Benchmark, ms []model.Metric) error {
	b := model.Benchmark{Name: hdr.Name, Pkg: hdr.Pkg, Procs: hdr.Procs, Group: hdr.Group, Config: map[string]string{
		"goos":   runtime.GOOS,
		"goarch": runtime.GOARCH,
	}}
	if k.cpu != "" {
		b.Config["cpu"] = k.cpu
	}
	if v := hdr.Config[configGoroutines]; v != "" {
		b.Config[configGoroutines] = v
	}
	for _, m := range ms {
		if len(m.Samples) > 0 {
			b.Metrics = append(b.Metrics, m)
		}
	}
	if len(b.Metrics) == 0 {
		return nil
	}
	one := &model.Run{Sides: run.Sides, Benchmarks: []model.Benchmark{b}}
	for _, side := range run.Sides {
		var buf bytes.Buffer
		if err := model.WriteBenchfmt(&buf, one, side.Label); err != nil {
			return fmt.Errorf("writing the results of %s: %w", side.Label, err)
		}
		path, _ := k.sidePath(side.Label)
		if err := appendFile(path, k.files.compact(path, buf.Bytes())); err != nil {
			return fmt.Errorf("writing the results of %s: %w", side.Label, err)
		}
	}
	return nil
}

func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// json rewrites run.json with the run so far, marked partial, atomically
// (a crash leaves the last complete version). A child process leaves it
// to its parent.
func (k *sink) json(run *model.Run) error {
	if k.child {
		return nil
	}
	cp := *run
	cp.Notes = append(slices.Clone(run.Notes), model.Note{Kind: model.NoteInterrupted, Topic: "partial", Source: source, Text: partialNote})
	return experiment.WriteRun(k.dir, experiment.RunFile, &cp)
}

// emit writes what is new to the -rigor.out directory, if any, with the
// observer paused: the allocation rounds' lines (round 0), or timed round
// k's lines and the run so far.
func (r *runner) emit(s *setResult, k int, allocs bool) error {
	if r.sink == nil {
		return nil
	}
	if err := r.write(s, k, allocs); err != nil {
		// A full disk must not cost the measurements: stop streaming,
		// say so, and keep measuring; the report still comes at the end.
		r.sink = nil
		r.pass.Notes = append(r.pass.Notes, model.Note{Kind: model.NoteOutput, Source: source, Text: fmt.Sprintf("writing results as they arrived failed, so streaming stopped (the measurements go on): %v", err)})
	}
	return nil
}

// write streams the latest round (or the allocation rounds) to the sink.
func (r *runner) write(s *setResult, k int, allocs bool) error {
	if r.obs != nil {
		r.obs.Pause()
	}
	hdr := s.header(r)
	if allocs {
		bytes, allocs := s.allocMetrics()
		return r.sink.lines(r.pass, &hdr, []model.Metric{bytes, allocs})
	}
	sec, tps, gcs, _ := s.timedMetrics(k-1, k)
	ms := append([]model.Metric{sec}, tps...)
	if a, _ := s.allocMetrics(); s.allocates(a) {
		ms = append(ms, gcs)
	}
	if err := r.sink.lines(r.pass, &hdr, ms); err != nil {
		return err
	}
	hdr.Metrics = s.allMetrics()
	return r.sink.json(r.snapshot(hdr))
}

// snapshot returns the run so far, with b the benchmark being measured:
// the earlier passes' and this pass's benchmarks, combined by policy.
func (r *runner) snapshot(b model.Benchmark) *model.Run {
	cur := *r.pass
	cur.Benchmarks = append(slices.Clone(r.pass.Benchmarks), b)
	cur.End = time.Now()
	cur.Observations = slices.Clone(r.observations)
	if len(r.earlier) == 0 {
		return &cur
	}
	return combine(append(slices.Clone(r.earlier), &cur), r.cfg.Policy, false)
}

// writeRun writes run as dir/<group>.json and, as its final version,
// dir/run.json (see sink).
func writeRun(dir, group string, run *model.Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	if err := experiment.WriteRun(dir, fileName(group)+".json", run); err != nil {
		return err
	}
	return experiment.WriteRun(dir, experiment.RunFile, run)
}

// fileName makes a group name safe as a file name.
func fileName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "group"
	}
	return b.String()
}
