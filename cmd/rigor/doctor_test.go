package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
)

func TestEnvCommand(t *testing.T) {
	out, errOut, code := rigor(t, "env", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var env model.Env
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("not an Env: %v\n%s", err, out)
	}
	if env.GOOS == "" || env.GoVersion == "" || env.LogicalCores < 1 {
		t.Errorf("env %+v", env)
	}
	out, _, code = rigor(t, "env")
	if code != 0 || !strings.Contains(out, "gomaxprocs") || !strings.Contains(out, "governor") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}

func TestDoctorCommand(t *testing.T) {
	out, errOut, code := rigor(t, "doctor", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d without --strict: %s", code, errOut)
	}
	var findings []observe.Finding
	if err := json.Unmarshal([]byte(out), &findings); err != nil || len(findings) == 0 {
		t.Fatalf("findings: %v\n%s", err, out)
	}
	for _, f := range findings {
		if f.Check == "" || f.Message == "" || (f.Severity != observe.SeverityOK && f.Severity != observe.SeverityInfo && f.Severity != observe.SeverityWarn) {
			t.Errorf("malformed finding %+v", f)
		}
	}
}

// TestDoctorStrict runs doctor on findings of its own, so that whether the
// machine warns is known: --strict exits 1 exactly when a finding warns,
// and the text lists the findings worst first, each fix under its finding
// (in the third column: "warn  " and "governor  " are 16 columns).
func TestDoctorStrict(t *testing.T) {
	ok := observe.Finding{Check: "governor", Severity: observe.SeverityOK, Message: "performance"}
	info := observe.Finding{Check: "vm", Severity: observe.SeverityInfo, Message: "none detected"}
	warn := observe.Finding{Check: "load", Severity: observe.SeverityWarn, Message: "load 3.1 on 2 cores", Fix: "stop the other work"}
	for _, tt := range []struct {
		name     string
		findings []observe.Finding
		strict   bool
		code     int
		want     string
	}{
		{"warn, strict", []observe.Finding{ok, warn, info}, true, exitGateFail,
			"rigor doctor: 1 finding would distort results\nwarn  load      load 3.1 on 2 cores\n                fix: stop the other work\ninfo  vm        none detected\nok    governor  performance\n"},
		{"warn, not strict", []observe.Finding{warn}, false, exitOK, "rigor doctor: 1 finding would distort results\n"},
		{"no warn, strict", []observe.Finding{ok, info}, true, exitOK, "rigor doctor: nothing found that would distort results\n"},
		{"two warns", []observe.Finding{warn, warn}, true, exitGateFail, "rigor doctor: 2 findings would distort results\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb strings.Builder
			o := &doctorOptions{format: "text", strict: tt.strict,
				check: func(context.Context, *model.Env) ([]observe.Finding, error) { return tt.findings, nil }}
			err := runDoctor(t.Context(), o, stdio{out: &out, err: &errb})
			code := exitOK
			var ee *exitError
			if errors.As(err, &ee) {
				code = ee.code
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code || !strings.HasPrefix(out.String(), tt.want) || errb.Len() != 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout starting %q", code, out.String(), errb.String(), tt.code, tt.want)
			}
		})
	}
}

func TestEnvDoctorUsage(t *testing.T) {
	for _, args := range [][]string{
		{"env", "--format", "xml"},
		{"doctor", "--format", "yaml"},
		{"env", "extra"},
		{"doctor", "--no-such-flag"},
	} {
		_, errOut, code := rigor(t, args...)
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", args, code, errOut)
		}
	}
}
