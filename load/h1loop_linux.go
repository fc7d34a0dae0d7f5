//go:build linux

package load

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The closed loop's event loop. A goroutine per connection (h1Client)
// makes the same system calls per request as wrk's event loop, but each
// response wakes its goroutine through Go's poller: a futex wake-up, a
// spinning thread, a park, a context switch. On a small machine those are
// CPU taken from the server measured. Here a few OS threads each own an
// epoll instance and up to loopConnsPerThread non-blocking connections:
// per request one write, one read and a share of an epoll_wait, nothing
// else. It runs the plain http:// closed loop without think time on
// Linux; the rest (TLS, HTTP/2, the open loop, workloads) keeps the
// goroutines.

// loopConnsPerThread is how many connections one event-loop thread owns.
// One thread keeps up with 32 connections to a server on the same 2-CPU
// machine using about 60% of a CPU.
const loopConnsPerThread = 32

// spinFor is how long a loop thread with nothing to send polls for events
// before it blocks in epoll_wait (spin), and maxSkip the most blocking
// waits it makes without spinning after spins that found nothing.
const (
	spinFor = 50 * time.Microsecond
	maxSkip = 64
)

// yieldEvery is how often a loop thread calls runtime.Gosched. The Go
// runtime's sysmon treats a goroutine that has not been rescheduled for
// 10 ms as running too long: from then on, each time it looks (every 20
// µs to 10 ms) it asks the goroutine to stop and, if the thread is in a
// system call, takes its P and hands it to another thread. Each P taken
// resets sysmon to its shortest sleep, so a loop that never yields kept
// sysmon waking about 3,700 times a second, and its own thread getting a
// P back after as many system calls (docs/ramp-generator.md). A yield of
// the locked thread costs a hand-off of its P to another thread and back,
// 200 times a second at this period; half sysmon's 10 ms, so that sysmon
// always sees a new schedule between two looks 10 ms apart.
const yieldEvery = 5 * time.Millisecond

// eventLoop runs one step's closed loop for an h1Target.
type eventLoop struct {
	t     *h1Target
	addrs []unix.Sockaddr // the target's addresses, tried in order
	base  time.Time
	we    int64        // the window's end: nothing is sent from then
	stop  *atomic.Bool // stop sending
	ctx   context.Context
	rec   func(worker int, sent, end int64, out Outcome)

	closed atomic.Bool

	mu      sync.Mutex
	wakeFd  int // an eventfd Close writes to wake every thread; -1 once run has returned
	threads []*loopThread
}

// newEventLoop returns an event loop for t's closed loop, or nil when it
// cannot run one (its host does not resolve: the goroutines then report
// that as they always have).
func newEventLoop(ctx context.Context, t *h1Target) *eventLoop {
	host, port, err := net.SplitHostPort(t.addr)
	if err != nil {
		return nil
	}
	pn, err := net.LookupPort("tcp", port)
	if err != nil {
		return nil
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		ips, err = net.DefaultResolver.LookupNetIP(rctx, "ip", host)
		if err != nil || len(ips) == 0 {
			return nil
		}
	}
	l := &eventLoop{t: t, wakeFd: -1}
	for _, ip := range ips {
		ip = ip.Unmap()
		if ip.Is4() {
			l.addrs = append(l.addrs, &unix.SockaddrInet4{Port: pn, Addr: ip.As4()})
		} else if ip.Zone() == "" {
			l.addrs = append(l.addrs, &unix.SockaddrInet6{Port: pn, Addr: ip.As16()})
		}
	}
	if len(l.addrs) == 0 {
		return nil
	}
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil
	}
	l.wakeFd = fd
	return l
}

// run drives workers connections from base until the window's end at we
// and then until their requests in flight complete or Close abandons
// them. rec records each request, by worker, from the goroutine of the
// thread that owns the worker's connection; one worker's requests are
// recorded by one goroutine.
func (l *eventLoop) run(ctx context.Context, workers int, base time.Time, we int64, stop *atomic.Bool, rec func(worker int, sent, end int64, out Outcome)) {
	l.ctx, l.base, l.we, l.stop, l.rec = ctx, base, we, stop, rec
	n := min(max(1, runtime.GOMAXPROCS(0)), (workers+loopConnsPerThread-1)/loopConnsPerThread)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		th := &loopThread{l: l, ep: -1}
		for w := i; w < workers; w += n {
			th.conns = append(th.conns, &loopConn{worker: w, idx: len(th.conns), fd: -1, rr: newRespReader()})
		}
		l.mu.Lock()
		l.threads = append(l.threads, th)
		l.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			th.run()
		}()
	}
	wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	unix.Close(l.wakeFd)
	l.wakeFd = -1 // Close after run must not write to a number reused since
}

// Close abandons the requests in flight: each is recorded as cancelled.
func (l *eventLoop) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wakeFd < 0 {
		return nil // run has returned
	}
	var one [8]byte
	one[0] = 1 // an eventfd counter is a native-endian uint64; any nonzero value wakes
	_, err := unix.Write(l.wakeFd, one[:])
	return err
}

func (l *eventLoop) now() int64 { return int64(time.Since(l.base)) }

// A loopConn is one worker's connection.
type loopConn struct {
	worker  int
	idx     int   // in its thread's conns
	fd      int   // -1 when not connected
	gen     int32 // counts the connections made, to drop stale events
	state   uint8
	reused  bool  // the connection has carried a complete exchange
	retried bool  // this request has been resent once
	addr    int   // the address connected to, or being tried
	sent    int64 // when the request started, ns since base
	dl      int64 // the current phase's deadline, ns since base; 0 for none
	written int
	more    bool // the socket may hold bytes not yet read
	rr      *respReader
}

// An event's data is its connection's index in the thread and the
// connection's generation (the epoll_event's one portable 32-bit field):
// an event for a connection closed since, in the batch in hand, is
// dropped.
const (
	idxBits = 20
	genMask = 1<<(31-idxBits) - 1
)

// A connection's states.
const (
	csIdle       = iota // no request in flight
	csConnecting        // waiting for connect to complete
	csWriting           // the request is partly written
	csReading           // waiting for the response
)

type loopThread struct {
	l      *eventLoop
	ep     int
	conns  []*loopConn
	ready  []*loopConn // to start a request on, after the events in hand
	next   []*loopConn
	cpu    float64       // the share of a CPU the thread used while it ran, less its spinning
	spun   time.Duration // the time spent spinning (spin)
	skip   int           // epoll waits to block in without spinning first
	back   int           // what skip is set to when a spin finds nothing
	yields int           // the times it called runtime.Gosched
}

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_THREAD, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// busiest returns the largest share of a CPU that one of the loop's
// threads used, after run: a thread that used all of one was saturated,
// though the process used a fraction of the machine.
// spun returns the time the loop's threads spent spinning, after run.
func (l *eventLoop) spun() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var d time.Duration
	for _, th := range l.threads {
		d += th.spun
	}
	return d
}

func (l *eventLoop) busiest() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := 0.0
	for _, th := range l.threads {
		b = max(b, th.cpu)
	}
	return b
}

func (th *loopThread) run() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	l := th.l
	cpu0, wall0 := threadCPU(), time.Now()
	defer func() {
		if wall := time.Since(wall0); wall > 0 {
			th.cpu = max(0, float64(threadCPU()-cpu0-th.spun)/float64(wall))
		}
	}()
	var err error
	th.ep, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err == nil {
		err = unix.EpollCtl(th.ep, unix.EPOLL_CTL_ADD, l.wakeFd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1})
	}
	if err != nil {
		// Without a poller nothing can be sent: every request fails.
		for th.startable() {
			for _, c := range th.conns {
				c.sent = l.now()
				th.record(c, ClassConnect, 0)
			}
		}
		if th.ep >= 0 {
			unix.Close(th.ep)
		}
		return
	}
	defer unix.Close(th.ep)
	defer th.closeAll()
	th.ready = append(th.ready, th.conns...)
	events := make([]unix.EpollEvent, 2*len(th.conns)+1)
	yieldAt := l.now() + int64(yieldEvery)
	for {
		if l.closed.Load() {
			th.abandon()
			return
		}
		if now := l.now(); now >= yieldAt {
			runtime.Gosched() // see yieldEvery
			th.yields++
			yieldAt = now + int64(yieldEvery)
		}
		th.ready, th.next = th.next[:0], th.ready
		for _, c := range th.next {
			th.start(c)
		}
		if len(th.ready) == 0 && th.idle() {
			return
		}
		var n int
		if len(th.ready) > 0 {
			n, err = pollNow(th.ep, events)
		} else if n, err = th.spin(events); n == 0 && err == nil {
			n, err = unix.EpollWait(th.ep, events, th.timeout())
		}
		if err != nil && err != unix.EINTR {
			th.abandon()
			return
		}
		for _, ev := range events[:max(n, 0)] {
			if ev.Fd < 0 {
				continue // Close: checked at the top
			}
			c := th.conns[ev.Fd&(1<<idxBits-1)]
			if ev.Fd>>idxBits != c.gen || c.fd < 0 {
				continue // for a connection since closed
			}
			th.event(c, ev.Events)
		}
		th.expire()
	}
}

// spin polls for events without blocking for up to spinFor, so that a
// response arriving soon finds the thread running: it need not be woken,
// and the server's write that delivers the response need not wake it.
// A spin that finds nothing makes the next ones be skipped, twice as many
// each time up to maxSkip, so that a loop whose responses come slower than
// spinFor spends next to nothing spinning. The time spent is th.spun.
func (th *loopThread) spin(events []unix.EpollEvent) (int, error) {
	if th.skip > 0 {
		th.skip--
		return 0, nil
	}
	t0 := time.Now()
	for {
		n, err := pollNow(th.ep, events)
		d := time.Since(t0)
		switch {
		case n > 0 || err != nil && err != unix.EINTR:
			th.spun += d
			th.back = 0
			return n, err
		case d >= spinFor:
			th.spun += d
			th.back = min(max(1, 2*th.back), maxSkip)
			th.skip = th.back
			return 0, nil
		}
	}
}

// startable reports whether a new request may be sent now.
func (th *loopThread) startable() bool {
	l := th.l
	return !l.stop.Load() && !l.closed.Load() && l.now() < l.we
}

func (th *loopThread) idle() bool {
	for _, c := range th.conns {
		if c.state != csIdle {
			return false
		}
	}
	return true
}

// start sends a new request on c, if the window is still open.
func (th *loopThread) start(c *loopConn) {
	if !th.startable() {
		return
	}
	c.sent = th.l.now()
	c.retried = false
	th.attempt(c)
}

// attempt sends c's request: connects if needed, then writes.
func (th *loopThread) attempt(c *loopConn) {
	if c.fd < 0 {
		c.addr = 0
		th.connect(c)
		return
	}
	th.setDeadline(c)
	th.write(c)
}

func (th *loopThread) setDeadline(c *loopConn) {
	c.dl = 0
	if t := th.l.t.timeout; t > 0 {
		c.dl = th.l.now() + int64(t)
	}
}

// connect starts connecting c to the address c.addr.
func (th *loopThread) connect(c *loopConn) {
	l := th.l
	sa := l.addrs[c.addr]
	domain := unix.AF_INET
	if _, ok := sa.(*unix.SockaddrInet6); ok {
		domain = unix.AF_INET6
	}
	fd, err := unix.Socket(domain, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		th.fail(c, ClassConnect, 0)
		return
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) // as net.Dial does
	c.gen = (c.gen + 1) & genMask
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: c.gen<<idxBits | int32(c.idx)}
	if err := unix.EpollCtl(th.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(fd)
		th.fail(c, ClassConnect, 0)
		return
	}
	c.fd, c.reused, c.more = fd, false, false
	c.rr.clear()
	th.setDeadline(c)
	for {
		err = unix.Connect(fd, sa)
		if err != unix.EINTR {
			break
		}
	}
	switch err {
	case nil:
		th.connected(c)
	case unix.EINPROGRESS, unix.EALREADY:
		c.state = csConnecting
	default:
		th.connectFailed(c)
	}
}

// connectFailed tries the next address, as net.Dialer does, or fails
// the request.
func (th *loopThread) connectFailed(c *loopConn) {
	th.drop(c)
	if c.addr+1 < len(th.l.addrs) && !th.l.closed.Load() {
		c.addr++
		th.connect(c)
		return
	}
	th.fail(c, ClassConnect, 0)
}

// connected starts the exchange on c's new connection, with its own
// deadline as h1Client's SetDeadline after a dial.
func (th *loopThread) connected(c *loopConn) {
	th.setDeadline(c)
	th.write(c)
}

// write writes what is left of c's request, then waits for the response.
func (th *loopThread) write(c *loopConn) {
	req := th.l.t.req
	if c.state != csWriting {
		c.written = 0
	}
	for c.written < len(req) {
		n, err := rawWrite(c.fd, req[c.written:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			c.state = csWriting // EPOLLOUT says when there is room
			return
		case err != nil:
			if c.reused && !c.retried {
				// The server closed an idle connection: send again on a
				// new one.
				th.resend(c)
				return
			}
			th.fail(c, ClassConnection, 0)
			return
		}
		c.written += n
	}
	c.rr.p.reset(th.l.t.head)
	c.state = csReading
	if c.more || c.rr.r < c.rr.w {
		th.read(c)
	}
}

// event handles readiness of c's connection.
func (th *loopThread) event(c *loopConn, ev uint32) {
	switch c.state {
	case csIdle:
		c.more = true // read when the next request is sent
	case csConnecting:
		if ev&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if e, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || e != 0 {
			th.connectFailed(c)
			return
		}
		th.connected(c)
	case csWriting:
		if ev&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			th.write(c)
		}
		if ev&(unix.EPOLLIN|unix.EPOLLRDHUP) != 0 && c.state == csWriting {
			c.more = true
		}
	case csReading:
		if ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			th.read(c)
		}
	}
}

// read reads and parses c's response as far as the socket allows.
func (th *loopThread) read(c *loopConn) {
	rr := c.rr
	for {
		if rr.r < rr.w {
			done, err := rr.parse(false)
			if err != nil {
				th.fail(c, ClassProtocol, rr.p.n)
				return
			}
			if done {
				th.complete(c)
				return
			}
		}
		sp := rr.space()
		n, err := rawRead(c.fd, sp)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			c.more = false
			return
		case err != nil:
			if err == unix.ECONNRESET && th.stale(c) {
				th.resend(c)
				return
			}
			th.fail(c, ClassConnection, rr.p.n)
			return
		case n == 0:
			th.eof(c)
			return
		}
		rr.w += n
		// A read that filled the buffer may have left bytes in the
		// socket; a shorter one emptied it, and their arrival will be an
		// edge that brings this connection back.
		c.more = n == len(sp)
		if !c.more {
			done, err := rr.parse(false)
			switch {
			case err != nil:
				th.fail(c, ClassProtocol, rr.p.n)
			case done:
				th.complete(c)
			}
			return
		}
	}
}

// eof handles the server's closing of c's connection during a response.
func (th *loopThread) eof(c *loopConn) {
	rr := c.rr
	done, err := rr.parse(true)
	switch {
	case err == nil && done:
		th.complete(c)
	case errors.Is(err, io.EOF) && th.stale(c):
		th.resend(c)
	case errors.Is(err, errProtocol):
		th.fail(c, ClassProtocol, rr.p.n)
	default:
		th.fail(c, ClassConnection, rr.p.n)
	}
}

// stale reports whether c's response, which failed before its first
// byte, may be read as a kept connection the server had closed (closed
// before it read the request, or reset as it closed with the request
// unread): it is safe to send an idempotent request again, once.
func (th *loopThread) stale(c *loopConn) bool {
	return c.rr.p.n == 0 && c.reused && !c.retried && th.l.t.retry
}

// resend sends c's request again on a new connection.
func (th *loopThread) resend(c *loopConn) {
	th.drop(c)
	c.retried = true
	th.attempt(c)
}

// complete records c's response and starts the next request.
func (th *loopThread) complete(c *loopConn) {
	p := &c.rr.p
	c.reused = true
	if !p.h.keepAlive || th.l.t.close {
		th.drop(c)
	}
	th.record(c, th.l.t.success.class(p.h.status), p.n)
}

// fail records c's request as failed with class (cancelled when the
// step is abandoning its requests) and drops the connection.
func (th *loopThread) fail(c *loopConn, class string, n int64) {
	th.drop(c)
	th.record(c, class, n)
}

func (th *loopThread) record(c *loopConn, class string, n int64) {
	l := th.l
	if (class == ClassConnection || class == ClassConnect || class == ClassTimeout) && (l.ctx.Err() != nil || l.closed.Load()) {
		// As h1Client's errClass: the step was stopping.
		class = ClassCanceled
	}
	c.state = csIdle
	l.rec(c.worker, c.sent, l.now(), Outcome{Class: class, Bytes: n})
	th.ready = append(th.ready, c)
}

// drop closes c's connection.
func (th *loopThread) drop(c *loopConn) {
	if c.fd >= 0 {
		unix.Close(c.fd) // which takes it out of the epoll set
		c.fd = -1
	}
	c.more = false
	c.rr.clear()
}

// timeout is how long epoll_wait may wait: until the next deadline, in
// whole milliseconds rounded up; -1 for none.
func (th *loopThread) timeout() int {
	next := int64(-1)
	for _, c := range th.conns {
		if c.state != csIdle && c.dl > 0 && (next < 0 || c.dl < next) {
			next = c.dl
		}
	}
	if next < 0 {
		return -1
	}
	d := next - th.l.now()
	if d <= 0 {
		return 0
	}
	return int((d + int64(time.Millisecond) - 1) / int64(time.Millisecond))
}

// expire fails the requests whose deadline has passed.
func (th *loopThread) expire() {
	now := th.l.now()
	for _, c := range th.conns {
		if c.state != csIdle && c.dl > 0 && now >= c.dl {
			th.fail(c, ClassTimeout, c.rr.p.n)
		}
	}
}

// closeAll closes the thread's connections when it is done with them,
// as the step closes the goroutines' clients.
func (th *loopThread) closeAll() {
	for _, c := range th.conns {
		th.drop(c)
	}
}

// abandon records every request in flight as cancelled.
func (th *loopThread) abandon() {
	for _, c := range th.conns {
		if c.state != csIdle {
			th.fail(c, ClassCanceled, c.rr.p.n)
		}
		th.drop(c)
	}
	th.ready = th.ready[:0]
}

// The system calls that cannot block (the sockets are non-blocking, and
// pollNow does not wait) are made raw: without entersyscall, so that the
// Go runtime's sysmon never finds the thread's P in a system call for
// them (it would hand the P to another thread, and the thread would have
// to get one back), and a few hundred ns cheaper each. Only the blocking
// epoll_wait goes through unix.EpollWait, which lets the P go.

// pollNow is epoll_wait without waiting.
func pollNow(ep int, events []unix.EpollEvent) (int, error) {
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(unsafe.SliceData(events))), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// rawWrite is write(2) on a non-blocking socket.
func rawWrite(fd int, p []byte) (int, error) {
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// rawRead is read(2) on a non-blocking socket.
func rawRead(fd int, p []byte) (int, error) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}
