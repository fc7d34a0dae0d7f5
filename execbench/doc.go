// Package execbench measures whole commands (a CLI's start-up, a build, a
// compression of a real file) on rigor's experiment engine: what hyperfine
// does, with the runs interleaved and paired. Each command is a side, the
// first the reference; each combination of parameter values (hyperfine's
// -P and -L scans) is a benchmark. A round runs every benchmark once on
// every command, in counterbalanced order (two commands alternate as
// Thue-Morse or ABBA says, more rotate), so round i of each command ran
// under the same conditions and the comparison is paired. Rounds go on
// until the stopping rule of package experiment resolves every
// comparison, the time budget is spent, or the maximum is reached.
//
// A sample is one run: wall time from just before the process starts to
// just after it is reaped, user plus system CPU time and peak RSS from
// wait4's rusage (units sec/op, cpu-sec/op and max-rss-B, one "op" being
// one run), and its exit status. Analysis picks the verdict's clock as for
// go test binaries: wall time, or CPU time when the machine was busy and
// the command is CPU-bound. Commands run directly, split into words as a
// shell would; with a shell, its start-up, timed with an empty command, is
// subtracted from every sample, as hyperfine does, and a note says so.
//
// Package map:
//
//   - config.go: Config, the commands and their defaults and checks;
//   - words.go: splitting a command line into words without a shell, and
//     refusing what only a shell understands;
//   - params.go: parameter scans and lists, and their combinations;
//   - proc.go (proc_unix.go, proc_other.go): one run of a process, its
//     input and output, time-out and resource usage;
//   - session.go: Run: planning, the results directory, setup, warm-up
//     (which probes every command) and the shell's start-up;
//   - rounds.go: the sampler the engine's round loop drives, recording,
//     and the run's notes;
//   - export.go: the run in hyperfine's --export-json shape.
package execbench
