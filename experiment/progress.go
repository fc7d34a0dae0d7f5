package experiment

import "time"

// Progress says what a sampler's run is doing, for a progress bar.
// Samplers name their own phases ("calibrating", "measuring", ...).
type Progress struct {
	Phase string
	// Round is the current round, from 1, while measuring.
	Round int
	// Start is when the budget started; Budget is the time budget.
	Start  time.Time
	Budget time.Duration
	// Step of Steps is the position within the phase or the round.
	Step, Steps int
	// Unresolved are the benchmarks still unresolved after the last
	// look of the stopping rule; nil before the first.
	Unresolved []string
	// Current is what runs now: "new Build/size=1".
	Current string
}
