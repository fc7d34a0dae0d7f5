package harness

import (
	"strings"
	"testing"

	"github.com/rigorbench/rigor"
)

// FuzzOptions feeds arbitrary values to every -rigor.* flag: each is
// accepted or rejected with an error, never a panic, and applying the
// result to a configuration gives a valid one or an error.
func FuzzOptions(f *testing.F) {
	for _, s := range []string{"5", "-1", "1s", "median", "", "NaN", "1e309", "-3s"} {
		f.Add(s)
	}
	g := rigor.NewGroup("g")
	g.Bench("a", func(b *rigor.B) { b.Iter(func() {}) })
	f.Fuzz(func(t *testing.T, v string) {
		for _, d := range flagDefs {
			o := defaultOptions()
			if err := d.set(o, v); err != nil {
				continue
			}
			_ = d.get(o)
			cfg, err := o.apply(rigor.DefaultConfig())
			if err != nil {
				continue
			}
			if cfg.Passes > 1 || cfg.Processes > 1 {
				if cfg.Policy == "" {
					continue // the sampler reports the missing policy
				}
			}
			if _, err := rigor.NewSampler(g, cfg); err != nil {
				t.Fatalf("-rigor.%s=%q gave an invalid config: %v", d.name, v, err)
			}
		}
	})
}

// FuzzVariantList: a per-variant configuration value gives back the
// names and values it was built from, and Go benchmark format can carry
// it.
func FuzzVariantList(f *testing.F) {
	for _, s := range [][2]string{{"a", "b"}, {"Par Allel", `q"=`}, {"\xff", "tab\t"}, {"", " "}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, n1, n2 string) {
		if n1 == n2 {
			return
		}
		var l variantList
		l.add(n1, "1")
		l.add(n2, "2ns")
		cfg := map[string]string{}
		l.set(cfg, "k")
		got := parseVariantList(cfg["k"])
		if len(got) != 2 || got[n1] != "1" || got[n2] != "2ns" {
			t.Fatalf("%q and %q: %q parses as %q", n1, n2, cfg["k"], got)
		}
		if v := cfg["k"]; v[0] == ' ' || strings.ContainsAny(v, "\r\n") {
			t.Fatalf("%q cannot be a configuration value", v)
		}
	})
}
