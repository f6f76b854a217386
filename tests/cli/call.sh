#!/bin/sh
# call.sh — `worldkit call` and its short forms against a real server: starts
# `worldkit serve` on a free port, runs the client as people do, and checks
# exit status and output of each run. Usage: call.sh WORLDKIT MODEL_FILE
set -u
. "$(dirname "$0")/wait_serving.sh"
. "$(dirname "$0")/checks.sh"
wk=$1
model=$2
dir=$(mktemp -d)
"$wk" serve --listen 127.0.0.1:0 --memory --verbose --root "$(dirname "$model")" >"$dir/serve.out" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
wait_serving "$dir/serve.out" $pid

run 0 call GetSimulationState '{}'
has out '"state": 0'
# simulation_interfaces' numbers come with their names.
has out '"stateName": "STOPPED"'
has out '"resultName": "OK"'
run 0 call simulation_interfaces.SimulationInterfaces/GetSimulatorFeatures
has out '"spawnFormats": ['
has out '"featureNames": ["SPAWNING", "DELETING", '
has out '"SPAWNING_ENTITIES"]'
# An in-band failure: status OK, the Result named in the reply and in the
# server's log.
run 0 call GetEntityState '{"entity": "nobody"}'
has out '"resultName": "NOT_FOUND"'
grep -q 'GetEntityState result 2 NOT_FOUND' "$dir/serve.out" || { fail "serve --verbose named no NOT_FOUND:"; cat "$dir/serve.out"; }

run 0 spawn "$model" --name box --pose 1 2 3 0 0 0
has out '"entityName": "box"'
run 0 call /simulation_interfaces.SimulationInterfaces/GetEntityState '{"entity": "box"}'
has out '"x": 1,'
has out '"y": 2,'
has out '"z": 3'
run 1 spawn "$model" --name box
has err 'worldkit: SpawnEntities: result 150 SPAWN_ENTITIES_FAILED:'
# The failed entry's own result says why, not only how many failed.
run 1 spawn "$model" --name 'a/b'
has err "worldkit: SpawnEntities: results[0]: result 102 NAME_INVALID: name 'a/b' is invalid"
run 1 spawn "$(dirname "$model")/levels_one_performer.sdf"
has err "levels_one_performer.sdf holds "
# A host name resolves without the resolver's leak (an ASan build exits
# non-zero on one).
run 0 call --server "localhost:${WORLDKIT_SERVER##*:}" GetSimulationState
has out '"state": 0'
# Only the --root folders (and the resource path) are read.
run 0 call SpawnEntity '{"name": "intruder", "entityResource": {"uri": "/etc/hostname"}}'
has out 'no such file in the folders worlds are read from'

run 0 state paused
# Paused already: what a script asking for it wants, said on stderr.
run 0 state paused
has err 'paused already'
run 0 step 3
run 0 state
has out '"state": 2'
has out '"stateName": "PAUSED"'
echo '{"steps": "2"}' | "$wk" call SimulateSteps - >"$dir/out" 2>"$dir/err" || fail "SimulateSteps from stdin"
[ "$(grep -c '"completedSteps"' "$dir/out")" -eq 2 ] || { fail "SimulateSteps streamed:"; cat "$dir/out"; }
has out '"remainingSteps": "0"'
run 0 state playing
run 1 step 1
has err 'worldkit: StepSimulation: result 4 OPERATION_FAILED:'

run 2 call StepSimulation '{"steps": "x"}'
has err 'simulation_interfaces.StepSimulationRequest request: (steps): invalid value "x"'
run 2 call NoSuchMethod
has err 'NoSuchMethod: no such method'
run 2 call GetEntityStat
has err 'did you mean simulation_interfaces.SimulationInterfaces/GetEntityState?'
# The health service is listed and called as any other.
run 0 call --list
has out 'grpc.health.v1.Health/Check'
run 0 call grpc.health.v1.Health/Check
has out '"status": "SERVING"'
# A unary request read from standard input.
echo '{"entity": "box"}' | "$wk" call GetEntityState - >"$dir/out" 2>"$dir/err" || fail "GetEntityState from stdin"
has out '"resultName": "OK"'
run 2 state sideways
run 0 call --list
has out 'intrinsic_proto.world.ObjectWorldService/GetTransform  intrinsic_proto.world.GetTransformRequest'
run 1 call --server 127.0.0.1:1 GetSimulationState
has err 'GetSimulationState: UNAVAILABLE'
has err 'no server answers at 127.0.0.1:1'

[ $failures -eq 0 ] && echo "all client checks passed"
exit $failures
