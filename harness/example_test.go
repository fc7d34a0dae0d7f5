package harness_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/harness"
)

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

// Measure returns the raw run of a group: one side per variant, one
// benchmark per set of parameters, and every round's samples. Inside a
// benchmark, pass the group to harness.Run(b, g) instead; in a program, to
// harness.Main(g).
func ExampleMeasure() {
	g := rigor.NewGroup("fib")
	g.Config.WarmUp = 20 * time.Millisecond
	g.Config.Budget = 50 * time.Millisecond
	g.Bench("fib15", func(b *rigor.B) { rigor.Iter(b, func() int { return fib(rigor.Opaque(15)) }) })
	g.Bench("fib16", func(b *rigor.B) { rigor.Iter(b, func() int { return fib(rigor.Opaque(16)) }) })
	run, err := harness.Measure(context.Background(), g)
	if err != nil {
		fmt.Println(err)
		return
	}
	var sides, units []string
	for _, s := range run.Sides {
		sides = append(sides, s.Label)
	}
	for _, m := range run.Benchmarks[0].Metrics {
		units = append(units, m.Unit)
	}
	fmt.Println(strings.Join(sides, " "))
	fmt.Println(strings.Join(units, " "))
	// Output:
	// fib15 fib16
	// sec/op cpu-sec/op wait-sec/op B/op allocs/op
}

// Main measures groups from a program's main and exits, taking the
// -rigor.* flags:
//
//	go run ./cmd/fibbench -rigor.budget 1s -rigor.max-regression 5
func ExampleMain() {
	g := rigor.NewGroup("fib")
	g.Bench("fib20", func(b *rigor.B) { rigor.Iter(b, func() int { return fib(rigor.Opaque(20)) }) })
	g.Bench("fib21", func(b *rigor.B) { rigor.Iter(b, func() int { return fib(rigor.Opaque(21)) }) })
	harness.Main(g)
}
