package load

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
)

// maxCAFile bounds a CA file: a bundle of every public root is under 1 MiB.
const maxCAFile = 16 << 20

// TLSConfig returns the TLS configuration for a test server: with
// insecure, one that does not verify the server's certificate at all;
// with caFile, one that trusts the PEM certificates in it (and only
// them); with neither, nil (the system's roots).
func TLSConfig(insecure bool, caFile string) (*tls.Config, error) {
	switch {
	case insecure && caFile != "":
		return nil, errors.New("give --insecure or --cacert, not both")
	case insecure:
		return &tls.Config{InsecureSkipVerify: true}, nil //nolint:gosec // asked for, with a warning
	case caFile == "":
		return nil, nil
	}
	f, err := os.Open(caFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pem, err := io.ReadAll(io.LimitReader(f, maxCAFile+1))
	if err != nil {
		return nil, err
	}
	if len(pem) > maxCAFile {
		return nil, fmt.Errorf("%s is larger than %d MiB: is it a CA file?", caFile, maxCAFile>>20)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	return &tls.Config{RootCAs: pool}, nil
}

// tlsConfig returns a copy of c for a transport, or an empty config.
func tlsConfig(c *tls.Config) *tls.Config {
	if c == nil {
		return &tls.Config{}
	}
	return c.Clone()
}
