package observe

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParsePerfStat(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     uint64
		err      error
	}{
		// What perf 6.x writes with -x, -o on this machine (a VM without
		// the counter), and on one that has it.
		{"not supported", "# started on Mon Nov 30 09:59:18 2026\n\n<not supported>,,instructions:u,0,100.00,,\n", 0, errPerfNotSupported},
		{"counted", "# started on Mon Nov 30 09:59:18 2026\n\n952246496,,instructions:u,47123456,100.00,,\n", 952246496, nil},
		{"not counted", "<not counted>,,instructions:u,0,0.00,,\n", 0, errPerfNotCounted},
		{"other events only", "1.23,msec,task-clock:u,1230000,100.00,0.9,CPUs utilized\n", 0, errPerfNoCount},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePerfStat(strings.NewReader(tt.in))
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("got %d, %v; want %d, %v", got, err, tt.want, tt.err)
			}
		})
	}
	if _, err := parsePerfStat(strings.NewReader("12x,,instructions:u\n")); err == nil {
		t.Error("bad count: want an error")
	}
}

func TestReadPerfStat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "perf.csv")
	if err := os.WriteFile(path, []byte("29498766,,instructions:u,46900000,100.00,,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := ReadPerfStat(path); n != 29498766 || err != nil {
		t.Errorf("got %d, %v", n, err)
	}
	if _, err := ReadPerfStat(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing file: want an error")
	}
}

func TestPerfStatArgs(t *testing.T) {
	got := PerfStatArgs("/tmp/c.csv", "./x.test", "-test.bench=.")
	want := []string{"perf", "stat", "-x,", "-o", "/tmp/c.csv", "-e", "instructions:u", "--", "./x.test", "-test.bench=."}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// PerfStatus is either available or says why not, in words.
func TestPerfStatus(t *testing.T) {
	s := PerfStatus(t.Context())
	if s != PerfAvailable && !strings.HasPrefix(s, "unavailable: ") {
		t.Errorf("PerfStatus = %q", s)
	}
}

func FuzzParsePerfStat(f *testing.F) {
	f.Add("<not supported>,,instructions:u,0,100.00,,\n")
	f.Add("952246496,,instructions:u,47123456,100.00,,\n")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parsePerfStat(strings.NewReader(s))
		if err != nil && n != 0 {
			t.Fatalf("count %d with error %v", n, err)
		}
	})
}
