// Package redact masks the secrets a command line may hold, so that what
// rigor records of its own command (a run's command and
// env.command_line, in run.json, the history store, the reports and the
// pages rigor serve shows or exports) never carries them: the password
// of a URL (postgres://rigor:PASSWORD@host/db), a query parameter or a
// key=value word named like a secret (password=, token=, GITHUB_TOKEN=),
// a credential-bearing header ('Authorization: Bearer T', Cookie,
// X-Api-Key) and the value of a flag named like one (--token T,
// --password=T).
//
// Masking is idempotent (a masked command masks to itself), so that it
// can be applied again wherever a command is read or stored.
package redact

import (
	"regexp"
	"strings"
)

// Mask replaces a secret.
const Mask = "xxxxx"

// secretName is what names a secret: a word that holds one of these.
const secretName = `(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|signature)`

var (
	// userinfo: a URL's password (scheme://user:PASSWORD@host), to the
	// last @ before the host, as a URL parser reads an @ left unescaped
	// in a password.
	userinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^\s/?#@:'"]*):[^\s/?#'"]*@`)
	// queryParam: a query parameter named like a secret (?token=T).
	queryParam = regexp.MustCompile(`(?i)([?&;][a-z0-9_.-]*` + secretName + `[a-z0-9_.-]*=)[^&\s#'"]*`)
	// header: a credential-bearing HTTP header ('Authorization: Bearer
	// T'), to the end of the word or of a quoted string.
	header = regexp.MustCompile(`(?i)(^-H|^--header=|^|[\s'"=])((?:proxy-)?authorization|(?:set-)?cookie|x-[a-z0-9-]*(?:key|auth|token|secret|password|session)[a-z0-9-]*|[a-z0-9-]*` + secretName + `[a-z0-9-]*)(\s*:\s*)[^'"\n]*`)
	// keyValue: a key=value word whose key names a secret (password=T,
	// GITHUB_TOKEN=T, --token=T), the value quoted or to the next space.
	keyValue = regexp.MustCompile(`(?i)(^|[\s'"?&;])(-{0,2}[a-z0-9_.-]*` + secretName + `[a-z0-9_.-]*\s*=\s*)('[^']*'|"[^"]*"|[^\s&'"]*)`)
	// flagWord: a flag named like a secret, whose value is the next word
	// (--token T).
	flagWord = regexp.MustCompile(`(?i)^-{1,2}[a-z0-9-]*` + secretName + `[a-z0-9-]*$`)
	// flagInString: the same inside a word that holds a shell command
	// ('curl --password T ...').
	flagInString = regexp.MustCompile(`(?i)(\s-{1,2}[a-z0-9-]*` + secretName + `[a-z0-9-]*\s+)([^\s'"-][^\s'"]*)`)
)

// names a file, not a secret (--token-file PATH, PASSWORD_FILE=PATH).
func namesFile(name string) bool {
	name = strings.ToLower(strings.TrimRight(name, "= \t"))
	return strings.HasSuffix(name, "-file") || strings.HasSuffix(name, "_file") || strings.HasSuffix(name, "-path")
}

// String masks the secrets in one word of a command line, or in a string
// that holds a command (a shell command given as one argument).
func String(s string) string {
	if s == "" {
		return s
	}
	s = userinfo.ReplaceAllString(s, "${1}:"+Mask+"@")
	s = queryParam.ReplaceAllStringFunc(s, func(m string) string {
		k, _, _ := strings.Cut(m, "=")
		if namesFile(k) {
			return m
		}
		return k + "=" + Mask
	})
	s = header.ReplaceAllString(s, "${1}${2}${3}"+Mask)
	s = keyValue.ReplaceAllStringFunc(s, func(m string) string {
		sub := keyValue.FindStringSubmatch(m)
		if namesFile(sub[2]) {
			return m
		}
		return sub[1] + sub[2] + Mask
	})
	s = flagInString.ReplaceAllStringFunc(s, func(m string) string {
		sub := flagInString.FindStringSubmatch(m)
		if namesFile(sub[1]) {
			return m
		}
		return sub[1] + Mask
	})
	return s
}

// Args returns a copy of a command line (os.Args) with its secrets
// masked: each word's (String), and the word after a flag named like a
// secret (--token T, --password T; not --token-file PATH).
func Args(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	for i, a := range args {
		if i > 0 && flagWord.MatchString(args[i-1]) && !namesFile(args[i-1]) && !strings.HasPrefix(a, "--") {
			out[i] = Mask
			continue
		}
		out[i] = String(a)
	}
	return out
}
