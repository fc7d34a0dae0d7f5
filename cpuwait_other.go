//go:build !linux

package rigor

// waitReader reads nothing where there is no schedstat.
type waitReader struct{}

func startWaits() *waitReader { return nil }

func (w *waitReader) stop() float64 { return -1 }
