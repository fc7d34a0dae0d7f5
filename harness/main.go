package harness

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rigorbench/rigor"
)

// Main measures groups from a program's main: it parses the command line
// (the -rigor.* flags, and any the program registered), measures each
// group, prints each report on standard output, and exits: 0 when all is
// well, 1 when the gate failed, 2 on a usage or measurement error or an
// interrupt (SIGINT or SIGTERM), after printing the report of the rounds
// completed.
func Main(groups ...*rigor.Group) {
	os.Exit(mainCode(os.Stdout, os.Stderr, groups))
}

func mainCode(stdout, stderr io.Writer, groups []*rigor.Group) int {
	registerFlags(flag.CommandLine)
	if !flag.Parsed() {
		flag.Parse()
	}
	o, err := readOptions(flag.CommandLine, os.LookupEnv)
	if err != nil {
		fmt.Fprintf(stderr, "rigor: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After the first interrupt, the next one ends the program at once.
		<-ctx.Done()
		stop()
	}()
	return runGroups(ctx, o, stdout, stderr, groups)
}

// runGroups measures and reports each group in turn, with the options o.
// Interrupted, it
// reports what the group being measured had completed, keeps the files
// of -rigor.out, and returns 2.
func runGroups(ctx context.Context, o *options, stdout, stderr io.Writer, groups []*rigor.Group) int {
	code := 0
	for _, g := range groups {
		if os.Getenv(envChild) != "" && !isChild(g.Name) {
			continue
		}
		out, err := mainGroup(ctx, o, stdout, g)
		if out != nil {
			for _, f := range out.Failures {
				fmt.Fprintf(stderr, "rigor: gate: %s\n", f)
				code = 1
			}
		}
		switch {
		case err != nil && ctx.Err() != nil && out != nil:
			fmt.Fprintf(stderr, "rigor: interrupted: the report of group %q above is partial%s\n", g.Name, o.keptWhere())
			return 2
		case err != nil:
			fmt.Fprintf(stderr, "rigor: %v\n", err)
			return 2
		}
	}
	return code
}

// keptWhere says where -rigor.out kept the results, if it did.
func (o *options) keptWhere() string {
	if o.out == "" {
		return ""
	}
	return "; the rounds measured are in " + o.out
}

// mainGroup measures and reports g with the options o. Interrupted, it reports the rounds
// completed and returns the outcome with the interrupt's error.
func mainGroup(ctx context.Context, o *options, stdout io.Writer, g *rigor.Group) (*Outcome, error) {
	cfg, err := o.apply(g.Config)
	if err != nil {
		return nil, err
	}
	m, err := measure(ctx, g, cfg, nil, o.out, o.files)
	if m == nil || m.child {
		return nil, err
	}
	out, ferr := o.finish(stdout, g.Name, m.cfg, m.run, m.resolution)
	if ferr != nil {
		return nil, ferr
	}
	return out, err
}
