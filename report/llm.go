package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/rigorbench/rigor/analysis"
)

// renderLLM writes key=value lines for tools that read text: one "run"
// line, then per benchmark a "benchmark" line with its one verdict per
// side (and the metric it is taken from) and one line per metric with
// every side's summary and every comparison, then one line per note. Keys of a side are
// prefixed with its label ("new.median"); values holding spaces, quotes
// or '=' are Go-quoted. Missing numbers are "nan".
func renderLLM(w io.Writer, rep *analysis.Report, _ Options) error {
	ew := &errWriter{w: w}
	keys := sideKeys(rep.Sides)
	o := rep.Options
	baseline := ""
	if len(rep.Sides) > 0 {
		baseline = rep.Sides[0]
	}
	kv(ew, "record", "run", "kind", rep.Kind, "paired", strconv.FormatBool(rep.Paired),
		"sides", strings.Join(rep.Sides, ","), "baseline", baseline,
		"confidence", llmNum(o.Confidence), "alpha", llmNum(o.Alpha), "noise", llmNum(o.Noise),
		"correction", o.Correction, "comparisons", strconv.Itoa(rep.Comparisons))
	for _, b := range rep.Benchmarks {
		if len(b.Decisions) > 0 {
			// The benchmark's one verdict per side, and the metric it is
			// taken from.
			f := []string{"record", "benchmark", "benchmark", b.FullName}
			if b.Pkg != "" {
				f = append(f, "pkg", b.Pkg)
			}
			for k, d := range b.Decisions {
				key := keys[k+1] + "."
				f = append(f, key+"verdict", string(d.Verdict), key+"decided_by", d.Unit)
				if d.Change != nil {
					f = append(f, key+"change", llmNum(d.Change.Estimate), key+"change_lo", llmNum(d.Change.Lo), key+"change_hi", llmNum(d.Change.Hi))
				}
				if d.Missing != nil && d.Change == nil {
					f = append(f, key+"missing", d.Missing.Kind)
				}
			}
			kv(ew, f...)
		}
		for _, m := range b.Metrics {
			f := []string{"record", "metric", "benchmark", b.FullName}
			if b.Pkg != "" {
				f = append(f, "pkg", b.Pkg)
			}
			f = append(f, "unit", m.Unit, "better", better(m.Better), "exact", strconv.FormatBool(m.Exact))
			for i, s := range m.Sides {
				k := keys[i] + "."
				f = append(f, k+"n", strconv.Itoa(s.N))
				if s.N == 0 {
					continue
				}
				f = append(f, k+"median", llmNum(s.Center), k+"ci_lo", llmNum(s.Lo), k+"ci_hi", llmNum(s.Hi),
					k+"mean", llmNum(s.Mean), k+"cv", llmNum(s.CV), k+"min", llmNum(s.Min), k+"max", llmNum(s.Max))
				if s.Slope != nil {
					f = append(f, k+"slope", llmNum(s.Slope.Estimate), k+"slope_lo", llmNum(s.Slope.Lo), k+"slope_hi", llmNum(s.Slope.Hi))
				}
			}
			for i, c := range m.Changes {
				if c == nil {
					continue
				}
				k := keys[i+1] + "."
				f = append(f, k+"change", llmNum(c.Estimate), k+"change_lo", llmNum(c.Lo), k+"change_hi", llmNum(c.Hi),
					k+"p", llmNum(c.PAdjusted), k+"test", c.Test, k+"verdict", string(c.Verdict), k+"reason", c.Reason)
			}
			kv(ew, f...)
		}
		for _, n := range b.Notes {
			kv(ew, "record", "note", "kind", string(n.Kind), "benchmark", b.FullName, "text", n.Text)
		}
		for _, m := range b.Metrics {
			for _, n := range m.Notes {
				kv(ew, "record", "note", "kind", string(n.Kind), "benchmark", b.FullName, "unit", m.Unit, "text", n.Text)
			}
		}
	}
	for _, g := range rep.Geomeans {
		f := []string{"record", "geomean", "unit", g.Unit, "n", strconv.Itoa(g.N)}
		for i, c := range g.Centers {
			f = append(f, keys[i]+".geomean", llmNum(c))
		}
		for i := range g.Changes {
			c := g.Change(i)
			f = append(f, keys[i+1]+".change", llmNum(c))
		}
		kv(ew, f...)
	}
	for _, n := range rep.Notes {
		kv(ew, "record", "note", "kind", string(n.Kind), "text", n.Text)
	}
	return ew.err
}

// kv writes one line of key=value pairs.
func kv(w io.Writer, pairs ...string) {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(pairs[i])
		b.WriteByte('=')
		b.WriteString(llmValue(pairs[i+1]))
	}
	fmt.Fprintln(w, b.String())
}

// llmValue quotes a value that would not read back as one token.
func llmValue(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool {
		return r <= ' ' || r == '"' || r == '=' || r == '\\' || r == 0x7f || !strconv.IsPrint(r)
	}) {
		return strconv.Quote(s)
	}
	return s
}

func llmNum(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

// sideKeys turns side labels into key prefixes: ASCII letters, digits,
// '_' and '-' are kept, anything else becomes '_'; a label that collides
// after that is replaced by "side" and its index.
func sideKeys(sides []string) []string {
	keys := make([]string, len(sides))
	seen := map[string]bool{}
	for i, s := range sides {
		k := strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				return r
			}
			return '_'
		}, s)
		if k == "" || seen[k] || k == "record" {
			k = "side" + strconv.Itoa(i)
		}
		for seen[k] {
			k += "_"
		}
		seen[k] = true
		keys[i] = k
	}
	return keys
}
