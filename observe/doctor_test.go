package observe

import (
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

func findings(fs []Finding) map[string]Finding {
	m := map[string]Finding{}
	for _, f := range fs {
		m[f.Check] = f
	}
	return m
}

// A tuned bare-metal machine at rest: nothing to warn about.
func TestDiagnoseQuiet(t *testing.T) {
	env := &model.Env{Governor: "performance", Turbo: "off", ASLR: "off", LogicalCores: 8, PhysicalCores: 8,
		GOMAXPROCS: 8, MemTotalBytes: 32 << 30, Perf: PerfAvailable}
	s := MachineSample{Duration: time.Second, MemAvailable: 30 << 30,
		System: &model.SystemStats{CPUs: 8, User: 0.01, System: 0.01, Idle: 0.98, Load1: 0.2}, OthersCPUShare: 0.02}
	fs := Diagnose(env, s)
	if Strict(fs) {
		t.Errorf("warnings on a quiet machine: %+v", fs)
	}
	for _, check := range []string{"governor", "turbo", "load", "steal", "cores", "memory", "aslr"} {
		if f, ok := findings(fs)[check]; !ok || f.Severity != SeverityOK {
			t.Errorf("%s: %+v, want ok", check, f)
		}
	}
	for _, check := range []string{"vm", "container", "battery", "perf", "gomaxprocs", "swap", "pressure"} {
		if f, ok := findings(fs)[check]; ok {
			t.Errorf("%s reported on a quiet machine: %+v", check, f)
		}
	}
}

// A laptop in a bad state: each problem is a warning with a fix.
func TestDiagnoseNoisy(t *testing.T) {
	env := &model.Env{Governor: "powersave", Turbo: "on", ASLR: "full", LogicalCores: 8, PhysicalCores: 4,
		GOMAXPROCS: 4, MemTotalBytes: 8 << 30, Power: "battery 45%", Virtualization: "kvm", Container: "docker",
		Perf: "unavailable: perf is not installed"}
	s := MachineSample{Duration: time.Second, MemAvailable: 300 << 20, SwapUsed: 1 << 30, OthersCPUShare: 0.43,
		System: &model.SystemStats{CPUs: 8, User: 0.4, System: 0.05, Steal: 0.04, Idle: 0.51, Load1: 6, CPUPressure: 25},
		Top:    []ProcessCPU{{PID: 4242, Name: "cc1", CPUs: 2.5}, {PID: 7, Name: "gopls", CPUs: 0.6}}}
	fs := Diagnose(env, s)
	got := findings(fs)
	for _, check := range []string{"governor", "turbo", "load", "pressure", "steal", "memory", "battery"} {
		f := got[check]
		if f.Severity != SeverityWarn || f.Fix == "" {
			t.Errorf("%s: %+v, want a warning with a fix", check, f)
		}
	}
	for _, check := range []string{"aslr", "vm", "container", "perf", "cores", "gomaxprocs", "swap"} {
		if got[check].Severity != SeverityInfo {
			t.Errorf("%s: %+v, want info", check, got[check])
		}
	}
	if msg := got["load"].Message; !strings.Contains(msg, "43%") || !strings.Contains(msg, "cc1 (pid 4242) 250% of a CPU") {
		t.Errorf("load message %q does not name the busy process", msg)
	}
	if !strings.Contains(got["governor"].Message, "powersave") || !strings.Contains(got["steal"].Message, "4%") {
		t.Errorf("messages: %q / %q", got["governor"].Message, got["steal"].Message)
	}
	if !Strict(fs) {
		t.Error("Strict = false with warnings")
	}
}

// Load above the cores warns even when the busy processes were not
// caught in the window.
func TestDiagnoseLoadOnly(t *testing.T) {
	s := MachineSample{Duration: time.Second, System: &model.SystemStats{CPUs: 2, Idle: 0.95, Load1: 5}}
	if f := findings(Diagnose(nil, s))["load"]; f.Severity != SeverityWarn || !strings.Contains(f.Message, "5.0 on 2") {
		t.Errorf("load: %+v", f)
	}
}

// Without a sample (not Linux) the static checks remain.
func TestDiagnoseNoSample(t *testing.T) {
	fs := Diagnose(&model.Env{Governor: "performance", LogicalCores: 1}, MachineSample{})
	got := findings(fs)
	if _, ok := got["load"]; ok {
		t.Error("load judged without a sample")
	}
	if got["cores"].Severity != SeverityWarn {
		t.Errorf("one CPU: %+v", got["cores"])
	}
}
