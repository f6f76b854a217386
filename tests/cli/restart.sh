#!/bin/sh
# restart.sh — `worldkit serve --data DIR` keeps what it answered OK: a frame
# made over ObjectWorldService is there again after a SIGTERM and a restart
# on the same directory without --world, and the world from --world is held
# once, as "world" beside its initial state "init_world"; a restart with
# --world replaces both with the file's.
# Usage: restart.sh WORLDKIT WORLD_FILE
set -u
. "$(dirname "$0")/wait_serving.sh"
wk=$1
world=$2
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$dir"' EXIT

# start [--world FILE]: runs the server on $dir/data in the background, waits
# until it serves, and exports its address.
start() {
    # Emptied here, not only by the server's redirection, which the server's
    # shell may do after wait_serving has read the previous run's address.
    : >"$dir/serve.out"
    "$wk" serve --listen 127.0.0.1:0 --data "$dir/data" "$@" >"$dir/serve.out" 2>&1 &
    pid=$!
    wait_serving "$dir/serve.out" $pid
}

stop() {
    kill -TERM $pid
    if ! wait $pid; then
        echo "FAIL: the server did not exit 0 on SIGTERM:"
        cat "$dir/serve.out"
        exit 1
    fi
    pid=
}

ows=intrinsic_proto.world.ObjectWorldService
start --world "$world"
"$wk" call $ows/CreateFrame '{"worldId": "world", "parentObject": {"byName": {"objectName": "follower"}},
    "newFrameName": "mark", "parentTNewFrame": {"position": {"x": 1.5}, "orientation": {"w": 1}}}' >"$dir/made" || exit 1
stop
start
"$wk" call $ows/GetFrame '{"worldId": "world", "frame": {"byName": {"objectName": "follower", "frameName": "mark"}}}' \
    >"$dir/got" || { echo "FAIL: the frame is gone after the restart"; exit 1; }
"$wk" worlds >"$dir/worlds" || exit 1
stop
if ! grep -q '"x": 1.5' "$dir/got" || [ "$(grep -c '"id"' "$dir/worlds")" -ne 2 ]; then
    echo "FAIL: after the restart:"
    cat "$dir/got" "$dir/worlds"
    exit 1
fi
grep '"id"' "$dir/made" | head -1 >"$dir/id_made"
grep '"id"' "$dir/got" | head -1 >"$dir/id_got"
cmp -s "$dir/id_made" "$dir/id_got" || { echo "FAIL: the frame's id changed"; exit 1; }
start --world "$world"
if "$wk" call $ows/GetFrame '{"worldId": "world", "frame": {"byName": {"objectName": "follower", "frameName": "mark"}}}' \
    >"$dir/got" 2>&1; then
    echo "FAIL: --world did not replace the stored world:"
    cat "$dir/got"
    exit 1
fi
grep -q "replaces the stored world" "$dir/serve.out" || { echo "FAIL: serve did not say it replaced the world"; exit 1; }
stop
echo "ok"
