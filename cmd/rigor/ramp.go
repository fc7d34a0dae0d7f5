package main

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rigorbench/rigor/internal/redact"
	"github.com/rigorbench/rigor/load"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
	"github.com/rigorbench/rigor/report"
)

// rampOptions are rigor ramp's flags and argument.
type rampOptions struct {
	url         string
	method      string
	headers     []string
	data        string
	timeout     time.Duration
	noKeepAlive bool
	http2       bool
	concurrency string
	rampSteps   string
	rates       string
	warmup      time.Duration
	duration    time.Duration
	knee        float64
	slos        []string
	keepGoing   bool
	pid         int
	maxWorkers  int
	successes   string
	format      string
	quiet       bool
	wl          workloadOptions
	// command is the command line the JSON records (os.Args).
	command []string
	// Load from several machines (rampmerge.go).
	shard, startAt string
	flags          *pflag.FlagSet
}

func newRampCmd(s stdio) *cobra.Command {
	var o rampOptions
	cmd := &cobra.Command{
		Use:   "ramp [flags] [URL]",
		Short: "Ramp load on an HTTP endpoint and find where it stops scaling",
		Long: `ramp sends load to URL in steps of rising concurrency (closed loop) or rate
(open loop). Each step has a warm-up and a measured window, and records the
successful throughput (errors never count), offered and achieved rates, the
latency distribution (HDR histogram: p50, p90, p99, p99.9, max), errors by
class, bytes/s, and the generator's own CPU and Go scheduler latency: a step
where the generator was saturated, or sent less than 95% of the offered
rate, is marked INVALID because it measured rigor rather than the target.

In the open loop (--rate) latency counts from each request's intended start,
so a stalled target is not hidden by the generator waiting for it
(coordinated omission); the latency from the actual send is shown beside it.

Amdahl's law and the Universal Scalability Law are fitted to the closed-loop
steps. The headline is the highest throughput whose step met --slo, quoted
with its p99, not the peak. With --pid, the target process's CPU time and
context switches are recorded, and the report names the bottleneck:
lock-bound, cpu-bound or client-bound.

A response is a success only when its status is a success code: 2xx unless
--success-codes lists others (200-299,304). Redirects are not followed: a 3xx
is the response measured, a failure of its own class ("status 302") unless
listed. A request still in flight when a step's window ends (a stalled one)
is not dropped: it is in the latency at its age, at least its age at the
window's end, and the report says how many there were. In the open loop,
requests the generator could not send on schedule are counted as not sent,
and the step ends with its window whatever the rate.

Plain http:// over HTTP/1.1 uses rigor's own lean client (one keep-alive
connection per worker); on Linux its closed loop runs on an event loop (an
OS thread per 32 connections, each polling its own with epoll). https:// and --http2 use Go's net/http: --http2 is
negotiated by ALPN over TLS, and is sent with prior knowledge (h2c) to
http:// URLs.

When one machine cannot load the target, run the ramp from N machines with
--shard 0/N .. N-1/N and the same --start-at, and merge their JSON with
'rigor ramp merge' (see docs/ramp-shards.md): each shard runs c/N of a step's
c workers (the first c%N shards one more) or r/N of its rate, and every step.

--workload FILE sends a mix of requests, each picked by its weight (rigor's
YAML or JSON: name, method, url, headers, body or body_file, weight, think,
slo; or vegeta's targets), and reports each request as well as the whole.
--replay FILE sends the requests a HAR file or an access log recorded for
--replay-host (default URL's host) to URL, never to another host, once per
step: at the recorded pacing sped up by --pace (1x,4x), or as fast as
--concurrency workers can; it does not react to latency as real clients do.
See docs/workload.md. --cacert and --insecure are for https test servers.

Exit status: 0; 1 when --slo is given and no step met it (never for a
--shard, which only the merge judges); 2 for bad flags or URL, or an
interrupted ramp (the steps that completed are printed).`,
		Example: `  rigor ramp --ramp 1..64x2 http://127.0.0.1:8080/
  rigor ramp --concurrency 1,2,4,8 --slo p99=50ms,errors=1% --pid 1234 http://127.0.0.1:8080/
  rigor ramp --rate 1000,2000,4000 --duration 10s http://127.0.0.1:8080/api
  rigor ramp -X POST -H 'Content-Type: application/json' -d @body.json --ramp 1..32x2 http://127.0.0.1:8080/v1/items
  rigor ramp --workload mix.yaml --ramp 1..64x2 http://127.0.0.1:8080/
  rigor ramp --replay access.log --pace 1x,4x http://127.0.0.1:8080`,
		Args: func(cmd *cobra.Command, args []string) error { return o.checkArgs(args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.url = args[0]
			}
			o.wl.changed = cmd.Flags().Changed
			o.command = os.Args
			o.flags = cmd.Flags()
			return runRamp(cmd.Context(), &o, s)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.method, "method", "X", "", "HTTP method (default GET, or POST with -d)")
	f.StringArrayVarP(&o.headers, "header", "H", nil, "request header 'Name: value' (repeatable)")
	f.StringVarP(&o.data, "data", "d", "", fmt.Sprintf("request body, or @file to read it from a file (at most %d MiB)", load.MaxBody>>20))
	f.StringVar(&o.successes, "success-codes", "200-299", "HTTP statuses that count as successes, e.g. 200-299,304 or 2xx,3xx; any other status is a failure (redirects are not followed)")
	f.DurationVar(&o.timeout, "timeout", 10*time.Second, "per-request timeout, connection included (0 for none)")
	f.BoolVar(&o.noKeepAlive, "no-keepalive", false, "open a new connection for every request")
	f.BoolVar(&o.http2, "http2", false, "speak HTTP/2 (ALPN over https, prior-knowledge h2c over http)")
	f.StringVar(&o.concurrency, "concurrency", "", "closed-loop steps: workers per step, e.g. 1,2,4,8")
	f.StringVar(&o.rampSteps, "ramp", "", "closed-loop steps as a range, e.g. 1..64x2 or 8..64+8 (default 1..64x2)")
	f.StringVar(&o.rates, "rate", "", "open-loop steps in requests/s, e.g. 1000,2000 or 500..4000x2")
	f.DurationVar(&o.warmup, "warmup", load.DefaultWarmup, "unmeasured warm-up before each step (0 for none)")
	f.DurationVar(&o.duration, "duration", load.DefaultDuration, "measured window of each step")
	f.Float64Var(&o.knee, "knee", 0.05, "stop after two steps in a row each gain less than this fraction of throughput (0 never stops)")
	f.StringArrayVar(&o.slos, "slo", nil, "objective per step: p50|p90|p99|p99.9|max=DURATION and/or errors=PERCENT, e.g. p99=50ms,errors=1%")
	f.BoolVar(&o.keepGoing, "keep-going", false, "run every step even after one breaks the SLO")
	f.IntVar(&o.pid, "pid", 0, "target process ID: record its CPU time and context switches (Linux)")
	f.IntVar(&o.maxWorkers, "max-workers", load.DefaultMaxWorkers, "open loop: most workers (connections) to keep the schedule")
	f.StringVar(&o.format, "format", "text", "output format: text, json, csv or md")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress lines on stderr")
	addShardFlags(f, &o)
	cmd.AddCommand(newRampMergeCmd(s))
	addWorkloadFlags(f, &o.wl)
	return cmd
}

// runRamp ramps load on o.url and prints the ramp; with an SLO that no
// step met it exits 1.
func runRamp(ctx context.Context, o *rampOptions, s stdio) error {
	cfg, err := o.config()
	if err != nil {
		return err
	}
	target, err := o.anyTarget(&cfg, s)
	if err != nil {
		return err
	}
	if err := o.reachableAll(ctx); err != nil {
		return usageErrorf("%v", err)
	}
	if !o.quiet {
		cfg.Progress = func(st model.RampStep) {
			lvl := fmt.Sprintf("concurrency %d", st.Concurrency)
			if st.Rate > 0 {
				lvl = fmt.Sprintf("rate %g/s", st.Rate)
			}
			if st.Pace > 0 {
				lvl = fmt.Sprintf("pace %gx (%.0f/s)", st.Pace, st.Rate)
			}
			valid := ""
			if !st.Valid {
				valid = "  INVALID"
			}
			fmt.Fprintf(s.err, "rigor ramp: step %d, %s: %.0f ok/s, p99 %v, errors %.2f%%%s\n",
				st.Index+1, lvl, st.Throughput, st.Latency.P99.Round(time.Microsecond), 100*st.ErrorRate, valid)
		}
	}
	var env *model.Env
	if o.format == "json" {
		e := observe.CaptureEnv(ctx)
		env = &e
	}
	o.announceShard(s, cfg)
	start := time.Now()
	r, err := o.ramp(ctx, target, cfg, s)
	if err != nil {
		return usageErrorf("%v", err)
	}
	// The target is the URL as given: without its password or a query
	// parameter named like a secret, as the command line is recorded.
	r.Target = redact.String(r.Target)
	// Ctrl-C: print what completed, and exit 2 as any interrupted run
	// does.
	interrupted := ctx.Err() != nil
	stopped := cmp.Or(r.Stopped, "interrupted")
	if interrupted && len(r.Steps) == 0 {
		return usageErrorf("%s, before any step completed: nothing to report", stopped)
	}
	if o.format == "json" {
		var args []string
		if len(o.command) > 0 {
			args = o.command[1:]
		}
		run := &model.Run{
			Kind:    model.KindRamp,
			Start:   start,
			End:     time.Now(),
			Command: append([]string{"rigor"}, args...),
			Env:     env,
			Sides:   []model.Side{},
			Ramp:    r,
		}
		if err := run.WriteJSON(s.out); err != nil {
			return err
		}
	} else if err := report.RenderRamp(s.out, r, o.format); err != nil {
		return err
	}
	if interrupted {
		return usageErrorf("%s: the result above is partial", stopped)
	}
	if cfg.SLO != nil && cfg.Shard == nil && (r.Headline == nil || r.Headline.Basis != "slo") {
		return &exitError{code: exitGateFail}
	}
	return nil
}

// config checks the ramp's flags and returns its configuration.
func (o *rampOptions) config() (load.Config, error) {
	cfg := load.Config{
		Warmup:     o.warmup,
		Duration:   o.duration,
		Knee:       o.knee,
		KeepGoing:  o.keepGoing,
		PID:        o.pid,
		MaxWorkers: o.maxWorkers,
	}
	if o.warmup == 0 {
		cfg.Warmup = -1 // --warmup 0 means none
	}
	if o.duration <= 0 {
		return cfg, usageErrorf("--duration must be positive")
	}
	if !(o.knee >= 0 && o.knee < 1) {
		return cfg, usageErrorf("--knee must be between 0 and 1 (0.05 is 5%%), got %v", o.knee)
	}
	switch {
	case o.warmup < 0:
		return cfg, usageErrorf("--warmup must not be negative (0 for none), got %v", o.warmup)
	case o.timeout < 0:
		return cfg, usageErrorf("--timeout must not be negative (0 for none), got %v", o.timeout)
	case o.pid < 0:
		return cfg, usageErrorf("--pid must be a process ID, got %d", o.pid)
	case o.maxWorkers < 1:
		return cfg, usageErrorf("--max-workers must be at least 1, got %d", o.maxWorkers)
	}
	switch o.format {
	case "text", "md", "csv", "json":
	default:
		return cfg, usageErrorf("unknown --format %q: want text, json, csv or md", o.format)
	}
	var err error
	n := 0
	for _, s := range []string{o.concurrency, o.rampSteps, o.rates} {
		if s != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return cfg, usageErrorf("give one of --concurrency, --ramp and --rate")
	case o.rates != "":
		if cfg.Rates, err = load.ParseRates(o.rates); err != nil {
			return cfg, usageErrorf("--rate: %v", err)
		}
	case o.rampSteps != "":
		if cfg.Concurrency, err = load.ParseConcurrency(o.rampSteps); err != nil {
			return cfg, usageErrorf("--ramp: %v", err)
		}
	case o.concurrency != "":
		if cfg.Concurrency, err = load.ParseConcurrency(o.concurrency); err != nil {
			return cfg, usageErrorf("--concurrency: %v", err)
		}
	default:
		cfg.Concurrency, _ = load.ParseConcurrency("1..64x2")
	}
	for _, s := range o.slos {
		if cfg.SLO, err = load.ParseSLO(s, cfg.SLO); err != nil {
			return cfg, usageErrorf("--slo: %v", err)
		}
	}
	return cfg, o.shardConfig(&cfg)
}

// target checks the request flags and returns the target they describe.
func (o *rampOptions) target() (load.Target, error) {
	h, err := o.httpSpec()
	if err != nil {
		return nil, err
	}
	target, err := load.NewHTTP(h)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return target, nil
}

// httpSpec checks the request flags and returns the request they describe.
func (o *rampOptions) httpSpec() (load.HTTP, error) {
	h := load.HTTP{
		Method:           o.method,
		URL:              o.url,
		Header:           http.Header{},
		Timeout:          o.timeout,
		DisableKeepAlive: o.noKeepAlive,
		HTTP2:            o.http2,
		TLS:              o.wl.tls,
	}
	for _, kv := range o.headers {
		k, v, err := load.ParseHeader(kv)
		if err != nil {
			return h, usageErrorf("-H %q: %v", kv, err)
		}
		h.Header.Add(k, v)
	}
	var err error
	if h.SuccessCodes, err = load.ParseStatusCodes(o.successes); err != nil {
		return h, usageErrorf("--success-codes: %v", err)
	}
	if o.data != "" {
		if path, ok := strings.CutPrefix(o.data, "@"); ok {
			if h.Body, err = load.ReadBody(path); err != nil {
				return h, usageErrorf("-d %s: %v", o.data, err)
			}
		} else {
			h.Body = []byte(o.data)
		}
		if o.method == "" {
			h.Method = http.MethodPost // as curl does
		}
	}
	return h, nil
}

// reachable dials rawURL's host once, so that a target that is down or
// misspelled is one clear error rather than a ramp of refused requests.
// No request is sent.
func reachable(ctx context.Context, rawURL string, timeout time.Duration) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return fmt.Errorf("cannot reach %s: %w", rawURL, err)
	}
	return c.Close()
}
