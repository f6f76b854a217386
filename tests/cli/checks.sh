# checks.sh — sourced by the cli tests that run client commands against a
# server: their checks, which count failures in $failures. They run the
# binary $wk and keep each run's output in the folder $dir.

failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# run STATUS COMMAND...: runs `worldkit COMMAND...`, which must exit with
# STATUS; its output is in $dir/out and $dir/err.
run() {
    want=$1
    shift
    "$wk" "$@" >"$dir/out" 2>"$dir/err"
    got=$?
    if [ $got -ne "$want" ]; then
        fail "worldkit $* exited $got, not $want"
        cat "$dir/out" "$dir/err"
    fi
}

# has FILE TEXT: the file (in $dir) holds the fixed text.
has() {
    grep -qF -- "$2" "$dir/$1" || { fail "no '$2' in the $1 of the last run:"; cat "$dir/$1"; }
}
