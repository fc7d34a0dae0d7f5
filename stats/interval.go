package stats

// Interval is a point estimate with a confidence interval. Confidence is
// the level the interval achieves (for order-statistic intervals it can be
// above the level asked for).
type Interval struct{ Estimate, Lo, Hi, Confidence float64 }
