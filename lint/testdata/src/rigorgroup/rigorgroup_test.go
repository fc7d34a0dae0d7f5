package rigorgroup

import (
	"testing"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/harness"
)

func BenchmarkEmptyGroup(b *testing.B) {
	g := rigor.NewGroup("empty") // want `group g gets no Bench`
	g.Baseline("x")
	harness.Run(b, g)
}

func newGroup() *rigor.Group {
	g := rigor.NewGroup("elsewhere")
	return g
}

// Not reported.
func BenchmarkGoodGroup(b *testing.B) {
	g := rigor.NewGroup("one")
	g.Bench("x", func(b *rigor.B) { b.Iter(func() {}) })
	harness.Run(b, g)
}

// Not reported: never measured (only its name and configuration are used).
func TestGroupName(t *testing.T) {
	g := rigor.NewGroup("name")
	if g.Name != "name" {
		t.Fatal(g.Name)
	}
}
