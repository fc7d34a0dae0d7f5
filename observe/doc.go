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
//     far above what the measured processes moved to and from storage
//     (the page cache), a result that was
//     likely optimized away (which ConfirmElision checks in the
//     disassembly).
//   - Check inspects the machine before a run, as rigor doctor does.
//
// Annotate and the other classifiers are pure functions of recorded data,
// so a Run read back from JSON yields the same notes.
//
// Package observe depends on model and stats (and internal/words for its
// wording), never on analysis or report.
//
// Package map:
//
//   - env.go: CaptureEnv; membw.go: the memory bandwidth probe; perf.go:
//     whether perf counters can be read, and perf stat's output;
//   - observer.go: the Observer and its intervals; sample_*.go: reading
//     the system's counters; snapshot.go: the system's stats over an
//     interval, from the readings around it; process_*.go: a measured
//     process's resource usage; storageio.go: the storage I/O of this
//     process and the children it reaped (/proc/self/io); runtime.go: the
//     Go runtime's metrics in process; profile.go, mutex.go: summaries of CPU and mutex profiles;
//   - annotate.go: Annotate, which writes the notes below onto a Run;
//     aggregate.go: observations summed and weighted by duration, what
//     every classifier reads; thresholds.go: the classifiers' thresholds,
//     each with its measurement;
//   - bottleneck.go: what limited a process (Diagnosis); interference.go:
//     what else used the machine; sanity.go: throughput above memory
//     bandwidth, the NIC or the disks (the page cache); elision.go: a
//     result likely optimized away; disasm.go: the disassembly's verdict;
//   - format.go: numbers and byte counts in notes;
//   - doctor.go: Check, the machine's readiness before a run.
package observe
