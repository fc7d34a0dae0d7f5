package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRampUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"ramp"},
		{"ramp", "ftp://127.0.0.1/"},
		{"ramp", "--ramp", "0..4x2", "http://127.0.0.1:1/"},
		{"ramp", "--ramp", "1..4x2", "--rate", "100", "http://127.0.0.1:1/"},
		{"ramp", "--slo", "p99=fast", "http://127.0.0.1:1/"},
		{"ramp", "--format", "yaml", "http://127.0.0.1:1/"},
		{"ramp", "-H", "no colon", "http://127.0.0.1:1/"},
		{"ramp", "-d", "@/nonexistent/body", "http://127.0.0.1:1/"},
		{"ramp", "--knee", "2", "http://127.0.0.1:1/"},
	} {
		_, stderr, code := rigor(t, args...)
		if code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
		if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 || !strings.HasPrefix(stderr, "rigor: ") {
			t.Errorf("%q: stderr should be one line, got %q", args, stderr)
		}
	}
}

func TestRampCommand(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	common := []string{"ramp", "-q", "--concurrency", "1,2", "--warmup", "0", "--duration", "100ms"}

	stdout, stderr, code := rigor(t, append(common, "--format", "json", srv.URL)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var run struct {
		SchemaVersion int    `json:"schema_version"`
		Kind          string `json:"kind"`
		Ramp          struct {
			Mode  string `json:"mode"`
			Steps []struct {
				Concurrency int     `json:"concurrency"`
				Throughput  float64 `json:"throughput"`
			} `json:"steps"`
		} `json:"ramp"`
	}
	if err := json.Unmarshal([]byte(stdout), &run); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if run.SchemaVersion < 1 || run.Kind != "ramp" || run.Ramp.Mode != "closed" || len(run.Ramp.Steps) != 2 || run.Ramp.Steps[1].Concurrency != 2 {
		t.Errorf("unexpected JSON: %+v", run)
	}

	// An SLO no step can meet: exit 1, and the report says so.
	stdout, _, code = rigor(t, append(common, "--slo", "p99=1ns", srv.URL)...)
	if code != exitGateFail || !strings.Contains(stdout, "no step met the SLO") {
		t.Errorf("unmeetable SLO: exit %d, output:\n%s", code, stdout)
	}
	// A generous one: exit 0.
	stdout, _, code = rigor(t, append(common, "--slo", "p99=10s,errors=1%", "--format", "md", srv.URL)...)
	if code != exitOK || !strings.Contains(stdout, "**Headline:**") {
		t.Errorf("met SLO: exit %d, output:\n%s", code, stdout)
	}
	stdout, _, code = rigor(t, append(common, "--format", "csv", srv.URL)...)
	if code != exitOK || strings.Count(stdout, "\n") != 3 {
		t.Errorf("csv: exit %d, output:\n%s", code, stdout)
	}
}
