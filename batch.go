package rigor

// BatchSize says how IterWithSetup splits a sample's iterations into
// batches. Before each batch it calls setup once per iteration of the
// batch, untimed; then it times routine over the whole batch; the outputs
// are released after the timed window. Larger batches read the clock less
// often; smaller ones hold fewer inputs in memory at once.
type BatchSize int

// Batch sizes, as Criterion.rs's.
const (
	// SmallInput splits each sample into 10 batches (each holds a tenth
	// of the sample's inputs). The default.
	SmallInput BatchSize = -10
	// LargeInput splits each sample into 1000 batches, for inputs too big
	// to hold a tenth of a sample's worth.
	LargeInput BatchSize = -1000
	// PerIteration times each iteration alone: the clock is read twice per
	// iteration, so use it only for routines much slower than the timer
	// resolution.
	PerIteration BatchSize = 1
)

// NumBatches splits each sample into k batches.
func NumBatches(k int) BatchSize { return BatchSize(-max(k, 1)) }

// NumIterations makes each batch k iterations long.
func NumIterations(k int) BatchSize { return BatchSize(max(k, 1)) }

// perBatch returns the number of iterations per batch for a sample of n.
func (s BatchSize) perBatch(n int) int {
	switch {
	case s > 0:
		return min(int(s), max(n, 1))
	case s < 0:
		k := int(-s)
		return max((n+k-1)/k, 1)
	}
	return SmallInput.perBatch(n)
}

// SetBatchSize sets the batch size of IterWithSetup for this sample. Call
// it before IterWithSetup; the default is SmallInput. Allocation rounds,
// whose counts do not depend on it, use batches of up to 1000 inputs.
func (b *B) SetBatchSize(s BatchSize) {
	if !b.counting {
		b.batch = s
	}
}
