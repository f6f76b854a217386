"""watch.py — the second client of the hostile tests, in a process of its
own: a thread of the test's would wait for Python's lock while the test
builds a request of a million elements, and time that, not the server.
Usage: python3 -m integration.watch ADDRESS GET_TRANSFORM_REQUEST_HEX

Connects, then asks the health check and ObjectWorldService/GetTransform
(the request given, serialized) again and again, each with a 1 s deadline,
until its standard input closes. Prints "ready" after its first round, a line
"slow WHAT: WHY" for each answer that failed or took 1 s or more, and
"rounds N" at the end.
"""
import sys
import threading
import time

import grpc


def main():
    address, transform = sys.argv[1], bytes.fromhex(sys.argv[2])
    stop = threading.Event()

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
                start = time.monotonic()
                try:
                    call(request, timeout=1)
                except grpc.RpcError as e:
                    print("slow %s: %s %s" % (what, e.code().name, e.details()), flush=True)
                took = time.monotonic() - start
                if took >= 1.0:
                    print("slow %s: %.2f s" % (what, took), flush=True)
            if rounds == 0:
                print("ready", flush=True)
            rounds += 1
            stop.wait(0.05)
    print("rounds %d" % rounds, flush=True)


if __name__ == "__main__":
    main()
