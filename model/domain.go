package model

import (
	"fmt"
	"math"
	"strings"
)

// The magnitudes a nonzero value may have. Beyond them rigor's arithmetic
// cannot be trusted: variances square the values, changes divide one side
// by the other and charts take logarithms, and a float64 overflows past
// 1.8e308 and loses precision below 2.2e-308 (5e-324 ns/op is 0 sec/op).
// No benchmark measures anything near either bound (1e150 seconds is
// 1e142 years), so a value beyond them is a bug in what produced it.
const (
	MinMagnitude = 1e-150
	MaxMagnitude = 1e150
)

// A time under ElisionSec per operation is a handful of instructions at
// most, which usually means the compiler removed the work the loop was
// meant to measure; with a coefficient of variation under ElisionCV it is
// the classic sign of an empty loop. Both packages that judge elision,
// observe (from the samples, then the disassembly) and analysis (when
// observe did not), use these. Measured with go test -bench -count 8 on the
// development machine (2-CPU KVM guest, busy): a loop whose call the
// compiler removed ran at 0.56-1.06 ns/op, a loop of one dependent add at
// 0.81-0.93 ns/op, a division at 6.6-12 ns/op. A nanosecond cannot tell
// the first two apart, so the notes say "likely" and observe's
// ConfirmElision reads the disassembly; the variation of the removed loop
// on that busy machine (0.56-1.06) also shows why a noisy empty loop is
// still noted.
const (
	ElisionSec = 1e-9
	ElisionCV  = 0.05
)

// Implausible says why v, a value in unit, cannot be a measurement, or
// returns "" when it can be one. A value cannot be a measurement when it
// is not a finite number, when it is nonzero and its magnitude is outside
// [MinMagnitude, MaxMagnitude], or when it is negative in a unit that
// counts time, bytes or allocations (sec/op, ns/op, B/op, allocs/op, B/s,
// MB/s, user-sec/op...). Other units may be negative (a benchmark may
// report any metric), so their sign is not checked.
func Implausible(v float64, unit string) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "is not a finite number"
	case v < 0 && nonNegative(unit) != "":
		return "is negative, which " + nonNegative(unit) + " cannot be"
	case v != 0 && math.Abs(v) < MinMagnitude:
		return fmt.Sprintf("is nonzero but smaller in magnitude than %g, beyond what rigor computes with", MinMagnitude)
	case math.Abs(v) > MaxMagnitude:
		return fmt.Sprintf("is larger in magnitude than %g, beyond what rigor computes with", MaxMagnitude)
	}
	return ""
}

// nonNegative names what unit counts ("a time", "a byte count", "an
// allocation count") when its values cannot be negative, or returns "".
func nonNegative(unit string) string {
	q, _, _ := strings.Cut(unit, "/")
	if i := strings.LastIndexByte(q, '-'); i >= 0 {
		q = q[i+1:] // user-sec, cpu-ns
	}
	switch q {
	case "sec", "ns", "us", "µs", "ms", "s":
		return "a time"
	case "B", "KB", "MB", "GB", "KiB", "MiB", "GiB":
		return "a byte count"
	case "allocs":
		return "an allocation count"
	}
	return ""
}
