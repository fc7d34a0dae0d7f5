package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
)

// Error classes recorded for failed requests. An HTTP response whose
// status is not a success code (by default, anything but 2xx: a redirect
// is a failure too) is classed "status NNN".
const (
	ClassTimeout    = "timeout"    // the request did not complete in time
	ClassConnect    = "connect"    // a connection could not be made
	ClassConnection = "connection" // the connection failed mid-request (reset, closed)
	ClassProtocol   = "protocol"   // the response was not valid HTTP
	ClassCanceled   = "canceled"   // the ramp was stopping
	ClassError      = "error"      // any other error returned by a Func
)

// An Outcome is the result of one request.
type Outcome struct {
	// Class is empty for a success, or the failure's class.
	Class string
	// Bytes is the number of response bytes read.
	Bytes int64
	// Request is the index of the workload's request that was sent (see
	// NewWorkload); 0 for a target of one request.
	Request int
}

// A Target is what a ramp drives: an HTTP endpoint (NewHTTP) or a Func.
type Target interface {
	// Name describes the target in reports: a URL, a function's name.
	Name() string
	// Protocol says how requests are made: "HTTP/1.1", "HTTP/2", "func".
	Protocol() string
	// NewClient returns a client for one worker goroutine. A client is
	// used by one goroutine at a time, except for Close, which may be
	// called at any time to abandon requests in flight.
	NewClient() Client
}

// A Client makes requests to a target, one at a time.
type Client interface {
	Do(ctx context.Context) Outcome
	Close() error
}

// A Func is one operation of a Go target: a database call, an RPC, a
// function under test. It returns nil on success; a failure is classed
// by ErrorClass, or as ClassTimeout for a context deadline, or ClassError.
// It must return soon after ctx is cancelled: a ramp waits for every call
// in flight before it reports a step.
type Func func(ctx context.Context) error

// Name implements Target.
func (Func) Name() string { return "func" }

// Protocol implements Target.
func (Func) Protocol() string { return "func" }

// NewClient implements Target.
func (f Func) NewClient() Client { return funcClient(f) }

// inProcess marks a Func as running in the generator's process, so that
// the process's CPU is the target's as much as the generator's.
func (Func) inProcess() bool { return true }

type funcClient Func

func (c funcClient) Do(ctx context.Context) Outcome {
	return Outcome{Class: Classify(c(ctx))}
}

func (funcClient) Close() error { return nil }

// classedError is an error with an explicit class.
type classedError struct {
	class string
	err   error
}

func (e *classedError) Error() string      { return e.class + ": " + e.err.Error() }
func (e *classedError) Unwrap() error      { return e.err }
func (e *classedError) ErrorClass() string { return e.class }

// ErrorClass wraps err so that a Func's failure is reported under class
// ("not found", "rate limited") instead of ClassError.
func ErrorClass(class string, err error) error {
	if err == nil {
		return nil
	}
	return &classedError{class: class, err: err}
}

// Classify returns the class of a request's error: "" for nil, the class
// given with ErrorClass, ClassTimeout for deadlines and network timeouts,
// ClassCanceled for cancellation, else ClassError.
func Classify(err error) string {
	if err == nil {
		return ""
	}
	var c interface{ ErrorClass() string }
	if errors.As(err, &c) {
		return c.ErrorClass()
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return ClassTimeout
	}
	if errors.Is(err, context.Canceled) {
		return ClassCanceled
	}
	return ClassError
}

// statusClasses holds "status NNN" for every status code, so that
// classing a response allocates nothing.
var statusClasses = func() []string {
	s := make([]string, 1000)
	for i := range s {
		s[i] = "status " + strconv.Itoa(i)
	}
	return s
}()

// statusSet is a set of HTTP status codes, 0 to 999.
type statusSet [16]uint64

func (s *statusSet) add(code int) { s[code/64] |= 1 << (code % 64) }
func (s *statusSet) has(code int) bool {
	return code >= 0 && code < 1000 && s[code/64]&(1<<(code%64)) != 0
}

// successSet is the set of codes, or 2xx when codes is empty.
func successSet(codes []int) (statusSet, error) {
	var s statusSet
	if len(codes) == 0 {
		for c := 200; c < 300; c++ {
			s.add(c)
		}
		return s, nil
	}
	for _, c := range codes {
		if c < minStatus || c > maxStatus {
			return s, fmt.Errorf("bad success code %d: want a status from %d to %d", c, minStatus, maxStatus)
		}
		s.add(c)
	}
	return s, nil
}

// class is "" for a success code, else the status's class.
func (s *statusSet) class(code int) string {
	if s.has(code) {
		return ""
	}
	if code >= 0 && code < len(statusClasses) {
		return statusClasses[code]
	}
	return ClassProtocol
}
