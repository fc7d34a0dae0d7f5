package model

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// zeros is /dev/zero: an input without end and without line ends.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestReadBoundsLines: an input with a line longer than Read accepts
// fails with the input's name and the line's number, after reading at
// most the limit (plus one buffer), not the whole input: reading
// /dev/zero used to grow memory until the machine ran out.
func TestReadBoundsLines(t *testing.T) {
	const slack = 128 << 10 // read-ahead buffers
	line := func(n int, c string) string { return strings.Repeat(c, n) }
	tests := []struct {
		name     string
		input    io.Reader
		wantLine int
		maxRead  int
		want     string
	}{
		{"dev zero", io.LimitReader(zeros{}, 64<<20), 1, MaxLineBytes + slack, "in.txt:1: line is longer than 1 MiB; this is not benchmark output"},
		{"benchfmt line 3", strings.NewReader("BenchmarkA 1 2 ns/op\nBenchmarkA 1 3 ns/op\n" + line(8<<20, "7")), 3, MaxLineBytes + slack,
			"in.txt:3: line is longer than 64 KiB; too long for Go benchmark format"},
		{"benchfmt line after head", strings.NewReader(strings.Repeat("BenchmarkA 1 2 ns/op\n", 30) + line(8<<20, "x") + "\n"), 31, 30*21 + benchfmtMaxLine + slack,
			"in.txt:31: line is longer than 64 KiB"},
		{"benchfmt long line in head", strings.NewReader("BenchmarkA 1 2 ns/op\n" + line(100<<10, "x") + "\n"), 2, MaxLineBytes + slack,
			"in.txt:2: line is longer than 64 KiB"},
		{"json", strings.NewReader("{\n\"schema_version\": 1,\n\"sides\": [\"" + line(8<<20, "a")), 3, MaxLineBytes + slack,
			"in.txt:3: line is longer than 1 MiB"},
		{"go test -json", strings.NewReader(`{"Action":"start","Package":"p"}` + "\n" + line(8<<20, " ")), 2, MaxLineBytes + slack,
			"in.txt:2: line is longer than 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := &countingReader{r: tt.input}
			_, err := Read(cr, "in.txt", "")
			var long *LineTooLongError
			if !errors.As(err, &long) || long.Line != tt.wantLine || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want a LineTooLongError at line %d starting %q", err, tt.wantLine, tt.want)
			}
			if cr.n > tt.maxRead {
				t.Errorf("read %d bytes before failing, want at most %d", cr.n, tt.maxRead)
			}
		})
	}
}

// TestReadLongLinesWithinLimit: lines up to the limits still read.
func TestReadLongLinesWithinLimit(t *testing.T) {
	name := "A" + strings.Repeat("x", benchfmtMaxLine-len("BenchmarkA 1 2 ns/op"))
	in := "Benchmark" + name + " 1 2 ns/op\n"
	if n := len(in) - 1; n != benchfmtMaxLine {
		t.Fatalf("test line is %d bytes, want %d", n, benchfmtMaxLine)
	}
	run, err := Read(strings.NewReader(strings.Repeat(in, 3)), "in.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Benchmarks) != 1 || len(run.Benchmarks[0].Metrics[0].Samples) != 3 {
		t.Errorf("read %d benchmarks, want 1 with 3 samples", len(run.Benchmarks))
	}
}
