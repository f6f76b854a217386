#!/bin/sh
# options.sh — the mistakes people make on the command line, no server
# needed: each must exit 2 (0 for --help, with the usage on stdout) and say
# in one line which argument is wrong. Usage: options.sh WORLDKIT WORLD_FILE
set -u
wk=$1
world=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# check STATUS TEXT COMMAND...: `worldkit COMMAND...` exits with STATUS and
# the first line of its stderr (of its stdout for status 0) holds TEXT.
check() {
    want=$1
    text=$2
    shift 2
    "$wk" "$@" >"$dir/out" 2>"$dir/err"
    got=$?
    [ "$want" -eq 0 ] && said=$(head -n 1 "$dir/out") || said=$(head -n 1 "$dir/err")
    if [ $got -ne "$want" ]; then
        fail "worldkit $* exited $got, not $want"
        cat "$dir/out" "$dir/err"
    elif ! printf '%s\n' "$said" | grep -qF -- "$text"; then
        fail "worldkit $*: the first line is not about '$text':"
        cat "$dir/out" "$dir/err"
    fi
}

for command in load poses run call worlds spawn tf state step levels performer; do
    check 0 "usage: worldkit $command" $command --help
done
check 0 "usage: worldkit spawn" spawn x.sdf --name n --help
# What a help must say: run's default length, the units of spawn's pose.
"$wk" run --help | grep -qF "1,000 unless --steps says" || fail "run --help does not say it stops after 1,000 steps"
"$wk" spawn --help | grep -qF -- "--pose in metres and radians" || fail "spawn --help does not give --pose's units"
# A host alone listens on port 50051 (it was refused as no loopback
# address): said by the refusal of a host that is not one.
check 1 "192.0.2.1:50051 is not a loopback address" serve --memory --listen 192.0.2.1
check 0 "usage: worldkit serve" serve --help

check 2 "unknown command 'GetSimulationState'" GetSimulationState
check 2 "'--server': options go after the command" --server 127.0.0.1:1 worlds
check 2 "call --list takes no argument, not 'extra'" call --list extra
check 2 "no FILE to read" load
check 2 "unexpected argument '--bogus'" poses "$world" --bogus
check 2 "--steps takes a count, not '1e30'" run "$world" --steps 1e30
check 2 "--steps takes a count, not '-1'" run "$world" --steps -1
check 2 "--rtf takes 0 (as fast as possible) or a real-time factor from 1e-6 to 1e9, not 'nan'" run "$world" --rtf nan
check 2 "--rtf takes 0 (as fast as possible) or a real-time factor from 1e-6 to 1e9, not '1e-300'" run "$world" --rtf 1e-300
check 2 "--velocity R1: vx vy vz must be finite numbers" run "$world" --velocity R1 inf 0 0
check 2 "--velocity needs NAME vx vy vz" run "$world" --velocity R1 1 2
check 2 "no WORLD file to run" run --levels

check 2 "unknown option '--bogus'" serve --bogus 1
check 2 "unexpected argument 'extra'" serve extra
check 2 "--workers takes a count from 1 to 256, not '2.5'" serve --workers 2.5
check 2 "--rtf takes 0 (as fast as possible) or a real-time factor from 1e-6 to 1e9, not '-1'" serve --rtf -1
check 2 "--listen needs a value" serve --memory --listen
check 2 "--listen: the address is empty" serve --listen ''
check 2 "--listen 127.0.0.1:99999: the port '99999'" serve --listen 127.0.0.1:99999
check 2 "--root $dir/none: no such folder" serve --root "$dir/none"

check 2 "--server localhost:70000: the port '70000'" call --server localhost:70000 GetSimulationState
check 2 "--server: the address is empty" worlds --server ''
check 2 "--server needs a value" call GetSimulationState --server
check 2 "--timeout takes seconds from 0 (none) to 1e9, not 'inf'" call --timeout inf GetSimulationState
check 2 "unexpected argument 'extra'" call GetSimulationState '{}' extra
check 2 "--pose: 'nan' is not a finite number" spawn "$world" --pose nan 0 0 0 0 0
check 2 "--pose needs 6 numbers" spawn "$world" --pose 1 2 3
check 2 "--pose: translation z = -2e+12 is beyond the limit of +-1e+12 m" spawn "$world" --pose 0 0 -2e12 0 0 0
check 2 "'M1/' is not OBJECT, OBJECT/FRAME or OBJECT::LINK" tf M1/ R1
check 2 "'0' is not a count from 1" step 0
check 2 "'PLAYING' is not a state" state PLAYING
check 2 "worlds takes no argument, not 'x'" worlds x
check 1 "spawn '$dir': not a regular file" spawn "$dir"
check 1 "spawn '': No such file or directory" spawn ''
check 2 "no FILE to read" load ''
check 2 "no WORLD file to run" run ''
check 2 "--world needs a file name, not ''" serve --world ''
echo "not a certificate" >"$dir/junk.pem"
check 1 "the CA $dir/junk.pem holds no PEM block" worlds --server 127.0.0.1:1 --tls-ca "$dir/junk.pem"
# Last, since it changes the environment of the checks after it.
WORLDKIT_SERVER=localhost:65536
export WORLDKIT_SERVER
check 2 "WORLDKIT_SERVER localhost:65536: the port '65536'" worlds

[ $failures -eq 0 ] && echo "all option checks passed"
exit $failures
