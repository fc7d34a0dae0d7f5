package model

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestNoteJSON: a note round-trips as an object; a plain string, as files
// of schema version 1 hold notes, reads as a note of kind other; an
// unknown kind reads as other.
func TestNoteJSON(t *testing.T) {
	n := Note{Kind: NoteClock, Source: "analysis", Benchmark: "p.B-2", Unit: "cpu-sec/op",
		Evidence: map[string]float64{"contended": 0.5}, Text: "CPU time is used"}
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"clock","source":"analysis","benchmark":"p.B-2","unit":"cpu-sec/op","evidence":{"contended":0.5},"text":"CPU time is used"}`
	if string(b) != want {
		t.Errorf("marshal = %s, want %s", b, want)
	}
	var back Note
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, n) {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	nan := Note{Kind: NoteClock, Evidence: map[string]float64{"cpu_per_wall": math.NaN(), "contended": 1}, Text: "t"}
	if b, err := json.Marshal(nan); err != nil || string(b) != `{"kind":"clock","evidence":{"contended":1},"text":"t"}` {
		t.Errorf("NaN evidence: %s, %v", b, err)
	}
	if nan.Evidence["cpu_per_wall"] == 0 {
		t.Error("marshalling changed the note's own evidence")
	}
	var old []Note
	if err := json.Unmarshal([]byte(`["interrupted after 3 rounds", {"kind":"martian","text":"x"}]`), &old); err != nil {
		t.Fatal(err)
	}
	if wantOld := []Note{{Kind: NoteOther, Text: "interrupted after 3 rounds"}, {Kind: NoteOther, Text: "x"}}; !reflect.DeepEqual(old, wantOld) {
		t.Errorf("old notes = %+v, want %+v", old, wantOld)
	}
}
