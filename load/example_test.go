package load_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/rigorbench/rigor/load"
)

// Fitting the Universal Scalability Law to the measurements in the README
// of github.com/codahale/usl.
func ExampleFitUSL() {
	n := []float64{1, 18, 36, 72, 108, 144, 216}
	x := []float64{65, 996, 1652, 1853, 1829, 1775, 1702}
	f, err := load.FitUSL(n, x)
	if err != nil {
		panic(err)
	}
	fmt.Printf("alpha %.4f beta %.6f lambda %.2f N* %.1f peak %.0f/s\n", f.Alpha, f.Beta, f.Lambda, f.NStar, f.Peak)
	// Output:
	// alpha 0.0277 beta 0.000104 lambda 89.99 N* 96.5 peak 1884/s
}

func ExampleParseConcurrency() {
	steps, err := load.ParseConcurrency("1..64x2")
	fmt.Println(steps, err)
	// Output:
	// [1 2 4 8 16 32 64] <nil>
}

// Ramping a Go function guarded by a global lock, as a database call or
// an RPC would be, over 1, 2 and 4 workers.
func ExampleRamp() {
	var mu sync.Mutex
	query := load.Func(func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		time.Sleep(100 * time.Microsecond)
		return nil
	})
	r, err := load.Ramp(context.Background(), query, load.Config{
		Name:        "query",
		Concurrency: []int{1, 2, 4},
		Warmup:      10 * time.Millisecond,
		Duration:    50 * time.Millisecond,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(r.Steps), "steps,", r.Mode, "loop")
	// Output:
	// 3 steps, closed loop
}

// Ramping an HTTP endpoint with a JSON body and an SLO, observing the
// target's process through its PID. report.RenderRamp prints the result.
func ExampleNewHTTP() {
	target, err := load.NewHTTP(load.HTTP{
		Method:  "POST",
		URL:     "http://127.0.0.1:8080/v1/items",
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    []byte(`{"name":"x"}`),
		Timeout: 5 * time.Second,
	})
	if err != nil {
		panic(err)
	}
	slo, _ := load.ParseSLO("p99=50ms,errors=1%", nil)
	steps, _ := load.ParseConcurrency("1..64x2")
	r, err := load.Ramp(context.Background(), target, load.Config{Concurrency: steps, SLO: slo, Knee: 0.05, PID: 1234})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Headline.Reason)
	fmt.Println(r.Bottleneck.Summary)
}
