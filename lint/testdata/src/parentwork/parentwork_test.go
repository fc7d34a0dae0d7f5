package parentwork

import "testing"

var sink int

func BenchmarkParent(b *testing.B) {
	for i := 0; i < b.N; i++ { // want `this benchmark also calls b.Run`
		sink += i
	}
	b.Run("child", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink += i
		}
	})
}

// Not reported.
func BenchmarkOnlyChildren(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.Run("", func(b *testing.B) {
			for b.Loop() {
				sink += n
			}
		})
	}
}
