#!/usr/bin/env bash
# vs-wrk-heavy.sh: vs-wrk.sh against a server whose handler spins 150 µs of
# CPU per request (2 CPUs' worth at 32 connections), so that the server is
# the bottleneck and what a generator costs the machine shows in
# requests/s (docs/ramp-generator.md, issue 28).
#
#   bash load/testdata/vs-wrk-heavy.sh [rounds] [seconds]
#
# SPIN, RIGORS, THREADS and KEEP as vs-wrk.sh describes.
SPIN=${SPIN:-150us} exec bash "$(dirname "$0")/vs-wrk.sh" "$@"
