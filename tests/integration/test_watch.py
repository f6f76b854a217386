"""test_watch.py — worldkit.WorldWatch/Watch (proto/worldkit/watch.proto)
over gRPC against `worldkit serve --levels` of the levels tutorial's world
(tests/formats/worlds/levels_one_performer.sdf: performer R1 in level L1,
which holds M1 and M3; L3 holds M3, M4 and M5).

A stream opens with the full state, then carries what changed, each
message applying on the one before (base_version is the previous
version). What a SetEntityState, a SpawnEntity and a level unloaded by a
moved performer did must be seen in it, as the ECM's own state messages
(worldkit.ecs.State): values, new entities by name, removed ids. A client
that stops reading holds up nobody: the world's other callers go on, and
the server ends the stalled stream with RESOURCE_EXHAUSTED.
"""
import queue
import struct
import threading
import time

import grpc

from . import harness
from .harness import OK, STATE_PAUSED

WORLD = harness.world("levels_one_performer.sdf")
SEEN_SECONDS = 5  # how long a change may take to show in the stream


class Mirror:
    """What a client rebuilds from the stream: each entity's name, parent
    pose position and liveness, and the versions it went through."""

    def __init__(self):
        self.names = {}    # id -> name
        self.position = {}  # id -> (x, y, z) of ParentPose
        self.removed = set()
        self.version = None
        self.messages = 0
        self.fulls = 0

    def apply(self, test, update):
        if update.full:
            self.fulls += 1
            self.names, self.position, self.removed = {}, {}, set()
        elif self.version is not None:
            test.assertEqual(update.base_version, self.version, "a message skipped a version")
        self.version = update.version
        self.messages += 1
        types = {t.id: t.name for t in update.state.types}
        for block in update.state.blocks:
            for col in block.columns:
                kind = types.get(col.type)
                for row, entity in enumerate(block.ids):
                    if kind == "Name":
                        self.names[entity] = col.values[row].decode()
                    elif kind == "ParentPose":
                        self.position[entity] = struct.unpack_from("<3d", col.packed_values, row * 56)
        for entity in update.state.removed:
            self.removed.add(entity)
            self.names.pop(entity, None)

    def id_of(self, name):
        ids = [e for e, n in self.names.items() if n == name]
        return ids[0] if ids else None


class Reader(threading.Thread):
    """Reads a stream into a queue, as a client that keeps up."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream = stream
        self.updates = queue.Queue()
        self.error = None
        self.start()

    def run(self):
        try:
            for update in self.stream:
                self.updates.put(update)
        except grpc.RpcError as e:
            self.error = e


class WatchTest(harness.ServerTest):
    SERVER_ARGS = ("--levels", "--world", WORLD)

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.si = cls.pb.si
        cls.stub = cls.pb.si_grpc.SimulationInterfacesStub(cls.channel)
        cls.w = cls.pb.watch
        cls.watch_stub = cls.pb.watch_grpc.WorldWatchStub(cls.channel)

    def setUp(self):
        self.assertResult(OK, self.stub.LoadWorld(self.si.LoadWorldRequest(uri=WORLD), timeout=harness.CALL_SECONDS))
        self.streams = []

    def tearDown(self):
        for s in self.streams:
            s.cancel()

    def open(self, timeout=None, **request):
        stream = self.watch_stub.Watch(self.w.WatchRequest(**request), timeout=timeout)
        self.streams.append(stream)
        return stream

    def until(self, reader, mirror, done, what):
        """Applies the stream's messages until done(mirror) holds."""
        end = time.monotonic() + SEEN_SECONDS
        while not done(mirror):
            left = end - time.monotonic()
            if left <= 0:
                self.fail("not seen in the stream within %d s: %s" % (SEEN_SECONDS, what))
            try:
                mirror.apply(self, reader.updates.get(timeout=left))
            except queue.Empty:
                pass

    def set_pose(self, name, x, y, z=0.0):
        pose = self.si.Pose(position=self.si.Point(x=x, y=y, z=z))
        req = self.si.SetEntityStateRequest(entity=name, state=self.si.EntityState(pose=pose), set_pose=True)
        self.assertResult(OK, self.stub.SetEntityState(req, timeout=harness.CALL_SECONDS))

    def test_changes_are_seen(self):
        reader, mirror = Reader(self.open(max_rate_hz=100)), Mirror()
        first = reader.updates.get(timeout=SEEN_SECONDS)
        self.assertTrue(first.full)
        self.assertEqual(first.world_id, "world")
        mirror.apply(self, first)
        m1 = mirror.id_of("M1")
        self.assertIsNotNone(m1, "M1 in the full state")
        self.assertEqual(mirror.position[m1], (-8.0, 8.0, 0.0))

        self.set_pose("M1", -7.25, 8.5)
        self.until(reader, mirror, lambda m: m.position.get(m1) == (-7.25, 8.5, 0.0), "M1's new pose")

        model = "<sdf version='1.9'><model name='crate'><link name='body'/></model></sdf>"
        req = self.si.SpawnEntityRequest(name="S1", entity_resource=self.si.Resource(resource_string=model),
                                         initial_pose=self.si.PoseStamped(
                                             pose=self.si.Pose(position=self.si.Point(x=1, y=2, z=3))))
        self.assertResult(OK, self.stub.SpawnEntity(req, timeout=harness.CALL_SECONDS))
        self.until(reader, mirror, lambda m: m.id_of("S1") is not None, "the spawned S1")
        self.assertEqual(mirror.position[mirror.id_of("S1")], (1.0, 2.0, 3.0))

        # R1, the performer, leaves L1 for L3: a step unloads L1, whose M1
        # goes (M3 stays: L3 holds it too).
        m3 = mirror.id_of("M3")
        state = self.si.SetSimulationStateRequest(state=self.si.SimulationState(state=STATE_PAUSED))
        self.assertResult(OK, self.stub.SetSimulationState(state, timeout=harness.CALL_SECONDS))
        self.set_pose("R1", -5, -5)
        self.assertResult(OK, self.stub.StepSimulation(self.si.StepSimulationRequest(steps=1),
                                                       timeout=harness.CALL_SECONDS))
        self.until(reader, mirror, lambda m: m1 in m.removed, "M1 removed with its level")
        self.assertNotIn(m3, mirror.removed)
        self.assertIsNotNone(mirror.id_of("M4"), "L3's M4 loaded")
        self.assertEqual(mirror.fulls, 1, "one full state, then deltas")
        self.assertIsNone(reader.error)

    def test_filters(self):
        reader, mirror = Reader(self.open(component_kinds=["ParentPose"])), Mirror()
        mirror.apply(self, reader.updates.get(timeout=SEEN_SECONDS))
        self.assertEqual(mirror.names, {}, "no Name column under a ParentPose filter")
        self.assertTrue(mirror.position)
        self.assertStatus(grpc.StatusCode.INVALID_ARGUMENT,
                          lambda timeout: next(self.open(timeout, component_kinds=["NoSuchKind"])), culprit="NoSuchKind")
        self.assertStatus(grpc.StatusCode.NOT_FOUND,
                          lambda timeout: next(self.open(timeout, world_id="nowhere")), culprit="nowhere")

    def test_stalled_reader_blocks_nobody(self):
        # A client that never reads, with a big stream owed to it: every
        # step of a playing world moves R1, sent at up to 1 kHz. Its
        # channel takes 16 KB ahead of the reader, not the megabytes gRPC
        # would grow its window to, so that the server soon cannot send.
        channel = grpc.insecure_channel(self.server.address, options=[("grpc.http2.bdp_probe", 0),
                                                                      ("grpc.http2.lookahead_bytes", 16384)])
        self.addCleanup(channel.close)
        stalled = self.pb.watch_grpc.WorldWatchStub(channel).Watch(self.w.WatchRequest(max_rate_hz=1000),
                                                                    timeout=harness.CALL_SECONDS)
        self.streams.append(stalled)
        self.set_pose("R1", -5, 5)
        req = self.si.SetEntityStateRequest(
            entity="R1", state=self.si.EntityState(twist=self.si.Twist(linear=self.si.Vector3(x=0.001))),
            set_twist=True)
        self.assertResult(OK, self.stub.SetEntityState(req, timeout=harness.CALL_SECONDS))
        state = self.si.SetSimulationStateRequest(state=self.si.SimulationState(state=1))  # PLAYING
        self.assertResult(OK, self.stub.SetSimulationState(state, timeout=harness.CALL_SECONDS))
        slowest = 0.0
        end = time.monotonic() + 7  # past the server's 5 s for a reader that takes nothing
        while time.monotonic() < end:
            t0 = time.monotonic()
            self.assertResult(OK, self.stub.GetEntityState(self.si.GetEntityStateRequest(entity="R1"),
                                                           timeout=harness.CALL_SECONDS))
            slowest = max(slowest, time.monotonic() - t0)
            time.sleep(0.05)
        self.assertLess(slowest, 1.0, "GetEntityState waited on the stalled watcher")
        state = self.si.SetSimulationStateRequest(state=self.si.SimulationState(state=STATE_PAUSED))
        self.assertResult(OK, self.stub.SetSimulationState(state, timeout=harness.CALL_SECONDS))
        # What it had taken before stalling, then the server's end of it.
        with self.assertRaises(grpc.RpcError) as ended:
            for _ in stalled:
                pass
        self.assertEqual(ended.exception.code(), grpc.StatusCode.RESOURCE_EXHAUSTED)
        self.assertIn("stopped reading", ended.exception.details())
