"""test_physics.py — `worldkit serve --physics mujoco` over gRPC: the same
dynamics the sim tests check (tests/sim/test_physics.c), seen through both
services: stepped with StepSimulation, a dropped box comes to rest on the
ground, and GetEntityState and GetTransform agree on where it is; a pose
set with SetEntityState teleports it.
"""
import os

from . import harness
from .harness import OK
from .test_one_world import WORLD, Calls

FALLING = os.path.join(harness.SOURCE, "examples", "falling.sdf")


class PhysicsTest(Calls, harness.ServerTest):
    SERVER_ARGS = ("--world", FALLING, "--physics", "mujoco")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.connect(cls.channel)

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


class PendulumTest(Calls, harness.ServerTest):
    """A revolute joint moved by the engine is a kinematic object's joint
    that ObjectWorldService reads."""
    SERVER_ARGS = ("--world", harness.world("pendulum.sdf"), "--physics", "mujoco")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.connect(cls.channel)

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
