// Package words holds the few helpers that put numbers and lists into
// rigor's notes, so that every package words them the same way: a count
// with its noun ("1 benchmark", "3 benchmarks"), a fraction as a
// percentage ("12.3%"), a list cut short ("a, b and 4 more"), and the end
// of a program's output quoted in a message.
//
// Package map:
//
//	words.go  Plural, Count, Pct, JoinList, Tail
package words

import (
	"math"
	"strconv"
	"strings"
)

// Plural returns one when n is 1 and many otherwise:
// Plural(n, "benchmark", "benchmarks").
func Plural[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count returns n and its noun: "1 request", "3 requests".
func Count[N ~int | ~int64](n N, one, many string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Plural(n, one, many)
}

// Pct formats a fraction as a percentage with three significant digits,
// trailing zeros dropped, and whole from 100% up (never in exponent
// form): 0.95 is "95%", 0.999 "99.9%", 0.1234 "12.3%", 0.005 "0.5%",
// 22.65 "2265%".
func Pct(f float64) string {
	p := f * 100
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return strconv.FormatFloat(p, 'f', -1, 64) + "%"
	}
	// Rounding to three significant digits first makes 99.96 "100" and
	// 9.996 "10", not "100.0" and "10.0".
	if math.Abs(p) < 100 {
		p, _ = strconv.ParseFloat(strconv.FormatFloat(p, 'g', 3, 64), 64)
	}
	decimals := 0
	if a := math.Abs(p); a > 0 && a < 100 {
		decimals = 2 - int(math.Floor(math.Log10(a)))
	}
	s := strconv.FormatFloat(p, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + "%"
}

// PctUp formats a nonnegative fraction as a percentage with two
// significant digits, rounded up, for a bound that must never be
// understated: 0.02341 is "2.4%", 0.0051 "0.51%", 0.123 "13%", 0.02
// "2%".
func PctUp(f float64) string {
	p := f * 100
	if math.IsNaN(p) || math.IsInf(p, 0) || p <= 0 {
		return Pct(f)
	}
	scale := math.Pow(10, 1-math.Floor(math.Log10(p))) // two significant digits
	// The product's rounding error (0.07 × 100 is 7.000000000000001)
	// must not round a whole bound up a step.
	up := math.Ceil(p*scale-1e-9) / scale
	decimals := max(0, 1-int(math.Floor(math.Log10(up))))
	s := strconv.FormatFloat(up, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + "%"
}

// PctSetting formats a fraction someone set (a confidence level, a noise
// band) as a percentage with the digits it was set with: 0.07 is "7%",
// not "7.000000000000001%" (the rounding error of 0.07 × 100), and
// 0.9999 is "99.99%", where Pct, made for measured shares, says "100%".
// Never in exponent form.
func PctSetting(f float64) string {
	p := f * 100
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return strconv.FormatFloat(p, 'f', -1, 64) + "%"
	}
	// Twelve significant digits keep every digit a person types and
	// drop the multiplication's error, which is in the sixteenth.
	p, _ = strconv.ParseFloat(strconv.FormatFloat(p, 'g', 12, 64), 64)
	if p == 0 {
		p = 0 // not "-0%"
	}
	return strconv.FormatFloat(p, 'f', -1, 64) + "%"
}

// JoinList joins up to max items with commas and "and", and says how
// many more there are: "a, b and c", "a, b and 4 more". When an item
// holds a comma itself, semicolons separate them instead: "x (failed: a,
// b); y".
func JoinList(items []string, max int) string {
	sep := ", "
	for _, it := range items[:min(max, len(items))] {
		if strings.Contains(it, ",") {
			sep = "; "
			break
		}
	}
	if len(items) > max {
		return strings.Join(items[:max], sep) + " and " + strconv.Itoa(len(items)-max) + " more"
	}
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], sep) + " and " + items[len(items)-1]
}

// Tail returns the last n lines of s, after "..." when it cut any: the end
// of a failed program's output, quoted in a message.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// CodeSpan writes s as a Markdown inline code span, fenced with one
// backtick more than the longest run of backticks in s, with a space
// inside when s holds a backtick or starts with a space, so that nothing
// in s ends the span early and the rest is read as Markdown.
func CodeSpan(s string) string {
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, " ") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
