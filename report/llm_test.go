package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// parseKV splits one llm line into its pairs, unquoting quoted values.
func parseKV(t *testing.T, line string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for line != "" {
		k, rest, ok := strings.Cut(line, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \"") {
			t.Fatalf("bad key in %q", line)
		}
		var v string
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				t.Fatalf("bad quoted value in %q: %v", rest, err)
			}
			v, _ = strconv.Unquote(q)
			rest = rest[len(q):]
		} else {
			v, rest, _ = strings.Cut(rest, " ")
			rest = " " + rest
		}
		if _, dup := m[k]; dup {
			t.Fatalf("key %s twice in line", k)
		}
		m[k] = v
		line = strings.TrimPrefix(rest, " ")
	}
	return m
}

func TestLLM(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, fxPaired(t), Options{Format: "llm"}); err != nil {
		t.Fatal(err)
	}
	metrics := 0
	var xss map[string]string
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		kv := parseKV(t, line)
		if kv["record"] == "metric" {
			metrics++
			if strings.Contains(kv["benchmark"], "<script>") && kv["unit"] == "sec/op" {
				xss = kv
			}
		}
	}
	// One line per benchmark × metric: 7 benchmarks with sec/op, two
	// with B/s, three with B/op and allocs/op.
	if metrics != 7+2+3*2 {
		t.Errorf("%d metric lines, want 15", metrics)
	}
	if xss == nil || xss["benchmark"] != xssName+"-8" || xss["new.verdict"] != "improved" || xss["old.n"] != "20" {
		t.Errorf("XSS benchmark line = %v", xss)
	}
	if _, err := strconv.ParseFloat(xss["new.change"], 64); err != nil {
		t.Errorf("new.change = %q: %v", xss["new.change"], err)
	}
}

func TestSideKeys(t *testing.T) {
	got := sideKeys([]string{"old", "new", "a b", "a_b", "", "record", "side5"})
	want := []string{"old", "new", "a_b", "side3", "side4", "side5", "side6"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("sideKeys = %v, want %v", got, want)
	}
}
