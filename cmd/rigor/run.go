package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/store"
)

// currentLabel labels the side rigor run measures.
const currentLabel = "current"

func init() {
	var (
		vf           verdictFlags
		mf           measureFlags
		side         sideFlags
		saveBaseline string
		baseline     string
		updateOnPass bool
	)
	cmd := &cobra.Command{
		Use:   "run [flags] [packages]",
		Short: "Benchmark the working tree in interleaved rounds; keep or check a baseline",
		Long: `run builds the working tree's test binaries and runs every benchmark in
shuffled rounds, with the calibration, stopping rule, profiling pass
(--profile) and files of rigor ab (current.txt in Go benchmark format,
run.json and profiles/, in --out or .rigor/runs/ID). Without a baseline it stops once every benchmark's median is
known to within the noise band.

--save-baseline NAME stores the result as .rigor/baselines/NAME.json in the
module root. --baseline NAME compares the result with a stored one: those
rounds were not run together with these, so the comparison is unpaired
(ratio of medians, Mann-Whitney U) and the output says so. With
--update-on-pass the baseline is replaced when the comparison passes: no
benchmark regressed by more than --max-regression (or, without it, none
regressed at all).

Exit status: 0, or 1 when --max-regression is set and a benchmark regressed by
more than it against the baseline, or 2 for bad input, a missing baseline, a
run where nothing could be measured, or an interrupted run.`,
		Example: `  rigor run --save-baseline main ./...
  rigor run --baseline main --max-regression 5 ./...
  rigor run --baseline main --update-on-pass --max-regression 5 ./...`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := vf.options()
			if err != nil {
				return err
			}
			mf.minRoundsSet = cmd.Flags().Changed("min-rounds")
			cfg, err := mf.config(args)
			if err != nil {
				return err
			}
			sd, err := side.side(currentLabel)
			if err != nil {
				return err
			}
			cfg.Sides = []gotest.Side{sd}
			cfg.Analysis, cfg.Seed = opts, vf.seed
			if updateOnPass && baseline == "" {
				return usageErrorf("--update-on-pass needs --baseline")
			}
			var st *store.Store
			if saveBaseline != "" || baseline != "" {
				for _, n := range []string{saveBaseline, baseline} {
					if n != "" {
						if err := store.CheckName(n); err != nil {
							return usageErrorf("%v", err)
						}
					}
				}
				root, err := store.ModuleRoot(".")
				if err != nil {
					return usageErrorf("%v", err)
				}
				st = store.Open(root)
			}
			var base *model.Run
			if baseline != "" {
				if base, err = st.Load(baseline); err != nil {
					return usageErrorf("%v", err)
				}
				if baseline == currentLabel {
					return usageErrorf("a baseline cannot be named %q, the label of the side being measured", currentLabel)
				}
				// Stop once every comparison with the baseline is
				// resolved.
				cfg.Unresolved = func(r *model.Run) ([]string, error) {
					against, err := store.Against(base, baseline, r)
					if err != nil {
						return nil, err
					}
					return experiment.Unresolved(against, opts)
				}
			}
			run, interrupted := measure(cmd, cfg)
			if run == nil {
				return interrupted
			}
			shown := run
			if base != nil {
				if shown, err = store.Against(base, baseline, run); err != nil {
					return usageErrorf("%v", err)
				}
			}
			rep, err := analysis.Analyze(shown, opts)
			if err != nil {
				return usageErrorf("%v", err)
			}
			if base != nil && !rep.Comparable() {
				return usageErrorf("no benchmark in common with the baseline %s", baseline)
			}
			result := finish(cmd, &vf, rep, interrupted)
			if interrupted != nil {
				return result // a partial run is never stored
			}
			stderr := cmd.ErrOrStderr()
			if saveBaseline != "" {
				if err := st.Save(saveBaseline, run); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "rigor: saved baseline %s (%s)\n", saveBaseline, st.BaselinePath(saveBaseline))
			}
			if updateOnPass {
				limit := vf.maxRegression
				if limit < 0 {
					limit = 0
				}
				if fails := vf.gate(rep, limit); len(fails) > 0 {
					fmt.Fprintf(stderr, "rigor: baseline %s kept: %d %s regressed\n", baseline, len(fails), plural(len(fails), "comparison", "comparisons"))
				} else if err := st.Save(baseline, run); err != nil {
					return errors.Join(result, err)
				} else {
					fmt.Fprintf(stderr, "rigor: the run passed; baseline %s updated\n", baseline)
				}
			}
			return result
		},
	}
	side.registerBuild(cmd.Flags(), "")
	cmd.Flags().StringVar(&saveBaseline, "save-baseline", "", "store the result as the baseline `NAME` (.rigor/baselines/NAME.json)")
	cmd.Flags().StringVar(&baseline, "baseline", "", "compare the result with the stored baseline `NAME` (unpaired)")
	cmd.Flags().BoolVar(&updateOnPass, "update-on-pass", false, "replace the --baseline with this result when no benchmark regressed beyond --max-regression")
	mf.register(cmd.Flags())
	vf.register(cmd.Flags())
	rootCmd.AddCommand(cmd)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
