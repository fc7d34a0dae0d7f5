package rigor

import (
	"strings"
	"testing"
)

// FuzzBenchNames adds variants with arbitrary names: the group either
// rejects a name or files it under a non-empty variant and its parameters,
// without panicking.
func FuzzBenchNames(f *testing.F) {
	for _, s := range []string{"a", "std/size=1024", "a/b/c", "/x", "", "x/", "é/ü=1"} {
		f.Add(s, "b/size=1")
	}
	f.Fuzz(func(t *testing.T, n1, n2 string) {
		g := NewGroup("g")
		fn := func(b *B) { b.Iter(func() {}) }
		g.Bench(n1, fn)
		g.Bench(n2, fn)
		vs, err := g.variants()
		if err != nil {
			if len(g.benches) > 0 {
				t.Fatalf("variants failed with benches present: %v", err)
			}
			return
		}
		for _, b := range g.benches {
			if b.variant == "" || strings.Contains(b.variant, "/") {
				t.Fatalf("variant %q from names %q, %q", b.variant, n1, n2)
			}
			if indexOf(vs, b.variant) < 0 {
				t.Fatalf("variant %q not listed", b.variant)
			}
			if name := b.variant + "/" + b.params; name != n1+"/" && name != n2+"/" && name != n1 && name != n2 {
				t.Fatalf("variant %q and parameters %q from names %q, %q", b.variant, b.params, n1, n2)
			}
		}
	})
}
