"""watch.py — the second client of the hostile tests, in a process of its
own: a thread of the test's would wait for Python's lock while the test
builds a request of a million elements, and time that, not the server.
Usage: python3 -m integration.watch ADDRESS GET_TRANSFORM_REQUEST_HEX

Connects, then asks the health check and ObjectWorldService/GetTransform
(the request given, serialized) again and again until its standard input
closes. Each must be answered within 1 s of the server's time (Waits).
Prints "ready" after its first round, a line "slow WHAT: WHY" for each
answer that failed or took longer, and "rounds N, waited S s for a CPU" at
the end.
"""
import os
import sys
import threading
import time

import grpc

# What a watched call may take, less the time this process waited for a CPU
# meanwhile; and its deadline, past which it counts as failed.
ANSWER_SECONDS = 1.0
CALL_DEADLINE = 10


class Waits:
    """How long this process has waited for a CPU: a thread sleeps 10 ms
    again and again and adds up how late it wakes.

    Why: on a host whose load is far past its cores (17 on 2), every
    process waits its turn, the server's threads and this client's alike,
    and a call answered at once could take over a second of wall time. A
    call's time less the waits of this process over it is the server's own
    delay, as near as can be measured from outside: the attacks the suite
    guards against held others for seconds while the client sat idle on its
    socket, waiting for no CPU, so none of that time is excused. A baseline
    taken before the attack would miss the load's bursts during it, and a
    process cannot raise its own priority."""

    TICK = 0.01

    def __init__(self):
        self._total = 0.0
        self._stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def close(self):
        self._stop.set()

    def _run(self):
        while not self._stop.is_set():
            start = time.monotonic()
            time.sleep(self.TICK)
            self._total += max(0.0, time.monotonic() - start - self.TICK)

    def total(self):
        return self._total


def thread_waits(pid):
    """Per thread of process pid, the seconds it has waited for a CPU (the
    second field of its schedstat)."""
    waited = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                waited[tid] = int(f.read().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            pass  # a thread that ended meanwhile
    return waited


def most_waited(before, after):
    """The longest any one thread waited for a CPU between two
    thread_waits."""
    return max([after[tid] - before.get(tid, 0.0) for tid in after] or [0.0])


def timed(waits, call):
    """call(), and the seconds it took less the CPU waits meanwhile."""
    waited, start = waits.total(), time.monotonic()
    call()
    return time.monotonic() - start - (waits.total() - waited)


def main():
    address, transform = sys.argv[1], bytes.fromhex(sys.argv[2])
    stop = threading.Event()
    waits = Waits()

    def wait_for_eof():
        sys.stdin.read()
        stop.set()

    threading.Thread(target=wait_for_eof, daemon=True).start()
    with grpc.insecure_channel(address) as channel:
        # Connected before the first call is timed: the 1 s is the server's
        # to answer in, and a connection's setup (a TCP handshake, HTTP/2's
        # settings, both processes' threads scheduled in turn) took up to a
        # third of it on a loaded machine.
        grpc.channel_ready_future(channel).result(timeout=30)
        calls = (("health check", channel.unary_unary("/grpc.health.v1.Health/Check"), b""),
                 ("GetTransform", channel.unary_unary("/intrinsic_proto.world.ObjectWorldService/GetTransform"),
                  transform))
        rounds = 0
        while not stop.is_set():
            for what, call, request in calls:
                try:
                    took = timed(waits, lambda: call(request, timeout=CALL_DEADLINE))
                except grpc.RpcError as e:
                    print("slow %s: %s %s" % (what, e.code().name, e.details()), flush=True)
                    continue
                if took >= ANSWER_SECONDS:
                    print("slow %s: %.2f s beside the waits for a CPU" % (what, took), flush=True)
            if rounds == 0:
                print("ready", flush=True)
            rounds += 1
            stop.wait(0.05)
    print("rounds %d, waited %.2f s for a CPU" % (rounds, waits.total()), flush=True)


if __name__ == "__main__":
    main()
