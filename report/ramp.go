package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rigorbench/rigor/model"
)

// RampFormats are the formats RenderRamp writes. JSON is the model.Run
// holding the ramp, written by model.Run.WriteJSON.
var RampFormats = []string{"text", "md", "csv"}

// RenderRamp writes a ramped-load result in format ("text", "md" or
// "csv"). Every number it prints was computed by package load.
func RenderRamp(w io.Writer, r *model.Ramp, format string) error {
	ew := &rampWriter{w: w}
	switch format {
	case "text":
		rampText(ew, r)
	case "md":
		rampMarkdown(ew, r)
	case "csv":
		if err := rampCSV(ew, r); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown ramp format %q (want %s or json)", format, strings.Join(RampFormats, ", "))
	}
	return ew.err
}

// rampWriter remembers the first write error.
type rampWriter struct {
	w   io.Writer
	err error
}

func (e *rampWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *rampWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

// rampDur prints a duration with three significant digits.
func rampDur(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	v, unit := float64(d), "ns"
	switch {
	case d >= time.Second:
		v, unit = d.Seconds(), "s"
	case d >= time.Millisecond:
		v, unit = v/1e6, "ms"
	case d >= time.Microsecond:
		v, unit = v/1e3, "µs"
	}
	return strconv.FormatFloat(v, 'f', rampDigits(v), 64) + unit
}

// rampDigits is the number of decimals that shows v to three
// significant digits.
func rampDigits(v float64) int {
	switch {
	case v >= 100:
		return 0
	case v >= 10:
		return 1
	}
	return 2
}

// rampRate prints a rate (per second).
func rampRate(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', rampDigits(v), 64)
}

func rampBytes(v float64) string {
	switch {
	case v >= 1e9:
		return strconv.FormatFloat(v/1e9, 'f', rampDigits(v/1e9), 64) + " GB/s"
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', rampDigits(v/1e6), 64) + " MB/s"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', rampDigits(v/1e3), 64) + " kB/s"
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " B/s"
}

func rampPct(f float64) string {
	return strconv.FormatFloat(100*f, 'f', rampDigits(100*f), 64) + "%"
}

func rampGain(s model.RampStep) string {
	if s.Index == 0 {
		return "-"
	}
	return fmt.Sprintf("%+.0f%%", 100*s.Gain)
}

func rampLevel(r *model.Ramp, s model.RampStep) string {
	if s.Pace > 0 {
		return strconv.FormatFloat(s.Pace, 'g', -1, 64) + "x, " + rampRate(s.Rate) + "/s"
	}
	if r.Mode == model.RampOpen {
		return rampRate(s.Rate) + "/s"
	}
	return strconv.Itoa(s.Concurrency)
}

func rampSLOCell(r *model.Ramp, s model.RampStep) string {
	switch {
	case r.SLO == nil:
		return ""
	case s.SLOMet:
		return "met"
	}
	return "missed"
}

func rampValidCell(s model.RampStep) string {
	if s.Valid {
		return ""
	}
	return "INVALID"
}

func rampErrors(s model.RampStep) string {
	if len(s.Errors) == 0 {
		return "0"
	}
	return rampPct(s.ErrorRate)
}

func rampErrorClasses(s model.RampStep) string {
	var parts []string
	for _, e := range s.Errors {
		parts = append(parts, fmt.Sprintf("%s ×%d", e.Class, e.Count))
	}
	return strings.Join(parts, ", ")
}

// rampColumns is the step table: header and cells per step.
func rampColumns(r *model.Ramp) ([]string, [][]string) {
	open := r.Mode == model.RampOpen
	head := []string{"conc"}
	if open {
		head = []string{"offered", "sent/s", "workers"}
	}
	head = append(head, "ok/s", "gain")
	if open {
		head = append(head, "p50", "p99", "p99.9", "max", "p50 (send)", "p99 (send)")
	} else {
		head = append(head, "p50", "p90", "p99", "p99.9", "max")
	}
	head = append(head, "errors", "bytes", "gen CPU", "sched p99")
	hasTarget := false
	for _, s := range r.Steps {
		hasTarget = hasTarget || s.Target != nil
	}
	if hasTarget {
		head = append(head, "target CPU", "sys", "vcsw/req")
	}
	if r.SLO != nil {
		head = append(head, "SLO")
	}
	head = append(head, "")
	var rows [][]string
	for _, s := range r.Steps {
		var row []string
		if open {
			row = append(row, rampLevel(r, s), rampRate(s.Achieved), strconv.Itoa(s.Concurrency))
		} else {
			row = append(row, rampLevel(r, s))
		}
		row = append(row, rampRate(s.Throughput), rampGain(s))
		l := s.Latency
		if open {
			sl := model.Latency{}
			if s.ServiceLatency != nil {
				sl = *s.ServiceLatency
			}
			row = append(row, rampDur(l.P50), rampDur(l.P99), rampDur(l.P999), rampDur(l.Max), rampDur(sl.P50), rampDur(sl.P99))
		} else {
			row = append(row, rampDur(l.P50), rampDur(l.P90), rampDur(l.P99), rampDur(l.P999), rampDur(l.Max))
		}
		row = append(row, rampErrors(s), rampBytes(s.BytesPerSec), rampPct(s.Generator.CPU), rampDur(s.Generator.SchedLatencyP99))
		if hasTarget {
			if t := s.Target; t != nil {
				sys := "-"
				if t.UserSec+t.SystemSec > 0 {
					sys = rampPct(t.SystemSec / (t.UserSec + t.SystemSec))
				}
				row = append(row, rampPct(t.CPU), sys, strconv.FormatFloat(t.CtxPerRequest, 'f', 2, 64))
			} else {
				row = append(row, "-", "-", "-")
			}
		}
		if r.SLO != nil {
			row = append(row, rampSLOCell(r, s))
		}
		row = append(row, rampValidCell(s))
		rows = append(rows, row)
	}
	return head, rows
}

func rampTitle(r *model.Ramp) string {
	loop := "closed loop"
	if r.Mode == model.RampOpen {
		loop = "open loop, latency from each request's intended start; (send) columns from the actual send"
	}
	cpus := fmt.Sprintf("%d CPUs", r.CPUs)
	switch {
	case r.MergedShards > 0:
		cpus = fmt.Sprintf("merged from %d generators, shard 0's with %d CPUs", r.MergedShards, r.CPUs)
	case r.Shard != nil:
		cpus = fmt.Sprintf("shard %d/%d of the load, %d CPUs", r.Shard.Index, r.Shard.Count, r.CPUs)
	}
	if w := r.Workload; w != nil && w.Kind == model.WorkloadReplay {
		return fmt.Sprintf("%s (%s, replay, %s; each step sends the whole recording once, %s recorded; %s)", r.Target, r.Protocol, loop, rampDur(r.StepDuration), cpus)
	}
	return fmt.Sprintf("%s (%s, %s; warm-up %v, %v per step; %s)", r.Target, r.Protocol, loop, r.Warmup, r.StepDuration, cpus)
}

func rampSLOText(slo *model.RampSLO) string {
	var parts []string
	if slo.Latency > 0 {
		name := "max"
		if slo.Percentile != 100 {
			name = "p" + strconv.FormatFloat(slo.Percentile, 'g', -1, 64)
		}
		parts = append(parts, name+" ≤ "+rampDur(slo.Latency))
	}
	if slo.MaxErrorRate != nil {
		parts = append(parts, "errors ≤ "+rampPct(*slo.MaxErrorRate))
	}
	parts = append(parts, rampRequestSLOText(slo)...)
	return strings.Join(parts, ", ")
}

func rampHeadline(r *model.Ramp) string {
	h := r.Headline
	if h == nil {
		return ""
	}
	if h.Basis == "none" {
		return "no headline: " + h.Reason
	}
	at := "at concurrency " + strconv.Itoa(h.Concurrency)
	if r.Mode == model.RampOpen {
		at = "at " + rampRate(h.Rate) + "/s offered"
	}
	s := fmt.Sprintf("%s req/s %s, p99 %s", rampRate(h.Throughput), at, rampDur(h.P99))
	if h.Percentile > 0 {
		s += fmt.Sprintf(", p%g %s", h.Percentile, rampDur(h.Latency))
	}
	s += " — " + h.Reason
	if h.PeakThroughput > h.Throughput {
		s += fmt.Sprintf(" (peak %s req/s)", rampRate(h.PeakThroughput))
	}
	return s
}

func rampFitLine(f *model.ScalingFit) string {
	switch f.Model {
	case "usl":
		s := fmt.Sprintf("USL     alpha %.4g  beta %.4g  lambda %.4g", f.Alpha, f.Beta, f.Lambda)
		if f.NStar > 0 {
			s += fmt.Sprintf("  N* %.1f  peak %s/s", f.NStar, rampRate(f.Peak))
		} else {
			s += "  no peak"
		}
		return s + fmt.Sprintf("  R² %.3f", f.R2)
	default:
		s := fmt.Sprintf("Amdahl  alpha %.4g  lambda %.4g", f.Alpha, f.Lambda)
		if f.Peak > 0 {
			s += fmt.Sprintf("  ceiling %s/s", rampRate(f.Peak))
		}
		return s + fmt.Sprintf("  R² %.3f", f.R2)
	}
}

func rampResiduals(f *model.ScalingFit) string {
	var parts []string
	for _, p := range f.Points {
		parts = append(parts, fmt.Sprintf("N=%g %+.3g", p.N, p.Residual))
	}
	return strings.Join(parts, ", ")
}

func rampFits(r *model.Ramp) []*model.ScalingFit {
	var fits []*model.ScalingFit
	if r.Amdahl != nil {
		fits = append(fits, r.Amdahl)
	}
	if r.USL != nil {
		fits = append(fits, r.USL)
	}
	return fits
}

func rampText(w *rampWriter, r *model.Ramp) {
	w.printf("ramp %s\n", rampTitle(r))
	if r.SLO != nil {
		w.printf("SLO  %s\n", rampSLOText(r.SLO))
	}
	w.printf("\n")
	head, rows := rampColumns(r)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	w.printf("\n")
	rampTextWorkload(w, r)
	if s := rampHeadline(r); s != "" {
		w.printf("headline    %s\n", s)
	}
	if b := r.Bottleneck; b != nil {
		w.printf("bottleneck  %s\n", b.Summary)
		for _, e := range b.Evidence {
			w.printf("            - %s\n", e)
		}
	}
	if r.Stopped != "" {
		w.printf("stopped     %s\n", r.Stopped)
	}
	if fits := rampFits(r); len(fits) > 0 {
		w.printf("\nfits (throughput vs concurrency, least squares, alpha and beta ≥ 0)\n")
		for _, f := range fits {
			w.printf("  %s\n", rampFitLine(f))
			w.printf("          residuals: %s\n", rampResiduals(f))
			for _, warn := range f.Warnings {
				w.printf("          warning: %s\n", warn)
			}
		}
	}
	if details := rampDetails(r); len(details) > 0 {
		w.printf("\nnotes\n")
		for _, d := range details {
			w.printf("  - %s\n", d)
		}
	}
}

// rampDetails are the notes under a ramp's table: each step's errors by
// class, why it is invalid, why it missed the SLO and its notes (requests
// in flight, not sent, redirects), then the ramp's notes.
func rampDetails(r *model.Ramp) []string {
	var details []string
	for _, s := range r.Steps {
		lvl := rampLevel(r, s)
		if len(s.Errors) > 0 {
			details = append(details, fmt.Sprintf("step %d (%s): errors %s of %d completed: %s", s.Index+1, lvl, rampPct(s.ErrorRate), s.Requests, rampErrorClasses(s)))
		}
		if !s.Valid {
			details = append(details, fmt.Sprintf("step %d (%s): INVALID: %s", s.Index+1, lvl, s.Invalid))
		}
		if s.SLOMiss != "" {
			details = append(details, fmt.Sprintf("step %d (%s): SLO missed: %s", s.Index+1, lvl, s.SLOMiss))
		}
		for _, n := range s.Notes {
			details = append(details, fmt.Sprintf("step %d (%s): %s", s.Index+1, lvl, n))
		}
	}
	return append(details, r.Notes...)
}

func rampMDEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func rampMarkdown(w *rampWriter, r *model.Ramp) {
	w.printf("## rigor ramp\n\n%s\n\n", rampMDEscape(rampTitle(r)))
	if r.SLO != nil {
		w.printf("SLO: %s\n\n", rampSLOText(r.SLO))
	}
	if s := rampHeadline(r); s != "" {
		w.printf("**Headline:** %s\n\n", rampMDEscape(s))
	}
	if b := r.Bottleneck; b != nil {
		w.printf("**Bottleneck:** %s\n\n", rampMDEscape(b.Summary))
		for _, e := range b.Evidence {
			w.printf("- %s\n", rampMDEscape(e))
		}
		if len(b.Evidence) > 0 {
			w.printf("\n")
		}
	}
	if r.Stopped != "" {
		w.printf("Stopped: %s\n\n", rampMDEscape(r.Stopped))
	}
	head, rows := rampColumns(r)
	head[len(head)-1] = "valid"
	w.printf("| %s |\n", strings.Join(head, " | "))
	seps := make([]string, len(head))
	for i := range seps {
		seps[i] = "---:"
	}
	w.printf("|%s|\n", strings.Join(seps, "|"))
	for _, row := range rows {
		for i := range row {
			row[i] = rampMDEscape(row[i])
		}
		w.printf("| %s |\n", strings.Join(row, " | "))
	}
	if rampHasRequests(r) || r.Workload != nil {
		w.printf("\n")
		rampMarkdownWorkload(w, r)
	}
	if fits := rampFits(r); len(fits) > 0 {
		w.printf("\n| model | alpha | beta | lambda | N* | peak/s | R² | warnings |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
		for _, f := range fits {
			nstar := "-"
			if f.NStar > 0 {
				nstar = fmt.Sprintf("%.1f", f.NStar)
			}
			w.printf("| %s | %.4g | %.4g | %.4g | %s | %s | %.3f | %s |\n", f.Model, f.Alpha, f.Beta, f.Lambda, nstar, rampRate(f.Peak), f.R2, rampMDEscape(strings.Join(f.Warnings, "; ")))
		}
	}
	var notes []string
	for _, s := range r.Steps {
		lvl := rampLevel(r, s)
		if len(s.Errors) > 0 {
			notes = append(notes, fmt.Sprintf("step %d (%s): errors: %s", s.Index+1, lvl, rampErrorClasses(s)))
		}
		if !s.Valid {
			notes = append(notes, fmt.Sprintf("step %d (%s): invalid: %s", s.Index+1, lvl, s.Invalid))
		}
		for _, n := range s.Notes {
			notes = append(notes, fmt.Sprintf("step %d (%s): %s", s.Index+1, lvl, n))
		}
	}
	notes = append(notes, r.Notes...)
	if len(notes) > 0 {
		w.printf("\n")
		for _, n := range notes {
			w.printf("- %s\n", rampMDEscape(n))
		}
	}
}

func rampCSV(w *rampWriter, r *model.Ramp) error {
	cw := csv.NewWriter(w)
	head := []string{
		"step", "mode", "concurrency", "offered_rate", "achieved_rate", "throughput", "gain",
		"requests", "successes", "error_rate", "errors",
		"p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "mean_ns",
		"send_p50_ns", "send_p99_ns", "bytes_per_sec",
		"generator_cpu", "sched_latency_p99_ns", "machine_cpu",
		"target_cpu", "target_user_sec", "target_system_sec", "target_voluntary_ctx", "target_involuntary_ctx",
		"valid", "invalid", "slo_met", "slo_miss",
		"in_flight", "unfinished", "not_sent",
	}
	cw.Write(append(head, rampCSVExtra...))
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	d := func(v time.Duration) string { return strconv.FormatInt(int64(v), 10) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, s := range r.Steps {
		var errs []string
		for _, e := range s.Errors {
			errs = append(errs, e.Class+"="+i(e.Count))
		}
		sendP50, sendP99 := "", ""
		if s.ServiceLatency != nil {
			sendP50, sendP99 = d(s.ServiceLatency.P50), d(s.ServiceLatency.P99)
		}
		tcpu, tu, ts, tv, ti := "", "", "", "", ""
		if t := s.Target; t != nil {
			tcpu, tu, ts, tv, ti = f(t.CPU), f(t.UserSec), f(t.SystemSec), i(t.VoluntaryCtx), i(t.InvoluntaryCtx)
		}
		cw.Write(append([]string{
			i(int64(s.Index + 1)), r.Mode, i(int64(s.Concurrency)), f(s.Offered), f(s.Achieved), f(s.Throughput), f(s.Gain),
			i(s.Requests), i(s.Successes), f(s.ErrorRate), strings.Join(errs, ";"),
			d(s.Latency.P50), d(s.Latency.P90), d(s.Latency.P99), d(s.Latency.P999), d(s.Latency.Max), d(s.Latency.Mean),
			sendP50, sendP99, f(s.BytesPerSec),
			f(s.Generator.CPU), d(s.Generator.SchedLatencyP99), f(s.MachineCPU),
			tcpu, tu, ts, tv, ti,
			strconv.FormatBool(s.Valid), s.Invalid, strconv.FormatBool(s.SLOMet), s.SLOMiss,
			i(s.InFlight), i(s.Unfinished), i(s.NotSent),
		}, rampCSVStepExtra(s)...))
		for _, row := range rampCSVRequestRows(r, s, head) {
			cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}
