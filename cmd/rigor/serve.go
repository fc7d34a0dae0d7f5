package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	encbinary "encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"html/template"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/execbench"
	"github.com/rigorbench/rigor/history"
	"github.com/rigorbench/rigor/report"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// serveOptions are rigor serve's flags.
type serveOptions struct {
	series      seriesFlags
	addr        string
	allowRemote bool
	allowHosts  []string
	token       string
	tokenFile   string
	export      string
}

// envToken names the environment variable that gives rigor serve its
// token, as --token does, without showing it to other users in ps.
const envToken = "RIGOR_TOKEN"

// maxTokenFile bounds what --token-file reads.
const maxTokenFile = 4 << 10

// resolveToken is the token every request must carry: --token, the first
// line of --token-file, or $RIGOR_TOKEN (getenv's), in that order; "" for
// none. A token must be printable ASCII without spaces, double quotes,
// commas, semicolons or backslashes, which a cookie cannot carry as they
// are.
func (o *serveOptions) resolveToken(getenv func(string) string) (string, error) {
	token, from := o.token, "--token"
	switch {
	case o.token != "" && o.tokenFile != "":
		return "", usageErrorf("give --token or --token-file, not both")
	case o.tokenFile != "":
		f, err := os.Open(o.tokenFile)
		if err != nil {
			return "", usageErrorf("--token-file: %v", err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
		if err != nil {
			return "", usageErrorf("--token-file: %v", err)
		}
		if len(b) > maxTokenFile {
			return "", usageErrorf("--token-file %s: longer than %d bytes; want the token on its first line", o.tokenFile, maxTokenFile)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		token, from = strings.TrimSpace(line), "--token-file "+o.tokenFile
		if token == "" {
			return "", usageErrorf("%s: its first line is empty; want the token there", from)
		}
	case o.token == "":
		token, from = getenv(envToken), "$"+envToken
	}
	for _, r := range token {
		if r <= ' ' || r > '~' || strings.ContainsRune(`",;\`, r) {
			return "", usageErrorf("%s: the token holds %q; want printable ASCII without spaces, double quotes, commas, semicolons or backslashes (a cookie carries it)", from, r)
		}
	}
	return token, nil
}

func newServeCmd(s stdio) *cobra.Command {
	var opts serveOptions
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Serve a read-only dashboard of the history store: trends, change points, regressions",
		Long: `serve shows the history store in a browser: the regressions found (newest
first), every series (one benchmark's metric on one machine and branch)
with a sparkline, and per series a trend chart of each recorded result with
its 95% confidence interval as a band and the change points marked.
Clicking a result or a change opens that run's full HTML report. Filter by
package, branch, machine and unit. The pages are rendered on the server as
HTML and SVG: no script and no request leaves the page.

It is read-only (GET and HEAD only) and listens on 127.0.0.1 by default; an
address that is not a loopback address is refused unless --allow-remote is
given. It answers only requests addressed to a loopback name (localhost,
127.0.0.1, [::1]) or to a name given with --allow-host, so that a web page
whose name is made to resolve to 127.0.0.1 (DNS rebinding) cannot read it.
With --allow-remote it answers any name, warns, and requires a token: every
request carries it (?token=T once, which sets a cookie, or an
"Authorization: Bearer T" header); it is --token, the first line of
--token-file, or $RIGOR_TOKEN (which other users cannot read in ps, as
they can --token), or made at random and printed in the URL. Every page
is sent with a Content-Security-Policy that allows no script and no
request. The detection flags are those of rigor changes.

--export DIR writes the same pages as static files instead (index.html, a
page per series and per run they link to, links rewritten, no filter form),
to publish without a server: GitHub Pages, or a CI artifact.

Exit status: 0 when stopped (Ctrl-C), 2 for bad flags, no store, or an
address it cannot listen on.`,
		Example: `  rigor serve
  rigor serve --export pages/
  rigor serve --addr 127.0.0.1:9000 --store postgres://rigor@db/rigor
  rigor serve --addr 0.0.0.0:8080 --allow-remote`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), opts, s)
		},
	}
	opts.series.register(cmd.Flags(), "sec/op")
	cmd.Flags().StringVar(&opts.addr, "addr", "127.0.0.1:8080", "`address` to listen on (host:port; port 0 picks a free one)")
	cmd.Flags().BoolVar(&opts.allowRemote, "allow-remote", false, "listen on an address other than loopback, answer any host name, and require a token")
	cmd.Flags().StringSliceVar(&opts.allowHosts, "allow-host", nil, "also answer requests for this host `name` (a reverse proxy's; repeatable)")
	cmd.Flags().StringVar(&opts.token, "token", "", "require this `token` of every request (default: $RIGOR_TOKEN; with --allow-remote, else one made at random, printed); other users see it in ps: prefer --token-file or $RIGOR_TOKEN")
	cmd.Flags().StringVar(&opts.tokenFile, "token-file", "", "require the token on the first line of this `file` (as --token, unseen in ps)")
	cmd.Flags().StringVar(&opts.export, "export", "", "write the pages to this `directory` as static HTML (index.html, each series and run linked from it) instead of serving them")
	return cmd
}

// checkLoopback refuses an address whose host is not a loopback address
// (an empty host listens everywhere).
func checkLoopback(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf("--addr %q: %v", addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return usageErrorf("--addr %q: port %q is not a number from 0 to 65535", addr, port)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return usageErrorf("--addr %s is not a loopback address: give --allow-remote to serve it there (with a token)", addr)
}

// loopbackHost reports whether a request's host name (no port) names
// this machine's loopback: localhost, a name under .localhost, or a
// loopback address.
func loopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return ip != nil && ip.IsLoopback()
}

// hostOf is a Host header's name, without its port.
func hostOf(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// guard answers only requests for an allowed host name (every name when
// anyHost), and, when token is set, only requests that carry it: in the
// query (?token=T, answered with a cookie and a redirect to the URL
// without it), in the cookie, or as "Authorization: Bearer T".
func guard(h http.Handler, anyHost bool, hosts []string, token string) http.Handler {
	allowed := map[string]bool{}
	for _, n := range hosts {
		allowed[strings.TrimSuffix(strings.ToLower(hostOf(n)), ".")] = true
	}
	same := func(got string) bool {
		return token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if host := hostOf(r.Host); !anyHost && !loopbackHost(host) && !allowed[strings.TrimSuffix(strings.ToLower(host), ".")] {
			http.Error(w, fmt.Sprintf("rigor serve answers only for localhost, 127.0.0.1 and [::1], not for %q (a page whose name resolves here is not the dashboard); to serve under that name, give --allow-host %s",
				report.TerminalSafe(r.Host), report.TerminalSafe(host)), http.StatusMisdirectedRequest)
			return
		}
		if token == "" {
			h.ServeHTTP(w, r)
			return
		}
		if q := r.URL.Query(); q.Has("token") {
			if !same(q.Get("token")) {
				http.Error(w, "rigor serve: wrong token", http.StatusUnauthorized)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q.Del("token")
			http.Redirect(w, r, localTarget(r.URL.Path, q), http.StatusSeeOther)
			return
		}
		c, err := r.Cookie(tokenCookie)
		bearer, isBearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if (err == nil && same(c.Value)) || (isBearer && same(bearer)) {
			h.ServeHTTP(w, r)
			return
		}
		http.Error(w, "rigor serve: this dashboard needs its token: open the URL with ?token= that rigor serve printed, or send Authorization: Bearer TOKEN", http.StatusUnauthorized)
	})
}

// localTarget is where ?token= sends the browser on: the request's path
// on this server, cleaned (a backslash read as the slash browsers take it
// for), with the query q. Never "//host/..." or "/\\host/...", which a
// browser reads as another server's address: //evil.example/..?token=T
// answered 303 Location: //evil.example/.. (an open redirect).
func localTarget(p string, q url.Values) string {
	p = path.Clean("/" + strings.ReplaceAll(p, `\`, "/"))
	u := url.URL{Path: p, RawQuery: q.Encode()}
	return u.RequestURI()
}

// tokenCookie is the cookie that carries the token after ?token=.
const tokenCookie = "rigor_token"

// newToken makes a token at random: 128 bits, as hex.
func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// dashboardURL is the address to open: the listener's, with the
// machine's name for an address that listens everywhere, and the token.
func dashboardURL(addr net.Addr, token string) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		}
	}
	u := url.URL{Scheme: "http", Host: net.JoinHostPort(host, port), Path: "/"}
	if token != "" {
		u.RawQuery = url.Values{"token": {token}}.Encode()
	}
	return u.String()
}

func runServe(ctx context.Context, opts serveOptions, std stdio) error {
	stdout := std.out
	hopts, err := opts.series.options()
	if err != nil {
		return err
	}
	if !opts.allowRemote && opts.export == "" {
		if err := checkLoopback(opts.addr); err != nil {
			return err
		}
	}
	for _, h := range opts.allowHosts {
		if h == "" || strings.ContainsAny(h, "/?#@ ") {
			return usageErrorf("--allow-host %q: want a host name (bench.example.com)", h)
		}
	}
	token, err := opts.resolveToken(os.Getenv)
	if err != nil {
		return err
	}
	if opts.allowRemote && token == "" {
		if token, err = newToken(); err != nil {
			return fmt.Errorf("making a token: %w", err)
		}
	}
	loc, _, err := storeLocation(opts.series.store)
	if err != nil {
		return err
	}
	s, err := openReader(ctx, loc)
	if err != nil {
		return err
	}
	defer s.Close()
	if opts.export != "" {
		n, err := exportPages(ctx, &dashboard{store: s, flags: opts.series, opts: hopts}, opts.export)
		if err != nil {
			return usageErrorf("--export: %v", err)
		}
		fmt.Fprintf(stdout, "rigor: wrote %d pages of %s to %s\n", n, locationName(loc), opts.export)
		return nil
	}
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return usageErrorf("--addr %s: %v", opts.addr, err)
	}
	d := &dashboard{store: s, flags: opts.series, opts: hopts}
	srv := newServer(guard(d.handler(), opts.allowRemote, opts.allowHosts, token))
	if opts.allowRemote {
		fmt.Fprintf(std.err, "rigor: warning: --allow-remote: the dashboard listens on %s, plain HTTP, for anyone who can reach it; it shows benchmark names, commits and their subjects, and machines. Each request needs the token in the URL below (--token chooses it); serve it only on a network you trust, or behind a TLS proxy\n", ln.Addr())
	}
	fmt.Fprintf(stdout, "rigor: serving %s on %s (read-only; Ctrl-C stops)\n", locationName(loc), dashboardURL(ln.Addr(), token))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	wctx, stopWarm := context.WithCancel(ctx)
	defer stopWarm()
	go d.warm(wctx, warmEvery)
	select {
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return usageErrorf("serving: %v", err)
	}
}

// Limits of rigor serve's connections, so that a client (without the
// token, with --allow-remote) cannot hold connections open without end:
// a request's header must arrive within serveHeaderTimeout and the whole
// request (a GET, no body) within serveReadTimeout; a response, page made
// included, must be written within serveWriteTimeout (generous: the first
// index page of a large history analyzes every series, and a run's report
// draws every chart; nothing is streamed); an idle kept-alive connection
// is closed after serveIdleTimeout. Headers are at most serveMaxHeader.
const (
	serveHeaderTimeout = 10 * time.Second
	serveReadTimeout   = 30 * time.Second
	serveWriteTimeout  = 5 * time.Minute
	serveIdleTimeout   = 2 * time.Minute
	serveMaxHeader     = 64 << 10
)

// newServer is rigor serve's HTTP server of h, with its limits.
func newServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: serveHeaderTimeout,
		ReadTimeout:       serveReadTimeout,
		WriteTimeout:      serveWriteTimeout,
		IdleTimeout:       serveIdleTimeout,
		MaxHeaderBytes:    serveMaxHeader,
	}
}

// warmEvery is how often rigor serve looks for a change of the history
// to make the index page again before anyone asks for it.
const warmEvery = 5 * time.Second

// warm makes the index page (of the default filter, as a visitor's first
// request asks for it) at once and each time the history has changed,
// looked at every interval, until ctx is done: the page analyzes every
// series over the whole history, about 0.65 s of CPU on 1,000 commits x
// 50 benchmarks (BenchmarkServe index/cold, issue 28), which the first
// visitor after the start or a recording waited for. A request that
// comes while it is being made waits for it, as for any page being made.
func (d *dashboard) warm(ctx context.Context, every time.Duration) {
	h := d.handler()
	var mark [2]int64
	for first := true; ; first = false {
		if n, last, err := d.store.RecordedRuns(ctx); err == nil && (first || [2]int64{n, last} != mark) {
			mark = [2]int64{n, last}
			d.warmIndex(ctx, h)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

// warmIndex asks h for the index page and discards it: h keeps it.
func (d *dashboard) warmIndex(ctx context.Context, h http.Handler) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
	if err != nil {
		return
	}
	h.ServeHTTP(discardResponse{http.Header{}}, r)
}

// discardResponse is an http.ResponseWriter that keeps nothing.
type discardResponse struct{ h http.Header }

func (w discardResponse) Header() http.Header         { return w.h }
func (w discardResponse) Write(p []byte) (int, error) { return len(p), nil }
func (w discardResponse) WriteHeader(int)             {}

// dashboard serves the pages.
type dashboard struct {
	store    sqlstore.Store
	flags    seriesFlags
	opts     history.Options
	pages    pageCache
	analyses analyses
	sets     seriesSets
}

func (d *dashboard) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", d.cached(d.index))
	mux.HandleFunc("/series", d.cached(d.seriesPage))
	mux.HandleFunc("/run/{id}", d.runPage)
	return readOnly(mux)
}

// A page makes the page r asks for, or an error with its HTTP status.
type page func(ctx context.Context, r *http.Request) ([]byte, int, error)

// cached serves build's pages, each made once while the history is
// unchanged: the index analyzes every series of its filter over the
// whole history, and a series page every point of its series, so a page
// is worked out once per change of the history (a run recorded), and a
// request after that costs the query that says nothing changed. Requests
// for a page being made wait for it.
func (d *dashboard) cached(build page) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n, last, err := d.store.RecordedRuns(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		body, code, err := d.pages.get(r, [2]int64{n, last}, build)
		if err != nil {
			http.Error(w, err.Error(), code)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	}
}

// pageCache keeps pages by URL, for one state of the history.
type pageCache struct {
	mu    sync.Mutex
	pages map[string]*cachedPage
}

// maxCachedPages bounds the pages kept (each a few hundred kB at most).
const maxCachedPages = 64

type cachedPage struct {
	mark [2]int64      // the store's RecordedRuns when it was made
	done chan struct{} // closed when made
	body []byte
	code int
	err  error
}

// get returns the page of r for the history at mark: kept, being made
// (then it waits), or made now. A page that failed is not kept.
func (c *pageCache) get(r *http.Request, mark [2]int64, build page) ([]byte, int, error) {
	key := r.URL.Path + "?" + r.URL.RawQuery
	c.mu.Lock()
	p := c.pages[key]
	if p == nil || p.mark != mark {
		if c.pages == nil {
			c.pages = map[string]*cachedPage{}
		}
		if len(c.pages) >= maxCachedPages {
			clear(c.pages)
		}
		p = &cachedPage{mark: mark, done: make(chan struct{})}
		c.pages[key] = p
		c.mu.Unlock()
		// Made to the end for whoever waits, even if r is given up.
		p.body, p.code, p.err = build(context.WithoutCancel(r.Context()), r)
		close(p.done)
		if p.err != nil {
			c.mu.Lock()
			if c.pages[key] == p {
				delete(c.pages, key)
			}
			c.mu.Unlock()
		}
		return p.body, p.code, p.err
	}
	c.mu.Unlock()
	select {
	case <-p.done:
		return p.body, p.code, p.err
	case <-r.Context().Done():
		return nil, http.StatusServiceUnavailable, r.Context().Err()
	}
}

// pageCSP is the Content-Security-Policy of every page rigor serve
// serves (a header, which adds frame-ancestors) or exports (a meta tag):
// the pages are HTML and SVG with inline styles, no script, no request of
// their own; their one form (the index's filter) is sent to the
// dashboard.
const pageCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'self'"

// readOnly answers every method but GET and HEAD with 405, and sets
// headers that keep the pages to themselves.
func readOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "read-only: GET and HEAD only", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Security-Policy", pageCSP+"; frame-ancestors 'self'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// filter is what the pages' query selects.
type filter struct {
	Pkg, Branch, Machine, Unit string
}

func filterOf(r *http.Request, defaultUnit string) filter {
	q := r.URL.Query()
	f := filter{Pkg: q.Get("pkg"), Branch: q.Get("branch"), Machine: q.Get("machine"), Unit: q.Get("unit")}
	if !q.Has("unit") {
		f.Unit = defaultUnit
	}
	return f
}

func (f filter) query() string {
	v := url.Values{}
	for k, x := range map[string]string{"pkg": f.Pkg, "branch": f.Branch, "machine": f.Machine, "unit": f.Unit} {
		v.Set(k, x)
	}
	return v.Encode()
}

// load reads the series f selects, as the index shows them: each point
// is its median (Store.EachSummary: one row a point, no sample read),
// all the analysis and the sparklines use of it; the series are kept,
// and after a change only the runs recorded since are read (seriesSets).
func (d *dashboard) load(ctx context.Context, f filter) (*seriesList, error) {
	n, last, err := d.store.RecordedRuns(ctx)
	if err != nil {
		return nil, err
	}
	return d.sets.read(ctx, d.store, f, sqlstore.Filter{Project: d.flags.project, Branch: f.Branch, Machine: f.Machine, Pkg: f.Pkg, Unit: f.Unit, Dirty: d.flags.dirty},
		[2]int64{n, last})
}

// analyses keeps the analysis of each series the pages showed, with the
// samples it was made of: a series page after the index (or the index
// after a series page), and every series the history's last run did not
// add to, are not analyzed again. An analysis is reused only for the
// same samples, bit for bit, in the same direction and with the same
// options: history.AnalyzeSteps of one series reads no more (the
// points' values, their samples' medians).
type analyses struct {
	mu   sync.Mutex
	kept map[seriesID]*keptAnalysis
	// analyzer keeps the change-point search's windows: a series with a
	// result more is searched again only at its end.
	analyzer history.Analyzer
	once     sync.Once
	seeds    [2]maphash.Seed
}

// seriesID is what names a series apart from its points.
type seriesID struct{ project, pkg, bench, unit, machine, branch string }

type keptAnalysis struct {
	better int
	opts   history.Options
	// samples is the samplesKey of the points it was made of.
	samples  [2]uint64
	analysis *history.Analysis // of the series alone
}

// samplesKey returns a 128-bit hash of s's points' samples, bit for bit,
// with each point's number of them (two seeds of hash/maphash: two
// different series share it with a chance of about 2^-128). Kept in
// place of the samples themselves, which were 16 bytes a point of serve's
// memory.
func (c *analyses) samplesKey(s *history.Series) [2]uint64 {
	c.once.Do(func() { c.seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()} })
	var key [2]uint64
	for j, seed := range c.seeds {
		var h maphash.Hash
		h.SetSeed(seed)
		var b [8]byte
		for _, p := range s.Points {
			encbinary.LittleEndian.PutUint64(b[:], uint64(len(p.Samples)))
			h.Write(b[:])
			for _, v := range p.Samples {
				encbinary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
				h.Write(b[:])
			}
		}
		key[j] = h.Sum64()
	}
	return key
}

// detached returns a, of one series, holding none of the series' points:
// analyze points its changes and transients at the series they are read
// for. A kept analysis that held its series would hold every point of the
// history, which the index makes one series at a time (seriesList).
func detached(a *history.Analysis) *history.Analysis {
	for i := range a.Changes {
		a.Changes[i].Series, a.Changes[i].Before, a.Changes[i].After = nil, history.Point{}, history.Point{}
	}
	for i := range a.Transients {
		a.Transients[i].Series = nil
	}
	for i := range a.Outliers {
		a.Outliers[i].Series = nil
	}
	for i := range a.Short {
		a.Short[i] = nil
	}
	return a
}

// analyze is history.AnalyzeSteps(series, opts), reusing the kept
// analyses of series whose values have not changed.
func (c *analyses) analyze(series []*history.Series, opts history.Options) *history.Analysis {
	out := &history.Analysis{}
	for i, s := range series {
		id := seriesID{s.Project, s.Pkg, s.Benchmark, s.Unit, s.Machine, s.Branch}
		c.mu.Lock()
		k := c.kept[id]
		c.mu.Unlock()
		key := c.samplesKey(s)
		if k == nil || k.better != s.Better || k.opts != opts || k.samples != key {
			k = &keptAnalysis{better: s.Better, opts: opts, samples: key, analysis: detached(c.analyzer.AnalyzeSteps([]*history.Series{s}, opts))}
			c.mu.Lock()
			if c.kept == nil {
				c.kept = map[seriesID]*keptAnalysis{}
			}
			c.kept[id] = k
			c.mu.Unlock()
		}
		a := k.analysis
		if i == 0 {
			out.Options = a.Options
		}
		// The kept analysis points at the series and points it was made
		// of; these are the same values at the same places.
		for _, ch := range a.Changes {
			ch.Series, ch.Before, ch.After = s, s.Points[ch.Index-ch.Outliers-1], s.Points[ch.Index]
			out.Changes = append(out.Changes, ch)
		}
		for _, t := range a.Transients {
			t.Series = s
			out.Transients = append(out.Transients, t)
		}
		for _, t := range a.Outliers {
			t.Series = s
			out.Outliers = append(out.Outliers, t)
		}
		if len(a.Short) > 0 {
			out.Short = append(out.Short, s)
		}
	}
	if len(series) == 0 {
		out.Options = history.AnalyzeSteps(nil, opts).Options
	}
	return out
}

func seriesQuery(s *history.Series) string {
	v := url.Values{}
	v.Set("project", s.Project)
	v.Set("pkg", s.Pkg)
	v.Set("bench", s.Benchmark)
	v.Set("unit", s.Unit)
	v.Set("machine", s.Machine)
	v.Set("branch", s.Branch)
	return v.Encode()
}

type changeRow struct {
	When, Series, SeriesURL, From, To, RunURL, Text, Subject string
	Regression                                               bool
}

func changeRowOf(c *history.Change) changeRow {
	return changeRow{When: c.After.Time.UTC().Format("2006-01-02 15:04"), Series: c.Series.Name + " " + c.Series.Unit,
		SeriesURL: "/series?" + seriesQuery(c.Series), From: shortHash(c.Before.Commit), To: shortHash(c.After.Commit),
		RunURL: fmt.Sprintf("/run/%d", c.After.RunID), Text: changeLine(c), Subject: c.After.Subject, Regression: c.Regression}
}

type seriesRow struct {
	Name, URL, Machine, Branch, Unit string
	Points, Changes                  int
	Spark                            template.HTML
}

func (d *dashboard) index(ctx context.Context, r *http.Request) ([]byte, int, error) {
	if r.URL.Path != "/" {
		return nil, http.StatusNotFound, errors.New("404 page not found")
	}
	f := filterOf(r, d.flags.unit)
	list, err := d.load(ctx, f)
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	// One series' points at a time, in one array: made, analyzed and
	// drawn. Nothing kept holds them (a kept analysis is detached; a
	// change's Before and After are copies).
	a := &history.Analysis{Options: history.AnalyzeSteps(nil, d.opts).Options}
	var rows []seriesRow
	var points []history.Point
	for i, s := range list.Series {
		points = list.Points(i, points)
		s.Points = points
		one := d.analyses.analyze([]*history.Series{s}, d.opts)
		a.Changes = append(a.Changes, one.Changes...)
		a.Transients = append(a.Transients, one.Transients...)
		rows = append(rows, seriesRow{Name: s.Name, URL: "/series?" + seriesQuery(s), Machine: s.Machine, Branch: s.Branch,
			Unit: s.Unit, Points: len(s.Points), Changes: len(one.Changes), Spark: sparkSVG(s, one)})
		s.Points = nil
	}
	var changes []changeRow
	byTime := slices.Clone(a.Changes)
	slices.SortStableFunc(byTime, func(x, y history.Change) int { return y.After.Time.Compare(x.After.Time) })
	for i := range byTime {
		if byTime[i].Regression {
			changes = append(changes, changeRowOf(&byTime[i]))
		}
	}
	machines, _ := d.store.Machines(ctx)
	return render(indexTmpl, map[string]any{"Filter": f, "Regressions": changes, "Series": rows, "Machines": machines,
		"Summary": fmt.Sprintf("%d series, %d changes, %d transients; %s",
			len(list.Series), len(a.Changes), len(a.Transients), methodLine(a.Options))})
}

func (d *dashboard) seriesPage(ctx context.Context, r *http.Request) ([]byte, int, error) {
	q := r.URL.Query()
	f := filter{Pkg: q.Get("pkg"), Branch: q.Get("branch"), Machine: q.Get("machine"), Unit: q.Get("unit")}
	project := q.Get("project")
	if !q.Has("project") {
		project = d.flags.project
	}
	bench := q.Get("bench")
	// Only this benchmark's points, through the benchmarks' name index:
	// its name is bench less a GOMAXPROCS suffix, or bench itself, or,
	// for rigor exec, exec's; else (a command of exec with a parameter)
	// every benchmark of the unit is read. Each point is its median and
	// the median's interval (Store.Summaries): no sample is read.
	var names []string
	if i := strings.LastIndexByte(bench, '-'); i > 0 {
		if _, err := strconv.Atoi(bench[i+1:]); err == nil {
			names = append(names, bench[:i])
		}
	}
	names = append(names, bench, execbench.DefaultName, "")
	var s *history.Series
	var bands []band
	for _, name := range names {
		pts, err := d.store.Summaries(ctx, sqlstore.Filter{Project: project, Branch: f.Branch, Machine: f.Machine, Pkg: f.Pkg, Name: name, Unit: f.Unit, Dirty: d.flags.dirty})
		if err != nil {
			return nil, http.StatusInternalServerError, err
		}
		from := map[*history.Series][]int{}
		for _, x := range groupSeriesOf(pts, nil, from) {
			if x.Benchmark == bench && x.Pkg == f.Pkg && x.Unit == f.Unit && x.Machine == f.Machine && x.Branch == f.Branch && (project == "" || x.Project == project) {
				s = x
			}
		}
		if s != nil {
			for _, i := range from[s] {
				bands = append(bands, bandOf(&pts[i]))
			}
			break
		}
	}
	if s == nil {
		return nil, http.StatusNotFound, errors.New("no such series")
	}
	a := d.analyses.analyze([]*history.Series{s}, d.opts)
	var changes []changeRow
	for i := len(a.Changes) - 1; i >= 0; i-- {
		changes = append(changes, changeRowOf(&a.Changes[i]))
	}
	return render(seriesTmpl, map[string]any{"Name": s.Name, "Unit": s.Unit, "Machine": s.Machine, "Branch": s.Branch,
		"Points": len(s.Points), "Chart": chartSVG(s, a, bands), "Changes": changes, "Back": "/?" + f.query()})
}

func (d *dashboard) runPage(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	run, err := d.store.Run(r.Context(), id)
	if errors.Is(err, sqlstore.ErrNoRun) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	rep, err := analysis.Analyze(run, analysis.DefaultOptions())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := report.Render(w, rep, report.Options{Format: "html"}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// render executes t on data: the page, or an error and its status.
func render(t *template.Template, data any) ([]byte, int, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, http.StatusInternalServerError, err
	}
	return b.Bytes(), http.StatusOK, nil
}

// The charts: x is the point's position in the series, y its value.
const (
	chartW, chartH = 960.0, 320.0
	chartPad       = 48.0
)

// A band is what the chart draws of a point: its median, and the
// median's 95% confidence interval (the median itself when it has none).
type band struct{ mid, lo, hi float64 }

// bandOf is the band of a point read by Store.Summaries.
func bandOf(p *sqlstore.Point) band {
	b := band{p.Median, p.Median, p.Median}
	if !math.IsNaN(p.CILo) && !math.IsNaN(p.CIHi) {
		b.lo, b.hi = p.CILo, p.CIHi
	}
	return b
}

// chartSVG draws s: each point's median with its 95% confidence
// interval as a band (pts, one a point), the change points as vertical
// lines, each point and change a link to its run.
func chartSVG(s *history.Series, a *history.Analysis, pts []band) template.HTML {
	n := len(s.Points)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		lo, hi = min(lo, p.lo), max(hi, p.hi)
	}
	if !(hi > lo) {
		// A flat series: 5% either side (it was 1 either side, whatever
		// the unit: "-1.000s/op" on the axis of a series of 1µs).
		d := math.Abs(lo) * 0.05
		if !(d > 0) {
			d = 1
		}
		lo, hi = lo-d, hi+d
	}
	x := func(i int) float64 {
		if n == 1 {
			return chartW / 2
		}
		return chartPad + float64(i)*(chartW-2*chartPad)/float64(n-1)
	}
	y := func(v float64) float64 { return chartH - chartPad - (v-lo)/(hi-lo)*(chartH-2*chartPad) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" id="chart" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		chartW, chartH, chartW, chartH, template.HTMLEscapeString(report.TerminalSafe(s.Name+" "+s.Unit)))
	// Axis labels.
	fmt.Fprintf(&b, `<text x="4" y="%.1f" class="axis">%s</text><text x="4" y="%.1f" class="axis">%s</text>`,
		y(hi)+4, template.HTMLEscapeString(scaleValue(hi, s.Unit)), y(lo)+4, template.HTMLEscapeString(scaleValue(lo, s.Unit)))
	// The band: upper bounds left to right, lower bounds back.
	b.WriteString(`<path class="band" d="`)
	for i := range pts {
		fmt.Fprintf(&b, "%s%.1f,%.1f ", map[bool]string{true: "M", false: "L"}[i == 0], x(i), y(pts[i].hi))
	}
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "L%.1f,%.1f ", x(i), y(pts[i].lo))
	}
	b.WriteString(`Z"/><path class="line" d="`)
	for i := range pts {
		fmt.Fprintf(&b, "%s%.1f,%.1f ", map[bool]string{true: "M", false: "L"}[i == 0], x(i), y(pts[i].mid))
	}
	b.WriteString(`"/>`)
	for _, c := range a.Changes {
		cx := (x(c.Index-c.Outliers-1) + x(c.Index)) / 2
		class := "change"
		if c.Regression {
			class += " regression"
		}
		fmt.Fprintf(&b, `<a href="/run/%d" class="%s" data-index="%d"><title>%s</title><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/><rect x="%.1f" y="%.1f" width="10" height="10"/></a>`,
			c.After.RunID, class, c.Index, template.HTMLEscapeString(shortHash(c.Before.Commit)+".."+shortHash(c.After.Commit)+": "+changeLine(&c)),
			cx, chartPad/2, cx, chartH-chartPad/2, cx-5, chartPad/2-10)
	}
	for i, p := range s.Points {
		fmt.Fprintf(&b, `<a href="/run/%d" class="point"><title>%s</title><circle cx="%.1f" cy="%.1f" r="3"/></a>`,
			p.RunID, template.HTMLEscapeString(fmt.Sprintf("#%d %s %s: %s [%s, %s]", i+1, shortHash(p.Commit), p.Time.UTC().Format("2006-01-02 15:04"),
				scaleValue(pts[i].mid, s.Unit), scaleValue(pts[i].lo, s.Unit), scaleValue(pts[i].hi, s.Unit))), x(i), y(pts[i].mid))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// sparkSVG draws the last points of s small, changes marked.
func sparkSVG(s *history.Series, a *history.Analysis) template.HTML {
	v := s.Values()
	start := max(0, len(v)-sparkWidth*2)
	v = v[start:]
	if len(v) == 0 {
		return ""
	}
	lo, hi := slices.Min(v), slices.Max(v)
	if !(hi > lo) {
		lo, hi = lo-1, hi+1
	}
	const w, h = 240.0, 32.0
	x := func(i int) float64 { return 2 + float64(i)*(w-4)/float64(max(1, len(v)-1)) }
	y := func(f float64) float64 { return h - 2 - (f-lo)/(hi-lo)*(h-4) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="spark" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f"><path d="`, w, h, w, h)
	for i, f := range v {
		fmt.Fprintf(&b, "%s%.1f,%.1f ", map[bool]string{true: "M", false: "L"}[i == 0], x(i), y(f))
	}
	b.WriteString(`"/>`)
	for _, c := range a.Changes {
		if c.Series == s && c.Index >= start {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="0" x2="%.1f" y2="%.0f"/>`, x(c.Index-start), x(c.Index-start), h)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

const style = `<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}td,th{padding:.2em .6em;text-align:left;border-bottom:1px solid #ddd;vertical-align:middle}
a{color:#0645ad}.regressed{color:#b00}.improved{color:#070}
form input{width:12em}.spark path{fill:none;stroke:#446;stroke-width:1.2}.spark line{stroke:#c33;stroke-width:1}
#chart .band{fill:#cde;stroke:none}#chart .line{fill:none;stroke:#335;stroke-width:1.5}
#chart .point circle{fill:#335}#chart .point:hover circle{fill:#f80}
#chart .change line{stroke:#070;stroke-width:2;stroke-dasharray:4 3}#chart .change rect{fill:#070}
#chart .change.regression line{stroke:#c00}#chart .change.regression rect{fill:#c00}
#chart .axis{font-size:11px;fill:#555}
</style>`

// funcs are the templates' functions: shown escapes what a terminal, or
// a browser's bidirectional algorithm, would act on (control and
// bidirectional characters, as \u202e), as the terminal output does;
// html/template then escapes it for HTML.
var funcs = template.FuncMap{"shown": report.TerminalSafe}

var indexTmpl = template.Must(template.New("index").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>rigor history</title>` + style + `</head><body>
<h1>rigor history</h1>
<form method="get" action="/">
package <input name="pkg" value="{{.Filter.Pkg}}">
branch <input name="branch" value="{{.Filter.Branch}}">
machine <input name="machine" value="{{.Filter.Machine}}" list="machines">
unit <input name="unit" value="{{.Filter.Unit}}">
<button>filter</button>
<datalist id="machines">{{range .Machines}}<option value="{{.Fingerprint}}">{{shown .String}}</option>{{end}}</datalist>
</form>
<p>{{.Summary}}</p>
<h2>Regressions</h2>
{{if .Regressions}}<table id="regressions"><tr><th>after</th><th>series</th><th>commits</th><th>change</th><th>subject</th></tr>
{{range .Regressions}}<tr><td>{{.When}}</td><td><a href="{{.SeriesURL}}">{{shown .Series}}</a></td><td><a href="{{.RunURL}}">{{.From}}..{{.To}}</a></td><td class="regressed">{{.Text}}</td><td>{{shown .Subject}}</td></tr>
{{end}}</table>{{else}}<p>None found.</p>{{end}}
<h2>Series</h2>
<table id="series"><tr><th>benchmark</th><th>unit</th><th>machine</th><th>branch</th><th>points</th><th>changes</th><th></th></tr>
{{range .Series}}<tr><td><a href="{{.URL}}">{{shown .Name}}</a></td><td>{{shown .Unit}}</td><td>{{shown .Machine}}</td><td>{{shown .Branch}}</td><td>{{.Points}}</td><td>{{.Changes}}</td><td>{{.Spark}}</td></tr>
{{end}}</table>
</body></html>`))

var seriesTmpl = template.Must(template.New("series").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{shown .Name}} {{shown .Unit}}: rigor history</title>` + style + `</head><body>
<p><a href="{{.Back}}">all series</a></p>
<h1>{{shown .Name}} <small>{{shown .Unit}}</small></h1>
<p>machine {{shown .Machine}}{{if .Branch}}, branch {{shown .Branch}}{{end}}; {{.Points}} results, each the median of a run's samples with its 95% confidence interval (the band). Click a result or a change for its run's report.</p>
{{.Chart}}
<h2>Changes, newest first</h2>
{{if .Changes}}<table id="changes"><tr><th>after</th><th>commits</th><th>change</th><th>subject</th></tr>
{{range .Changes}}<tr><td>{{.When}}</td><td><a href="{{.RunURL}}">{{.From}}..{{.To}}</a></td><td class="{{if .Regression}}regressed{{else}}improved{{end}}">{{.Text}}</td><td>{{shown .Subject}}</td></tr>
{{end}}</table>{{else}}<p>None found.</p>{{end}}
</body></html>`))
