package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/rigorbench/rigor/gotest"
)

// progressBar shows a run's progress on a terminal: the phase or round,
// the time spent against the budget, what is still unresolved.
type progressBar struct {
	p      *mpb.Progress
	bar    *mpb.Bar
	budget time.Duration
	stop   chan struct{}

	mu   sync.Mutex
	last gotest.Progress
}

// newProgressBar returns nil unless w is a terminal.
func newProgressBar(w io.Writer, budget time.Duration) *progressBar {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	// A terminal without a size (some CI pseudo-terminals) shows no bar.
	if width, _, err := term.GetSize(int(f.Fd())); err != nil || width < 40 {
		return nil
	}
	pb := &progressBar{budget: budget, stop: make(chan struct{})}
	pb.p = mpb.New(mpb.WithOutput(f), mpb.WithWidth(100), mpb.WithRefreshRate(200*time.Millisecond))
	pb.bar = pb.p.New(budget.Milliseconds(), mpb.BarStyle().Lbound("[").Rbound("]"),
		mpb.PrependDecorators(decor.Any(pb.left, decor.WC{W: 34, C: decor.DindentRight})),
		mpb.AppendDecorators(decor.Any(pb.right)),
	)
	go pb.tick()
	return pb
}

func (pb *progressBar) tick() {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-pb.stop:
			return
		case <-t.C:
			pb.mu.Lock()
			start := pb.last.Start
			pb.mu.Unlock()
			if !start.IsZero() {
				pb.bar.SetCurrent(min(time.Since(start), pb.budget).Milliseconds())
			}
		}
	}
}

func (pb *progressBar) update(p gotest.Progress) {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	if p.Unresolved == nil && p.Phase == pb.last.Phase && p.Round == pb.last.Round {
		p.Unresolved = pb.last.Unresolved
	}
	pb.last = p
}

func (pb *progressBar) left(decor.Statistics) string {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	p := pb.last
	switch p.Phase {
	case gotest.PhaseMeasure:
		return fmt.Sprintf("round %d (%d/%d) %s", p.Round, p.Step, p.Steps, elapsed(p.Start))
	case "":
		return "starting"
	default:
		return fmt.Sprintf("%s %d/%d", p.Phase, p.Step, p.Steps)
	}
}

func (pb *progressBar) right(decor.Statistics) string {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	p := pb.last
	s := p.Current
	if n := len(p.Unresolved); n > 0 {
		s = fmt.Sprintf("%d unresolved: %s", n, strings.Join(p.Unresolved[:min(n, 2)], ", "))
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func elapsed(start time.Time) string {
	if start.IsZero() {
		return ""
	}
	return time.Since(start).Round(time.Second).String()
}

// Write prints log lines above the bar.
func (pb *progressBar) Write(b []byte) (int, error) {
	return pb.p.Write(b)
}

// done removes the bar; a nil bar is a no-op.
func (pb *progressBar) done() {
	if pb == nil {
		return
	}
	close(pb.stop)
	pb.bar.Abort(true)
	pb.p.Wait()
}
