package report

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/internal/redact"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

//go:embed templates/report.html.tmpl templates/report.css
var htmlFiles embed.FS

// htmlTemplate is parsed on first use, not when the program starts:
// parsing it was two thirds of the start-up of every rigor command in
// rigor's own packages (0.6-1.6 ms, 1,910 allocations), spent also by
// those that never write HTML.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report.html.tmpl").ParseFS(htmlFiles, "templates/report.html.tmpl"))
})

// The page's view model: every string is plain text, escaped by
// html/template; charts are SVG built by chart, which escapes its text.
type htmlPage struct {
	Title, Subtitle string
	CSS             template.CSS
	// Head is the report's head (A/A, the verdicts counted by benchmark,
	// the gate); Method how the sides were compared.
	Head   []htmlHead
	Method string
	Counts []htmlCount
	// Results are the results tables, one per package; Chart the change
	// of every benchmark (of the most notable, in a large report) against
	// the noise band; Notes what the reader acts on, Hidden how many more
	// the text's -v shows.
	Results      []htmlResults
	Chart        template.HTML
	ChartCaption string
	Notes        []string
	Hidden       int
	Sides        []htmlSide
	Env          []htmlKV
	Obs          []htmlKV
	ObsChart     template.HTML
	RunNotes     []string
	Groups       []htmlGroup
	Ramp         *htmlRamp
	Options      string
	// Change heads the change column; Legend says what it holds and
	// why a change is marked.
	Change string
	Legend []string
	// Confidence is the level of the intervals, in words ("95%").
	Confidence string
}

// htmlCell is a table cell: text, or a verdict badge followed by Extra
// (what an interval that found nothing rules out: "within ±2.4%").
type htmlCell struct{ Text, Verdict, Extra string }

type htmlCount struct {
	Verdict string
	N       int
}

// htmlHead is a line of the head: Lead in bold, then Rest; Verdict
// colours it when it is a gate's outcome or a count's.
type htmlHead struct{ Lead, Rest, Class string }

// htmlResults is one package's results table: a row per benchmark with
// the metric that decided its verdict.
type htmlResults struct {
	Title string
	Head  []string
	Rows  []htmlResultRow
	// Marked is true when some change has disagreeMark.
	Marked bool
}

type htmlResultRow struct {
	Name  string
	Cells []htmlCell
}

type htmlSide struct {
	Label, Color, Source, Rev, Build string
	Base                             bool
}

type htmlKV struct{ Key, Value string }

type htmlGroup struct {
	ID, Title, Caption string
	Chart              template.HTML
	Benchmarks         []htmlBench
}

type htmlBench struct {
	ID, Name, Verdict, Change string
	Config                    string
	Metrics                   []htmlMetric
	// HasSlope is true when some metric has a slope: the column is
	// left out otherwise (flat sampling, go test runs).
	HasSlope bool
	// Estimates are the summaries' estimates with intervals and
	// standard errors, when the analysis made them.
	Estimates []htmlEstimates
	Charts    []template.HTML
	Notes     []string
	// Legend explains disagreeMark when some change of the metrics
	// table has it.
	Legend string
}

// estimateCell formats an estimate as "value [lo–hi] se x", "-" when
// there is none.
func estimateCell(unit string, e *stats.Estimate) string {
	if e == nil || math.IsNaN(e.Estimate) {
		return "-"
	}
	out := value(unit, e.Estimate) + " " + interval(unit, analysis.Summary{N: 1, Lo: e.Lo, Hi: e.Hi})
	if !math.IsNaN(e.StdErr) {
		out += " se " + value(unit, e.StdErr)
	}
	if e.Approximate != "" {
		out += " (interval approximate)"
	}
	return out
}

type htmlMetric struct {
	Unit, Side, Color, Median, CI, N, CV, Min, Max, Slope string
	Change, P, Test, Verdict                              string
	// Context says why the metric does not decide the verdict; its row
	// says "context" instead of a verdict of its own.
	Context string
	First   bool
	Rows    int
}

// htmlEstimates is one side's estimates of one metric: mean, median,
// std dev, MAD and slope, each "value [lo–hi] se x".
type htmlEstimates struct {
	Unit, Side, Color, Headline string
	Cells                       []string
}

type htmlRamp struct {
	Title, Headline, Bottleneck, Stopped string
	Evidence, Fits, Notes                []string
	Charts                               []template.HTML
	Head                                 []string
	Rows                                 [][]string
	// A workload's description, schedule error and per-request table.
	Workload, ReqNotes []string
	ReqHead            []string
	ReqRows            [][]string
}

// renderHTML writes one self-contained HTML file: inline CSS and SVG, no
// script, no external resource. It shows the run (sides, environment,
// what the system was doing), a comparison chart per group, and per
// benchmark its metrics, distribution, per-round timeline, paired
// differences, linear-sampling regression and footnotes; for a ramp, the
// throughput and latency curves with the fitted models.
func renderHTML(w io.Writer, rep *analysis.Report, _ Options) error {
	css, err := htmlFiles.ReadFile("templates/report.css")
	if err != nil {
		return err
	}
	p := htmlPage{CSS: template.CSS(css)} //nolint:gosec // our own embedded file
	run := rep.Run
	p.Title = "rigor report"
	if len(rep.Sides) > 1 {
		p.Title += ": " + strings.Join(rep.Sides, " vs ")
	} else if run != nil && run.Ramp != nil {
		p.Title += ": ramp of " + run.Ramp.Target
	} else if len(rep.Sides) == 1 {
		p.Title += ": " + rep.Sides[0]
	}
	p.Subtitle = subtitle(rep)
	for _, h := range headLines(rep) {
		class := ""
		switch {
		case strings.HasPrefix(h.lead, "gate") && strings.HasSuffix(h.lead, "failed"):
			class = "verdict-regressed"
		case strings.HasPrefix(h.lead, "gate"):
			class = "verdict-improved"
		}
		p.Head = append(p.Head, htmlHead{Lead: h.lead, Rest: h.rest, Class: class})
	}
	p.Method = methodLine(rep)
	if len(rep.Sides) > 1 {
		p.Results = htmlResultTables(rep)
	}
	var lines []string
	lines, p.Hidden = footnotes(rep, false)
	p.Notes = lines
	p.Options = fmt.Sprintf("%s confidence intervals; noise band ±%s; α = %g; %s correction over %d comparisons; %d bootstrap resamples (seed %d).",
		words.PctSetting(rep.Options.Confidence), words.PctSetting(rep.Options.Noise), rep.Options.Alpha, rep.Options.Correction, rep.Comparisons, rep.Options.Resamples, rep.Options.Seed)
	p.Counts = counts(rep)
	p.Confidence = words.PctSetting(rep.Options.Confidence)
	p.Change = "change [CI]"
	if rep.Paired && len(rep.Sides) > 1 {
		p.Change = "paired Δ [CI]"
		p.Legend = append(p.Legend, pairedLegend(rep))
		// disagreeMark's legend under the tables that have it: the
		// results, and a benchmark's metrics (htmlBench.Legend).
		if slices.ContainsFunc(p.Results, func(t htmlResults) bool { return t.Marked }) {
			p.Legend = append(p.Legend, disagreeLegend)
		}
	}
	for i, s := range rep.Sides {
		hs := htmlSide{Label: s, Color: sideColor(i), Base: i == 0 && len(rep.Sides) > 1}
		if run != nil && i < len(run.Sides) {
			ms := run.Sides[i]
			if ms.Source != ms.Label {
				hs.Source = TerminalSafe(ms.Source)
			}
			hs.Rev = TerminalSafe(ms.Rev)
			if ms.Dirty {
				hs.Rev += " (uncommitted changes)"
			}
			var build []string
			for _, kv := range [][2]string{{"tags", ms.Tags}, {"gcflags", ms.GCFlags}, {"toolchain", ms.Toolchain}} {
				if kv[1] != "" {
					build = append(build, kv[0]+"="+kv[1])
				}
			}
			// Without their secrets, as the command line is shown.
			build = append(build, redact.Args(ms.BuildEnv)...)
			if len(ms.Args) > 0 {
				build = append(build, "-- "+shellQuote(redact.Args(ms.Args)))
			}
			hs.Build = TerminalSafe(strings.Join(build, " "))
		}
		p.Sides = append(p.Sides, hs)
	}
	if run != nil {
		p.Env = envRows(run)
		if len(run.Observations) > 0 {
			p.Obs = obsRows(analysis.SummarizeObservations(run.Observations))
			p.ObsChart = cpuChart(analysis.CPUTimeline(run.Observations), rep.Sides)
		}
		if run.Ramp != nil {
			p.Ramp = rampView(run.Ramp)
		}
	}
	p.RunNotes = model.Texts(rep.Notes)
	var drawn []int
	if len(rep.Benchmarks) > htmlFullLimit {
		p.Groups, drawn = htmlLarge(rep)
	} else {
		p.Groups = htmlGroups(rep)
		for i := range rep.Benchmarks {
			drawn = append(drawn, i)
		}
	}
	if len(rep.Sides) > 1 {
		p.Chart = changeChart(rep, drawn)
		what := "every benchmark's"
		if len(drawn) < len(rep.Benchmarks) {
			what = fmt.Sprintf("the %d most notable benchmarks' (regressed first, then improved, then inconclusive; the largest changes first)", len(drawn))
		}
		p.ChartCaption = "The change of " + what + " verdict against " + rep.Sides[0] + ", with its " + words.PctSetting(rep.Options.Confidence) +
			" CI, coloured by the verdict; the shaded band is the ±" + words.PctSetting(rep.Options.Noise) + " noise band."
	}
	return htmlTemplate().Execute(w, p)
}

func subtitle(rep *analysis.Report) string {
	var parts []string
	if rep.Kind != "" {
		parts = append(parts, rep.Kind)
	}
	if rep.Paired {
		parts = append(parts, "paired, interleaved rounds")
	}
	if run := rep.Run; run != nil {
		if !run.Start.IsZero() {
			parts = append(parts, run.Start.UTC().Format("2006-01-02 15:04 UTC"))
		}
		if !run.Start.IsZero() && run.End.After(run.Start) {
			parts = append(parts, "took "+run.End.Sub(run.Start).Round(time.Second).String())
		}
		if len(run.Command) > 0 {
			// Quoted as a shell reads it, so that it can be pasted back;
			// without its secrets, for a run an older rigor recorded.
			parts = append(parts, TerminalSafe(shellQuote(redact.Args(run.Command))))
		}
	}
	parts = append(parts, fmt.Sprintf("%d %s", len(rep.Benchmarks), words.Plural(len(rep.Benchmarks), "benchmark", "benchmarks")))
	return strings.Join(parts, " · ")
}

// counts counts the benchmarks by their verdict against the first side
// after the baseline (analysis.SideTally).
func counts(rep *analysis.Report) []htmlCount {
	if len(rep.Tallies) == 0 {
		return nil
	}
	t := rep.Tallies[0]
	var out []htmlCount
	for _, c := range []htmlCount{
		{string(analysis.Regressed), len(t.Regressed)}, {string(analysis.Improved), len(t.Improved)},
		{string(analysis.Unchanged), len(t.Unchanged)}, {string(analysis.Inconclusive), len(t.Inconclusive)},
		{"failed", len(t.Lost)},
	} {
		if c.N > 0 {
			out = append(out, c)
		}
	}
	return out
}

// htmlResultTables lays out the results tables (see results).
func htmlResultTables(rep *analysis.Report) []htmlResults {
	var out []htmlResults
	views := map[string]resultsView{}
	var order []string
	if rep.Kind == model.KindExec {
		views[""], order = execView(rep), []string{""}
	} else {
		for _, pkg := range packages(rep) {
			views[pkg] = results(rep, pkg)
			order = append(order, pkg)
		}
	}
	for _, pkg := range order {
		rv := views[pkg]
		t := htmlResults{Title: pkg, Head: rv.header, Marked: rv.marked}
		for _, r := range rv.rows {
			hr := htmlResultRow{Name: r.cells[0]}
			for i, c := range r.cells[1:] {
				cell := htmlCell{Text: c}
				v, extra := c, ""
				if i := strings.IndexAny(c, ",;"); i >= 0 {
					v, extra = c[:i], strings.TrimSpace(c[i+1:])
				}
				if rv.header[i+1] == "verdict" && slices.Contains([]analysis.Verdict{analysis.Regressed, analysis.Improved, analysis.Unchanged, analysis.Inconclusive}, analysis.Verdict(v)) {
					cell = htmlCell{Verdict: v, Extra: extra}
				}
				hr.Cells = append(hr.Cells, cell)
			}
			t.Rows = append(t.Rows, hr)
		}
		out = append(out, t)
	}
	return out
}

func envRows(run *model.Run) []htmlKV {
	e := run.Env
	if e == nil {
		return nil
	}
	var rows []htmlKV
	add := func(k, v string) {
		if v != "" && v != "0" {
			rows = append(rows, htmlKV{k, TerminalSafe(v)})
		}
	}
	add("CPU", e.CPUModel)
	cores := ""
	if e.LogicalCores > 0 {
		cores = fmt.Sprintf("%d logical", e.LogicalCores)
		if e.PhysicalCores > 0 {
			cores = fmt.Sprintf("%d physical, %s", e.PhysicalCores, cores)
		}
	}
	add("cores", cores)
	add("GOMAXPROCS", strconv.Itoa(e.GOMAXPROCS))
	goLine := e.GoVersion
	if e.GoToolchain != "" && e.GoToolchain != e.GoVersion {
		goLine = strings.TrimSpace(goLine + " (rigor); " + e.GoToolchain + " (go on PATH)")
	}
	add("Go", goLine)
	for _, k := range slices.Sorted(maps.Keys(e.GoEnv)) {
		v := e.GoEnv[k]
		if v == "" {
			v = "(empty)" // recorded, and empty: the toolchain's default
		}
		rows = append(rows, htmlKV{k, v})
	}
	add("OS", strings.Trim(e.GOOS+"/"+e.GOARCH, "/"))
	add("kernel", e.Kernel)
	add("governor", e.Governor)
	add("turbo", e.Turbo)
	add("ASLR", e.ASLR)
	add("virtualization", e.Virtualization)
	add("container", e.Container)
	if e.MemTotalBytes > 0 {
		add("memory", value("B/op", float64(e.MemTotalBytes)))
	}
	if e.MemBandwidth > 0 {
		add("memory bandwidth", value("B/s", e.MemBandwidth))
	}
	if e.NICSpeed > 0 {
		add("NIC speed", value("B/s", e.NICSpeed))
	}
	add("perf", e.Perf)
	add("power", e.Power)
	add("host", e.Hostname)
	return rows
}

func obsRows(s analysis.ObservationSummary) []htmlKV {
	var rows []htmlKV
	frac := func(k string, v float64) {
		if !math.IsNaN(v) {
			rows = append(rows, htmlKV{k, fmt.Sprintf("%.1f%%", v*100)})
		}
	}
	rows = append(rows, htmlKV{"observed", fmt.Sprintf("%d intervals over %s", s.Intervals, s.Span.Round(time.Millisecond))})
	frac("CPU user (all CPUs)", s.User)
	frac("CPU system", s.System)
	frac("CPU iowait", s.IOWait)
	frac("CPU steal", s.Steal)
	if !math.IsNaN(s.OtherCPU) {
		rows = append(rows, htmlKV{"other processes' CPU", fmt.Sprintf("%.1f%% mean, %.1f%% max", s.OtherCPU*100, s.OtherCPUMax*100)})
	}
	if !math.IsNaN(s.Load1) {
		rows = append(rows, htmlKV{"load (1 min)", fmt.Sprintf("%.2f mean, %.2f max", s.Load1, s.Load1Max)})
	}
	if !math.IsNaN(s.CtxSwitches) {
		rows = append(rows, htmlKV{"context switches", fmt.Sprintf("%.0f/s", s.CtxSwitches)})
	}
	if !math.IsNaN(s.FreqMHz) {
		rows = append(rows, htmlKV{"CPU frequency", fmt.Sprintf("%.0f MHz mean (%.0f–%.0f)", s.FreqMHz, s.FreqMinMHz, s.FreqMaxMHz)})
	}
	for _, p := range []struct {
		k string
		v float64
	}{{"CPU pressure (max)", s.CPUPressureMax}, {"memory pressure (max)", s.MemoryPressureMax}, {"I/O pressure (max)", s.IOPressureMax}} {
		if !math.IsNaN(p.v) && p.v > 0 {
			rows = append(rows, htmlKV{p.k, fmt.Sprintf("%.1f%%", p.v)})
		}
	}
	frac("GC CPU (in-process)", s.GCCPU)
	if s.ObserverCPUSec > 0 {
		rows = append(rows, htmlKV{"observer's own CPU", fmt.Sprintf("%.3fs", s.ObserverCPUSec)})
	}
	return rows
}

// cpuChart plots the machine's busy CPU and other processes' CPU over
// the run.
func cpuChart(pts []analysis.CPUPoint, sides []string) template.HTML {
	if len(pts) == 0 {
		return ""
	}
	c := newChart(640, 200, "CPU over the run")
	c.x.lo, c.x.hi = 0, pts[len(pts)-1].At
	c.x.lo, c.x.hi = padRange(c.x.lo, c.x.hi, 0.02)
	c.x.format = func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + "s" }
	c.x.label = "time since start"
	c.y.lo, c.y.hi = 0, 1
	c.y.format = shareFormatter
	c.y.label = "share of all CPUs"
	c.frame()
	var t, busy, other []float64
	for _, p := range pts {
		t, busy, other = append(t, p.At), append(busy, p.Busy), append(other, p.OtherCPU)
	}
	c.polyline(t, busy, "line", "#555")
	c.polyline(t, other, "line dashed", "#D55E00")
	for _, p := range pts {
		col := "#555"
		side := TerminalSafe(p.Side) // as the sides are shown
		if i := slices.Index(sides, side); i >= 0 {
			col = sideColor(i)
		}
		c.dot(p.At, p.Busy, 2.5, col, fmt.Sprintf("%.1fs: %.1f%% busy (%s)", p.At, p.Busy*100, side))
	}
	c.legend([]string{"busy", "other processes"}, []string{"#555", "#D55E00"})
	return c.svg()
}

// rawSide is side i's label as the run's samples have it: rep.Sides, as
// rendered, may show it escaped (see terminalSafeReport).
func rawSide(rep *analysis.Report, i int) string {
	if rep.Run != nil && i < len(rep.Run.Sides) {
		return rep.Run.Sides[i].Label
	}
	return rep.Sides[i]
}

// groupKey names the group a benchmark is shown in: its in-process
// group, else its package and the first part of its name.
func groupKey(b *analysis.Benchmark) string {
	if b.Group != "" {
		return b.Group
	}
	first, _, _ := strings.Cut(b.Name, "/")
	if b.Pkg != "" {
		return b.Pkg + " · " + first
	}
	return first
}

func htmlGroups(rep *analysis.Report) []htmlGroup {
	var groups []htmlGroup
	id := 0
	nextID := func(prefix string) string { id++; return fmt.Sprintf("%s%d", prefix, id) }
	if variantsAsRows(rep) {
		for i := range rep.Benchmarks {
			b := &rep.Benchmarks[i]
			g := htmlGroup{ID: nextID("g"), Title: b.FullName, Caption: "Each variant's median with its " + words.PctSetting(rep.Options.Confidence) + " CI; the dashed line is the baseline's median."}
			g.Chart = variantChart(rep, b)
			g.Benchmarks = append(g.Benchmarks, benchView(rep, i, nextID("b")))
			groups = append(groups, g)
		}
		return groups
	}
	byKey := map[string]int{}
	for i := range rep.Benchmarks {
		k := groupKey(&rep.Benchmarks[i])
		gi, ok := byKey[k]
		if !ok {
			gi = len(groups)
			byKey[k] = gi
			groups = append(groups, htmlGroup{ID: nextID("g"), Title: k})
		}
		groups[gi].Benchmarks = append(groups[gi].Benchmarks, benchView(rep, i, nextID("b")))
	}
	for gi := range groups {
		var idx []int
		for _, hb := range groups[gi].Benchmarks {
			for i := range rep.Benchmarks {
				if rep.Benchmarks[i].FullName == hb.Name && groupKey(&rep.Benchmarks[i]) == groups[gi].Title {
					idx = append(idx, i)
				}
			}
		}
		// With sides to compare, the chart at the top has every
		// benchmark's change; a group's own would repeat it.
		if len(rep.Sides) == 1 {
			groups[gi].Chart = medianChart(rep, idx)
			groups[gi].Caption = "Each benchmark's median with its " + words.PctSetting(rep.Options.Confidence) + " CI."
		}
	}
	return groups
}

// A report of more than htmlFullLimit benchmarks draws only the
// htmlNotable most notable in full (metrics table, charts, footnotes) and
// lists every benchmark in one table: a page of every benchmark in full
// grows by about 15 KB a benchmark (146 MB at 10,000), more than a
// browser opens comfortably.
const (
	htmlFullLimit = 300
	htmlNotable   = 100
)

// notability ranks a benchmark for htmlLarge: its most notable verdict
// (0 regressed, 1 improved, 2 inconclusive, 3 none of these) and the
// largest relative change with that verdict, over its decisions.
func notability(b *analysis.Benchmark) (class int, size float64) {
	class = 3
	for _, d := range b.Decisions {
		c := d.Change
		if c == nil {
			continue
		}
		k := 3
		switch c.Verdict {
		case analysis.Regressed:
			k = 0
		case analysis.Improved:
			k = 1
		case analysis.Inconclusive:
			k = 2
		}
		e := math.Abs(c.Estimate)
		if math.IsNaN(e) || math.IsInf(e, 0) {
			e = 0
		}
		switch {
		case k < class:
			class, size = k, e
		case k == class:
			size = math.Max(size, e)
		}
	}
	return class, size
}

// htmlLarge lays out a report of many benchmarks: one group of the
// htmlNotable most notable (regressed, then improved, then inconclusive;
// the largest changes first), drawn in full, and returns their indexes;
// the results table at the top lists every benchmark.
func htmlLarge(rep *analysis.Report) ([]htmlGroup, []int) {
	type ranked struct {
		i     int
		class int
		size  float64
	}
	var rs []ranked
	for i := range rep.Benchmarks {
		if class, size := notability(&rep.Benchmarks[i]); class < 3 {
			rs = append(rs, ranked{i, class, size})
		}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		if a.class != b.class {
			return a.class - b.class
		}
		return -cmpFloat(a.size, b.size)
	})
	rs = rs[:min(len(rs), htmlNotable)]
	var groups []htmlGroup
	var idx []int
	if len(rs) > 0 {
		g := htmlGroup{ID: "notable", Title: fmt.Sprintf("The %d most notable of %d benchmarks", len(rs), len(rep.Benchmarks)),
			Caption: fmt.Sprintf("This report has %d benchmarks, more than the %d drawn in full: the %d most notable are drawn here (regressed first, then improved, then inconclusive; the largest changes first), and every benchmark is in the results table above. To see others in full, report on fewer benchmarks.",
				len(rep.Benchmarks), htmlFullLimit, len(rs))}
		for _, r := range rs {
			idx = append(idx, r.i)
			g.Benchmarks = append(g.Benchmarks, benchView(rep, r.i, ""))
		}
		groups = append(groups, g)
	}
	return groups, idx
}

// cmpFloat orders a and b, NaN first.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// benchView is one benchmark's metrics table, charts and notes.
func benchView(rep *analysis.Report, i int, _ string) htmlBench {
	b := &rep.Benchmarks[i]
	hb := htmlBench{ID: fmt.Sprintf("bench-%d", i+1), Name: b.FullName, Notes: benchNotes(rep, b, false)}
	var cfg []string
	for k, v := range b.Config {
		if k == "goos" || k == "goarch" || k == "cpu" || strings.Contains(k, ":") {
			continue
		}
		cfg = append(cfg, k+": "+v)
	}
	slices.Sort(cfg)
	hb.Config = strings.Join(cfg, " · ")
	if len(b.Metrics) == 0 {
		return hb
	}
	pm := b.Metrics[primary(b)]
	if len(b.Decisions) == 1 && b.Decisions[0].Change != nil {
		d := &b.Decisions[0]
		hb.Verdict = string(d.Verdict)
		hb.Change, _ = changeCells(d.Change, d.Unit)
		if b.Metrics[d.Metric].DisagreesWithMedians(0) {
			hb.Change += disagreeMark
		}
		if c := clockWords(d); c != "" {
			hb.Change = c + " " + hb.Change
		}
	}
	for _, m := range b.Metrics {
		context := m.Context
		if m.DerivedFrom != "" {
			context = "derived from " + m.DerivedFrom + ": its verdict is " + m.DerivedFrom + "'s"
		}
		for si, s := range m.Sides {
			hm := htmlMetric{Unit: m.Unit, Side: s.Side, Color: sideColor(si), N: strconv.Itoa(s.N), First: si == 0, Rows: len(m.Sides), Context: context}
			if s.N > 0 {
				hm.Median = value(m.Unit, s.Center)
				hm.CI = interval(m.Unit, s)
				if s.Lo == s.Hi && s.Lo == s.Center {
					hm.CI = "exact"
				}
				hm.CV = "-" // no CV when the mean is zero
				if !math.IsNaN(s.CV) && !math.IsInf(s.CV, 0) {
					hm.CV = fmt.Sprintf("%.2f%%", s.CV*100)
				}
				hm.Min, hm.Max = value(m.Unit, s.Min), value(m.Unit, s.Max)
				if s.Slope != nil {
					hm.Slope = value(m.Unit, s.Slope.Estimate) + " " + interval(m.Unit, analysis.Summary{N: 1, Lo: s.Slope.Lo, Hi: s.Slope.Hi})
					hb.HasSlope = true
				}
				if e := s.Estimates; e != nil {
					he := htmlEstimates{Unit: m.Unit, Side: s.Side, Color: sideColor(si), Headline: e.Headline}
					for _, x := range []*stats.Estimate{&e.Mean, &e.Median, &e.StdDev, &e.MAD, e.Slope} {
						he.Cells = append(he.Cells, estimateCell(m.Unit, x))
					}
					hb.Estimates = append(hb.Estimates, he)
				}
			}
			if si > 0 {
				if c := m.Changes[si-1]; c != nil {
					est, ci := changeCells(c, m.Unit)
					if m.DisagreesWithMedians(si - 1) {
						est += disagreeMark
						hb.Legend = disagreeLegend
					}
					hm.Change = est + " " + ci
					if c.Test != "exact" && !math.IsNaN(c.PAdjusted) {
						hm.P = pValue(c) // an exact comparison has no p
					}
					hm.Test = c.Test
					hm.Verdict = string(c.Verdict)
				}
			}
			hb.Metrics = append(hb.Metrics, hm)
		}
	}
	var raw *model.Metric
	if run := rep.Run; run != nil && i < len(run.Benchmarks) {
		raw = run.Benchmarks[i].Metric(pm.Unit)
	}
	if raw == nil {
		return hb
	}
	for _, svg := range []template.HTML{
		distChart(rep, pm, raw),
		timelineChart(rep, pm, raw),
		pairedChart(rep, pm, raw),
		regressionChart(rep, pm, raw),
	} {
		if svg != "" {
			hb.Charts = append(hb.Charts, svg)
		}
	}
	return hb
}

// sideIndexes returns the sides of m that have samples.
func sideIndexes(m analysis.Metric) []int {
	var out []int
	for i, s := range m.Sides {
		if s.N > 0 {
			out = append(out, i)
		}
	}
	return out
}

// distChart draws a violin per side: the kernel density of its values,
// each value as a tick, the median and its CI.
func distChart(rep *analysis.Report, m analysis.Metric, raw *model.Metric) template.HTML {
	sides := sideIndexes(m)
	if len(sides) == 0 {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	dens := map[int]analysis.Density{}
	maxD := 0.0
	for _, i := range sides {
		v := raw.Values(rawSide(rep, i))
		d := analysis.KernelDensity(v, 80)
		dens[i] = d
		for _, y := range d.Y {
			maxD = math.Max(maxD, y)
		}
		lo, hi = math.Min(lo, m.Sides[i].Min), math.Max(hi, m.Sides[i].Max)
	}
	c := newChart(640, float64(80+50*len(sides)), "Distribution of "+m.Unit)
	if lo > 0 && hi/lo > 10 {
		c.x.log = true
		c.x.lo, c.x.hi = logRange(lo, hi, 1.2)
	} else {
		c.x.lo, c.x.hi = padRange(lo, hi, 0.08)
	}
	c.x.format = unitFormatter(m.Unit, c.ticks(c.x))
	c.x.label = m.Unit
	if c.x.log {
		c.x.label += " (log scale)"
	}
	for _, i := range sides {
		c.y.categories = append(c.y.categories, rep.Sides[i])
	}
	c.x.plo = 110
	c.frame()
	half := c.y.bandWidth() * 0.42
	for k, i := range sides {
		d, cy, col := dens[i], c.y.band(k), sideColor(i)
		var top, bot []string
		for j := range d.X {
			if d.X[j] < c.x.lo || d.X[j] > c.x.hi || d.X[j] <= 0 && c.x.log {
				continue
			}
			dy := d.Y[j] / maxD * half
			top = append(top, fmt.Sprintf("%.1f,%.1f", c.x.px(d.X[j]), cy-dy))
			bot = append([]string{fmt.Sprintf("%.1f,%.1f", c.x.px(d.X[j]), cy+dy)}, bot...)
		}
		if len(top) > 1 {
			c.f(`<polygon class="violin" fill="%s" stroke="%s" points="%s %s"/>`, col, col, strings.Join(top, " "), strings.Join(bot, " "))
		}
		for _, v := range raw.Values(rawSide(rep, i)) {
			px := c.x.px(v)
			c.f(`<line class="rug" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, px, px, cy-4, cy+4)
		}
		s := m.Sides[i]
		if !math.IsNaN(s.Lo) && !math.IsNaN(s.Hi) {
			c.f(`<rect class="ci" x="%.1f" y="%.1f" width="%.1f" height="6"/>`, c.x.px(s.Lo), cy-3, math.Max(c.x.px(s.Hi)-c.x.px(s.Lo), 1))
		}
		mx := c.x.px(s.Center)
		c.f(`<line class="median" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"><title>%s</title></line>`, mx, mx, cy-half, cy+half,
			esc(rep.Sides[i]+": median "+value(m.Unit, s.Center)+" "+interval(m.Unit, s)))
	}
	return c.svg()
}

// timelineChart draws every side's values round by round, so that drift
// (or a noisy stretch) shows.
func timelineChart(rep *analysis.Report, m analysis.Metric, raw *model.Metric) template.HTML {
	sides := sideIndexes(m)
	if len(sides) == 0 {
		return ""
	}
	c := newChart(640, 220, "Per round: "+m.Unit)
	first := true
	lo, hi := 0.0, 0.0
	for _, i := range sides {
		for _, s := range raw.BySide(rawSide(rep, i)) {
			if first {
				c.x.lo, c.x.hi, lo, hi, first = float64(s.Round), float64(s.Round), s.Value, s.Value, false
			}
			c.x.lo, c.x.hi = math.Min(c.x.lo, float64(s.Round)), math.Max(c.x.hi, float64(s.Round))
			lo, hi = math.Min(lo, s.Value), math.Max(hi, s.Value)
		}
	}
	c.x.lo, c.x.hi = padRange(c.x.lo, c.x.hi, 0.03)
	c.x.format = func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	c.x.label = "round"
	if !rep.Paired {
		c.x.label = "sample (in file order)"
	}
	c.y.lo, c.y.hi = padRange(lo, hi, 0.08)
	c.y.format = unitFormatter(m.Unit, niceTicks(c.y.lo, c.y.hi, 5))
	c.y.label = m.Unit
	c.frame()
	var labels, colors []string
	for _, i := range sides {
		smp := raw.BySide(rawSide(rep, i))
		xs, ys := make([]float64, len(smp)), make([]float64, len(smp))
		for k, s := range smp {
			xs[k], ys[k] = float64(s.Round), s.Value
		}
		col := sideColor(i)
		c.polyline(xs, ys, "line", col)
		for k := range xs {
			c.dot(xs[k], ys[k], 2.5, col, fmt.Sprintf("%s round %d: %s", rep.Sides[i], int(xs[k]), value(m.Unit, ys[k])))
		}
		labels, colors = append(labels, rep.Sides[i]), append(colors, col)
	}
	c.legend(labels, colors)
	return c.svg()
}

// pairedChart draws the distribution of the per-round changes of each
// side against the baseline, with the estimated change, its CI and the
// noise band. Ratios spanning more than a factor of three are drawn on a
// log axis (their densities estimated on log ratios).
func pairedChart(rep *analysis.Report, m analysis.Metric, raw *model.Metric) template.HTML {
	if !rep.Paired || len(rep.Sides) < 2 {
		return ""
	}
	type series struct {
		i      int
		ratios []float64
		c      *analysis.Change
	}
	var ss []series
	noise := rep.Options.Noise
	lo, hi := 1-noise, 1+noise
	for i := 1; i < len(rep.Sides); i++ {
		var r []float64
		for _, p := range analysis.Pairs(raw, rawSide(rep, 0), rawSide(rep, i)) {
			if p.Ratio > 0 && !math.IsInf(p.Ratio, 0) {
				r = append(r, p.Ratio)
			}
		}
		if len(r) < 2 {
			continue
		}
		ss = append(ss, series{i, r, m.Changes[i-1]})
		for _, v := range r {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if len(ss) == 0 {
		return ""
	}
	c := newChart(640, 240, "Paired differences per round: "+m.Unit+" vs "+rep.Sides[0])
	c.x.log = hi/lo > 3
	if c.x.log {
		c.x.lo, c.x.hi = logRange(lo, hi, 1.1)
	} else {
		c.x.lo, c.x.hi = padRange(lo, hi, 0.08)
	}
	c.x.format = func(v float64) string { return percentFormatter(v - 1) }
	c.x.label = "change in the same round (other / " + rep.Sides[0] + " − 1)"
	if c.x.log {
		c.x.label += ", log scale"
	}
	// Densities are of the ratios, or of their logarithms on a log axis.
	type curve struct{ xs, ys []float64 }
	curves := make([]curve, len(ss))
	maxD := 0.0
	for k, s := range ss {
		v := s.ratios
		if c.x.log {
			v = make([]float64, len(s.ratios))
			for j, r := range s.ratios {
				v[j] = math.Log10(r)
			}
		}
		d := analysis.KernelDensity(v, 80)
		for j := range d.X {
			x := d.X[j]
			if c.x.log {
				x = math.Pow(10, x)
			}
			if x >= c.x.lo && x <= c.x.hi {
				curves[k].xs = append(curves[k].xs, x)
				curves[k].ys = append(curves[k].ys, d.Y[j])
				maxD = math.Max(maxD, d.Y[j])
			}
		}
	}
	c.y.lo, c.y.hi = 0, maxD*1.25
	c.y.format = func(float64) string { return "" }
	c.y.label = "density"
	c.frame()
	c.f(`<rect class="noise" x="%.1f" y="%g" width="%.1f" height="%g"/>`, c.x.px(1-noise), c.y.phi, c.x.px(1+noise)-c.x.px(1-noise), c.y.plo-c.y.phi)
	c.f(`<line class="zero" x1="%.1f" x2="%.1f" y1="%g" y2="%g"/>`, c.x.px(1), c.x.px(1), c.y.phi, c.y.plo)
	var labels, colors []string
	for k, s := range ss {
		col := sideColor(s.i)
		c.polyline(curves[k].xs, curves[k].ys, "line", col)
		for _, v := range s.ratios {
			px := c.x.px(v)
			c.f(`<line class="rug" stroke="%s" x1="%.1f" x2="%.1f" y1="%g" y2="%g"/>`, col, px, px, c.y.plo-8, c.y.plo)
		}
		if ch := s.c; ch != nil && !math.IsNaN(ch.Estimate) {
			py := c.y.phi + 8 + float64(k)*9
			if !math.IsNaN(ch.Lo) && !math.IsNaN(ch.Hi) {
				c.f(`<line class="whisker" stroke="%s" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, col, c.x.px(1+ch.Lo), c.x.px(1+ch.Hi), py, py)
			}
			c.f(`<circle class="dot" cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s</title></circle>`, c.x.px(1+ch.Estimate), py, col,
				esc(fmt.Sprintf("%s: change %s %s, %s", rep.Sides[s.i], shortPct(ch.Estimate), changeCIText(ch), ch.Verdict)))
		}
		labels, colors = append(labels, rep.Sides[s.i]), append(colors, col)
	}
	c.legend(labels, colors)
	return c.svg()
}

func changeCIText(c *analysis.Change) string {
	_, ci := changeCells(c, "")
	return ci
}

// regressionChart draws linear sampling: each sample's total time against
// its iteration count, and the fitted slope through the origin.
func regressionChart(rep *analysis.Report, m analysis.Metric, raw *model.Metric) template.HTML {
	var with []int
	for i, s := range m.Sides {
		if s.Slope != nil && !math.IsNaN(s.Slope.Estimate) {
			with = append(with, i)
		}
	}
	if len(with) == 0 {
		return ""
	}
	total := strings.TrimSuffix(m.Unit, "/op")
	c := newChart(640, 240, "Linear sampling: total "+total+" against iterations, with the slope")
	maxI, maxT := 0.0, 0.0
	for _, i := range with {
		iters, totals := analysis.Totals(raw.BySide(rawSide(rep, i)))
		for k := range iters {
			maxI, maxT = math.Max(maxI, iters[k]), math.Max(maxT, totals[k])
		}
	}
	c.x.lo, c.x.hi = 0, clampFinite(maxI*1.05)
	c.x.format = plainFormatter
	c.x.label = "iterations in the sample"
	c.y.lo, c.y.hi = 0, clampFinite(maxT*1.08)
	c.y.format = unitFormatter(total, niceTicks(c.y.lo, c.y.hi, 5))
	c.y.label = "total " + total
	c.frame()
	var labels, colors []string
	for _, i := range with {
		col := sideColor(i)
		s := m.Sides[i]
		iters, totals := analysis.Totals(raw.BySide(rawSide(rep, i)))
		for k := range iters {
			c.dot(iters[k], totals[k], 2.5, col, fmt.Sprintf("%s: %.0f iterations, %s", rep.Sides[i], iters[k], value(total, totals[k])))
		}
		c.polyline([]float64{0, c.x.hi}, []float64{0, s.Slope.Estimate * c.x.hi}, "line", col)
		labels = append(labels, rep.Sides[i]+" "+value(m.Unit, s.Slope.Estimate))
		colors = append(colors, col)
	}
	c.legend(labels, colors)
	return c.svg()
}

// changeChart is the forest plot of the benchmarks idx: each one's
// verdict's change against the baseline with its CI, coloured by the
// verdict, over the noise band.
func changeChart(rep *analysis.Report, idx []int) template.HTML {
	type rowT struct {
		label string
		c     *analysis.Change
		side  int
	}
	var rows []rowT
	noise := rep.Options.Noise
	lo, hi := -noise, noise
	for _, i := range idx {
		b := &rep.Benchmarks[i]
		for k := range b.Decisions {
			d := &b.Decisions[k]
			c := d.Change
			if c == nil || math.IsNaN(c.Estimate) {
				continue
			}
			label := b.FullName
			if w := clockWords(d); w != "" {
				label += " · " + w
			}
			if len(b.Decisions) > 1 {
				label += " · " + rep.Sides[k+1]
			}
			rows = append(rows, rowT{label, c, k + 1})
			for _, v := range []float64{c.Lo, c.Hi, c.Estimate} {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
	}
	if len(rows) == 0 {
		return ""
	}
	c := newChart(720, marginTop+marginBottom+float64(26*len(rows)), "Change against "+rep.Sides[0])
	c.x.plo = 260
	c.x.lo, c.x.hi = padRange(lo, hi, 0.1)
	c.x.format = percentFormatter
	c.x.label = "change (negative is less of the metric)"
	for _, r := range rows {
		c.y.categories = append(c.y.categories, r.label)
	}
	c.y.plo, c.y.phi = marginTop, c.h-marginBottom // first row on top
	c.frame()
	c.f(`<rect class="noise" x="%.1f" y="%g" width="%.1f" height="%g"/>`, c.x.px(-noise), marginTop, c.x.px(noise)-c.x.px(-noise), c.h-marginBottom-marginTop)
	c.f(`<line class="zero" x1="%.1f" x2="%.1f" y1="%g" y2="%g"/>`, c.x.px(0), c.x.px(0), marginTop, c.h-marginBottom)
	for k, r := range rows {
		py := c.y.band(k)
		cls := "verdict-" + string(r.c.Verdict)
		if !math.IsNaN(r.c.Lo) && !math.IsNaN(r.c.Hi) {
			x1, x2 := c.x.px(r.c.Lo), c.x.px(r.c.Hi)
			c.f(`<g class="%s"><line class="whisker" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/><line class="whisker" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/><line class="whisker" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/></g>`,
				cls, x1, x2, py, py, x1, x1, py-5, py+5, x2, x2, py-5, py+5)
		}
		c.f(`<circle class="%s mark" cx="%.1f" cy="%.1f" r="4.5"><title>%s</title></circle>`, cls, c.x.px(r.c.Estimate), py,
			esc(fmt.Sprintf("%s: %s %s, %s", r.label, shortPct(r.c.Estimate), changeCIText(r.c), r.c.Verdict)))
	}
	return c.svg()
}

// medianChart draws each benchmark's median with its CI, on a log axis
// when they span more than a factor of ten.
func medianChart(rep *analysis.Report, idx []int) template.HTML {
	var rows []whiskerRow
	unit := ""
	for _, i := range idx {
		b := &rep.Benchmarks[i]
		if len(b.Metrics) == 0 {
			continue
		}
		m := b.Metrics[primary(b)]
		if unit == "" {
			unit = m.Unit
		}
		if m.Unit == unit && m.Sides[0].N > 0 {
			rows = append(rows, whiskerRow{b.FullName, m.Sides[0], sideColor(0)})
		}
	}
	if len(rows) == 0 {
		return ""
	}
	return whiskerChart("Median and "+words.PctSetting(rep.Options.Confidence)+" CI: "+unit, unit, rows, math.NaN())
}

type whiskerRow struct {
	label string
	s     analysis.Summary
	color string
}

// whiskerChart draws a median with CI whiskers per row; ref, when not
// NaN, is drawn as a dashed reference line.
func whiskerChart(title, unit string, rows []whiskerRow, ref float64) template.HTML {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		for _, v := range []float64{r.s.Center, r.s.Lo, r.s.Hi} {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	c := newChart(720, marginTop+marginBottom+float64(26*len(rows)), title)
	c.x.plo = 200
	if lo > 0 && hi/lo > 10 {
		c.x.log = true
		c.x.lo, c.x.hi = logRange(lo, hi, 1.3)
	} else {
		c.x.lo, c.x.hi = padRange(lo, hi, 0.1)
	}
	c.x.format = unitFormatter(unit, c.ticks(c.x))
	c.x.label = unit
	if c.x.log {
		c.x.label += " (log scale)"
	}
	for _, r := range rows {
		c.y.categories = append(c.y.categories, r.label)
	}
	c.y.plo, c.y.phi = marginTop, c.h-marginBottom
	c.frame()
	if !math.IsNaN(ref) {
		c.f(`<line class="zero dashed" x1="%.1f" x2="%.1f" y1="%g" y2="%g"/>`, c.x.px(ref), c.x.px(ref), marginTop, c.h-marginBottom)
	}
	for k, r := range rows {
		py := c.y.band(k)
		if !math.IsNaN(r.s.Lo) && !math.IsNaN(r.s.Hi) {
			x1, x2 := c.x.px(r.s.Lo), c.x.px(r.s.Hi)
			c.f(`<g stroke="%s"><line class="whisker" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/><line class="whisker" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/><line class="whisker" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/></g>`,
				r.color, x1, x2, py, py, x1, x1, py-5, py+5, x2, x2, py-5, py+5)
		}
		c.f(`<circle class="dot" cx="%.1f" cy="%.1f" r="4.5" fill="%s"><title>%s</title></circle>`, c.x.px(r.s.Center), py, r.color,
			esc(r.label+": "+value(unit, r.s.Center)+" "+interval(unit, r.s)))
	}
	return c.svg()
}

// variantChart compares a group's variants: each one's median and CI.
func variantChart(rep *analysis.Report, b *analysis.Benchmark) template.HTML {
	if len(b.Metrics) == 0 {
		return ""
	}
	m := b.Metrics[primary(b)]
	var rows []whiskerRow
	for i, s := range m.Sides {
		if s.N > 0 {
			rows = append(rows, whiskerRow{rep.Sides[i], s, sideColor(i)})
		}
	}
	if len(rows) == 0 {
		return ""
	}
	ref := math.NaN()
	if m.Sides[0].N > 0 {
		ref = m.Sides[0].Center
	}
	return whiskerChart("Variants: median and "+words.PctSetting(rep.Options.Confidence)+" CI of "+m.Unit, m.Unit, rows, ref)
}

// rampView shows a ramp: the headline, the bottleneck, the fits, curves
// of throughput and latency against load, and the steps.
func rampView(r *model.Ramp) *htmlRamp {
	v := &htmlRamp{Title: rampTitle(r), Headline: rampHeadline(r), Stopped: r.Stopped, Notes: rampDetails(r)}
	if r.Bottleneck != nil {
		v.Bottleneck = r.Bottleneck.Summary
		v.Evidence = r.Bottleneck.Evidence
	}
	for _, f := range rampFits(r) {
		v.Fits = append(v.Fits, rampFitLine(f))
	}
	v.Head, v.Rows = rampColumns(r)
	v.Workload = append(rampWorkloadLines(r), rampScheduleLines(r)...)
	if rampHasRequests(r) {
		v.ReqHead, v.ReqRows = rampRequestColumns(r)
		v.ReqNotes = rampRequestNotes(r)
	}
	if len(r.Steps) == 0 {
		return v
	}
	open := r.Mode == model.RampOpen
	load := func(s model.RampStep) float64 {
		if open {
			return s.Rate
		}
		return float64(s.Concurrency)
	}
	xlabel := "concurrency (workers)"
	if open {
		xlabel = "offered rate (requests/s)"
	}
	maxX, maxT, maxL := 0.0, 0.0, 0.0
	for _, s := range r.Steps {
		maxX, maxT = math.Max(maxX, load(s)), math.Max(maxT, s.Throughput)
		maxL = math.Max(maxL, float64(s.Latency.P99))
	}
	fits := rampFits(r)
	for _, f := range fits {
		for _, p := range f.Curve {
			maxT = math.Max(maxT, p.X)
		}
	}
	// Throughput.
	c := newChart(640, 260, "Throughput against load, with the fitted models")
	c.x.lo, c.x.hi = 0, maxX*1.05
	c.x.format = plainFormatter
	c.x.label = xlabel
	c.y.lo, c.y.hi = 0, maxT*1.1
	c.y.format = plainFormatter
	c.y.label = "successful requests/s"
	c.frame()
	fitColor := map[string]string{"usl": "#009E73", "amdahl": "#CC79A7"}
	fitName := map[string]string{"usl": "USL", "amdahl": "Amdahl"}
	labels, colors := []string{"measured"}, []string{"#0072B2"}
	if !open {
		for _, f := range fits {
			var xs, ys []float64
			for _, p := range f.Curve {
				if p.N <= c.x.hi {
					xs, ys = append(xs, p.N), append(ys, p.X)
				}
			}
			col := fitColor[f.Model]
			c.polyline(xs, ys, "line dashed", col)
			labels, colors = append(labels, fitName[f.Model]+fmt.Sprintf(" (R² %.3f)", f.R2)), append(colors, col)
		}
	}
	var xs, ys []float64
	for _, s := range r.Steps {
		xs, ys = append(xs, load(s)), append(ys, s.Throughput)
	}
	c.polyline(xs, ys, "line", "#0072B2")
	for _, s := range r.Steps {
		cls := "dot"
		if !s.Valid {
			cls = "dot hollow"
		}
		c.f(`<circle class="%s" cx="%.1f" cy="%.1f" r="4" fill="#0072B2" stroke="#0072B2"><title>%s</title></circle>`, cls, c.x.px(load(s)), c.y.px(s.Throughput),
			esc(fmt.Sprintf("step %d (%s): %.0f req/s, p99 %s%s", s.Index+1, rampLevel(r, s), s.Throughput, rampDur(s.Latency.P99), invalidText(s))))
	}
	c.legend(labels, colors)
	v.Charts = append(v.Charts, c.svg())

	// Latency.
	c = newChart(640, 260, "Latency against load (successful requests)")
	c.x.lo, c.x.hi = 0, maxX*1.05
	c.x.format = plainFormatter
	c.x.label = xlabel
	if r.SLO != nil && r.SLO.Latency > 0 {
		maxL = math.Max(maxL, float64(r.SLO.Latency))
	}
	c.y.lo, c.y.hi = 0, maxL*1.1/1e9
	c.y.format = unitFormatter("sec/op", niceTicks(c.y.lo, c.y.hi, 5))
	c.y.label = "latency"
	c.frame()
	if r.SLO != nil && r.SLO.Latency > 0 {
		py := c.y.px(r.SLO.Latency.Seconds())
		c.f(`<line class="slo" x1="%g" x2="%g" y1="%.1f" y2="%.1f"/><text class="tick" x="%g" y="%.1f" text-anchor="end">%s</text>`,
			c.x.plo, c.x.phi, py, py, c.x.phi-4, py-4, esc(fmt.Sprintf("SLO p%g ≤ %s", r.SLO.Percentile, rampDur(r.SLO.Latency))))
	}
	p50, p99 := make([]float64, len(r.Steps)), make([]float64, len(r.Steps))
	for k, s := range r.Steps {
		p50[k], p99[k] = s.Latency.P50.Seconds(), s.Latency.P99.Seconds()
	}
	c.polyline(xs, p50, "line", "#56B4E9")
	c.polyline(xs, p99, "line", "#D55E00")
	for k, s := range r.Steps {
		c.dot(xs[k], p99[k], 3.5, "#D55E00", fmt.Sprintf("step %d: p99 %s", s.Index+1, rampDur(s.Latency.P99)))
		c.dot(xs[k], p50[k], 3, "#56B4E9", fmt.Sprintf("step %d: p50 %s", s.Index+1, rampDur(s.Latency.P50)))
	}
	c.legend([]string{"p50", "p99"}, []string{"#56B4E9", "#D55E00"})
	v.Charts = append(v.Charts, c.svg())
	return v
}

func invalidText(s model.RampStep) string {
	if s.Valid {
		return ""
	}
	return "; INVALID: " + s.Invalid
}
