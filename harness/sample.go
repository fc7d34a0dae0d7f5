package harness

// sample runs one sample of c with n iterations (per goroutine), with the
// loop overhead first measured for its shape subtracted.
func (r *runner) sample(c cell, n int, counting bool) (result, error) {
	x, err := r.s.Sample(c.index, n, counting)
	res := result{Sample: x}
	if err != nil {
		return res, err
	}
	ov := 0.0
	if x.Loop > 0 {
		ov = r.s.FirstLoopOverhead(x.Loop)
	}
	r.subtract(&res, ov)
	return res, nil
}

// subtract sets res.net: the timed time less the loop overhead, perOp
// seconds per iteration, and one clock reading per timed window. A
// parallel sample's goroutines loop side by side, so their wall time holds
// one goroutine's loop overhead, not the sum.
func (r *runner) subtract(res *result, perOp float64) {
	res.net, res.clamped, res.ovPerOp, res.cpuNet = res.Timed, false, 0, res.CPU
	if r.cfg.KeepLoopOverhead || res.Custom {
		return
	}
	res.ovPerOp = perOp
	res.net -= perOp*float64(res.Iters) + float64(res.Windows)*r.clock.Window.Seconds()
	if res.net < 0 {
		res.net, res.clamped = 0, true
	}
	// The empty loop burns CPU as it takes time; the clock readings
	// are outside the CPU readings.
	res.cpuNet = max(res.CPU-perOp*float64(res.Iters)*float64(res.Goroutines), 0)
}
