package model

// Ramp is the result of a ramped-load run (rigor ramp, or package load):
// its steps and the scalability models fitted to them. Package load owns
// its contents.
type Ramp struct {
	Target string     `json:"target"`
	Mode   string     `json:"mode"` // "closed" (concurrency steps) or "open" (rate steps)
	Steps  []RampStep `json:"steps"`
}

// A RampStep is one level of load.
type RampStep struct {
	Concurrency int     `json:"concurrency,omitempty"`
	Rate        float64 `json:"rate,omitempty"` // offered requests/s, open loop
}
