package observe

// Thresholds of the classifiers. They are deliberately coarse: a note is
// worth printing only when the evidence is plain.
const (
	// lockProfileShare: CPU samples in sync's mutex slow paths (code
	// without contention has next to none).
	lockProfileShare = 0.05
	// lockMutexWait: goroutines blocked on a mutex at once, on average,
	// per P.
	lockMutexWait = 0.10
	// lockSwitches: voluntary context switches per CPU-second of the
	// process, with lockSystemShare of its CPU in the kernel: threads
	// sleeping on a futex and being woken, as pthreads do (seed 001's
	// ramp.c shows ~13000/s per thread and 84% system time).
	lockSwitches    = 5000
	lockSystemShare = 0.5
	// kernelRatio: system time this many times user time.
	kernelRatio = 1.5
	// ioWait and ioPressure: CPU time waiting on I/O, stall percentage.
	ioWait     = 0.10
	ioPressure = 10.0
	// memPressure: memory stall percentage; memRSS: peak RSS over total.
	memPressure = 10.0
	memRSS      = 0.8
	// userShare: user time's share of the process's CPU for "CPU in user
	// code"; idleCPUs: below this many CPUs busy, the process waited.
	userShare = 0.8
	idleCPUs  = 0.5
	// starvedPreempt: involuntary context switches per second that, with
	// no idle CPU, mean the process was runnable but kept off the CPU;
	// starvedCPUs: less than this many CPUs busy (a benchmark process
	// keeps at least one busy when it gets it).
	starvedPreempt = 10
	starvedCPUs    = 0.8
	// otherBusy: CPU used by other processes; steal; cpuPressure.
	otherBusy   = 0.15
	stealShare  = 0.02
	cpuPressure = 20.0
	// freqChange: frequency range over its minimum.
	freqChange = 0.10
	// bandwidthMargin: a throughput this much above memory bandwidth.
	bandwidthMargin = 1.1
	// minProfileSamples: a CPU profile's shares are read only from this
	// many samples on (5% is then one sample in twenty).
	minProfileSamples = 20

	// The I/O checks below should move to package analysis when notes
	// become typed data. Their numbers come from `rigor run --time 5s
	// --profile auto` on the development machine (2-CPU KVM guest, ext4
	// on a virtio disk) of a benchmark writing 1 MiB blocks with
	// SetBytes, once without fsync ("nosync") and once with f.Sync()
	// after each write ("fsync"); see testdata/README.md.

	// fileIOShare: at least this share of a CPU profile's samples in file
	// reads, writes and syncs makes file I/O the benchmark's work, so its
	// B/s is a storage number. Measured: nosync 96%, fsync 93%; the
	// lockbound and benchlab fixtures 0%. Half is "most of its CPU": a
	// benchmark that reads a file and then parses it for longer is a
	// parsing benchmark.
	fileIOShare = 0.5
	// pageCacheRatio: the bytes a benchmark's timed loops claim to have
	// moved (iterations x sec/op x B/s) over the bytes the block devices
	// read and wrote during the same runs. A device that does the work
	// moves at least what was claimed: fsync measured 0.98 (the process
	// start-up and the b.N=1 run around the timed loop are in the runs
	// too, the journal adds a little). nosync measured 2265: the data
	// stayed in memory. 4 leaves room for a filesystem that compresses
	// and for writeback that lands after a run ends, and is still
	// hundreds of times below what the page cache gives. What went to
	// storage is the measured processes' own (Observation.StorageIO), so
	// a neighbour's disk traffic does not hide the note; in runs without
	// it, the disk counters are machine-wide and a neighbour's I/O can
	// only hide the note, never raise it.
	pageCacheRatio = 4.0
	// fileIOWaitShare: a process that mostly slept while the CPUs waited
	// on I/O is named as waiting on I/O unless its CPU profile (with
	// minProfileSamples) puts less than this share in file I/O: a
	// process that sleeps on a lock while a neighbour writes has none
	// (lockbound: 0%), one that waits on the disk spends its CPU issuing
	// and copying the requests (fsync: 93%). A tenth leaves room for a
	// benchmark that waits on reads and then computes.
	fileIOWaitShare = 0.10
	// fewProfileSamples: a profile this small still ties a sleeping
	// process to file I/O (a process blocked in fsync leaves few: the
	// fsync benchmark left 13 in a 0.79 s profiling run on a busy
	// machine, 10 of them in file I/O); it takes minProfileSamples to
	// rule I/O out.
	fewProfileSamples = 5
	// diskBusyBps: block devices moving this much say I/O is happening
	// even when iowait cannot show it (no idle CPU to count it on).
	// Measured: about 1 MB/s of background writes during the nosync runs
	// (which touch no disk), 123 and 269 MB/s during the fsync runs.
	diskBusyBps = 10e6
)

// GCShare is the share of a process's CPU time spent in garbage
// collection from which GC is named what limited it (here) and a
// variant's times are said to include GC work (package harness). Measured
// with runtime/metrics at GOMAXPROCS=2 on the development machine, over
// 2 s of each workload: allocation-heavy loops with a small live heap
// (strconv.Itoa, fmt.Sprintf, json.Marshal, sorting a copy, building a
// 1000-entry map or a 1000-node list) spent 1.6-7.6% in GC; the list with
// 4 MiB of live pointers besides 16%, with 16 MiB 31-32%, with 64 MiB
// 38-44%. A fifth is above everything that merely allocates, and is only
// reached when the collector runs most of the time.
const GCShare = 0.20
