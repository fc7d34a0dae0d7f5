package report

import (
	"testing"

	"golang.org/x/perf/benchunit"

	"github.com/rigorbench/rigor/analysis"
)

// TestFormatExtremes: numbers far from any benchmark's still print as a
// number a reader can take in, and a relative spread around a negative
// center (meaningless) is not printed as "± -5%".
func TestFormatExtremes(t *testing.T) {
	one := benchunit.Scaler{Prec: 3, Factor: 1}
	tests := []struct{ got, want string }{
		{spread(analysis.Summary{N: 6, Center: -5, Lo: -5.25, Hi: -4.75}), "?"},
		{spread(analysis.Summary{N: 6, Center: 5, Lo: 4.75, Hi: 5.25}), "5%"},
		{percent(3.3e300), "+3.3e+302%"},
		{percent(-0.9013), "-90.13%"},
		{shortPct(3.3e300), "+3.3e+302%"},
		{scaled(1e150, one), "1e+150"},
		{scaled(1234.5, one), "1234.500"},
		{value("B/op", 1e150), "1e+150B"},
		{interval("B/op", analysis.Summary{N: 6, Center: 1e150, Lo: 1e-150, Hi: 1e150}), "[0.0000000000–1e+150]B"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}
