package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print rigor's version and the Go toolchain it was built with",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			version := "(devel)"
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
				version = bi.Main.Version
			}
			fmt.Fprintf(cmd.OutOrStdout(), "rigor %s %s %s/%s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		},
	})
}
