package execbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/rigorbench/rigor/model"
)

// An obsEncoder appends a run's observations as encoding/json encodes
// them (compact, HTML not escaped), byte for byte, without reflection:
// rigor exec records an observation per run, about 800 bytes of JSON
// each and 60% of run.json, and encoding/json's reflection over them was
// most of writeRun's time. TestObsEncoderIsJSONs holds it to
// encoding/json's output for observations with every field set (so that
// a field added to model's types fails it until it is encoded here) and
// with every optional field empty.
type obsEncoder struct {
	// strs caches the encoded form of the strings: a run's benchmarks
	// and sides are few.
	strs map[string][]byte
	err  error
}

// appendObservations appends obs as a JSON array.
func (e *obsEncoder) appendObservations(b []byte, obs []model.Observation) ([]byte, error) {
	if e.strs == nil {
		e.strs = map[string][]byte{}
	}
	b = append(b, '[')
	for i := range obs {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.observation(b, &obs[i])
	}
	return append(b, ']'), e.err
}

func (e *obsEncoder) observation(b []byte, o *model.Observation) []byte {
	t, err := o.Start.MarshalJSON()
	if err != nil && e.err == nil {
		e.err = fmt.Errorf("json: error calling MarshalJSON for type time.Time: %w", err)
	}
	b = append(b, `{"start":`...)
	b = append(b, t...)
	b = append(b, `,"duration_ns":`...)
	b = strconv.AppendInt(b, int64(o.Duration), 10)
	if o.Benchmark != "" {
		b = e.str(append(b, `,"benchmark":`...), o.Benchmark)
	}
	if o.Side != "" {
		b = e.str(append(b, `,"side":`...), o.Side)
	}
	if o.Round != 0 {
		b = strconv.AppendInt(append(b, `,"round":`...), int64(o.Round), 10)
	}
	if s := o.System; s != nil {
		b = append(b, `,"system":{`...)
		comma := false
		if s.CPUs != 0 {
			b, comma = strconv.AppendInt(append(b, `"cpus":`...), int64(s.CPUs), 10), true
		}
		if comma {
			b = append(b, ',')
		}
		b = e.float(append(b, `"user":`...), s.User)
		b = e.float(append(b, `,"system":`...), s.System)
		b = e.float(append(b, `,"iowait":`...), s.IOWait)
		b = e.float(append(b, `,"steal":`...), s.Steal)
		b = e.float(append(b, `,"idle":`...), s.Idle)
		b = e.float(append(b, `,"load1":`...), s.Load1)
		b = strconv.AppendInt(append(b, `,"procs_running":`...), int64(s.Running), 10)
		b = e.float(append(b, `,"ctx_switches_per_sec":`...), s.CtxSwitches)
		b = e.float(append(b, `,"disk_read_bytes_per_sec":`...), s.DiskReadBps)
		b = e.float(append(b, `,"disk_write_bytes_per_sec":`...), s.DiskWriteBps)
		b = e.float(append(b, `,"net_rx_bytes_per_sec":`...), s.NetRxBps)
		b = e.float(append(b, `,"net_tx_bytes_per_sec":`...), s.NetTxBps)
		b = e.optFloat(b, `,"freq_mhz":`, s.FreqMHz)
		b = e.optFloat(b, `,"freq_min_mhz":`, s.FreqMinMHz)
		b = e.optFloat(b, `,"freq_max_mhz":`, s.FreqMaxMHz)
		b = e.optFloat(b, `,"cpu_pressure":`, s.CPUPressure)
		b = e.optFloat(b, `,"memory_pressure":`, s.MemoryPressure)
		b = e.optFloat(b, `,"io_pressure":`, s.IOPressure)
		b = strconv.AppendInt(append(b, `,"samples":`...), int64(s.Samples), 10)
		b = e.optFloat(b, `,"observer_cpu_sec":`, s.ObserverCPUSec)
		b = append(b, '}')
	}
	if p := o.Process; p != nil {
		b = append(b, `,"process":{`...)
		if p.PID != 0 {
			b = append(strconv.AppendInt(append(b, `"pid":`...), int64(p.PID), 10), ',')
		}
		b = e.float(append(b, `"user_sec":`...), p.UserSec)
		b = e.float(append(b, `,"system_sec":`...), p.SystemSec)
		b = strconv.AppendInt(append(b, `,"voluntary_ctx_switches":`...), p.VoluntaryCtx, 10)
		b = strconv.AppendInt(append(b, `,"involuntary_ctx_switches":`...), p.InvoluntaryCtx, 10)
		if p.MaxRSSBytes != 0 {
			b = strconv.AppendInt(append(b, `,"max_rss_bytes":`...), p.MaxRSSBytes, 10)
		}
		b = append(b, '}')
	}
	if r := o.Runtime; r != nil {
		b = e.float(append(b, `,"runtime":{"gc_cpu_fraction":`...), r.GCCPUFraction)
		b = strconv.AppendUint(append(b, `,"gc_cycles":`...), r.GCCycles, 10)
		b = strconv.AppendUint(append(b, `,"heap_alloc_bytes":`...), r.HeapAllocBytes, 10)
		b = strconv.AppendUint(append(b, `,"heap_alloc_objects":`...), r.HeapAllocObjects, 10)
		b = strconv.AppendInt(append(b, `,"sched_latency_p99_ns":`...), int64(r.SchedLatencyP99), 10)
		b = strconv.AppendInt(append(b, `,"mutex_wait_ns":`...), int64(r.MutexWait), 10)
		if r.GOMAXPROCS != 0 {
			b = strconv.AppendInt(append(b, `,"gomaxprocs":`...), int64(r.GOMAXPROCS), 10)
		}
		b = append(b, '}')
	}
	if p := o.Profile; p != nil {
		b = strconv.AppendInt(append(b, `,"profile":{"samples":`...), p.Samples, 10)
		b = e.float(append(b, `,"cpu_sec":`...), p.CPUSec)
		b = e.float(append(b, `,"gc":`...), p.GC)
		b = e.float(append(b, `,"lock":`...), p.Lock)
		b = e.float(append(b, `,"syscall":`...), p.Syscall)
		b = e.float(append(b, `,"scheduler":`...), p.Scheduler)
		b = e.float(append(b, `,"alloc":`...), p.Alloc)
		b = e.optFloat(b, `,"file_io":`, p.FileIO)
		if len(p.Top) > 0 {
			b = append(b, `,"top":[`...)
			for i, f := range p.Top {
				if i > 0 {
					b = append(b, ',')
				}
				b = e.str(append(b, `{"func":`...), f.Func)
				b = append(e.float(append(b, `,"share":`...), f.Share), '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	if io := o.StorageIO; io != nil {
		b = strconv.AppendInt(append(b, `,"storage_io":{"read_bytes":`...), io.ReadBytes, 10)
		b = strconv.AppendInt(append(b, `,"write_bytes":`...), io.WriteBytes, 10)
		b = append(strconv.AppendInt(append(b, `,"cancelled_write_bytes":`...), io.CancelledWriteBytes, 10), '}')
	}
	b = e.optFloat(b, `,"other_cpu":`, o.OtherCPU)
	b = e.optFloat(b, `,"rigor_cpu_sec":`, o.RigorCPUSec)
	return append(b, '}')
}

// optFloat appends key and f unless f is 0 (omitempty).
func (e *obsEncoder) optFloat(b []byte, key string, f float64) []byte {
	if f == 0 {
		return b
	}
	return e.float(append(b, key...), f)
}

// float appends f as encoding/json does (its floatEncoder): the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from
// 1e21 on, with the exponent's leading zero dropped.
func (e *obsEncoder) float(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		if e.err == nil {
			e.err = fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
		}
		return append(b, '0')
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// str appends s as a JSON string, encoded by encoding/json itself (once
// per distinct string).
func (e *obsEncoder) str(b []byte, s string) []byte {
	enc, ok := e.strs[s]
	if !ok {
		var buf bytes.Buffer
		je := json.NewEncoder(&buf)
		je.SetEscapeHTML(false)
		je.Encode(s) // a string always encodes
		enc = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		e.strs[s] = enc
	}
	return append(b, enc...)
}
