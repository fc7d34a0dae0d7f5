//go:build !linux

package execbench

// An rssProbe reads nothing where a spawned child's peak RSS is its own.
type rssProbe struct{}

func newRSSProbe() *rssProbe     { return &rssProbe{} }
func (p *rssProbe) close()       {}
func (p *rssProbe) floor() int64 { return 0 }
