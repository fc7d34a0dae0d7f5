package model

// Units of the work a benchmark's code did per operation, as a go test
// result line prints them: the instructions it retired and the CPU cycles
// they took. Neither is a time; instructions/op is nearly a property of
// the code and the toolchain, which no neighbour on the machine moves.
const (
	InstructionsUnit = "instructions/op"
	CyclesUnit       = "cycles/op"
)

// InstructionsTolerance is the default tolerance of a change of
// instructions per operation, a fraction: a change whose interval lies
// wholly inside ±0.5% is no change, one wholly beyond it is one (package
// analysis's verdicts; package history's change points on such a series).
// Under Valgrind a count repeats to a few parts in 10,000 from process
// to process; the tolerance covers what repeats of one build cannot see:
// two builds of the same code laying out their heaps differently, which
// moves the garbage collector's pacing.
const InstructionsTolerance = 0.005

// How a side's instructions per operation were read (Side.Instructions).
const (
	// InstructionsCounters: from the CPU's hardware counters, inside the
	// benchmark timer's window of every timed sample.
	InstructionsCounters = "counters"
	// InstructionsSimulated: counted by a simulated CPU (Valgrind's
	// callgrind) in untimed runs after the rounds; the samples are not
	// paired with the rounds (their Round is 0).
	InstructionsSimulated = "simulated"
)

// NoteInstructions is the kind of the notes about instructions per
// operation: how they were read, why none were, why a benchmark has none
// (RunParallel, a timer stopped inside the loop, a count that varied).
const NoteInstructions NoteKind = "instructions"
