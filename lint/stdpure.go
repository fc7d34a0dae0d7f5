package lint

// stdPure lists the standard library functions whose call the compiler
// deletes when the result is unused, and which of them it computes at
// compile time from constant arguments. Checked on Go 1.26.8 linux/amd64
// (GOAMD64=v1) by disassembling `for i := 0; i < b.N; i++ { _ = f(x(i)) }`
// and `for ... { sink = f(constant) }` for each: a deleted call leaves the
// bare loop (5 instructions); a folded one stores a constant. Floor, Ceil,
// Trunc, RoundToEven, FMA and OnesCount{,16,32,64} keep a CPU feature test
// and a call on machines without SSE4.1/FMA/POPCNT, and delete the work on
// any other; they do not fold. Reverse{,32,64}, ReverseBytes{,32,64} and
// RotateLeft* are deleted but do not fold (the BSWAP or ROL stays).
// math.Max and math.Min are not in the table: their call stays.
var stdPure = func() map[string]pureFact {
	m := map[string]pureFact{}
	add := func(folds bool, names ...string) {
		for _, n := range names {
			m[n] = pureFact{Cost: 4, Folds: folds}
		}
	}
	feature := func(names ...string) {
		for _, n := range names {
			m[n] = pureFact{Cost: 4, Keeps: keepFeature}
		}
	}
	add(true, "math.Abs", "math.Sqrt", "math.Round", "math.Copysign", "math.Signbit", "math.IsNaN",
		"math.IsInf", "math.Inf", "math.NaN", "math.Float64bits", "math.Float64frombits",
		"math.Float32bits", "math.Float32frombits",
		"math/bits.OnesCount8", "math/bits.Reverse8", "math/bits.Reverse16", "math/bits.ReverseBytes16")
	feature("math.Floor", "math.Ceil", "math.Trunc", "math.RoundToEven", "math.FMA",
		"math/bits.OnesCount", "math/bits.OnesCount16", "math/bits.OnesCount32", "math/bits.OnesCount64")
	add(false, "math/bits.Reverse", "math/bits.Reverse32", "math/bits.Reverse64",
		"math/bits.ReverseBytes", "math/bits.ReverseBytes32", "math/bits.ReverseBytes64")
	for _, size := range []string{"", "8", "16", "32", "64"} {
		add(true, "math/bits.LeadingZeros"+size, "math/bits.TrailingZeros"+size, "math/bits.Len"+size)
		add(false, "math/bits.RotateLeft"+size)
	}
	for _, size := range []string{"", "32", "64"} {
		add(true, "math/bits.Add"+size, "math/bits.Sub"+size, "math/bits.Mul"+size)
	}
	return m
}()
