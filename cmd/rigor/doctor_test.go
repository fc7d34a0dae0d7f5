package main

import (
	"encoding/json"
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
	// --strict exits 1 exactly when a finding warns. The machine may change
	// between two runs (load comes and goes), so judge the run's own output.
	out, _, code = rigor(t, "doctor", "--strict")
	warned := strings.Contains(out, "\nwarn ")
	if (code == 1) != warned || (code != 0 && code != 1) {
		t.Errorf("--strict exit %d with warnings %v:\n%s", code, warned, out)
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
