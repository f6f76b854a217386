"""cluster.py — three `worldkit serve --store postgresql://...` on one
PostgreSQL database, with one server killed (SIGKILL) and another paused
(SIGSTOP) past its lease, 10 times at random moments.

Run inside tests/store/with_postgres.sh, which starts the database and
names it in WK_TEST_PG_URL. One client thread per world writes to it,
each call after the previous one's answer: CreateFrame "f<n>" on the
world's object "base", n counting from 1. A client calls the server it last reached; an answer UNAVAILABLE
with metadata worldkit-owner sends it to the server named there, any other
failure to another server, but for an attempt timed out at a server that
answered during the call: that one is tried once more. `worldkit call` through a server that does not
hold a world follows that metadata too. After each kill and pause:
  - every world is served again (a read of it answered, through whichever
    server holds it) within the lease plus 1 s of the kill;
  - then, the paused server resumed, the killed one restarted and the
    clients stopped, every world holds every frame it was answered OK for,
    and no other than those whose call failed (there or not);
  - in the journal (the entries not folded into a snapshot yet) the epochs
    of each world's entries never go down as their seqs go up: no server
    wrote a world after another had taken it over.
Prints the seed (WK_CLUSTER_SEED replays the delays and choices), the
takeover times and the counts of acknowledged writes and epochs.
"""
import os
import random
import signal
import subprocess
import sys
import threading
import time

import grpc

from integration import harness

ROUNDS = 10
WORLDS = 4
# Between a writer's calls: the disk the database syncs to is shared with
# the servers' own work.
WRITE_GAP = 0.01
LEASE_MS = 2000
CALL_SECONDS = 3
# One attempt at one server: a paused one answers nothing.
TRY_SECONDS = 0.4
SERVED_SLACK = 1.0
# A world taken over replays its journal since the last snapshot: folded
# every so often, so that a takeover loads a bounded journal (the epochs are
# checked on the entries not folded yet).
COMPACT_ENTRIES = "100"


class ClusterFailure(Exception):
    """What the cluster test found wrong."""


def start(url):
    return harness.Server("--store", url, "--lease-ms", str(LEASE_MS), "--compact-entries", COMPACT_ENTRIES)


def owner_of(error):
    """The worldkit-owner an UNAVAILABLE answer names, or None."""
    if not isinstance(error, grpc.Call) or error.code() != grpc.StatusCode.UNAVAILABLE:
        return None
    for key, value in error.trailing_metadata() or ():
        if key == "worldkit-owner":
            return value
    return None


class Cluster:
    """The servers, and a channel per address any of them had."""

    def __init__(self, url):
        self.url = url
        self.servers = [start(url) for _ in range(3)]
        self.lock = threading.Lock()
        self.channels = {}

    def channel(self, address):
        with self.lock:
            if address not in self.channels:
                self.channels[address] = grpc.insecure_channel(address)
            return self.channels[address]

    def addresses(self):
        with self.lock:
            return [s.address for s in self.servers]

    def call(self, rng, method, request, start_at=None, log=None):
        """Calls method of ObjectWorldService following owners; the answer,
        or the last error once CALL_SECONDS passed. log, a list, gets a line
        per failed attempt."""
        pb = harness.stubs()
        address = start_at or rng.choice(self.addresses())
        end = time.monotonic() + CALL_SECONDS
        # Servers that did not answer during this call (refused, or silent
        # for a whole attempt: killed, paused), not followed to again until
        # every server is; and those that did answer. An attempt that timed
        # out at a server that answered before may have found it busy
        # (taking the world over, on a loaded host): it is asked once more
        # before it counts as silent, as a client does with a server it just
        # heard from. Counted silent at once, it would send the client's
        # next attempt to a server the client knows is paused (0.4 s lost),
        # and the takeover time measured would be the client's.
        silent, answered = set(), set()
        while True:
            stub = pb.ows_grpc.ObjectWorldServiceStub(self.channel(address))
            try:
                return getattr(stub, method)(request, timeout=TRY_SECONDS), address
            except grpc.RpcError as e:
                if log is not None:
                    log.append("%.3f %s %s %s" % (time.monotonic(), address, e.code(), e.details()))
                if time.monotonic() >= end:
                    raise
                owner = owner_of(e)
                if e.code() == grpc.StatusCode.DEADLINE_EXCEEDED and address in answered:
                    answered.discard(address)
                    continue
                if e.code() in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE) and not owner:
                    silent.add(address)
                else:
                    answered.add(address)
                live = [a for a in self.addresses() if a not in silent]
                if not live:
                    silent.clear()
                    live = self.addresses()
                if owner in live:
                    address = owner
                else:
                    address = rng.choice([a for a in live if a != address] or live)
                    time.sleep(0.02)


class Writer:
    """Writes f1, f2, ... into its world: acked holds the n answered OK,
    unknown those whose call failed (there or not)."""

    def __init__(self, cluster, world, seed):
        self.cluster, self.world = cluster, world
        self.rng = random.Random(seed)
        self.n = 0
        self.acked, self.unknown = set(), set()
        self.address = None
        self.error = None

    def run(self, stopping):
        pb = harness.stubs()
        base = pb.refs.ObjectReference(by_name=pb.refs.ObjectReferenceByName(object_name="base"))
        try:
            while not stopping.is_set():
                self.n += 1
                req = pb.updates.CreateFrameRequest(world_id=self.world, new_frame_name="f%d" % self.n,
                                                    parent_object=base)
                req.parent_t_new_frame.orientation.w = 1
                try:
                    _, self.address = self.cluster.call(self.rng, "CreateFrame", req, self.address)
                    self.acked.add(self.n)
                except grpc.RpcError:
                    self.unknown.add(self.n)
                    self.address = None
                time.sleep(WRITE_GAP)
        except Exception as e:  # reported by the main thread
            self.error = "writer of %s: %r" % (self.world, e)


def base_object(world):
    """The object the frames are made on: a ball."""
    pb = harness.stubs()
    req = pb.updates.CreateObjectRequest(world_id=world, name="base")
    req.parent_object_t_created_object.orientation.w = 1
    g = req.create_single_entity_object.geometry_component
    shape = g.named_geometries["Intrinsic_Collision"].named_geometries["ball"]
    shape.geometry.inline_geometry_data.exact_geometry.primitive_set.primitives.add().shape.sphere.radius = 0.25
    return req


def frames(cluster, rng, world):
    m = harness.stubs().ows
    reply, _ = cluster.call(rng, "ListFrames", m.ListFramesRequest(world_id=world))
    return {f.name for f in reply.frames}


def verify(cluster, rng, writers):
    for w in writers:
        have = {int(name[1:]) for name in frames(cluster, rng, w.world) if name.startswith("f")}
        missing = sorted(w.acked - have)
        extra = sorted(have - w.acked - w.unknown)
        if missing or extra:
            raise ClusterFailure("world %s: %d writes acknowledged; missing %s, never asked for %s" %
                                 (w.world, len(w.acked), missing[:10], extra[:10]))


def served_within(cluster, seed, event, worlds):
    """For each world, the seconds from event until a read of it was
    answered (inf: not within the lease + 1 s + a call's time); one prober
    per world, all at once."""
    m = harness.stubs().ows
    times = {world: float("inf") for world in worlds}
    logs = {world: [] for world in worlds}
    deadline = event + LEASE_MS / 1000 + SERVED_SLACK + CALL_SECONDS

    def probe(world, rng):
        while time.monotonic() < deadline:
            try:
                cluster.call(rng, "GetWorld", m.GetWorldRequest(world_id=world), log=logs[world])
                times[world] = time.monotonic() - event
                return
            except grpc.RpcError:
                pass

    threads = [threading.Thread(target=probe, args=(w, random.Random(seed + k))) for k, w in enumerate(worlds)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    late = [w for w, t in times.items() if t > LEASE_MS / 1000 + SERVED_SLACK]
    for w in late:
        print("cluster: %s after the kill at %.3f:\n  %s" % (w, event, "\n  ".join(logs[w])))
    return times


def cli_follows(cluster):
    """`worldkit call` through a server that does not hold the world follows
    the worldkit-owner it is answered with: w0 is server 0's."""
    out = subprocess.run([harness.binary(), "call", "--server", cluster.servers[1].address, "--timeout", "10",
                          "GetWorld", '{"worldId": "w0"}'], capture_output=True, text=True, timeout=30)
    if out.returncode != 0 or '"w0"' not in out.stdout or cluster.servers[0].address not in out.stderr:
        raise ClusterFailure("worldkit call did not follow to w0's server %s: status %d\n%s%s" %
                             (cluster.servers[0].address, out.returncode, out.stdout, out.stderr))


def journal_epochs(url):
    """Per world row, its journal's epochs in seq order, read with psql."""
    out = subprocess.run(["psql", url, "-At", "-F", " ", "-c",
                          "SELECT wid, seq, epoch FROM journal ORDER BY wid, seq"],
                         check=True, capture_output=True, text=True).stdout
    epochs = {}
    for line in out.splitlines():
        wid, _, epoch = (int(x) for x in line.split())
        epochs.setdefault(wid, []).append(epoch)
    return epochs


def check_epochs(url):
    epochs = journal_epochs(url)
    for wid, seq in epochs.items():
        if any(b < a for a, b in zip(seq, seq[1:])):
            raise ClusterFailure("world row %d: its journal's epochs go down: %s" % (wid, seq))
    return sum(len(set(seq)) for seq in epochs.values())


def main():
    url = os.environ.get("WK_TEST_PG_URL")
    if not url:
        print("cluster: no WK_TEST_PG_URL (run inside tests/store/with_postgres.sh)")
        return 1
    seed = int(os.environ.get("WK_CLUSTER_SEED") or random.SystemRandom().randrange(1 << 32))
    print("cluster: seed %d (WK_CLUSTER_SEED=%d replays it)" % (seed, seed), flush=True)
    rng = random.Random(seed)
    cluster = Cluster(url)
    worlds = ["w%d" % k for k in range(WORLDS)]
    m = harness.stubs().ows
    stopped = None
    stopping = threading.Event()
    try:
        for k, world in enumerate(worlds):  # spread over the servers
            stub = harness.stubs().ows_grpc.ObjectWorldServiceStub(cluster.servers[k % 3].channel)
            stub.CreateWorld(m.CreateWorldRequest(world=m.World(world_metadata=m.WorldMetadata(id=world))),
                             timeout=CALL_SECONDS)
            stub.CreateObject(base_object(world), timeout=CALL_SECONDS)
        cli_follows(cluster)
        writers = [Writer(cluster, world, seed + k) for k, world in enumerate(worlds)]
        takeovers = []
        epochs = 0
        for round_ in range(ROUNDS):
            stopping = threading.Event()
            threads = [threading.Thread(target=w.run, args=(stopping,), daemon=True) for w in writers]
            for t in threads:
                t.start()
            time.sleep(rng.uniform(0.3, 1.5))
            killed, paused = rng.sample(range(3), 2)
            cluster.servers[paused].proc.send_signal(signal.SIGSTOP)
            stopped = cluster.servers[paused]
            code, _ = cluster.servers[killed].kill()
            event = time.monotonic()
            if code != -9:
                raise ClusterFailure("server %d had ended before its kill: status %s" % (killed, code))
            times = served_within(cluster, seed + round_, event, worlds)
            late = {w: t for w, t in times.items() if t > LEASE_MS / 1000 + SERVED_SLACK}
            if late:
                raise ClusterFailure("round %d: worlds not served again within the lease + %.0f s: %s" %
                                     (round_, SERVED_SLACK, late))
            takeovers.append(max(times.values()))
            # Past its lease for sure, then resumed: it must not write.
            time.sleep(max(0.0, event + LEASE_MS / 1000 + 0.2 - time.monotonic()))
            stopped.proc.send_signal(signal.SIGCONT)
            stopped = None
            cluster.servers[killed] = start(url)
            time.sleep(0.3)
            stopping.set()
            for t in threads:
                t.join(30)
            for w in writers:
                if w.error:
                    raise ClusterFailure(w.error)
            verify(cluster, rng, writers)
            epochs += check_epochs(url)
        if sum(len(w.acked) for w in writers) < ROUNDS * WORLDS:
            raise ClusterFailure("only %d writes were acknowledged" % sum(len(w.acked) for w in writers))
        for s in cluster.servers:
            code, err = s.stop()
            if code != 0:
                raise ClusterFailure("a server did not stop cleanly: status %s, stderr:\n%s" % (code, err))
    except (ClusterFailure, grpc.RpcError, RuntimeError) as e:
        stopping.set()
        if stopped:
            stopped.proc.send_signal(signal.SIGCONT)
        for s in cluster.servers:
            if s.proc.poll() is None:
                s.kill()
        print("FAIL (seed %d): %s" % (seed, e))
        return 1
    acked = sum(len(w.acked) for w in writers)
    print("cluster: %d rounds (a SIGKILL and a SIGSTOP past the %d ms lease each), %d acknowledged writes, "
          "%d (world, epoch) pairs checked in the journal over the rounds" % (ROUNDS, LEASE_MS, acked, epochs))
    print("cluster: every world served again after a kill within %.2f s (max), %.2f s (median of rounds)" %
          (max(takeovers), sorted(takeovers)[len(takeovers) // 2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
