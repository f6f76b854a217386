"""test_standard.py — what GetSimulatorFeatures claims, held against what
the server does, and SetSimulationState to QUITTING.

Every constant of simulation_interfaces' msg/SimulatorFeatures has a probe
here that exercises the feature as a client relying on it would; the
server must claim exactly the features whose probes succeed, no more and no
fewer. A client that reads the list to decide what to call then calls only
what works, and finds everything that does.

QUITTING ends the application, as the standard's SimulationState says: the
call is answered OK, then the server shuts down as SIGTERM makes it, and
exits 0.
"""
import os
import time

from . import harness
from .harness import OK, STATE_PAUSED, STATE_PLAYING, STATE_QUITTING

FRAMES = harness.world("frames.sdf")
CRATE = harness.world("model_only.sdf")
CRATE_SDF = "<sdf version='1.9'><model name='crate'><link name='body'/></model></sdf>"

# msg/SimulatorFeatures of simulation_interfaces, every constant by name.
SPEC = {
    "SPAWNING": 0, "DELETING": 1, "NAMED_POSES": 2, "POSE_BOUNDS": 3, "ENTITY_TAGS": 4, "ENTITY_BOUNDS": 5,
    "ENTITY_BOUNDS_BOX": 6, "ENTITY_BOUNDS_CONVEX": 7, "ENTITY_CATEGORIES": 8, "SPAWNING_RESOURCE_STRING": 9,
    "ENTITY_STATE_GETTING": 10, "ENTITY_STATE_SETTING": 11, "ENTITY_INFO_GETTING": 12, "ENTITY_INFO_SETTING": 13,
    "SPAWNABLES": 14, "SIMULATION_RESET": 20, "SIMULATION_RESET_TIME": 21, "SIMULATION_RESET_STATE": 22,
    "SIMULATION_RESET_SPAWNED": 23, "SIMULATION_STATE_GETTING": 24, "SIMULATION_STATE_SETTING": 25,
    "SIMULATION_STATE_PAUSE": 26, "STEP_SIMULATION_SINGLE": 31, "STEP_SIMULATION_MULTIPLE": 32,
    "STEP_SIMULATION_ACTION": 33, "WORLD_LOADING": 40, "WORLD_RESOURCE_STRING": 41, "WORLD_TAGS": 42,
    "WORLD_UNLOADING": 43, "WORLD_INFO_GETTING": 44, "AVAILABLE_WORLDS": 45, "SPAWNING_ENTITIES": 50,
}
# msg/Bounds
BOX, CONVEX_HULL = 1, 2
# ResetSimulation's scopes
SCOPE_TIME, SCOPE_STATE, SCOPE_SPAWNED = 1, 2, 4


class FeaturesTest(harness.ServerTest):
    SERVER_ARGS = ("--world", FRAMES)
    SERVER_ENV = {"WORLDKIT_RESOURCE_PATH": os.pathsep.join([harness.WORLDS, os.path.join(harness.WORLDS, "models")])}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.si = cls.pb.si
        cls.stub = cls.pb.si_grpc.SimulationInterfacesStub(cls.channel)

    def setUp(self):
        self.ok(self.stub.LoadWorld, self.si.LoadWorldRequest(uri=FRAMES))

    def call(self, method, request):
        return method(request, timeout=harness.CALL_SECONDS)

    def ok(self, method, request):
        """The reply, when its Result is OK; None otherwise."""
        reply = self.call(method, request)
        return reply if reply.result.result == OK else None

    def set_state(self, state):
        req = self.si.SetSimulationStateRequest(state=self.si.SimulationState(state=state))
        return self.ok(self.stub.SetSimulationState, req)

    def names(self, **filters):
        reply = self.ok(self.stub.GetEntities, self.si.GetEntitiesRequest(filters=self.si.EntityFilters(**filters)))
        return set(reply.entities) if reply else set()

    def position(self, name):
        reply = self.ok(self.stub.GetEntityState, self.si.GetEntityStateRequest(entity=name))
        return reply.state.pose.position if reply else None

    def stamp(self):
        reply = self.ok(self.stub.GetEntityState, self.si.GetEntityStateRequest(entity="box"))
        return reply.state.header.stamp.sec + reply.state.header.stamp.nanosec * 1e-9

    def spawn(self, name, **resource):
        req = self.si.SpawnEntityRequest(name=name, entity_resource=self.si.Resource(**resource))
        return self.ok(self.stub.SpawnEntity, req) is not None and name in self.names()

    def box_region(self):
        """The corners of a region around the model box (near (2.96, 1.30,
        1.25)), far from the model arm."""
        return [self.si.Vector3(x=x, y=y, z=z) for x in (2.8, 3.2) for y in (1.1, 1.5) for z in (1.0, 1.5)]

    # ---- the probes: each exercises its feature, True when it works ----

    def spawning(self):
        return self.spawn("crate", uri=CRATE)

    def deleting(self):
        return self.ok(self.stub.DeleteEntity, self.si.DeleteEntityRequest(entity="box")) is not None and \
            "box" not in self.names()

    def named_poses(self):
        reply = self.ok(self.stub.GetNamedPoses, self.si.GetNamedPosesRequest())
        return reply is not None and "table_corner" in [p.name for p in reply.poses]

    def pose_bounds(self):
        # Bounds that bound: the empty type is no bounds at all.
        reply = self.ok(self.stub.GetNamedPoseBounds, self.si.GetNamedPoseBoundsRequest(name="table_corner"))
        return reply is not None and reply.bounds.type != 0

    def entity_tags(self):
        info = self.si.EntityInfo(tags=["fragile"])
        if not self.ok(self.stub.SetEntityInfo, self.si.SetEntityInfoRequest(entity="box", info=info)):
            return False
        return self.names(tags=self.si.TagsFilter(tags=["fragile"])) == {"box"}

    def entity_bounds(self):
        reply = self.ok(self.stub.GetEntityBounds, self.si.GetEntityBoundsRequest(entity="box"))
        return reply is not None and len(reply.bounds.points) >= 2

    def entity_bounds_box(self):
        corners = self.box_region()
        bounds = self.si.Bounds(type=BOX, points=[corners[0], corners[-1]])
        return self.names(bounds=bounds) == {"box"}

    def entity_bounds_convex(self):
        return self.names(bounds=self.si.Bounds(type=CONVEX_HULL, points=self.box_region())) == {"box"}

    def entity_categories(self):
        info = self.si.EntityInfo(category=self.si.EntityCategory(category=1))
        if not self.ok(self.stub.SetEntityInfo, self.si.SetEntityInfoRequest(entity="arm", info=info)):
            return False
        return self.names(categories=[self.si.EntityCategory(category=1)]) == {"arm"}

    def spawning_resource_string(self):
        return self.spawn("crate", resource_string=CRATE_SDF)

    def entity_state_getting(self):
        position = self.position("box")
        return position is not None and abs(position.x - 2.96) < 0.1

    def entity_state_setting(self):
        # The arm: box is static, which the standard lets be posed but not moved.
        state = self.si.EntityState(pose=self.si.Pose(position=self.si.Point(x=5, y=6, z=7)))
        req = self.si.SetEntityStateRequest(entity="arm", state=state, set_pose=True)
        if not self.ok(self.stub.SetEntityState, req):
            return False
        return self.position("arm").x == 5

    def entity_info_getting(self):
        return self.ok(self.stub.GetEntityInfo, self.si.GetEntityInfoRequest(entity="box")) is not None

    def entity_info_setting(self):
        info = self.si.EntityInfo(description="a crate")
        if not self.ok(self.stub.SetEntityInfo, self.si.SetEntityInfoRequest(entity="box", info=info)):
            return False
        reply = self.ok(self.stub.GetEntityInfo, self.si.GetEntityInfoRequest(entity="box"))
        return reply.info.description == "a crate"

    def spawnables(self):
        reply = self.ok(self.stub.GetSpawnables, self.si.GetSpawnablesRequest())
        return reply is not None and len(reply.spawnables) > 0

    def reset(self, scope):
        return self.ok(self.stub.ResetSimulation, self.si.ResetSimulationRequest(scope=scope)) is not None

    def simulation_reset(self):
        return self.entity_state_setting() and self.reset(0) and abs(self.position("arm").x - 2.04) < 0.1

    def simulation_reset_time(self):
        return self.set_state(STATE_PAUSED) and self.step(3) and self.stamp() > 0 and self.reset(SCOPE_TIME) and \
            self.stamp() == 0

    def simulation_reset_state(self):
        return self.entity_state_setting() and self.reset(SCOPE_STATE) and abs(self.position("arm").x - 2.04) < 0.1

    def simulation_reset_spawned(self):
        return self.spawning() and self.reset(SCOPE_SPAWNED) and "crate" not in self.names()

    def simulation_state_getting(self):
        return self.ok(self.stub.GetSimulationState, self.si.GetSimulationStateRequest()) is not None

    def simulation_state_setting(self):
        if not self.set_state(STATE_PLAYING):
            return False
        reply = self.ok(self.stub.GetSimulationState, self.si.GetSimulationStateRequest())
        return reply.state.state == STATE_PLAYING

    def simulation_state_pause(self):
        if not self.set_state(STATE_PAUSED):
            return False
        reply = self.ok(self.stub.GetSimulationState, self.si.GetSimulationStateRequest())
        return reply.state.state == STATE_PAUSED

    def step(self, steps):
        return self.ok(self.stub.StepSimulation, self.si.StepSimulationRequest(steps=steps)) is not None

    def step_simulation_single(self):
        return self.set_state(STATE_PAUSED) and self.step(1)

    def step_simulation_multiple(self):
        return self.set_state(STATE_PAUSED) and self.step(5)

    def step_simulation_action(self):
        if not self.set_state(STATE_PAUSED):
            return False
        updates = list(self.stub.SimulateSteps(self.si.SimulateStepsGoal(steps=3), timeout=harness.CALL_SECONDS))
        return len(updates) == 4 and updates[-1].result.result.result == OK

    def world_loading(self):
        return self.ok(self.stub.LoadWorld, self.si.LoadWorldRequest(uri=CRATE)) is not None and \
            "crate" in self.names()

    def world_resource_string(self):
        with open(FRAMES) as f:
            text = f.read()
        return self.ok(self.stub.LoadWorld, self.si.LoadWorldRequest(resource_string=text)) is not None and \
            "box" in self.names()

    def world_tags(self):
        # Tags a world carries, which a filter could then select by.
        reply = self.ok(self.stub.GetAvailableWorlds, self.si.GetAvailableWorldsRequest())
        return reply is not None and any(w.tags for w in reply.worlds)

    def world_unloading(self):
        if not self.ok(self.stub.UnloadWorld, self.si.UnloadWorldRequest()):
            return False
        reply = self.ok(self.stub.GetSimulationState, self.si.GetSimulationStateRequest())
        return reply.state.state == harness.STATE_NO_WORLD

    def world_info_getting(self):
        reply = self.ok(self.stub.GetCurrentWorld, self.si.GetCurrentWorldRequest())
        return reply is not None and FRAMES in (reply.world.uri, reply.world.world_resource.uri)

    def available_worlds(self):
        reply = self.ok(self.stub.GetAvailableWorlds, self.si.GetAvailableWorldsRequest())
        return reply is not None and any(u.endswith("/frames.sdf") for w in reply.worlds
                                         for u in (w.uri, w.world_resource.uri))

    def spawning_entities(self):
        entries = [self.si.SpawnEntityRequest(name=n, entity_resource=self.si.Resource(resource_string=CRATE_SDF))
                   for n in ("c1", "c2")]
        reply = self.ok(self.stub.SpawnEntities, self.si.SpawnEntitiesRequest(spawn_requests=entries))
        return reply is not None and {"c1", "c2"} <= self.names()

    # ---- the tests ----

    def test_every_constant_has_a_probe(self):
        for name in SPEC:
            self.assertTrue(hasattr(self, name.lower()), "no probe for " + name)

    def test_claims_exactly_what_works(self):
        reply = self.call(self.stub.GetSimulatorFeatures, self.si.GetSimulatorFeaturesRequest())
        claimed = set(reply.features.features)
        self.assertLessEqual(claimed, set(SPEC.values()), "features the standard does not define")
        for name, number in SPEC.items():
            with self.subTest(feature=name):
                self.setUp()
                works = bool(getattr(self, name.lower())())
                if number in claimed:
                    self.assertTrue(works, "%s (%d) is claimed but does not work" % (name, number))
                else:
                    self.assertFalse(works, "%s (%d) works but is not claimed" % (name, number))


class QuittingTest(harness.ServerTest):
    SERVER_ARGS = ("--world", FRAMES)

    def test_quitting_shuts_the_server_down(self):
        si = self.pb.si
        stub = self.pb.si_grpc.SimulationInterfacesStub(self.channel)
        playing = si.SetSimulationStateRequest(state=si.SimulationState(state=STATE_PLAYING))
        self.assertResult(OK, stub.SetSimulationState(playing, timeout=harness.CALL_SECONDS))
        quit_ = si.SetSimulationStateRequest(state=si.SimulationState(state=STATE_QUITTING))
        self.assertResult(OK, stub.SetSimulationState(quit_, timeout=harness.CALL_SECONDS))
        end = time.monotonic() + harness.STOP_SECONDS
        while self.server.proc.poll() is None and time.monotonic() < end:
            time.sleep(0.05)
        self.assertEqual(self.server.proc.poll(), 0, "the server did not exit 0 after QUITTING:\n" +
                         self.server.stderr())
        self.assertIn("SetSimulationState QUITTING: finishing the calls in flight", self.server.stderr())
