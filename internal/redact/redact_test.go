package redact

import (
	"slices"
	"strings"
	"testing"
)

// TestArgs: every secret a command line may carry is masked, and
// nothing else is touched.
func TestArgs(t *testing.T) {
	for _, c := range []struct {
		in, want []string
	}{
		{[]string{"rigor", "exec", "--store", "postgres://rigor:SECRETPW@db.example:5432/rigor?sslmode=disable", "true"},
			[]string{"rigor", "exec", "--store", "postgres://rigor:xxxxx@db.example:5432/rigor?sslmode=disable", "true"}},
		{[]string{"rigor", "ab", "--store=postgresql://u:p%40ss@h/db"}, []string{"rigor", "ab", "--store=postgresql://u:xxxxx@h/db"}},
		{[]string{"rigor", "ab", "--store", "postgres://u:p@ss@h/db"}, []string{"rigor", "ab", "--store", "postgres://u:xxxxx@h/db"}},
		{[]string{"rigor", "run", "--store", "postgres://u@h/db?password=SECRETPW&sslpassword=S2"}, []string{"rigor", "run", "--store", "postgres://u@h/db?password=xxxxx&sslpassword=xxxxx"}},
		{[]string{"rigor", "ramp", "-H", "Authorization: Bearer SECRETPW", "-H", "Content-Type: application/json", "http://127.0.0.1:8080/"},
			[]string{"rigor", "ramp", "-H", "Authorization: xxxxx", "-H", "Content-Type: application/json", "http://127.0.0.1:8080/"}},
		{[]string{"rigor", "ramp", "--header=proxy-authorization:Basic SECRETPW", "-HCookie: session=SECRETPW", "-H", "X-Api-Key: SECRETPW", "-H", "X-Auth-Token:SECRETPW"},
			[]string{"rigor", "ramp", "--header=proxy-authorization:xxxxx", "-HCookie: xxxxx", "-H", "X-Api-Key: xxxxx", "-H", "X-Auth-Token:xxxxx"}},
		{[]string{"rigor", "ramp", "https://user:SECRETPW@api.example/v1?api_key=SECRETPW&page=2"}, []string{"rigor", "ramp", "https://user:xxxxx@api.example/v1?api_key=xxxxx&page=2"}},
		{[]string{"rigor", "serve", "--token", "SECRETPW", "--allow-remote"}, []string{"rigor", "serve", "--token", "xxxxx", "--allow-remote"}},
		{[]string{"rigor", "serve", "--token=SECRETPW"}, []string{"rigor", "serve", "--token=xxxxx"}},
		{[]string{"rigor", "serve", "--token-file", "/run/secrets/rigor"}, []string{"rigor", "serve", "--token-file", "/run/secrets/rigor"}},
		{[]string{"rigor", "ab", "--env", "GITHUB_TOKEN=SECRETPW", "--env", "GOFLAGS=-mod=mod"}, []string{"rigor", "ab", "--env", "GITHUB_TOKEN=xxxxx", "--env", "GOFLAGS=-mod=mod"}},
		{[]string{"rigor", "exec", `curl -s -H "Authorization: Bearer SECRETPW" --password SECRETPW2 http://127.0.0.1/`},
			[]string{"rigor", "exec", `curl -s -H "Authorization: xxxxx" --password xxxxx http://127.0.0.1/`}},
		{[]string{"rigor", "history", "--store", "host=db user=rigor password='SECRET PW' dbname=rigor"}, []string{"rigor", "history", "--store", "host=db user=rigor password=xxxxx dbname=rigor"}},
		// Nothing secret: as it is.
		{[]string{"rigor", "ab", "--store", "postgres://rigor@db:5432/rigor", "-count", "5", "./...", "--", "-test.benchtime=1s", "BenchmarkTokenize"},
			[]string{"rigor", "ab", "--store", "postgres://rigor@db:5432/rigor", "-count", "5", "./...", "--", "-test.benchtime=1s", "BenchmarkTokenize"}},
		{[]string{"rigor", "ramp", "-H", "Accept: text/html", "http://127.0.0.1:8080/a:b@c"}, []string{"rigor", "ramp", "-H", "Accept: text/html", "http://127.0.0.1:8080/a:b@c"}},
		{nil, nil},
	} {
		got := Args(c.in)
		if !slices.Equal(got, c.want) {
			t.Errorf("Args(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
		if again := Args(got); !slices.Equal(again, got) {
			t.Errorf("Args is not idempotent: %q, then %q", got, again)
		}
		if len(c.in) > 0 && &got[0] == &c.in[0] {
			t.Errorf("Args returned its argument, not a copy")
		}
	}
}

// FuzzString: whatever the word, String does not panic, masks to
// itself a second time, and a password in a URL's user part is gone.
func FuzzString(f *testing.F) {
	f.Add("postgres://rigor:", "SECRETPW")
	f.Add("Authorization: Bearer ", "SECRETPW")
	f.Add("--token=", "SECRETPW")
	f.Fuzz(func(t *testing.T, prefix, secret string) {
		s := prefix + secret
		got := String(s)
		if String(got) != got {
			t.Errorf("String(%q) = %q, again %q", s, got, String(got))
		}
		if len(secret) >= 4 && !strings.ContainsAny(secret, "/?#@:'\"\\ \t\n\r\f\v") {
			u := "postgres://rigor:" + secret + "@host/db"
			if got := String(u); strings.Contains(got, secret) && !strings.Contains("postgres://rigor:xxxxx@host/db", secret) {
				t.Errorf("String(%q) = %q shows the password", u, got)
			}
		}
	})
}
