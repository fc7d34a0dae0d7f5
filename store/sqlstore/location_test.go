package sqlstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// passwordBefore matches what comes before a password: a URL's user part,
// a query parameter named ...password, or a key=value field.
var passwordBefore = regexp.MustCompile(`(?i)^postgres(ql)?://[a-z0-9]*:$|^postgres(ql)?://[^?#]*\?([^#]*&)?[a-z]*password=$|(^|\s)[a-z_]*password=$`)

// TestCheckLocation: a postgres URL or a file path is a store; a
// mistyped or other scheme, a SQLite URI or a key=value connection
// string is refused, its password not shown.
func TestCheckLocation(t *testing.T) {
	for _, c := range []struct {
		loc  string
		ok   bool
		want string // in the error
	}{
		{"postgres://rigor@127.0.0.1/db", true, ""},
		{"postgresql://rigor:pw@db:5432/rigor?sslmode=disable", true, ""},
		{"/var/lib/rigor/rigor.db", true, ""},
		{".rigor/rigor.db", true, ""},
		{"rigor.db", true, ""},
		{`C:\rigor\rigor.db`, true, ""},
		{"./mysql://u@h/db", true, ""},
		{"./host=db user=rigor", true, ""},
		{"my store/with spaces.db", true, ""},
		{"postgress://rigor:secret@127.0.0.1/db", false, "postgress: is no database rigor knows (did you mean postgres:?)"},
		{"postgre://rigor@127.0.0.1/db", false, "did you mean postgres:?"},
		{"pgsql://rigor@127.0.0.1/db", false, "did you mean postgres:?"},
		{"mysql://u:secret@h/db", false, "mysql: is no database rigor knows"},
		{"sqlite:///tmp/x.db", false, "sqlite: is a URI; give the SQLite file's path"},
		{"file:rigor.db", false, "file: is a URI"},
		{"host=localhost user=rigor password=secret dbname=x", false, "key=value connection string"},
		{"dbname=rigor", false, "key=value connection string"},
		{"", false, "empty"},
		{"a\x00b", false, "NUL"},
	} {
		err := CheckLocation(c.loc)
		if (err == nil) != c.ok {
			t.Errorf("CheckLocation(%q) = %v, want ok %v", c.loc, err, c.ok)
			continue
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, ErrBadLocation) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckLocation(%q) = %v, want ErrBadLocation saying %q", c.loc, err, c.want)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckLocation(%q) shows the password: %v", c.loc, err)
		}
	}
}

// TestOpenRefusesBadLocation: Open creates nothing for a location that is
// not a store (it made directories and a SQLite file named after a
// mistyped URL, password included, and recorded there).
func TestOpenRefusesBadLocation(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, loc := range []string{"postgress://rigor:secret@127.0.0.1/db", "mysql://u@h/db", "host=localhost user=rigor dbname=x"} {
		s, err := Open(context.Background(), loc, Options{Create: true})
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) opened a store", loc)
		}
		if !errors.Is(err, ErrBadLocation) {
			t.Errorf("Open(%q): %v, want ErrBadLocation", loc, err)
		}
	}
	entries, _ := os.ReadDir(".")
	for _, e := range entries {
		t.Errorf("Open created %s", filepath.Join(".", e.Name()))
	}
}

// TestRedact: every password is masked, in the user part and in the
// query (password, sslpassword, spelled in any case or percent-encoded),
// and the rest is kept.
func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://rigor:secret@db/rigor", "postgres://rigor:xxxxx@db/rigor"},
		{"postgres://rigor@db/rigor?password=secret&sslmode=disable", "postgres://rigor@db/rigor?password=xxxxx&sslmode=disable"},
		{"postgres://db/rigor?sslmode=verify-full&sslpassword=secret", "postgres://db/rigor?sslmode=verify-full&sslpassword=xxxxx"},
		{"postgresql://db/rigor?PassWord=secret", "postgresql://db/rigor?PassWord=xxxxx"},
		{"postgres://db/rigor?pass%77ord=secret", "postgres://db/rigor?password=xxxxx"},
		{"postgres://u:secret@db/rigor?password=secret#secret", "postgres://u:xxxxx@db/rigor?password=xxxxx"},
		{"postgres://rigor@db/rigor", "postgres://rigor@db/rigor"},
		{"postgres://u:se%zzcret@db/x", "postgres://(a URL that does not parse, not shown)"},
		{"host=db password=secret user=rigor", "host=db password=xxxxx user=rigor"},
		{"host=db password='sec ret' user=rigor", "host=db password=xxxxx user=rigor"},
		{".rigor/rigor.db", ".rigor/rigor.db"},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzRedact: whatever the location, Redact does not panic, and a
// password put in the user part or the query is never shown.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"postgres://u:%s@h/db", "postgres://u@h/db?password=%s", "postgresql://h/db?a=b&sslpassword=%s&c=d", "host=h password=%s"} {
		f.Add(s, "hunter2")
	}
	f.Add("postgres://:%s", "000000") // a port, which Redact rightly shows
	f.Fuzz(func(t *testing.T, pattern, secret string) {
		CheckLocation(pattern)
		Redact(pattern)
		if len(secret) < 6 || strings.ContainsAny(secret, "%&#?@/:= '\\\x00") || strings.Count(pattern, "%s") != 1 {
			return
		}
		for _, k := range []string{"xxxxx", "postgres", "password", "sslpassword"} {
			if strings.Contains(k, secret) {
				return
			}
		}
		loc := strings.Replace(pattern, "%s", secret, 1)
		before, after, _ := strings.Cut(pattern, "%s")
		if !passwordBefore.MatchString(before) || strings.Count(loc, secret) != 1 {
			return
		}
		// After "postgres://user:" a password only when "@" follows it:
		// "postgres://:000000" is a host's port, not a password.
		if strings.HasSuffix(before, ":") && !strings.HasPrefix(after, "@") {
			return
		}
		if got := Redact(loc); strings.Contains(got, secret) {
			t.Errorf("Redact(%q) = %q shows the password", loc, got)
		}
	})
}
