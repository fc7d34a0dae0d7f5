package gotest

import (
	"strings"
	"testing"
)

const t2jConfig = "goos: linux\ngoarch: amd64\npkg: example.com/t2j\ncpu: AMD EPYC\n"

// The inputs are test binaries' standard output under -test.v=test2json,
// as Go 1.26 prints it (captured from real binaries), except where said.
var deframeTests = []struct {
	name             string
	in               string
	results, printed string
	passed           bool
}{
	{
		name: "progress line",
		in: t2jConfig + "\x16=== RUN   BenchmarkPrints\nBenchmarkPrints\nprocessed 1 items\n" +
			"BenchmarkPrints-2   \t      10\t        30.00 ns/op\t       0 B/op\t       0 allocs/op\n\x16=== NAME  \n\x16PASS\n",
		results: t2jConfig + "BenchmarkPrints-2   \t      10\t        30.00 ns/op\t       0 B/op\t       0 allocs/op\n",
		printed: "processed 1 items\n",
		passed:  true,
	},
	{
		name: "a fake result line, and output without a newline glued to the result",
		in: t2jConfig + "\x16=== RUN   BenchmarkFake\nBenchmarkFake\nBenchmarkFake 1 5 ns/op\npartial no newline" +
			"BenchmarkFake-2   \t      10\t        19.10 ns/op\n\x16=== NAME  \n\x16PASS\n",
		results: t2jConfig + "BenchmarkFake-2   \t      10\t        19.10 ns/op\n",
		printed: "BenchmarkFake 1 5 ns/op\npartial no newline\n",
		passed:  true,
	},
	{
		name: "a fake result line in the framework's format, without a newline",
		in: t2jConfig + "\x16=== RUN   BenchmarkFake\nBenchmarkFake\nBenchmarkFake-2 \t 1\t 5 ns/op" +
			"BenchmarkFake-2   \t      10\t        19.10 ns/op\n\x16=== NAME  \n\x16PASS\n",
		results: t2jConfig + "BenchmarkFake-2   \t      10\t        19.10 ns/op\n",
		printed: "BenchmarkFake-2 \t 1\t 5 ns/op\n",
		passed:  true,
	},
	{
		name:    "configuration printed by the benchmark",
		in:      t2jConfig + "\x16=== RUN   BenchmarkSub\nBenchmarkSub\n\x16=== RUN   BenchmarkSub/a\nBenchmarkSub/a\ngoos: plan9\nBenchmarkSub/a-2  \t      10\t        19.00 ns/op\n\x16=== NAME  \n\x16PASS\n",
		results: t2jConfig + "BenchmarkSub/a-2  \t      10\t        19.00 ns/op\n",
		printed: "goos: plan9\n",
		passed:  true,
	},
	{
		name: "a parent that prints between its sub-benchmarks",
		in: t2jConfig + "\x16=== RUN   BenchmarkParent\nBenchmarkParent\nparent says hi\x16=== RUN   BenchmarkParent/x=1\nBenchmarkParent/x=1\n" +
			"BenchmarkParent/x=1-2         \t      10\t        35.10 ns/op\t       0 B/op\t       0 allocs/op\n\x16=== NAME  \n" +
			"BenchmarkParent/x=1-2 \t 1\t 5 ns/op\n\x16=== RUN   BenchmarkParent/x=2\nBenchmarkParent/x=2\n" +
			"gluedBenchmarkParent/x=2-2         \t      10\t        20.00 ns/op\t       0 B/op\t       0 allocs/op\n\x16=== NAME  \n\x16PASS\n",
		results: t2jConfig + "BenchmarkParent/x=1-2         \t      10\t        35.10 ns/op\t       0 B/op\t       0 allocs/op\n" +
			"BenchmarkParent/x=2-2         \t      10\t        20.00 ns/op\t       0 B/op\t       0 allocs/op\n",
		printed: "parent says hi\nBenchmarkParent/x=1-2 \t 1\t 5 ns/op\nglued\n",
		passed:  true,
	},
	{
		name: "-test.cpu=1,2 -test.count=2",
		in: t2jConfig + "\x16=== RUN   BenchmarkPrints\nBenchmarkPrints\nprocessed 1 items\nBenchmarkPrints     \t      10\t        22.00 ns/op\n\x16=== NAME  \n" +
			"processed 1 items\nBenchmarkPrints     \t      10\t        18.00 ns/op\n\x16=== NAME  \n" +
			"processed 1 items\nBenchmarkPrints-2   \t      10\t        21.00 ns/op\n\x16=== NAME  \n" +
			"processed 1 items\nBenchmarkPrints-2   \t      10\t       179.3 ns/op\n\x16=== NAME  \n\x16PASS\n",
		results: t2jConfig + "BenchmarkPrints     \t      10\t        22.00 ns/op\nBenchmarkPrints     \t      10\t        18.00 ns/op\n" +
			"BenchmarkPrints-2   \t      10\t        21.00 ns/op\nBenchmarkPrints-2   \t      10\t       179.3 ns/op\n",
		printed: strings.Repeat("processed 1 items\n", 4),
		passed:  true,
	},
	{
		name:    "b.Log of a result-like line, and a unit metadata line",
		in:      t2jConfig + "\x16=== RUN   BenchmarkLog\nBenchmarkLog\n    x_test.go:39: BenchmarkLog-2 \t 1\t 5 ns/op\nUnit x/op better=higher assume=exact\nBenchmarkLog-2   \t      10\t        35.10 ns/op\t 3.000 x/op\n\x16=== NAME  \n\x16PASS\n",
		results: t2jConfig + "BenchmarkLog-2   \t      10\t        35.10 ns/op\t 3.000 x/op\nUnit x/op better=higher assume=exact\n",
		printed: "    x_test.go:39: BenchmarkLog-2 \t 1\t 5 ns/op\nUnit x/op better=higher assume=exact\n",
		passed:  true,
	},
	{
		name: "a unit named like the benchmark",
		in: t2jConfig + "\x16=== RUN   BenchmarkX\nBenchmarkX\n" +
			"BenchmarkX-2   \t      10\t        35.10 ns/op\t         3.000 BenchmarkX\t       7 B/op\n\x16=== NAME  \n\x16PASS\n",
		results: t2jConfig + "BenchmarkX-2   \t      10\t        35.10 ns/op\t         3.000 BenchmarkX\t       7 B/op\n",
		printed: "",
		passed:  true,
	},
	{
		name: "Go 1.24 and older: b.Log lines after a framed --- BENCH (from package testing's source)",
		in: t2jConfig + "\x16=== RUN   BenchmarkLog\nBenchmarkLog\nBenchmarkLog-2   \t      10\t        35.10 ns/op\n" +
			"\x16--- BENCH: BenchmarkLog-2\n    x_test.go:39: BenchmarkLog-2 \t 1\t 5 ns/op\n\x16=== NAME  \n\x16PASS\n",
		results: t2jConfig + "BenchmarkLog-2   \t      10\t        35.10 ns/op\n",
		printed: "--- BENCH: BenchmarkLog-2\n    x_test.go:39: BenchmarkLog-2 \t 1\t 5 ns/op\n",
		passed:  true,
	},
	{
		name:    "os.Exit(0) in the benchmark",
		in:      t2jConfig + "\x16=== RUN   BenchmarkExit\nBenchmarkExit\n",
		results: t2jConfig,
		printed: "",
		passed:  false,
	},
	{
		name:    "skipped",
		in:      t2jConfig + "\x16=== RUN   BenchmarkSkip\nBenchmarkSkip\n    x_test.go:35: nope\n\x16--- SKIP: BenchmarkSkip\n\x16PASS\n",
		results: t2jConfig,
		printed: "    x_test.go:35: nope\n--- SKIP: BenchmarkSkip\n",
		passed:  true,
	},
	{
		name:    "b.Fatal",
		in:      t2jConfig + "\x16=== RUN   BenchmarkFatal\nBenchmarkFatal\nbefore fatal\n    y_test.go:11: bad\n\x16--- FAIL: BenchmarkFatal\n\x16FAIL\n",
		results: t2jConfig,
		printed: "before fatal\n    y_test.go:11: bad\n--- FAIL: BenchmarkFatal\n",
		passed:  false,
	},
	{
		name:    "output of TestMain before the configuration",
		in:      "setting up\ngoos: plan9 (says TestMain)\n" + t2jConfig + "\x16=== RUN   BenchmarkX\nBenchmarkX\nBenchmarkX   \t      10\t        35.10 ns/op\n\x16=== NAME  \n\x16PASS\nteardown\n",
		results: t2jConfig + "BenchmarkX   \t      10\t        35.10 ns/op\n",
		printed: "setting up\ngoos: plan9 (says TestMain)\nteardown\n",
		passed:  true,
	},
	{
		name:    "no framing at all (a binary run without -test.v=test2json)",
		in:      t2jConfig + "BenchmarkX   \t      10\t        35.10 ns/op\nPASS\n",
		results: "",
		printed: t2jConfig + "BenchmarkX   \t      10\t        35.10 ns/op\nPASS\n",
		passed:  false,
	},
}

func TestDeframe(t *testing.T) {
	for _, tt := range deframeTests {
		t.Run(tt.name, func(t *testing.T) {
			got := deframe(tt.in)
			if got.results != tt.results {
				t.Errorf("results:\n%q\nwant\n%q", got.results, tt.results)
			}
			if got.printed != tt.printed {
				t.Errorf("printed:\n%q\nwant\n%q", got.printed, tt.printed)
			}
			if got.passed != tt.passed {
				t.Errorf("passed = %v, want %v", got.passed, tt.passed)
			}
		})
	}
}

// FuzzDeframe: deframe never panics, takes nothing from the framework's
// lines that was not in its input, and loses no byte of what was printed:
// the results and the printed text together hold every unframed byte.
func FuzzDeframe(f *testing.F) {
	for _, tt := range deframeTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := deframe(in)
		for _, line := range strings.Split(strings.TrimSuffix(got.results, "\n"), "\n") {
			if line != "" && !strings.Contains(in, line) {
				t.Fatalf("result line %q is not in the input %q", line, in)
			}
		}
		if strings.ContainsRune(got.results, marker) {
			t.Fatalf("results hold a framing byte: %q", got.results)
		}
		ParseResults(got.results) // must not panic
	})
}
