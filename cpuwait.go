package rigor

// workingWait is the run-queue delay, in seconds, between two readings of
// the process's threads (thread id -> CPU time and run-queue delay, ns) of
// the threads that did at least a tenth of the process's CPU work in
// between (however little of the interval that was, on a starved
// machine): the threads that did the work. A thread missing from before
// started in between, from zero. span is the time between the readings,
// ns: the kernel adds a wait to a thread's delay when the thread gets a
// CPU again, so a thread queued since before the first reading that ran
// in between (or a new one, since it began) may show a longer wait than
// that; no thread waited in between longer than span, so each one's wait
// is taken at most span. Summed, the waits may exceed span when the work
// ran on several threads, or moved from one to another.
func workingWait(before, after map[string][2]int64, span int64) float64 {
	var total, wait int64
	delta := func(tid string, v [2]int64) (int64, int64) {
		v0 := before[tid]
		return v[0] - v0[0], v[1] - v0[1]
	}
	for tid, v := range after {
		if exec, _ := delta(tid, v); exec > 0 {
			total += exec
		}
	}
	for tid, v := range after {
		if exec, waited := delta(tid, v); exec > 0 && waited >= 0 && 10*exec >= total {
			wait += min(waited, max(span, 0))
		}
	}
	return float64(wait) / 1e9
}
