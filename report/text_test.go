package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/analysis"
)

// On a colour terminal the default style coloured the geomean row's
// empty verdict cell with a verdict it does not have: an index out of
// range, so 'rigor compare' of two benchmarks or more crashed there.
func TestTextColorGeomean(t *testing.T) {
	for _, fx := range []func(testing.TB) *analysis.Report{fxPaired, fxXXHash} {
		var b bytes.Buffer
		if err := Render(&b, fx(t), Options{Format: "text", Color: true, Width: 100}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "geomean") || !strings.Contains(b.String(), green) {
			t.Errorf("no geomean row or no colour:\n%s", b.String())
		}
	}
}
