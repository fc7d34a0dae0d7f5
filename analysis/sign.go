package analysis

import "math"

// DisagreesWithMedians reports whether Changes[i] points the other way
// from the medians it is shown beside: its estimate and the difference of
// Sides[i+1]'s median from the baseline's have opposite signs. Only a
// paired change can: it is the center of the per-round ratios, and the
// rounds' conditions can vary more than the change (the ratio of medians
// of an unpaired change always agrees with them). A view must say why
// when this is true.
func (m *Metric) DisagreesWithMedians(i int) bool {
	if i < 0 || i >= len(m.Changes) || i+1 >= len(m.Sides) {
		return false
	}
	c := m.Changes[i]
	base, other := m.Sides[0], m.Sides[i+1]
	if c == nil || base.N == 0 || other.N == 0 || math.IsNaN(c.Estimate) {
		return false
	}
	d := other.Center - base.Center
	return c.Estimate > 0 && d < 0 || c.Estimate < 0 && d > 0
}
