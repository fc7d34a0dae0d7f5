package observe

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCaptureEnvGoSettings: every run's environment records the go
// command's CGO_ENABLED and GOEXPERIMENT (they were only in the A/A
// fingerprint), as go env prints them, GOEXPERIMENT set here to show it
// is read and not assumed.
func TestCaptureEnvGoSettings(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	writeBandwidthCache(t, 12.5e9)
	t.Setenv("CGO_ENABLED", "0")
	t.Setenv("GOEXPERIMENT", "nogreenteagc")
	e := CaptureEnv(t.Context())
	if e.GoEnv["CGO_ENABLED"] != "0" || !strings.Contains(e.GoEnv["GOEXPERIMENT"], "nogreenteagc") {
		t.Errorf("GoEnv %v, want CGO_ENABLED=0 and GOEXPERIMENT with nogreenteagc", e.GoEnv)
	}
	for _, k := range goEnvKeys {
		if _, ok := e.GoEnv[k]; !ok {
			t.Errorf("GoEnv lacks %s: %v", k, e.GoEnv)
		}
	}
}
