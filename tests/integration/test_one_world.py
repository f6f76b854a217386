"""test_one_world.py — simulation_interfaces and ObjectWorldService act on one
world: what either service does, the other sees at once, and so do the
simulation loop and its levels. The server serves a levels world (R1, the
performer, starts in L1, which holds M1 and M3) as the store's world "world".
Each test undoes what it changed, so that the tests do not depend on their
order.
"""
import contextlib
import math
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest

import grpc

from . import harness
from .harness import OK
from .test_object_world import ObjectWorldCalls

C = grpc.StatusCode
WORLD = "world"
BOX = ("<sdf version='1.9'><model name='box'><link name='body'><collision name='c'><geometry><box>"
       "<size>1 1 1</size></box></geometry></collision></link></model></sdf>")


# Kinematic motion (the default physics would drop the file's boxes): the
# tests move entities by the velocities they set.
SERVE_LEVELS = ("--world", harness.world("levels_one_performer.sdf"), "--levels", "--physics", "none")


class Calls(ObjectWorldCalls):
    """The calls of both services that the tests make; a mixin of a
    harness.ServerTest, which calls connect() once its server serves."""

    @classmethod
    def connect(cls, channel):
        cls.si = cls.pb.si
        cls.sim = cls.pb.si_grpc.SimulationInterfacesStub(channel)
        cls.m = cls.pb.ows
        cls.stub = cls.pb.ows_grpc.ObjectWorldServiceStub(channel)

    def si_pose(self, p):
        """A Pose of p = (x, y, z, qx, qy, qz, qw)."""
        return self.si.Pose(position=self.si.Point(x=p[0], y=p[1], z=p[2]),
                            orientation=self.si.Quaternion(x=p[3], y=p[4], z=p[5], w=p[6]))

    def spawn(self, name, x, y, z):
        req = self.si.SpawnEntityRequest(name=name, entity_resource=self.si.Resource(resource_string=BOX),
                                         initial_pose=self.si.PoseStamped(pose=self.si_pose((x, y, z, 0, 0, 0, 1))))
        self.assertResult(OK, self.sim.SpawnEntity(req, timeout=harness.CALL_SECONDS))
        self.addCleanup(self.delete_entity, name)

    def delete_entity(self, name):
        self.sim.DeleteEntity(self.si.DeleteEntityRequest(entity=name), timeout=harness.CALL_SECONDS)

    def entities(self):
        reply = self.sim.GetEntities(self.si.GetEntitiesRequest(), timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reply)
        return set(reply.entities)

    def entity_pose(self, name):
        reply = self.sim.GetEntityState(self.si.GetEntityStateRequest(entity=name), timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reply, name)
        p = reply.state.pose
        return (p.position.x, p.position.y, p.position.z, p.orientation.x, p.orientation.y, p.orientation.z,
                p.orientation.w)

    def set_entity_state(self, name, pose=None, linear=None):
        state = self.si.EntityState()
        if pose:
            state.pose.CopyFrom(self.si_pose(pose))
        if linear:
            state.twist.linear.x, state.twist.linear.y, state.twist.linear.z = linear
        req = self.si.SetEntityStateRequest(entity=name, state=state, set_pose=pose is not None,
                                            set_twist=linear is not None)
        self.assertResult(OK, self.sim.SetEntityState(req, timeout=harness.CALL_SECONDS), name)

    def step(self, steps):
        self.assertResult(OK, self.sim.StepSimulation(self.si.StepSimulationRequest(steps=steps),
                                                      timeout=harness.CALL_SECONDS))

    def set_state(self, state):
        req = self.si.SetSimulationStateRequest(state=self.si.SimulationState(state=state))
        self.sim.SetSimulationState(req, timeout=harness.CALL_SECONDS)

    def world_pose(self, name):
        return self.transform(WORLD, self.node("root"), self.node(name))


class OneWorldTest(Calls, harness.ServerTest):
    SERVER_ARGS = SERVE_LEVELS

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.connect(cls.channel)

    # ---- simulation_interfaces to ObjectWorldService ----

    def test_spawned_entity_is_an_object_at_its_spawn_pose(self):
        self.spawn("crate1", 1, 2, 3)
        self.assertIn("crate1", self.names(WORLD))
        self.assertEqual(self.get_object(WORLD, "crate1").name, "crate1")
        self.assertPoseAlmostEqual(self.world_pose("crate1"), (1, 2, 3, 0, 0, 0, 1))
        # R1 starts at (-5, 5, 0), unturned.
        self.assertPoseAlmostEqual(self.transform(WORLD, self.node("crate1"), self.node("R1")), (-6, 3, -3, 0, 0, 0, 1))

    def test_spawned_entities_are_objects_at_their_spawn_poses(self):
        entries = [self.si.SpawnEntityRequest(name=name, entity_resource=self.si.Resource(resource_string=BOX),
                                              initial_pose=self.si.PoseStamped(pose=self.si_pose(pose)))
                   for name, pose in (("pallet1", (2, 0, 1, 0, 0, 0, 1)),
                                      ("pallet2", (0, -2, 1, 0, 0, math.sin(0.2), math.cos(0.2))))]
        reply = self.sim.SpawnEntities(self.si.SpawnEntitiesRequest(spawn_requests=entries),
                                       timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reply)
        self.addCleanup(self.delete_entity, "pallet1")
        self.addCleanup(self.delete_entity, "pallet2")
        self.assertTrue({"pallet1", "pallet2"} <= set(self.names(WORLD)))
        self.assertPoseAlmostEqual(self.world_pose("pallet1"), (2, 0, 1, 0, 0, 0, 1))
        self.assertPoseAlmostEqual(self.world_pose("pallet2"), (0, -2, 1, 0, 0, math.sin(0.2), math.cos(0.2)))

    def test_set_entity_state_is_seen_by_get_transform(self):
        before = self.entity_pose("R2")
        self.addCleanup(self.set_entity_state, "R2", before)
        turn = (0.0, 0.0, math.sin(0.35), math.cos(0.35))
        self.set_entity_state("R2", (4, -1, 0.5) + turn)
        self.assertPoseAlmostEqual(self.world_pose("R2"), (4, -1, 0.5) + turn)

    def test_deleted_entity_is_no_object(self):
        self.spawn("doomed", 0, 0, 9)
        self.get_object(WORLD, "doomed")
        self.assertResult(OK, self.sim.DeleteEntity(self.si.DeleteEntityRequest(entity="doomed"),
                                                    timeout=harness.CALL_SECONDS))
        self.assertStatus(C.NOT_FOUND, self.get_object, WORLD, "doomed", culprit="doomed")
        self.assertNotIn("doomed", self.names(WORLD))

    def test_playing_loop_motion_is_seen_by_get_transform(self):
        start = self.entity_pose("R3")
        self.addCleanup(self.set_entity_state, "R3", start, (0, 0, 0))
        self.set_entity_state("R3", linear=(0, 0, 1))
        self.set_state(harness.STATE_PLAYING)
        self.addCleanup(self.set_state, harness.STATE_PAUSED)
        end = time.monotonic() + harness.CALL_SECONDS
        while self.world_pose("R3")[2] < start[2] + 0.05 and time.monotonic() < end:
            time.sleep(0.02)
        self.set_state(harness.STATE_PAUSED)
        moved = self.world_pose("R3")
        self.assertGreater(moved[2], start[2] + 0.05)
        self.assertAlmostEqual(self.entity_pose("R3")[2], moved[2], places=9)

    # ---- ObjectWorldService to simulation_interfaces ----

    def test_created_object_is_an_entity(self):
        self.create_box(WORLD, "shelf", x=2, y=-3, z=0.25)
        self.addCleanup(self.stub.DeleteObject, self.pb.updates.DeleteObjectRequest(world_id=WORLD, object=self.obj("shelf")),
                        timeout=harness.CALL_SECONDS)
        self.assertIn("shelf", self.entities())
        self.assertPoseAlmostEqual(self.entity_pose("shelf"), (2, -3, 0.25, 0, 0, 0, 1))

    def test_created_frame_is_a_named_pose(self):
        self.stub.CreateFrame(self.pb.updates.CreateFrameRequest(
            world_id=WORLD, parent_object=self.obj("root"), new_frame_name="dock",
            parent_t_new_frame=self.pose(3, 4, 0)), timeout=harness.CALL_SECONDS)
        self.addCleanup(self.stub.DeleteFrame, self.pb.updates.DeleteFrameRequest(
            world_id=WORLD, frame=self.frame("root", "dock")), timeout=harness.CALL_SECONDS)
        reply = self.sim.GetNamedPoses(self.si.GetNamedPosesRequest(), timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reply)
        docks = [p for p in reply.poses if p.name == "dock"]
        self.assertEqual(len(docks), 1, [p.name for p in reply.poses])
        self.assertAlmostEqual(docks[0].pose.position.x, 3, places=9)
        self.assertAlmostEqual(docks[0].pose.position.y, 4, places=9)

    def test_update_transform_is_seen_by_get_entity_state(self):
        before = self.entity_pose("R2")
        self.addCleanup(self.set_entity_state, "R2", before)
        self.stub.UpdateTransform(self.pb.updates.UpdateTransformRequest(
            world_id=WORLD, node_a=self.node("root"), node_b=self.node("R2"), a_t_b=self.pose(-1, -2, 0.75)),
            timeout=harness.CALL_SECONDS)
        self.assertPoseAlmostEqual(self.entity_pose("R2"), (-1, -2, 0.75, 0, 0, 0, 1))
        self.assertPoseAlmostEqual(self.entity_pose("R2::body"), (-1, -2, 0.75, 0, 0, 0, 1))

    def test_deleted_object_is_no_entity(self):
        self.spawn("gone", 0, 0, 7)
        self.stub.DeleteObject(self.pb.updates.DeleteObjectRequest(world_id=WORLD, object=self.obj("gone")),
                               timeout=harness.CALL_SECONDS)
        self.assertNotIn("gone", self.entities())
        reply = self.sim.GetEntityState(self.si.GetEntityStateRequest(entity="gone"), timeout=harness.CALL_SECONDS)
        self.assertResult(harness.NOT_FOUND, reply, "gone")

    # ---- levels ----

    def test_level_unload_and_reload_in_both_views(self):
        start = self.entity_pose("R1")
        self.addCleanup(self.step, 1)
        self.addCleanup(self.set_entity_state, "R1", start)
        self.set_state(harness.STATE_PAUSED)
        self.assertTrue({"M1", "M3"} <= set(self.names(WORLD)))
        self.assertFalse({"M4", "M5"} & set(self.names(WORLD)))
        m1 = self.get_object(WORLD, "M1").id
        # R1 into L3 (M3, M4, M5), out of L1 (M1, M3).
        self.set_entity_state("R1", (-5, -5, 0, 0, 0, 0, 1))
        self.step(1)
        names = set(self.names(WORLD))
        self.assertTrue({"M3", "M4", "M5"} <= names, names)
        self.assertNotIn("M1", names)
        self.assertNotIn("M1", self.entities())
        self.assertPoseAlmostEqual(self.world_pose("M4"), (-8, -8, 0, 0, 0, 0, 1))
        # And back: L1's models come back at their file poses, L3's go.
        self.set_entity_state("R1", start)
        self.step(1)
        names = set(self.names(WORLD))
        self.assertTrue({"M1", "M3"} <= names, names)
        self.assertFalse({"M4", "M5"} & names, names)
        self.assertIn("M1", self.entities())
        self.assertPoseAlmostEqual(self.world_pose("M1"), (-8, 8, 0, 0, 0, 0, 1))
        # With the ids it had: a client's references to it hold.
        self.assertEqual(self.get_object(WORLD, "M1").id, m1)

    # ---- resets ----

    def object_ids(self, world=WORLD):
        return {o.name: o.id for o in self.list_objects(world).objects}

    def reset(self, metadata=()):
        self.assertResult(OK, self.sim.ResetSimulation(self.si.ResetSimulationRequest(), metadata=metadata,
                                                       timeout=harness.CALL_SECONDS))

    def test_reset_puts_the_world_back_with_its_ids(self):
        # As the file had it: init_world, ids and poses.
        self.set_state(harness.STATE_PAUSED)
        initial = self.object_ids("init_world")
        r2 = self.transform("init_world", self.node("root"), self.node("R2"))
        self.spawn("stray", 3, 3, 3)
        self.set_entity_state("R2", (9, 9, 9, 0, 0, 0, 1))
        self.reset()
        self.assertEqual(self.object_ids(), initial)
        self.assertNotIn("stray", self.entities())
        self.assertPoseAlmostEqual(self.entity_pose("R2"), r2)

    def test_reset_of_a_clone_puts_the_clone_back(self):
        env = self.clone("env4")
        state = self.si.EntityState(pose=self.si_pose((5, 5, 5, 0, 0, 0, 1)))
        self.assertResult(OK, self.sim.SetEntityState(self.si.SetEntityStateRequest(
            entity="R2", state=state, set_pose=True), metadata=env, timeout=harness.CALL_SECONDS))
        before = self.object_ids("env4")
        self.reset(env)
        self.assertEqual(self.object_ids("env4"), before)
        self.assertNotAlmostEqual(self.transform("env4", self.node("root"), self.node("R2"))[0], 5)

    # ---- many simulations in one server ----

    def clone(self, world_id):
        self.stub.CloneWorld(self.m.CloneWorldRequest(world_id=WORLD, cloned_world_id=world_id),
                             timeout=harness.CALL_SECONDS)
        self.addCleanup(self.stub.DeleteWorld, self.m.DeleteWorldRequest(world_id=world_id),
                        timeout=harness.CALL_SECONDS)
        return (("worldkit-world-id", world_id),)

    def stamp(self, entity, metadata=()):
        """The simulated time, in seconds, of the entity's state."""
        reply = self.sim.GetEntityState(self.si.GetEntityStateRequest(entity=entity), metadata=metadata,
                                        timeout=harness.CALL_SECONDS)
        return reply.state.header.stamp.sec + reply.state.header.stamp.nanosec * 1e-9

    def test_a_clone_is_simulated_on_its_own(self):
        env = self.clone("env1")
        self.set_state(harness.STATE_PAUSED)
        req = self.si.SetSimulationStateRequest(state=self.si.SimulationState(state=harness.STATE_PAUSED))
        self.sim.SetSimulationState(req, metadata=env, timeout=harness.CALL_SECONDS)
        # A pose set in the clone is the clone's alone.
        state = self.si.EntityState(pose=self.si_pose((7, 7, 7, 0, 0, 0, 1)))
        self.assertResult(OK, self.sim.SetEntityState(self.si.SetEntityStateRequest(
            entity="R2", state=state, set_pose=True), metadata=env, timeout=harness.CALL_SECONDS))
        self.assertPoseAlmostEqual(self.transform("env1", self.node("root"), self.node("R2")), (7, 7, 7, 0, 0, 0, 1))
        self.assertNotAlmostEqual(self.world_pose("R2")[0], 7)
        # Steps of the clone leave the current world's clock as it is.
        before = self.stamp("R2")
        self.assertResult(OK, self.sim.StepSimulation(self.si.StepSimulationRequest(steps=5), metadata=env,
                                                      timeout=harness.CALL_SECONDS))
        self.assertAlmostEqual(self.stamp("R2", env), 0.005, places=9)
        self.assertEqual(self.stamp("R2"), before)

    def test_a_playing_clone_moves_while_the_world_waits(self):
        env = self.clone("env2")
        self.set_state(harness.STATE_PAUSED)
        twist = self.si.EntityState(twist=self.si.Twist(linear=self.si.Vector3(x=1)))
        self.assertResult(OK, self.sim.SetEntityState(self.si.SetEntityStateRequest(
            entity="R3", state=twist, set_twist=True), metadata=env, timeout=harness.CALL_SECONDS))
        start = self.world_pose("R3")
        req = self.si.SetSimulationStateRequest(state=self.si.SimulationState(state=harness.STATE_PLAYING))
        self.sim.SetSimulationState(req, metadata=env, timeout=harness.CALL_SECONDS)
        end = time.monotonic() + harness.CALL_SECONDS
        while (self.transform("env2", self.node("root"), self.node("R3"))[0] < start[0] + 0.05
               and time.monotonic() < end):
            time.sleep(0.02)
        req.state.state = harness.STATE_PAUSED
        self.sim.SetSimulationState(req, metadata=env, timeout=harness.CALL_SECONDS)
        self.assertGreater(self.transform("env2", self.node("root"), self.node("R3"))[0], start[0] + 0.05)
        self.assertPoseAlmostEqual(self.world_pose("R3"), start)

    def test_the_command_line_names_a_world(self):
        env = self.clone("env3")
        self.set_state(harness.STATE_PAUSED)
        req = self.si.SetSimulationStateRequest(state=self.si.SimulationState(state=harness.STATE_PAUSED))
        self.sim.SetSimulationState(req, metadata=env, timeout=harness.CALL_SECONDS)
        before = self.stamp("R1")
        step = subprocess.run([harness.binary(), "step", "3", "--world", "env3", "--server", self.server.address],
                              capture_output=True, text=True, timeout=harness.CALL_SECONDS)
        self.assertEqual(step.returncode, 0, step.stderr)
        self.assertAlmostEqual(self.stamp("R1", env), 0.003, places=9)
        self.assertEqual(self.stamp("R1"), before)

    def test_an_unknown_world_is_not_found(self):
        self.assertStatus(C.NOT_FOUND, self.sim.GetEntities, self.si.GetEntitiesRequest(),
                          metadata=(("worldkit-world-id", "no_such_world"),), culprit="no_such_world")

    # ---- the command line, as the README shows it ----

    def test_tf_names_links_as_sdformat_scopes_them(self):
        # R1 starts at (-5, 5, 0), R2 at (-5, 8, 0), each link at its model's origin.
        r2 = self.entity_pose("R2")
        self.addCleanup(self.set_entity_state, "R2", r2)
        self.set_entity_state("R2", (-5, 8, 0, 0, 0, 0, 1))
        self.set_entity_state("R1", (-5, 5, 0, 0, 0, 0, 1))
        tf = subprocess.run([harness.binary(), "tf", "R1::body", "R2::body", "--server", self.server.address],
                            capture_output=True, text=True, timeout=harness.CALL_SECONDS)
        self.assertEqual(tf.returncode, 0, tf.stderr)
        self.assertIn('"y": 3', tf.stdout)
        bad = subprocess.run([harness.binary(), "tf", "R1::", "R2", "--server", self.server.address],
                             capture_output=True, text=True, timeout=harness.CALL_SECONDS)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("OBJECT::LINK", bad.stderr)

    def test_spawn_then_tf_from_the_command_line(self):
        path = harness.world("spawn_box.sdf")
        run = [harness.binary()]
        server = ["--server", self.server.address]
        spawn = subprocess.run(run + ["spawn", path, "--name", "crate2", "--pose", "1", "2", "3", "0", "0", "0"]
                               + server, capture_output=True, text=True, timeout=harness.CALL_SECONDS)
        self.assertEqual(spawn.returncode, 0, spawn.stderr)
        self.addCleanup(self.delete_entity, "crate2")
        tf = subprocess.run(run + ["tf", "crate2", "R1"] + server, capture_output=True, text=True,
                            timeout=harness.CALL_SECONDS)
        self.assertEqual(tf.returncode, 0, tf.stderr)
        self.assertIn('"x": -6', tf.stdout)
        self.assertIn('"y": 3', tf.stdout)


def rotate(q, v):
    """v turned by the unit quaternion q = (qx, qy, qz, qw)."""
    x, y, z, w = q
    tx, ty, tz = 2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + y * tz - z * ty, v[1] + w * ty + z * tx - x * tz, v[2] + w * tz + x * ty - y * tx)


def yaw(p):
    """The turn about z of a pose (x, y, z, qx, qy, qz, qw) turned about z only."""
    return 2 * math.atan2(p[5], p[6])


class JointedWorldTest(Calls, harness.ServerTest):
    """UpdateObjectJoints, which only ObjectWorldService has, and the poses
    both services read, on a jointed world: hinge, whose revolute joint
    pivot (about z, at -0.4 m along the door link's x) turns the link door
    about the link post. The model is turned -0.3 rad about z and the door
    0.1 rad more, so the door's world yaw is -0.2 + the joint position."""
    SERVER_ARGS = ("--world", harness.world("shapes_to_joint.sdf"), "--physics", "none")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.connect(cls.channel)

    def set_joint(self, q):
        self.stub.UpdateObjectJoints(self.pb.updates.UpdateObjectJointsRequest(
            world_id=WORLD, object=self.obj("hinge"), joint_positions=[q]), timeout=harness.CALL_SECONDS)

    def joint(self):
        return self.get_object(WORLD, "hinge", self.pb.updates.FULL).kinematic_object_component.joint_positions[0]

    def door_by_transform(self):
        """The door's world pose as GetTransform gives it."""
        p = self.stub.GetTransform(self.m.GetTransformRequest(
            world_id=WORLD, node_a=self.node("root"), node_b=self.node("hinge"),
            node_b_filter=self.pb.refs.ObjectEntityFilter(entity_names=["door"])), timeout=harness.CALL_SECONDS).a_t_b
        return (p.position.x, p.position.y, p.position.z, p.orientation.x, p.orientation.y, p.orientation.z,
                p.orientation.w)

    def pivot(self, door):
        """The joint's origin in the world, from the door's world pose."""
        arm = rotate(door[3:], (-0.4, 0, 0))
        return tuple(door[i] + arm[i] for i in range(3))

    def test_update_object_joints_is_seen_by_get_entity_state_and_get_transform(self):
        self.addCleanup(self.set_joint, 0.0)
        before = self.entity_pose("hinge::door")
        self.assertPoseAlmostEqual(self.door_by_transform(), before)
        self.assertAlmostEqual(yaw(before), -0.2, places=9)
        self.set_joint(0.5)
        after = self.entity_pose("hinge::door")
        # Both services read the same door: turned by the joint about the
        # pivot, which stays where it was, at the same height.
        self.assertPoseAlmostEqual(self.door_by_transform(), after)
        self.assertAlmostEqual(yaw(after), 0.3, places=9)
        for a, b in zip(self.pivot(after), self.pivot(before)):
            self.assertAlmostEqual(a, b, places=9)
        self.assertGreater(math.dist(after[:2], before[:2]), 0.1)
        # The post, on the other side of the joint, did not move.
        self.assertPoseAlmostEqual(self.entity_pose("hinge::post"), (
            0, 1, 0.5, 0, 0, math.sin(-0.15), math.cos(-0.15)))

    def test_set_entity_state_moves_the_jointed_model_and_keeps_its_joint(self):
        self.set_joint(0.4)
        self.addCleanup(self.set_joint, 0.0)
        start = self.entity_pose("hinge")
        self.addCleanup(self.set_entity_state, "hinge", start)
        door = self.entity_pose("hinge::door")
        # The model moved 2 m along x and turned to yaw 0 through
        # simulation_interfaces: ObjectWorldService sees the door carried
        # with it, its joint where it was.
        self.set_entity_state("hinge", (2, 1, 0, 0, 0, 0, 1))
        self.assertAlmostEqual(self.joint(), 0.4, places=12)
        moved = self.door_by_transform()
        self.assertPoseAlmostEqual(moved, self.entity_pose("hinge::door"))
        self.assertAlmostEqual(yaw(moved), yaw(door) + 0.3, places=9)
        # And back the other way: the model put back through
        # ObjectWorldService, the door where it was for GetEntityState.
        self.stub.UpdateTransform(self.pb.updates.UpdateTransformRequest(
            world_id=WORLD, node_a=self.node("root"), node_b=self.node("hinge"),
            a_t_b=self.pose(*start[:3], q=start[3:])), timeout=harness.CALL_SECONDS)
        self.assertPoseAlmostEqual(self.entity_pose("hinge::door"), door)
        self.assertAlmostEqual(self.joint(), 0.4, places=12)


class OneWorldRestartTest(Calls, harness.ServerTest):
    """What either service changed is on disk before it is answered, and a
    PLAYING world's motion is checkpointed every --checkpoint-seconds: a
    server killed with SIGKILL and started again on its --data (without
    --world, so that the stored world comes back) has all of it."""

    @classmethod
    def setUpClass(cls):
        cls.data = tempfile.mkdtemp(prefix="wk_one_world_")
        cls.addClassCleanup(shutil.rmtree, cls.data, True)
        cls.SERVER_ARGS = SERVE_LEVELS + ("--data", cls.data, "--checkpoint-seconds", "1")
        super().setUpClass()
        cls.connect(cls.channel)

    def restart(self):
        code, err = self.server.kill()
        self.assertEqual(code, -9, err)
        cls = type(self)
        cls.server = harness.Server("--data", self.data, "--physics", "none")
        cls.connect(cls.server.channel)

    def test_kill_and_restart_keeps_both_services_changes_and_the_motion(self):
        self.spawn("kept", 1, 2, 3)
        self.create_box(WORLD, "shelf2", x=-2)
        start = self.entity_pose("R3")
        self.set_entity_state("R3", linear=(0, 0, 1))
        self.set_state(harness.STATE_PLAYING)
        time.sleep(2.5)  # two checkpoints at least
        self.restart()
        self.assertTrue({"kept", "shelf2", "R3"} <= self.entities(), self.entities())
        self.assertTrue({"kept", "shelf2"} <= set(self.names(WORLD)))
        self.assertPoseAlmostEqual(self.world_pose("kept"), (1, 2, 3, 0, 0, 0, 1))
        self.assertGreater(self.entity_pose("R3")[2], start[2] + 0.5)
        reply = self.sim.GetSimulationState(self.si.GetSimulationStateRequest(), timeout=harness.CALL_SECONDS)
        self.assertNotEqual(reply.state.state, harness.STATE_PLAYING)


class ShutdownWithAStreamTest(unittest.TestCase):
    """SIGINT with a SimulateSteps stream open: the stream ends at its next
    batch (UNAVAILABLE), and the server exits 0 within a second, not at the
    end of the 30 s grace (it took 32 s)."""

    def test_sigint_ends_an_open_stream(self):
        pb = harness.stubs()
        server = harness.Server("--world", harness.world("levels_one_performer.sdf"))
        stub = pb.si_grpc.SimulationInterfacesStub(server.channel)
        stub.SetSimulationState(pb.si.SetSimulationStateRequest(state=pb.si.SimulationState(
            state=harness.STATE_PAUSED)), timeout=harness.CALL_SECONDS)
        stream = stub.SimulateSteps(pb.si.SimulateStepsGoal(steps=10 ** 9))
        next(stream)
        began = time.monotonic()
        server.proc.send_signal(signal.SIGINT)
        # stop() would send a SIGTERM, a second signal: wait for the first.
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.proc.wait(timeout=harness.STOP_SECONDS)
        took = time.monotonic() - began
        with self.assertRaises(grpc.RpcError) as ended:  # before stop() closes the channel
            for _ in stream:
                pass
        code, err = server.stop()
        self.assertEqual(code, 0, err)
        self.assertLess(took, 1.0, err)
        self.assertEqual(ended.exception.code(), grpc.StatusCode.UNAVAILABLE, ended.exception.details())

class SecondSignalTest(unittest.TestCase):
    """A second SIGINT or SIGTERM during the shutdown ends the process at
    once. A LoadWorld whose request never arrives whole (its client holds
    the request stream open) is a unary call in flight, which the first
    signal's shutdown waits for (up to --shutdown-seconds 20); the second
    signal must end the process within 2 s, with status 1 and a line
    saying why."""

    def hold_a_call(self, server, release):
        load = server.channel.stream_unary("/simulation_interfaces.SimulationInterfaces/LoadWorld",
                                           request_serializer=lambda m: m.SerializeToString(),
                                           response_deserializer=harness.stubs().si.LoadWorldResponse.FromString)

        def never_sent():
            release.wait()
            yield from ()

        return load.future(never_sent(), timeout=60)

    def test_second_signal_exits_at_once(self):
        names = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}
        for first, second in ((signal.SIGINT, signal.SIGINT), (signal.SIGTERM, signal.SIGINT),
                              (signal.SIGINT, signal.SIGTERM)):
            with self.subTest(first=names[first], second=names[second]):
                server = harness.Server("--shutdown-seconds", "20", "--world",
                                        harness.world("levels_one_performer.sdf"))
                release = threading.Event()
                held = self.hold_a_call(server, release)
                try:
                    time.sleep(1)
                    server.proc.send_signal(first)
                    time.sleep(1)
                    self.assertIsNone(server.proc.poll(), "the shutdown did not wait for the call in flight")
                    began = time.monotonic()
                    server.proc.send_signal(second)
                    try:
                        server.proc.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        pass
                    took = time.monotonic() - began
                finally:
                    release.set()
                    held.cancel()
                    code, err = server.stop()
                self.assertEqual(code, 1, err)
                self.assertLess(took, 2, err)
                self.assertIn("second %s: exiting at once" % names[second], err)
