"""test_simulation_interfaces.py — every method of
simulation_interfaces.SimulationInterfaces called through Python stubs
generated from proto/ against `worldkit serve`, with success and failure
cases: the failures of simulation_interfaces travel as result codes in the
response's Result (gRPC status OK), those of the transport as gRPC status
codes.

Each test starts from tests/formats/worlds/frames.sdf loaded afresh
(LoadWorld in setUp): world-level frames table_corner and above_corner,
models arm (links base and upper) and box (a static 1 m cube).
"""
import math
import os
import subprocess
import tempfile
import time

import grpc

from . import harness
from .harness import (needs, OK, NOT_FOUND, INCORRECT_STATE, OPERATION_FAILED, FEATURE_UNSUPPORTED, STATE_STOPPED,
                     STATE_PLAYING, STATE_PAUSED, STATE_NO_WORLD)

SERVICE_NAME = "simulation_interfaces.SimulationInterfaces"
# The methods of simulation_interfaces 2.1.0: its 22 services and the
# SimulateSteps action.
METHODS = ("DeleteEntity", "GetAvailableWorlds", "GetCurrentWorld", "GetEntities", "GetEntitiesStates",
           "GetEntityBounds", "GetEntityInfo", "GetEntityState", "GetNamedPoseBounds", "GetNamedPoses",
           "GetSimulationState", "GetSimulatorFeatures", "GetSpawnables", "LoadWorld", "ResetSimulation",
           "SetEntityInfo", "SetEntityState", "SetSimulationState", "SpawnEntities", "SpawnEntity",
           "StepSimulation", "UnloadWorld", "SimulateSteps")
FRAMES = harness.world("frames.sdf")
CRATE = harness.world("model_only.sdf")
class SimulationInterfacesTest(harness.ServerTest):
    SERVICE = SERVICE_NAME
    SERVER_ARGS = ("--world", FRAMES)

    # Worlds and spawnables found through the resource path: the test worlds
    # and their models.
    SERVER_ENV = {"WORLDKIT_RESOURCE_PATH": os.pathsep.join([harness.WORLDS, os.path.join(harness.WORLDS, "models")])}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.si = cls.pb.si
        cls.stub = cls.pb.si_grpc.SimulationInterfacesStub(cls.channel)
        cls.unserved = harness.probe_unserved(cls.channel, SERVICE_NAME, METHODS, streaming=("SimulateSteps",))

    def setUp(self):
        if "LoadWorld" not in self.unserved:
            self.load(FRAMES)

    # ---- helpers ----

    def load(self, uri, want=OK, culprit=None, ignore_assets=False):
        req = self.si.LoadWorldRequest(uri=uri, ignore_missing_or_unsupported_assets=ignore_assets)
        return self.assertResult(want, self.stub.LoadWorld(req, timeout=harness.CALL_SECONDS), "LoadWorld " + uri,
                                 culprit)

    def state(self):
        reply = self.assertResult(OK, self.stub.GetSimulationState(self.si.GetSimulationStateRequest(),
                                                                   timeout=harness.CALL_SECONDS))
        return reply.state.state

    def set_state(self, state, want=OK, culprit=None):
        req = self.si.SetSimulationStateRequest(state=self.si.SimulationState(state=state))
        return self.assertResult(want, self.stub.SetSimulationState(req, timeout=harness.CALL_SECONDS),
                                 "SetSimulationState %d" % state, culprit)

    def step(self, steps, want=OK, culprit=None):
        return self.assertResult(want, self.stub.StepSimulation(self.si.StepSimulationRequest(steps=steps),
                                                                timeout=harness.CALL_SECONDS), "StepSimulation", culprit)

    def entity_state(self, name, want=OK, culprit=None):
        return self.assertResult(want, self.stub.GetEntityState(self.si.GetEntityStateRequest(entity=name),
                                                                timeout=harness.CALL_SECONDS), "GetEntityState " + name,
                                 culprit)

    def entities(self, regex="", want=OK, culprit=None):
        req = self.si.GetEntitiesRequest(filters=self.si.EntityFilters(filter=regex))
        reply = self.assertResult(want, self.stub.GetEntities(req, timeout=harness.CALL_SECONDS),
                                  "GetEntities %r" % regex, culprit)
        return list(reply.entities)

    def spawn_request(self, name, uri=CRATE, x=0.0):
        pose = self.si.PoseStamped(pose=self.si.Pose(position=self.si.Point(x=x, y=0, z=0)))
        return self.si.SpawnEntityRequest(name=name, entity_resource=self.si.Resource(uri=uri), initial_pose=pose)

    def simulate(self, steps, timeout=harness.CALL_SECONDS):
        """The SimulateSteps stream as a list of SimulateStepsUpdate."""
        return list(self.stub.SimulateSteps(self.si.SimulateStepsGoal(steps=steps), timeout=timeout))

    # ---- the transport ----

    def test_health(self):
        h = self.pb.health.HealthCheckResponse
        self.assertEqual(self.health().status, h.SERVING)
        self.assertEqual(self.health(SERVICE_NAME).status, h.SERVING)
        self.assertStatus(grpc.StatusCode.NOT_FOUND, self.health, "no.such.Service")

    def test_every_method_known(self):
        self.assertEqual(len(METHODS), 23)
        self.assertEqual(set(METHODS), set(self.pb.si.DESCRIPTOR.services_by_name["SimulationInterfaces"]
                                           .methods_by_name))

    @needs("GetEntityState", "GetSimulationState", "GetSimulatorFeatures", "GetCurrentWorld")
    def test_unknown_method_and_garbage(self):
        self.assertStatus(grpc.StatusCode.UNIMPLEMENTED, self.channel.unary_unary("/%s/NoSuchMethod" % SERVICE_NAME), b"")
        # Methods whose request has nothing to get wrong (GetSimulationState,
        # GetSimulatorFeatures, GetCurrentWorld) fail only on a request that
        # does not parse, naming the method.
        for method in ("GetEntityState", "GetSimulationState", "GetSimulatorFeatures", "GetCurrentWorld"):
            self.assertStatus(grpc.StatusCode.INVALID_ARGUMENT, self.channel.unary_unary(
                "/%s/%s" % (SERVICE_NAME, method)), harness.GARBAGE, culprit=method)

    @needs("LoadWorld", "GetSimulationState")
    def test_request_over_size_limit(self):
        # The server's limit is 16 MiB by default; the client sends more.
        big = self.si.LoadWorldRequest(resource_string="x" * (17 << 20))
        self.assertStatus(grpc.StatusCode.RESOURCE_EXHAUSTED, self.stub.LoadWorld, big)
        self.assertEqual(self.state(), STATE_STOPPED)

    @needs("SimulateSteps", "SetSimulationState", "StepSimulation")
    def test_deadline_expires(self):
        self.set_state(STATE_PAUSED)
        # Far more steps than fit in a tenth of a second: the client gives
        # up, the server stops the stream, and serves the next call.
        stream = self.stub.SimulateSteps(self.si.SimulateStepsGoal(steps=10 ** 9), timeout=0.1)
        with self.assertRaises(grpc.RpcError) as caught:
            for _ in stream:
                pass
        self.assertEqual(caught.exception.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
        started = time.monotonic()
        self.assertEqual(self.state(), STATE_PAUSED)
        self.assertLess(time.monotonic() - started, 10, "the server went on stepping for a client gone")
        self.step(1)

    @needs("GetEntityState", "GetEntities")
    def test_concurrent_calls(self):
        def client(k, errors):
            for i in range(20):
                reply = self.stub.GetEntityState(self.si.GetEntityStateRequest(entity="box"),
                                                 timeout=harness.CALL_SECONDS)
                if reply.result.result != OK:
                    errors.append("thread %d call %d: %s" % (k, i, reply.result.error_message))
                names = self.stub.GetEntities(self.si.GetEntitiesRequest(), timeout=harness.CALL_SECONDS)
                if "box" not in names.entities:
                    errors.append("thread %d call %d: entities %s" % (k, i, list(names.entities)))

        self.assertEqual(harness.in_threads(client, 8), [])

    # ---- features ----

    @needs("GetSimulatorFeatures")
    def test_get_simulator_features(self):
        reply = self.stub.GetSimulatorFeatures(self.si.GetSimulatorFeaturesRequest(), timeout=harness.CALL_SECONDS)
        features = set(reply.features.features)
        # SPAWNING, DELETING, ENTITY_STATE_GETTING/SETTING,
        # SIMULATION_STATE_GETTING/SETTING, STEP_SIMULATION_SINGLE/MULTIPLE/ACTION,
        # WORLD_LOADING.
        for f in (0, 1, 10, 11, 24, 25, 31, 32, 33, 40):
            self.assertIn(f, features)
        self.assertIn("sdf", [s.lower() for s in reply.features.spawn_formats])

    # ---- worlds ----

    @needs("LoadWorld", "GetCurrentWorld")
    def test_load_world_every_test_world(self):
        worlds = sorted(n for n in os.listdir(harness.WORLDS) if n.endswith(".sdf"))
        self.assertGreater(len(worlds), 3)
        for name in worlds:
            with self.subTest(world=name):
                # Meshes on a model server are not fetched: refused unless
                # the client lets assets be missing, as a missing local one.
                remote = name == "remote_meshes.sdf"
                if remote:
                    self.load(harness.world(name), harness.LOAD_UNSUPPORTED_ASSETS, "https://fuel")
                self.load(harness.world(name), ignore_assets=remote)
                reply = self.stub.GetCurrentWorld(self.si.GetCurrentWorldRequest(), timeout=harness.CALL_SECONDS)
                self.assertResult(OK, reply)
                self.assertEqual(reply.world.world_resource.uri, harness.world(name))
                self.assertEqual(self.state(), STATE_STOPPED)

    @needs("LoadWorld")
    def test_load_world_failures(self):
        self.assertResult(harness.LOAD_NO_RESOURCE, self.stub.LoadWorld(self.si.LoadWorldRequest(),
                                                                        timeout=harness.CALL_SECONDS), culprit="uri")
        self.load("/no/such/world.sdf", harness.LOAD_RESOURCE_PARSE_ERROR, "/no/such/world.sdf")
        self.assertResult(harness.LOAD_RESOURCE_PARSE_ERROR,
                          self.stub.LoadWorld(self.si.LoadWorldRequest(resource_string="<sdf version='1.9'><world"),
                                              timeout=harness.CALL_SECONDS), culprit="<string>:1")
        config = os.path.join(harness.WORLDS, "models", "shelf", "model.config")
        self.load(config, harness.LOAD_UNSUPPORTED_FORMAT, config)
        # The server reads from its roots (its working folder, which is the
        # build's, the --world file's folder) and the resource path only: a
        # file elsewhere is answered as a missing one, so that a client
        # cannot tell which files exist.
        readme = os.path.join(harness.SOURCE, "README.md")
        there = self.load(readme, harness.LOAD_RESOURCE_PARSE_ERROR, readme).result.error_message
        missing = os.path.join(harness.SOURCE, "no_such_file.sdf")
        absent = self.load(missing, harness.LOAD_RESOURCE_PARSE_ERROR, missing).result.error_message
        self.assertEqual(there.replace(readme, "X"), absent.replace(missing, "X"))
        # A failed load leaves the loaded world as it was.
        self.entity_state("box")

    @needs("LoadWorld", "GetCurrentWorld")
    def test_load_world_from_string(self):
        world = "<sdf version='1.9'><world name='inline'><model name='ball'><link name='l'/></model></world></sdf>"
        reply = self.stub.LoadWorld(self.si.LoadWorldRequest(world_resource=self.si.Resource(resource_string=world)),
                                    timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reply)
        current = self.assertResult(OK, self.stub.GetCurrentWorld(self.si.GetCurrentWorldRequest(),
                                                                  timeout=harness.CALL_SECONDS))
        self.assertEqual(current.world.name, "inline")
        self.entity_state("ball")
        self.entity_state("box", NOT_FOUND)

    @needs("UnloadWorld", "GetCurrentWorld")
    def test_unload_world(self):
        self.assertResult(OK, self.stub.UnloadWorld(self.si.UnloadWorldRequest(), timeout=harness.CALL_SECONDS))
        current = self.stub.GetCurrentWorld(self.si.GetCurrentWorldRequest(), timeout=harness.CALL_SECONDS)
        self.assertResult(harness.NO_WORLD_LOADED, current)
        self.assertResult(harness.NO_WORLD_LOADED,
                          self.stub.UnloadWorld(self.si.UnloadWorldRequest(), timeout=harness.CALL_SECONDS),
                          culprit="no world")
        self.assertEqual(self.state(), STATE_NO_WORLD)
        # Services that need a world say it is missing, naming themselves.
        self.step(1, INCORRECT_STATE, "StepSimulation")
        self.entity_state("box", INCORRECT_STATE, "GetEntityState")
        self.set_state(STATE_PLAYING, INCORRECT_STATE)
        self.assertResult(INCORRECT_STATE, self.stub.GetNamedPoses(self.si.GetNamedPosesRequest(),
                                                                   timeout=harness.CALL_SECONDS),
                          culprit="GetNamedPoses")

    @needs("GetAvailableWorlds")
    def test_get_available_worlds(self):
        reply = self.stub.GetAvailableWorlds(self.si.GetAvailableWorldsRequest(offline_only=True),
                                             timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reply)
        uris = [w.world_resource.uri or w.uri for w in reply.worlds]
        self.assertIn(FRAMES, uris)
        # The worlds listed load.
        frames = [w for w in reply.worlds if (w.world_resource.uri or w.uri) == FRAMES][0]
        self.assertEqual(frames.name, "frames")
        # A source that does not exist fails, unless continue_on_error
        # keeps what the others found.
        bad = self.si.GetAvailableWorldsRequest(additional_sources=["/no/such/folder"])
        self.assertResult(OPERATION_FAILED, self.stub.GetAvailableWorlds(bad, timeout=harness.CALL_SECONDS),
                          culprit="/no/such/folder")
        bad.continue_on_error = True
        reply = self.stub.GetAvailableWorlds(bad, timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reply)
        self.assertIn(FRAMES, [w.world_resource.uri or w.uri for w in reply.worlds])

    @needs("GetSpawnables")
    def test_get_spawnables(self):
        reply = self.stub.GetSpawnables(self.si.GetSpawnablesRequest(), timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reply)
        uris = " ".join(s.entity_resource.uri for s in reply.spawnables)
        self.assertIn("cart", uris)
        self.assertIn("shelf", uris)
        # A source that cannot be searched is named in the message without
        # failing the call (the standard's reading): the others still count.
        bad = self.stub.GetSpawnables(self.si.GetSpawnablesRequest(sources=["/no/such/folder"]),
                                      timeout=harness.CALL_SECONDS)
        self.assertResult(OK, bad, culprit="/no/such/folder")
        self.assertEqual(sorted(s.entity_resource.uri for s in bad.spawnables),
                         sorted(s.entity_resource.uri for s in reply.spawnables))

    # ---- simulation state and stepping ----

    @needs("GetSimulationState", "SetSimulationState")
    def test_simulation_state(self):
        self.assertEqual(self.state(), STATE_STOPPED)
        self.set_state(STATE_PAUSED)
        self.assertEqual(self.state(), STATE_PAUSED)
        self.set_state(STATE_PAUSED, harness.SET_STATE_ALREADY_IN_TARGET_STATE)
        self.set_state(STATE_PLAYING)
        self.assertEqual(self.state(), STATE_PLAYING)
        self.set_state(STATE_NO_WORLD, harness.SET_STATE_INCORRECT_TRANSITION, "state %d" % STATE_NO_WORLD)
        self.set_state(9, harness.SET_STATE_INCORRECT_TRANSITION, "9")
        self.set_state(STATE_STOPPED)
        self.assertEqual(self.state(), STATE_STOPPED)

    @needs("StepSimulation", "SetSimulationState")
    def test_step_simulation(self):
        # Only a paused simulation steps.
        self.step(1, OPERATION_FAILED)
        self.set_state(STATE_PAUSED)
        self.step(1)
        self.step(5)
        self.assertEqual(self.state(), STATE_PAUSED)
        self.set_state(STATE_PLAYING)
        self.step(1, OPERATION_FAILED, "paused")

    @needs("SimulateSteps", "SetSimulationState")
    def test_simulate_steps_stream(self):
        self.set_state(STATE_PAUSED)
        updates = self.simulate(5)
        self.assertEqual(len(updates), 6, updates)
        for i, u in enumerate(updates[:5]):
            self.assertEqual(u.WhichOneof("update"), "feedback")
            self.assertEqual(u.feedback.completed_steps, i + 1)
            self.assertEqual(u.feedback.remaining_steps, 4 - i)
        self.assertEqual(updates[5].WhichOneof("update"), "result")
        self.assertResult(OK, updates[5].result)
        self.assertEqual(self.state(), STATE_PAUSED)
        # Refused while playing: no feedback, a failed result.
        self.set_state(STATE_PLAYING)
        updates = self.simulate(3)
        self.assertEqual([u.WhichOneof("update") for u in updates], ["result"])
        self.assertResult(OPERATION_FAILED, updates[0].result, culprit="paused")

    @needs("ResetSimulation", "SpawnEntities", "GetEntities", "SetSimulationState")
    def test_reset_simulation(self):
        self.set_state(STATE_PAUSED)
        self.step(3)
        spawned = self.stub.SpawnEntities(self.si.SpawnEntitiesRequest(spawn_requests=[self.spawn_request("extra")]),
                                          timeout=harness.CALL_SECONDS)
        self.assertResult(OK, spawned)
        self.assertIn("extra", self.entities())
        reset = self.stub.ResetSimulation(self.si.ResetSimulationRequest(scope=4), timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reset)
        self.assertNotIn("extra", self.entities())
        self.assertIn("box", self.entities())
        self.assertResult(OK, self.stub.ResetSimulation(self.si.ResetSimulationRequest(scope=255),
                                                        timeout=harness.CALL_SECONDS))
        self.assertResult(FEATURE_UNSUPPORTED, self.stub.ResetSimulation(self.si.ResetSimulationRequest(scope=8),
                                                                         timeout=harness.CALL_SECONDS),
                          culprit="scope 8")

    # ---- entities ----

    @needs("SpawnEntities", "SpawnEntity", "GetEntities", "DeleteEntity")
    def test_spawn_get_delete(self):
        req = self.si.SpawnEntitiesRequest(spawn_requests=[self.spawn_request("crate_a", x=1),
                                                           self.spawn_request("crate_b", x=2)])
        reply = self.assertResult(OK, self.stub.SpawnEntities(req, timeout=harness.CALL_SECONDS))
        self.assertEqual([r.entity_name for r in reply.results], ["crate_a", "crate_b"])
        self.assertEqual([r.result.result for r in reply.results], [OK, OK])
        one = self.stub.SpawnEntity(self.spawn_request("crate_c", x=3), timeout=harness.CALL_SECONDS)
        self.assertResult(OK, one)
        self.assertEqual(one.entity_name, "crate_c")
        self.assertEqual(sorted(self.entities("^crate_[ab]$")), ["crate_a", "crate_b"])
        self.assertEqual(sorted(self.entities("^crate_")), ["crate_a", "crate_b", "crate_c"])
        self.assertEqual(self.entities("^nothing_here$"), [])
        self.assertAlmostEqual(self.entity_state("crate_b").state.pose.position.x, 2.0)

        # A taken name: that entry fails, and the call says some did.
        req = self.si.SpawnEntitiesRequest(spawn_requests=[self.spawn_request("crate_a"),
                                                           self.spawn_request("crate_d")])
        reply = self.stub.SpawnEntities(req, timeout=harness.CALL_SECONDS)
        self.assertResult(harness.SPAWN_ENTITIES_FAILED, reply)
        self.assertResult(harness.SPAWN_NAME_NOT_UNIQUE, reply.results[0], culprit="crate_a")
        self.assertResult(harness.SPAWN_NAME_NOT_UNIQUE,
                          self.stub.SpawnEntity(self.spawn_request("crate_c"), timeout=harness.CALL_SECONDS),
                          culprit="crate_c")
        self.assertResult(harness.SPAWN_NO_RESOURCE,
                          self.stub.SpawnEntity(self.si.SpawnEntityRequest(name="nothing"),
                                                timeout=harness.CALL_SECONDS))
        self.assertResult(harness.SPAWN_RESOURCE_PARSE_ERROR,
                          self.stub.SpawnEntity(self.spawn_request("ghost", uri="/no/such/model.sdf"),
                                                timeout=harness.CALL_SECONDS), culprit="/no/such/model.sdf")
        self.assertResult(harness.SPAWN_NAME_INVALID, self.stub.SpawnEntity(self.spawn_request("bad name!"),
                                                                            timeout=harness.CALL_SECONDS),
                          culprit="bad name!")
        self.assertNotIn("ghost", self.entities())

        delete = self.stub.DeleteEntity(self.si.DeleteEntityRequest(entity="crate_a"), timeout=harness.CALL_SECONDS)
        self.assertResult(OK, delete)
        self.assertNotIn("crate_a", self.entities("^crate_"))
        self.assertResult(NOT_FOUND, self.stub.DeleteEntity(self.si.DeleteEntityRequest(entity="crate_a"),
                                                            timeout=harness.CALL_SECONDS), culprit="crate_a")

    @needs("GetEntities", "GetEntitiesStates")
    def test_get_entities_bad_regex(self):
        self.entities("(", OPERATION_FAILED, "'('")
        req = self.si.GetEntitiesStatesRequest(filters=self.si.EntityFilters(filter="a[b"))
        self.assertResult(OPERATION_FAILED, self.stub.GetEntitiesStates(req, timeout=harness.CALL_SECONDS),
                          culprit="'a[b'")

    @needs("GetEntitiesStates")
    def test_get_entities_states(self):
        req = self.si.GetEntitiesStatesRequest(filters=self.si.EntityFilters(filter="^(arm|box)$"))
        reply = self.assertResult(OK, self.stub.GetEntitiesStates(req, timeout=harness.CALL_SECONDS))
        self.assertEqual(sorted(reply.entities), ["arm", "box"])
        self.assertEqual(len(reply.states), 2)
        box = reply.states[list(reply.entities).index("box")]
        self.assertEqual(box.pose, self.entity_state("box").state.pose)

    @needs("GetEntityState", "SetEntityState")
    def test_entity_state_round_trip(self):
        before = self.entity_state("box").state
        # frames.sdf: box sits 1 m along above_corner's x, which is turned
        # 0.3 rad about z at (2, 1, 1.25).
        self.assertAlmostEqual(before.pose.position.x, 2 + math.cos(0.3), places=9)
        self.assertAlmostEqual(before.pose.position.z, 1.25, places=9)
        state = self.si.EntityState(pose=self.si.Pose(position=self.si.Point(x=1, y=2, z=3),
                                                      orientation=self.si.Quaternion(x=0, y=0, z=0.6, w=0.8)),
                                    twist=self.si.Twist(linear=self.si.Vector3(x=0.5)))
        # box is static: a pose may be set, a twist may not.
        req = self.si.SetEntityStateRequest(entity="box", state=state, set_pose=True, set_twist=True)
        self.assertResult(OPERATION_FAILED, self.stub.SetEntityState(req, timeout=harness.CALL_SECONDS))
        self.assertEqual(self.entity_state("box").state.pose, before.pose)
        req.set_twist = False
        self.assertResult(OK, self.stub.SetEntityState(req, timeout=harness.CALL_SECONDS))
        after = self.entity_state("box").state
        self.assertEqual((after.pose.position.x, after.pose.position.y, after.pose.position.z), (1, 2, 3))
        self.assertAlmostEqual(after.pose.orientation.z, 0.6, places=12)
        self.assertAlmostEqual(after.pose.orientation.w, 0.8, places=12)
        # arm is not: it keeps the twist it is given.
        req = self.si.SetEntityStateRequest(entity="arm", state=state, set_pose=True, set_twist=True)
        self.assertResult(OK, self.stub.SetEntityState(req, timeout=harness.CALL_SECONDS))
        arm = self.entity_state("arm").state
        self.assertEqual(arm.pose.position.z, 3)
        self.assertAlmostEqual(arm.twist.linear.x, 0.5, places=12)

        self.entity_state("nobody", NOT_FOUND, "nobody")
        req = self.si.SetEntityStateRequest(entity="nobody", state=state, set_pose=True)
        self.assertResult(NOT_FOUND, self.stub.SetEntityState(req, timeout=harness.CALL_SECONDS), culprit="nobody")
        bad = self.si.EntityState(pose=self.si.Pose(position=self.si.Point(x=float("nan"))))
        req = self.si.SetEntityStateRequest(entity="box", state=bad, set_pose=True)
        self.assertResult(harness.SET_ENTITY_STATE_INVALID_POSE, self.stub.SetEntityState(req,
                                                                                        timeout=harness.CALL_SECONDS),
                          culprit="box")
        self.assertEqual(self.entity_state("box").state.pose.position.x, 1)

    @needs("GetEntityInfo", "SetEntityInfo")
    def test_entity_info_round_trip(self):
        info = self.si.EntityInfo(category=self.si.EntityCategory(category=2), description="a crate", tags=["red", "big"])
        self.assertResult(OK, self.stub.SetEntityInfo(self.si.SetEntityInfoRequest(entity="box", info=info),
                                                      timeout=harness.CALL_SECONDS))
        got = self.assertResult(OK, self.stub.GetEntityInfo(self.si.GetEntityInfoRequest(entity="box"),
                                                            timeout=harness.CALL_SECONDS))
        self.assertEqual(got.info.description, "a crate")
        self.assertEqual(list(got.info.tags), ["red", "big"])
        self.assertEqual(got.info.category.category, 2)
        # Found by tag.
        req = self.si.GetEntitiesRequest(filters=self.si.EntityFilters(tags=self.si.TagsFilter(tags=["red"])))
        self.assertEqual(list(self.assertResult(OK, self.stub.GetEntities(req, timeout=harness.CALL_SECONDS))
                              .entities), ["box"])
        self.assertResult(NOT_FOUND, self.stub.GetEntityInfo(self.si.GetEntityInfoRequest(entity="nobody"),
                                                             timeout=harness.CALL_SECONDS), culprit="nobody")
        self.assertResult(NOT_FOUND, self.stub.SetEntityInfo(self.si.SetEntityInfoRequest(entity="nobody", info=info),
                                                             timeout=harness.CALL_SECONDS), culprit="nobody")

    @needs("GetEntityBounds")
    def test_get_entity_bounds(self):
        reply = self.assertResult(OK, self.stub.GetEntityBounds(self.si.GetEntityBoundsRequest(entity="box"),
                                                                timeout=harness.CALL_SECONDS))
        self.assertEqual(reply.bounds.type, 1)  # TYPE_BOX
        self.assertEqual(len(reply.bounds.points), 2)
        a, b = reply.bounds.points
        # Two opposite corners of a 1 m cube, in the entity's own frame.
        self.assertAlmostEqual(abs(a.x - b.x), 1.0, places=9)
        self.assertAlmostEqual(abs(a.y - b.y), 1.0, places=9)
        self.assertAlmostEqual(abs(a.z - b.z), 1.0, places=9)
        self.assertResult(NOT_FOUND, self.stub.GetEntityBounds(self.si.GetEntityBoundsRequest(entity="nobody"),
                                                               timeout=harness.CALL_SECONDS), culprit="nobody")

    @needs("GetNamedPoses", "GetNamedPoseBounds")
    def test_named_poses(self):
        reply = self.assertResult(OK, self.stub.GetNamedPoses(self.si.GetNamedPosesRequest(),
                                                              timeout=harness.CALL_SECONDS))
        poses = {p.name: p.pose for p in reply.poses}
        self.assertEqual(sorted(poses), ["above_corner", "table_corner"])
        self.assertEqual((poses["table_corner"].position.x, poses["table_corner"].position.y), (2, 1))
        # worldkit keeps no bounds for a pose: TYPE_EMPTY (unbounded).
        bounds = self.stub.GetNamedPoseBounds(self.si.GetNamedPoseBoundsRequest(name="table_corner"),
                                              timeout=harness.CALL_SECONDS)
        self.assertResult(OK, bounds)
        self.assertEqual((bounds.bounds.type, len(bounds.bounds.points)), (0, 0))
        self.assertResult(NOT_FOUND, self.stub.GetNamedPoseBounds(self.si.GetNamedPoseBoundsRequest(name="nowhere"),
                                                                  timeout=harness.CALL_SECONDS), culprit="nowhere")


class MissingAssetsTest(harness.ServerTest):
    """A URDF whose mesh lives in a ROS package that is not on the resource
    path (tests/formats/worlds/arm.urdf, package://arm_description/...):
    `serve --world` refuses it, naming WORLDKIT_RESOURCE_PATH and the
    folders searched; `serve --world --ignore-missing-assets` serves it;
    SpawnEntity refuses it unless its request (worldkit's field
    ignore_missing_or_unsupported_assets, `worldkit spawn
    --ignore-missing-assets`) says to ignore the mesh."""

    ARM = harness.world("arm.urdf")
    SERVER_ARGS = ("--world", ARM, "--ignore-missing-assets")

    @classmethod
    def setUpClass(cls):
        cls.searched = tempfile.mkdtemp(prefix="wk_resources_")
        cls.SERVER_ENV = {"WORLDKIT_RESOURCE_PATH": cls.searched}
        super().setUpClass()
        cls.stub = cls.pb.si_grpc.SimulationInterfacesStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        os.rmdir(cls.searched)

    def assertNamesTheSearch(self, message):
        self.assertIn("package://arm_description/meshes/shoulder.dae", message)
        self.assertIn("not found in %s (WORLDKIT_RESOURCE_PATH), the file's folder" % self.searched, message)

    def test_serve_world_without_the_flag_is_refused(self):
        done = subprocess.run([harness.binary(), "serve", "--listen", "127.0.0.1:0", "--memory", "--world", self.ARM],
                              env=dict(os.environ, WORLDKIT_RESOURCE_PATH=self.searched), capture_output=True,
                              text=True, timeout=harness.START_SECONDS)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertNotIn("serving on", done.stdout)
        self.assertIn("LoadWorld answered %d" % harness.LOAD_MISSING_ASSETS, done.stderr)
        self.assertNamesTheSearch(done.stderr)

    def test_served_with_the_flag(self):
        reply = self.stub.GetEntities(self.pb.si.GetEntitiesRequest(), timeout=harness.CALL_SECONDS)
        self.assertResult(OK, reply)
        self.assertIn("arm", reply.entities)

    def spawn(self, name, ignore):
        req = self.pb.si.SpawnEntityRequest(name=name, entity_resource=self.pb.si.Resource(uri=self.ARM))
        if ignore is not None:
            req.ignore_missing_or_unsupported_assets = ignore
        return self.stub.SpawnEntity(req, timeout=harness.CALL_SECONDS)

    def test_spawn(self):
        for ignore in (None, False):
            reply = self.assertResult(harness.SPAWN_MISSING_ASSETS, self.spawn("arm2", ignore))
            self.assertNamesTheSearch(reply.result.error_message)
        self.assertResult(OK, self.spawn("arm2", True))
        env = dict(os.environ, WORLDKIT_SERVER=self.server.address)
        command = [harness.binary(), "spawn", self.ARM, "--name", "arm3"]
        refused = subprocess.run(command, env=env, capture_output=True, text=True, timeout=harness.CALL_SECONDS)
        self.assertEqual(refused.returncode, 1, refused.stdout + refused.stderr)
        self.assertIn("WORLDKIT_RESOURCE_PATH", refused.stderr)
        spawned = subprocess.run(command + ["--ignore-missing-assets"], env=env, capture_output=True, text=True,
                                 timeout=harness.CALL_SECONDS)
        self.assertEqual(spawned.returncode, 0, spawned.stdout + spawned.stderr)
        reply = self.stub.GetEntities(self.pb.si.GetEntitiesRequest(), timeout=harness.CALL_SECONDS)
        self.assertTrue({"arm2", "arm3"} <= set(reply.entities), reply.entities)
