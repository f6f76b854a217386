"""test_levels.py — worldkit.Levels (proto/worldkit/levels.proto) over gRPC
against `worldkit serve --levels` of the levels tutorial's world
(tests/formats/worlds/levels_one_performer.sdf: performer R1 in level L1;
L2 holds M2 and M3, where R3 stands; L3 holds M3, M4 and M5).

SetPerformer has the semantics of Gazebo's set_performer service: a name
in, true when the performer was added. An entity of an unloaded level is
NOT_FOUND with a message naming its level.
"""
import shutil
import tempfile
import unittest

from . import harness
from .harness import OK, NOT_FOUND, OPERATION_FAILED, FEATURE_UNSUPPORTED, STATE_PAUSED

WORLD = harness.world("levels_one_performer.sdf")


class LevelsTest(harness.ServerTest):
    SERVER_ARGS = ("--levels", "--world", WORLD)

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.lv = cls.pb.levels
        cls.levels_stub = cls.pb.levels_grpc.LevelsStub(cls.channel)
        cls.si = cls.pb.si
        cls.stub = cls.pb.si_grpc.SimulationInterfacesStub(cls.channel)

    def setUp(self):
        # Afresh: the file's performers only, L1 alone loaded.
        self.assertResult(OK, self.stub.LoadWorld(self.si.LoadWorldRequest(uri=WORLD), timeout=harness.CALL_SECONDS))

    def levels(self):
        reply = self.levels_stub.ListLevels(self.lv.ListLevelsRequest(), timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reply)
        return {l.name: l for l in reply.levels}

    def set_performer(self, name, want=OK, culprit=None):
        reply = self.levels_stub.SetPerformer(self.lv.SetPerformerRequest(name=name), timeout=harness.CALL_SECONDS)
        self.assertResult(want, reply, "SetPerformer " + name, culprit)
        self.assertEqual(reply.added, want == OK)

    def entity_state(self, name):
        return self.stub.GetEntityState(self.si.GetEntityStateRequest(entity=name), timeout=harness.CALL_SECONDS)

    def test_list_levels(self):
        levels = self.levels()
        self.assertEqual(list(levels), ["L1", "L2", "L3"])
        l2 = levels["L2"]
        self.assertEqual((l2.center.x, l2.center.y, l2.center.z), (5, 5, 5))
        self.assertEqual((l2.size.x, l2.size.y, l2.size.z), (10, 10, 10))
        self.assertEqual(l2.buffer, 2)
        self.assertEqual(list(l2.entities), ["M2", "M3"])
        self.assertEqual([n for n, l in levels.items() if l.loaded], ["L1"])

    def test_set_performer_loads_its_level(self):
        self.assertResult(NOT_FOUND, self.entity_state("M2"), culprit="its level L2 is unloaded")
        self.set_performer("R3")
        self.set_performer("R3", OPERATION_FAILED, culprit="R3")
        self.set_performer("nobody", NOT_FOUND, culprit="nobody")
        reply = self.levels_stub.ListPerformers(self.lv.ListPerformersRequest(), timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reply)
        self.assertEqual([p.name for p in reply.performers], ["R1", "R3"])
        self.assertEqual(reply.performers[1].size.x, 1)
        state = self.si.SetSimulationStateRequest(state=self.si.SimulationState(state=STATE_PAUSED))
        self.assertResult(OK, self.stub.SetSimulationState(state, timeout=harness.CALL_SECONDS))
        self.assertResult(OK, self.stub.StepSimulation(self.si.StepSimulationRequest(steps=1),
                                                       timeout=harness.CALL_SECONDS))
        self.assertTrue(self.levels()["L2"].loaded)
        self.assertResult(OK, self.entity_state("M2"))


class WithoutLevelsTest(harness.ServerTest):
    SERVER_ARGS = ("--world", WORLD)

    def test_performers_need_levels(self):
        lv = self.pb.levels
        stub = self.pb.levels_grpc.LevelsStub(self.channel)
        reply = stub.SetPerformer(lv.SetPerformerRequest(name="R3"), timeout=harness.CALL_SECONDS)
        self.assertResult(FEATURE_UNSUPPORTED, reply, culprit="--levels")
        self.assertFalse(reply.added)
        reply = stub.ListLevels(lv.ListLevelsRequest(), timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reply)
        self.assertEqual(len(reply.levels), 0)


class RestartTest(unittest.TestCase):
    """A world served with levels, from a store on disk, served again
    without --world: its levels, its file's performer and the performer a
    client added come back, and performers still load levels."""

    def test_levels_after_a_restart_without_world(self):
        pb = harness.stubs()
        data = tempfile.mkdtemp(prefix="wk_levels_restart_")
        self.addCleanup(shutil.rmtree, data, True)
        # Kinematic motion: the robots stay where they are put.
        server = harness.Server("--levels", "--world", WORLD, "--data", data, "--physics", "none")
        reply = pb.levels_grpc.LevelsStub(server.channel).SetPerformer(pb.levels.SetPerformerRequest(name="R3"),
                                                                       timeout=harness.CALL_SECONDS)
        self.assertTrue(reply.added, reply.result.error_message)
        code, err = server.stop()
        self.assertEqual(code, 0, err)
        server = harness.Server("--levels", "--data", data, "--physics", "none")
        try:
            levels = pb.levels_grpc.LevelsStub(server.channel)
            sim = pb.si_grpc.SimulationInterfacesStub(server.channel)
            reply = levels.ListLevels(pb.levels.ListLevelsRequest(), timeout=harness.CALL_SECONDS)
            self.assertEqual(reply.result.result, OK, reply.result.error_message)
            self.assertEqual([(l.name, l.loaded) for l in reply.levels], [("L1", True), ("L2", False), ("L3", False)])
            reply = levels.ListPerformers(pb.levels.ListPerformersRequest(), timeout=harness.CALL_SECONDS)
            self.assertEqual([p.name for p in reply.performers], ["R1", "R3"])
            # R1 into L3's zone; R3 stands in L2's: the next step loads both.
            state = pb.si.EntityState(pose=pb.si.Pose(position=pb.si.Point(x=-5, y=-5, z=0),
                                                      orientation=pb.si.Quaternion(w=1)))
            reply = sim.SetEntityState(pb.si.SetEntityStateRequest(entity="R1", state=state, set_pose=True),
                                       timeout=harness.CALL_SECONDS)
            self.assertEqual(reply.result.result, OK, reply.result.error_message)
            paused = pb.si.SetSimulationStateRequest(state=pb.si.SimulationState(state=harness.STATE_PAUSED))
            self.assertEqual(sim.SetSimulationState(paused, timeout=harness.CALL_SECONDS).result.result, OK)
            reply = sim.StepSimulation(pb.si.StepSimulationRequest(steps=1), timeout=harness.CALL_SECONDS)
            self.assertEqual(reply.result.result, OK, reply.result.error_message)
            reply = levels.ListLevels(pb.levels.ListLevelsRequest(), timeout=harness.CALL_SECONDS)
            self.assertEqual([(l.name, l.loaded) for l in reply.levels], [("L1", False), ("L2", True), ("L3", True)])
            for entity in ("M2", "M4"):
                reply = sim.GetEntityState(pb.si.GetEntityStateRequest(entity=entity), timeout=harness.CALL_SECONDS)
                self.assertEqual(reply.result.result, OK, reply.result.error_message)
        finally:
            code, err = server.stop()
        self.assertEqual(code, 0, err)
