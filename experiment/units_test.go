package experiment

import (
	"slices"
	"testing"
)

func TestLiveKeys(t *testing.T) {
	type unit struct {
		key    string
		failed bool
	}
	live := func(u unit) (string, bool) { return u.key, !u.failed }
	for _, tc := range []struct {
		name  string
		units []unit
		want  []string
	}{
		{"none", nil, nil},
		{"all failed", []unit{{"a", true}, {"b", true}}, nil},
		{"in order, failed left out", []unit{{"c", false}, {"a", true}, {"b", false}}, []string{"c", "b"}},
	} {
		if got := LiveKeys(tc.units, live); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
