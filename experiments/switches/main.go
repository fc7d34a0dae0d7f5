// Command switches measures how a benchmark's threads spend its timed
// window, to find evidence, read from the rounds themselves, that a
// benchmark never waits on locks, I/O, sleeps or other goroutines (issue
// 39): for each workload it runs a Go benchmark (testing.Benchmark) and
// reads, at the start and the end of the benchmark function's last run
// (the window the timer overlay reads), every thread's schedstat (time on
// a CPU, time runnable but waiting for one, times scheduled in) and status
// (voluntary and involuntary context switches). It prints, per workload
// and GOMAXPROCS, the medians over -n runs of:
//
//	cpu/wall  the process's CPU time (threads at the start) over the window
//	work      the working threads: at least a tenth of the CPU time, sysmon
//	          left out (as the overlay's wait metric does)
//	vol/ms    voluntary switches of the working threads per ms of their CPU time
//	vol/op    the same per operation
//	inv/ms    involuntary switches of the working threads per ms of their CPU
//	pcnt/ms   schedstat's third field (times scheduled in) per ms of their CPU
//	blocked   the working threads' time neither running nor runnable
//	          (window less CPU less wait), summed, over their CPU time
//	waitsh    their wait for a CPU over their CPU time plus wait
//	sysmon/s  sysmon's voluntary switches per second of window
//	all/ms    voluntary switches of every thread but sysmon per ms of CPU
//	bvol/ms   voluntary switches of the busiest thread per ms of its CPU
//	cpu/run   CPU time (sysmon's left out) over the window less the share
//	          of it the working threads waited for a CPU, as
//	          analysis.chooseClock reads it (BasisNotWaiting)
//
// Run it quiet and beside a neighbour (experiments/busy/neighbour):
//
//	go run ./experiments/switches -n 5
//	go run ./experiments/busy/neighbour -max-threads 2 & go run ./experiments/switches -n 5
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rigorbench/rigor/examples/lockbound"
)

// thread is one thread's figures at one moment.
type thread struct {
	exec, wait, pcount int64 // schedstat, ns and count
	vol, inv           int64 // status
}

// snapshot reads every thread of the process.
func snapshot() map[int]thread {
	tasks, _ := os.ReadDir("/proc/self/task")
	m := make(map[int]thread, len(tasks))
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		dir := filepath.Join("/proc/self/task", t.Name())
		ss, err1 := os.ReadFile(filepath.Join(dir, "schedstat"))
		st, err2 := os.ReadFile(filepath.Join(dir, "status"))
		if err1 != nil || err2 != nil {
			continue
		}
		var th thread
		f := strings.Fields(string(ss))
		if len(f) < 3 {
			continue
		}
		th.exec, _ = strconv.ParseInt(f[0], 10, 64)
		th.wait, _ = strconv.ParseInt(f[1], 10, 64)
		th.pcount, _ = strconv.ParseInt(f[2], 10, 64)
		for line := range strings.Lines(string(st)) {
			k, v, _ := strings.Cut(line, ":")
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			switch k {
			case "voluntary_ctxt_switches":
				th.vol = n
			case "nonvoluntary_ctxt_switches":
				th.inv = n
			}
		}
		m[tid] = th
	}
	return m
}

// window is what one window measured.
type window struct {
	n                                          int
	span                                       time.Duration
	cpuWall, work, volMS, volOp, invMS         float64
	pcntMS, blocked, waitShare, sysmonS, allMS float64
	busyMS, cpuRun                             float64
}

// measure turns two snapshots span apart, of a window of n operations,
// into a window.
func measure(a, b map[int]thread, span time.Duration, n int) window {
	pid := os.Getpid()
	sysmon := -1
	for tid := range a {
		if tid > pid && (sysmon < 0 || tid < sysmon) {
			sysmon = tid
		}
	}
	type d struct{ exec, wait, pcount, vol, inv int64 }
	var all []d
	var total int64
	w := window{n: n, span: span}
	for tid, t0 := range a {
		t1, ok := b[tid]
		if !ok {
			continue
		}
		x := d{t1.exec - t0.exec, t1.wait - t0.wait, t1.pcount - t0.pcount, t1.vol - t0.vol, t1.inv - t0.inv}
		total += x.exec
		if tid == sysmon {
			w.sysmonS = float64(x.vol) / span.Seconds()
			continue
		}
		all = append(all, x)
	}
	var exec, wait, vol, inv, pcount, blocked, allVol int64
	var busiest d
	for _, x := range all {
		if x.exec > busiest.exec {
			busiest = x
		}
		allVol += x.vol
		if 10*x.exec < total {
			continue
		}
		w.work++
		exec += x.exec
		wait += x.wait
		vol += x.vol
		inv += x.inv
		pcount += x.pcount
		blocked += max(0, int64(span)-x.exec-min(x.wait, int64(span)))
	}
	ms := float64(exec) / 1e6
	w.cpuWall = float64(total) / float64(span)
	w.volMS, w.invMS, w.pcntMS = float64(vol)/ms, float64(inv)/ms, float64(pcount)/ms
	w.allMS = float64(allVol) / (float64(total) / 1e6)
	w.volOp = float64(vol) / float64(n)
	w.blocked = float64(blocked) / float64(exec)
	w.waitShare = float64(wait) / float64(exec+wait)
	w.busyMS = float64(busiest.vol) / (float64(busiest.exec) / 1e6)
	// CPU time (every thread's but sysmon's) over the time not waiting
	// for a CPU, as analysis.chooseClock's BasisNotWaiting reads it from
	// the overlay's cpu-ns/op and wait-ns/op.
	cpu := float64(total - (b[sysmon].exec - a[sysmon].exec))
	share := float64(wait) / float64(span)
	if float64(wait)+cpu > float64(span) {
		share = float64(wait) / (float64(wait) + cpu)
	}
	w.cpuRun = cpu / (float64(span) * (1 - share))
	return w
}

var sink [][]byte

// workloads are the benchmark functions measured, each a body for b.N
// operations.
var workloads = []struct {
	name string
	fn   func(n int)
}{
	{"cpu", func(n int) { // about 1 µs of arithmetic, no allocation
		x := uint64(1)
		for range n {
			for range 300 {
				x = x*6364136223846793005 + 1442695040888963407
				x ^= x >> 29
			}
		}
		runtime.KeepAlive(x)
	}},
	{"alloc", func(n int) { // 1 KiB allocated per op, some of it kept a while
		for i := range n {
			b := make([]byte, 1024)
			b[0] = byte(i)
			sink[i%len(sink)] = b
		}
	}},
	{"lock-g2", func(n int) { lockN(n, 2) }},
	{"lock-g4", func(n int) { lockN(n, 4) }},
	{"pingpong", func(n int) { // one round trip over unbuffered channels
		ping, pong := make(chan int), make(chan int)
		go func() {
			for v := range ping {
				pong <- v
			}
		}()
		for i := range n {
			ping <- i
			<-pong
		}
		close(ping)
	}},
	{"sleep", func(n int) { // 20 µs of sleep per op, between some arithmetic
		for range n {
			time.Sleep(20 * time.Microsecond)
		}
	}},
	{"fsync", func(n int) { // 512 bytes written and synced to disk
		buf := make([]byte, 512)
		for range n {
			file.WriteAt(buf, 0)
			file.Sync()
		}
	}},
	{"readcached", func(n int) { // 64 KiB read from the page cache: I/O that never blocks
		buf := make([]byte, 64<<10)
		for range n {
			file.ReadAt(buf, 0)
		}
	}},
}

// file is the file the I/O workloads write and read.
var file *os.File

// lockN runs n operations of examples/lockbound (a global mutex) on g
// goroutines, as its BenchmarkGlobalMutex does.
func lockN(n, g int) {
	var wg sync.WaitGroup
	for id := range g {
		k := n / g
		if id < n%g {
			k++
		}
		wg.Go(func() {
			x := uint32(id + 1)
			for range k {
				x = lockbound.Op(x)
			}
		})
	}
	wg.Wait()
}

func main() {
	runs := flag.Int("n", 3, "runs per workload and GOMAXPROCS")
	only := flag.String("only", "", "comma-separated workloads (default all)")
	procs := flag.String("procs", "1,2", "GOMAXPROCS values")
	testing.Init()
	benchtime := flag.String("benchtime", "300ms", "each benchmark's -test.benchtime")
	flag.Parse()
	flag.Set("test.benchtime", *benchtime)
	sink = make([][]byte, 4096)
	var err error
	file, err = os.CreateTemp("", "switches")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.Remove(file.Name())
	file.Write(make([]byte, 64<<10))
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("# load %s# medians of %d runs, benchtime %s\n", load, *runs, *benchtime)
	fmt.Printf("%-11s %5s %8s %4s %8s %9s %7s %8s %8s %7s %9s %7s %7s %7s\n", "workload", "procs", "cpu/wall", "work", "vol/ms", "vol/op", "inv/ms", "pcnt/ms", "blocked", "waitsh", "sysmon/s", "all/ms", "bvol/ms", "cpu/run")
	for _, p := range strings.Split(*procs, ",") {
		np, _ := strconv.Atoi(p)
		runtime.GOMAXPROCS(np)
		for _, wl := range workloads {
			if *only != "" && !slices.Contains(strings.Split(*only, ","), wl.name) {
				continue
			}
			var ws []window
			for range *runs {
				var last window
				testing.Benchmark(func(b *testing.B) {
					a, t0 := snapshot(), time.Now()
					wl.fn(b.N)
					span := time.Since(t0)
					last = measure(a, snapshot(), span, b.N)
				})
				ws = append(ws, last)
			}
			med := func(f func(window) float64) float64 {
				v := make([]float64, len(ws))
				for i, w := range ws {
					v[i] = f(w)
				}
				slices.Sort(v)
				return v[len(v)/2]
			}
			fmt.Printf("%-11s %5d %8.2f %4.0f %8.3f %9.4f %7.3f %8.3f %8.3f %7.3f %9.0f %7.3f %7.3f %7.2f\n", wl.name, np,
				med(func(w window) float64 { return w.cpuWall }), med(func(w window) float64 { return w.work }),
				med(func(w window) float64 { return w.volMS }), med(func(w window) float64 { return w.volOp }),
				med(func(w window) float64 { return w.invMS }), med(func(w window) float64 { return w.pcntMS }),
				med(func(w window) float64 { return w.blocked }), med(func(w window) float64 { return w.waitShare }),
				med(func(w window) float64 { return w.sysmonS }), med(func(w window) float64 { return w.allMS }),
				med(func(w window) float64 { return w.busyMS }), med(func(w window) float64 { return w.cpuRun }))
		}
	}
}
