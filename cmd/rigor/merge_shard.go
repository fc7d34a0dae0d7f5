package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/model"
)

// shardFlags are rigor ab's and rigor run's flags for a suite split
// across machines (docs/shards.md).
type shardFlags struct {
	spec  string
	costs []string
	// fingerprint is the hash of the flags shards must share, and
	// options the analysis flags' values, which rigor merge uses: set
	// by parsed.
	fingerprint string
	options     map[string]string
}

func (f *shardFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.spec, "shard", "", "measure only the part `INDEX/COUNT` (0/4 to 3/4) of the selected benchmarks, split by their names alone (or --shard-costs), the same on every machine; merge the parts with rigor merge")
	fs.StringArrayVar(&f.costs, "shard-costs", nil, "with --shard, balance the parts by the costs measured in this earlier run (a results `directory` or run.json, repeatable: every shard's), which every machine must be given alike")
}

// analysisFlags are the flags whose values decide a verdict: rigor merge
// applies the shards' values unless it is given its own.
var analysisFlags = []string{"noise", "alpha", "confidence", "test", "correction", "resamples", "seed", "gate", "instructions-tolerance"}

// unfingerprinted are the flags shards of one suite may differ in: the
// shard itself, each machine's budget and output, the gate (applied to
// the merged report), the checks before timing and where results are
// recorded. --shard-costs names a file whose path may differ between
// machines: the costs' digest is compared instead (model.Shard).
var unfingerprinted = map[string]bool{
	"shard": true, "shard-costs": true, "time": true, "timeout": true, "out": true, "format": true, "style": true, "output": true,
	"verbose": true, "max-regression": true, "allow-missing": true, "plan": true, "no-check": true,
	"race-check": true, "record": true, "no-record": true, "store": true, "save-baseline": true, "update-on-pass": true,
}

// parsed computes the configuration fingerprint from every flag of cmd
// (set or defaulted) but unfingerprinted, the packages and the test
// arguments after --.
func (f *shardFlags) parsed(cmd *cobra.Command, packages, testArgs []string) {
	h := sha256.New()
	f.options = map[string]string{}
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if slices.Contains(analysisFlags, fl.Name) {
			f.options[fl.Name] = fl.Value.String()
		}
		if !unfingerprinted[fl.Name] {
			fmt.Fprintf(h, "--%s=%q\n", fl.Name, fl.Value.String())
		}
	})
	fmt.Fprintf(h, "packages=%q\nargs=%q\n", packages, testArgs)
	f.fingerprint = hex.EncodeToString(h.Sum(nil))[:16]
}

// config returns the gotest shard, nil without --shard.
func (f *shardFlags) config() (*gotest.Shard, error) {
	if f.spec == "" {
		if len(f.costs) > 0 {
			return nil, usageErrorf("--shard-costs balances the parts of --shard: give --shard too")
		}
		return nil, nil
	}
	i, n, err := gotest.ParseShard(f.spec)
	if err != nil {
		return nil, usageErrorf("--%v", err)
	}
	sh := &gotest.Shard{Index: i, Count: n, Config: f.fingerprint, Options: f.options}
	if len(f.costs) > 0 {
		var runs []*model.Run
		for _, p := range f.costs {
			r, err := readResults(p)
			if err != nil {
				return nil, usageErrorf("--shard-costs %s: %v", p, err)
			}
			runs = append(runs, r)
		}
		sh.Costs = gotest.ShardCosts(runs)
		if len(sh.Costs) == 0 {
			return nil, usageErrorf("--shard-costs: %s holds no sec/op samples to balance by", f.costs[0])
		}
	}
	return sh, nil
}

// readResults reads a results directory's run.json, or a rigor JSON file.
func readResults(p string) (*model.Run, error) {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		p = filepath.Join(p, "run.json")
	}
	return model.ReadFile(p, "")
}

// emptyShard reports whether run is a shard that holds no benchmark of
// its suite (more shards than benchmarks).
func emptyShard(run *model.Run) bool {
	return run != nil && run.Shard != nil && len(run.Shard.Benchmarks) == 0
}
