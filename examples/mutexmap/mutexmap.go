// Package mutexmap is a contended counter map: every goroutine bumps its
// own key in one map guarded by one mutex, so adding goroutines adds
// waiting, not work. A sharded map, one lock per shard, is the contrast:
// its goroutines rarely meet. rigor scales both over 1..GOMAXPROCS
// goroutines.
package mutexmap

import "sync"

// Locked is a map guarded by a single mutex.
type Locked struct {
	mu sync.Mutex
	m  map[int]int
}

// NewLocked returns an empty Locked map.
func NewLocked() *Locked { return &Locked{m: map[int]int{}} }

// Inc adds one to key's count and returns the new count.
func (l *Locked) Inc(key int) int {
	l.mu.Lock()
	l.m[key]++
	n := l.m[key]
	l.mu.Unlock()
	return n
}

// Sharded spreads keys over shards, each with its own mutex, padded so
// that two shards never share a cache line.
type Sharded struct {
	shards [64]shard
}

type shard struct {
	mu sync.Mutex
	m  map[int]int
	_  [40]byte
}

// NewSharded returns an empty Sharded map.
func NewSharded() *Sharded {
	s := &Sharded{}
	for i := range s.shards {
		s.shards[i].m = map[int]int{}
	}
	return s
}

// Inc adds one to key's count and returns the new count.
func (s *Sharded) Inc(key int) int {
	sh := &s.shards[uint(key)%uint(len(s.shards))]
	sh.mu.Lock()
	sh.m[key]++
	n := sh.m[key]
	sh.mu.Unlock()
	return n
}
