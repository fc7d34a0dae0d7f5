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

// Levels the user set are shown as set: --noise 7 is a ±7% band, not
// ±7.000000000000001% (0.07 × 100 in floating point), and --confidence
// 0.9999 gives 99.99% CIs, not 100% (a measured share's three
// significant digits).
func TestSettingsShownAsSet(t *testing.T) {
	for _, tc := range []struct {
		format string
		want   []string
	}{
		{"text", []string{"99.99% CI"}},
		{"md", []string{"99.99% CI"}},
		{"tree", []string{"99.99% CIs; noise band ±7%"}},
		{"table", []string{"99.99% CIs; noise band ±7%"}},
		{"html", []string{"99.99% confidence intervals; noise band ±7%;", "the ±7% noise band"}},
	} {
		rep := fxPaired(t)
		rep.Options.Noise, rep.Options.Confidence = 0.07, 0.9999
		var b bytes.Buffer
		if err := Render(&b, rep, Options{Format: tc.format, Width: 200}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Contains(out, "7.000000000000001") {
			t.Errorf("%s: floating-point noise in the noise band:\n%s", tc.format, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: lacks %q:\n%s", tc.format, w, out)
			}
		}
	}
}
