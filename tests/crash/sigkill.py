"""sigkill.py — nothing acknowledged is lost when `worldkit serve --data DIR`
dies by SIGKILL.

Some clients (workload.Client) mutate worlds of their own over
ObjectWorldService, and one (sim_workload.SimClient) plays the current
world and spawns, moves and deletes models in it over simulation_interfaces,
each call after the previous one's answer; after a
random delay the server is killed with SIGKILL, with calls in flight, and
started again on the same directory. After each restart every client checks
that its worlds hold all it was answered OK, exactly, and the call it had in
flight either wholly or not at all. Each server must have lived until its
kill (status -9) with nothing on stderr, and the last one must stop on
SIGTERM with status 0.

Prints the seed first: WK_CRASH_SEED replays the operations and delays (not
the threads' interleaving; WK_CRASH_CLIENTS=1 makes that moot), then the
figures: kills, restarts, acknowledged mutations, calls found applied or
not after a kill, restart times. Environment: WORLDKIT (the binary, as for
integration/), WK_CRASH_SEED, WK_CRASH_KILLS (default 30), WK_CRASH_CLIENTS
(default 3), WK_CRASH_MAX_DELAY (seconds before a kill at most; default 1).
The data directory is removed after a pass and kept after a failure.
"""
import collections
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time

from integration import harness

from .sim_workload import SimClient
from .workload import Client, CrashFailure

MIN_DELAY = 0.02
JOIN_SECONDS = 60
# Small, so that worlds are compacted (in the background) again and again
# while the server is killed: a world loads from a folded snapshot too.
COMPACT_ENTRIES = "8"
# Short, so that the PLAYING world is checkpointed between kills too.
CHECKPOINT_SECONDS = "1"


def start(data, times):
    """A server on data; its time from exec to answering the health check
    goes to times."""
    began = time.monotonic()
    # Kinematic motion: the mover's pose is checked against what the
    # client set and the velocity it gave, which gravity would change.
    server = harness.Server("--data", data, "--compact-entries", COMPACT_ENTRIES, "--checkpoint-seconds",
                            CHECKPOINT_SECONDS, "--physics", "none")
    times.append(time.monotonic() - began)
    return server


def expect_killed(code, err):
    if code != -9 or err:
        raise CrashFailure("the server was not alive until its SIGKILL, or said something: status %s, stderr:\n%s"
                           % (code, err))


def verify(server, clients):
    for c in clients:
        c.verify(server.channel)
    return server.channel


def set_to_work(channel, clients, stopping):
    threads = [threading.Thread(target=c.run, args=(channel, stopping)) for c in clients]
    for t in threads:
        t.start()
    return threads


def stopped(threads, clients):
    """Waits for the clients after a kill; fails with the first error of
    theirs."""
    for t in threads:
        t.join(JOIN_SECONDS)
        if t.is_alive():
            raise CrashFailure("a client still runs %d s after the kill" % JOIN_SECONDS)
    for c in clients:
        if c.error:
            raise CrashFailure(c.error)


def folded(data):
    """How many worlds the store holds, and how many of them load from a
    snapshot that folded journal entries; read after the last server
    stopped cleanly."""
    db = sqlite3.connect("file:%s/worlds.db?mode=ro" % data, uri=True)
    try:
        return db.execute("SELECT count(*), count(*) FILTER (WHERE seq > 0) FROM snapshots").fetchone()
    finally:
        db.close()


def report(kills, clients, times, data):
    acked = sum((c.acked for c in clients), start=collections.Counter())
    found = sum((c.in_flight for c in clients), start=collections.Counter())
    restarts = times[1:]
    print("crash: %d kills, %d restarts, %d acknowledged mutations (%s)" %
          (kills, len(restarts), sum(acked.values()), ", ".join("%s %d" % kv for kv in sorted(acked.items()))))
    outcome = collections.Counter()
    for (_, how), n in found.items():
        outcome[how] += n
    batches = [found[("UpdateWorldResources", how)] for how in ("applied", "absent")]
    print("crash: calls in flight at a kill: %d applied whole, %d absent; of them UpdateWorldResources batches: "
          "%d applied whole, %d absent" % (outcome["applied"], outcome["absent"], *batches))
    print("crash: restart to SERVING: max %.0f ms, median %.0f ms" %
          (max(restarts) * 1e3, statistics.median(restarts) * 1e3))
    print("crash: at the end %d worlds, %d of them loaded from a folded snapshot (--compact-entries %s)" %
          (*folded(data), COMPACT_ENTRIES))


def main():
    seed = int(os.environ.get("WK_CRASH_SEED") or random.SystemRandom().randrange(1 << 32))
    kills = int(os.environ.get("WK_CRASH_KILLS", "30"))
    count = int(os.environ.get("WK_CRASH_CLIENTS", "3"))
    max_delay = float(os.environ.get("WK_CRASH_MAX_DELAY", "1"))
    print("crash: seed %d (WK_CRASH_SEED=%d replays it)" % (seed, seed), flush=True)
    rng = random.Random(seed)
    clients = [Client(k, seed, harness.stubs()) for k in range(count)] + [SimClient(seed, harness.stubs())]
    data = tempfile.mkdtemp(prefix="wk_crash_")
    times = []
    server = None
    try:
        server = start(data, times)
        for _ in range(kills):
            stopping = threading.Event()
            threads = set_to_work(verify(server, clients), clients, stopping)
            time.sleep(rng.uniform(MIN_DELAY, max_delay))
            stopping.set()
            killed, server = server.kill(), None
            stopped(threads, clients)
            expect_killed(*killed)
            server = start(data, times)
        verify(server, clients)
        code, err = server.stop()
        server = None
        if code != 0 or any(not line.startswith("worldkit: SIGTERM") for line in err.splitlines()):
            raise CrashFailure("the last server did not stop cleanly on SIGTERM: status %s, stderr:\n%s" % (code, err))
    except (CrashFailure, RuntimeError) as e:
        if server:
            server.kill()
        print("FAIL (seed %d; the data directory %s is kept): %s" % (seed, data, e))
        return 1
    report(kills, clients, times, data)
    shutil.rmtree(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
