#!/bin/sh
# levels.sh — `worldkit levels` and `worldkit performer` against a real
# `worldkit serve --levels --verbose` of the levels tutorial's world: the
# levels as they start, an entity of an unloaded level answered NOT_FOUND
# naming its level, a runtime performer loading that level at the next
# step, and the server's log of level loads; `run --velocity` refusing a
# static model as the server does. Usage: levels.sh WORLDKIT WORLD
set -u
. "$(dirname "$0")/wait_serving.sh"
. "$(dirname "$0")/checks.sh"
wk=$1
world=$2
dir=$(mktemp -d)
"$wk" serve --listen 127.0.0.1:0 --memory --levels --verbose --world "$world" >"$dir/serve.out" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
wait_serving "$dir/serve.out" $pid

# L1 holds the performer R1 and is loaded; L2 (M2, M3) and L3 are not.
run 0 levels
has out '"name": "L2"'
has out '"buffer": 2'
[ "$(grep -c '"loaded": true' "$dir/out")" -eq 1 ] || { fail "one level loaded:"; cat "$dir/out"; }
has serve.out 'worldkit: world: t=0 load L1'

run 0 call GetEntityState '{"entity": "M2"}'
has out "no entity named 'M2': its level L2 is unloaded"

# R3 sits inside L2: a performer, it loads L2 at the next step.
run 0 performer R3
has out '"added": true'
run 1 performer R3
has err 'SetPerformer: result 4 OPERATION_FAILED'
run 1 performer nobody
has err 'SetPerformer: result 2 NOT_FOUND'
run 0 call ListPerformers
has out '"name": "R3"'
run 0 state paused
run 0 step 1
has serve.out 'worldkit: world: t=0.001 load L2'
run 0 call GetEntityState '{"entity": "M2"}'
has out '"resultName": "OK"'
run 0 levels
[ "$(grep -c '"loaded": true' "$dir/out")" -eq 2 ] || { fail "two levels loaded:"; cat "$dir/out"; }

# `run --velocity` refuses a static model as SetEntityState does, in the
# same words and with the same code's name.
run 0 call SetEntityState '{"entity": "M1", "state": {"twist": {"linear": {"x": 1}}}, "setTwist": true}'
has out '"resultName": "OPERATION_FAILED"'
has out "entity 'M1' is static: it cannot be given a twist or an acceleration"
said=$(sed -n 's/.*"errorMessage": "\(.*\)"$/\1/p' "$dir/out")
[ -n "$said" ] || fail "SetEntityState gave no errorMessage"
run 1 run "$world" --steps 1 --velocity M1 1 0 0
has err "worldkit: OPERATION_FAILED: $said"
run 0 run "$world" --steps 1 --velocity M1 0 0 0

[ $failures -eq 0 ] && echo "all passed"
exit $((failures != 0))
