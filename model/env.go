package model

// Env is the machine and toolchain a Run was measured on. Fields that could
// not be read are left empty; package observe fills it in.
type Env struct {
	GoVersion      string   `json:"go_version,omitempty"`
	GOOS           string   `json:"goos,omitempty"`
	GOARCH         string   `json:"goarch,omitempty"`
	GOMAXPROCS     int      `json:"gomaxprocs,omitempty"`
	CPUModel       string   `json:"cpu_model,omitempty"`
	PhysicalCores  int      `json:"physical_cores,omitempty"`
	LogicalCores   int      `json:"logical_cores,omitempty"`
	Kernel         string   `json:"kernel,omitempty"`
	Governor       string   `json:"governor,omitempty"`
	Turbo          string   `json:"turbo,omitempty"`
	ASLR           string   `json:"aslr,omitempty"`
	Virtualization string   `json:"virtualization,omitempty"`
	Container      string   `json:"container,omitempty"`
	MemTotalBytes  uint64   `json:"mem_total_bytes,omitempty"`
	Hostname       string   `json:"hostname,omitempty"`
	CommandLine    []string `json:"command_line,omitempty"`
}
