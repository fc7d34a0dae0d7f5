package observe

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/rigorbench/rigor/model"
)

// A go test binary's runtime cannot be read from outside, but its CPU
// profile (-test.cpuprofile) says where its CPU time went: spinning or
// parking in a mutex, the garbage collector, the scheduler, system calls.
// That is the evidence ProcessStats cannot give, at the cost of a SIGPROF
// 100 times a second.

// CPUProfileArgs returns the go test binary flags that write a CPU profile
// to path, for ReadCPUProfile.
func CPUProfileArgs(path string) []string {
	return []string{"-test.cpuprofile=" + path}
}

// Frames that put a sample in a class, tested in this order; a sample
// belongs to the first class any frame of its stack matches. Matching is
// by prefix of the function name.
var profileClasses = []struct {
	class    string
	prefixes []string
}{
	{"gc", []string{
		"runtime.gc", "runtime.bgsweep", "runtime.bgscavenge", "runtime.markroot",
		"runtime.scanobject", "runtime.scanblock", "runtime.scanstack", "runtime.wbBuf",
		"runtime.sweepone", "runtime.greyobject",
	}},
	{"lock", []string{
		"sync.(*Mutex).lockSlow", "sync.(*Mutex).unlockSlow",
		"internal/sync.(*Mutex).lockSlow", "internal/sync.(*Mutex).unlockSlow",
		"sync.(*RWMutex).rUnlockSlow", "sync.runtime_Semacquire", "sync.runtime_Semrelease",
		"internal/sync.runtime_Semacquire", "internal/sync.runtime_Semrelease",
		"runtime.semacquire1", "runtime.semrelease1",
		// Not runtime.lock2: the runtime's internal locks belong to the
		// allocator, scheduler or GC work around them, classified there.
	}},
	{"scheduler", []string{
		"runtime.schedule", "runtime.findRunnable", "runtime.findrunnable", "runtime.park_m",
		"runtime.stopm", "runtime.startm", "runtime.wakep", "runtime.goschedImpl",
		"runtime.gosched_m", "runtime.stealWork", "runtime.runqsteal", "runtime.mPark",
		"runtime.notesleep", "runtime.notewakeup", "runtime.goready", "runtime.ready",
	}},
	{"syscall", []string{
		"syscall.Syscall", "syscall.RawSyscall", "syscall.syscall", "syscall.rawSyscall",
		"internal/runtime/syscall.", "golang.org/x/sys/unix.Syscall", "golang.org/x/sys/unix.RawSyscall",
		"runtime.entersyscall", "runtime.exitsyscall",
	}},
	{"alloc", []string{
		"runtime.mallocgc", "runtime.newobject", "runtime.makeslice", "runtime.growslice",
		"runtime.(*mcache).", "runtime.(*mcentral).", "runtime.(*mheap).",
	}},
}

// fileIOFuncs are the frames of a file read, write or sync. They are
// checked apart from the classes: a sample with one of them on its stack
// counts in ProfileStats.FileIO whatever its class (mostly syscall). Only
// calls that take a file: internal/poll.(*FD).Read and Write serve
// sockets and pipes too and are left out, their os.(*File) callers are
// in. os.(*File) also wraps pipes and terminals (os.Stdout), which a
// benchmark rarely writes in its loop.
var fileIOFuncs = map[string]bool{
	"os.(*File).Read": true, "os.(*File).ReadAt": true, "os.(*File).ReadFrom": true,
	"os.(*File).Write": true, "os.(*File).WriteAt": true, "os.(*File).WriteString": true,
	"os.(*File).WriteTo": true, "os.(*File).Sync": true,
	"os.(*File).read": true, "os.(*File).pread": true, "os.(*File).write": true, "os.(*File).pwrite": true,
	"os.ReadFile": true, "os.WriteFile": true,
	"internal/poll.(*FD).Fsync": true, "internal/poll.(*FD).Pread": true, "internal/poll.(*FD).Pwrite": true,
	"syscall.Fsync": true, "syscall.Fdatasync": true, "syscall.Pread": true, "syscall.Pwrite": true,
	"syscall.pread": true, "syscall.pwrite": true,
	"golang.org/x/sys/unix.Fsync": true, "golang.org/x/sys/unix.Fdatasync": true,
	"golang.org/x/sys/unix.SyncFileRange": true, "golang.org/x/sys/unix.Pread": true,
	"golang.org/x/sys/unix.Pwrite": true, "golang.org/x/sys/unix.pread": true, "golang.org/x/sys/unix.pwrite": true,
}

// fileIO reports whether a stack is in a file read, write or sync.
func fileIO(funcs []string) bool {
	return slices.ContainsFunc(funcs, func(f string) bool { return fileIOFuncs[f] })
}

// classify returns the class of a stack, innermost frame first, or "".
func classify(funcs []string) string {
	for _, c := range profileClasses {
		for _, f := range funcs {
			for _, p := range c.prefixes {
				if strings.HasPrefix(f, p) {
					return c.class
				}
			}
		}
	}
	return ""
}

// valueIndex returns the index of the sample values of type typ in unit
// (the last if there are several), or -1 when p has none.
func valueIndex(p *profile.Profile, typ, unit string) int {
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == typ && st.Unit == unit {
			idx = i
		}
	}
	return idx
}

// ReadCPUProfile summarises a CPU profile (as written by -test.cpuprofile
// or runtime/pprof) by where the time went: the share of sampled CPU time
// in the garbage collector, in mutex slow paths, in the scheduler, in
// system calls and in allocation, the share in file reads, writes and
// syncs (whatever the class), and the five functions with the most
// samples of their own.
func ReadCPUProfile(r io.Reader) (*model.ProfileStats, error) {
	p, err := profile.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("reading CPU profile: %w", err)
	}
	vi, ci := valueIndex(p, "cpu", "nanoseconds"), valueIndex(p, "samples", "count")
	if vi < 0 {
		return nil, fmt.Errorf("reading CPU profile: no cpu/nanoseconds values (is it a CPU profile?)")
	}
	ps := &model.ProfileStats{}
	var total, files float64
	byClass := map[string]float64{}
	flat := map[string]float64{}
	var funcs []string
	for _, s := range p.Sample {
		if vi >= len(s.Value) || s.Value[vi] <= 0 {
			continue
		}
		v := float64(s.Value[vi])
		funcs = funcs[:0]
		for _, loc := range s.Location {
			for _, line := range loc.Line {
				if line.Function != nil {
					funcs = append(funcs, line.Function.Name)
				}
			}
		}
		if ci >= 0 && ci < len(s.Value) {
			ps.Samples += s.Value[ci]
		} else {
			ps.Samples++
		}
		total += v
		byClass[classify(funcs)] += v
		if fileIO(funcs) {
			files += v
		}
		if len(funcs) > 0 {
			flat[funcs[0]] += v
		}
	}
	ps.CPUSec = total / 1e9
	if total == 0 {
		return ps, nil
	}
	ps.GC = byClass["gc"] / total
	ps.Lock = byClass["lock"] / total
	ps.Scheduler = byClass["scheduler"] / total
	ps.Syscall = byClass["syscall"] / total
	ps.Alloc = byClass["alloc"] / total
	ps.FileIO = files / total
	for f, v := range flat {
		ps.Top = append(ps.Top, model.FuncShare{Func: f, Share: v / total})
	}
	slices.SortFunc(ps.Top, func(a, b model.FuncShare) int {
		return cmp.Or(cmp.Compare(b.Share, a.Share), strings.Compare(a.Func, b.Func))
	})
	ps.Top = ps.Top[:min(5, len(ps.Top))]
	return ps, nil
}
