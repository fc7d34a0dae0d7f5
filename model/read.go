package model

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

// MaxLineBytes is the longest line Read accepts, newline excluded. Go
// benchmark format has a lower limit of its own (64 KiB, as benchstat's),
// and rigor writes its JSON indented, one value a line.
const MaxLineBytes = 1 << 20

// maxHeadBytes bounds what Read looks at to tell the format.
const maxHeadBytes = 2 << 20

// benchfmtMaxLine is the longest line golang.org/x/perf/benchfmt's
// scanner (bufio.MaxScanTokenSize) can hold, newline excluded.
const benchfmtMaxLine = bufio.MaxScanTokenSize - 1

// A LineTooLongError says that an input has a line longer than Read
// accepts: it is not benchmark output (reading /dev/zero ends here, after
// a bounded amount of memory, rather than never).
type LineTooLongError struct {
	Name string // input name
	Line int    // 1-based
	Max  int    // the limit, in bytes
	// Format is the detected format, when the limit is that format's.
	Format string
}

func (e *LineTooLongError) Error() string {
	what := "this is not benchmark output"
	if e.Format != "" {
		what = "too long for " + e.Format
	}
	return fmt.Sprintf("%s:%d: line is longer than %s; %s", e.Name, e.Line, byteSize(e.Max), what)
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n+1 >= 1<<10 && (n+1)%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", (n+1)>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// A lineReader passes its input through until a line exceeds max bytes,
// then fails with a LineTooLongError naming the line.
type lineReader struct {
	r      io.Reader
	name   string
	max    int
	format string
	line   int // current line, 1-based
	cur    int // bytes of the current line so far
	err    error
}

func (r *lineReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		end := n
		if j >= 0 {
			end = i + j
		}
		r.cur += end - i
		if r.cur > r.max {
			r.err = &LineTooLongError{Name: r.name, Line: r.line, Max: r.max, Format: r.format}
			return end - (r.cur - r.max), r.err
		}
		if j < 0 {
			break
		}
		r.cur = 0
		r.line++
		i = end + 1
	}
	return n, err
}

// Read reads one input of Go benchmark output, `go test -json` output,
// rigor JSON or hyperfine's JSON export, detecting which from the content. name is used in errors and
// notes. For Go benchmark and `go test -json` input, the Run has one side
// labelled label (name if label is empty) with Source name. A rigor JSON
// run keeps its own sides; if it has exactly one and label is not empty,
// that side is relabelled.
//
// Lines of Go benchmark output that do not parse are skipped and noted in
// Run.Notes, as benchstat warns and goes on; an input without any
// benchmark result is an error. So is a line longer than MaxLineBytes (a
// *LineTooLongError): Read never holds more than that of an input that
// has no line ends, such as /dev/zero. Go benchmark output is read as a
// stream, so its memory does not grow with the input either.
func Read(r io.Reader, name, label string) (*Run, error) {
	run, _, err := read(r, name, label, false)
	return run, err
}

// read is Read. With deferPlace, a run of Go benchmark format comes back
// with its samples still in the builder returned beside it (every
// metric's Samples nil), for merge to place; the builder is nil for the
// other formats, whose runs are whole.
func read(r io.Reader, name, label string, deferPlace bool) (*Run, *sideBuilder, error) {
	if name == "" {
		name = "input"
	}
	lr := &lineReader{r: r, name: name, max: MaxLineBytes, line: 1}
	br := bufio.NewReaderSize(lr, 64<<10)
	head, err := readHead(br)
	head = bytes.TrimPrefix(head, utf8BOM)
	if err != nil {
		var long *LineTooLongError
		if errors.As(err, &long) && long.Line > 1 && detect(head[:bytes.LastIndexByte(head, '\n')+1]) == formatBenchfmt {
			// The lines before it are Go benchmark format, whose
			// own limit is lower: name that one.
			long.Max, long.Format = benchfmtMaxLine, "Go benchmark format"
		}
		return nil, nil, wrapReadError(name, err)
	}
	side := label
	if side == "" {
		side = name
	}
	if detect(head) == formatBenchfmt {
		if err := checkLines(head, name, benchfmtMaxLine); err != nil {
			return nil, nil, err
		}
		// The rest of the input streams through benchfmt's scanner; a
		// longer line fails here with its number rather than there.
		lr.max, lr.format = benchfmtMaxLine, "Go benchmark format"
		run, b, err := readBenchfmtDeferred(io.MultiReader(bytes.NewReader(head), br), name, side, deferPlace)
		if err != nil {
			return nil, nil, wrapReadError(name, err)
		}
		return run, b, nil
	}
	rest, err := io.ReadAll(br)
	if err != nil {
		return nil, nil, wrapReadError(name, err)
	}
	run, err := readBytes(append(head, rest...), name, label)
	return run, nil, err
}

// ReadFile reads the file at path as Read does, with path as its name.
func ReadFile(path, label string) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, label)
}

// An Input is one input of ReadFiles: a file's path, and the label of
// its side as ReadFile takes it.
type Input struct {
	Path, Label string
}

// ReadFiles reads each input as ReadFile does and merges them, in order,
// as Merge does: the run is the one ReadFile and Merge would return. An
// input without benchmarks is an error ("PATH: no benchmark results").
// The samples of Go benchmark format go from the reader straight into the
// merged run, rather than into a run per input and then all of them into
// a copy: rigor compare of two files of 10,000 benchmarks held both, 48
// MB of samples, at its peak.
func ReadFiles(inputs []Input) (*Run, error) {
	runs := make([]*Run, len(inputs))
	unplaced := make([]*sideBuilder, len(inputs))
	for i, in := range inputs {
		f, err := os.Open(in.Path)
		if err != nil {
			return nil, err
		}
		runs[i], unplaced[i], err = read(f, in.Path, in.Label, true)
		f.Close()
		if err != nil {
			return nil, err
		}
		if len(runs[i].Benchmarks) == 0 {
			return nil, fmt.Errorf("%s: no benchmark results", in.Path)
		}
	}
	return merge(runs, unplaced)
}

// wrapReadError names the input in an I/O error, unless it already does.
func wrapReadError(name string, err error) error {
	var long *LineTooLongError
	var pathErr *os.PathError
	if errors.As(err, &long) || errors.As(err, &pathErr) || strings.HasPrefix(err.Error(), name+":") {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// readHead reads whole lines from br until it has seen the 20 non-empty
// lines detect looks at, maxHeadBytes, or the end of the input. On an
// error it returns what it read before it too.
func readHead(br *bufio.Reader) ([]byte, error) {
	var head []byte
	for n := 0; n < 20 && len(head) < maxHeadBytes; {
		line, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			head = append(head, line...)
			line, err = br.ReadSlice('\n')
		}
		head = append(head, line...)
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
		if err == io.EOF {
			return head, nil
		}
		if err != nil {
			return head, err
		}
	}
	return head, nil
}

// checkLines returns a LineTooLongError for the first line of data longer
// than max.
func checkLines(data []byte, name string, max int) error {
	for line := 1; len(data) > 0; line++ {
		l, rest, _ := bytes.Cut(data, []byte("\n"))
		if len(l) > max {
			return &LineTooLongError{Name: name, Line: line, Max: max, Format: "Go benchmark format"}
		}
		data = rest
	}
	return nil
}

type format int

const (
	formatEmpty format = iota
	formatBenchfmt
	formatTestJSON
	formatJSON
	formatUTF16
)

// detect tells the format of data from its first lines.
func detect(data []byte) format {
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		return formatUTF16
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return formatEmpty
	}
	// go test -json output may follow a few lines of build chatter, so
	// look at the first lines rather than only the first.
	rest := trimmed
	for n := 0; n < 20 && len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if isTestJSONLine(line) {
			return formatTestJSON
		}
		n++
	}
	if trimmed[0] == '{' {
		return formatJSON
	}
	return formatBenchfmt
}

var utf8BOM = []byte("\xef\xbb\xbf")

func readBytes(data []byte, name, label string) (*Run, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	side := label
	if side == "" {
		side = name
	}
	switch detect(data) {
	case formatEmpty:
		return nil, fmt.Errorf("%s: empty input", name)
	case formatUTF16:
		return nil, fmt.Errorf("%s: input is UTF-16 (as PowerShell's > writes it); convert it to UTF-8", name)
	case formatTestJSON:
		return readTestJSON(data, name, side)
	case formatJSON:
		if isHyperfineJSON(data) {
			return readHyperfine(data, name, side)
		}
		run, err := readJSON(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if label != "" && len(run.Sides) == 1 {
			run = run.Relabel(run.Sides[0].Label, label)
		}
		return run, nil
	}
	return readBenchfmt(bytes.NewReader(data), name, side)
}

// Relabel returns a copy of r with side from renamed to: in Sides, in
// every sample and observation, and in every benchmark's Missing entries.
// The copy shares nothing that it changes with r.
func (r *Run) Relabel(from, to string) *Run {
	rename := func(side *string) {
		if *side == from {
			*side = to
		}
	}
	out := *r
	out.Sides = slices.Clone(r.Sides)
	for i := range out.Sides {
		rename(&out.Sides[i].Label)
	}
	out.Benchmarks = slices.Clone(r.Benchmarks)
	for i := range out.Benchmarks {
		b := &out.Benchmarks[i]
		if m, ok := b.Missing[from]; ok {
			b.Missing = maps.Clone(b.Missing)
			delete(b.Missing, from)
			b.Missing[to] = m
		}
		b.Metrics = slices.Clone(b.Metrics)
		for j := range b.Metrics {
			m := &b.Metrics[j]
			m.Samples = slices.Clone(m.Samples)
			for k := range m.Samples {
				rename(&m.Samples[k].Side)
			}
		}
	}
	out.Observations = slices.Clone(r.Observations)
	for i := range out.Observations {
		rename(&out.Observations[i].Side)
	}
	return &out
}
