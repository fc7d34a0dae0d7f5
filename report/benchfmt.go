package report

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"unicode"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// renderBenchfmt writes the run's raw samples in the Go benchmark format,
// one section per side. Each section starts with a comment naming the
// side and where it came from, and every result carries a "side"
// configuration key, so that benchstat compares the sides of one file
// with "benchstat -col side FILE" (or reads each section as its own
// file). Configuration keys the format cannot carry (they contain ':' or
// upper-case letters, as the harness's per-variant keys do) are left
// out.
func renderBenchfmt(w io.Writer, rep *analysis.Report, _ Options) error {
	run := rep.Run
	if run == nil {
		return errors.New("benchfmt: the report carries no raw samples")
	}
	ew := &errWriter{w: w}
	for i, side := range run.Sides {
		if i > 0 {
			fmt.Fprintln(ew)
		}
		label := oneLine(side.Label)
		fmt.Fprintf(ew, "# side: %s", label)
		if side.Source != "" && side.Source != side.Label {
			fmt.Fprintf(ew, " (%s", oneLine(side.Source))
			if side.Rev != "" {
				fmt.Fprintf(ew, " at %s", side.Rev)
			}
			if side.Dirty {
				fmt.Fprint(ew, ", with uncommitted changes")
			}
			fmt.Fprint(ew, ")")
		}
		fmt.Fprintln(ew)
		if ew.err != nil {
			return ew.err
		}
		if err := model.WriteBenchfmt(ew, sideRun(run, label), side.Label); err != nil {
			return err
		}
	}
	return ew.err
}

// sideRun returns a shallow copy of run whose benchmarks carry a "side"
// configuration key and only the keys Go benchmark format can carry.
func sideRun(run *model.Run, label string) *model.Run {
	cp := *run
	cp.Benchmarks = make([]model.Benchmark, len(run.Benchmarks))
	for i, b := range run.Benchmarks {
		b.Config = maps.Clone(b.Config)
		if b.Config == nil {
			b.Config = map[string]string{}
		}
		maps.DeleteFunc(b.Config, func(k, v string) bool { return !configKeyOK(k) || !configValueOK(v) })
		if configValueOK(label) {
			b.Config["side"] = label
		}
		cp.Benchmarks[i] = b
	}
	return &cp
}

// configKeyOK reports whether k can be a configuration key: it starts
// with a lower-case letter and holds no space, upper-case letter or ':'.
func configKeyOK(k string) bool {
	for i, r := range k {
		if (i == 0 && !unicode.IsLower(r)) || unicode.IsSpace(r) || unicode.IsUpper(r) || r == ':' {
			return false
		}
	}
	return k != ""
}

// configValueOK reports whether v reads back as the same value.
func configValueOK(v string) bool {
	return v != "" && v[0] != ' ' && v[0] != '\t' && !strings.ContainsAny(v, "\r\n")
}

func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }
