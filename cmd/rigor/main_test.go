package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCommandsHoldNoState: each execution builds its own command tree, so
// a flag given once does not outlive its command line. Before, the
// commands were one package-level tree whose flags kept their values: in
// one process, a compare with --max-regression 5 gated every later
// compare (the second call below exited 1).
func TestCommandsHoldNoState(t *testing.T) {
	if _, _, code := rigor(t, "compare", "--max-regression", "5", seedOpt, seedBase); code != exitGateFail {
		t.Fatalf("a regression with --max-regression 5: exit %d, want 1", code)
	}
	if _, stderr, code := rigor(t, "compare", seedOpt, seedBase); code != exitOK || stderr != "" {
		t.Errorf("the same regression without a gate: exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
}

// TestRootLists: every command is in the tree, with help and completion.
func TestRootLists(t *testing.T) {
	var names []string
	for _, c := range newRootCmd(stdio{}).Commands() {
		names = append(names, c.Name())
	}
	want := []string{"ab", "baseline", "bisect", "changes", "compare", "completion", "doctor", "env", "exec", "gc", "help", "history", "import", "lint", "merge", "ramp", "report", "run", "serve", "version"}
	if !slices.Equal(names, want) {
		t.Errorf("commands %q, want %q", names, want)
	}
}

// TestCommandListNames: each name in commands is the name of the command its
// constructor builds, so that newRootCmdFor runs the command a name asks
// for.
func TestCommandListNames(t *testing.T) {
	for _, c := range commands {
		if got := c.new(stdio{}).Name(); got != c.name {
			t.Errorf("commands lists %q for a command named %q", c.name, got)
		}
	}
}

// TestRootForSameAsWhole: a command run from the tree of that command
// alone (newRootCmdFor) prints and exits as from the whole tree, for its
// help, a bad flag, a missing argument and a run; other command lines
// (help, a mistyped command) get the whole tree.
func TestRootForSameAsWhole(t *testing.T) {
	run := func(build func(stdio, []string) *cobra.Command, args []string) (string, string, error) {
		var out, errb strings.Builder
		root := build(stdio{in: strings.NewReader(""), out: &out, err: &errb}, args)
		root.SetArgs(args)
		err := root.ExecuteContext(context.Background())
		return out.String(), errb.String(), err
	}
	whole := func(s stdio, _ []string) *cobra.Command { return newRootCmd(s) }
	s := stdio{in: strings.NewReader("")}
	lines := [][]string{{"compare", "--no-record", seedBase, seedOpt}, {"compare", "--nope"}, {"compare"}}
	for _, c := range commands {
		lines = append(lines, []string{c.name, "--help"}, []string{c.name, "-h"})
	}
	for _, args := range lines {
		if n := len(newRootCmdFor(s, args).Commands()); n > 3 { // the command, help, completion
			t.Errorf("%q: a tree of %d commands", args, n)
		}
		gotOut, gotErr, gotE := run(newRootCmdFor, args)
		wantOut, wantErr, wantE := run(whole, args)
		if gotOut != wantOut || gotErr != wantErr || fmt.Sprint(gotE) != fmt.Sprint(wantE) {
			t.Errorf("%q: alone\n%s%s%v\nin the whole tree\n%s%s%v", args, gotOut, gotErr, gotE, wantOut, wantErr, wantE)
		}
	}
	for _, args := range [][]string{nil, {"help"}, {"help", "compare"}, {"--help"}, {"compre"}, {"completion", "bash"}} {
		if got, want := len(newRootCmdFor(s, args).Commands()), len(newRootCmd(s).Commands()); got != want {
			t.Errorf("%q: %d commands, want the whole tree's %d", args, got, want)
		}
	}
}

// TestRunCompareDirect calls a command's run function with its options,
// as a test of a command's logic may: the output goes to the streams
// given, nothing else.
func TestRunCompareDirect(t *testing.T) {
	var out, errb strings.Builder
	o := &compareOptions{inputs: []string{seedBase, seedOpt}}
	o.verdict = verdictDefaults(t)
	if err := runCompare(context.Background(), o, stdio{out: &out, err: &errb}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "-90.13%") || errb.Len() != 0 {
		t.Errorf("stdout:\n%s\nstderr: %q", out.String(), errb.String())
	}
}

// verdictDefaults returns verdictFlags holding the flags' defaults.
func verdictDefaults(t *testing.T) verdictFlags {
	t.Helper()
	var f verdictFlags
	cmd := &cobra.Command{}
	f.register(cmd.Flags())
	return f
}

// TestLegacyAddCommand: a command still added the old way, with
// rootCmd.AddCommand in init, runs in every tree, on its streams.
func TestLegacyAddCommand(t *testing.T) {
	saved := rootCmd.cmds
	t.Cleanup(func() { rootCmd.cmds = saved })
	rootCmd.AddCommand(&cobra.Command{
		Use: "legacy",
		RunE: func(cmd *cobra.Command, args []string) error {
			s := cmdStdio(cmd)
			s.out.Write([]byte("legacy ran\n"))
			return usageErrorf("and failed")
		},
	})
	for range 2 {
		stdout, stderr, code := rigor(t, "legacy")
		if stdout != "legacy ran\n" || stderr != "rigor: and failed\n" || code != exitUsage {
			t.Errorf("legacy: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	}
}

// BenchmarkExecuteVersion is the start-up every command pays before its
// work, as rigor version pays it: the command tree for the command line
// (newRootCmdFor), flags parsed, the command run. "whole" builds every
// command, as newRootCmdFor does for help and a mistyped name.
func BenchmarkExecuteVersion(b *testing.B) {
	for _, bc := range []struct {
		name  string
		build func(stdio, []string) *cobra.Command
	}{
		{"for-args", newRootCmdFor},
		{"whole", func(s stdio, _ []string) *cobra.Command { return newRootCmd(s) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard}
			args := []string{"version"}
			b.ReportAllocs()
			for b.Loop() {
				root := bc.build(s, args)
				root.SetArgs(args)
				if err := root.ExecuteContext(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
