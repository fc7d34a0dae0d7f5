package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/load"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
	"github.com/rigorbench/rigor/report"
)

func init() {
	var (
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
	)
	cmd := &cobra.Command{
		Use:   "ramp [flags] URL",
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
connection per worker). https:// and --http2 use Go's net/http: --http2 is
negotiated by ALPN over TLS, and is sent with prior knowledge (h2c) to
http:// URLs.

Exit status: 0; 1 when --slo is given and no step met it; 2 for bad flags
or URL, or an interrupted ramp (the steps that completed are printed).`,
		Example: `  rigor ramp --ramp 1..64x2 http://127.0.0.1:8080/
  rigor ramp --concurrency 1,2,4,8 --slo p99=50ms,errors=1% --pid 1234 http://127.0.0.1:8080/
  rigor ramp --rate 1000,2000,4000 --duration 10s http://127.0.0.1:8080/api
  rigor ramp -X POST -H 'Content-Type: application/json' -d @body.json --ramp 1..32x2 http://127.0.0.1:8080/v1/items`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("ramp takes one URL, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := load.Config{
				Warmup:     warmup,
				Duration:   duration,
				Knee:       knee,
				KeepGoing:  keepGoing,
				PID:        pid,
				MaxWorkers: maxWorkers,
			}
			if warmup == 0 {
				cfg.Warmup = -1 // --warmup 0 means none
			}
			if duration <= 0 {
				return usageErrorf("--duration must be positive")
			}
			if !(knee >= 0 && knee < 1) {
				return usageErrorf("--knee must be between 0 and 1 (0.05 is 5%%), got %v", knee)
			}
			switch {
			case warmup < 0:
				return usageErrorf("--warmup must not be negative (0 for none), got %v", warmup)
			case timeout < 0:
				return usageErrorf("--timeout must not be negative (0 for none), got %v", timeout)
			case pid < 0:
				return usageErrorf("--pid must be a process ID, got %d", pid)
			case maxWorkers < 1:
				return usageErrorf("--max-workers must be at least 1, got %d", maxWorkers)
			}
			switch format {
			case "text", "md", "csv", "json":
			default:
				return usageErrorf("unknown --format %q: want text, json, csv or md", format)
			}
			var err error
			n := 0
			for _, s := range []string{concurrency, rampSteps, rates} {
				if s != "" {
					n++
				}
			}
			switch {
			case n > 1:
				return usageErrorf("give one of --concurrency, --ramp and --rate")
			case rates != "":
				if cfg.Rates, err = load.ParseRates(rates); err != nil {
					return usageErrorf("--rate: %v", err)
				}
			case rampSteps != "":
				if cfg.Concurrency, err = load.ParseConcurrency(rampSteps); err != nil {
					return usageErrorf("--ramp: %v", err)
				}
			case concurrency != "":
				if cfg.Concurrency, err = load.ParseConcurrency(concurrency); err != nil {
					return usageErrorf("--concurrency: %v", err)
				}
			default:
				cfg.Concurrency, _ = load.ParseConcurrency("1..64x2")
			}
			for _, s := range slos {
				if cfg.SLO, err = load.ParseSLO(s, cfg.SLO); err != nil {
					return usageErrorf("--slo: %v", err)
				}
			}
			h := load.HTTP{
				Method:           method,
				URL:              args[0],
				Header:           http.Header{},
				Timeout:          timeout,
				DisableKeepAlive: noKeepAlive,
				HTTP2:            http2,
			}
			for _, kv := range headers {
				k, v, ok := strings.Cut(kv, ":")
				if !ok || strings.TrimSpace(k) == "" {
					return usageErrorf("-H %q: want 'Name: value'", kv)
				}
				h.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
			}
			if h.SuccessCodes, err = load.ParseStatusCodes(successes); err != nil {
				return usageErrorf("--success-codes: %v", err)
			}
			if data != "" {
				if path, ok := strings.CutPrefix(data, "@"); ok {
					if h.Body, err = readBody(path); err != nil {
						return usageErrorf("-d %s: %v", data, err)
					}
				} else {
					h.Body = []byte(data)
				}
				if method == "" {
					h.Method = http.MethodPost // as curl does
				}
			}
			target, err := load.NewHTTP(h)
			if err != nil {
				return usageErrorf("%v", err)
			}
			if err := reachable(cmd.Context(), args[0], timeout); err != nil {
				return usageErrorf("%v", err)
			}
			stderr := cmd.ErrOrStderr()
			if !quiet {
				cfg.Progress = func(s model.RampStep) {
					lvl := fmt.Sprintf("concurrency %d", s.Concurrency)
					if s.Rate > 0 {
						lvl = fmt.Sprintf("rate %g/s", s.Rate)
					}
					valid := ""
					if !s.Valid {
						valid = "  INVALID"
					}
					fmt.Fprintf(stderr, "rigor ramp: step %d, %s: %.0f ok/s, p99 %v, errors %.2f%%%s\n",
						s.Index+1, lvl, s.Throughput, s.Latency.P99.Round(time.Microsecond), 100*s.ErrorRate, valid)
				}
			}
			var env *model.Env
			if format == "json" {
				e := observe.CaptureEnv(cmd.Context())
				env = &e
			}
			start := time.Now()
			r, err := load.Ramp(cmd.Context(), target, cfg)
			if err != nil {
				return usageErrorf("%v", err)
			}
			// Ctrl-C: print what completed, and exit 2 as any
			// interrupted run does.
			interrupted := cmd.Context().Err() != nil
			stopped := cmp.Or(r.Stopped, "interrupted")
			if interrupted && len(r.Steps) == 0 {
				return usageErrorf("%s, before any step completed: nothing to report", stopped)
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				run := &model.Run{
					Kind:    model.KindRamp,
					Start:   start,
					End:     time.Now(),
					Command: append([]string{"rigor"}, os.Args[1:]...),
					Env:     env,
					Sides:   []model.Side{},
					Ramp:    r,
				}
				if err := run.WriteJSON(out); err != nil {
					return err
				}
			} else if err := report.RenderRamp(out, r, format); err != nil {
				return err
			}
			if interrupted {
				return usageErrorf("%s: the result above is partial", stopped)
			}
			if cfg.SLO != nil && (r.Headline == nil || r.Headline.Basis != "slo") {
				return &exitError{code: exitGateFail}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&method, "method", "X", "", "HTTP method (default GET, or POST with -d)")
	f.StringArrayVarP(&headers, "header", "H", nil, "request header 'Name: value' (repeatable)")
	f.StringVarP(&data, "data", "d", "", fmt.Sprintf("request body, or @file to read it from a file (at most %d MiB)", maxBody>>20))
	f.StringVar(&successes, "success-codes", "200-299", "HTTP statuses that count as successes, e.g. 200-299,304 or 2xx,3xx; any other status is a failure (redirects are not followed)")
	f.DurationVar(&timeout, "timeout", 10*time.Second, "per-request timeout, connection included (0 for none)")
	f.BoolVar(&noKeepAlive, "no-keepalive", false, "open a new connection for every request")
	f.BoolVar(&http2, "http2", false, "speak HTTP/2 (ALPN over https, prior-knowledge h2c over http)")
	f.StringVar(&concurrency, "concurrency", "", "closed-loop steps: workers per step, e.g. 1,2,4,8")
	f.StringVar(&rampSteps, "ramp", "", "closed-loop steps as a range, e.g. 1..64x2 or 8..64+8 (default 1..64x2)")
	f.StringVar(&rates, "rate", "", "open-loop steps in requests/s, e.g. 1000,2000 or 500..4000x2")
	f.DurationVar(&warmup, "warmup", load.DefaultWarmup, "unmeasured warm-up before each step (0 for none)")
	f.DurationVar(&duration, "duration", load.DefaultDuration, "measured window of each step")
	f.Float64Var(&knee, "knee", 0.05, "stop after two steps in a row each gain less than this fraction of throughput (0 never stops)")
	f.StringArrayVar(&slos, "slo", nil, "objective per step: p50|p90|p99|p99.9|max=DURATION and/or errors=PERCENT, e.g. p99=50ms,errors=1%")
	f.BoolVar(&keepGoing, "keep-going", false, "run every step even after one breaks the SLO")
	f.IntVar(&pid, "pid", 0, "target process ID: record its CPU time and context switches (Linux)")
	f.IntVar(&maxWorkers, "max-workers", load.DefaultMaxWorkers, "open loop: most workers (connections) to keep the schedule")
	f.StringVar(&format, "format", "text", "output format: text, json, csv or md")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress lines on stderr")
	rootCmd.AddCommand(cmd)
}

// maxBody bounds a request body read from a file: the whole body is held
// in memory and sent with every request.
const maxBody = 64 << 20

// readBody reads a request body from the file at path, refusing one
// larger than maxBody (a device such as /dev/zero never ends).
func readBody(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxBody {
		return nil, fmt.Errorf("the body is larger than %d MiB, the most rigor sends", maxBody>>20)
	}
	return b, nil
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
