package execbench

import (
	"bytes"
	"encoding/csv"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/analysis"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/summary with the current output")

// readHyperfineCSV reads testdata/hyperfine-1.15/table.csv, written by
// hyperfine itself.
func readHyperfineCSV(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hyperfine-1.15", "table.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMarkupLayoutIsHyperfines: the layouts, the unit's precision and the
// escaping of a command reproduce, byte for byte, the tables hyperfine
// 1.15 wrote for the runs in its CSV (hyperfine's own Relative column,
// which rigor replaces, is copied from its Markdown table).
func TestMarkupLayoutIsHyperfines(t *testing.T) {
	recs := readHyperfineCSV(t)[1:]
	md, err := os.ReadFile(filepath.Join("testdata", "hyperfine-1.15", "table.md"))
	if err != nil {
		t.Fatal(err)
	}
	var relative []string
	for _, line := range strings.Split(strings.TrimSpace(string(md)), "\n")[2:] {
		cells := strings.Split(strings.TrimSuffix(line, " |"), " | ")
		relative = append(relative, cells[len(cells)-1])
	}
	ms, err := ParseTimeUnit("millisecond")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		t    markup
	}{
		{"table.md", markdown{}},
		{"table.adoc", asciidoc{}},
		{"table.org", orgmode{}},
	} {
		var rows [][]string
		for i, r := range recs {
			rows = append(rows, []string{
				markupCommand(tc.t, r[0]),
				ms.format(parseFloat(t, r[1])) + " ± " + ms.format(parseFloat(t, r[2])),
				ms.format(parseFloat(t, r[6])), ms.format(parseFloat(t, r[7])), relative[i],
			})
		}
		got := renderTable(tc.t, []string{"Command", "Mean [ms]", "Min [ms]", "Max [ms]", "Relative"}, []bool{false, true, true, true, true}, rows)
		want, err := os.ReadFile(filepath.Join("testdata", "hyperfine-1.15", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: got\n%s\nhyperfine wrote\n%s", tc.file, got, want)
		}
	}
}

// TestCSVColumnsAreHyperfines: hyperfine's columns of WriteCSV, from the
// numbers hyperfine exported, are the fields hyperfine wrote, byte for
// byte; rigor's columns follow them.
func TestCSVColumnsAreHyperfines(t *testing.T) {
	recs := readHyperfineCSV(t)
	s := &Summary{Confidence: 0.95}
	for _, r := range recs[1:] {
		sd := parseFloat(t, r[2])
		s.Rows = append(s.Rows, Row{
			Command: r[0], Mean: parseFloat(t, r[1]), StdDev: &sd, Median: parseFloat(t, r[3]),
			User: parseFloat(t, r[4]), System: parseFloat(t, r[5]), Min: parseFloat(t, r[6]), Max: parseFloat(t, r[7]),
			MedianLo: math.NaN(), MedianHi: math.NaN(), Relative: math.NaN(), RelativeLo: math.NaN(), RelativeHi: math.NaN(),
		})
	}
	var buf bytes.Buffer
	if err := s.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if !slices.Equal(got[i][:8], recs[i]) {
			t.Errorf("record %d: %q, hyperfine wrote %q", i, got[i][:8], recs[i])
		}
	}
	if want := []string{"median_ci_low", "median_ci_high", "relative", "relative_ci_low", "relative_ci_high", "verdict", "clock"}; !slices.Equal(got[0][8:], want) {
		t.Errorf("rigor's columns %q, want %q", got[0][8:], want)
	}
}

// goldenSummary has a row of each kind: the reference, a command
// compared on wall time, one compared on CPU time, one with a single run
// and a | in its name, one with no interval.
func goldenSummary() *Summary {
	nan := math.NaN()
	sd := func(v float64) *float64 { return &v }
	params := func(n string) map[string]string { return map[string]string{"n": n, "cc": "gcc"} }
	return &Summary{Confidence: 0.95, Rows: []Row{
		{Command: "gzip -1 -c f", Title: "gzip -1 -c f (cc = gcc)", Parameters: params("1"), Mean: 0.0123456, StdDev: sd(0.0004), Median: 0.0122, Min: 0.0115, Max: 0.0141, User: 0.0119,
			MedianLo: 0.0120, MedianHi: 0.0125, Relative: 1, RelativeLo: nan, RelativeHi: nan, Reference: true, Clock: WallUnit},
		{Command: "gzip -9 -c f", Title: "gzip -9 -c f (cc = gcc)", Parameters: params("1"), Mean: 0.0456, StdDev: sd(0.0011), Median: 0.0451, Min: 0.0440, Max: 0.0502, User: 0.0448,
			MedianLo: 0.0449, MedianHi: 0.0455, Relative: 3.6912, RelativeLo: 3.6501, RelativeHi: 3.7333, Verdict: analysis.Regressed, Clock: WallUnit},
		{Command: "xz -1 -c f", Title: "xz -1 -c f (cc = gcc)", Parameters: params("1"), Mean: 0.0121, StdDev: sd(0.0031), Median: 0.0119, Min: 0.0101, Max: 0.0299, User: 0.0117,
			MedianLo: 0.0116, MedianHi: 0.0121, Relative: 0.9876, RelativeLo: 0.9702, RelativeHi: 1.0031, Verdict: analysis.Inconclusive, Clock: CPUUnit},
		{Command: "a|b", Title: "a|b", Parameters: params("2"), Mean: 0.002, Median: 0.002, Min: 0.002, Max: 0.002,
			MedianLo: nan, MedianHi: nan, Relative: nan, RelativeLo: nan, RelativeHi: nan},
	}}
}

// TestSummaryGolden: each export of a fixed summary, against
// testdata/summary/table.*; go test -run TestSummaryGolden -update
// rewrites them.
func TestSummaryGolden(t *testing.T) {
	s := goldenSummary()
	sec, _ := ParseTimeUnit("second")
	for _, tc := range []struct {
		file, format, sort string
		unit               *TimeUnit
	}{
		{"table.csv", "csv", "", nil},
		{"table.md", Markdown, "", nil},
		{"table.adoc", AsciiDoc, "", nil},
		{"table.org", OrgMode, "", nil},
		{"sorted-seconds.md", Markdown, SortMeanTime, &sec},
	} {
		var buf bytes.Buffer
		if tc.format == "csv" {
			if err := s.WriteCSV(&buf); err != nil {
				t.Fatal(err)
			}
		} else {
			rows, err := s.Sorted(tc.sort)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.WriteMarkup(&buf, tc.format, rows, tc.unit); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join("testdata", "summary", tc.file)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if buf.String() != string(want) {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.file, buf.String(), want)
		}
	}
}

func TestSorted(t *testing.T) {
	s := goldenSummary()
	for _, tc := range []struct {
		by   string
		want []string
	}{
		{"", []string{"gzip -1 -c f", "gzip -9 -c f", "xz -1 -c f", "a|b"}},
		{SortAuto, []string{"gzip -1 -c f", "gzip -9 -c f", "xz -1 -c f", "a|b"}},
		{SortCommand, []string{"gzip -1 -c f", "gzip -9 -c f", "xz -1 -c f", "a|b"}},
		// By median (hyperfine's name says mean): 2 ms, 11.9, 12.2, 45.1.
		{SortMeanTime, []string{"a|b", "xz -1 -c f", "gzip -1 -c f", "gzip -9 -c f"}},
		{SortMedianTime, []string{"a|b", "xz -1 -c f", "gzip -1 -c f", "gzip -9 -c f"}},
	} {
		rows, err := s.Sorted(tc.by)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.Command)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Sorted(%q) = %q, want %q", tc.by, got, tc.want)
		}
	}
	if _, err := s.Sorted("reference"); err == nil {
		t.Error("Sorted(reference): no error")
	}
}

func TestParseTimeUnit(t *testing.T) {
	for _, tc := range []struct {
		name, short string
		v           float64 // seconds
		want        string
	}{
		{"second", "s", 1.2345678, "1.235"},
		{"millisecond", "ms", 0.0123456, "12.3"},
		{"microsecond", "µs", 0.0000123456, "12.3"},
		{"nanosecond", "ns", 0.0000000123456, "12"},
	} {
		u, err := ParseTimeUnit(tc.name)
		if err != nil || u.Short != tc.short || u.format(tc.v) != tc.want {
			t.Errorf("ParseTimeUnit(%q) = %+v, %v: formats %v as %q, want %s and %q", tc.name, u, err, tc.v, u.format(tc.v), tc.short, tc.want)
		}
	}
	for _, bad := range []string{"", "ms", "Second", "minute"} {
		if _, err := ParseTimeUnit(bad); err == nil {
			t.Errorf("ParseTimeUnit(%q): no error", bad)
		}
	}
}

// TestAutoUnit: hyperfine's choice, from the first row's mean.
func TestAutoUnit(t *testing.T) {
	for _, tc := range []struct {
		mean float64
		want string
	}{
		{0.0009999, "µs"}, {0.001, "ms"}, {0.999, "ms"}, {1, "s"}, {1000, "s"},
	} {
		if got := autoUnit([]Row{{Mean: tc.mean}, {Mean: 5}}).Short; got != tc.want {
			t.Errorf("autoUnit(mean %v) = %s, want %s", tc.mean, got, tc.want)
		}
	}
}

// TestExportsEscapeNames: a command named with an escape sequence (a
// --name) is shown escaped in every table export, as in the terminal
// report; --export-markdown and --export-csv wrote it raw (issue 23 item
// 7).
func TestExportsEscapeNames(t *testing.T) {
	s := goldenSummary()
	s.Rows[0].Command, s.Rows[0].Title = "x\x1b]0;pwned\x07\u202e", "x\x1b]0;pwned\x07\u202e (cc = gcc)"
	s.Rows[0].Parameters["cc"] = "g\x1b[2Jcc"
	for _, format := range []string{"csv", Markdown, AsciiDoc, OrgMode} {
		var b bytes.Buffer
		var err error
		if format == "csv" {
			err = s.WriteCSV(&b)
		} else {
			err = s.WriteMarkup(&b, format, s.Rows, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsAny(out, "\x1b\x07\u202e") || !strings.Contains(out, `x\x1b]0;pwned\x07\u202e`) {
			t.Errorf("%s: the name is not shown escaped:\n%s", format, out)
		}
		if format == "csv" && !strings.Contains(out, `g\x1b[2Jcc`) {
			t.Errorf("csv: the parameter is not shown escaped:\n%s", out)
		}
	}
}
