//go:build !linux

package observe

import (
	"errors"
	"time"
)

// On systems other than Linux the observer records no system statistics;
// process statistics and runtime metrics still work.
type reader struct{}

func newReader() (*reader, error) {
	return nil, errors.New("observe: system sampling is implemented for Linux only")
}

func (r *reader) read() (snapshot, error) {
	return snapshot{}, errors.New("observe: system sampling is implemented for Linux only")
}

func threadCPU() time.Duration { return 0 }

type procTime struct {
	cpu  float64
	name string
}

func processTimes() map[int]procTime { return nil }
