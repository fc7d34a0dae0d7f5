package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCmd(s stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print rigor's version and the Go toolchain it was built with",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVersion(cmd.Context(), s)
		},
	}
}

// runVersion prints rigor's module version, the Go version it was built
// with and the platform.
func runVersion(_ context.Context, s stdio) error {
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	fmt.Fprintf(s.out, "rigor %s %s %s/%s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
