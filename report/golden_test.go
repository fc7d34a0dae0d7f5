package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/analysis"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the current output")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d:\n got: %q\nwant: %q\n(run go test ./report -update if the change is intended)", path, i+1, g, w)
			}
		}
	}
}

func TestGolden(t *testing.T) {
	fixtures := []struct {
		name string
		rep  func(testing.TB) *analysis.Report
	}{
		{"seed003", fxSeed003},
		{"paired", fxPaired},
		{"group", fxGroup},
	}
	cases := []struct {
		suffix string
		opts   Options
	}{
		{"tree", Options{Format: "tree", Width: 100}},
		{"table", Options{Format: "table", Width: 120}},
		{"tree-style-table", Options{Format: "tree", Style: "table", Width: 120}},
		{"llm", Options{Format: "llm"}},
		{"benchfmt", Options{Format: "benchfmt"}},
	}
	for _, fx := range fixtures {
		rep := fx.rep(t)
		for _, c := range cases {
			t.Run(fx.name+"."+c.suffix, func(t *testing.T) {
				var b bytes.Buffer
				if err := Render(&b, rep, c.opts); err != nil {
					t.Fatal(err)
				}
				golden(t, fx.name+"."+c.suffix+".golden", b.Bytes())
			})
		}
	}
	// Colour and a narrow terminal.
	var b bytes.Buffer
	if err := Render(&b, fxPaired(t), Options{Format: "tree", Width: 72, Color: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "paired.tree-color-72.golden", b.Bytes())
}
