// Package suite generates a Go module of many cheap benchmarks at two
// revisions that differ in a few known benchmarks, for measuring rigor
// ab --shard and rigor merge (docs/shards.md).
package suite

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Packages is how many packages the benchmarks are spread over.
const Packages = 2

// Offset is the benchmark whose change depends on the machine: on the
// new revision it does OffsetEnv percent more work when that variable
// is set (to a number) in its environment, and the same work otherwise.
const (
	Offset    = 1
	OffsetEnv = "SHARDS_OFFSET"
)

// Revisions returns the files of the old and new revisions of a module
// of n benchmarks, BenchmarkB000 to B(n-1), in Packages packages (B i in
// package p(i%Packages)): each loops over a cheap hash of 40 to 400 steps,
// every tenth has three sub-benchmarks. On the new revision, benchmark i
// does changes[i] times the old one's work (1.2: 20% more).
func Revisions(n int, changes map[int]float64) (old, new map[string]string) {
	old, new = files(n, nil), files(n, changes)
	return old, new
}

// Changed lists the benchmarks changes changes, by name, sorted.
func Changed(changes map[int]float64) []string {
	var out []string
	for _, i := range slices.Sorted(maps.Keys(changes)) {
		out = append(out, fmt.Sprintf("p%d.B%03d", i%Packages, i))
	}
	return out
}

func files(n int, changes map[int]float64) map[string]string {
	out := map[string]string{
		"go.mod":     "module example.com/shards\n\ngo 1.26\n",
		".gitignore": ".rigor/\n",
	}
	for p := range Packages {
		var src, test strings.Builder
		fmt.Fprintf(&src, "package p%d\n\n", p)
		if changes != nil && Offset%Packages == p {
			src.WriteString("import (\n\t\"os\"\n\t\"strconv\"\n)\n\n")
			fmt.Fprintf(&src, "// offset is the extra work, in percent, of B%03d on this machine.\n", Offset)
			fmt.Fprintf(&src, "var offset, _ = strconv.Atoi(os.Getenv(%q))\n\n", OffsetEnv)
		}
		src.WriteString(`// Work runs n steps of a linear congruential generator.
func Work(n int) uint64 {
	x := uint64(n)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}
`)
		fmt.Fprintf(&test, "package p%d\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nvar sink uint64\n\nvar _ = fmt.Sprint\n", p)
		for i := p; i < n; i += Packages {
			steps := 40 + (i*37)%361
			if f, ok := changes[i]; ok {
				steps = int(float64(steps)*f + 0.5)
			}
			expr := fmt.Sprint(steps)
			if changes != nil && i == Offset {
				expr = fmt.Sprintf("%d*(100+offset)/100", steps)
			}
			fmt.Fprintf(&src, "\n// Steps%03d is benchmark B%03d's work.\nfunc Steps%03d() int { return %s }\n", i, i, i, expr)
			if i%10 == 0 {
				fmt.Fprintf(&test, `
func BenchmarkB%03d(b *testing.B) {
	for _, m := range []int{1, 2, 3} {
		b.Run(fmt.Sprint("x=", m), func(b *testing.B) {
			for b.Loop() {
				sink = Work(m * Steps%03d())
			}
		})
	}
}
`, i, i)
				continue
			}
			fmt.Fprintf(&test, `
func BenchmarkB%03d(b *testing.B) {
	for b.Loop() {
		sink = Work(Steps%03d())
	}
}
`, i, i)
		}
		out[fmt.Sprintf("p%d/p.go", p)] = src.String()
		out[fmt.Sprintf("p%d/p_test.go", p)] = test.String()
	}
	return out
}
