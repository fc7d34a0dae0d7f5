package suite

import (
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

func TestRevisions(t *testing.T) {
	old, new := Revisions(12, map[int]float64{3: 1.5})
	for _, files := range []map[string]string{old, new} {
		benchmarks := 0
		for name, src := range files {
			if !strings.HasSuffix(name, ".go") {
				continue
			}
			if _, err := parser.ParseFile(token.NewFileSet(), name, src, 0); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			benchmarks += strings.Count(src, "\nfunc Benchmark")
		}
		if benchmarks != 12 {
			t.Errorf("%d benchmarks, want 12", benchmarks)
		}
	}
	// B003 does 1.5 times the work on new: 40 + 3*37 = 151 steps, 227
	// (151*1.5 rounded) on new; B001's work depends on the offset on new.
	if !strings.Contains(old["p1/p.go"], "func Steps003() int { return 151 }") || !strings.Contains(new["p1/p.go"], "func Steps003() int { return 227 }") {
		t.Errorf("B003's steps:\n%s\n%s", old["p1/p.go"], new["p1/p.go"])
	}
	if !strings.Contains(new["p1/p.go"], "func Steps001() int { return 77*(100+offset)/100 }") || strings.Contains(old["p1/p.go"], "offset") {
		t.Errorf("B001's offset:\n%s", new["p1/p.go"])
	}
	if got := Changed(map[int]float64{3: 1.5, 10: 0.5}); !slices.Equal(got, []string{"p1.B003", "p0.B010"}) {
		t.Errorf("Changed = %v", got)
	}
}
