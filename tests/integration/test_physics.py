"""test_physics.py — `worldkit serve --physics mujoco` over gRPC: the same
dynamics the sim tests check (tests/sim/test_physics.c), seen through both
services: stepped with StepSimulation, a dropped box comes to rest on the
ground, and GetEntityState and GetTransform agree on where it is; a pose
set with SetEntityState or UpdateTransform teleports it; a pendulum's joint is the kinematic
object's joint that GetObject reads, and UpdateObjectJoints sets it in the
engine, while SetEntityState on its links, and UpdateTransform on the
model its joint welds to the world, are refused, naming the joint.
"""
import os

import grpc

from . import harness
from .harness import OK, OPERATION_FAILED
from .test_one_world import WORLD, Calls

FALLING = os.path.join(harness.SOURCE, "examples", "falling.sdf")


class Served(Calls, harness.ServerTest):
    """A server of SERVER_ARGS, its stubs connected."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.connect(cls.channel)


class PhysicsTest(Served):
    SERVER_ARGS = ("--world", FALLING, "--physics", "mujoco")

    def test_a_dropped_box_comes_to_rest_in_both_views(self):
        self.set_state(harness.STATE_PAUSED)
        self.assertGreater(self.entity_pose("box")[2], 1.9)
        self.step(3000)
        z = self.entity_pose("box")[2]
        self.assertAlmostEqual(z, 0.1, delta=2e-3)
        self.assertAlmostEqual(self.world_pose("box")[2], z, places=9)
        # Lifted by a client, it falls again.
        self.set_entity_state("box", (0, 0, 1.5, 0, 0, 0, 1))
        self.step(100)
        self.assertLess(self.entity_pose("box")[2], 1.5)
        self.assertGreater(self.entity_pose("box")[2], 1.0)
        # Put back at 1.5 m through ObjectWorldService, it falls from rest
        # there: 0.1 s later at 1.5 - g t^2 / 2, within the integrator's
        # g h t / 2 (the 0.98 m/s it had would have taken it 0.1 m lower).
        self.stub.UpdateTransform(self.pb.updates.UpdateTransformRequest(
            world_id=WORLD, node_a=self.node("root"), node_b=self.node("box"), a_t_b=self.pose(0, 0, 1.5)),
            timeout=harness.CALL_SECONDS)
        self.step(100)
        self.assertAlmostEqual(self.entity_pose("box")[2], 1.5 - 9.8 * 0.1 ** 2 / 2, delta=1e-3)


class DefaultPhysicsTest(Served):
    """No --physics: a world with dynamic links gets MuJoCo, and its box
    falls as z0 - g t^2 / 2 until it meets the ground."""
    SERVER_ARGS = ("--world", FALLING)

    def test_the_default_falls_a_box(self):
        self.set_state(harness.STATE_PAUSED)
        z0 = self.entity_pose("box")[2]
        self.step(300)
        # 0.3 s of free fall, semi-implicit Euler at 1 ms: within 2 mm.
        self.assertAlmostEqual(self.entity_pose("box")[2], z0 - 9.8 * 0.3 ** 2 / 2, delta=2e-3)
        self.assertAlmostEqual(self.world_pose("box")[2], self.entity_pose("box")[2], places=9)


class NoPhysicsTest(Served):
    """--physics none: the same world's box hangs where the file put it."""
    SERVER_ARGS = ("--world", FALLING, "--physics", "none")

    def test_none_leaves_the_box_hanging(self):
        self.set_state(harness.STATE_PAUSED)
        z0 = self.entity_pose("box")[2]
        self.step(300)
        self.assertEqual(self.entity_pose("box")[2], z0)


class PendulumTest(Served):
    """A revolute joint moved by the engine is a kinematic object's joint
    that ObjectWorldService reads."""
    SERVER_ARGS = ("--world", harness.world("pendulum.sdf"), "--physics", "mujoco")

    def joint_position(self):
        obj = self.get_object(WORLD, "pendulum", view=self.pb.updates.FULL)
        return obj.kinematic_object_component.joint_positions[0]

    def test_the_swing_is_the_joint_position(self):
        self.set_state(harness.STATE_PAUSED)
        self.assertEqual(self.joint_position(), 0)
        # A quarter period, pi/2 sqrt(L/g) = 0.502 s: the bob hangs straight
        # down, the joint turned back by the 0.05 rad it was let go at.
        self.step(502)
        self.assertAlmostEqual(abs(self.joint_position()), 0.05, delta=0.002)
        self.assertAlmostEqual(self.world_pose("pendulum")[0], 0, delta=1e-9)
        bob = self.entity_pose("pendulum::bob")
        self.assertAlmostEqual(bob[0], 0, delta=0.002)
        self.assertAlmostEqual(bob[2], 1, delta=0.002)

    def test_update_object_joints_reaches_the_engine(self):
        # Set mid-swing, the joint holds where it was put, at rest: the next
        # step moves it by gravity's 2.5e-6 rad only (0.16 rad/s would move
        # it 1.6e-4 rad a step); from there it swings through the bob's
        # rest, 0.05 rad, to 0.05 - 0.25 = -0.2 rad half a period later
        # (1.007 s at that amplitude; tests/sim/test_physics.c says more).
        self.set_state(harness.STATE_PAUSED)
        self.step(300)
        self.stub.UpdateObjectJoints(self.pb.updates.UpdateObjectJointsRequest(
            world_id=WORLD, object=self.obj("pendulum"), joint_positions=[0.3]), timeout=harness.CALL_SECONDS)
        self.step(1)
        self.assertAlmostEqual(self.joint_position(), 0.3, delta=1e-5)
        self.step(1006)
        self.assertAlmostEqual(self.joint_position(), -0.2, delta=2e-3)

    def test_set_entity_state_on_a_jointed_link_names_the_joint(self):
        self.set_state(harness.STATE_PAUSED)
        before = self.entity_pose("pendulum::bob")
        state = self.si.EntityState()
        state.pose.CopyFrom(self.si_pose((0, 0, 3, 0, 0, 0, 1)))
        for entity, message in (
                ("pendulum::bob", "link 'pendulum::bob' is moved by joint 'swing'; set the joint position instead"),
                ("pendulum", "entity 'pendulum' is welded to the world by fixed joint 'fix'")):
            reply = self.sim.SetEntityState(self.si.SetEntityStateRequest(entity=entity, state=state, set_pose=True),
                                            timeout=harness.CALL_SECONDS)
            self.assertResult(OPERATION_FAILED, reply, entity, culprit=message)
        self.assertEqual(self.entity_pose("pendulum::bob"), before)

    def test_update_transform_on_a_welded_object_names_the_joint(self):
        # The check SetEntityState makes, the same words, as ObjectWorldService's
        # FAILED_PRECONDITION; the pendulum stays where it was.
        self.set_state(harness.STATE_PAUSED)
        before = self.world_pose("pendulum")
        self.assertStatus(grpc.StatusCode.FAILED_PRECONDITION, self.stub.UpdateTransform,
                          self.pb.updates.UpdateTransformRequest(world_id=WORLD, node_a=self.node("root"),
                                                                 node_b=self.node("pendulum"), a_t_b=self.pose(0, 0, 3)),
                          culprit="UpdateTransform: entity 'pendulum' is welded to the world by fixed joint 'fix': "
                                  "the physics engine places it")
        self.assertEqual(self.world_pose("pendulum"), before)
