package execbench

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash"
	"strconv"

	"github.com/rigorbench/rigor/model"
)

// An outputDigest is what a command wrote to its standard output in its
// first (warm-up) run: how much, a hash of all of it, and its start.
type outputDigest struct {
	n    int64
	sum  []byte
	head []byte
}

// headMax is how much of an output is kept to say where two differ.
const headMax = 4 << 10

// digestWriter computes an outputDigest of what is written to it.
type digestWriter struct {
	h    hash.Hash
	n    int64
	head []byte
}

func newDigestWriter() *digestWriter { return &digestWriter{h: sha256.New()} }

func (d *digestWriter) Write(p []byte) (int, error) {
	d.h.Write(p)
	d.n += int64(len(p))
	if room := headMax - len(d.head); room > 0 {
		d.head = append(d.head, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (d *digestWriter) digest() *outputDigest {
	return &outputDigest{n: d.n, sum: d.h.Sum(nil), head: d.head}
}

// same reports whether d and e are the same output.
func (d *outputDigest) same(e *outputDigest) bool {
	return d.n == e.n && bytes.Equal(d.sum, e.sum)
}

// differs says how e differs from d: "12 bytes against 0" or "the same
// length, first different at byte 4".
func (d *outputDigest) differs(e *outputDigest) string {
	if d.n != e.n {
		return fmt.Sprintf("%s against %s", byteCount(e.n), byteCount(d.n))
	}
	i := 0
	for i < len(d.head) && i < len(e.head) && d.head[i] == e.head[i] {
		i++
	}
	if i < len(d.head) {
		return fmt.Sprintf("%s each, first different at byte %d", byteCount(d.n), i)
	}
	return fmt.Sprintf("%s each, different after the first %s", byteCount(d.n), byteCount(headMax))
}

func byteCount(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// checksOutput reports whether the first warm-up run of every command
// keeps its standard output to compare: unless the output goes where the
// user reads it (--output inherit or a file).
func (c *Config) checksOutput() bool {
	return c.Output == "" || c.Output == OutputNull || c.Output == OutputPipe
}

// compareOutputs compares the standard outputs of u's commands, as their
// first warm-up runs wrote them, with the reference's (side 0). Outputs
// that differ mean the commands may not do the same work, so that the
// faster one need not be the better: with CheckOutput that is an error,
// before anything is timed; otherwise a note of the run says so.
func (s *session) compareOutputs(u *unit, outs []*outputDigest) error {
	if len(outs) < 2 || outs[0] == nil {
		return nil
	}
	for si := 1; si < len(outs); si++ {
		if outs[si] == nil || outs[si].same(outs[0]) {
			continue
		}
		what := fmt.Sprintf("%s and %s wrote different standard output (%s)", s.what(u, si), s.what(u, 0), outs[0].differs(outs[si]))
		if s.cfg.CheckOutput {
			return &CommandError{what + ", so no winner is called between them: make them compute the same, or leave out --check-output"}
		}
		s.run.Notes = append(s.run.Notes, model.Note{Kind: model.NoteVerdict, Source: source, Topic: "output", Benchmark: u.key,
			Text: upperFirst(what) + " in their first runs: they may not do the same work, so the faster need not be the better (--check-output refuses such a comparison)."})
	}
	return nil
}

// upperFirst upper-cases s's first byte when it is a lower-case ASCII
// letter.
func upperFirst(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
