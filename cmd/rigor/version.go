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
		Short: "Print rigor's version, the commit it was built from and its Go toolchain",
		Long: `version prints rigor's module version (a release tag, or the pseudo-version
go install and go build give a clone: v0.0.0-DATE-COMMIT), the commit it
was built from with "+dirty" for uncommitted changes, the Go toolchain and
the platform. A binary built without version control information (outside
a clone, or with -buildvcs=false) says "(devel)" and no commit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVersion(cmd.Context(), s)
		},
	}
}

// runVersion prints rigor's module version, the VCS revision it was
// built from, the Go version it was built with and the platform.
func runVersion(_ context.Context, s stdio) error {
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintf(s.out, "rigor %s %s/%s\n", versionWords(bi), runtime.GOOS, runtime.GOARCH)
	return nil
}

// versionWords says which rigor bi is: its module version ("(devel)"
// when none was stamped), then, when the build recorded them, the commit
// ("commit 0123456789ab", "+dirty" for uncommitted changes) and its date,
// then the Go version.
func versionWords(bi *debug.BuildInfo) string {
	if bi == nil {
		return "(devel) " + runtime.Version()
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var rev, at, modified string
	for _, st := range bi.Settings {
		switch st.Key {
		case "vcs.revision":
			rev = st.Value
		case "vcs.time":
			at = st.Value
		case "vcs.modified":
			modified = st.Value
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified == "true" {
			rev += "+dirty"
		}
		version += " commit " + rev
		if at != "" {
			version += " (" + at + ")"
		}
	}
	goVersion := bi.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	return version + " " + goVersion
}
