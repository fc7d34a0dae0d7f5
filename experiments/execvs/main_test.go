package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	c, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.trials != 3 || c.aa != 20 || c.warmup != 3 || c.inputMB != 20 || c.budget != time.Minute || len(c.parts) != 4 || c.chunks != 10 || c.chunkRuns != 0 {
		t.Errorf("defaults %+v", c)
	}
	if !c.pairs["sleep"] || !c.pairs["gzip"] || c.sleepNew != "0.012" {
		t.Errorf("part 1's defaults: pairs %v, -sleep-new %q", c.pairs, c.sleepNew)
	}
	if c, err := parseFlags([]string{"-pairs", "sleep", "-sleep-new", "0.0102"}, io.Discard); err != nil || !c.pairs["sleep"] || c.pairs["gzip"] || c.sleepNew != "0.0102" {
		t.Errorf("-pairs sleep -sleep-new 0.0102: %v %q %v", c.pairs, c.sleepNew, err)
	}
	if c, err := parseFlags([]string{"-parts", "1, 3"}, io.Discard); err != nil || !c.parts[1] || c.parts[2] || !c.parts[3] {
		t.Errorf("-parts 1,3: %v %v", c.parts, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-trials", "0"}, "at least 1 trial"},
		{[]string{"-aa", "-1"}, "at least 1 trial"},
		{[]string{"-parts", "5"}, "-parts"},
		{[]string{"-chunks", "0"}, "at least 1 chunk"},
		{[]string{"-chunk-runs", "-1"}, "no negative runs"},
		{[]string{"-parts", ""}, "-parts"},
		{[]string{"-time", "0s"}, "positive"},
		{[]string{"-warmup", "-1"}, "negative"},
		{[]string{"-overhead-runs", "1"}, "at least 2"},
		{[]string{"-input-mb", "0"}, "-input-mb"},
		{[]string{"extra"}, "unexpected argument"},
		{[]string{"-nope"}, "not defined"},
		{[]string{"-aa-quiet=false"}, "nothing to run"},
		{[]string{"-pairs", "true"}, "-pairs"},
		{[]string{"-pairs", ""}, "-pairs"},
		{[]string{"-sleep-new", "0"}, "-sleep-new"},
		{[]string{"-sleep-new", "1e3"}, "-sleep-new"},
		{[]string{"-sleep-new", "0.01; rm x"}, "-sleep-new"},
	} {
		_, err := parseFlags(tc.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}
