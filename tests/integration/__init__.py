"""The integration tests: `worldkit serve` called by a gRPC client that is not
worldkit's own (Python stubs generated from proto/). Run from tests/ with
`/usr/bin/python3 -m unittest integration.test_<topic>`, WORLDKIT naming the
binary; CTest does (integration/<topic>)."""
