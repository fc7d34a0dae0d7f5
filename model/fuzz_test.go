package model

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// addSeedCorpus adds the files under testdata to f's corpus.
func addSeedCorpus(f *testing.F) {
	files, _ := filepath.Glob("../testdata/seed003/*")
	more, _ := filepath.Glob("../testdata/malformed/*")
	for _, name := range append(files, more...) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkRun checks what every Run read from any input must satisfy: its
// samples are finite and belong to a side, and it survives JSON.
func checkRun(t *testing.T, run *Run) {
	if run == nil {
		t.Fatal("nil run without an error")
	}
	for _, b := range run.Benchmarks {
		for _, m := range b.Metrics {
			for _, s := range m.Samples {
				if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
					t.Fatalf("%s %s: value %v", b.Name, m.Unit, s.Value)
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := run.WriteJSON(&buf); err != nil {
		t.Fatalf("WriteJSON of a run read without error: %v", err)
	}
	again, err := ReadJSON(&buf)
	if err != nil {
		t.Fatalf("ReadJSON of WriteJSON's output: %v", err)
	}
	if len(again.Benchmarks) != len(run.Benchmarks) {
		t.Fatalf("JSON round trip: %d benchmarks, had %d", len(again.Benchmarks), len(run.Benchmarks))
	}
}

func FuzzRead(f *testing.F) {
	addSeedCorpus(f)
	f.Add([]byte("BenchmarkA-8 10 5 ns/op 3 MB/s\nUnit MB/s better=lower\n"))
	f.Add([]byte("BenchmarkA-8 10 12345 ns/op 0.5 ms/op 7 us/item\nBenchmarkB 10 7 us/op 7 us/op\n"))
	f.Add([]byte("{\"Action\":\"output\",\"Package\":\"p\",\"Output\":\"BenchmarkA \\t\"}\n{\"Action\":\"output\",\"Package\":\"p\",\"Output\":\"1 2 ns/op\\n\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := Read(bytes.NewReader(data), "fuzz.txt", "")
		if err != nil {
			if bytes.Contains([]byte(err.Error()), []byte("\n")) {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		checkRun(t, run)
		if run.Kind != KindFiles || isHyperfineJSON(data) {
			return // hyperfine's commands are not Go benchmark names (FuzzReadHyperfine)
		}
		if detect(bytes.TrimPrefix(data, utf8BOM)) != formatJSON {
			// Go benchmark format skips what cannot be a measurement.
			for _, b := range run.Benchmarks {
				for _, m := range b.Metrics {
					for _, s := range m.Samples {
						if why := Implausible(s.Value, m.Unit); why != "" {
							t.Fatalf("%s: value %v %s %s, and was kept", b.Name, s.Value, m.Unit, why)
						}
					}
				}
			}
		}
		// What was read from Go benchmark format writes back, and reads
		// back the same, unless it cannot be written.
		var buf bytes.Buffer
		if err := WriteBenchfmt(&buf, run, run.Sides[0].Label); err != nil {
			return
		}
		again, err := Read(&buf, "fuzz.txt", "")
		if err != nil {
			t.Fatalf("reading WriteBenchfmt's output: %v\n%s", err, buf.Bytes())
		}
		if !reflect.DeepEqual(again.Benchmarks, run.Benchmarks) {
			t.Fatalf("benchfmt round trip changed the benchmarks\n%+v\n%+v\n%s", run.Benchmarks, again.Benchmarks, buf.Bytes())
		}
	})
}

func FuzzReadJSON(f *testing.F) {
	addSeedCorpus(f)
	var buf bytes.Buffer
	if err := fullRun().WriteJSON(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			if bytes.Contains([]byte(err.Error()), []byte("\n")) {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		checkRun(t, run)
	})
}
