#!/bin/sh
# watch.sh — `worldkit watch` against a real `worldkit serve`: one JSON
# object a line, the world's full state first, then the change a
# SetEntityState made (`worldkit call`), applying on the version before it;
# --kind keeps other kinds out; a bad --rate is a usage error.
# Usage: watch.sh WORLDKIT WORLD
set -u
. "$(dirname "$0")/wait_serving.sh"
. "$(dirname "$0")/checks.sh"
wk=$1
world=$2
dir=$(mktemp -d)
"$wk" serve --listen 127.0.0.1:0 --memory --world "$world" >"$dir/serve.out" 2>&1 &
pid=$!
wpid=
trap 'kill $pid $wpid 2>/dev/null; wait $pid $wpid 2>/dev/null; rm -rf "$dir"' EXIT
wait_serving "$dir/serve.out" $pid

# lines FILE N: waits up to 10 s for the file to hold N lines.
lines() {
    tries=0
    while [ "$(wc -l <"$dir/$1")" -lt "$2" ] && [ $tries -lt 100 ]; do
        tries=$((tries + 1))
        sleep 0.1
    done
    [ "$(wc -l <"$dir/$1")" -ge "$2" ] || { fail "$1 has fewer than $2 lines:"; cat "$dir/$1"; }
}

: >"$dir/watch.out"
"$wk" watch --rate 20 --kind ParentPose --kind Name >>"$dir/watch.out" 2>"$dir/watch.err" &
wpid=$!
lines watch.out 1
run 0 call SetEntityState '{"entity": "M1", "setPose": true, "state": {"pose": {"position": {"x": 1.5}}}}'
lines watch.out 2
kill $wpid
wait $wpid 2>/dev/null
wpid=

# Each line one JSON object; the first full, the second on its version,
# holding M1's ParentPose alone.
/usr/bin/python3 - "$dir/watch.out" <<'PY' || fail "the stream's lines are not as expected"
import json, sys
msgs = [json.loads(line) for line in open(sys.argv[1])]
first, second = msgs[0], msgs[1]
assert first["full"] is True, first
names = {t["name"] for t in first["state"]["types"]}
assert names == {"ParentPose", "Name"}, names
assert second["full"] is False and second["baseVersion"] == first["version"], second
blocks = [b for b in second["state"]["blocks"] if b.get("ids")]
assert len(blocks) == 1 and len(blocks[0]["ids"]) == 1, blocks
kinds = {t["id"]: t["name"] for t in second["state"]["types"]}
assert [kinds[c["type"]] for c in blocks[0]["columns"]] == ["ParentPose"], blocks
PY

run 2 watch --rate 0
has err "--rate takes a number above 0, not '0'"
run 1 watch --kind NoSuchKind
has err "INVALID_ARGUMENT"
has err "NoSuchKind"

[ $failures -eq 0 ] && echo "all passed"
exit $((failures != 0))
