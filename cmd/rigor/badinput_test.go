package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// TestBadInput: bad input to any command is one line on stderr and exit 2,
// never a panic, a stack trace, help text or a run that starts anyway.
// Every case fails before building or measuring anything.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	afile := filepath.Join(dir, "afile")
	if err := os.WriteFile(afile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	nodir := filepath.Join(dir, "nodir", "out.txt")
	// A module with a benchmark, so that a run that is not refused would
	// measure it and write to --out; an input that -o would overwrite, a
	// results directory that holds a run, and one that a live run holds
	// (this test's process).
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/bad\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bench := "package bad\n\nimport \"testing\"\n\nfunc BenchmarkNothing(b *testing.B) {\n\tfor b.Loop() {\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "bad_test.go"), []byte(bench), 0o644); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "base.txt")
	if b, err := os.ReadFile(seedBase); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(base, b, 0o644); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(dir, "alias.txt")
	if err := os.Symlink(base, alias); err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(dir, "held")
	locked := filepath.Join(dir, "locked")
	for _, f := range []string{filepath.Join(held, "run.json"), filepath.Join(locked, ".rigor.lock")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(held, "run.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	ns, _ := os.Readlink("/proc/self/ns/pid")
	lock := fmt.Sprintf(`{"pid":%d,"host":%q,"pid_namespace":%q}`, os.Getpid(), host, ns)
	if err := os.WriteFile(filepath.Join(locked, ".rigor.lock"), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	ramp := writeRun(t, &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindRamp, Sides: []model.Side{},
		Ramp: &model.Ramp{Target: "http://127.0.0.1:1/", Protocol: "HTTP/1.1", Mode: model.RampClosed, CPUs: 2,
			Steps: []model.RampStep{{Index: 0, Concurrency: 1, Throughput: 100, Valid: true, Latency: model.Latency{P50: time.Millisecond}}}}})

	// A port that was open a moment ago and is closed now.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()

	for _, args := range [][]string{
		{"help", "nosuchcmd"},
		{"completion", "foo"},
		{"compare", "-o", dir, seedBase, seedOpt},
		{"compare", "-o", nodir, seedBase, seedOpt},
		{"compare", ramp},
		{"compare", "-o", base, "a=" + base, "b=" + base},
		{"compare", "-o", alias, "a=" + base, "b=" + base},
		{"ab", "--old", ".", "--benchtime", "1x", "--min-rounds", "2", "--max-rounds", "2", "--profile", "off", "--out", held},
		{"run", "--benchtime", "1x", "--min-rounds", "2", "--max-rounds", "2", "--profile", "off", "--out", held},
		{"run", "--benchtime", "1x", "--min-rounds", "2", "--max-rounds", "2", "--profile", "off", "--out", locked},
		{"report", "--format", "tree", ramp},
		{"report", "--format", "llm", ramp},
		{"report", "--format", "benchfmt", ramp},
		{"report", "-o", nodir, "--format", "html", seedBase},
		{"ab", "--resamples", "0"},
		{"ab", "--confidence", "95"},
		{"ab", "--correction", "none?"},
		{"ab", "--min-rounds", "10", "--max-rounds", "5"},
		{"ab", "-o", nodir},
		{"ab", "-o", dir},
		{"run", "--alpha", "2"},
		{"run", "--out", afile, "-o", filepath.Join(afile, "x")},
		{"ramp", "--warmup", "-1s", closed},
		{"ramp", "--timeout", "-1s", closed},
		{"ramp", "--knee", "NaN", closed},
		{"ramp", "--pid", "-1", closed},
		{"ramp", "--max-workers", "0", "--rate", "10", closed},
		{"ramp", "--ramp", "1..1000000000x2", closed},
		{"ramp", "--concurrency", "0", closed},
		{"ramp", "--rate", "-5", closed},
		{"ramp", "http://"},
		{"ramp", "http://[::1"},
		{"ramp", "-q", "--concurrency", "1", "--duration", "100ms", "--warmup", "0", closed},
		// Issue 11: a body from a file that never ends, success codes
		// that are not statuses, gates that are not numbers, and a
		// GOMAXPROCS that never finishes.
		{"ramp", "-d", "@/dev/zero", closed},
		{"ramp", "--success-codes", "", closed},
		{"ramp", "--success-codes", "2000", closed},
		{"ramp", "--success-codes", "299-200", closed},
		{"ramp", "--success-codes", "ok", closed},
		{"compare", "--max-regression", "NaN", absPath(t, seedBase), absPath(t, seedOpt)},
		{"compare", "--max-regression", "+Inf", absPath(t, seedBase), absPath(t, seedOpt)},
		{"report", "--max-regression", "NaN", absPath(t, seedBase)},
		{"ab", "--max-regression", "NaN"},
		{"run", "--max-regression", "NaN"},
		{"ab", "--cpu", "1,100000"},
		{"run", "--cpu", "100000"},
		// Inputs without line ends: one line naming the file and the
		// line, after a bounded read (issue 11, item 12).
		{"compare", "/dev/zero", "/dev/zero"},
		{"report", "/dev/zero"},
		// Only values that cannot be measurements (a negative time, a
		// subnormal, 1.7e308 B/op): no results (issue 11, item 7).
		{"compare", "--format", "html", "a=" + absPath(t, impossible), "b=" + absPath(t, impossible)},
		// Issue 15: commands that cannot be measured, refused before
		// any sample (and a run that would hang, stopped).
		{"exec"},
		{"exec", " "},
		{"exec", "no-such-command-rigor-test"},
		{"exec", "true | false"},
		{"exec", "--warmup", "1", "false"},
		{"exec", "--warmup", "0", "--shell", "sh", "exit 3"},
		{"exec", "--timeout", "100ms", "sleep 30"},
		{"exec", "--time", "300ms", "sleep 30"},
		{"exec", "-P", "x", "5", "1", "sleep {x}"},
		{"exec", "-P", "x", "1", "1000000000", "sleep {x}"},
		{"exec", "-P", "x", "1"},
		{"exec", "-L", "x", "a,a", "echo {x}"},
		{"exec", "--runs", "1", "true"},
		{"exec", "--max-regression", "NaN", "true"},
		{"exec", "-o", dir, "true"},
		{"exec", "--export-json", nodir, "true"},
		{"exec", "--out", held, "true"},
		{"exec", "--input", filepath.Join(dir, "nofile"), "true"},
		// Issue 14: the history store's commands and flags.
		{"history"}, // no store yet
		{"changes"},
		{"history", "--window", "1"},
		{"history", "--p", "2"},
		{"history", "--min-magnitude", "-1"},
		{"history", "--format", "pie"},
		{"history", "--last", "-1"},
		{"history", "--transient", "-1"},
		{"history", "("},
		{"history", "a", "b"},
		{"changes", "--since", "not a revision"},
		{"changes", "--since", "-5h"},
		{"changes", "extra"},
		{"import"},
		{"import", filepath.Join(dir, "nothere.txt")},
		{"import", "--time", "yesterday", base},
		{"import", "--commit", "no-such-rev", base},
		{"import", dir}, // a directory with no results in it
		{"compare", "--record", "--no-record", base, base},
		{"run", "--record", "--no-record"},
		{"ab", "--record", "--no-record"},
		{"serve", "--addr", "0.0.0.0:0"},
		{"serve", "--addr", ":0"},
		{"serve", "--addr", "nonsense"},
		{"serve"}, // no store
		// Issue 16: rigor lint on no package, an unknown check or format.
		{"lint", "./nosuchdir"}, {"lint", "--checks", "nope", "."}, {"lint", "--format", "xml", "."},
	} {
		stdout, stderr, code := rigorIn(t, dir, args...)
		if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 ||
			!strings.HasPrefix(stderr, "rigor: ") || strings.Contains(stderr, "goroutine") || stdout != "" {
			t.Errorf("rigor %s: exit %d, stdout %.80q, stderr %q; want exit 2 and one line",
				strings.Join(args, " "), code, stdout, stderr)
		}
	}
	// Nothing refused was touched.
	if b, err := os.ReadFile(base); err != nil || !strings.Contains(string(b), "Benchmark") {
		t.Errorf("compare -o overwrote its input: %v\n%.200s", err, b)
	}
	if b, err := os.ReadFile(filepath.Join(held, "run.json")); err != nil || string(b) != "{}" {
		t.Errorf("--out overwrote the run in it: %v %q", err, b)
	}
}

// TestReportRampFormats: a ramp saved as JSON renders in the formats a
// ramp has, not as an empty comparison.
func TestReportRampFormats(t *testing.T) {
	in := writeRun(t, &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindRamp, Sides: []model.Side{},
		Ramp: &model.Ramp{Target: "http://127.0.0.1:8080/", Protocol: "HTTP/1.1", Mode: model.RampClosed, CPUs: 2,
			Steps: []model.RampStep{{Index: 0, Concurrency: 1, Throughput: 100, Valid: true, Latency: model.Latency{P50: time.Millisecond}}}}})
	for _, tt := range []struct{ format, want string }{
		{"text", "ramp http://127.0.0.1:8080/"},
		{"md", "## rigor ramp"},
		{"csv", "step,mode,concurrency"},
		{"json", `"kind": "ramp"`},
	} {
		stdout, stderr, code := rigor(t, "report", "--format", tt.format, in)
		if code != 0 || !strings.Contains(stdout, tt.want) {
			t.Errorf("--format %s: exit %d, stderr %q, output lacks %q:\n%s", tt.format, code, stderr, tt.want, stdout)
		}
	}
}

// impossible holds only values that cannot be measurements.
var impossible = filepath.Join("..", "..", "testdata", "malformed", "impossible.txt")
