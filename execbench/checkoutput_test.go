package execbench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// outputNotes returns the run's notes on differing outputs.
func outputNotes(run *model.Run) []model.Note {
	var notes []model.Note
	for _, n := range run.Notes {
		if n.Topic == "output" {
			notes = append(notes, n)
		}
	}
	return notes
}

// TestCheckOutput: commands whose first runs print different output are
// refused before timing with CheckOutput (the faster is no winner:
// rigor exec 'gzip -9 -c f' 'true' was "improved" by 99%), and noted
// without it; commands printing the same are neither.
func TestCheckOutput(t *testing.T) {
	cfg := config(t, 2, h("-print", "abc"), h("-print", "abd"))
	cfg.Warmup = 1
	cfg.CheckOutput = true
	res, err := Run(context.Background(), cfg)
	var ce *CommandError
	if res != nil || !errors.As(err, &ce) {
		t.Fatalf("Run = %v, %v; want a *CommandError", res != nil, err)
	}
	for _, want := range []string{`-print abd" and "`, "wrote different standard output (4 bytes each, first different at byte 2)", "no winner"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, experiment.RunFile)); err == nil {
		t.Errorf("a refused run left %s", experiment.RunFile)
	}

	cfg.CheckOutput = false
	cfg.Out = filepath.Join(t.TempDir(), "out")
	res, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if notes := outputNotes(res.Run); len(notes) != 1 || notes[0].Kind != model.NoteVerdict || !strings.Contains(notes[0].Text, "may not do the same work") {
		t.Errorf("output notes %+v, want one saying the work may differ", notes)
	}

	// The same output, per parameter value: nothing to say. A parameter
	// that changes one command's output only: a note per value.
	cfg = config(t, 2, h("-print", "{n}"), h("-print", "{n}"))
	cfg.Warmup, cfg.CheckOutput = 1, true
	cfg.Params = []Param{{Name: "n", Values: []string{"1", "22"}}}
	if res, err := Run(context.Background(), cfg); err != nil || len(outputNotes(res.Run)) != 0 {
		t.Errorf("same outputs: %v, notes %q", err, model.Texts(res.Run.Notes))
	}
	cfg = config(t, 2, h("-print", "{n}"), h("-print", "1"))
	cfg.Warmup = 1
	cfg.Params = []Param{{Name: "n", Values: []string{"1", "22"}}}
	res, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if notes := outputNotes(res.Run); len(notes) != 1 || notes[0].Benchmark != "n=22" {
		t.Errorf("notes %+v, want one, about n=22", notes)
	}
}

func TestCheckOutputConfig(t *testing.T) {
	for _, tc := range []struct {
		output string
		warmup int
		want   string
	}{
		{OutputInherit, 1, "--output inherit sends elsewhere"},
		{filepath.Join(t.TempDir(), "f"), 1, "sends elsewhere"},
		{OutputNull, 0, "--warmup 1 or more"},
	} {
		cfg := config(t, 2, h(), h())
		cfg.Output, cfg.Warmup, cfg.CheckOutput = tc.output, tc.warmup, true
		_, err := Run(context.Background(), cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("output %s warmup %d: %v, want a ConfigError with %q", tc.output, tc.warmup, err, tc.want)
		}
	}
}

func TestOutputDigest(t *testing.T) {
	digest := func(parts ...string) *outputDigest {
		d := newDigestWriter()
		for _, p := range parts {
			d.Write([]byte(p))
		}
		return d.digest()
	}
	a := digest("hello, ", "world")
	if !a.same(digest("hello, world")) {
		t.Error("the same bytes written in other pieces differ")
	}
	for _, tc := range []struct {
		b    *outputDigest
		want string
	}{
		{digest(""), "0 bytes against 12 bytes"},
		{digest("hello, World"), "12 bytes each, first different at byte 7"},
		{digest("x"), "1 byte against 12 bytes"},
	} {
		if a.same(tc.b) {
			t.Errorf("%q: same", tc.want)
		}
		if got := a.differs(tc.b); got != tc.want {
			t.Errorf("differs = %q, want %q", got, tc.want)
		}
	}
	long := strings.Repeat("a", headMax)
	if got := digest(long + "x").differs(digest(long + "y")); got != "4097 bytes each, different after the first 4096 bytes" {
		t.Errorf("beyond the head: %q", got)
	}
}
