package report

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// A ramp of a workload (a mix of requests, or a replay) is shown as any
// ramp, followed by a table of each step's results per request and, for a
// replay, what was read, what was skipped and how closely the schedule
// was kept. Every number was computed by package load.

// rampWorkloadLines describe the workload: its file, its requests, what a
// replay read and skipped.
func rampWorkloadLines(r *model.Ramp) []string {
	wl := r.Workload
	if wl == nil {
		return nil
	}
	var out []string
	if wl.Kind == model.WorkloadReplay {
		out = append(out, "replay of "+wl.Source+" ("+wl.Format+"): "+wl.Caveat)
		if rp := wl.Replay; rp != nil {
			s := fmt.Sprintf("%s recorded over %s; %s for %s replayed to %s", words.Count(rp.Entries, "request", "requests"), rampDur(rp.Span), words.Count(rp.Replayed, "request", "requests"), rp.Host, r.Target)
			if rp.Resolution >= time.Second {
				s += "; the log's clock counts whole seconds, so the requests of each second are spread evenly across it"
			}
			out = append(out, s)
			if len(rp.OtherHosts) > 0 {
				var n int64
				var hosts []string
				for i, h := range rp.OtherHosts {
					n += h.Count
					if i < 5 {
						hosts = append(hosts, fmt.Sprintf("%s ×%d", h.Host, h.Count))
					}
				}
				if len(rp.OtherHosts) > 5 {
					hosts = append(hosts, fmt.Sprintf("%d more hosts", len(rp.OtherHosts)-5))
				}
				out = append(out, fmt.Sprintf("skipped %s for other hosts, never sent: %s", words.Count(n, "request", "requests"), strings.Join(hosts, ", ")))
			}
			for _, sk := range rp.Skipped {
				out = append(out, fmt.Sprintf("skipped %s: %s", words.Count(sk.Count, "entry", "entries"), sk.Reason))
			}
			if rp.Unordered > 0 {
				out = append(out, fmt.Sprintf("%s recorded out of time order were sent in time order", words.Count(rp.Unordered, "request", "requests")))
			}
			if rp.NoBody > 0 {
				out = append(out, fmt.Sprintf("%s with a method that usually carries a body (POST, PUT, PATCH) were sent without one: the file holds no bodies", words.Count(rp.NoBody, "request", "requests")))
			}
		}
		return out
	}
	if wl.Caveat != "" {
		out = append(out, wl.Caveat)
	}
	out = append(out, fmt.Sprintf("workload %s (%s, seed %d), each request's share of the requests sent:", wl.Source, wl.Format, wl.Seed))
	for _, q := range wl.Requests {
		s := fmt.Sprintf("%s: %s %s %s", q.Name, rampPct(q.Share), q.Method, q.URL)
		if q.ThinkMax > 0 {
			if q.ThinkMin == q.ThinkMax {
				s += ", then think " + rampDur(q.ThinkMin)
			} else {
				s += ", then think " + rampDur(q.ThinkMin) + ".." + rampDur(q.ThinkMax)
			}
		}
		out = append(out, "  "+s)
	}
	return out
}

// rampRequestSLOText describes the per-request objectives.
func rampRequestSLOText(slo *model.RampSLO) []string {
	var out []string
	for _, o := range slo.Requests {
		var parts []string
		if o.Latency > 0 {
			name := "max"
			if o.Percentile != 100 {
				name = "p" + strconv.FormatFloat(o.Percentile, 'g', -1, 64)
			}
			parts = append(parts, name+" ≤ "+rampDur(o.Latency))
		}
		if o.MaxErrorRate != nil {
			parts = append(parts, "errors ≤ "+rampPct(*o.MaxErrorRate))
		}
		out = append(out, o.Name+": "+strings.Join(parts, " and "))
	}
	return out
}

// rampHasRequests reports whether any step has per-request results.
func rampHasRequests(r *model.Ramp) bool {
	for _, s := range r.Steps {
		if len(s.ByRequest) > 0 {
			return true
		}
	}
	return false
}

// rampRequestColumns is the per-request table: a row per step and
// request.
func rampRequestColumns(r *model.Ramp) ([]string, [][]string) {
	intended := map[string]float64{}
	if r.Workload != nil {
		for _, q := range r.Workload.Requests {
			intended[q.Name] = q.Share
		}
	}
	hasSLO := r.SLO != nil && len(r.SLO.Requests) > 0
	weight := "weight"
	if r.Workload != nil && r.Workload.Kind == model.WorkloadReplay {
		weight = "recorded"
	}
	head := []string{"step", "request", weight, "share", "ok/s", "errors", "p50", "p90", "p99", "p99.9", "max"}
	if hasSLO {
		head = append(head, "SLO")
	}
	var rows [][]string
	for _, s := range r.Steps {
		for _, q := range s.ByRequest {
			w := "-"
			if v, ok := intended[q.Name]; ok {
				w = rampPct(v)
			}
			errs := "0"
			if len(q.Errors) > 0 {
				errs = rampPct(q.ErrorRate)
			}
			l := q.Latency
			row := []string{strconv.Itoa(s.Index+1) + " (" + rampLevel(r, s) + ")", q.Name, w, rampPct(q.Share), rampRate(q.Throughput), errs,
				rampDur(l.P50), rampDur(l.P90), rampDur(l.P99), rampDur(l.P999), rampDur(l.Max)}
			if hasSLO {
				cell := ""
				switch {
				case q.SLOMiss != "":
					cell = "missed"
				case q.SLOMet:
					cell = "met"
				}
				row = append(row, cell)
			}
			rows = append(rows, row)
		}
	}
	return head, rows
}

// rampRequestNotes are the per-request remarks: errors by class and SLO
// misses.
func rampRequestNotes(r *model.Ramp) []string {
	var out []string
	for _, s := range r.Steps {
		for _, q := range s.ByRequest {
			lvl := rampLevel(r, s)
			if len(q.Errors) > 0 {
				var parts []string
				for _, e := range q.Errors {
					parts = append(parts, fmt.Sprintf("%s ×%d", e.Class, e.Count))
				}
				out = append(out, fmt.Sprintf("step %d (%s), %s: errors %s of %d completed: %s", s.Index+1, lvl, q.Name, rampPct(q.ErrorRate), q.Requests, strings.Join(parts, ", ")))
			}
			if q.SLOMiss != "" {
				out = append(out, fmt.Sprintf("step %d (%s), %s: SLO missed: %s", s.Index+1, lvl, q.Name, q.SLOMiss))
			}
		}
	}
	return out
}

// rampScheduleLines say, for each open-loop step, how late requests were
// sent against their schedule.
func rampScheduleLines(r *model.Ramp) []string {
	var out []string
	for _, s := range r.Steps {
		if s.SendLag == nil {
			continue
		}
		l := s.SendLag
		out = append(out, fmt.Sprintf("step %d (%s): sent %d; schedule error (actual − intended send time): p50 %s, p99 %s, max %s, mean %s",
			s.Index+1, rampLevel(r, s), s.Sent, rampLag(l.P50), rampLag(l.P99), rampLag(l.Max), rampLag(l.Mean)))
	}
	return out
}

// rampLag prints a schedule error: the histogram's 1 ns floor is on time.
func rampLag(d time.Duration) string {
	if d <= 1 {
		return "0"
	}
	return rampDur(d)
}

// rampTextWorkload writes the workload's description and per-request
// table under a ramp's text table.
func rampTextWorkload(w *rampWriter, r *model.Ramp) {
	lines := append(rampWorkloadLines(r), rampScheduleLines(r)...)
	if len(lines) > 0 {
		for _, l := range lines {
			w.printf("%s\n", l)
		}
		w.printf("\n")
	}
	if !rampHasRequests(r) {
		return
	}
	w.printf("by request\n")
	head, rows := rampRequestColumns(r)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	for _, n := range rampRequestNotes(r) {
		w.printf("  - %s\n", n)
	}
	w.printf("\n")
}

// rampMarkdownWorkload is rampTextWorkload in Markdown.
func rampMarkdownWorkload(w *rampWriter, r *model.Ramp) {
	for _, l := range append(rampWorkloadLines(r), rampScheduleLines(r)...) {
		if t := strings.TrimPrefix(l, "  "); t != l {
			w.printf("  - %s\n", rampMDEscape(t))
		} else {
			w.printf("- %s\n", rampMDEscape(l))
		}
	}
	if !rampHasRequests(r) {
		return
	}
	head, rows := rampRequestColumns(r)
	w.printf("\n**By request**\n\n| %s |\n", strings.Join(head, " | "))
	seps := make([]string, len(head))
	for i := range seps {
		seps[i] = "---:"
	}
	seps[1] = "---"
	w.printf("|%s|\n", strings.Join(seps, "|"))
	for _, row := range rows {
		for i := range row {
			row[i] = rampMDEscape(row[i])
		}
		w.printf("| %s |\n", strings.Join(row, " | "))
	}
	for _, n := range rampRequestNotes(r) {
		w.printf("- %s\n", rampMDEscape(n))
	}
	w.printf("\n")
}

// rampCSVExtra are the columns a ramp's CSV has after its original ones:
// per-request rows name their request, and an open-loop step's schedule
// error.
var rampCSVExtra = []string{"request", "share", "sent", "pace", "send_lag_p50_ns", "send_lag_p99_ns", "send_lag_max_ns"}

// rampCSVStepExtra are a step row's extra cells.
func rampCSVStepExtra(s model.RampStep) []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	d := func(v time.Duration) string { return strconv.FormatInt(int64(v), 10) }
	lag := []string{"", "", ""}
	if l := s.SendLag; l != nil {
		lag = []string{d(l.P50), d(l.P99), d(l.Max)}
	}
	pace := ""
	if s.Pace > 0 {
		pace = f(s.Pace)
	}
	return append([]string{"", "", strconv.FormatInt(s.Sent, 10), pace}, lag...)
}

// rampCSVRequestRows are a step's per-request rows under head, the
// step's columns: the columns that place the step (step, mode,
// concurrency, offered_rate) as in its own row, the request's counts,
// latency and SLO in the step's columns for them, the rest empty, then
// the request's name, share and sends.
func rampCSVRequestRows(r *model.Ramp, s model.RampStep, head []string) [][]string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	d := func(v time.Duration) string { return strconv.FormatInt(int64(v), 10) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	var rows [][]string
	for _, q := range s.ByRequest {
		var errs []string
		for _, e := range q.Errors {
			errs = append(errs, e.Class+"="+i(e.Count))
		}
		cells := map[string]string{
			"step": i(int64(s.Index + 1)), "mode": r.Mode, "concurrency": i(int64(s.Concurrency)), "offered_rate": f(s.Offered),
			"throughput": f(q.Throughput), "requests": i(q.Requests), "successes": i(q.Successes),
			"error_rate": f(q.ErrorRate), "errors": strings.Join(errs, ";"),
			"p50_ns": d(q.Latency.P50), "p90_ns": d(q.Latency.P90), "p99_ns": d(q.Latency.P99),
			"p999_ns": d(q.Latency.P999), "max_ns": d(q.Latency.Max), "mean_ns": d(q.Latency.Mean),
		}
		if q.SLOMet || q.SLOMiss != "" {
			cells["slo_met"], cells["slo_miss"] = strconv.FormatBool(q.SLOMet), q.SLOMiss
		}
		row := make([]string, len(head), len(head)+len(rampCSVExtra))
		for k, h := range head {
			row[k] = cells[h]
		}
		row = append(row, q.Name, f(q.Share), i(q.Sent), "", "", "", "")
		rows = append(rows, row)
	}
	return rows
}
