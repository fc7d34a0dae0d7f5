package gotest_test

import (
	"fmt"

	"github.com/rigorbench/rigor/gotest"
)

func ExampleParseResults() {
	out := `goos: linux
pkg: example.com/benchlab
BenchmarkBuild/size=128-8   	   14857	      7856 ns/op	   43208 B/op	     127 allocs/op
PASS
`
	results, _ := gotest.ParseResults(out)
	for _, r := range results {
		fmt.Println(r.Name, r.Procs, r.Iters)
		for _, v := range r.Values {
			fmt.Printf("  %g %s\n", v.Value, v.Unit)
		}
	}
	// Output:
	// Build/size=128 8 14857
	//   7.856e-06 sec/op
	//   43208 B/op
	//   127 allocs/op
}
