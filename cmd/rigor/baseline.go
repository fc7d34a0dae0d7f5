package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
	"github.com/rigorbench/rigor/report"
	"github.com/rigorbench/rigor/store"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// storePointers are the named baselines of the history store at loc
// (store.Pointers), of project, on the machine this process runs on.
type storePointers struct {
	loc, root, project string
	here               *sqlstore.Machine // this machine, once asked for
}

// newPointers returns the named baselines of the store that --store (or
// $RIGOR_STORE, or .rigor/rigor.db in the module root) names; nil
// outside a module without a store named.
func newPointers(storeFlag string) *storePointers {
	root, _ := store.ModuleRoot(".")
	if root == "" && storeFlag == "" && os.Getenv(sqlstore.EnvStore) == "" {
		return nil
	}
	return &storePointers{loc: sqlstore.Default(storeFlag, root), root: root, project: projectOf(root)}
}

// machine returns this machine, as the runs measured here will record
// it.
func (p *storePointers) machine(ctx context.Context) sqlstore.Machine {
	if p.here == nil {
		m := thisMachine(ctx)
		p.here = &m
	}
	return *p.here
}

// thisMachine is the machine this process runs on, as the runs it
// measures record it (their environment's fingerprint).
func thisMachine(ctx context.Context) sqlstore.Machine {
	env := observe.CaptureEnv(ctx)
	return sqlstore.MachineOf(&model.Run{Env: &env})
}

func (p *storePointers) Load(ctx context.Context, name string) (*model.Run, error) {
	if !sqlstore.Exists(p.loc) {
		return nil, fmt.Errorf("baseline %s: %w", name, store.ErrNotFound)
	}
	st, err := sqlstore.Open(ctx, p.loc, sqlstore.Options{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	here := p.machine(ctx)
	b, err := st.Baseline(ctx, p.project, here.Fingerprint, name)
	if errors.Is(err, sqlstore.ErrNoBaseline) {
		all, lerr := st.Baselines(ctx, p.project)
		if lerr != nil {
			return nil, lerr
		}
		var others []string
		for _, o := range all {
			if o.Name == name {
				others = append(others, report.TerminalSafe(o.Machine.String()))
			}
		}
		if len(others) == 0 {
			return nil, fmt.Errorf("baseline %s: %w", name, store.ErrNotFound)
		}
		return nil, fmt.Errorf("baseline %s: %w on this machine (%s): it was %w, %s; results of different machines are not compared: save one here with --save-baseline %s",
			name, store.ErrNotFound, report.TerminalSafe(here.String()), store.ErrOtherMachine, strings.Join(others, "; "), name)
	}
	if err != nil {
		return nil, err
	}
	run, err := st.Run(ctx, b.RunID)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", name, err)
	}
	one, err := store.OneSide(run, b.Side)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", name, err)
	}
	return one, nil
}

func (p *storePointers) Save(ctx context.Context, name string, run *model.Run, label string) (string, error) {
	rec, err := recording(ctx, p.root, run)
	if err != nil {
		return "", err
	}
	st, err := sqlstore.Open(ctx, p.loc, sqlstore.Options{Create: true})
	if err != nil {
		return "", err
	}
	defer st.Close()
	got, err := st.Record(ctx, run, rec)
	if err != nil {
		return "", err
	}
	b, err := st.SetBaseline(ctx, rec.Project, name, got.ID, label, time.Now())
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("run %d in %s, machine %s", got.ID, locationName(p.loc), b.Machine.Fingerprint), nil
}

func (p *storePointers) Names(ctx context.Context) ([]string, error) {
	if !sqlstore.Exists(p.loc) {
		return nil, nil
	}
	st, err := sqlstore.Open(ctx, p.loc, sqlstore.Options{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	all, err := st.Baselines(ctx, p.project)
	if err != nil {
		return nil, err
	}
	here := p.machine(ctx).Fingerprint
	var names []string
	for _, b := range all {
		if b.Machine.Fingerprint == here {
			names = append(names, b.Name)
		}
	}
	return names, nil
}

// openBaselines loads the baseline to compare with as plan says, for rigor
// run, with stderr for a warning: a baseline read from a file that was
// measured on another machine, or says nothing of its machine, is
// compared (files are the user's to choose), but never silently. The
// warning is also returned, for the report's notes.
func openBaselines(ctx context.Context, plan store.Plan, rec *recordFlags, label string, s stdio) (*store.Lifecycle, string, error) {
	if rec.noRecord && (plan.Save != "" || plan.UpdateOnPass) {
		return nil, "", usageErrorf("--save-baseline and --update-on-pass record the run in the history store; they contradict --no-record")
	}
	var ptrs store.Pointers
	if p := newPointers(rec.store); p != nil {
		ptrs = p
	}
	life, err := plan.Open(ctx, ".", label, ptrs)
	if err != nil {
		return nil, "", usageErrorf("%s", storeError(err))
	}
	if life.File == "" {
		return life, "", nil
	}
	warning := fileMachineWarning(life.File, sqlstore.MachineOf(life.Base), thisMachine(ctx))
	if warning != "" {
		fmt.Fprintln(s.err, "rigor:", warning)
	}
	return life, warning, nil
}

// fileMachineWarning says, in one line, when the baseline in file was
// measured on another machine than here, or does not say where.
func fileMachineWarning(file string, base, here sqlstore.Machine) string {
	switch {
	case base.GOOS == "" && base.GOARCH == "" && base.CPUModel == "":
		return fmt.Sprintf("baseline %s does not say which machine it was measured on: the comparison is only sound if it was this one (%s)",
			report.TerminalSafe(file), report.TerminalSafe(here.String()))
	case base.Fingerprint != here.Fingerprint:
		return fmt.Sprintf("baseline %s was measured on another machine (%s), not this one (%s): the comparison mixes two machines' speeds",
			report.TerminalSafe(file), report.TerminalSafe(base.String()), report.TerminalSafe(here.String()))
	}
	return ""
}

// baselineOptions are rigor baseline's flags.
type baselineOptions struct {
	store   string
	side    string
	machine string
}

func newBaselineCmd(s stdio) *cobra.Command {
	var o baselineOptions
	cmd := &cobra.Command{
		Use:   "baseline",
		Short: "List, set and remove named baselines: pointers to recorded runs, per machine",
		Long: `A named baseline is a pointer to one side of a run recorded in the history
store, for this project and for the machine the run was measured on.
rigor run --save-baseline NAME records the run and points NAME at it; rigor
run --baseline NAME compares with this machine's NAME, and refuses, in one
line, a NAME saved on other machines only: results of different hardware
are never compared silently. --baseline also takes a file (rigor JSON, Go
benchmark output), and finds baselines saved as .rigor/baselines/NAME.json
by earlier versions of rigor when this machine has no pointer of the name.

  rigor baseline list              this project's baselines on every machine
  rigor baseline set NAME [RUN]    point NAME at a recorded run (default: the
                                   newest recorded on this machine)
  rigor baseline rm NAME           remove this machine's NAME (the run stays)

RUN is the number rigor prints when it records a run ("recorded run 12").
A run of several sides (rigor ab's old and new) needs --side.

Exit status: 0, or 2 for bad input: an unknown name, run or side, or no
store.`,
		Example: `  rigor run --save-baseline main ./...
  rigor baseline list
  rigor baseline set release-1.4 42 --side new
  rigor baseline rm old-main`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	registerStoreFlag(cmd.PersistentFlags(), &o.store)
	list := &cobra.Command{
		Use:   "list",
		Short: "List this project's baselines on every machine",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBaselineList(cmd.Context(), o, s)
		},
	}
	set := &cobra.Command{
		Use:   "set NAME [RUN]",
		Short: "Point the baseline NAME at a recorded run (default: the newest recorded on this machine)",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBaselineSet(cmd.Context(), o, args, s)
		},
	}
	set.Flags().StringVar(&o.side, "side", "", "the `label` of the run's side to point at (needed for a run of several sides: rigor ab's old or new)")
	rm := &cobra.Command{
		Use:     "rm NAME",
		Aliases: []string{"remove"},
		Short:   "Remove this machine's baseline NAME (the run it points at stays recorded)",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBaselineRemove(cmd.Context(), o, args[0], s)
		},
	}
	rm.Flags().StringVar(&o.machine, "machine", "", "remove another machine's baseline: its `fingerprint`, or a prefix of it")
	cmd.AddCommand(list, set, rm)
	return cmd
}

// openBaselineStore opens the store that o names, which must exist.
func openBaselineStore(ctx context.Context, o baselineOptions) (*storePointers, sqlstore.Store, error) {
	p := newPointers(o.store)
	if p == nil {
		return nil, nil, usageErrorf("no go.mod here, so no .rigor directory: give --store")
	}
	st, err := openStore(ctx, p.loc, false)
	if err != nil {
		return nil, nil, err
	}
	return p, st, nil
}

func runBaselineList(ctx context.Context, o baselineOptions, s stdio) error {
	p := newPointers(o.store)
	if p == nil {
		return usageErrorf("no go.mod here, so no .rigor directory: give --store")
	}
	var all []sqlstore.Baseline
	if sqlstore.Exists(p.loc) {
		st, err := openStore(ctx, p.loc, false)
		if err != nil {
			return err
		}
		defer st.Close()
		if all, err = st.Baselines(ctx, p.project); err != nil {
			return usageErrorf("%s", storeError(err))
		}
	}
	var files []string
	if p.root != "" {
		files, _ = store.Open(p.root).Baselines()
	}
	if len(all) == 0 && len(files) == 0 {
		fmt.Fprintf(s.out, "no baselines of %s saved (save one with rigor run --save-baseline NAME)\n", report.TerminalSafe(p.project))
		return nil
	}
	if len(all) > 0 {
		here := p.machine(ctx).Fingerprint
		tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tMACHINE\tRUN\tSIDE\tCOMMIT\tMEASURED\tSAVED")
		mine := false
		for _, b := range all {
			mark := ""
			if b.Machine.Fingerprint == here {
				mark, mine = " *", true
			}
			commit := shortHash(b.Commit)
			if b.Dirty {
				commit += "+dirty"
			}
			fmt.Fprintf(tw, "%s\t%s%s\t%d\t%s\t%s\t%s\t%s\n", report.TerminalSafe(b.Name), b.Machine.Fingerprint, mark, b.RunID,
				report.TerminalSafe(b.Side), commit, when(b.RunStart), when(b.Updated))
		}
		tw.Flush()
		if mine {
			fmt.Fprintf(s.out, "* this machine (%s)\n", report.TerminalSafe(p.machine(ctx).String()))
		} else {
			fmt.Fprintf(s.out, "none of them is this machine's (%s)\n", report.TerminalSafe(p.machine(ctx).String()))
		}
	}
	if len(files) > 0 {
		fmt.Fprintf(s.out, "saved as files by earlier versions (.rigor/baselines), used when this machine has no baseline of the name: %s\n", strings.Join(files, ", "))
	}
	return nil
}

func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

func runBaselineSet(ctx context.Context, o baselineOptions, args []string, s stdio) error {
	name := args[0]
	if err := store.CheckName(name); err != nil {
		return usageErrorf("%v", err)
	}
	var id int64
	if len(args) == 2 {
		n, err := strconv.ParseInt(strings.TrimPrefix(args[1], "#"), 10, 64)
		if err != nil || n < 1 {
			return usageErrorf("run %q: want the number of a recorded run (rigor prints it when it records one: \"recorded run 12\")", args[1])
		}
		id = n
	}
	p, st, err := openBaselineStore(ctx, o)
	if err != nil {
		return err
	}
	defer st.Close()
	here := p.machine(ctx)
	if id == 0 {
		if id, err = st.LatestRun(ctx, p.project, here.Fingerprint); err != nil {
			return usageErrorf("no run of %s recorded on this machine (%s): record one (rigor run --record), or name a run", report.TerminalSafe(p.project), report.TerminalSafe(here.String()))
		}
	}
	b, err := st.SetBaseline(ctx, p.project, name, id, o.side, time.Now())
	if errors.Is(err, sqlstore.ErrWhichSide) {
		return usageErrorf("%s with --side", storeError(err))
	}
	if err != nil {
		return usageErrorf("%s", storeError(err))
	}
	fmt.Fprintf(s.out, "baseline %s: run %d, side %s, commit %s, measured %s, machine %s\n", report.TerminalSafe(b.Name), b.RunID,
		report.TerminalSafe(b.Side), shortHash(b.Commit), when(b.RunStart), report.TerminalSafe(b.Machine.String()))
	if b.Machine.Fingerprint != here.Fingerprint {
		fmt.Fprintf(s.err, "rigor: run %d was measured on another machine than this one (%s): rigor run --baseline %s uses it there, not here\n",
			b.RunID, report.TerminalSafe(here.String()), report.TerminalSafe(b.Name))
	}
	return nil
}

func runBaselineRemove(ctx context.Context, o baselineOptions, name string, s stdio) error {
	if err := store.CheckName(name); err != nil {
		return usageErrorf("%v", err)
	}
	p, st, err := openBaselineStore(ctx, o)
	if err != nil {
		return err
	}
	defer st.Close()
	all, err := st.Baselines(ctx, p.project)
	if err != nil {
		return usageErrorf("%s", storeError(err))
	}
	var match, elsewhere []string
	for _, b := range all {
		if b.Name != name {
			continue
		}
		if o.machine != "" && strings.HasPrefix(b.Machine.Fingerprint, o.machine) || o.machine == "" && b.Machine.Fingerprint == p.machine(ctx).Fingerprint {
			match = append(match, b.Machine.Fingerprint)
		} else {
			elsewhere = append(elsewhere, b.Machine.Fingerprint)
		}
	}
	where := "this machine"
	if o.machine != "" {
		where = "machine " + report.TerminalSafe(o.machine)
	}
	switch {
	case len(match) == 0 && len(elsewhere) > 0:
		return usageErrorf("no baseline %s on %s (it is saved on %s: rigor baseline rm %s --machine FINGERPRINT)", name, where, strings.Join(elsewhere, ", "), name)
	case len(match) == 0:
		return usageErrorf("no baseline %s of %s (rigor baseline list shows them)", name, report.TerminalSafe(p.project))
	case len(match) > 1:
		return usageErrorf("--machine %s matches %d machines with a baseline %s (%s): give more of the fingerprint", report.TerminalSafe(o.machine), len(match), name, strings.Join(match, ", "))
	}
	if err := st.RemoveBaseline(ctx, p.project, match[0], name); err != nil {
		return usageErrorf("%s", storeError(err))
	}
	fmt.Fprintf(s.out, "removed baseline %s of machine %s (its run stays recorded)\n", name, match[0])
	return nil
}
