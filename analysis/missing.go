package analysis

import (
	"strings"

	"github.com/rigorbench/rigor/model"
)

// missing returns b's record of missing sides, with MissingAbsent added
// for every other side that has no sample while some side has one.
func missing(b *model.Benchmark, sides []string) map[string]model.Missing {
	has := make(map[string]bool, len(sides))
	for _, m := range b.Metrics {
		for _, smp := range m.Samples {
			has[smp.Side] = true
		}
	}
	var out map[string]model.Missing
	for _, s := range sides {
		m, ok := b.Missing[s]
		if !ok && (has[s] || len(has) == 0) {
			continue
		}
		if !ok {
			m = model.Missing{Kind: model.MissingAbsent}
		}
		if out == nil {
			out = make(map[string]model.Missing)
		}
		out[s] = m
	}
	return out
}

// Words says in one line of plain words what happened on the side:
// "failed on new: panicked (exit status 2) in round 3", "missing on new".
func (m Missing) Words() string {
	reason, _, _ := strings.Cut(m.Reason, "\n")
	var s string
	switch m.Kind {
	case model.MissingBuild:
		s = "did not build on " + m.Side
	case model.MissingFailed:
		s = "failed on " + m.Side
	default:
		s = "missing on " + m.Side
	}
	if reason = strings.TrimSpace(reason); reason != "" {
		s += ": " + reason
	}
	return s
}
