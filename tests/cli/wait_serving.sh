# wait_serving.sh — sourced by the cli tests. wait_serving OUT PID waits until
# the `worldkit serve` of process PID, writing to OUT, says it serves (at most
# 10 s), exiting the test with its output if it dies or never does; then
# exports its address as WORLDKIT_SERVER for the client commands.
wait_serving() {
    tries=0
    until grep -q "serving on" "$1" 2>/dev/null; do
        tries=$((tries + 1))
        if [ $tries -gt 100 ] || ! kill -0 "$2" 2>/dev/null; then
            echo "FAIL: the server did not start:"
            cat "$1"
            exit 1
        fi
        sleep 0.1
    done
    WORLDKIT_SERVER=$(sed -n 's/.*serving on //p' "$1")
    export WORLDKIT_SERVER
}
