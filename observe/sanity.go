package observe

import (
	"fmt"
	"math"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// CheckThroughput returns a note when bytesPerSec is above a physical
// limit recorded in env: the memory bandwidth always, and the NIC speed
// when the traffic crossed the network. It returns "" when the number is
// possible or no limit is known. what names the number ("BenchmarkCopy",
// "step 8").
func CheckThroughput(env *model.Env, what string, bytesPerSec float64, overNetwork bool) string {
	if env == nil || bytesPerSec <= 0 {
		return ""
	}
	if overNetwork && env.NICSpeed > 0 && bytesPerSec > bandwidthMargin*env.NICSpeed {
		return fmt.Sprintf("likely measuring a cache: %s moved %s/s, more than the network interface's %s/s; the data cannot all have crossed the network",
			what, bytesStr(bytesPerSec), bytesStr(env.NICSpeed))
	}
	if env.MemBandwidth > 0 && bytesPerSec > bandwidthMargin*env.MemBandwidth {
		return fmt.Sprintf("likely measuring a cache: %s reported %s/s, more than this machine's memory bandwidth (%s/s, measured by a copy probe); the data must have come from a CPU cache",
			what, bytesStr(bytesPerSec), bytesStr(env.MemBandwidth))
	}
	return ""
}

// cacheNote checks a benchmark's B/s against memory bandwidth, using the
// highest median over its sides.
func cacheNote(b *model.Benchmark, env *model.Env) string {
	m := b.Metric("B/s")
	if m == nil {
		return ""
	}
	best, bestSide := 0.0, ""
	for _, side := range metricSides(m) {
		if v := stats.Median(m.Values(side)); v > best {
			best, bestSide = v, side
		}
	}
	what := "the benchmark"
	if len(metricSides(m)) > 1 {
		what = "side " + bestSide
	}
	return CheckThroughput(env, what, best, false)
}

// pageCacheNote is the sanity check of Systems Performance §12.3.8 on a
// storage benchmark: when b's CPU profile says its work is file I/O and
// its timed loops claim to have moved more than pageCacheRatio times
// what went to and from storage during its runs, the data went to memory
// (the page cache), not to a device. The claim of a run is its
// iterations x sec/op x B/s (round >= 1: round 0 is the untimed
// profiling pass, which has no sample). What went to storage is the
// measured processes' own I/O (Observation.StorageIO: bytes read from
// storage, and bytes written less the dirty pages dropped before
// writeback), so that another process's disk traffic neither hides the
// note nor stands for the benchmark's; runs recorded without it fall
// back on the block devices' machine-wide counters, where a neighbour's
// I/O can only hide the note. Without a CPU profile it says nothing: a
// B/s above the disks is what any in-memory benchmark reports.
func pageCacheNote(b *model.Benchmark, obs []model.Observation) string {
	bps, secop := b.Metric("B/s"), b.Metric("sec/op")
	if bps == nil || secop == nil || len(obs) == 0 {
		return ""
	}
	a := aggregateOf(obs)
	if a.profN == 0 || a.prof.Samples < minProfileSamples || a.prof.FileIO < fileIOShare {
		return ""
	}
	type moved struct {
		claimed, read, written, dur float64
		// machine: some run had no StorageIO, so read and written
		// are the disks' (all of them, from System).
		machine bool
		runs    []*model.Observation
	}
	bySide := map[string]*moved{}
	var sides []string
	for i := range obs {
		o := &obs[i]
		if o.Round < 1 || (o.System == nil && o.StorageIO == nil) || o.Duration <= 0 {
			continue
		}
		t, v := sampleAt(secop, o.Side, o.Round), sampleAt(bps, o.Side, o.Round)
		if t == nil || v == nil || t.Iters <= 0 || !(t.Value > 0) || !(v.Value > 0) {
			continue
		}
		m := bySide[o.Side]
		if m == nil {
			m = &moved{}
			bySide[o.Side] = m
			sides = append(sides, o.Side)
		}
		m.machine = m.machine || o.StorageIO == nil
		m.runs = append(m.runs, o)
	}
	// Each side's runs, now that it is known which counters all of them
	// have: the processes' own where every run recorded them.
	for _, m := range bySide {
		for _, o := range m.runs {
			d := o.Duration.Seconds()
			switch {
			case !m.machine:
				m.read += float64(o.StorageIO.ReadBytes)
				// Pages dirtied in an earlier run and dropped in this
				// one make a run's net negative: they count for neither.
				m.written += max(0, float64(o.StorageIO.WriteBytes-o.StorageIO.CancelledWriteBytes))
			case o.System != nil:
				m.read += o.System.DiskReadBps * d
				m.written += o.System.DiskWriteBps * d
			default:
				continue // neither counter: the run says nothing
			}
			t, v := sampleAt(secop, o.Side, o.Round), sampleAt(bps, o.Side, o.Round)
			m.claimed += float64(t.Iters) * t.Value * v.Value
			m.dur += d
		}
	}
	best, ratio := "", 0.0
	for _, side := range sides {
		m := bySide[side]
		if m.dur <= 0 {
			continue
		}
		r := math.Inf(1)
		if disk := m.read + m.written; disk > 0 {
			r = m.claimed / disk
		}
		if r > pageCacheRatio && (best == "" || r > ratio) {
			best, ratio = side, r
		}
	}
	if best == "" {
		return ""
	}
	m := bySide[best]
	what := "the benchmark"
	if len(metricSides(bps)) > 1 {
		what = "side " + best
	}
	// wrote and movedFmt say whose I/O it was: the benchmark's processes',
	// or the machine's disks' (everyone's).
	wrote, movedFmt := "its processes wrote %s/s to storage", "its processes moved %s to and from storage"
	if m.machine {
		wrote, movedFmt = "the disks wrote %s/s", "the disks moved %s"
	}
	return fmt.Sprintf("likely measuring the page cache: %s reported %s/s, "+wrote+" (and read %s/s) while it ran; "+
		"its timed loops claim %s, "+movedFmt+" in the same runs, and %s of its CPU samples were file reads, writes and syncs, "+
		"so the data went to memory, not to a device (to measure the device, fsync each write, open the file with O_DIRECT, or move far more data than memory holds)",
		what, bytesIEC(stats.Median(bps.Values(best))), bytesIEC(m.written/m.dur), bytesIEC(m.read/m.dur),
		bytesIEC(m.claimed), bytesIEC(m.read+m.written), words.Pct(a.prof.FileIO))
}

// sampleAt is m's sample on side in round, or nil.
func sampleAt(m *model.Metric, side string, round int) *model.Sample {
	for i := range m.Samples {
		if s := &m.Samples[i]; s.Side == side && s.Round == round {
			return s
		}
	}
	return nil
}
