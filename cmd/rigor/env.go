package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
)

// envOptions are rigor env's flags.
type envOptions struct {
	format string
}

func newEnvCmd(s stdio) *cobra.Command {
	var o envOptions
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Print the machine and toolchain every run records",
		Long: `env prints what rigor records about the machine with every run: Go version,
CPU, cores, kernel, frequency governor, turbo, ASLR, virtualization, memory,
and the physical limits sanity checks use (memory bandwidth, measured once by
a copy probe and cached; NIC speed).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEnv(cmd.Context(), &o, s)
		},
	}
	cmd.Flags().StringVar(&o.format, "format", "text", "output format: text or json")
	return cmd
}

// runEnv prints what every run records about the machine.
func runEnv(ctx context.Context, o *envOptions, s stdio) error {
	if o.format != "text" && o.format != "json" {
		return usageErrorf("unknown --format %q (want text or json)", o.format)
	}
	env := observe.CaptureEnv(ctx)
	if o.format == "json" {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		return enc.Encode(env)
	}
	return writeEnv(s.out, &env)
}

// writeEnv prints env as aligned "name  value" lines; what could not be
// read says so rather than printing nothing.
func writeEnv(w io.Writer, e *model.Env) error {
	or := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	si := observe.FormatBytes
	goLine := e.GoVersion
	if e.GoToolchain != "" && e.GoToolchain != e.GoVersion {
		goLine += " (go command: " + e.GoToolchain + ")"
	}
	cpu := or(e.CPUModel, "(unknown model)")
	if e.PhysicalCores > 0 {
		cpu += fmt.Sprintf(", %d cores", e.PhysicalCores)
	}
	if e.LogicalCores > 0 {
		cpu += fmt.Sprintf(", %d logical CPUs", e.LogicalCores)
	}
	memory := "(unknown)"
	if e.MemTotalBytes > 0 {
		memory = si(float64(e.MemTotalBytes))
	}
	if e.MemBandwidth > 0 {
		memory += ", copy bandwidth " + si(e.MemBandwidth) + "/s"
	}
	nic := "(no physical interface with a known speed)"
	if e.NICSpeed > 0 {
		nic = si(e.NICSpeed) + "/s (" + fmt.Sprintf("%.0f Mbit/s", e.NICSpeed*8/1e6) + ")"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, row := range [][2]string{
		{"go", goLine},
		{"go env", or(goEnvLine(e.GoEnv), "(no go command)")},
		{"os/arch", e.GOOS + "/" + e.GOARCH},
		{"gomaxprocs", fmt.Sprint(e.GOMAXPROCS)},
		{"cpu", cpu},
		{"kernel", or(e.Kernel, "(unknown)")},
		{"governor", or(e.Governor, "(not exposed)")},
		{"turbo", or(e.Turbo, "(not readable)")},
		{"aslr", or(e.ASLR, "(not readable)")},
		{"vm", or(e.Virtualization, "none detected")},
		{"container", or(e.Container, "none detected")},
		{"memory", memory},
		{"nic", nic},
		{"perf", or(e.Perf, "(not checked)")},
		{"power", or(e.Power, "no battery")},
		{"host", or(e.Hostname, "(unknown)")},
		{"command", strings.Join(e.CommandLine, " ")},
	} {
		fmt.Fprintf(tw, "%s\t%s\n", row[0], row[1])
	}
	return tw.Flush()
}

// goEnvLine is the go command's recorded settings as KEY=VALUE words in
// key order: "CGO_ENABLED=1 GOEXPERIMENT= GOFLAGS=".
func goEnvLine(env map[string]string) string {
	var words []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		words = append(words, k+"="+env[k])
	}
	return strings.Join(words, " ")
}
