package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/host"
	"github.com/shirou/gopsutil/v4/mem"

	"github.com/rigorbench/rigor/internal/redact"
	"github.com/rigorbench/rigor/model"
)

// Roots of the pseudo file systems, variables so tests can point them at
// recorded trees.
var (
	procRoot = "/proc"
	sysRoot  = "/sys"
)

// CaptureEnv records the machine and toolchain this process runs on. It
// never fails: what cannot be read is left empty. The first call on a
// machine runs the memory bandwidth probe (a fraction of a second) and
// caches the result; later calls read the cache.
//
// Git revisions of the sides are not part of the environment; the code
// that builds each side records them in model.Side.
func CaptureEnv(ctx context.Context) model.Env {
	e := model.Env{
		GoVersion:   runtime.Version(),
		GOOS:        runtime.GOOS,
		GOARCH:      runtime.GOARCH,
		GOMAXPROCS:  runtime.GOMAXPROCS(0),
		CommandLine: redact.Args(os.Args), // a copy, without its secrets
	}
	e.GoToolchain, e.GoEnv = goToolchain(ctx)
	if infos, err := cpu.InfoWithContext(ctx); err == nil && len(infos) > 0 {
		e.CPUModel = strings.TrimSpace(infos[0].ModelName)
	}
	if n, err := cpu.CountsWithContext(ctx, true); err == nil {
		e.LogicalCores = n
	}
	if n, err := cpu.CountsWithContext(ctx, false); err == nil {
		e.PhysicalCores = n
	}
	if h, err := host.InfoWithContext(ctx); err == nil {
		e.Kernel = h.KernelVersion
		e.Hostname = h.Hostname
	}
	if e.Hostname == "" {
		e.Hostname, _ = os.Hostname()
	}
	if vm, err := mem.VirtualMemoryWithContext(ctx); err == nil {
		e.MemTotalBytes = vm.Total
	}
	e.Governor = governor()
	e.Turbo = turbo()
	e.ASLR = aslr()
	e.Virtualization = virtualization(ctx)
	e.Container = container(ctx)
	e.NICSpeed = nicSpeed()
	e.Perf = PerfStatus(ctx)
	e.Power = power()
	if bw, err := MemoryBandwidth(ctx); err == nil {
		e.MemBandwidth = bw
	}
	return e
}

// goToolchain returns what `go env GOVERSION` prints and the settings of
// goEnvKeys, or "" and nil without a go command.
func goToolchain(ctx context.Context) (string, map[string]string) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", append([]string{"env", "-json", "GOVERSION"}, goEnvKeys...)...).Output()
	if err != nil {
		return "", nil
	}
	var env map[string]string
	if json.Unmarshal(out, &env) != nil {
		return "", nil
	}
	version := env["GOVERSION"]
	delete(env, "GOVERSION")
	return version, env
}

// goEnvKeys are the go command's settings every run records in
// model.Env.GoEnv: they change the code built, so two runs that differ in
// them measured different programs.
var goEnvKeys = []string{"CGO_ENABLED", "GOEXPERIMENT", "GOFLAGS", "GOAMD64"}

// readTrim returns the trimmed contents of a small file, or "".
func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// governor joins the distinct cpufreq governors of all CPUs.
func governor() string {
	paths, _ := filepath.Glob(filepath.Join(sysRoot, "devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor"))
	var govs []string
	for _, p := range paths {
		if g := readTrim(p); g != "" && !slices.Contains(govs, g) {
			govs = append(govs, g)
		}
	}
	slices.Sort(govs)
	return strings.Join(govs, ",")
}

// turbo reads the boost state: intel_pstate's no_turbo (1 means off),
// else cpufreq's global boost switch, else per-policy boost (amd-pstate).
func turbo() string {
	switch readTrim(filepath.Join(sysRoot, "devices/system/cpu/intel_pstate/no_turbo")) {
	case "1":
		return "off"
	case "0":
		return "on"
	}
	onOff := func(s string) string {
		switch s {
		case "1":
			return "on"
		case "0":
			return "off"
		}
		return ""
	}
	if s := onOff(readTrim(filepath.Join(sysRoot, "devices/system/cpu/cpufreq/boost"))); s != "" {
		return s
	}
	paths, _ := filepath.Glob(filepath.Join(sysRoot, "devices/system/cpu/cpufreq/policy*/boost"))
	for _, p := range paths {
		if onOff(readTrim(p)) == "on" {
			return "on"
		}
	}
	if len(paths) > 0 {
		return "off"
	}
	return ""
}

// aslr describes kernel.randomize_va_space.
func aslr() string {
	switch readTrim(filepath.Join(procRoot, "sys/kernel/randomize_va_space")) {
	case "0":
		return "off"
	case "1":
		return "partial"
	case "2":
		return "full"
	}
	return ""
}

// detectVirt runs systemd-detect-virt with flag and returns its answer,
// or "" when it is absent or says "none".
func detectVirt(ctx context.Context, flag string) string {
	path, err := exec.LookPath("systemd-detect-virt")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, path, flag).Output() // exits 1 with "none"
	if s := strings.TrimSpace(string(out)); s != "none" {
		return s
	}
	return ""
}

// virtualization names the hypervisor: systemd-detect-virt, then the DMI
// vendor strings, then the CPU's hypervisor flag.
func virtualization(ctx context.Context) string {
	if v := detectVirt(ctx, "--vm"); v != "" {
		return v
	}
	dmi := strings.ToLower(readTrim(filepath.Join(sysRoot, "class/dmi/id/sys_vendor")) + " " +
		readTrim(filepath.Join(sysRoot, "class/dmi/id/product_name")))
	for _, known := range []struct{ substr, name string }{
		{"kvm", "kvm"}, {"qemu", "qemu"}, {"vmware", "vmware"}, {"virtualbox", "oracle"},
		{"xen", "xen"}, {"microsoft corporation virtual", "microsoft"}, {"amazon ec2", "amazon"},
		{"google compute engine", "google"}, {"bochs", "bochs"}, {"parallels", "parallels"},
	} {
		if strings.Contains(dmi, known.substr) {
			return known.name
		}
	}
	if cpuinfoHasFlag("hypervisor") {
		return "unknown hypervisor"
	}
	return ""
}

// cpuinfoHasFlag reports whether the first CPU's flags include flag.
func cpuinfoHasFlag(flag string) bool {
	b, err := os.ReadFile(filepath.Join(procRoot, "cpuinfo"))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "flags" {
			return slices.Contains(strings.Fields(v), flag)
		}
	}
	return false
}

// container names the container runtime, if this process runs in one.
func container(ctx context.Context) string {
	if v := detectVirt(ctx, "--container"); v != "" {
		return v
	}
	if c := os.Getenv("container"); c != "" {
		return c
	}
	if _, err := os.Stat("/.dockerenv"); err == nil {
		return "docker"
	}
	if _, err := os.Stat("/run/.containerenv"); err == nil {
		return "podman"
	}
	cg, _ := os.ReadFile(filepath.Join(procRoot, "1/cgroup"))
	for _, name := range []string{"docker", "kubepods", "containerd", "lxc"} {
		if bytes.Contains(cg, []byte(name)) {
			return name
		}
	}
	return ""
}

// nicSpeed is the fastest physical interface's speed in bytes per second.
// Virtual interfaces (no device link) report nominal or no speeds and
// are skipped.
func nicSpeed() float64 {
	dirs, _ := filepath.Glob(filepath.Join(sysRoot, "class/net/*"))
	best := 0.0
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "device")); err != nil {
			continue
		}
		mbit, err := strconv.ParseFloat(readTrim(filepath.Join(d, "speed")), 64)
		if err != nil || mbit <= 0 {
			continue
		}
		best = max(best, mbit*1e6/8)
	}
	return best
}

// power is "ac", "battery 45%", or "" when the machine has no battery.
// A discharging battery means the machine runs on it, whatever the mains
// supply says.
func power() string {
	dirs, _ := filepath.Glob(filepath.Join(sysRoot, "class/power_supply/*"))
	hasBattery, discharging := false, false
	charge := ""
	for _, d := range dirs {
		if readTrim(filepath.Join(d, "type")) != "Battery" {
			continue
		}
		hasBattery = true
		if readTrim(filepath.Join(d, "status")) == "Discharging" {
			discharging = true
			if c := readTrim(filepath.Join(d, "capacity")); c != "" {
				charge = c + "%"
			}
		}
	}
	switch {
	case !hasBattery:
		return ""
	case !discharging:
		return "ac"
	case charge != "":
		return "battery " + charge
	}
	return "battery"
}
