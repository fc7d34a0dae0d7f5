package execbench

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// The expected words are what sh (dash) passes to a program for the same
// line: checked with printf '<%s>' LINE.
func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"sleep 0.01", []string{"sleep", "0.01"}},
		{"  gzip\t-1  -c  ", []string{"gzip", "-1", "-c"}},
		{`grep 'a b' "c d"`, []string{"grep", "a b", "c d"}},
		{`echo 'it''s'`, []string{"echo", "its"}},
		{`echo "a\"b" "x\\y" "\n"`, []string{"echo", `a"b`, `x\y`, `\n`}},
		{`echo a\ b \'`, []string{"echo", "a b", "'"}},
		{`find . -name '*.go'`, []string{"find", ".", "-name", "*.go"}},
		{`echo a=b x~y a#b`, []string{"echo", "a=b", "x~y", "a#b"}},
		{`printf '%s|%s'`, []string{"printf", "%s|%s"}},
		{"echo a\\\nb", []string{"echo", "ab"}},
		{`echo ""`, []string{"echo", ""}},
	} {
		got, err := SplitWords(tc.line)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitWords(%q) = %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
}

func TestSplitWordsRefuses(t *testing.T) {
	for _, tc := range []struct {
		line, want string
	}{
		{"gzip -c f | wc -c", "pipe"},
		{"make && make test", "&"},
		{"a; b", "separator"},
		{"cat < f", "redirection"},
		{"echo $HOME", "expansion"},
		{`echo "$HOME"`, "expansion"},
		{"echo `date`", "substitution"},
		{"ls *.go", "pattern"},
		{"ls ~/x", "home directory"},
		{"true # comment", "comment"},
		{"GOGC=off ./prog", "assignment"},
		{"a\nb", "second line"},
		{"echo 'x", "unterminated single quote"},
		{`echo "x`, "unterminated double quote"},
		{`echo x\`, "backslash"},
		{"", "empty"},
		{"  \t ", "empty"},
	} {
		_, err := SplitWords(tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SplitWords(%q) error %v, want one mentioning %q", tc.line, err, tc.want)
		}
	}
	var se *SyntaxError
	if _, err := SplitWords("a | b"); !errors.As(err, &se) || !strings.Contains(err.Error(), "--shell") {
		t.Errorf("a pipe: %v, want a *SyntaxError that suggests --shell", err)
	}
}

func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{"sleep 0.01", `a 'b c' "d\"e" f\ g`, "a | b", `"$x"`, "\\\n", "é 'ü'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := SplitWords(line)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(line, "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		if len(words) == 0 {
			t.Fatalf("no words and no error for %q", line)
		}
		// Quoting every word and splitting again gives the same words.
		var q []string
		for _, w := range words {
			q = append(q, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
		}
		again, err := SplitWords(strings.Join(q, " "))
		if err != nil || !slices.Equal(again, words) {
			t.Fatalf("%q split as %q; quoted again %q splits as %q, %v", line, words, strings.Join(q, " "), again, err)
		}
	})
}
