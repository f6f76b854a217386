"""The crash test: `worldkit serve --data DIR` killed with SIGKILL again and
again under a mixed ObjectWorldService workload, by a gRPC client that is
not worldkit's own (integration/harness.py). Run from tests/ with
`/usr/bin/python3 -m crash.sigkill`, WORLDKIT naming the binary; CTest does
(crash/sigkill)."""
