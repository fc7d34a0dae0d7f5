// Command tabulate prints issue 38's layout tables (docs/layouts.md) from
// the directory experiments/layouts/run.sh fills:
//
//	OUT/aa/REPO/METHOD-T.json       rigor ab --format json of an A/A' trial
//	OUT/aa/REPO/METHOD-T.run/run.json  its samples, each with its link (layout)
//	OUT/aa/REPO/METHOD-T.wall       "SECONDS EXIT" of the run
//	OUT/real/NAME/METHOD-1.json     a real commit's run; author.txt its message
//
// METHOD is single (--layouts 1) or default (--layouts auto).
//
//	go run ./experiments/layouts/tabulate OUT
//
// Three tables: false calls per method per repository (A/A': every
// improved or regressed verdict is false); per benchmark, the calls each
// method made and the spread of the default's links (the layout-sensitive
// notes' layout_lo..layout_hi, and the per-link centers read from
// run.json); per real commit, the author's change beside each method's
// verdict and interval.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tabulate OUT")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tabulate:", err)
		os.Exit(2)
	}
}

var methods = []string{"single", "default"}

// bench is one benchmark's result in one run.
type bench struct {
	Name           string
	Verdict        string
	Est, Lo, Hi    float64 // the decision's change, as a fraction
	Unit           string  // the decision's metric: sec/op, or cpu-sec/op when rigor found the machine busy
	Test           string  // the time change's test: wilcoxon, layouts, ...
	Layouts        int     // links per side behind the change (0: one)
	NoteLo, NoteHi float64 // the layout-sensitive note's range; NaN without one
	LinkLo, LinkHi float64 // the lowest and highest per-link center of new/old - 1 (run.json); NaN with one link
	Links          int     // links seen in run.json
}

// runDoc is one run: its benchmarks, wall seconds and exit status.
type runDoc struct {
	Benchmarks []bench
	Wall       float64
	Exit       int
	// LinkSeconds: the extra links' time, from the layouts note (NaN
	// without one).
	LinkSeconds float64
}

// linkSeconds reads the layouts note's link_seconds from rigor ab --format
// json: the time the links after the first took. NaN without the note.
func linkSeconds(data []byte) float64 {
	var doc struct {
		Notes []jsonNote `json:"notes"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return math.NaN()
	}
	for _, n := range doc.Notes {
		if v, ok := n.Evidence["link_seconds"]; ok && n.Topic == "layouts" {
			return v
		}
	}
	return math.NaN()
}

type jsonNote struct {
	Topic     string             `json:"topic"`
	Benchmark string             `json:"benchmark"`
	Evidence  map[string]float64 `json:"evidence"`
}

// parseReport reads rigor ab --format json.
func parseReport(data []byte) ([]bench, error) {
	var doc struct {
		SchemaVersion *int `json:"schema_version"`
		Benchmarks    []struct {
			Name      string `json:"name"`
			FullName  string `json:"full_name"`
			Verdict   string `json:"verdict"`
			Decisions []struct {
				Verdict          string
				Unit             string
				Estimate, Lo, Hi *float64
			} `json:"decisions"`
			Metrics []struct {
				Unit    string `json:"unit"`
				Changes []struct {
					Test    string `json:"test"`
					Layouts int    `json:"layouts"`
				} `json:"changes"`
			} `json:"metrics"`
			Notes []jsonNote `json:"notes"`
		} `json:"benchmarks"`
		Notes []jsonNote `json:"notes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.SchemaVersion == nil {
		return nil, errors.New("not rigor's JSON: no schema_version")
	}
	var out []bench
	for _, b := range doc.Benchmarks {
		r := bench{Name: b.Name, Verdict: b.Verdict, Est: math.NaN(), Lo: math.NaN(), Hi: math.NaN(),
			NoteLo: math.NaN(), NoteHi: math.NaN(), LinkLo: math.NaN(), LinkHi: math.NaN()}
		if len(b.Decisions) > 0 {
			d := b.Decisions[0]
			r.Est, r.Lo, r.Hi = deref(d.Estimate), deref(d.Lo), deref(d.Hi)
			r.Unit = d.Unit
		}
		if r.Unit == "" {
			r.Unit = "sec/op"
		}
		for _, m := range b.Metrics {
			if m.Unit == r.Unit && len(m.Changes) > 0 {
				r.Test, r.Layouts = m.Changes[0].Test, m.Changes[0].Layouts
			}
		}
		notes := append([]jsonNote{}, b.Notes...)
		for _, n := range doc.Notes {
			if n.Benchmark == b.Name || n.Benchmark == b.FullName || strings.HasSuffix(n.Benchmark, "."+b.FullName) {
				notes = append(notes, n)
			}
		}
		for _, n := range notes {
			if n.Topic == "layout-sensitive" {
				if lo, ok := n.Evidence["layout_lo"]; ok {
					r.NoteLo, r.NoteHi = lo, n.Evidence["layout_hi"]
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// pseudoLinks is how many groups the rounds of a run with one link are
// dealt into, round r to group (r-1) mod 6 + 1, as a run with six links
// deals them to its links: their centers' spread is what rounds alone
// spread, the reference for the links' spread.
const pseudoLinks = 6

// linkCenters reads run.json and returns, per benchmark and link (the
// sample's layout), the ratio of the fastest paired new sample to the
// fastest paired old one, less 1. The minimum, not a median: at --time 1m
// a link has 3 or 4 rounds, and a neighbour's burst (the other sessions on
// the VM) slows a sample several times over, never speeds it up. A run with one link (no sample has a layout) is dealt into
// pseudoLinks groups by round, keyed -1 to -6.
func linkCenters(data []byte) (map[string]map[string]map[int]float64, error) {
	var doc struct {
		Benchmarks []struct {
			Name    string `json:"name"`
			Metrics []struct {
				Unit    string `json:"unit"`
				Samples []struct {
					Side   string  `json:"side"`
					Round  int     `json:"round"`
					Layout int     `json:"layout"`
					Value  float64 `json:"value"`
				} `json:"samples"`
			} `json:"metrics"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	out := map[string]map[string]map[int]float64{}
	for _, b := range doc.Benchmarks {
		out[b.Name] = map[string]map[int]float64{}
		for _, m := range b.Metrics {
			if m.Unit != "sec/op" && m.Unit != "cpu-sec/op" {
				continue
			}
			type pair struct {
				old, new float64
				layout   int
			}
			rounds := map[int]*pair{}
			for _, s := range m.Samples {
				if s.Round == 0 {
					continue
				}
				p := rounds[s.Round]
				if p == nil {
					p = &pair{}
					rounds[s.Round] = p
				}
				p.layout = s.Layout
				switch s.Side {
				case "old":
					p.old = s.Value
				case "new":
					p.new = s.Value
				}
			}
			one := true
			for _, p := range rounds {
				one = one && p.layout == 0
			}
			type mins struct{ old, new float64 }
			by := map[int]*mins{}
			for r, p := range rounds {
				l := p.layout
				if one {
					// One link: group the rounds as six links would
					// have been, the spread of noise alone.
					l = -((r-1)%pseudoLinks + 1)
				}
				if !(p.old > 0 && p.new > 0) { // a count, or a round without its pair
					continue
				}
				g := by[l]
				if g == nil {
					g = &mins{math.Inf(1), math.Inf(1)}
					by[l] = g
				}
				g.old, g.new = math.Min(g.old, p.old), math.Min(g.new, p.new)
			}
			c := map[int]float64{}
			for l, g := range by {
				c[l] = g.new/g.old - 1
			}
			out[b.Name][m.Unit] = c
		}
	}
	return out, nil
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// loadRun reads PREFIX.json, PREFIX.wall and PREFIX.run/run.json.
func loadRun(prefix string) (*runDoc, error) {
	data, err := os.ReadFile(prefix + ".json")
	if err != nil {
		return nil, err
	}
	bs, err := parseReport(data)
	if err != nil {
		return nil, fmt.Errorf("%s.json: %w", prefix, err)
	}
	r := &runDoc{Benchmarks: bs, Wall: math.NaN(), LinkSeconds: linkSeconds(data)}
	if w, err := os.ReadFile(prefix + ".wall"); err == nil {
		f := strings.Fields(string(w))
		if len(f) == 2 {
			r.Wall, _ = strconv.ParseFloat(f[0], 64)
			r.Exit, _ = strconv.Atoi(f[1])
		}
	}
	if data, err := os.ReadFile(filepath.Join(prefix+".run", "run.json")); err == nil {
		cs, err := linkCenters(data)
		if err != nil {
			return nil, fmt.Errorf("%s.run/run.json: %w", prefix, err)
		}
		for i := range r.Benchmarks {
			c := cs[r.Benchmarks[i].Name][r.Benchmarks[i].Unit]
			if len(c) > 0 {
				r.Benchmarks[i].Links = 1
				for l := range c {
					if l > 0 {
						r.Benchmarks[i].Links = len(c)
						break
					}
				}
			}
			if len(c) > 1 {
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, v := range c {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
				r.Benchmarks[i].LinkLo, r.Benchmarks[i].LinkHi = lo, hi
			}
		}
	}
	return r, nil
}

var trialRE = regexp.MustCompile(`^(single|default)-(\d+)\.json$`)

// loadDir reads every METHOD-T.json in dir, by method and trial.
func loadDir(dir string) (map[string]map[int]*runDoc, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]map[int]*runDoc{}
	for _, e := range ents {
		m := trialRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		t, _ := strconv.Atoi(m[2])
		r, err := loadRun(filepath.Join(dir, strings.TrimSuffix(e.Name(), ".json")))
		if err != nil {
			return nil, err
		}
		if out[m[1]] == nil {
			out[m[1]] = map[int]*runDoc{}
		}
		out[m[1]][t] = r
	}
	return out, nil
}

func called(v string) bool { return v == "improved" || v == "regressed" }

func run(out string, w io.Writer) error {
	aa, err := subdirs(filepath.Join(out, "aa"))
	if err != nil {
		return err
	}
	if len(aa) > 0 {
		if err := aaTables(w, out, aa); err != nil {
			return err
		}
	}
	real, _ := subdirs(filepath.Join(out, "real"))
	for _, name := range real {
		if err := realTable(w, filepath.Join(out, "real", name), name); err != nil {
			return err
		}
	}
	return nil
}

func subdirs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

func trials(m map[int]*runDoc) []int {
	var t []int
	for k := range m {
		t = append(t, k)
	}
	sort.Ints(t)
	return t
}

func aaTables(w io.Writer, out string, repos []string) error {
	data := map[string]map[string]map[int]*runDoc{}
	for _, r := range repos {
		d, err := loadDir(filepath.Join(out, "aa", r))
		if err != nil {
			return err
		}
		data[r] = d
	}
	fmt.Fprintln(w, "A/A' (layout-only): false calls (improved or regressed) per 100 benchmark comparisons;")
	fmt.Fprintln(w, "link spread: max-min of the per-link centers (default), of the rounds dealt into 6 groups (single: noise alone)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "repo\tmethod\ttrials\tcomparisons\tfalse calls\tper 100\tunchanged\tinconclusive\tby CPU time (busy)\tlinks\tlink spread pts (median)\twall s (mean)\textra links s (mean)\t")
	tot := map[string][2]int{}
	for _, r := range repos {
		for _, m := range methods {
			runs := data[r][m]
			n, f, u, inc, links, cpu := 0, 0, 0, 0, 0, 0
			wall, nw := 0.0, 0
			ls, nl := 0.0, 0
			var spreads []float64
			for _, t := range trials(runs) {
				rd := runs[t]
				for _, b := range rd.Benchmarks {
					n++
					switch {
					case called(b.Verdict):
						f++
					case b.Verdict == "unchanged":
						u++
					default:
						inc++
					}
					links = max(links, b.Links, b.Layouts)
					if b.Unit == "cpu-sec/op" {
						cpu++
					}
					if d := b.LinkHi - b.LinkLo; !math.IsNaN(d) {
						spreads = append(spreads, 100*d)
					}
				}
				if !math.IsNaN(rd.Wall) {
					wall += rd.Wall
					nw++
				}
				if !math.IsNaN(rd.LinkSeconds) {
					ls += rd.LinkSeconds
					nl++
				}
			}
			t := tot[m]
			tot[m] = [2]int{t[0] + n, t[1] + f}
			lstr := "-"
			if nl > 0 {
				lstr = fmt.Sprintf("%.1f", ls/float64(nl))
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", r, m, len(runs), n, f, per100(f, n), u, inc, cpu, links, medStr(spreads), meanStr(wall, nw), lstr)
		}
	}
	for _, m := range methods {
		fmt.Fprintf(tw, "all\t%s\t\t%d\t%d\t%s\t\t\t\t\t\t\t\t\n", m, tot[m][0], tot[m][1], per100(tot[m][1], tot[m][0]))
	}
	tw.Flush()
	fmt.Fprintln(w)

	fmt.Fprintln(w, "A/A' per benchmark: each trial's call (r regressed, i improved, = unchanged, ? inconclusive) and change;")
	fmt.Fprintln(w, "the default's links: spread (max-min, points) of the per-link centers of new/old, median and widest over trials (run.json);")
	fmt.Fprintln(w, "the same of the single link's rounds dealt into 6 groups as rounds are dealt to links (noise alone); layout-sensitive notes")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "repo\tbenchmark\tsingle (--layouts 1)\tdefault\tlinks' spread (median)\t(widest)\tsingle's rounds dealt to 6 (median)\tlayout-sensitive notes\t")
	for _, r := range repos {
		names := benchNames(data[r])
		for _, name := range names {
			var cols [2]string
			for i, m := range methods {
				var s []string
				for _, t := range trials(data[r][m]) {
					for _, b := range data[r][m][t].Benchmarks {
						if b.Name == name {
							s = append(s, mark(b.Verdict)+pct(b.Est))
						}
					}
				}
				cols[i] = strings.Join(s, " ")
			}
			spread, slo, shi := math.NaN(), math.NaN(), math.NaN()
			notes, nt := 0, 0
			var nrange []string
			for _, t := range trials(data[r]["default"]) {
				for _, b := range data[r]["default"][t].Benchmarks {
					if b.Name != name {
						continue
					}
					nt++
					if d := b.LinkHi - b.LinkLo; !math.IsNaN(d) && !(d <= spread) {
						spread, slo, shi = d, b.LinkLo, b.LinkHi
					}
					if !math.IsNaN(b.NoteLo) {
						notes++
						nrange = append(nrange, pct(b.NoteLo)+".."+pct(b.NoteHi))
					}
				}
			}
			sp := "-"
			if !math.IsNaN(spread) {
				sp = fmt.Sprintf("%.1f pts (%s..%s)", 100*spread, pct(slo), pct(shi))
			}
			var ps []float64
			for _, t := range trials(data[r]["single"]) {
				for _, b := range data[r]["single"][t].Benchmarks {
					if b.Name == name && !math.IsNaN(b.LinkHi-b.LinkLo) {
						ps = append(ps, 100*(b.LinkHi-b.LinkLo))
					}
				}
			}
			var ds []float64
			for _, t := range trials(data[r]["default"]) {
				for _, b := range data[r]["default"][t].Benchmarks {
					if b.Name == name && !math.IsNaN(b.LinkHi-b.LinkLo) {
						ds = append(ds, 100*(b.LinkHi-b.LinkLo))
					}
				}
			}
			sp = fmt.Sprintf("%s\t%s\t%s", medStr(ds), sp, medStr(ps))
			ns := fmt.Sprintf("%d/%d", notes, nt)
			if len(nrange) > 0 {
				ns += " " + strings.Join(nrange, " ")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", r, name, cols[0], cols[1], sp, ns)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	return nil
}

func benchNames(d map[string]map[int]*runDoc) []string {
	seen := map[string]bool{}
	var names []string
	for _, m := range methods {
		for _, t := range trials(d[m]) {
			for _, b := range d[m][t].Benchmarks {
				if !seen[b.Name] {
					seen[b.Name] = true
					names = append(names, b.Name)
				}
			}
		}
	}
	return names
}

func mark(v string) string {
	switch v {
	case "improved":
		return "i"
	case "regressed":
		return "r"
	case "unchanged":
		return "="
	}
	return "?"
}

func realTable(w io.Writer, dir, name string) error {
	var pub map[string]string
	if f, err := os.Open(filepath.Join(dir, "author.txt")); err == nil {
		pub, err = parseAuthor(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s/author.txt: %w", dir, err)
		}
	}
	d, err := loadDir(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Real commit %s: the author's change and each method's verdict [95%% interval]\n", name)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tauthor\tsingle (--layouts 1)\tdefault\twrong direction\t")
	names := benchNames(d)
	wallS := []string{}
	for _, m := range methods {
		for _, t := range trials(d[m]) {
			wallS = append(wallS, fmt.Sprintf("%s %.0fs", m, d[m][t].Wall))
		}
	}
	found := map[string]int{}
	beyond := 0
	for _, n := range names {
		a, ok := pub[n]
		if v, err := strconv.ParseFloat(strings.TrimSuffix(a, "%"), 64); ok && err == nil && math.Abs(v) >= 1 {
			beyond++
			for _, m := range methods {
				for _, t := range trials(d[m]) {
					for _, b := range d[m][t].Benchmarks {
						if b.Name == n && (v < 0 && b.Verdict == "improved" || v > 0 && b.Verdict == "regressed") {
							found[m]++
						}
					}
				}
			}
		}
		if !ok {
			a = "-"
		}
		var cols [2]string
		var wrong []string
		for i, m := range methods {
			for _, t := range trials(d[m]) {
				for _, b := range d[m][t].Benchmarks {
					if b.Name != n {
						continue
					}
					cols[i] = fmt.Sprintf("%s %s [%s, %s]", b.Verdict, pct(b.Est), pct(b.Lo), pct(b.Hi))
					if opposite(a, b.Verdict) {
						wrong = append(wrong, m)
					}
				}
			}
		}
		wr := "no"
		if len(wrong) > 0 {
			wr = "YES: " + strings.Join(wrong, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", n, a, cols[0], cols[1], wr)
	}
	tw.Flush()
	fmt.Fprintf(w, "found, of the %d the author measured beyond ±1%%: single %d, default %d\n", beyond, found["single"], found["default"])
	fmt.Fprintf(w, "wall: %s\n\n", strings.Join(wallS, ", "))
	return nil
}

// opposite reports whether a verdict goes against the author's published
// change: improved where the author measured a slowdown, or regressed
// where they measured a speed-up.
func opposite(author, verdict string) bool {
	v, err := strconv.ParseFloat(strings.TrimSuffix(author, "%"), 64)
	if err != nil {
		return false
	}
	return v < 0 && verdict == "regressed" || v > 0 && verdict == "improved"
}

func pct(f float64) string {
	if math.IsNaN(f) {
		return "n/a"
	}
	return fmt.Sprintf("%+.2f%%", 100*f)
}

func per100(f, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", 100*float64(f)/float64(n))
}

func medStr(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", median(v))
}

func meanStr(s float64, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", s/float64(n))
}

// parseAuthor reads the first table of time per op from benchstat output
// in a commit message (as experiments/realrepo/tabulate): the current form
// ("sec/op" header, rows "Name-8  270.8n ± 0%  270.4n ± 0%  ~ (p=0.099 n=10)")
// or the older one ("name old time/op new time/op delta", rows ending
// "-1.80%  (p=0.000 n=10+10)" or "~  (p=...)"). It returns the printed
// change by benchmark name without its -GOMAXPROCS suffix.
func parseAuthor(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	in := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !in && (strings.Contains(line, "sec/op") || strings.Contains(line, "time/op")):
			in = true
			continue
		case !in:
			continue
		case line == "" || strings.HasPrefix(line, "│") && len(out) > 0:
			return out, nil
		case strings.HasPrefix(line, "│") || strings.HasPrefix(line, "geomean"):
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		name := nameRE.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		change := ""
		for i := len(f) - 1; i > 0; i-- {
			if f[i] == "~" || pctRE.MatchString(f[i]) && !strings.HasPrefix(f[i-1], "±") && f[i-1] != "±" {
				change = f[i]
				break
			}
		}
		if change != "" {
			out[name] = change
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no table of sec/op or time/op found")
	}
	return out, nil
}

var (
	nameRE = regexp.MustCompile(`-\d+$`)
	pctRE  = regexp.MustCompile(`^[+-]?\d+(\.\d+)?%$`)
)
