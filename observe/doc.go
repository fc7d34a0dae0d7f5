// Package observe watches the machine while benchmarks run, so that every
// result says what was actually measured (active benchmarking, as in
// Systems Performance, chapter 12).
//
// It does four things:
//
//   - CaptureEnv records the machine and toolchain: CPU, cores, kernel,
//     frequency governor, turbo, ASLR, virtualization, memory, and the
//     physical limits (memory bandwidth, NIC speed) used by sanity checks.
//   - An Observer samples the system at a modest rate while a run measures
//     and aggregates what it saw over each interval the caller marks (one
//     benchmark, side and round). ProcessStats, ReadCPUProfile and
//     RuntimeSampler describe the measured processes themselves.
//   - Annotate turns recorded observations into plain-words notes: the
//     bottleneck (user CPU, kernel, lock contention, GC, waiting on I/O,
//     memory), interference from other processes, steal or frequency
//     changes, a throughput above a physical limit, a file I/O throughput
//     far above what the disks moved (the page cache), a result that was
//     likely optimized away (which ConfirmElision checks in the
//     disassembly).
//   - Check inspects the machine before a run, as rigor doctor does.
//
// Annotate and the other classifiers are pure functions of recorded data,
// so a Run read back from JSON yields the same notes.
//
// Package observe depends on model and stats (and internal/words for its
// wording), never on analysis or report.
package observe
