//go:build !unix

package sqlstore

// lockFile does nothing where flock is missing: concurrent first uses of
// one SQLite file rely on SQLite's own locking and busy timeout.
func lockFile(string) (func(), error) { return func() {}, nil }
