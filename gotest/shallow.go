package gotest

import (
	"context"
	"fmt"
)

// unknownRevision is the error for a revision git rev-parse does not
// know. In a shallow clone (git clone --depth 1, the default of GitHub's
// actions/checkout) the history is missing, so HEAD~1 or a pull request's
// base is no revision at all: the error says so, and how to fetch it.
func unknownRevision(ctx context.Context, dir, rev string) error {
	if out, err := git(ctx, dir, "rev-parse", "--is-shallow-repository"); err == nil && out == "true" {
		return fmt.Errorf("unknown revision %q: this clone is shallow (git clone --depth, or actions/checkout's default fetch-depth: 1), so its history is missing: fetch it with git fetch --unshallow (or git fetch --deepen=N, or fetch-depth: 0 in actions/checkout)", rev)
	}
	return fmt.Errorf("unknown revision %q", rev)
}
