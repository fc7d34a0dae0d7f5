package rigor_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/harness"
	"github.com/rigorbench/rigor/stats"
)

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

// A group holds variants of the same work. Package harness measures them
// in interleaved rounds (harness.Run in a benchmark, harness.Main in a
// program, harness.Measure for the raw results) and compares each with the
// baseline, the first variant added unless Baseline says otherwise.
func ExampleGroup() {
	g := rigor.NewGroup("fib")
	g.Config.WarmUp, g.Config.Budget = -1, 20*time.Millisecond
	g.Bench("fib15", func(b *rigor.B) { rigor.Iter(b, func() int { return fib(rigor.Opaque(15)) }) })
	g.Bench("fib16", func(b *rigor.B) { rigor.Iter(b, func() int { return fib(rigor.Opaque(16)) }) })
	g.Baseline("fib16")
	run, err := harness.Measure(context.Background(), g)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(run.Sides[0].Label, "is the baseline of", len(run.Sides), "variants")
	// Output: fib16 is the baseline of 2 variants
}

// Parameters follow a slash, as in go test's sub-benchmarks: each set is
// its own benchmark, with the variants as its sides.
func ExampleGroup_parameters() {
	g := rigor.NewGroup("join")
	g.Config.WarmUp, g.Config.Budget = -1, 10*time.Millisecond
	for _, n := range []int{10, 100} {
		parts := slices.Repeat([]string{"x"}, n)
		g.Bench(fmt.Sprintf("strings.Join/n=%d", n), func(b *rigor.B) {
			rigor.Iter(b, func() string { return strings.Join(parts, ",") })
		})
		g.Bench(fmt.Sprintf("builder/n=%d", n), func(b *rigor.B) {
			b.SetElements(int64(n))
			rigor.Iter(b, func() string {
				var sb strings.Builder
				for i, p := range parts {
					if i > 0 {
						sb.WriteByte(',')
					}
					sb.WriteString(p)
				}
				return sb.String()
			})
		})
	}
	run, _ := harness.Measure(context.Background(), g)
	for _, b := range run.Benchmarks {
		fmt.Println(b.Name, len(run.Sides), "sides")
	}
	// Output:
	// join/n=10 2 sides
	// join/n=100 2 sides
}

// IterWithSetup keeps the preparation of each input out of the timed
// window, as Criterion.rs's iter_batched.
func ExampleIterWithSetup() {
	data := make([]int, 1000)
	g := rigor.NewGroup("sort")
	g.Config.WarmUp, g.Config.Budget = -1, 10*time.Millisecond
	g.Bench("sort", func(b *rigor.B) {
		rigor.IterWithSetup(b,
			func() []int { return slices.Clone(data) }, // untimed
			func(v []int) []int { slices.Sort(v); return v })
	})
	run, _ := harness.Measure(context.Background(), g)
	fmt.Println(run.Benchmarks[0].Name)
	// Output: sort
}

// IterCustom hands the iteration count to code that times itself: here a
// pool of goroutines.
func ExampleB_IterCustom() {
	g := rigor.NewGroup("pool")
	g.Config.WarmUp, g.Config.Budget = -1, 10*time.Millisecond
	g.Bench("4 workers", func(b *rigor.B) {
		b.IterCustom(func(iters int) time.Duration {
			var wg sync.WaitGroup
			work := make(chan int)
			for range 4 {
				wg.Go(func() {
					for n := range work {
						rigor.Sink(fib(n))
					}
				})
			}
			start := time.Now()
			for range iters {
				work <- 10
			}
			close(work)
			wg.Wait()
			return time.Since(start)
		})
	})
	run, _ := harness.Measure(context.Background(), g)
	fmt.Println(len(run.Benchmarks[0].Metric("sec/op").Samples) > 0)
	// Output: true
}

// BenchParallel runs each sample on several goroutines at once, sharing
// state; BenchScaling does so for 1, 2, 4, ... GOMAXPROCS goroutines.
func ExampleGroup_BenchParallel() {
	var mu sync.Mutex
	counts := map[int]int{}
	g := rigor.NewGroup("counter")
	g.Config.WarmUp, g.Config.Budget = -1, 10*time.Millisecond
	g.Elements(1)
	g.BenchParallel("mutex", 2, func(b *rigor.B) {
		id := b.Goroutine()
		rigor.Iter(b, func() int {
			mu.Lock()
			defer mu.Unlock()
			counts[id]++
			return counts[id]
		})
	})
	run, _ := harness.Measure(context.Background(), g)
	fmt.Println(run.Benchmarks[0].Config["goroutines"], run.Benchmarks[0].Metric("elems/s") != nil)
	// Output: mutex=2 true
}

// ReportMetric reports what the work itself counts, here the comparisons
// a search makes, per operation: the total over the sample's iterations
// divided by B.Iters, as with testing.B.ReportMetric. The harness compares
// it between variants with the same statistics and verdicts as time
// (fewer is better, as for any unit not ending in "/s"). Finding 1400 in
// the even numbers 0 to 2046 takes a linear search 701 comparisons
// (indices 0 to 700), a binary search 10 (1024 halved down to 1).
func ExampleB_ReportMetric() {
	data := make([]int, 1024)
	for i := range data {
		data[i] = 2 * i
	}
	g := rigor.NewGroup("search")
	g.Config.WarmUp, g.Config.Budget = -1, 20*time.Millisecond
	g.Bench("linear", func(b *rigor.B) {
		cmps := 0
		rigor.Iter(b, func() int {
			for i, v := range data {
				cmps++
				if v >= rigor.Opaque(1400) {
					return i
				}
			}
			return len(data)
		})
		b.ReportMetric(float64(cmps)/float64(b.Iters()), "cmps/op")
	})
	g.Bench("binary", func(b *rigor.B) {
		cmps := 0
		rigor.Iter(b, func() int {
			return sort.Search(len(data), func(i int) bool { cmps++; return data[i] >= rigor.Opaque(1400) })
		})
		b.ReportMetric(float64(cmps)/float64(b.Iters()), "cmps/op")
	})
	run, err := harness.Measure(context.Background(), g)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := run.Benchmarks[0].Metric("cmps/op")
	for _, side := range run.Sides {
		fmt.Println(side.Label, stats.Median(m.Values(side.Label)), m.Unit)
	}
	rep, err := analysis.Analyze(run, analysis.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, rm := range rep.Benchmarks[0].Metrics {
		if rm.Unit == "cmps/op" {
			c := rm.Changes[0]
			fmt.Printf("%s vs %s: %+.2f%% %s\n", c.Side, rep.Sides[0], 100*c.Estimate, c.Verdict)
		}
	}
	// Output:
	// linear 701 cmps/op
	// binary 10 cmps/op
	// binary vs linear: -98.57% improved
}
