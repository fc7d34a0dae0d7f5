package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rigorbench/rigor/load"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/report"
)

// maxShards bounds --shard's count.
const maxShards = 10000

// lateStart is how long after --start-at a shard may still begin.
const lateStart = time.Second

// addShardFlags registers rigor ramp's flags for load from several
// machines.
func addShardFlags(f *pflag.FlagSet, o *rampOptions) {
	f.StringVar(&o.shard, "shard", "", "run one generator's share INDEX/COUNT of every step (0/4 to 3/4), for rigor ramp merge; needs --format json")
	f.StringVar(&o.startAt, "start-at", "", "begin the first step at this time (RFC 3339, e.g. 2030-01-02T15:04:05Z), each later step on a fixed timeline, so that shards load together")
}

// shardConfig sets cfg's shard and start from --shard and --start-at.
func (o *rampOptions) shardConfig(cfg *load.Config) error {
	if o.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, o.startAt)
		if err != nil {
			return usageErrorf("--start-at %q: want an RFC 3339 time such as 2030-01-02T15:04:05Z", o.startAt)
		}
		if late := time.Since(t); late > lateStart {
			return usageErrorf("--start-at %s passed %v ago: the other shards began without this one", o.startAt, late.Round(time.Second))
		}
		cfg.Start = t
	}
	if o.shard == "" {
		return nil
	}
	i, n, ok := strings.Cut(o.shard, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || count > maxShards || index < 0 || index >= count {
		return usageErrorf("--shard %q: want INDEX/COUNT with INDEX from 0 to COUNT-1 (0/4 to 3/4), COUNT at most %d", o.shard, maxShards)
	}
	if o.format != "json" {
		return usageErrorf("--shard writes one generator's share for rigor ramp merge, which reads JSON: give --format json")
	}
	cfg.Shard = &load.Shard{Index: index, Count: count, Config: o.fingerprint()}
	for _, c := range cfg.Concurrency {
		if c < count {
			return usageErrorf("--shard %s: a step of concurrency %d cannot be shared by %d shards, each needs at least one worker: start the steps at %d or above", o.shard, c, count, count)
		}
	}
	return nil
}

// notFingerprinted are the flags shards of one ramp may differ in: the
// shard itself, the output, the target process on each machine, and the
// stopping rules, which shards do not apply.
var notFingerprinted = map[string]bool{"shard": true, "start-at": true, "format": true, "quiet": true, "pid": true, "knee": true, "keep-going": true}

// fingerprint hashes every flag of the ramp (set or default) but those
// shards may differ in, the URL, and the body read from a -d @file.
func (o *rampOptions) fingerprint() string {
	h := sha256.New()
	if o.flags != nil {
		o.flags.VisitAll(func(f *pflag.Flag) {
			if !notFingerprinted[f.Name] {
				fmt.Fprintf(h, "--%s=%q\n", f.Name, f.Value.String())
			}
		})
	}
	fmt.Fprintf(h, "url=%q\n", o.url)
	if path, ok := strings.CutPrefix(o.data, "@"); ok {
		if body, err := load.ReadBody(path); err == nil {
			b := sha256.Sum256(body)
			fmt.Fprintf(h, "body=%x\n", b)
		}
	}
	if o.wl.workload != "" {
		if b, err := os.ReadFile(o.wl.workload); err == nil {
			fmt.Fprintf(h, "workload=%x\n", sha256.Sum256(b))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// announceShard says on stderr when a shard waits for its start, or has
// none to share with the other shards.
func (o *rampOptions) announceShard(s stdio, cfg load.Config) {
	if o.quiet {
		return
	}
	if !cfg.Start.IsZero() {
		if d := time.Until(cfg.Start); d > 0 {
			fmt.Fprintf(s.err, "rigor ramp: waiting %v for --start-at %s\n", d.Round(time.Second), o.startAt)
		}
		return
	}
	if sh := cfg.Shard; sh != nil && sh.Count > 1 {
		fmt.Fprintf(s.err, "rigor ramp: shard %d/%d starts now; give every shard the same --start-at so that their steps coincide\n", sh.Index, sh.Count)
	}
}

// rampMergeOptions are rigor ramp merge's flags and arguments.
type rampMergeOptions struct {
	inputs []string
	format string
}

func newRampMergeCmd(s stdio) *cobra.Command {
	var o rampMergeOptions
	cmd := &cobra.Command{
		Use:   "merge [flags] FILE|DIR...",
		Short: "Merge the results of a ramp's shards, run from several machines, into one ramp",
		Long: `merge reads the JSON results of every shard of one ramp (rigor ramp --shard
INDEX/COUNT --format json), given as files or as directories whose *.json
files are read, and writes the ramp one generator sending all their load
would have reported. Per step the shards' requests, successes, errors, bytes
and throughputs add, and their latency histograms (kept in each step's
JSON) merge without loss: the merged percentiles are those of one histogram
of every shard's requests. A step is invalid when any shard's was: one shard
whose generator was saturated makes the step client-bound. It is invalid too
when the shards' measured windows overlapped for less than 90% of the
window, so that they did not load the target together. Gains, the SLO, the
Amdahl and USL fits, the headline and the bottleneck are then computed from
the merged steps. The generator's CPU shown is the busiest shard's.

It refuses (exit 2) shards of different configurations (request, steps,
timing, SLO, --start-at), and a set with a shard missing or given twice.

Exit status: 0; 1 when the ramp had an --slo and no merged step met it; 2
for unreadable or unmergeable input.`,
		Example: `  rigor ramp merge shard-0.json shard-1.json shard-2.json
  rigor ramp merge --format json results/ > merged.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("ramp merge takes the shards' results: files or directories")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.inputs = args
			return runRampMerge(&o, s)
		},
	}
	cmd.Flags().StringVar(&o.format, "format", "text", "output format: text, json, csv or md")
	return cmd
}

func runRampMerge(o *rampMergeOptions, s stdio) error {
	switch o.format {
	case "text", "md", "csv", "json":
	default:
		return usageErrorf("unknown --format %q: want text, json, csv or md", o.format)
	}
	var files []string
	for _, in := range o.inputs {
		fi, err := os.Stat(in)
		if err != nil {
			return usageErrorf("%v", err)
		}
		if !fi.IsDir() {
			files = append(files, in)
			continue
		}
		found, err := filepath.Glob(filepath.Join(in, "*.json"))
		if err != nil {
			return usageErrorf("%s: %v", in, err)
		}
		if len(found) == 0 {
			return usageErrorf("%s: no *.json shard results in the directory", in)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	var shards []load.ShardResult
	var start, end time.Time
	for _, f := range files {
		run, err := model.ReadFile(f, "")
		if err != nil {
			return usageErrorf("%v", err)
		}
		if run.Ramp == nil {
			return usageErrorf("%s: not a ramp result (kind %q)", f, run.Kind)
		}
		if start.IsZero() || run.Start.Before(start) {
			start = run.Start
		}
		if run.End.After(end) {
			end = run.End
		}
		shards = append(shards, load.ShardResult{Source: f, Ramp: run.Ramp})
	}
	r, err := load.MergeShards(shards)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if o.format == "json" {
		run := &model.Run{
			Kind:    model.KindRamp,
			Start:   start,
			End:     end,
			Command: append([]string{"rigor", "ramp", "merge"}, o.inputs...),
			Sides:   []model.Side{},
			Ramp:    r,
		}
		if err := run.WriteJSON(s.out); err != nil {
			return err
		}
	} else if err := report.RenderRamp(s.out, r, o.format); err != nil {
		return err
	}
	if r.SLO != nil && (r.Headline == nil || r.Headline.Basis != "slo") {
		return &exitError{code: exitGateFail}
	}
	return nil
}
