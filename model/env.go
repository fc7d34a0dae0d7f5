package model

// Env is the machine and toolchain a Run was measured on. Fields that could
// not be read are left empty; package observe fills it in.
type Env struct {
	// GoVersion is the Go runtime rigor itself runs on; GoToolchain is the
	// version the go command on PATH reports (it builds the test binaries).
	GoVersion   string `json:"go_version,omitempty"`
	GoToolchain string `json:"go_toolchain,omitempty"`
	// GoEnv holds the go command's settings that change what a build
	// measures, as go env prints them (an empty GOEXPERIMENT is the
	// toolchain's default): CGO_ENABLED, GOEXPERIMENT, GOFLAGS and
	// GOAMD64. A side's own settings are in its Side.BuildEnv.
	GoEnv         map[string]string `json:"go_env,omitempty"`
	GOOS          string            `json:"goos,omitempty"`
	GOARCH        string            `json:"goarch,omitempty"`
	GOMAXPROCS    int               `json:"gomaxprocs,omitempty"`
	CPUModel      string            `json:"cpu_model,omitempty"`
	PhysicalCores int               `json:"physical_cores,omitempty"`
	LogicalCores  int               `json:"logical_cores,omitempty"`
	Kernel        string            `json:"kernel,omitempty"`
	// Governor is the cpufreq scaling governor; several values are joined
	// with "," when CPUs differ.
	Governor string `json:"governor,omitempty"`
	// Turbo is "on" or "off" (intel_pstate/no_turbo or cpufreq/boost).
	Turbo string `json:"turbo,omitempty"`
	// ASLR is "off", "partial" or "full" (kernel.randomize_va_space).
	ASLR string `json:"aslr,omitempty"`
	// Virtualization names the hypervisor ("kvm", "vmware", ...), or
	// "unknown hypervisor" when only the CPU's hypervisor flag says so.
	Virtualization string `json:"virtualization,omitempty"`
	// Container names the container runtime ("docker", "podman", ...).
	Container     string   `json:"container,omitempty"`
	MemTotalBytes uint64   `json:"mem_total_bytes,omitempty"`
	Hostname      string   `json:"hostname,omitempty"`
	CommandLine   []string `json:"command_line,omitempty"`

	// MemBandwidth is the memory copy bandwidth in bytes per second,
	// measured once per machine by a quick copy probe and cached.
	MemBandwidth float64 `json:"mem_bandwidth_bytes_per_sec,omitempty"`
	// NICSpeed is the fastest physical network interface's link speed in
	// bytes per second (from /sys/class/net/*/speed).
	NICSpeed float64 `json:"nic_speed_bytes_per_sec,omitempty"`
	// Perf says whether hardware instruction counts can be read: "available",
	// or why not ("not installed", "instructions:u not supported").
	Perf string `json:"perf,omitempty"`
	// Power is "ac", or "battery" with the charge, when a battery exists.
	Power string `json:"power,omitempty"`
}
