package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreLocationRefused: a store named by --store or $RIGOR_STORE that
// is neither a postgres URL nor a file path (a typo, another database's
// URL, a key=value connection string) is refused, exit 2, before anything
// is created or recorded, its password not shown. It made directories and
// a SQLite file named after the URL, password included, recorded there
// and exited 0.
func TestStoreLocationRefused(t *testing.T) {
	dir, files := historyModule(t, 1)
	for _, loc := range []string{
		"postgress://rigor:secret@127.0.0.1/db",
		"mysql://u:secret@h/db",
		"host=localhost user=rigor password=secret dbname=x",
	} {
		for _, how := range []string{"flag", "env"} {
			var flag []string
			t.Setenv("RIGOR_STORE", "")
			if how == "flag" {
				flag = []string{"--store", loc}
			} else {
				t.Setenv("RIGOR_STORE", loc)
			}
			out, errOut, code := rigorIn(t, dir, append([]string{"import", files[0]}, flag...)...)
			if code != exitUsage || !strings.Contains(errOut, "neither a PostgreSQL URL nor a SQLite file path") || strings.Contains(out, "recorded") {
				t.Errorf("import, %s %q: exit %d, want 2 and a refusal\n%s%s", how, loc, code, out, errOut)
			}
			if strings.Contains(errOut+out, "secret") {
				t.Errorf("import, %s %q shows the password: %s", how, loc, errOut)
			}
			// compare refuses it before comparing anything.
			if out, errOut, code := rigorIn(t, dir, append([]string{"compare", files[0], files[0]}, flag...)...); code != exitUsage || out != "" {
				t.Errorf("compare, %s %q: exit %d, want 2 and nothing compared\n%s%s", how, loc, code, out, errOut)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".txt") && e.Name() != "go.mod" {
			t.Errorf("a refused store left %s", e.Name())
		}
	}
}

// TestStoreEnvOutsideModule: outside a module, $RIGOR_STORE names the
// store for every command: history and changes read what import
// recorded there (history said "no go.mod here" while import honoured
// it).
func TestStoreEnvOutsideModule(t *testing.T) {
	_, files := historyModule(t, 3)
	db := filepath.Join(t.TempDir(), "shared.db")
	t.Setenv("RIGOR_STORE", db)
	dir := t.TempDir()
	if out, errOut, code := rigorIn(t, dir, append([]string{"import"}, files...)...); code != 0 || strings.Count(out, "recorded as run") != 3 {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	for _, cmd := range []string{"history", "changes"} {
		if out, errOut, code := rigorIn(t, dir, cmd); code != 0 || !strings.Contains(out, "2 series") {
			t.Errorf("%s with $RIGOR_STORE outside a module: exit %d\n%s%s", cmd, code, out, errOut)
		}
	}
	// Nothing named: one line, exit 2.
	t.Setenv("RIGOR_STORE", "")
	if _, errOut, code := rigorIn(t, dir, "history"); code != exitUsage || !strings.Contains(errOut, "no go.mod here") {
		t.Errorf("history with no store named outside a module: exit %d, %s", code, errOut)
	}
}

// TestStoreConnectionError: a store that cannot be reached says so in
// one line with the driver's whole error (it was cut after "failed to
// connect to `user=rigor database=db`:"), and shows no password, neither
// the user part's nor one in the query string.
func TestStoreConnectionError(t *testing.T) {
	dir, files := historyModule(t, 1)
	// Two hosts, two closed ports: pgx's error has a line for each.
	loc := "postgres://rigor:userpw@127.0.0.1:1,127.0.0.1:2/db?password=querypw&connect_timeout=5&sslmode=disable"
	_, errOut, code := rigorIn(t, dir, "import", "--store", loc, files[0])
	if code != exitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Fatalf("import to a closed port: exit %d, want 2 and one line:\n%s", code, errOut)
	}
	for _, want := range []string{"failed to connect to `user=rigor database=db`: ", "127.0.0.1:1 ", "127.0.0.1:2 ", "refused", "password=xxxxx"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the error lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "userpw") || strings.Contains(errOut, "querypw") {
		t.Errorf("the error shows a password:\n%s", errOut)
	}
	for _, l := range []string{loc, strings.Replace(loc, "?", "?sslpassword=querypw&", 1)} {
		if got := locationName(l); strings.Contains(got, "userpw") || strings.Contains(got, "querypw") {
			t.Errorf("locationName(%q) = %q shows a password", l, got)
		}
	}
}
