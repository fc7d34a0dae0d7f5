package words

import "testing"

func TestTerminalSafeLines(t *testing.T) {
	for _, tc := range []struct{ in, want, lines string }{
		{"plain", "plain", "plain"},
		{"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"x\x1b]0;t\x07\r", `x\x1b]0;t\x07\r`, `x\x1b]0;t\x07\r`},
		{"\x00bidi\u202e\xff", `\x00bidi\u202e\xff`, `\x00bidi\u202e\xff`},
		{"日本語 🚀", "日本語 🚀", "日本語 🚀"},
	} {
		if got := TerminalSafe(tc.in); got != tc.want {
			t.Errorf("TerminalSafe(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := TerminalSafeLines(tc.in); got != tc.lines {
			t.Errorf("TerminalSafeLines(%q) = %q, want %q", tc.in, got, tc.lines)
		}
	}
}

func FuzzTerminalSafeLines(f *testing.F) {
	f.Add("a\nb\x1b[2J\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range TerminalSafeLines(s) {
			if Escapable(r) && r != '\n' && r != '\t' {
				t.Fatalf("TerminalSafeLines(%q) holds %q", s, r)
			}
		}
	})
}
