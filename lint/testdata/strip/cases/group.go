package cases

import (
	"testing"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/harness"
)

type holder struct {
	b  *testing.B
	rb *rigor.B
}

// The whole file is kept: it imports rigor.
func runGroup(h holder) {
	g := rigor.NewGroup("empty") // finding: rigorgroup
	for range 1 {
	}
	harness.Run(h.b, g)
}
