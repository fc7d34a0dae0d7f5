package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// Off a terminal (Width 0: a file, a pipe) no style shortens a name.
func TestNoTruncationOffTerminal(t *testing.T) {
	rep := fxXXHash(t)
	for _, style := range Styles() {
		var b bytes.Buffer
		if err := Render(&b, rep, Options{Format: "text", Style: style}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "…") {
			t.Errorf("style %s shortened a name off a terminal:\n%s", style, b.String())
		}
		for _, bm := range rep.Benchmarks {
			name := bm.FullName
			if style != "benchstat" {
				// The tree shows the path's last part; the table the
				// name without the procs suffix.
				name = strings.TrimPrefix(bm.Name, "Hashes/")
			}
			if !strings.Contains(b.String(), name) {
				t.Errorf("style %s lacks %q", style, name)
			}
		}
	}
}

// On a terminal every style keeps names apart, however narrow: the
// issue's two rows that both read "Hashes/xxh…,n=100B-2".
func TestNamesStayDistinctOnTerminal(t *testing.T) {
	rep := fxXXHash(t)
	for _, w := range []int{40, 60, 72, 100} {
		for _, style := range Styles() {
			var b bytes.Buffer
			if err := Render(&b, rep, Options{Format: "text", Style: style, Width: w}); err != nil {
				t.Fatal(err)
			}
			body, _, _ := strings.Cut(b.String(), "\nNotes") // "Notes:" or "Notes (-v shows 31 more):"
			// Rows under one group line (or one tree parent) and
			// of one table must differ in their first column.
			seen := map[string]bool{}
			group := ""
			for _, line := range strings.Split(body, "\n") {
				if strings.Contains(line, "95% CI") {
					seen = map[string]bool{} // a new table
				}
				f := strings.Fields(strings.Trim(line, "│ "))
				if len(f) < 3 || !strings.Contains(line, "%") || strings.Contains(line, "█") {
					if len(f) > 0 && !strings.Contains(line, "█") {
						group = line // a group line, a title or a header
					}
					continue
				}
				if strings.HasPrefix(f[0], "·") || f[0] == "geomean" || f[0] == "sec/op" || f[0] == "B/op" {
					continue
				}
				name := f[0]
				if style == "tree" {
					name = strings.Join(f[:2], " ") // tree drawing and label
				}
				k := group + "\x00" + name
				if style != "benchstat" {
					k = name
				}
				if seen[k] && !strings.HasPrefix(f[1], "B/") && !strings.HasPrefix(f[1], "allocs") {
					t.Errorf("width %d, style %s: two rows read %q:\n%s", w, style, name, body)
				}
				seen[k] = true
			}
		}
	}
}

func TestFitNames(t *testing.T) {
	names := []string{"xxhash,direct,bytes,n=100B-2", "xxhash,digest,bytes,n=100B-2", "Sum64/4KB-2"}
	got, w := fitNames(names, nil, 12)
	if got[0] == got[1] {
		t.Errorf("fitNames(12) made two names the same: %q", got)
	}
	if w < 12 || got[2] != "Sum64/4KB-2" {
		t.Errorf("fitNames(12) = %q, %d", got, w)
	}
	for i := range got {
		if width(got[i]) > w {
			t.Errorf("%q is wider than %d", got[i], w)
		}
	}
	// Names that fit stay as they are; in different scopes the same
	// shortened name is fine.
	if got, _ := fitNames(names, nil, 40); strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("names that fit were changed: %q", got)
	}
	alike := []string{"abcdefghij-1-z", "abcdefghij-2-z"} // both "ab…-z" at 5
	if got, w := fitNames(alike, []string{"x", "y"}, 5); got[0] != got[1] || w != 5 {
		t.Errorf("names in different scopes were widened: %q, %d", got, w)
	}
	if got, w := fitNames(alike, []string{"x", "x"}, 5); got[0] == got[1] || w <= 5 {
		t.Errorf("names in one scope read the same: %q, %d", got, w)
	}
}

func TestGroupNames(t *testing.T) {
	names := []string{
		"Hashes/xxhash,direct,bytes,n=5B-2", "Hashes/xxhash,direct,bytes,n=100B-2",
		"Hashes/xxhash,digest,bytes,n=100B-2", "Hashes/xxhash,digest,string,n=100B-2",
		"Other-2",
		"Sum64/4B-2", "Sum64/10MB-2",
	}
	heads, shown := groupNames(names, 20)
	want := []string{"Hashes/xxhash,direct,", "", "Hashes/xxhash,digest,", "", "", "Sum64/", ""}
	if strings.Join(heads, "|") != strings.Join(want, "|") {
		t.Errorf("heads = %q, want %q", heads, want)
	}
	wantShown := []string{"  bytes,n=5B-2", "  bytes,n=100B-2", "  bytes,n=100B-2", "  string,n=100B-2", "Other-2", "  4B-2", "  10MB-2"}
	if strings.Join(shown, "|") != strings.Join(wantShown, "|") {
		t.Errorf("shown = %q, want %q", shown, wantShown)
	}
	// Names that fit are not grouped.
	if heads, shown := groupNames(names, 40); strings.Join(heads, "") != "" || shown[0] != names[0] {
		t.Errorf("names that fit were grouped: %q %q", heads, shown)
	}
}

// shellQuote's output, given to a shell, is the arguments again.
func TestShellQuote(t *testing.T) {
	sh, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to read the quoted line back")
	}
	args := []string{"rigor", "ab", "--new-tags", "", "--bench", "Hashes|Sum64", "HEAD~1", "~x", "=y", "it's", `a"b`, "$HOME", "a b", "tab\there", "line\nbreak", "\x1b]0;x\x07", "日本語", "\u202eevil", "back\\slash"}
	line := shellQuote(args)
	if strings.ContainsAny(line, "\n\x1b\x07\u202e") {
		t.Errorf("quoted line holds control characters: %q", line)
	}
	if !strings.HasPrefix(line, "rigor ab --new-tags '' --bench 'Hashes|Sum64' HEAD~1 '~x' '=y' ") {
		t.Errorf("quoted line = %s", line)
	}
	script := `set -- ` + line + `; for a in "$@"; do printf '%s\0' "$a"; done`
	out, err := exec.Command(sh, "-c", script).Output()
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", args) {
		t.Errorf("bash read back\n%q\nwant\n%q", got, args)
	}
}

// Values are scaled per row as benchstat scales them: the smallest
// center of the row with four significant digits, the others with the
// same prefix and precision (benchstat prints 1.509m and 1.452m for
// Sum64/10MB, 8107.5n and 800.4n for seed 003, 0.000 and 16.00 for
// B/op from zero).
func TestRowScale(t *testing.T) {
	m := func(unit string, vals ...float64) analysis.Metric {
		mm := analysis.Metric{Unit: unit}
		for _, v := range vals {
			mm.Sides = append(mm.Sides, analysis.Summary{N: 12, Center: v})
		}
		return mm
	}
	for _, tt := range []struct {
		m    analysis.Metric
		want []string
	}{
		{m("sec/op", 1.5086945e-3, 1.4518364e-3), []string{"1.509m", "1.452m"}},
		{m("sec/op", 8107.5e-9, 800.4e-9), []string{"8107.5n", "800.4n"}},
		{m("sec/op", 602.1e-9, 596.8e-9), []string{"602.1n", "596.8n"}},
		{m("B/op", 0, 16), []string{"0.00", "16.00"}},
		{m("B/op", 43207.7, 1912), []string{"42.195Ki", "1.867Ki"}},
		{m("allocs/op", 0, 0), []string{"0.000", "0.000"}},
	} {
		sc := rowScaler(tt.m)
		for i, s := range tt.m.Sides {
			if got := scaled(s.Center, sc); got != tt.want[i] {
				t.Errorf("%s %v: %q, want %q", tt.m.Unit, s.Center, got, tt.want[i])
			}
		}
	}
}

// The text styles name each side's revision, dirty mark and the build
// settings any side sets; sides with neither say nothing.
func TestSideLines(t *testing.T) {
	rep := fxXXHash(t)
	got := strings.Join(sideLines(rep), "\n")
	want := "old: HEAD~1       a8cdb6b4ef6c       tags=purego\nnew: working tree 5f3c1e9a0d2b+dirty tags=(none)"
	if got != want {
		t.Errorf("sideLines:\n%s\nwant\n%s", got, want)
	}
	run := *rep.Run
	run.Sides = []model.Side{{Label: "a", Source: "a.txt"}, {Label: "b", Source: "b.txt"}}
	files := *rep
	files.Run = &run
	if l := sideLines(&files); l != nil {
		t.Errorf("files with no revision or build: %q", l)
	}
	run.Sides = []model.Side{{Label: "old", Source: "main", Rev: "abc", GCFlags: "-N -l", Toolchain: "go1.25.3"}, {Label: "new", Source: "main", Rev: "abc"}}
	got = strings.Join(sideLines(&files), "\n")
	want = "old: main abc gcflags='-N -l' go=go1.25.3\nnew: main abc gcflags=(none) go=(default)"
	if got != want {
		t.Errorf("sideLines:\n%s\nwant\n%s", got, want)
	}
	// A setting both sides share is named too: rigor ab --tags purego
	// over one commit said nothing of purego (issue 13 item 8).
	run.Sides = []model.Side{{Label: "old", Source: "HEAD~1", Rev: "abc", Tags: "purego"}, {Label: "new", Source: "HEAD", Rev: "def", Tags: "purego"}}
	got = strings.Join(sideLines(&files), "\n")
	want = "old: HEAD~1 abc tags=purego\nnew: HEAD   def tags=purego"
	if got != want {
		t.Errorf("sideLines:\n%s\nwant\n%s", got, want)
	}
	// A ref named like another side is said to be a ref: rigor ab --old
	// new (an A/A run over the ref new) printed "old: new 5480b1315300",
	// which reads as the side new (issue 39 item 3).
	run.Sides = []model.Side{{Label: "old", Source: "new", Rev: "5480b1315300"}, {Label: "new", Source: ".", Rev: "5480b1315300"}}
	got = strings.Join(sideLines(&files), "\n")
	want = "old: ref new      5480b1315300\nnew: working tree 5480b1315300"
	if got != want {
		t.Errorf("sideLines:\n%s\nwant\n%s", got, want)
	}
}

// The change column says what it holds: "paired Δ" with a legend in a
// paired run, benchstat's "vs base" for a ratio of medians; a change
// whose sign differs from its medians is marked and explained in every
// text form, Markdown, HTML; CSV says what each change is of.
func TestPairedChangeLabelled(t *testing.T) {
	paired := fxXXHash(t)
	for _, o := range []Options{{Format: "text"}, {Format: "text", Style: "tree"}, {Format: "text", Style: "table"}, {Format: "md"}, {Format: "html"}} {
		var b bytes.Buffer
		if err := Render(&b, paired, o); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"paired Δ", "center of the per-round new/old ratios", "+2.58%" + disagreeMark, "opposite sign to the medians"} {
			if o.Style == "tree" || o.Style == "table" {
				want = strings.Replace(want, "+2.58%", "+2.6%", 1)
			}
			if o.Format == "html" {
				want = strings.Replace(want, "+2.58%", "&#43;2.6%", 1)
			}
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s %s lacks %q", o.Format, o.Style, want)
			}
		}
	}
	var b bytes.Buffer
	if err := Render(&b, paired, Options{Format: "csv"}); err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(b.String(), "\n"); !strings.Contains(head, ",change_of") || !strings.Contains(b.String(), ",paired,") || !strings.Contains(b.String(), ",exact,") {
		t.Errorf("csv does not say what its changes are of:\n%s", head)
	}
	unpaired := fxSeed003(t)
	b.Reset()
	if err := Render(&b, unpaired, Options{Format: "text"}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "vs base") || strings.Contains(s, "paired Δ") || strings.Contains(s, "per-round") || strings.Contains(s, disagreeMark) {
		t.Errorf("unpaired text:\n%s", s)
	}
	b.Reset()
	if err := Render(&b, unpaired, Options{Format: "csv"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ",medians,") {
		t.Errorf("unpaired csv lacks change_of medians")
	}
}

// The HTML forest plot's labels stay distinct: four of the fixture's
// read "Hashes/xxhash,…0B-2 · sec/op".
func TestHTMLChartLabelsDistinct(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, fxXXHash(t), Options{Format: "html"}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(b.String(), `dominant-baseline="middle">`)[1:] {
		label, _, _ := strings.Cut(part, "<")
		if !strings.HasPrefix(label, "Hashes/") && !strings.HasPrefix(label, "Sum64/") {
			continue
		}
		if seen[label] {
			t.Errorf("two chart labels read %q", label)
		}
		seen[label] = true
	}
	if len(seen) != 10 {
		t.Errorf("%d distinct benchmark labels, want 10", len(seen))
	}
}

// Every median of the xxhash fixture reads as benchstat prints it
// (scaled per row, four significant digits: 1.509m, not 1506112.000n),
// sec/op and B/s (a context table, shown with -v): benchstat itself, on
// the fixture in Go benchmark format, is the oracle.
func TestBenchstatStyleNumbersMatchBenchstat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchstat with go run; skipped with -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	rep := fxXXHash(t)
	var bf, text bytes.Buffer
	if err := Render(&bf, rep, Options{Format: "benchfmt"}); err != nil {
		t.Fatal(err)
	}
	if err := Render(&text, rep, Options{Format: "text", Verbose: true}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "xxhash.txt")
	if err := os.WriteFile(path, bf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := exec.Command(gobin, "run", "golang.org/x/perf/cmd/benchstat", "-col", "side", path).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, res)
	}
	// rows returns, per table (sec/op then B/s), each benchmark's two
	// medians: the 2nd and 5th fields of its line in both outputs.
	rows := func(out string) map[string][]string {
		m := map[string][]string{}
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) < 5 || f[2] != "±" {
				continue
			}
			m[f[0]] = append(m[f[0]], f[1]+" "+f[4])
		}
		return m
	}
	want, got := rows(string(res)), rows(text.String())
	if len(want) != 10 {
		t.Fatalf("benchstat's rows: %q\n%s", want, res)
	}
	for name, w := range want {
		g := got[name]
		// sec/op (in the results table and its -v table) and B/s, as
		// benchstat's first two tables print them.
		if len(w) < 2 || !slices.Contains(g, w[0]) || !slices.Contains(g, w[1]) {
			t.Errorf("%s: rigor %q, benchstat %q", name, g, w)
		}
	}
}

// A change without an interval prints none: "+0 allocs/op [?, ?]" on few
// samples printed an interval that does not exist (issue 39 item 3).
func TestChangeCIWithoutInterval(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		c    analysis.Change
		want string
	}{
		{analysis.Change{Estimate: nan, Delta: 0, Lo: nan, Hi: nan}, "-"},
		{analysis.Change{Estimate: -0.1, Lo: -0.12, Hi: -0.08}, "[-12.00%, -8.00%]"},
		{analysis.Change{Test: "exact", Estimate: -0.5, Lo: -0.5, Hi: -0.5}, "(exact)"},
	} {
		if got := changeCI(&tc.c); got != tc.want {
			t.Errorf("changeCI(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}
