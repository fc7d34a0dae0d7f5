package observe

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

func parseFixture(t *testing.T, name string) map[string]Func {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	funcs, err := ParseObjdump(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Func{}
	for _, f := range funcs {
		m[shortFunc(f.Name)] = f
	}
	return m
}

// The fixtures are go tool objdump of seed 003's package, built for amd64
// and arm64. BenchmarkElided's loop is INCQ CX; CMPQ 0x210(AX), CX; JG
// (arm64: ADD $1, R1, R1; MOVD 528(R0), R2; CMP R2, R1; BLT): counting
// only. BenchmarkKept's fast path multiplies (IMULQ / MUL); BenchmarkBuild
// calls runtime.concatstring2.
func TestParseObjdump(t *testing.T) {
	for _, tt := range []struct {
		file       string
		elidedLoop string
		keptWork   string
	}{
		{"benchlab-amd64.objdump", "INCQ CX; CMPQ 0x210(AX), CX; JG 0x52ee04", "IMULQ CX, CX"},
		{"benchlab-arm64.objdump", "ADD $1, R1, R1; MOVD 528(R0), R2; CMP R2, R1; BLT -3(PC)", "MUL R1, R1, R1"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			funcs := parseFixture(t, tt.file)
			el, ok := funcs["benchlab.BenchmarkElided"]
			if !ok {
				t.Fatalf("no BenchmarkElided among %d functions", len(funcs))
			}
			l := el.EmptyLoop()
			if l == nil {
				t.Fatalf("BenchmarkElided: no empty loop in %d loops", len(el.Loops))
			}
			var got []string
			for _, in := range l.Insts {
				got = append(got, in.String())
			}
			if s := strings.Join(got, "; "); s != tt.elidedLoop {
				t.Errorf("empty loop = %q, want %q", s, tt.elidedLoop)
			}
			kept := funcs["benchlab.BenchmarkKept"]
			if kept.EmptyLoop() != nil || len(kept.Loops) == 0 {
				t.Errorf("BenchmarkKept: %d loops, empty one %v; want loops, none empty", len(kept.Loops), kept.EmptyLoop())
			}
			found := false
			for _, l := range kept.Loops {
				for _, in := range l.Work {
					found = found || in.String() == tt.keptWork
				}
			}
			if !found {
				t.Errorf("BenchmarkKept: no loop does %q", tt.keptWork)
			}
		})
	}
	funcs := parseFixture(t, "benchlab-amd64.objdump")
	build := funcs["benchlab.BenchmarkBuild"]
	if build.EmptyLoop() != nil {
		t.Error("BenchmarkBuild has an empty loop")
	}
	calls := 0
	for _, l := range build.Loops {
		calls += len(l.Calls)
	}
	if calls == 0 {
		t.Error("BenchmarkBuild's loops call nothing; want runtime.concatstring2")
	}
}

func TestCounting(t *testing.T) {
	for _, tt := range []struct {
		in   Inst
		want bool
	}{
		{Inst{Op: "INCQ", Args: "CX"}, true},
		{Inst{Op: "ADDQ", Args: "$0x1, CX"}, true},
		{Inst{Op: "ADDQ", Args: "DX, CX"}, false}, // adds data: work
		{Inst{Op: "LEAQ", Args: "0x1(CX), CX"}, true},
		{Inst{Op: "LEAQ", Args: "0x1(CX), DX"}, false},
		{Inst{Op: "LEAQ", Args: "0(CX)(DX*8), CX"}, false},
		{Inst{Op: "CMPQ", Args: "0x210(AX), CX"}, true},
		{Inst{Op: "JG", Args: "0x52ee04"}, true},
		{Inst{Op: "BTQ", Args: "$0x3, CX"}, false}, // not a branch
		{Inst{Op: "CBNZ", Args: "R1, -2(PC)"}, true},
		{Inst{Op: "IMULQ", Args: "CX, CX"}, false},
		{Inst{Op: "NOPL", Args: "0(AX)"}, true},
	} {
		if got := counting(tt.in); got != tt.want {
			t.Errorf("counting(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestBenchmarkFuncRegexp(t *testing.T) {
	b := &model.Benchmark{Name: "Build/size=1024", Pkg: "example.com/a.b"}
	re := regexp.MustCompile(BenchmarkFuncRegexp(b))
	for name, want := range map[string]bool{
		"example.com/a.b.BenchmarkBuild":         true,
		"example.com/a.b.BenchmarkBuild.func1":   true,
		"example.com/a.b.BenchmarkBuild.func1.2": true,
		"example.com/a.b.BenchmarkBuilder":       false,
		"example.com/aXb.BenchmarkBuild":         false,
		"other.com/x.BenchmarkBuild":             false,
	} {
		if re.MatchString(name) != want {
			t.Errorf("%s matched %v, want %v", name, !want, want)
		}
	}
	re = regexp.MustCompile(BenchmarkFuncRegexp(&model.Benchmark{Name: "Elided"}))
	if !re.MatchString("x/y.BenchmarkElided") || re.MatchString("x/y.BenchmarkElidedToo") {
		t.Error("package-less pattern")
	}
}

func TestElisionVerdict(t *testing.T) {
	funcs := parseFixture(t, "benchlab-amd64.objdump")
	el := funcs["benchlab.BenchmarkElided"]
	kept := funcs["benchlab.BenchmarkKept"]
	got, err := elisionVerdict(&model.Benchmark{Name: "Elided"}, []Func{el})
	if err != nil || !strings.HasPrefix(got, "confirmed from the disassembly: the loop in benchlab.BenchmarkElided has no call and no work") {
		t.Errorf("Elided: %q, %v", got, err)
	}
	got, err = elisionVerdict(&model.Benchmark{Name: "Kept"}, []Func{kept})
	if err != nil || !strings.Contains(got, "shows work in its loops (IMULQ CX, CX") || strings.Contains(got, "confirmed") {
		t.Errorf("Kept: %q, %v", got, err)
	}
	if _, err := elisionVerdict(&model.Benchmark{Name: "Gone"}, nil); err == nil {
		t.Error("no functions: want an error")
	}
}

// TestConfirmElisionSeed003 is the acceptance check on a real binary: go
// test -c of seed 003's package, then go tool objdump. BenchmarkElided is
// an empty loop; BenchmarkKept is not. The suspicion note Annotate wrote is
// replaced by the verdict.
func TestConfirmElisionSeed003(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	bin := filepath.Join(t.TempDir(), "benchlab.test")
	if out, err := exec.Command("go", "test", "-c", "-o", bin, "../examples/benchlab").CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	const pkg = "github.com/rigorbench/rigor/examples/benchlab"
	ctx := context.Background()
	elided := &model.Benchmark{Name: "Elided", Pkg: pkg, Notes: []model.Note{{Kind: model.NoteElision, Text: "likely optimized away: 0.3 ns/op"}, {Kind: model.NoteOther, Text: "other"}}}
	note, err := ConfirmElision(ctx, bin, elided)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(note, "confirmed from the disassembly") {
		t.Errorf("Elided: %q", note)
	}
	if len(elided.Notes) != 2 || elided.Notes[0].Text != "other" || elided.Notes[1].Text != note || elided.Notes[1].Kind != model.NoteDisassembly {
		t.Errorf("Elided notes %q: want the suspicion replaced by the verdict", elided.Notes)
	}
	kept := &model.Benchmark{Name: "Kept", Pkg: pkg}
	note, err = ConfirmElision(ctx, bin, kept)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(note, "confirmed") || !strings.Contains(note, "not optimized away") {
		t.Errorf("Kept: %q", note)
	}
	if _, err := ConfirmElision(ctx, bin, &model.Benchmark{Name: "Missing", Pkg: pkg}); err == nil {
		t.Error("a benchmark not in the binary: want an error")
	}
}

func FuzzParseObjdump(f *testing.F) {
	for _, name := range []string{"benchlab-amd64.objdump", "benchlab-arm64.objdump"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("TEXT x(SB)\n  a.go:1\t0x10\t00\tJMP 0x10\n  a.go:1\t0x0\t00\tJMP -9(PC)\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		funcs, err := ParseObjdump(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, fn := range funcs {
			for _, l := range fn.Loops {
				if len(l.Insts) == 0 {
					t.Fatalf("%s: empty loop body", fn.Name)
				}
				if last := l.Insts[len(l.Insts)-1]; !isBranch(last.Op) {
					t.Fatalf("%s: loop ends with %v, not a branch", fn.Name, last)
				}
			}
		}
	})
}
