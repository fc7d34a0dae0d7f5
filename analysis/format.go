package analysis

import (
	"fmt"
	"math"
)

// signedPct formats a fraction as a signed percentage with two decimals.
func signedPct(f float64) string {
	if math.IsNaN(f) {
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", f*100)
}

// formatP formats a p-value as benchstat does, with three decimals, but
// never rounds a p-value down to zero silently.
func formatP(p float64) string {
	if math.IsNaN(p) {
		return "?"
	}
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// quantity formats a value with its unit: "8 B/op", "0.5 allocs/op".
func quantity(v float64, unit string) string {
	return number(v, false) + " " + unit
}

// signedQuantity formats an absolute change with its sign and unit:
// "+1 allocs/op".
func signedQuantity(v float64, unit string) string {
	return number(v, true) + " " + unit
}

// number prints whole numbers whole (43208, not 4.321e+04) and others
// with four significant digits.
func number(v float64, sign bool) string {
	f := "%"
	if sign {
		f += "+"
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf(f+".0f", v)
	}
	return fmt.Sprintf(f+".4g", v)
}
