package model

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/internal/genlarge"
)

// readAndMerge is what ReadFiles replaces: ReadFile of each input, then
// Merge.
func readAndMerge(inputs []Input) (*Run, error) {
	var runs []*Run
	for _, in := range inputs {
		r, err := ReadFile(in.Path, in.Label)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return Merge(runs...)
}

// TestReadFilesSameAsMerge: ReadFiles, which places the samples of Go
// benchmark format straight into the merged run, returns the run that
// ReadFile of each input and Merge return, sample for sample (side,
// round, iterations, value, in order), for every format and mix of them:
// benchmarks on some inputs only, rounds interleaved (go test -count
// output concatenated), configurations and unit metadata that differ,
// go test -json and rigor JSON beside Go benchmark format.
func TestReadFilesSameAsMerge(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var old, new bytes.Buffer
	if err := genlarge.Write(&old, &new, 30); err != nil {
		t.Fatal(err)
	}
	// Every benchmark's rounds interleaved with the others', as in the
	// output of two go test runs concatenated; new has some of old's
	// benchmarks only.
	oldTwice := write("old2.txt", append(bytes.Clone(old.Bytes()), old.Bytes()...))
	newPart := write("newpart.txt", new.Bytes()[:new.Len()/2])
	newAll := write("new.txt", new.Bytes())
	a := write("a.txt", []byte("cpu: A\npkg: p\nBenchmarkA 1 1 ns/op 8 B/op\nBenchmarkA 1 2 ns/op 8 B/op\nBenchmarkOnlyOld 1 5 ns/op\n"))
	b := write("b.txt", []byte("cpu: B\npkg: p\nBenchmarkOnlyNew 1 6 ns/op\nBenchmarkA 1 3 ns/op 4 B/op\nUnit B/op assume=exact\nBenchmarkA 2 4 ns/op 4 B/op 7 x/op\n"))
	seedRun, err := ReadFile("../testdata/seed003/optimized.txt", "opt")
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := seedRun.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	rigorJSON := write("opt.json", js.Bytes())
	tests := [][]Input{
		{{oldTwice, "old"}, {newAll, "new"}},
		{{oldTwice, "old"}, {newPart, "part"}, {newAll, "new"}},
		{{newPart, "part"}, {oldTwice, "old"}},
		{{a, "a"}, {b, "b"}},
		{{"../testdata/seed003/base.txt", "base"}, {rigorJSON, "json"}, {"../testdata/seed003/test.json", "testjson"}},
		{{rigorJSON, "json"}, {"../testdata/seed003/base.txt", "base"}},
		{{b, "b"}},
	}
	for _, inputs := range tests {
		want, err := readAndMerge(inputs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadFiles(inputs)
		if err != nil {
			t.Fatalf("%v: %v", inputs, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: ReadFiles's run differs from ReadFile and Merge's", inputs)
			for i := range min(len(got.Benchmarks), len(want.Benchmarks)) {
				if g, w := got.Benchmarks[i], want.Benchmarks[i]; !reflect.DeepEqual(g, w) {
					t.Fatalf("benchmark %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
		}
		// Each metric's samples have no spare capacity, as Merge leaves
		// them: an append copies rather than writes into a neighbour.
		for _, bm := range got.Benchmarks {
			for _, m := range bm.Metrics {
				if cap(m.Samples) != len(m.Samples) {
					t.Fatalf("%s %s: %d samples, capacity %d", bm.Key(), m.Unit, len(m.Samples), cap(m.Samples))
				}
			}
		}
	}
}

// TestReadFilesErrors: ReadFiles fails as ReadFile and Merge do, with
// their words, and on an input without benchmarks.
func TestReadFilesErrors(t *testing.T) {
	dir := t.TempDir()
	noBench := filepath.Join(dir, "nobench.json")
	if err := os.WriteFile(noBench, []byte(`{"schema_version": 2, "kind": "files", "sides": [{"label": "x"}], "benchmarks": []}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := "../testdata/seed003/base.txt"
	tests := []struct {
		inputs []Input
		want   string
	}{
		{[]Input{{base, "base"}, {filepath.Join(dir, "missing.txt"), "m"}}, ""},
		{[]Input{{base, "base"}, {"../testdata/malformed/nobench.txt", "n"}}, ""},
		{[]Input{{base, "base"}, {base, "base"}}, ""},
		{[]Input{{base, "base"}, {noBench, "x"}}, noBench + ": no benchmark results"},
	}
	for _, tt := range tests {
		_, err := ReadFiles(tt.inputs)
		if err == nil {
			t.Fatalf("%v: no error", tt.inputs)
		}
		want := tt.want
		if want == "" {
			_, werr := readAndMerge(tt.inputs)
			if werr == nil {
				t.Fatalf("%v: ReadFile and Merge give no error", tt.inputs)
			}
			want = werr.Error()
		}
		if err.Error() != want {
			t.Errorf("%v: error %q, want %q", tt.inputs, err, want)
		}
	}
}

// TestReadManyUnits: a benchmark with more units than the reader finds
// by a scan (8) has each value under its own unit, whichever order the
// lines give them in and when a unit first appears on a later line,
// read alone or by ReadFiles.
func TestReadManyUnits(t *testing.T) {
	var in strings.Builder
	line := func(units []int, base float64) {
		in.WriteString("BenchmarkMany 10")
		for _, u := range units {
			fmt.Fprintf(&in, " %g u%d/op", base+float64(u), u)
		}
		in.WriteString("\n")
	}
	line([]int{1, 2, 3, 4, 5, 6, 7, 8}, 100)                // eight: the scan's
	line([]int{8, 7, 6, 5, 4, 3, 2, 1, 9}, 200)             // the ninth: the map's from here
	line([]int{10, 9, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12}, 300) // three more, out of order
	line([]int{12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 400) // all, reversed
	line([]int{3}, 500)                                     // one
	want := map[int][]float64{}
	for u := 1; u <= 12; u++ {
		for _, base := range []float64{100, 200, 300, 400} {
			if (u <= 8) || (u == 9 && base >= 200) || (u >= 10 && base >= 300) {
				want[u] = append(want[u], base+float64(u))
			}
		}
		if u == 3 {
			want[u] = append(want[u], 503)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "many.txt")
	if err := os.WriteFile(path, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	one, err := ReadFile(path, "a")
	if err != nil {
		t.Fatal(err)
	}
	merged, err := ReadFiles([]Input{{path, "a"}, {path, "b"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Run{one, merged} {
		if len(r.Benchmarks) != 1 || len(r.Benchmarks[0].Metrics) != 12 {
			t.Fatalf("benchmarks %d, metrics %+v", len(r.Benchmarks), r.Benchmarks)
		}
		for u, w := range want {
			m := r.Benchmarks[0].Metric(fmt.Sprintf("u%d/op", u))
			if m == nil {
				t.Fatalf("no unit u%d/op", u)
			}
			for _, side := range r.Sides {
				if got := m.Values(side.Label); !slices.Equal(got, w) {
					t.Errorf("u%d/op on %s = %v, want %v", u, side.Label, got, w)
				}
			}
		}
	}
}
