// Package simcheck's benchmarks are for the simulation tests of package
// window (simulate_test.go): loops whose instructions per operation the
// tests know from the compiled code, driven in every way a benchmark
// drives its timer.
package simcheck

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

var sink uint64

// work is n steps of a linear congruential generator: the same few
// instructions each, no call, no allocation.
//
//go:noinline
func work(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

func BenchmarkSteps10000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(10000)
	}
}

func BenchmarkSteps11000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(11000)
	}
}

// BenchmarkSetup sets up for longer than it measures.
func BenchmarkSetup(b *testing.B) {
	work(500000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		work(10000)
	}
}

func BenchmarkSub(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{{"n=10000", 10000}, {"n=20000", 20000}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				work(c.n)
			}
		})
	}
}

// BenchmarkStopStart stops its timer inside its loop.
func BenchmarkStopStart(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		work(1000)
		b.StartTimer()
		work(10000)
	}
}

// BenchmarkStopSetup stops its timer around its set-up, before its loop,
// as golang.org/x/crypto/sha3's benchmarks do: two timed segments, the
// first empty.
func BenchmarkStopSetup(b *testing.B) {
	b.StopTimer()
	work(500000)
	b.StartTimer()
	for i := 0; i < b.N; i++ {
		work(10000)
	}
	b.StopTimer()
}

func BenchmarkParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			work(10000)
		}
	})
}

// BenchmarkFails fails.
func BenchmarkFails(b *testing.B) {
	b.Fatal("this benchmark fails")
}

// BenchmarkHang starts a child process, writes its process id to the file
// $SIMCHECK_PIDFILE, and waits for an hour.
func BenchmarkHang(b *testing.B) {
	cmd := exec.Command("sleep", "3600")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv("SIMCHECK_PIDFILE"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		b.Fatal(err)
	}
	time.Sleep(time.Hour)
}
