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
	workload string
	seed     uint64
	seedSet  bool
	insecure bool
	cacert   string

	tls *tls.Config    // from insecure and cacert
	wl  *load.Workload // read from workload
}

func addWorkloadFlags(f *pflag.FlagSet, o *workloadOptions) {
	f.StringVar(&o.workload, "workload", "", "send a mix of requests from a workload file: rigor's YAML or JSON, or vegeta's targets (see rigor help ramp); URL, if given, is the base of relative URLs")
	f.Uint64Var(&o.seed, "seed", load.DefaultSeed, "seed of the workload's sequence of requests (default: the file's seed, else 1)")
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
	if o.wl.seedSet {
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
	return load.Ramp(ctx, t, cfg)
}
