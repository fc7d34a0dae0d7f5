//go:build unix

package sqlstore

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path (created if missing) and
// returns its release. It serializes the schema migration of one SQLite
// file between processes: two first uses at once would otherwise both
// try to create the tables.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
