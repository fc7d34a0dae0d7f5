package report

import (
	"bytes"
	"strings"
	"testing"
)

// The tree's lines fit the width (the table's from 100 columns, when
// the columns it cannot drop leave room for names), and every column stays aligned whatever the names hold
// (CJK, emoji, markup, 90 ASCII characters).
func TestTreeFitsWidthAndAligns(t *testing.T) {
	rep := fxPaired(t)
	for _, w := range []int{60, 72, 80, 100, 140} {
		for _, style := range []string{"", "table"} {
			var b bytes.Buffer
			if err := Render(&b, rep, Options{Format: "tree", Style: style, Width: w}); err != nil {
				t.Fatal(err)
			}
			body, _, _ := strings.Cut(b.String(), "\nNotes:")
			// The head, up to the first blank line, is prose (wrapped to
			// the width, checked below), not columns.
			head, body, _ := strings.Cut(body, "\n\n")
			for _, line := range strings.Split(head, "\n") {
				if got := width(line); got > w {
					t.Errorf("width %d, style %q: head line is %d columns wide:\n%s", w, style, got, line)
				}
			}
			ciEnd := -1
			for _, line := range strings.Split(body, "\n") {
				if strings.HasPrefix(line, "old vs new") || strings.HasPrefix(line, "identical on every side") {
					continue // prose, not columns
				}
				if style == "" && strings.Contains(line, "█") {
					continue // bar charts are checked below
				}
				fits := w >= 80 && style == "" || w >= 100
				if got := width(line); fits && got > w {
					t.Errorf("width %d, style %q: line is %d columns wide:\n%s", w, style, got, line)
				}
				// The CI column is right-aligned: its closing bracket
				// ends at the same display column on every row.
				if i := strings.LastIndex(line, "%]"); i >= 0 {
					col := width(line[:i+2])
					if ciEnd >= 0 && col != ciEnd {
						t.Errorf("width %d, style %q: CI ends at column %d, want %d:\n%s", w, style, col, ciEnd, line)
					}
					ciEnd = col
				}
			}
			if ciEnd < 0 {
				t.Errorf("width %d, style %q: no CI column in\n%s", w, style, body)
			}
		}
	}
}

func TestTreeBarsFastestFirst(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, fxGroup(t), Options{Format: "tree", Width: 100}); err != nil {
		t.Fatal(err)
	}
	var order []string
	lens := []int{}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, "█") {
			order = append(order, strings.Fields(line)[0])
			lens = append(lens, strings.Count(line, "█"))
		}
	}
	// The fixture's medians: level_9 15.0µs, sequential and level_6
	// 15.1µs, level_1 16.2µs, mixed 401µs; B/s ranks them the other way.
	if len(order) != 5 || order[0] != "level_9" || order[3] != "level_1" || order[4] != "mixed" {
		t.Errorf("bar order %v, want level_9 first, then level_6 and sequential, level_1, mixed", order)
	}
	for i := 1; i < len(lens); i++ {
		if lens[i] > lens[i-1] {
			t.Errorf("bar %d (%d blocks) is longer than bar %d (%d)", i, lens[i], i-1, lens[i-1])
		}
	}
	// 155 MiB/s against 4.05 GiB/s is 3.7% of 50 cells: one full block.
	if lens[4] != 1 {
		t.Errorf("mixed has %d full blocks, want 1", lens[4])
	}
}

func TestTreeColorOnlyWhenAsked(t *testing.T) {
	for _, format := range []string{"tree", "table"} {
		for _, color := range []bool{false, true} {
			var b bytes.Buffer
			if err := Render(&b, fxSeed003(t), Options{Format: format, Color: color}); err != nil {
				t.Fatal(err)
			}
			has := strings.Contains(b.String(), green+"improved")
			if has != color || (!color && strings.Contains(b.String(), "\x1b[")) {
				t.Errorf("%s, Color=%v: green verdict present = %v\n%s", format, color, has, b.String())
			}
		}
	}
	var b bytes.Buffer
	if err := Render(&b, fxPaired(t), Options{Format: "tree", Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), red+"regressed") || strings.Contains(b.String(), green+"inconclusive") {
		t.Errorf("regressions must be red, inconclusive uncoloured:\n%s", b.String())
	}
}

// The seed 003 tree shows benchstat's numbers for the example (seed 003:
// -90.13% time, -95.57% B/op, -93.70% allocs/op), rounded.
func TestTreeSeed003(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, fxSeed003(t), Options{Format: "tree"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"8.107µs ±7%", "800.4ns ±13%", "-90.1%", "-95.6%", "-93.7%", "improved", "pkg: example.com/benchlab"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("tree lacks %q:\n%s", want, b.String())
		}
	}
}
