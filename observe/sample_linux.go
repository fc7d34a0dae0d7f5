package observe

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
	"golang.org/x/sys/unix"
)

// A reader takes snapshots of the system. It holds what can be decided
// once: which disks and interfaces to count, where frequencies live.
type reader struct {
	fs       procfs.FS
	blk      blockdevice.FS
	disks    map[string]bool // whole physical disks (they have a device link)
	nics     map[string]bool // interfaces to count; nil means all but lo
	freqs    []string        // scaling_cur_freq files
	psi      [3]bool         // which /proc/pressure files exist
	sector   float64         // bytes per diskstats sector (always 512)
	hasBlock bool
}

var psiResources = [3]string{"cpu", "memory", "io"}

func newReader() (*reader, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, fmt.Errorf("observe: %w", err)
	}
	r := &reader{fs: fs, sector: 512, disks: map[string]bool{}}
	if blk, err := blockdevice.NewFS(procRoot, sysRoot); err == nil {
		r.blk, r.hasBlock = blk, true
	}
	if entries, err := os.ReadDir(filepath.Join(sysRoot, "block")); err == nil {
		for _, e := range entries {
			// Virtual block devices (loop, dm, md, zram) have no device
			// link; counting them would count the same bytes twice.
			if _, err := os.Stat(filepath.Join(sysRoot, "block", e.Name(), "device")); err == nil {
				r.disks[e.Name()] = true
			}
		}
	}
	if entries, err := os.ReadDir(filepath.Join(sysRoot, "class/net")); err == nil {
		for _, e := range entries {
			if _, err := os.Stat(filepath.Join(sysRoot, "class/net", e.Name(), "device")); err == nil {
				if r.nics == nil {
					r.nics = map[string]bool{}
				}
				r.nics[e.Name()] = true
			}
		}
	}
	r.freqs, _ = filepath.Glob(filepath.Join(sysRoot, "devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq"))
	for i, res := range psiResources {
		_, err := os.Stat(filepath.Join(procRoot, "pressure", res))
		r.psi[i] = err == nil
	}
	return r, nil
}

// read takes a snapshot. Sources that fail are left at zero, except
// /proc/stat, without which a snapshot means nothing.
func (r *reader) read() (snapshot, error) {
	s := snapshot{t: time.Now()}
	st, err := r.fs.Stat()
	if err != nil {
		return s, fmt.Errorf("observe: %w", err)
	}
	c := st.CPUTotal
	s.c[cUser] = c.User + c.Nice
	s.c[cSystem] = c.System + c.IRQ + c.SoftIRQ
	s.c[cIdle] = c.Idle
	s.c[cIOWait] = c.Iowait
	s.c[cSteal] = c.Steal
	s.c[cCtxt] = float64(st.ContextSwitches)
	s.cpus = len(st.CPU)
	// procs_running counts the thread reading it: leave the observer out.
	s.running = max(0, float64(st.ProcessesRunning)-1)
	if la, err := r.fs.LoadAvg(); err == nil {
		s.load1 = la.Load1
	}
	if r.hasBlock {
		if ds, err := r.blk.ProcDiskstats(); err == nil {
			for _, d := range ds {
				if r.disks[d.DeviceName] {
					s.c[cDiskRead] += float64(d.ReadSectors) * r.sector
					s.c[cDiskWrite] += float64(d.WriteSectors) * r.sector
				}
			}
		}
	}
	if nd, err := r.fs.NetDev(); err == nil {
		for name, l := range nd {
			if (r.nics == nil && name != "lo") || r.nics[name] {
				s.c[cNetRx] += float64(l.RxBytes)
				s.c[cNetTx] += float64(l.TxBytes)
			}
		}
	}
	for i, res := range psiResources {
		if !r.psi[i] {
			continue
		}
		if p, err := r.fs.PSIStatsForResource(res); err == nil && p.Some != nil {
			s.c[cPSICPU+i] = float64(p.Some.Total)
			s.psi[i] = true
		}
	}
	n := 0
	for _, f := range r.freqs {
		khz, err := strconv.ParseFloat(readTrim(f), 64)
		if err != nil || khz <= 0 {
			continue
		}
		mhz := khz / 1000
		if n == 0 {
			s.freqMin, s.freqMax = mhz, mhz
		}
		s.freq += mhz
		s.freqMin, s.freqMax = min(s.freqMin, mhz), max(s.freqMax, mhz)
		n++
	}
	if n > 0 {
		s.freq /= float64(n)
	}
	s.c[cObserver] = threadCPU().Seconds()
	return s, nil
}

// threadCPU is the CPU time the calling OS thread has used. The sampler
// runs locked to its thread, so this is exactly the observer's own cost.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// procTime is one process's cumulative CPU time.
type procTime struct {
	cpu  float64 // seconds
	name string
}

// processTimes reads every process's CPU time so far.
func processTimes() map[int]procTime {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return nil
	}
	out := make(map[int]procTime, len(procs))
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil {
			continue // exited meanwhile
		}
		out[p.PID] = procTime{cpu: st.CPUTime(), name: st.Comm}
	}
	return out
}
