package load

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rigorbench/rigor/internal/redact"
)

// HTTP describes an HTTP request to send over and over.
type HTTP struct {
	Method string // default GET
	URL    string // http:// or https://
	Header http.Header
	Body   []byte
	// Timeout bounds each request, connection included; 0 means none.
	Timeout time.Duration
	// DisableKeepAlive sends "Connection: close" and opens a connection
	// per request.
	DisableKeepAlive bool
	// HTTP2 speaks HTTP/2: over TLS for https:// URLs (negotiated by
	// ALPN, falling back to HTTP/1.1 if the server declines), and with
	// prior knowledge (h2c) for http:// URLs, whose server must accept
	// unencrypted HTTP/2. All workers share one transport, so requests
	// are streams multiplexed over few connections, as in real HTTP/2
	// clients.
	HTTP2 bool
	// SuccessCodes are the statuses that count as successes; empty means
	// 200 to 299. A response with any other status is a failure classed
	// "status NNN". Redirects are not followed: a 3xx is the response
	// measured, and a failure unless listed here.
	SuccessCodes []int
	// TLS configures https:// connections (a test server's CA, or no
	// verification at all); nil verifies against the system's roots.
	TLS *tls.Config
}

// NewHTTP checks h and returns a Target that sends it.
//
// Plain http:// over HTTP/1.1 uses rigor's own client: one keep-alive
// connection per worker, request bytes built once, bodies discarded
// without allocating. https:// and HTTP/2 use net/http's Transport.
func NewHTTP(h HTTP) (Target, error) {
	u, err := url.Parse(h.URL)
	if err != nil {
		return nil, fmt.Errorf("bad URL %q: %w", h.URL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("bad URL %q: scheme must be http or https", h.URL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("bad URL %q: no host", h.URL)
	}
	if u.User != nil {
		// Not echoed with its password, which is the point.
		return nil, fmt.Errorf("bad URL %q: put credentials in an Authorization header", redact.String(h.URL))
	}
	method := h.Method
	if method == "" {
		method = http.MethodGet
	}
	if !validToken(method) {
		return nil, fmt.Errorf("bad method %q", method)
	}
	for k, vs := range h.Header {
		if !validToken(k) {
			return nil, fmt.Errorf("bad header name %q", k)
		}
		for _, v := range vs {
			if strings.ContainsAny(v, "\r\n\x00") {
				return nil, fmt.Errorf("bad value for header %s: control characters", k)
			}
		}
	}
	ok, err := successSet(h.SuccessCodes)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "http" && !h.HTTP2 {
		t := newH1(h, u, method)
		t.success = ok
		return t, nil
	}
	t := newStd(h, u, method)
	t.success = ok
	return t, nil
}

func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

func idempotent(method string) bool {
	switch method {
	case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE":
		return true
	}
	return false
}

func newH1(h HTTP, u *url.URL, method string) *h1Target {
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	host := u.Host
	if v := h.Header.Get("Host"); v != "" {
		host = v
	}
	var b bytes.Buffer
	b.WriteString(method + " " + u.RequestURI() + " HTTP/1.1\r\n")
	b.WriteString("Host: " + host + "\r\n")
	if h.Header.Get("User-Agent") == "" {
		b.WriteString("User-Agent: rigor-ramp\r\n")
	}
	for k, vs := range h.Header {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		if ck == "Host" || ck == "Content-Length" || ck == "Connection" {
			continue
		}
		for _, v := range vs {
			b.WriteString(ck + ": " + v + "\r\n")
		}
	}
	if len(h.Body) > 0 || method == "POST" || method == "PUT" || method == "PATCH" {
		b.WriteString("Content-Length: " + strconv.Itoa(len(h.Body)) + "\r\n")
	}
	if h.DisableKeepAlive {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	b.Write(h.Body)
	return &h1Target{
		name:    h.URL,
		addr:    addr,
		req:     b.Bytes(),
		head:    method == "HEAD",
		retry:   idempotent(method),
		close:   h.DisableKeepAlive,
		timeout: h.Timeout,
	}
}

// stdTarget drives https:// and HTTP/2 through net/http.
type stdTarget struct {
	h       HTTP
	method  string
	u       *url.URL
	tr      *http.Transport
	proto   string
	success statusSet
}

func newStd(h HTTP, u *url.URL, method string) *stdTarget {
	tr := &http.Transport{
		Proxy:               nil, // measure the target, not a proxy
		DialContext:         (&net.Dialer{Timeout: h.Timeout}).DialContext,
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: 1 << 14, // at least the concurrency: never close a worker's connection
		DisableCompression:  true,
		DisableKeepAlives:   h.DisableKeepAlive,
		TLSClientConfig:     tlsConfig(h.TLS),
		IdleConnTimeout:     90 * time.Second,
	}
	proto := "HTTP/1.1 (net/http)"
	if h.HTTP2 {
		var p http.Protocols
		if u.Scheme == "https" {
			p.SetHTTP1(true) // ALPN fallback when the server lacks h2
			p.SetHTTP2(true)
			proto = "HTTP/2"
		} else {
			p.SetUnencryptedHTTP2(true)
			proto = "HTTP/2 (h2c, prior knowledge)"
		}
		tr.Protocols = &p
	}
	return &stdTarget{h: h, method: method, u: u, tr: tr, proto: proto}
}

func (t *stdTarget) Name() string     { return t.h.URL }
func (t *stdTarget) Protocol() string { return t.proto }

func (t *stdTarget) NewClient() Client {
	req := &http.Request{
		Method:     t.method,
		URL:        t.u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     t.h.Header.Clone(),
		Host:       t.u.Host,
	}
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if v := req.Header.Get("Host"); v != "" {
		req.Host = v
		req.Header.Del("Host")
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "rigor-ramp")
	}
	req.ContentLength = int64(len(t.h.Body))
	return &stdClient{t: t, req: req}
}

type stdClient struct {
	t   *stdTarget
	req *http.Request
}

func (c *stdClient) Do(ctx context.Context) Outcome {
	if c.t.h.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.t.h.Timeout)
		defer cancel()
	}
	req := c.req.WithContext(ctx)
	if len(c.t.h.Body) > 0 {
		body := c.t.h.Body
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := c.t.tr.RoundTrip(req)
	if err != nil {
		return Outcome{Class: stdErrClass(ctx, err)}
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return Outcome{Class: stdErrClass(ctx, err), Bytes: n}
	}
	return Outcome{Class: c.t.success.class(resp.StatusCode), Bytes: n}
}

func stdErrClass(ctx context.Context, err error) string {
	if c := Classify(err); c == ClassTimeout {
		return c
	}
	if ctx.Err() == context.Canceled {
		return ClassCanceled
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return ClassConnect
	}
	return ClassConnection
}

func (c *stdClient) Close() error {
	c.t.tr.CloseIdleConnections()
	return nil
}
