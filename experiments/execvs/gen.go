package main

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"
)

// Words and templates of the generated input: log lines as a service
// writes them, so that gzip meets the mix it meets in practice - long
// repeated runs (the templates, paths, user names), short numbers that
// vary, and now and then a random token that does not compress at all.
var (
	genLevels = []string{"INFO", "INFO", "INFO", "DEBUG", "DEBUG", "WARN", "ERROR"}
	genUsers  = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "oscar"}
	genPaths  = []string{"/api/v1/items", "/api/v1/users", "/api/v1/orders", "/api/v2/search", "/static/app.js", "/static/style.css", "/healthz", "/login", "/api/v1/cart"}
	genCodes  = []int{200, 200, 200, 200, 201, 204, 301, 304, 400, 403, 404, 500, 503}
	// genMsgs take a number (%d) or a hexadecimal key (%s).
	genMsgs = []string{
		"cache miss for key %s, fetching from the backing store",
		"connection pool at %d of 64 connections, waiting for a free one",
		"retrying the upstream request after a timeout (attempt %d of 5)",
		"flushed %d dirty pages to disk in the background writer",
		"scheduled job %s finished without errors",
		"user session %s expired and was removed from the table",
	}
)

// writeInput writes size bytes of generated log text to path: the same
// bytes for the same seed.
func writeInput(path string, size int64, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := genInput(bw, size, seed); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

// genInput writes exactly size bytes of log-like lines drawn from a PCG
// generator seeded with seed.
func genInput(w io.Writer, size int64, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x65786563_7673)) // "execvs"
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var line []byte
	token := make([]byte, 72)
	var written int64
	for written < size {
		t = t.Add(time.Duration(rng.IntN(5000)) * time.Microsecond)
		line = t.AppendFormat(line[:0], "2006-01-02T15:04:05.000000Z ")
		line = fmt.Appendf(line, "%-5s [worker-%d] ", genLevels[rng.IntN(len(genLevels))], rng.IntN(16))
		switch k := rng.IntN(10); {
		case k < 6:
			line = fmt.Appendf(line, "request id=%08x user=%s path=%s/%d status=%d bytes=%d dur=%.1fms",
				rng.Uint32(), genUsers[rng.IntN(len(genUsers))], genPaths[rng.IntN(len(genPaths))],
				rng.IntN(100000), genCodes[rng.IntN(len(genCodes))], rng.IntN(200000), rng.Float64()*250)
		case k < 9:
			msg := genMsgs[rng.IntN(len(genMsgs))]
			if strings.Contains(msg, "%d") {
				line = fmt.Appendf(line, msg, rng.IntN(64)+1)
			} else {
				line = fmt.Appendf(line, msg, fmt.Sprintf("%012x", rng.Uint64()>>16))
			}
		default:
			n := 24 + rng.IntN(len(token)-24)
			for i := range token[:n] {
				token[i] = byte(rng.Uint32())
			}
			line = append(line, "payload="...)
			line = base64.StdEncoding.AppendEncode(line, token[:n])
		}
		line = append(line, '\n')
		if rest := size - written; int64(len(line)) > rest {
			line = line[:rest]
		}
		n, err := w.Write(line)
		written += int64(n)
		if err != nil {
			return err
		}
	}
	return nil
}
