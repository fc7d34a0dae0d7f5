package harness

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor"
)

// TestFlagValues: every flag parses its values into the options, and
// rejects bad ones.
func TestFlagValues(t *testing.T) {
	o := defaultOptions()
	for _, d := range flagDefs {
		if err := d.set(o, map[string]string{
			"save-baseline": "x", "baseline": "y", "max-regression": "2.5", "format": "md",
			"out": "dir", "budget": "250ms", "processes": "3", "passes": "2", "policy": "median", "update-on-pass": "true",
		}[d.name]); err != nil {
			t.Errorf("-rigor.%s: %v", d.name, err)
		}
	}
	cfg, err := o.apply(rigor.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if o.saveBaseline != "x" || o.baseline != "y" || !o.updateOnPass || o.maxRegression != 2.5 || o.format != "md" || o.out != "dir" {
		t.Errorf("options %+v", o)
	}
	if cfg.Budget.String() != "250ms" || cfg.Processes != 3 || cfg.Passes != 2 || cfg.Policy != rigor.Median {
		t.Errorf("config %+v", cfg)
	}
	if envName("max-regression") != "RIGOR_MAX_REGRESSION" {
		t.Errorf("envName = %s", envName("max-regression"))
	}
	for _, bad := range []struct{ name, v string }{{"max-regression", "lots"}, {"max-regression", "NaN"}, {"max-regression", "+Inf"}, {"budget", "soon"}, {"processes", "-1"}, {"update-on-pass", "maybe"}} {
		for _, d := range flagDefs {
			if d.name == bad.name {
				if err := d.set(o, bad.v); err == nil {
					t.Errorf("-rigor.%s=%s accepted", bad.name, bad.v)
				}
			}
		}
	}
	if _, err := (&options{policy: "fastest"}).apply(rigor.DefaultConfig()); err == nil {
		t.Error("-rigor.policy=fastest accepted")
	}
}

// TestReadOptions: a flag given on the command line wins over its
// environment variable, which wins over the default; a bad value fails
// when the command line is parsed, or when Run reads the environment.
func TestReadOptions(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	registerFlags(fs)
	registerFlags(fs) // a second registration is harmless
	if err := fs.Parse([]string{"-rigor.budget=2s", "-rigor.format=md"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"RIGOR_BUDGET": "5s", "RIGOR_PASSES": "3", "RIGOR_POLICY": "best"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	o, err := readOptions(fs, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if o.budget != 2*time.Second || o.format != "md" || o.passes != 3 || o.policy != "best" || o.maxRegression != -1 || o.files != processFiles {
		t.Errorf("options %+v: want budget 2s (flag over env), format md, passes 3 and policy best (env), max-regression -1 (default)", o)
	}
	env["RIGOR_MAX_REGRESSION"] = "lots"
	if _, err := readOptions(fs, lookup); err == nil || !strings.Contains(err.Error(), "RIGOR_MAX_REGRESSION") {
		t.Errorf("a bad environment value: error %v, want one naming RIGOR_MAX_REGRESSION", err)
	}
	if err := fs.Parse([]string{"-rigor.processes=many"}); err == nil {
		t.Error("-rigor.processes=many parsed")
	}
	// The help shows the defaults.
	if f := fs.Lookup("rigor.format"); f.DefValue != "text" {
		t.Errorf("-rigor.format's default shows as %q, want text", f.DefValue)
	}
}

// TestBoolFlagAlone: -rigor.update-on-pass needs no value.
func TestBoolFlagAlone(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	registerFlags(fs)
	if err := fs.Parse([]string{"-rigor.update-on-pass", "-rigor.baseline", "main"}); err != nil {
		t.Fatal(err)
	}
	o, err := readOptions(fs, func(string) (string, bool) { return "", false })
	if err != nil || !o.updateOnPass || o.baseline != "main" {
		t.Errorf("options %+v, %v: want update-on-pass with baseline main", o, err)
	}
}
