// Package sqlstore keeps rigor's history in a database: every recorded
// run with its project, branch, commits, machine, benchmarks, metrics and
// every raw sample with its round. One interface, Store, has two engines
// with the same schema:
//
//   - SQLite (modernc.org/sqlite, pure Go), by default at .rigor/rigor.db
//     in the module root, created on first use, in WAL mode with a busy
//     timeout so that several processes can record at once;
//   - PostgreSQL (github.com/jackc/pgx/v5), for a history shared by a team
//     or a fleet of CI machines: a postgres:// or postgresql:// URL.
//
// The schema is versioned with forward-only migrations (pressly/goose),
// each applied inside a transaction; a database whose schema is newer than
// this binary is refused (ErrNewerSchema), never written to.
//
// Runs are recorded in one transaction each: a process killed while
// recording leaves the database as it was before the run or with the whole
// run, never a part of it.
package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/pressly/goose/v3"
	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/rigorbench/rigor/model"
)

// Engines.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// FileName is the SQLite database's name in the .rigor directory.
const FileName = "rigor.db"

// EnvStore names the environment variable that selects a store, as
// --store does: a PostgreSQL URL or a SQLite file.
const EnvStore = "RIGOR_STORE"

// A Store is rigor's history: runs recorded with their context, read back
// as points of series. Both engines implement it with the same schema.
type Store interface {
	// Record stores run in one transaction. A run recorded before (the
	// same content) is not stored twice: Recorded.Duplicate says so.
	Record(ctx context.Context, run *model.Run, rec Recording) (Recorded, error)
	// Points returns, for every run side that matches f, each
	// benchmark's metric with its raw per-operation values, oldest first
	// (by commit time, then run start).
	Points(ctx context.Context, f Filter) ([]Point, error)
	// Summaries returns the points Points returns, in the same order,
	// each with the median and number of its values instead of the
	// values (one row per point; no sample is read).
	Summaries(ctx context.Context, f Filter) ([]Point, error)
	// EachSummary calls fn on each point Summaries returns, in no
	// particular order, without holding them all: the Point is fn's. It
	// stops at fn's first error and returns it.
	EachSummary(ctx context.Context, f Filter, fn func(*Point) error) error
	// Run rebuilds the run recorded with id (a Point's RunID).
	Run(ctx context.Context, id int64) (*model.Run, error)
	// RecordedRuns returns the number of runs recorded and the highest
	// id among them: what changes when a run is recorded (runs are
	// never removed), for readers that keep what they worked out from
	// the history until it changes.
	RecordedRuns(ctx context.Context) (n, last int64, err error)
	// Machines lists the machines that recorded runs.
	Machines(ctx context.Context) ([]Machine, error)
	// LatestRun returns the id of project's run recorded last on a
	// machine (its fingerprint); an error wrapping ErrNoRun when none.
	LatestRun(ctx context.Context, project, machine string) (int64, error)

	// SetBaseline points project's baseline name at a side of a recorded
	// run ("" for the side of a run of one side), on the machine the run
	// was measured on (baseline.go).
	SetBaseline(ctx context.Context, project, name string, runID int64, side string, now time.Time) (Baseline, error)
	// Baseline returns project's baseline name on a machine (its
	// fingerprint); an error wrapping ErrNoBaseline when none.
	Baseline(ctx context.Context, project, machine, name string) (Baseline, error)
	// Baselines lists project's baselines on every machine.
	Baselines(ctx context.Context, project string) ([]Baseline, error)
	// RemoveBaseline removes project's baseline name on a machine; the
	// run stays recorded.
	RemoveBaseline(ctx context.Context, project, machine, name string) error

	// SchemaVersion is the schema version the database is at.
	SchemaVersion(ctx context.Context) (int64, error)
	// Engine is SQLite or Postgres.
	Engine() string
	// Location says where the store is, for people: a path, or a URL
	// without its password.
	Location() string
	Close() error
}

//go:embed migrations
var migrations embed.FS

// ErrNewerSchema is returned by Open for a database whose schema is newer
// than this binary knows: a newer rigor wrote to it.
var ErrNewerSchema = errors.New("database schema is newer than this rigor")

// ErrNoStore is returned by Open with Create false when there is no
// database yet.
var ErrNoStore = errors.New("no history recorded yet")

// ErrNotStore is returned (wrapped) by Open for a database that is not
// rigor's: with ReadOnly, one without rigor's tables; for a SQLite file,
// one that holds other tables and none of rigor's. It is left as it is.
var ErrNotStore = errors.New("not a rigor history store")

// ErrOlderSchema is returned (wrapped) by Open with ReadOnly for a store
// whose schema is older than this binary's: a reader does not migrate
// it; the next recording does.
var ErrOlderSchema = errors.New("database schema is older than this rigor")

// Options say how to open a store.
type Options struct {
	// Create makes the SQLite file (and its directory) when missing.
	// PostgreSQL databases must exist; their tables are always created.
	Create bool
	// BusyTimeout is how long a SQLite writer waits for another to
	// finish (default 30s).
	BusyTimeout time.Duration
	// ReadOnly opens a store for reading only: nothing is written, not
	// even the migration's lock file, so that a store the user may not
	// write to (a read-only directory or file system, another user's
	// file) can be read, and a database that is not rigor's is never
	// changed (no table made, no switch to WAL). A database without
	// rigor's tables is refused (ErrNotStore), and one whose schema is
	// older than this binary's too (ErrOlderSchema): it is not migrated.
	// Record fails. (PostgreSQL's permissions are the server's.)
	ReadOnly bool
}

// IsURL reports whether location names a PostgreSQL database.
func IsURL(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// Default returns the store location to use: explicit (a --store flag)
// when set, else $RIGOR_STORE, else .rigor/rigor.db under root.
func Default(explicit, root string) string {
	if explicit != "" {
		return explicit
	}
	if env := os.Getenv(EnvStore); env != "" {
		return env
	}
	return filepath.Join(root, ".rigor", FileName)
}

// Exists reports whether a store is there to record to: always for a
// PostgreSQL URL, and for a SQLite file when the file exists.
func Exists(location string) bool {
	if IsURL(location) {
		return true
	}
	_, err := os.Stat(location)
	return err == nil
}

// Open opens the store at location (a PostgreSQL URL or a SQLite file)
// and brings its schema up to date.
func Open(ctx context.Context, location string, opts Options) (Store, error) {
	if err := CheckLocation(location); err != nil {
		return nil, err
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 30 * time.Second
	}
	if IsURL(location) {
		return openPostgres(ctx, location, opts.ReadOnly)
	}
	return openSQLite(ctx, location, opts)
}

func openSQLite(ctx context.Context, path string, opts Options) (Store, error) {
	if opts.ReadOnly {
		return openSQLiteReader(ctx, path, opts)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if !opts.Create {
			return nil, fmt.Errorf("%s: %w", path, ErrNoStore)
		}
		// A dangling link (.rigor/rigor.db pointing at a file that is
		// gone): its target is not made, wherever it points.
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			return nil, fmt.Errorf("%s is a link to %s, which does not exist: rigor does not create a link's target (create the file, or remove the link)", path, target)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("creating the store: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("opening the store: %w", err)
	} else if err := checkForeign(ctx, path); err != nil {
		return nil, err
	}
	// WAL lets readers and one writer work at once; the busy timeout
	// makes a second writer wait instead of failing; _txlock=immediate
	// takes the write lock when a transaction begins, so that two
	// writers never deadlock upgrading a read lock; foreign keys are
	// checked.
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", opts.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", sqliteDSN(path, q))
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	s := &sqlStore{db: db, engine: SQLite, location: path}
	unlock, err := lockFile(path + ".migrate-lock")
	if err != nil {
		db.Close()
		if opts.ReadOnly {
			return nil, fmt.Errorf("opening %s: its schema is older than this rigor's, and bringing it up to date needs write access: %w", path, err)
		}
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	err = s.migrate(ctx, goose.DialectSQLite3, "migrations/sqlite")
	unlock()
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// sqliteDSN is the modernc.org/sqlite data source of the file at path
// with the parameters q.
func sqliteDSN(path string, q url.Values) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// openSQLiteReader opens the SQLite store at path read-only (mode=ro, no
// journal mode set, no lock file) when its schema is this binary's.
func openSQLiteReader(ctx context.Context, path string, opts Options) (Store, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNoStore)
	} else if err != nil {
		return nil, fmt.Errorf("opening the store: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", opts.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("mode", "ro")
	db, err := sql.Open("sqlite", sqliteDSN(path, q))
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	s := &sqlStore{db: db, engine: SQLite, location: path, readOnly: true}
	v, err := s.readVersion(ctx)
	if cantInitWAL(err) && !walPending(path) {
		// A WAL database's reader needs its -shm file, and cannot make
		// one in a directory it may not write to. With no -wal file
		// (no writer, nothing waiting to be copied into the database)
		// the file alone is the store: read it as immutable. (A writer
		// would need that directory too.)
		db.Close()
		q.Set("immutable", "1")
		if db, err = sql.Open("sqlite", sqliteDSN(path, q)); err != nil {
			return nil, fmt.Errorf("opening %s: %w", path, err)
		}
		s.db = db
		v, err = s.readVersion(ctx)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	latest, err := latestVersion("migrations/sqlite")
	if err != nil {
		db.Close()
		return nil, err
	}
	if err := readerVersion(path, v, latest); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// readerVersion is the error of a reader of a store at schema version v:
// nil at this binary's (latest), and none is migrated.
func readerVersion(location string, v, latest int64) error {
	switch {
	case v == 0:
		return fmt.Errorf("%s: %w: a database without rigor's tables, left as it is (give --store a rigor store, or record a run to start one elsewhere)", location, ErrNotStore)
	case v > latest:
		return newerSchema(location, v, latest)
	case v < latest:
		return fmt.Errorf("store %s is at schema version %d, this rigor's is %d: %w; reading leaves it as it is, and the next recording (rigor run, ab or exec --record, rigor import) brings it up to date", location, v, latest, ErrOlderSchema)
	}
	return nil
}

// cantInitWAL reports whether err is SQLite's: a read-only connection
// could not open or make the database's -shm file (SQLITE_READONLY_*:
// CANTINIT, DIRECTORY; SQLITE_CANTOPEN).
func cantInitWAL(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqlite3.SQLITE_READONLY || c == sqlite3.SQLITE_CANTOPEN
}

// walPending reports whether the SQLite file at path has a -wal file
// with something in it.
func walPending(path string) bool {
	fi, err := os.Stat(path + "-wal")
	return err == nil && fi.Size() > 0
}

func openPostgres(ctx context.Context, location string, readOnly bool) (Store, error) {
	cfg, err := pgx.ParseConfig(location)
	if err != nil {
		return nil, fmt.Errorf("store URL %s: %w", Redact(location), err)
	}
	db := stdlib.OpenDB(*cfg)
	s := &sqlStore{db: db, engine: Postgres, location: Redact(location)}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connecting to %s: %w", s.location, err)
	}
	if readOnly {
		s.readOnly = true
		v, err := s.readVersion(ctx)
		if err == nil {
			var latest int64
			if latest, err = latestVersion("migrations/postgres"); err == nil {
				err = readerVersion(s.location, v, latest)
			}
		}
		if err != nil {
			db.Close()
			return nil, err
		}
		return s, nil
	}
	if err := s.migrate(ctx, goose.DialectPostgres, "migrations/postgres"); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// latestVersion is the highest schema version this binary knows: its
// SQL files' and its Go migrations'.
func latestVersion(dir string) (int64, error) {
	entries, err := fs.ReadDir(migrations, dir)
	if err != nil {
		return 0, err
	}
	var latest int64
	for _, m := range goMigrations() {
		latest = max(latest, m.Version)
	}
	for _, e := range entries {
		v, err := goose.NumericComponent(e.Name())
		if err != nil {
			return 0, err
		}
		latest = max(latest, v)
	}
	return latest, nil
}

// migrate refuses a newer schema, then applies the pending migrations,
// each in its own transaction.
func (s *sqlStore) migrate(ctx context.Context, dialect goose.Dialect, dir string) error {
	sub, err := fs.Sub(migrations, dir)
	if err != nil {
		return err
	}
	latest, err := latestVersion(dir)
	if err != nil {
		return err
	}
	// Look before migrating: goose would create its version table in
	// any database it is pointed at.
	check := func() (bool, error) {
		v, err := s.readVersion(ctx)
		if err != nil {
			return false, fmt.Errorf("store %s: %w", s.location, err)
		}
		if v > latest {
			return false, newerSchema(s.location, v, latest)
		}
		return v == latest, nil
	}
	if current, err := check(); err != nil || current {
		return err
	}
	if dialect == goose.DialectPostgres {
		// Two processes opening a new database at once: one migrates,
		// the other waits for it (a session-level advisory lock, held
		// on a connection of its own, released when it closes).
		conn, err := s.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("store %s: %w", s.location, err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLockID); err != nil {
			return fmt.Errorf("store %s: locking for the migration: %w", s.location, err)
		}
		defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, migrationLockID)
		// Another process may have migrated while this one waited.
		if current, err := check(); err != nil || current {
			return err
		}
	}
	p, err := goose.NewProvider(dialect, s.db, sub, goose.WithGoMigrations(goMigrations()...))
	if err != nil {
		return fmt.Errorf("store %s: %w", s.location, err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("store %s: migrating the schema: %w", s.location, err)
	}
	return nil
}

// checkForeign refuses the SQLite file at path when it holds tables and
// none of rigor's (another program's database given as --store, or
// linked to as .rigor/rigor.db), before anything is written to it: rigor
// would add its tables and switch it to WAL. It is read without being
// changed; what cannot be read is left for the open to report.
func checkForeign(ctx context.Context, path string) error {
	q := url.Values{}
	q.Set("mode", "ro")
	db, err := sql.Open("sqlite", sqliteDSN(path, q))
	if err != nil {
		return nil
	}
	defer db.Close()
	var rigor, n sql.NullInt64
	err = db.QueryRowContext(ctx, `SELECT sum(name = $1), count(*) FROM sqlite_master WHERE type = 'table'`, versionTable).Scan(&rigor, &n)
	if err != nil || rigor.Int64 > 0 || n.Int64 == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w: a SQLite database with %d tables of another program's, left as it is (give --store a file of rigor's own)", path, ErrNotStore, n.Int64)
}

// newerSchema is the error of a store at schema version v, above latest.
func newerSchema(location string, v, latest int64) error {
	return fmt.Errorf("store %s is at schema version %d, this rigor knows up to %d: %w (upgrade rigor)", location, v, latest, ErrNewerSchema)
}

// migrationLockID is the PostgreSQL advisory lock that serializes
// migrations (an arbitrary constant: "rigor" in ASCII).
const migrationLockID = 0x7269676f72

// versionTable is goose's table of applied migrations.
const versionTable = "goose_db_version"

// readVersion returns the highest applied schema version, 0 for a
// database without rigor's tables.
func (s *sqlStore) readVersion(ctx context.Context) (int64, error) {
	var exists bool
	var err error
	switch s.engine {
	case SQLite:
		var n int
		err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1`, versionTable).Scan(&n)
		exists = n > 0
	default:
		err = s.db.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, versionTable).Scan(&exists)
	}
	if err != nil || !exists {
		return 0, err
	}
	var v sql.NullInt64
	err = s.db.QueryRowContext(ctx, `SELECT max(version_id) FROM `+versionTable+` WHERE is_applied`).Scan(&v)
	return v.Int64, err
}

// sqlStore is Store on database/sql, for both engines: the statements
// are written in the SQL both accept ($N parameters, ON CONFLICT,
// RETURNING).
type sqlStore struct {
	db       *sql.DB
	engine   string
	location string
	readOnly bool        // opened with Options.ReadOnly
	checked  atomic.Bool // a SQLite store's integrity, checked before its first recording
	// noMedians is set for a store at a schema before version 4 (only
	// the tests make one): Record keeps no medians.
	noMedians bool
}

func (s *sqlStore) Engine() string   { return s.engine }
func (s *sqlStore) Location() string { return s.location }
func (s *sqlStore) Close() error     { return s.db.Close() }

func (s *sqlStore) SchemaVersion(ctx context.Context) (int64, error) {
	return s.readVersion(ctx)
}
