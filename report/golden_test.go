package report

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
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

// TestFormatsListed: Formats is the formats documented (and the
// commands' --format help lists), sorted, each Known and rendered by its
// own renderer; an unknown one is not.
func TestFormatsListed(t *testing.T) {
	want := []string{"benchfmt", "csv", "html", "json", "llm", "md", "table", "text", "tree"}
	if got := Formats(); !slices.Equal(got, want) {
		t.Errorf("Formats() = %q, want %q", got, want)
	}
	for _, f := range want {
		if !Known(f) {
			t.Errorf("Known(%q) = false", f)
		}
	}
	if Known("xml") || Known("") {
		t.Error("Known says yes to a format that does not exist")
	}
	if err := Render(io.Discard, &analysis.Report{}, Options{Format: "xml"}); err == nil || !strings.Contains(err.Error(), `unknown format "xml"`) {
		t.Errorf("Render of an unknown format: %v", err)
	}
}
