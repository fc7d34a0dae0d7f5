package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/url"
	"os"

	"github.com/spf13/pflag"

	"github.com/rigorbench/rigor/load"
	"github.com/rigorbench/rigor/model"
)

// workloadOptions are rigor ramp's flags for mixes of requests and for
// HTTPS test servers.
type workloadOptions struct {
	workload   string
	seed       uint64
	replay     string
	replayHost string
	pace       string
	insecure   bool
	cacert     string
	// changed reports whether a flag was given (cobra's Changed).
	changed func(name string) bool

	tls   *tls.Config    // from insecure and cacert
	wl    *load.Workload // read from workload
	rp    *load.Replay   // read from replay
	paces []float64
}

func addWorkloadFlags(f *pflag.FlagSet, o *workloadOptions) {
	f.StringVar(&o.workload, "workload", "", "send a mix of requests from a workload file: rigor's YAML or JSON, or vegeta's targets (docs/workload.md); URL, if given, is the base of relative URLs")
	f.Uint64Var(&o.seed, "seed", load.DefaultSeed, "seed of the workload's sequence of requests (default: the file's seed, else 1)")
	f.StringVar(&o.replay, "replay", "", "replay the requests recorded in a HAR file or an access log (common or combined format) to URL, once per step")
	f.StringVar(&o.replayHost, "replay-host", "", "replay the requests recorded for this host[:port] (default URL's host); requests for other hosts are skipped and counted, never sent")
	f.StringVar(&o.pace, "pace", "", "replay steps at the recorded pacing sped up by each factor, e.g. 1x or 1x,4x (open loop; the default without --concurrency or --ramp)")
	f.BoolVar(&o.insecure, "insecure", false, "do not verify the https server's certificate (a test server's self-signed one); prints a warning")
	f.StringVar(&o.cacert, "cacert", "", "trust the PEM CA certificates in FILE (and only them) for https")
}

// checkArgs checks rigor ramp's arguments: one URL, or none with a
// workload file whose URLs are absolute.
func (o *rampOptions) checkArgs(args []string) error {
	switch {
	case len(args) > 1:
		return usageErrorf("ramp takes one URL, got %d arguments", len(args))
	case len(args) == 0 && o.wl.workload == "":
		return usageErrorf("ramp takes one URL, got none")
	case o.wl.workload != "" && o.wl.replay != "":
		return usageErrorf("give --workload or --replay, not both")
	case o.wl.pace != "" && o.wl.replay == "":
		return usageErrorf("--pace paces a replay: give --replay FILE")
	case o.shard != "" && o.wl.replay != "":
		return usageErrorf("--shard does not apply to --replay: every shard would send the whole recording")
	case o.wl.replayHost != "" && o.wl.replay == "":
		return usageErrorf("--replay-host names the recorded host of a replay: give --replay FILE")
	}
	return nil
}

// anyTarget returns the target o's flags describe: the URL, or the
// workload file's mix. A workload's per-request SLOs join cfg's.
func (o *rampOptions) anyTarget(cfg *load.Config, s stdio) (load.Target, error) {
	var err error
	if o.wl.tls, err = load.TLSConfig(o.wl.insecure, o.wl.cacert); err != nil {
		return nil, usageErrorf("--cacert: %v", err)
	}
	if o.wl.replay != "" {
		return nil, o.replayTarget(cfg)
	}
	if o.wl.workload == "" {
		return o.target()
	}
	switch {
	case o.method != "":
		return nil, usageErrorf("-X does not apply to --workload: each request names its method")
	case o.data != "":
		return nil, usageErrorf("-d does not apply to --workload: each request names its body")
	}
	var base *url.URL
	if o.url != "" {
		if base, err = url.Parse(o.url); err != nil || !base.IsAbs() {
			return nil, usageErrorf("bad URL %q: want http://host[:port][/path] as the base of the workload's relative URLs", o.url)
		}
	}
	data, err := os.ReadFile(o.wl.workload)
	if err != nil {
		return nil, usageErrorf("--workload: %v", err)
	}
	w, err := load.ParseWorkload(o.wl.workload, data, base)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	if o.wl.set("seed") {
		w.Seed = o.wl.seed
	}
	o.wl.wl = w
	common, err := o.httpSpec()
	if err != nil {
		return nil, err
	}
	t, err := load.NewWorkload(w, common)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	if slos := w.RequestSLOs(); len(slos) > 0 {
		if cfg.SLO == nil {
			cfg.SLO = &model.RampSLO{}
		}
		cfg.SLO.Requests = slos
	}
	if cfg.Name == "" {
		cfg.Name = fmt.Sprintf("%s (%d requests)", o.wl.workload, len(w.Requests))
	}
	return t, nil
}

// reachableAll dials every host the ramp will send to.
func (o *rampOptions) reachableAll(ctx context.Context) error {
	if o.wl.wl == nil {
		return reachable(ctx, o.url, o.timeout)
	}
	seen := map[string]bool{}
	for _, r := range o.wl.wl.Requests {
		u, _ := url.Parse(r.URL)
		key := u.Scheme + "://" + u.Host
		if seen[key] {
			continue
		}
		seen[key] = true
		if err := reachable(ctx, key, o.timeout); err != nil {
			return err
		}
	}
	return nil
}

// ramp runs the ramp.
func (o *rampOptions) ramp(ctx context.Context, t load.Target, cfg load.Config, s stdio) (*model.Ramp, error) {
	if o.wl.insecure {
		fmt.Fprintln(s.err, "rigor: warning: --insecure: the server's TLS certificate is not verified, so anything on the path could pose as it; use it for test servers only")
	}
	if o.wl.rp != nil {
		return load.ReplayRamp(ctx, o.wl.rp, cfg, o.wl.paces)
	}
	return load.Ramp(ctx, t, cfg)
}

// replayTarget reads the replay's recording and steps.
func (o *rampOptions) replayTarget(cfg *load.Config) error {
	closed := o.concurrency != "" || o.rampSteps != ""
	switch {
	case o.method != "" || o.data != "":
		return usageErrorf("-X and -d do not apply to --replay: the recorded requests are sent as recorded")
	case o.rates != "":
		return usageErrorf("--rate does not apply to --replay: give --pace (the recorded pacing sped up) or --concurrency (as fast as that many workers can)")
	case o.wl.pace != "" && closed:
		return usageErrorf("give --pace (open loop) or --concurrency/--ramp (closed loop) to --replay, not both")
	case o.wl.set("warmup") || o.wl.set("duration"):
		return usageErrorf("--warmup and --duration do not apply to --replay: each step sends the whole recording once")
	}
	if !closed {
		cfg.Concurrency = nil
		pace := o.wl.pace
		if pace == "" {
			pace = "1x"
		}
		var err error
		if o.wl.paces, err = load.ParsePaces(pace); err != nil {
			return usageErrorf("--pace: %v", err)
		}
	}
	data, err := os.ReadFile(o.wl.replay)
	if err != nil {
		return usageErrorf("--replay: %v", err)
	}
	rec, err := load.ReadRecording(o.wl.replay, data)
	if err != nil {
		return usageErrorf("%v", err)
	}
	h, err := o.httpSpec()
	if err != nil {
		return err
	}
	if o.wl.rp, err = load.NewReplay(rec, o.wl.replayHost, h); err != nil {
		return usageErrorf("%v", err)
	}
	return nil
}

// set reports whether the flag name was given on the command line.
func (o *workloadOptions) set(name string) bool {
	return o.changed != nil && o.changed(name)
}
