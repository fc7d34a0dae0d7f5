package model

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"
)

// UnitMetadata returns what the unit metadata lines in units ("Unit x/op
// better=higher assume=exact") say of unit: its direction, DefaultBetter
// when they say nothing, and its assumption, AssumeExact or "" (assume
// nothing). A value that is neither (better=sideways) is ignored and
// returned in bad, for the caller to note in BadMetadata's words.
func UnitMetadata(units benchfmt.UnitMetadataMap, unit string) (better int, assume string, bad []*benchfmt.UnitMetadata) {
	better = DefaultBetter(unit)
	if md := units[benchfmt.UnitMetadataKey{Unit: unit, Key: "better"}]; md != nil {
		switch md.Value {
		case "higher":
			better = HigherIsBetter
		case "lower":
			better = LowerIsBetter
		default:
			bad = append(bad, md)
		}
	}
	if md := units[benchfmt.UnitMetadataKey{Unit: unit, Key: "assume"}]; md != nil {
		switch md.Value {
		case AssumeExact:
			assume = AssumeExact
		case AssumeNothing:
		default:
			bad = append(bad, md)
		}
	}
	return better, assume, bad
}

// BadMetadata says why UnitMetadata ignored md: "unit x/op:
// better=sideways is neither higher nor lower; using the default".
func BadMetadata(md *benchfmt.UnitMetadata) string {
	if md.Key == "better" {
		return fmt.Sprintf("unit %s: better=%s is neither higher nor lower; using the default", md.OrigUnit, md.Value)
	}
	return fmt.Sprintf("unit %s: %s=%s is neither nothing nor exact; assuming nothing", md.OrigUnit, md.Key, md.Value)
}

func metadataLine(md *benchfmt.UnitMetadata) int {
	_, line := md.Pos()
	return line
}

// DefaultBetter is the direction of unit when no metadata says otherwise:
// HigherIsBetter for rates (units ending in "/s", such as B/s), and
// LowerIsBetter for everything else (sec/op, B/op, allocs/op...).
func DefaultBetter(unit string) int {
	if strings.HasSuffix(unit, "/s") {
		return HigherIsBetter
	}
	return LowerIsBetter
}

// SplitName splits a benchmark's name as go test prints it after
// "Benchmark" ("Build/size=1024-8") into the name and its GOMAXPROCS
// suffix ("Build/size=1024", 8), as benchstat reads it. A suffix that
// would not print back the same ("-0", "-08") stays part of the name, and
// procs is 0.
func SplitName(full string) (name string, procs int) {
	_, parts := benchfmt.Name(full).Parts()
	if n := len(parts); n > 0 && parts[n-1][0] == '-' {
		digits := string(parts[n-1][1:])
		if p, err := strconv.Atoi(digits); err == nil && p > 0 && strconv.Itoa(p) == digits {
			return full[:len(full)-len(parts[n-1])], p
		}
	}
	return full, 0
}

// FileConfig returns the file configuration in cfg (goos, goarch, cpu,
// ...) other than pkg, as a Benchmark's Config holds it, or nil when
// there is none. Invalid UTF-8 is replaced, since a Run must survive
// JSON.
func FileConfig(cfg []benchfmt.Config) map[string]string {
	var m map[string]string
	for _, c := range cfg {
		if !c.File || c.Key == "pkg" {
			continue
		}
		if m == nil {
			m = make(map[string]string, len(cfg))
		}
		m[validString([]byte(c.Key))] = validString(c.Value)
	}
	return m
}

// validString returns b as a string with invalid UTF-8 replaced by U+FFFD,
// since a Run must survive JSON.
func validString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
