package observe

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeRoots points procRoot and sysRoot at a temporary tree holding files,
// for the duration of the test.
func fakeRoots(t *testing.T, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	oldProc, oldSys := procRoot, sysRoot
	procRoot, sysRoot = filepath.Join(dir, "proc"), filepath.Join(dir, "sys")
	t.Cleanup(func() { procRoot, sysRoot = oldProc, oldSys })
}

func TestEnvFromSysfs(t *testing.T) {
	fakeRoots(t, map[string]string{
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "powersave\n",
		"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor": "performance\n",
		"sys/devices/system/cpu/cpu2/cpufreq/scaling_governor": "powersave\n",
		"sys/devices/system/cpu/intel_pstate/no_turbo":         "0\n",
		"proc/sys/kernel/randomize_va_space":                   "2\n",
		"sys/class/net/eth0/device/vendor":                     "0x8086\n",
		"sys/class/net/eth0/speed":                             "1000\n",
		"sys/class/net/eth1/device/vendor":                     "0x8086\n",
		"sys/class/net/eth1/speed":                             "-1\n",    // link down
		"sys/class/net/veth0/speed":                            "10000\n", // virtual: no device
		"sys/class/power_supply/AC/type":                       "Mains\n",
		"sys/class/power_supply/AC/online":                     "0\n",
		"sys/class/power_supply/BAT0/type":                     "Battery\n",
		"sys/class/power_supply/BAT0/status":                   "Discharging\n",
		"sys/class/power_supply/BAT0/capacity":                 "45\n",
		"proc/cpuinfo":                                         "processor\t: 0\nflags\t\t: fpu sse2 hypervisor avx\n",
	})
	if got := governor(); got != "performance,powersave" {
		t.Errorf("governor = %q", got)
	}
	if got := turbo(); got != "on" {
		t.Errorf("turbo = %q, want on (no_turbo is 0)", got)
	}
	if got := aslr(); got != "full" {
		t.Errorf("aslr = %q", got)
	}
	if got := nicSpeed(); got != 125e6 { // 1000 Mbit/s / 8
		t.Errorf("nicSpeed = %v, want 1.25e8 bytes/s", got)
	}
	if got := power(); got != "battery 45%" {
		t.Errorf("power = %q", got)
	}
	if !cpuinfoHasFlag("hypervisor") || cpuinfoHasFlag("vmx") {
		t.Error("cpuinfo flags")
	}
}

func TestEnvBoostAndAbsent(t *testing.T) {
	fakeRoots(t, map[string]string{
		"sys/devices/system/cpu/cpufreq/policy0/boost": "0\n",
		"sys/devices/system/cpu/cpufreq/policy1/boost": "0\n",
		"sys/class/power_supply/BAT0/type":             "Battery\n",
		"sys/class/power_supply/BAT0/status":           "Charging\n",
		"proc/sys/kernel/randomize_va_space":           "0\n",
	})
	if got := turbo(); got != "off" {
		t.Errorf("turbo = %q, want off (every policy's boost is 0)", got)
	}
	if got := governor(); got != "" {
		t.Errorf("governor = %q, want empty without cpufreq", got)
	}
	if got := power(); got != "ac" {
		t.Errorf("power = %q, want ac (charging)", got)
	}
	if got := aslr(); got != "off" {
		t.Errorf("aslr = %q", got)
	}
	if got := nicSpeed(); got != 0 {
		t.Errorf("nicSpeed = %v, want 0", got)
	}
}

func TestCaptureEnvBasics(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	writeBandwidthCache(t, 12.5e9)
	e := CaptureEnv(t.Context())
	if e.GoVersion == "" || e.GOOS == "" || e.GOARCH == "" || e.GOMAXPROCS < 1 || len(e.CommandLine) == 0 {
		t.Errorf("toolchain fields missing: %+v", e)
	}
	if e.MemBandwidth != 12.5e9 {
		t.Errorf("memory bandwidth %v, want the cached 12.5e9", e.MemBandwidth)
	}
}
