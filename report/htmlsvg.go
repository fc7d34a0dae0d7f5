package report

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"
)

// Hand-written SVG charts for the HTML report: one plot area with axes,
// nice ticks and labelled units, in one style (the CSS in
// templates/report.css colours the classes). Every string that reaches
// the SVG passes through esc.

// palette holds the sides' colours (Okabe and Ito's colour-blind-safe
// set), the baseline first.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

func sideColor(i int) string { return palette[i%len(palette)] }

func esc(s string) string { return template.HTMLEscapeString(s) }

// An axis maps data values to pixels.
type axis struct {
	lo, hi     float64 // data range
	plo, phi   float64 // pixel range
	log        bool
	format     func(float64) string // tick labels
	label      string
	categories []string // a category axis: one band per entry
}

func (a axis) px(v float64) float64 {
	lo, hi := a.lo, a.hi
	if a.log {
		v, lo, hi = math.Log10(v), math.Log10(lo), math.Log10(hi)
	}
	if hi == lo {
		return (a.plo + a.phi) / 2
	}
	if math.IsInf(hi-lo, 0) {
		// A range spanning most of the float64s (-1e308 to 1e308):
		// halve it rather than overflow to Inf/Inf.
		return a.plo + (v/2-lo/2)/(hi/2-lo/2)*(a.phi-a.plo)
	}
	return a.plo + (v-lo)/(hi-lo)*(a.phi-a.plo)
}

// band returns the centre pixel of category i.
func (a axis) band(i int) float64 {
	n := float64(len(a.categories))
	return a.plo + (float64(i)+0.5)*(a.phi-a.plo)/n
}

// top and bottom are the pixel rows of the plot's edges, whichever way the
// axis runs (category axes list their first row on top).
func (a axis) top() float64    { return math.Min(a.plo, a.phi) }
func (a axis) bottom() float64 { return math.Max(a.plo, a.phi) }

// bandWidth is the pixels of one category.
func (a axis) bandWidth() float64 {
	return math.Abs(a.phi-a.plo) / float64(max(len(a.categories), 1))
}

// maxTicks bounds the ticks of any axis: tick loops end on any input,
// however extreme (a range near 1.7e308, subnormal steps, a step lost in
// the precision of its start).
const maxTicks = 24

// niceTicks returns about n round tick values covering [lo, hi]: none
// when the range is not finite, lo alone when it is empty.
func niceTicks(lo, hi float64, n int) []float64 {
	n = min(max(n, 1), maxTicks/2)
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0):
		return nil
	case !(hi > lo) || math.IsInf(hi-lo, 0):
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	if !(mag > 0) || math.IsInf(mag, 0) {
		return []float64{lo} // a subnormal step
	}
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if math.IsInf(step, 0) {
		return []float64{lo} // a step past the largest float64
	}
	var t []float64
	first := math.Ceil(lo/step - 1e-9)
	for i := 0.0; len(t) < maxTicks; i++ {
		v := (first + i) * step
		if v > hi+step*1e-9 || math.IsInf(v, 0) || math.IsNaN(v) {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		// Snap to 12 significant digits: 3 × 0.2 is 0.6000000000000001
		// in binary, and a tick label must read 60%, not 60.00000000000001%.
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
		if len(t) > 0 && v <= t[len(t)-1] {
			// The step is below the precision of the values: no round
			// ticks between them.
			return []float64{lo, hi}
		}
		t = append(t, v)
	}
	return t
}

// logTicks returns the powers of ten (and 2 and 5 times them when few)
// within [lo, hi], at most maxTicks of them (every k-th power of ten when
// the range spans more decades); none unless 0 < lo <= hi.
func logTicks(lo, hi float64) []float64 {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(lo, 0) {
		return nil
	}
	hi = math.Min(hi, math.MaxFloat64)
	// Both exponents are finite (about -324 to 309), so the loops are
	// bounded.
	e0, e1 := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	var t []float64
	if e1-e0 <= 12 {
		for e := e0; e <= e1; e++ {
			for _, m := range []float64{1, 2, 5} {
				v := m * math.Pow(10, e)
				if v >= lo*(1-1e-9) && v <= hi*(1+1e-9) && v > 0 && !math.IsInf(v, 0) {
					t = append(t, v)
				}
			}
		}
		if len(t) <= 8 {
			return t
		}
		t = t[:0]
	}
	every := math.Max(1, math.Ceil((e1-e0+1)/maxTicks))
	for e := math.Ceil(e0/every) * every; e <= e1; e += every {
		v := math.Pow(10, e)
		if v >= lo*(1-1e-9) && v <= hi*(1+1e-9) && v > 0 && !math.IsInf(v, 0) {
			t = append(t, v)
		}
	}
	return t
}

// padRange widens [lo, hi] by a fraction on each side, and makes an
// empty range non-empty.
func padRange(lo, hi, frac float64) (float64, float64) {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return 0, 1
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		d := math.Abs(lo) * 0.05
		if d == 0 {
			d = 1
		}
		return clampFinite(lo - d), clampFinite(hi + d)
	}
	d := hi*frac - lo*frac // (hi-lo)*frac, without overflowing first
	return clampFinite(lo - d), clampFinite(hi + d)
}

// clampFinite keeps v within the finite float64s: an axis end widened
// past 1.8e308 stays at the largest finite value.
func clampFinite(v float64) float64 {
	return math.Max(-math.MaxFloat64, math.Min(v, math.MaxFloat64))
}

// logRange widens [lo, hi] by factor for a log axis, within the finite
// float64s.
func logRange(lo, hi, factor float64) (float64, float64) {
	return lo / factor, clampFinite(hi * factor)
}

// unitFormatter formats tick values of unit with one prefix for all of
// them ("15.0µs").
func unitFormatter(unit string, ticks []float64) func(float64) string {
	sc := benchunit.CommonScale(ticks, benchunit.ClassOf(unit))
	suffix := unitSuffix(unit)
	// Ticks are round numbers: drop the scaler's trailing zeros.
	return func(v float64) string {
		s := strconv.FormatFloat(v/sc.Factor, 'f', -1, 64)
		if len(s) > 8 {
			s = strconv.FormatFloat(v/sc.Factor, 'g', 4, 64)
		}
		return s + sc.Prefix + suffix
	}
}

func percentFormatter(v float64) string {
	s := strconv.FormatFloat(v*100, 'f', -1, 64)
	if len(s) > 6 {
		s = strconv.FormatFloat(v*100, 'g', 3, 64)
	}
	if v > 0 {
		s = "+" + s
	}
	return s + "%"
}

// shareFormatter formats a fraction as an unsigned percentage.
func shareFormatter(v float64) string { return strconv.FormatFloat(v*100, 'f', -1, 64) + "%" }

func plainFormatter(v float64) string {
	if math.Abs(v) >= 10000 {
		return benchunit.Scale(v, benchunit.Decimal)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// A chart is one SVG plot being drawn.
type chart struct {
	w, h  float64
	x, y  axis
	title string
	b     strings.Builder
}

// Margins around the plot area.
const (
	marginLeft   float64 = 64
	marginRight  float64 = 16
	marginTop    float64 = 44
	marginBottom float64 = 40
)

func newChart(w, h float64, title string) *chart {
	return &chart{w: w, h: h, title: title,
		x: axis{plo: marginLeft, phi: w - marginRight},
		y: axis{plo: h - marginBottom, phi: marginTop}}
}

func (c *chart) f(format string, args ...any) { fmt.Fprintf(&c.b, format, args...) }

// frame draws the title, grid lines, ticks and axis labels.
func (c *chart) frame() {
	c.f(`<text class="title" x="%g" y="16">%s</text>`, marginLeft, esc(c.title))
	c.f(`<rect class="plot" x="%g" y="%g" width="%g" height="%g"/>`, c.x.plo, c.y.top(), c.x.phi-c.x.plo, c.y.bottom()-c.y.top())
	c.xTicks()
	c.yTicks()
	if c.x.label != "" {
		c.f(`<text class="axis-label" x="%g" y="%g" text-anchor="middle">%s</text>`, (c.x.plo+c.x.phi)/2, c.h-6, esc(c.x.label))
	}
	if c.y.label != "" {
		c.f(`<text class="axis-label" transform="translate(12 %g) rotate(-90)" text-anchor="middle">%s</text>`, (c.y.plo+c.y.phi)/2, esc(c.y.label))
	}
}

func (c *chart) ticks(a axis) []float64 {
	if a.log {
		return logTicks(a.lo, a.hi)
	}
	return niceTicks(a.lo, a.hi, 5)
}

func (c *chart) xTicks() {
	if c.x.categories != nil {
		// Shortened, but never so far that two read the same.
		cats, _ := fitNames(c.x.categories, nil, 18)
		for i, cat := range cats {
			c.f(`<text class="tick" x="%.1f" y="%g" text-anchor="middle">%s</text>`, c.x.band(i), c.y.bottom()+16, esc(cat))
		}
		return
	}
	for _, v := range c.ticks(c.x) {
		px := c.x.px(v)
		c.f(`<line class="grid" x1="%.1f" x2="%.1f" y1="%g" y2="%g"/>`, px, px, c.y.top(), c.y.bottom())
		c.f(`<text class="tick" x="%.1f" y="%g" text-anchor="middle">%s</text>`, px, c.y.bottom()+16, esc(c.x.format(v)))
	}
}

func (c *chart) yTicks() {
	if c.y.categories != nil {
		cats, _ := fitNames(c.y.categories, nil, 28)
		for i, cat := range cats {
			c.f(`<text class="tick" x="%g" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`, c.x.plo-6, c.y.band(i), esc(cat))
		}
		return
	}
	for _, v := range c.ticks(c.y) {
		py := c.y.px(v)
		c.f(`<line class="grid" x1="%g" x2="%g" y1="%.1f" y2="%.1f"/>`, c.x.plo, c.x.phi, py, py)
		c.f(`<text class="tick" x="%g" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`, c.x.plo-6, py, esc(c.y.format(v)))
	}
}

// polyline draws points (in data space) joined by a line.
func (c *chart) polyline(xs, ys []float64, class, color string) {
	var pts []string
	for i := range xs {
		if math.IsNaN(xs[i]) || math.IsNaN(ys[i]) {
			continue
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", c.x.px(xs[i]), c.y.px(ys[i])))
	}
	if len(pts) < 2 {
		return
	}
	c.f(`<polyline class="%s" stroke="%s" points="%s"/>`, class, color, strings.Join(pts, " "))
}

func (c *chart) dot(x, y, r float64, color, tip string) {
	if math.IsNaN(x) || math.IsNaN(y) {
		return
	}
	c.f(`<circle class="dot" cx="%.1f" cy="%.1f" r="%g" fill="%s"><title>%s</title></circle>`, c.x.px(x), c.y.px(y), r, color, esc(tip))
}

// legend draws coloured labels in a row under the title.
func (c *chart) legend(labels []string, colors []string) {
	x := marginLeft
	for i, l := range labels {
		l = truncate(l, 24)
		c.f(`<rect x="%.1f" y="24" width="10" height="10" fill="%s"/><text class="legend" x="%.1f" y="33">%s</text>`, x, colors[i], x+14, esc(l))
		x += float64(width(l))*6.5 + 30
	}
}

// svg returns the finished chart. Its text was escaped as it was drawn.
func (c *chart) svg() template.HTML {
	return template.HTML(fmt.Sprintf(`<svg class="chart" viewBox="0 0 %g %g" role="img" aria-label="%s">%s</svg>`,
		c.w, c.h, esc(c.title), c.b.String())) //nolint:gosec // every string inside went through esc
}
