// Command fibbench runs the fib group standalone, outside go test:
//
//	go run ./examples/fib/cmd/fibbench -rigor.budget 1s
//
// It takes the same -rigor.* flags as a benchmark, prints the report and
// exits 1 when -rigor.max-regression is exceeded.
package main

import (
	"github.com/rigorbench/rigor/examples/fib"
	"github.com/rigorbench/rigor/harness"
)

func main() {
	harness.Main(fib.Group())
}
