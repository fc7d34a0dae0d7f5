package load

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"testing"
	"time"
)

// cannedServer answers every HTTP/1.1 request on 127.0.0.1 with a fixed
// response, allocating nothing per request, so that a benchmark's
// allocations are the client's.
func cannedServer(tb testing.TB) (addr string, stop func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nhello, world\n")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					// Requests have no body: read to the blank line.
					for {
						line, err := br.ReadSlice('\n')
						if err != nil {
							return
						}
						if len(bytes.TrimRight(line, "\r\n")) == 0 {
							break
						}
					}
					if _, err := c.Write(resp); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), func() { ln.Close() }
}

// BenchmarkH1Client is one request and response through rigor's HTTP/1.1
// client over loopback; allocs/op is the client's hot path.
func BenchmarkH1Client(b *testing.B) {
	addr, stop := cannedServer(b)
	defer stop()
	target, err := NewHTTP(HTTP{URL: "http://" + addr + "/", Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	c := target.NewClient()
	defer c.Close()
	ctx := context.Background()
	c.Do(ctx) // dial outside the timed loop
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if out := c.Do(ctx); out.Class != "" {
			b.Fatal(out.Class)
		}
	}
}

// BenchmarkRecord is the per-request bookkeeping of a worker.
func BenchmarkRecord(b *testing.B) {
	rec := newStepRecorder(true, 0, 1<<62)
	w := rec.worker()
	out := Outcome{Bytes: 100}
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		i++
		w.add(i, i+10, i+1000+i%5000, out)
	}
}

// BenchmarkGeneratorOverhead ramps a Func that does nothing: the latency
// rigor reports for it is the generator's own timing overhead, the floor
// under every latency it measures.
func BenchmarkGeneratorOverhead(b *testing.B) {
	f := Func(func(context.Context) error { return nil })
	for b.Loop() {
		r, err := Ramp(context.Background(), f, Config{Concurrency: []int{1}, Warmup: 50 * time.Millisecond, Duration: 200 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		s := r.Steps[0]
		b.ReportMetric(float64(s.Latency.P50), "p50-ns")
		b.ReportMetric(float64(s.Latency.P99), "p99-ns")
		b.ReportMetric(1e9/s.Throughput, "ns/call")
	}
}
