package main

import (
	"reflect"
	"testing"
)

// The first lines of a7909af's message, as the author wrote them (the
// speed table and the purego tables after it are not read).
const authorMsg = `Allow Sum64String and (*Digest).WriteString to be inlined

Benchmarks:

name                  old time/op    new time/op    delta
Sum64String/4B-12       4.78ns ± 1%    3.57ns ± 4%  -25.27%  (p=0.000 n=8+10)
Sum64String/4KB-12       229ns ± 0%     229ns ± 1%     ~     (p=0.395 n=7+10)

name                  old speed      new speed      delta
Sum64String/4B-12      837MB/s ± 1%  1124MB/s ± 2%  +34.42%  (p=0.000 n=10+9)
`

func TestParseAuthor(t *testing.T) {
	got, err := parseAuthor(authorMsg)
	if err != nil {
		t.Fatal(err)
	}
	want := []authorRow{
		{"Sum64String/4B", "-25.27%", "p=0.000 n=8+10"},
		{"Sum64String/4KB", "~", "p=0.395 n=7+10"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseAuthor = %q, want %q", got, want)
	}
	if _, err := parseAuthor("no table here\n"); err == nil {
		t.Error("parseAuthor of a message without a table: no error")
	}
}

// benchstat -format csv old=old.txt new=new.txt, cut to two benchmarks
// of the sec/op table and the start of the B/s one.
const benchstatCSV = `goos: linux
goarch: amd64
pkg: github.com/cespare/xxhash/v2
cpu: Intel(R) Xeon(R) Processor
,old,,new,,,
,sec/op,CI,sec/op,CI,vs base,P
Sum64/4B-2,6.411e-09,112%,7.115e-09,29%,~,p=0.912 n=10
Sum64String/4B-2,1.169e-08,28%,8.261e-09,30%,-29.33%,p=0.009 n=10
geomean,7.407e-07,,9.49e-07,,+28.13%,

,old,,new,,,
,B/s,CI,B/s,CI,vs base,P
Sum64/4B-2,6.3e+08,53%,5.6e+08,41%,~,p=0.912 n=10
`

func TestParseBenchstat(t *testing.T) {
	got, err := parseBenchstat([]byte(benchstatCSV))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"Sum64/4B":       {"~", "p=0.912 n=10"},
		"Sum64String/4B": {"-29.33%", "p=0.009 n=10"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseBenchstat = %q, want %q", got, want)
	}
}

func TestAuthorChanged(t *testing.T) {
	for delta, want := range map[string]bool{"-25.27%": true, "-0.67%": false, "~": false, "+1.05%": true, "-1.00%": true} {
		if got := authorChanged(delta); got != want {
			t.Errorf("authorChanged(%q) = %v, want %v", delta, got, want)
		}
	}
}
