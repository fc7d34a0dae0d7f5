package sqlstore

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// ErrBadLocation is returned (wrapped) by CheckLocation and Open for a
// store location that is neither a PostgreSQL URL nor a file path.
var ErrBadLocation = errors.New("neither a PostgreSQL URL nor a SQLite file path")

// scheme matches what starts a URL (RFC 3986: a letter, then letters,
// digits, '+', '-' or '.', then ':'). One letter is a Windows drive.
var scheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]+):`)

// keyValue matches a field of a key=value connection string
// (host=db user=rigor dbname=rigor).
var keyValue = regexp.MustCompile(`^[A-Za-z_]+=`)

// CheckLocation reports whether location can name a store: a postgres://
// or postgresql:// URL, or a file path. Anything else, such as a
// mistyped scheme (postgress://), another database's URL (mysql://), a
// SQLite URI (file:) or a key=value connection string, is refused: taken
// as a path, it would create a SQLite file named after it and record
// there. (A file whose name looks so is named ./NAME.) The error shows
// the location without its passwords.
func CheckLocation(location string) error {
	bad := func(why string) error {
		return fmt.Errorf("%s: %w: %s", Redact(location), ErrBadLocation, why)
	}
	switch {
	case location == "":
		return fmt.Errorf("empty store location: %w", ErrBadLocation)
	case IsURL(location):
		if _, err := url.Parse(location); err != nil {
			return bad("the URL does not parse")
		}
		return nil
	case strings.ContainsRune(location, 0):
		return bad("it holds a NUL byte")
	}
	if m := scheme.FindStringSubmatch(location); m != nil {
		s := strings.ToLower(m[1])
		switch {
		case strings.HasPrefix(s, "pg") || strings.HasPrefix(s, "pos") || strings.HasPrefix(s, "psql"):
			return bad(fmt.Sprintf("%s: is no database rigor knows (did you mean postgres:?)", s))
		case s == "file" || s == "sqlite" || s == "sqlite3":
			return bad(fmt.Sprintf("%s: is a URI; give the SQLite file's path", s))
		}
		return bad(fmt.Sprintf("%s: is no database rigor knows (its history is kept in PostgreSQL or SQLite)", s))
	}
	fields := strings.Fields(location)
	allKV := len(fields) > 0
	for _, f := range fields {
		allKV = allKV && keyValue.MatchString(f)
	}
	if allKV {
		return bad("a key=value connection string; write it as a URL: postgres://USER@HOST:PORT/DB?sslmode=disable")
	}
	return nil
}

// mask replaces a password.
const mask = "xxxxx"

// kvPassword matches a password in a key=value connection string.
var kvPassword = regexp.MustCompile(`(?i)(\b[a-z_]*password\s*=\s*)('[^']*'|\S*)`)

// Redact returns location for people: a URL with its passwords masked
// (the user part's and any query parameter whose name contains
// "password", such as password and sslpassword), a key=value string
// with its password values masked, a path as it is. A URL that does not
// parse shows only its scheme.
func Redact(location string) string {
	m := scheme.FindStringSubmatch(location)
	if m == nil || !strings.HasPrefix(location[len(m[0]):], "//") {
		if strings.Contains(strings.ToLower(location), "password") {
			return kvPassword.ReplaceAllString(location, "${1}"+mask)
		}
		return location
	}
	u, err := url.Parse(location)
	if err != nil {
		return m[0] + "//(a URL that does not parse, not shown)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), mask)
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			k, _, _ := strings.Cut(p, "=")
			if dk, err := url.QueryUnescape(k); err == nil {
				k = dk
			}
			if strings.Contains(strings.ToLower(k), "password") {
				parts[i] = url.QueryEscape(k) + "=" + mask
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	// The fragment is no part of a connection string, and may hold anything.
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
