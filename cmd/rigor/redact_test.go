package main

import (
	"database/sql"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/history"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// TestSecretsNotRecorded (issue 40 item 1): a password given on the
// command line, in the store's URL or in a header, is found nowhere rigor
// writes what it ran: run.json, the store (runs.command, env_json), the
// Markdown and HTML reports, rigor serve's run page and the pages of
// serve --export; nor in rigor ramp --format json's output. Before, rigor
// recorded os.Args as it was. The binary is run, since main is where the
// command is captured; the PostgreSQL half (its URL's own password) runs
// when RIGOR_TEST_POSTGRES is set.
func TestSecretsNotRecorded(t *testing.T) {
	bin := rigorBinary(t)
	const secret = "SECRETPW"
	for engine, loc := range testStores(t) {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			// A clean commit, so that the run is a point of the history's
			// series and serve --export writes its page; what rigor
			// writes goes outside it.
			repo := filepath.Join(dir, "repo")
			if err := os.Mkdir(repo, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"init", "-q"}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "one"}} {
				cmd := exec.Command("git", args...)
				cmd.Dir = repo
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			needles := []string{secret}
			if loc == "" {
				loc = filepath.Join(dir, "store.db")
			} else {
				u, err := url.Parse(loc)
				if err != nil {
					t.Fatal(err)
				}
				if _, has := u.User.Password(); !has {
					t.Fatalf("RIGOR_TEST_POSTGRES has no password to look for")
				}
				// The URL's own password, with the user name it follows.
				needles = append(needles, u.User.String()+"@")
			}
			out := filepath.Join(dir, "out")
			cmd := exec.Command(bin, "exec", "--record", "--store", loc, "--runs", "3", "--warmup", "0", "--out", out,
				"--setup", "true Authorization: Bearer "+secret, "--format", "md", "-o", filepath.Join(dir, "report.md"), "true", "sleep 0")
			cmd.Dir = repo
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("rigor exec: %v\n%s", err, b)
			}
			runJSON := filepath.Join(out, "run.json")
			html, stderr, code := rigorIn(t, dir, "report", runJSON, "--format", "html")
			if code != exitOK {
				t.Fatalf("rigor report: exit %d: %s", code, stderr)
			}
			pages := filepath.Join(dir, "pages")
			if stdout, stderr, code := rigorIn(t, dir, "serve", "--store", loc, "--export", pages); code != exitOK {
				t.Fatalf("rigor serve --export: exit %d\n%s\n%s", code, stdout, stderr)
			}

			s, err := sqlstore.Open(t.Context(), loc, sqlstore.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			d := &dashboard{store: s, flags: seriesFlags{unit: "sec/op"}, opts: history.Options{}}
			srv := httptest.NewServer(d.handler())
			defer srv.Close()
			code, runPage := get(t, srv.URL+"/run/1")
			if code != http.StatusOK || !strings.Contains(runPage, "rigor exec") {
				t.Fatalf("GET /run/1: %d\n%.300s", code, runPage)
			}

			texts := map[string]string{"report --format html": html, "serve's /run/1": runPage}
			// Every file rigor wrote: run.json, report.md, the pages, and
			// a SQLite store's files (its -wal too) byte for byte.
			var runPages int
			filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
				if err != nil || e.IsDir() {
					if e != nil && e.Name() == ".git" {
						return filepath.SkipDir
					}
					return err
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				texts[path] = string(b)
				if strings.HasPrefix(e.Name(), "run-") {
					runPages++
				}
				return nil
			})
			if runPages == 0 || texts[runJSON] == "" || !strings.Contains(texts[filepath.Join(dir, "report.md")], "rigor exec") {
				t.Fatalf("wrote %d run pages, run.json %d bytes; report.md:\n%s", runPages, len(texts[runJSON]), texts[filepath.Join(dir, "report.md")])
			}
			if engine == "postgres" {
				db, err := sql.Open("pgx", loc)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				var stored string
				if err := db.QueryRow(`SELECT string_agg(command || env_json, ' ') FROM runs`).Scan(&stored); err != nil {
					t.Fatal(err)
				}
				var machines string
				if err := db.QueryRow(`SELECT string_agg(env_json, ' ') FROM machines`).Scan(&machines); err != nil {
					t.Fatal(err)
				}
				texts["the store's runs and machines"] = stored + machines
			}
			for name, text := range texts {
				for _, n := range needles {
					if strings.Contains(text, n) {
						i := strings.Index(text, n)
						t.Errorf("%s holds %q: ...%s...", name, n, text[max(0, i-80):min(len(text), i+40)])
					}
				}
			}
			// The command is there, masked.
			if !strings.Contains(texts[runJSON], "Authorization: xxxxx") {
				t.Errorf("run.json's command is not there, masked:\n%.2000s", texts[runJSON])
			}
		})
	}
}

// TestSecretsNotRecordedUnreachableStore (issue 40 item 1): rigor exec
// --store postgres://rigor:SECRETPW@... whose server cannot be reached
// still writes run.json and its report, and says it did not record:
// none of them, nor that message, holds the password.
func TestSecretsNotRecordedUnreachableStore(t *testing.T) {
	dir := t.TempDir()
	out, report := filepath.Join(dir, "out"), filepath.Join(dir, "report.md")
	cmd := exec.Command(rigorBinary(t), "exec", "--record", "--store", "postgres://rigor:SECRETPW@127.0.0.1:1/rigor?sslmode=disable&connect_timeout=5",
		"--runs", "3", "--warmup", "0", "--out", out, "--format", "md", "-o", report, "true", "sleep 0")
	cmd.Dir = dir
	stderr, _ := cmd.CombinedOutput()
	if !strings.Contains(string(stderr), "not recorded: connecting to postgres://rigor:xxxxx@127.0.0.1:1/rigor") {
		t.Errorf("rigor exec did not say it could not record:\n%s", stderr)
	}
	texts := map[string]string{"stderr": string(stderr)}
	for _, path := range []string{filepath.Join(out, "run.json"), report} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		texts[path] = string(b)
	}
	for name, text := range texts {
		if strings.Contains(text, "SECRETPW") {
			t.Errorf("%s holds the password:\n%s", name, text)
		}
	}
	if !strings.Contains(texts[report], "postgres://rigor:xxxxx@127.0.0.1:1/rigor") {
		t.Errorf("the report does not show the command, masked:\n%s", texts[report])
	}
}

// TestRampJSONNoSecrets (issue 40 item 1): rigor ramp -H 'Authorization:
// Bearer T' --format json carried the header twice (the command and
// env.command_line); it carries it masked, and the target URL without its
// api_key. A URL with a password is refused without echoing it.
func TestRampJSONNoSecrets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	target := srv.URL + "/?api_key=SECRETPW"
	cmd := exec.Command(rigorBinary(t), "ramp", "-H", "Authorization: Bearer SECRETPW", "--concurrency", "1", "--warmup", "0", "--duration", "100ms", "--format", "json", target)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rigor ramp: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "SECRETPW") || strings.Count(string(out), "Authorization: xxxxx") != 2 || !strings.Contains(string(out), `/?api_key=xxxxx"`) {
		t.Errorf("rigor ramp --format json:\n%s\nwant the header masked, twice", out)
	}
	cmd = exec.Command(rigorBinary(t), "ramp", "--concurrency", "1", "--duration", "100ms", "http://user:SECRETPW@127.0.0.1:1/")
	b, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != exitUsage || strings.Contains(string(b), "SECRETPW") || !strings.Contains(string(b), "user:xxxxx@") {
		t.Errorf("rigor ramp URL with a password: exit %d, %v:\n%s\nwant exit 2, the URL masked", code, err, b)
	}
}
