package load

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ParseHeader parses a request header written as curl's -H takes it,
// "Name: value", into its name and value without the spaces around them.
// The name is checked by NewHTTP.
func ParseHeader(s string) (name, value string, err error) {
	k, v, ok := strings.Cut(s, ":")
	if k = strings.TrimSpace(k); !ok || k == "" {
		return "", "", errors.New("want 'Name: value'")
	}
	return k, strings.TrimSpace(v), nil
}

// MaxBody bounds a request body read from a file: the whole body is held
// in memory and sent with every request.
const MaxBody = 64 << 20

// ReadBody reads a request body from the file at path, refusing one
// larger than MaxBody (a device such as /dev/zero never ends).
func ReadBody(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBody {
		return nil, fmt.Errorf("the body is larger than %d MiB, the most rigor sends", MaxBody>>20)
	}
	return b, nil
}
