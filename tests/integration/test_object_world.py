"""test_object_world.py — intrinsic_proto.world.ObjectWorldService called
through Python stubs generated from proto/ against `worldkit serve`:
worlds, objects, frames, transforms, batches of updates, comparison and
sync, collision settings and kinematics, with the gRPC status codes of
failures (NOT_FOUND, ALREADY_EXISTS, INVALID_ARGUMENT, FAILED_PRECONDITION).

Each test builds the worlds it needs with CreateWorld under ids of its own,
so tests do not see each other's changes.
"""
import importlib
import math

import grpc

from . import harness
from .harness import needs

SERVICE_NAME = "intrinsic_proto.world.ObjectWorldService"
ARM = harness.world("attached_frames.sdf")
C = grpc.StatusCode


def quat_z(angle):
    """(x, y, z, w) of a turn by angle about z."""
    return (0.0, 0.0, math.sin(angle / 2), math.cos(angle / 2))


class ObjectWorldCalls:
    """Messages and calls of ObjectWorldService that tests share; a mixin of
    a harness.ServerTest whose setUpClass sets m (the service's messages) and
    stub."""

    # ---- messages ----

    def pose(self, x=0.0, y=0.0, z=0.0, q=(0.0, 0.0, 0.0, 1.0)):
        p = self.pb.pose.Pose()
        p.position.x, p.position.y, p.position.z = x, y, z
        p.orientation.x, p.orientation.y, p.orientation.z, p.orientation.w = q
        return p

    def obj(self, name):
        return self.pb.refs.ObjectReference(by_name=self.pb.refs.ObjectReferenceByName(object_name=name))

    def frame(self, object_name, frame_name):
        return self.pb.refs.FrameReference(
            by_name=self.pb.refs.FrameReferenceByName(object_name=object_name, frame_name=frame_name))

    def node(self, name):
        """The transform node of object name ("root": the root object)."""
        if name == "root":
            return self.pb.refs.TransformNodeReference(id="root")
        return self.pb.refs.TransformNodeReference(by_name=self.pb.refs.TransformNodeReferenceByName(
            object=self.pb.refs.ObjectReferenceByName(object_name=name)))

    def frame_node(self, object_name, frame_name):
        return self.pb.refs.TransformNodeReference(by_name=self.pb.refs.TransformNodeReferenceByName(
            frame=self.pb.refs.FrameReferenceByName(object_name=object_name, frame_name=frame_name)))

    def box_geometry(self, sx, sy, sz, name="box"):
        """A GeometryComponent holding one inline box for collisions."""
        g = self.pb.geometry.GeometryComponent()
        shape = g.named_geometries["Intrinsic_Collision"].named_geometries[name]
        box = shape.geometry.inline_geometry_data.exact_geometry.primitive_set.primitives.add().shape.box
        box.size.x, box.size.y, box.size.z = sx, sy, sz
        return g

    def entity_box(self, entity):
        """The size of the entity's box, or None."""
        for gset in entity.geometry_component.named_geometries.values():
            for tg in gset.named_geometries.values():
                for prim in tg.geometry.inline_geometry_data.exact_geometry.primitive_set.primitives:
                    if prim.shape.HasField("box"):
                        s = prim.shape.box.size
                        return (s.x, s.y, s.z)
        return None

    def box_size(self, obj):
        """The size of the one box among the entities of obj (FULL view)."""
        sizes = [self.entity_box(e) for e in obj.entities.values() if self.entity_box(e)]
        return sizes[0] if sizes else None

    # ---- calls ----

    def new_world(self, world_id):
        reply = self.stub.CreateWorld(self.m.CreateWorldRequest(world=self.m.World(
            world_metadata=self.m.WorldMetadata(id=world_id))), timeout=harness.CALL_SECONDS)
        self.assertEqual(reply.id, world_id)
        self.addCleanup(self.drop_world, world_id)
        return world_id

    def drop_world(self, world_id):
        try:
            self.stub.DeleteWorld(self.m.DeleteWorldRequest(world_id=world_id), timeout=harness.CALL_SECONDS)
        except grpc.RpcError as e:
            if e.code() != C.NOT_FOUND:
                raise

    def create_box(self, world, name, x=0.0, y=0.0, z=0.0, q=(0.0, 0.0, 0.0, 1.0), parent=None, size=(1, 1, 1),
                   timeout=harness.CALL_SECONDS):
        req = self.pb.updates.CreateObjectRequest(world_id=world, name=name,
                                                  parent_object_t_created_object=self.pose(x, y, z, q),
                                                  view=self.pb.updates.FULL)
        req.create_single_entity_object.geometry_component.CopyFrom(self.box_geometry(*size))
        req.create_single_entity_object.entity_local_name = name + "_body"
        if parent:
            req.parent_object.reference.CopyFrom(self.obj(parent))
        return self.stub.CreateObject(req, timeout=timeout)

    def get_object(self, world, name, view=None, timeout=harness.CALL_SECONDS):
        req = self.m.GetObjectRequest(world_id=world, object=self.obj(name),
                                      view=self.pb.updates.BASIC if view is None else view)
        return self.stub.GetObject(req, timeout=timeout)

    def list_objects(self, world, view=None):
        req = self.m.ListObjectsRequest(world_id=world, view=self.pb.updates.BASIC if view is None else view)
        return self.stub.ListObjects(req, timeout=harness.CALL_SECONDS)

    def names(self, world):
        return sorted(o.name for o in self.list_objects(world).objects)

    def transform(self, world, a, b, timeout=harness.CALL_SECONDS):
        """a_t_b as (x, y, z, qx, qy, qz, qw); a and b are TransformNodeReferences."""
        p = self.stub.GetTransform(self.m.GetTransformRequest(world_id=world, node_a=a, node_b=b),
                                   timeout=timeout).a_t_b
        return (p.position.x, p.position.y, p.position.z, p.orientation.x, p.orientation.y, p.orientation.z,
                p.orientation.w)

    def assertPoseAlmostEqual(self, got, want, places=9):
        # q and -q are the same turn.
        sign = -1.0 if sum(g * w for g, w in zip(got[3:], want[3:])) < 0 else 1.0
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertAlmostEqual(g, w * (sign if i >= 3 else 1.0), places=places, msg="%s != %s" % (got, want))

class ObjectWorldTest(ObjectWorldCalls, harness.ServerTest):
    SERVICE = SERVICE_NAME
    # A file's world is served as the world "world": here a robot whose
    # elbow joint makes it a KINEMATIC_OBJECT.
    SERVER_ARGS = ("--world", ARM)

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.m = cls.pb.ows
        cls.stub = cls.pb.ows_grpc.ObjectWorldServiceStub(cls.channel)
        methods = cls.m.DESCRIPTOR.services_by_name["ObjectWorldService"].methods_by_name
        cls.unserved = harness.probe_unserved(cls.channel, SERVICE_NAME, sorted(methods))

    # ---- the service ----

    def test_every_method_known(self):
        methods = self.m.DESCRIPTOR.services_by_name["ObjectWorldService"].methods_by_name
        self.assertEqual(len(methods), 32)

    @needs("ListWorlds")
    def test_health(self):
        self.assertEqual(self.health(SERVICE_NAME).status, self.pb.health.HealthCheckResponse.SERVING)

    # ---- worlds ----

    @needs("CreateWorld", "GetWorld", "ListWorlds", "DeleteWorld")
    def test_create_get_list_delete_world(self):
        w = self.new_world("it_worlds")
        got = self.stub.GetWorld(self.m.GetWorldRequest(world_id=w), timeout=harness.CALL_SECONDS)
        self.assertEqual(got.id, w)
        self.assertTrue(got.world_structure_hash)
        # An id that is taken is used as a prefix.
        again = self.stub.CreateWorld(self.m.CreateWorldRequest(world=self.m.World(
            world_metadata=self.m.WorldMetadata(id=w))), timeout=harness.CALL_SECONDS)
        self.addCleanup(self.drop_world, again.id)
        self.assertNotEqual(again.id, w)
        self.assertTrue(again.id.startswith(w), again.id)
        ids = [m.id for m in self.stub.ListWorlds(self.m.ListWorldsRequest(),
                                                  timeout=harness.CALL_SECONDS).world_metadatas]
        self.assertIn(w, ids)
        self.assertIn(again.id, ids)
        # A new world holds the root object only.
        self.assertEqual(self.names(w), ["root"])

        self.stub.DeleteWorld(self.m.DeleteWorldRequest(world_id=again.id), timeout=harness.CALL_SECONDS)
        self.assertStatus(C.NOT_FOUND, self.stub.GetWorld, self.m.GetWorldRequest(world_id=again.id),
                          culprit=again.id)
        self.assertStatus(C.NOT_FOUND, self.stub.DeleteWorld, self.m.DeleteWorldRequest(world_id=again.id),
                          culprit=again.id)
        self.assertStatus(C.INVALID_ARGUMENT, self.stub.GetWorld, self.m.GetWorldRequest(), culprit="world_id")
        self.assertStatus(C.INVALID_ARGUMENT, self.stub.CreateWorld, self.m.CreateWorldRequest(
            world=self.m.World(world_metadata=self.m.WorldMetadata(id="no spaces!"))), culprit="no spaces!")
        # ListWorlds takes no argument to get wrong: only a request that
        # does not parse fails, naming the message it should have been.
        self.assertStatus(C.INVALID_ARGUMENT, self.channel.unary_unary("/%s/ListWorlds" % SERVICE_NAME),
                          harness.GARBAGE, culprit="ListWorldsRequest")

    @needs("CreateWorld", "CloneWorld", "GetWorld", "CreateObject")
    def test_clone_world(self):
        w = self.new_world("it_clone_src")
        self.create_box(w, "crate", x=1)
        clone = self.stub.CloneWorld(self.m.CloneWorldRequest(world_id=w, cloned_world_id="it_clone_dst",
                                                              user_tag="first"), timeout=harness.CALL_SECONDS)
        self.addCleanup(self.drop_world, "it_clone_dst")
        self.assertEqual(clone.id, "it_clone_dst")
        self.assertEqual(clone.user_tag, "first")
        self.assertEqual(self.names("it_clone_dst"), ["crate", "root"])
        # Same ids in the clone.
        self.assertEqual(self.get_object(w, "crate").id, self.get_object("it_clone_dst", "crate").id)

        # Taken: refused unless allow_overwrite.
        self.create_box(w, "second")
        self.assertStatus(C.ALREADY_EXISTS, self.stub.CloneWorld,
                          self.m.CloneWorldRequest(world_id=w, cloned_world_id="it_clone_dst"), culprit="it_clone_dst")
        self.assertEqual(self.names("it_clone_dst"), ["crate", "root"])
        again = self.stub.CloneWorld(self.m.CloneWorldRequest(world_id=w, cloned_world_id="it_clone_dst",
                                                              allow_overwrite=True), timeout=harness.CALL_SECONDS)
        self.assertEqual(again.id, "it_clone_dst")
        self.assertEqual(self.names("it_clone_dst"), ["crate", "root", "second"])

        # No id: a new one.
        fresh = self.stub.CloneWorld(self.m.CloneWorldRequest(world_id=w), timeout=harness.CALL_SECONDS)
        self.addCleanup(self.drop_world, fresh.id)
        self.assertNotIn(fresh.id, (w, "it_clone_dst", ""))
        self.assertStatus(C.NOT_FOUND, self.stub.CloneWorld,
                          self.m.CloneWorldRequest(world_id="it_no_such_world", cloned_world_id="it_x"),
                          culprit="it_no_such_world")

    @needs("CreateWorld", "SwapWorld", "CreateObject", "ListObjects")
    def test_swap_world(self):
        a = self.new_world("it_swap_a")
        b = self.new_world("it_swap_b")
        self.create_box(a, "only_in_a")
        self.stub.SwapWorld(self.m.SwapWorldRequest(world_id=a, target_world_id=b), timeout=harness.CALL_SECONDS)
        self.assertEqual(self.names(a), ["root"])
        self.assertEqual(self.names(b), ["only_in_a", "root"])
        self.assertStatus(C.NOT_FOUND, self.stub.SwapWorld,
                          self.m.SwapWorldRequest(world_id=a, target_world_id="it_no_such_world"),
                          culprit="it_no_such_world")
        self.assertEqual(self.names(b), ["only_in_a", "root"])

    # ---- objects ----

    @needs("CreateWorld", "CreateObject", "GetObject", "ListObjects")
    def test_create_and_get_object(self):
        w = self.new_world("it_objects")
        created = self.create_box(w, "crate", 1, 2, 3, quat_z(0.5), size=(0.5, 0.25, 2))
        self.assertEqual(created.name, "crate")
        self.assertEqual(created.type, self.m.PHYSICAL_OBJECT)
        self.assertEqual(created.parent.id, "root")
        basic = self.get_object(w, "crate")
        self.assertEqual(basic.id, created.id)
        self.assertEqual(len(basic.entities), 0, "BASIC has no entities")
        full = self.get_object(w, "crate", self.pb.updates.FULL)
        self.assertGreaterEqual(len(full.entities), 1)
        self.assertEqual(self.box_size(full), (0.5, 0.25, 2))
        p = full.object_component.parent_t_this
        self.assertPoseAlmostEqual((p.position.x, p.position.y, p.position.z, p.orientation.x, p.orientation.y,
                                    p.orientation.z, p.orientation.w), (1, 2, 3) + quat_z(0.5))
        # By id and by full path too.
        by_id = self.stub.GetObject(self.m.GetObjectRequest(world_id=w, object=self.pb.refs.ObjectReference(
            id=created.id)), timeout=harness.CALL_SECONDS)
        self.assertEqual(by_id.name, "crate")
        by_path = self.stub.GetObject(self.m.GetObjectRequest(world_id=w, object_full_path=self.m.ObjectFullPath(
            object_names=["crate"])), timeout=harness.CALL_SECONDS)
        self.assertEqual(by_path.id, created.id)
        root = self.get_object(w, "root")
        self.assertEqual(root.type, self.m.ROOT)
        self.assertIn(created.id, [c.id for c in root.children])

        listed = self.list_objects(w, self.pb.updates.FULL).objects
        self.assertEqual(sorted(o.name for o in listed), ["crate", "root"])
        only = self.stub.ListObjects(self.m.ListObjectsRequest(world_id=w, query_objects=[self.obj("crate")]),
                                     timeout=harness.CALL_SECONDS)
        self.assertEqual([o.name for o in only.objects], ["crate"])

        # Failures.
        self.assertStatus(C.ALREADY_EXISTS, self.create_box, w, "crate", culprit="crate")
        self.assertStatus(C.NOT_FOUND, self.create_box, w, "orphan", parent="no_such_parent", culprit="no_such_parent")
        self.assertStatus(C.NOT_FOUND, self.create_box, "it_no_such_world", "crate", culprit="it_no_such_world")
        self.assertStatus(C.INVALID_ARGUMENT, self.create_box, "", "crate", culprit="world_id")
        self.assertStatus(C.NOT_FOUND, self.get_object, w, "no_such_object", culprit="no_such_object")
        self.assertStatus(C.INVALID_ARGUMENT, self.stub.GetObject, self.m.GetObjectRequest(world_id=w),
                          culprit="object")
        self.assertStatus(C.NOT_FOUND, self.stub.ListObjects, self.m.ListObjectsRequest(world_id="it_no_such_world"),
                          culprit="it_no_such_world")
        self.assertEqual(self.names(w), ["crate", "root"])

    @needs("CreateWorld", "CreateObject", "UpdateObjectName", "GetObject")
    def test_update_object_name(self):
        w = self.new_world("it_rename")
        created = self.create_box(w, "a")
        self.create_box(w, "b")
        renamed = self.stub.UpdateObjectName(self.pb.updates.UpdateObjectNameRequest(
            world_id=w, object=self.obj("a"), name="c"), timeout=harness.CALL_SECONDS)
        self.assertEqual((renamed.id, renamed.name), (created.id, "c"))
        self.assertStatus(C.NOT_FOUND, self.get_object, w, "a")
        self.assertStatus(C.ALREADY_EXISTS, self.stub.UpdateObjectName,
                          self.pb.updates.UpdateObjectNameRequest(world_id=w, object=self.obj("c"), name="b"),
                          culprit="'b'")
        self.assertStatus(C.NOT_FOUND, self.stub.UpdateObjectName,
                          self.pb.updates.UpdateObjectNameRequest(world_id=w, object=self.obj("a"), name="d"),
                          culprit="'a'")
        self.assertEqual(self.names(w), ["b", "c", "root"])

    @needs("CreateWorld", "CreateObject", "ReparentObject", "GetTransform")
    def test_reparent_object_keeps_global_pose(self):
        w = self.new_world("it_reparent")
        self.create_box(w, "table", 1, 0, 0.5, quat_z(math.pi / 2))
        self.create_box(w, "cup", 0, 2, 1, quat_z(0.3))
        before = self.transform(w, self.node("root"), self.node("cup"))
        moved = self.stub.ReparentObject(self.pb.updates.ReparentObjectRequest(
            world_id=w, object=self.obj("cup"),
            parent_object=self.pb.refs.ObjectReferenceWithEntityFilter(reference=self.obj("table"))),
            timeout=harness.CALL_SECONDS)
        self.assertEqual(moved.parent.name, "table")
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.node("cup")), before)
        # Seen from the table: (0, 2, 1) - (1, 0, 0.5) turned back by 90°.
        self.assertPoseAlmostEqual(self.transform(w, self.node("table"), self.node("cup")),
                                   (2, 1, 0.5) + quat_z(0.3 - math.pi / 2))
        # A cycle and the root are refused, naming the object; nothing changes.
        self.assertStatus(C.INVALID_ARGUMENT, self.stub.ReparentObject,
                          self.pb.updates.ReparentObjectRequest(
                              world_id=w, object=self.obj("table"),
                              parent_object=self.pb.refs.ObjectReferenceWithEntityFilter(reference=self.obj("cup"))),
                          culprit="'table'")
        self.assertStatus(C.INVALID_ARGUMENT, self.stub.ReparentObject,
                          self.pb.updates.ReparentObjectRequest(
                              world_id=w, object=self.pb.refs.ObjectReference(id="root"),
                              parent_object=self.pb.refs.ObjectReferenceWithEntityFilter(reference=self.obj("cup"))),
                          culprit="root")
        self.assertStatus(C.NOT_FOUND, self.stub.ReparentObject, self.pb.updates.ReparentObjectRequest(
            world_id=w, object=self.obj("cup"),
            parent_object=self.pb.refs.ObjectReferenceWithEntityFilter(reference=self.obj("no_such_object"))),
            culprit="no_such_object")
        self.assertEqual(self.get_object(w, "cup").parent.name, "table")
        self.assertEqual(self.get_object(w, "table").parent.id, "root")

    @needs("CreateWorld", "CreateObject", "DeleteObject", "ListObjects")
    def test_delete_object(self):
        w = self.new_world("it_delete")
        self.create_box(w, "shelf")
        self.create_box(w, "book", z=1, parent="shelf")
        self.create_box(w, "lamp")
        self.stub.DeleteObject(self.pb.updates.DeleteObjectRequest(world_id=w, object=self.obj("lamp")),
                               timeout=harness.CALL_SECONDS)
        self.assertEqual(self.names(w), ["book", "root", "shelf"])
        # Children: only with force.
        self.assertStatus(C.FAILED_PRECONDITION, self.stub.DeleteObject,
                          self.pb.updates.DeleteObjectRequest(world_id=w, object=self.obj("shelf")), culprit="book")
        self.assertEqual(self.names(w), ["book", "root", "shelf"])
        self.stub.DeleteObject(self.pb.updates.DeleteObjectRequest(world_id=w, object=self.obj("shelf"), force=True),
                               timeout=harness.CALL_SECONDS)
        self.assertEqual(self.names(w), ["root"])
        self.assertStatus(C.NOT_FOUND, self.stub.DeleteObject,
                          self.pb.updates.DeleteObjectRequest(world_id=w, object=self.obj("shelf")))
        self.assertStatus((C.INVALID_ARGUMENT, C.FAILED_PRECONDITION), self.stub.DeleteObject,
                          self.pb.updates.DeleteObjectRequest(world_id=w, object=self.pb.refs.ObjectReference(
                              id="root"), force=True))
        self.assertEqual(self.names(w), ["root"])

    @needs("CreateWorld", "CreateObject", "UpdateEntityProperties", "UpdateObjectProperties", "GetObject")
    def test_update_properties(self):
        w = self.new_world("it_properties")
        self.create_box(w, "crate", size=(1, 1, 1))
        req = self.pb.updates.UpdateEntityPropertiesRequest(world_id=w, geometry_component=self.box_geometry(2, 3, 4))
        req.entity.reference.CopyFrom(self.obj("crate"))
        entity = self.stub.UpdateEntityProperties(req, timeout=harness.CALL_SECONDS)
        self.assertTrue(entity.id)
        self.assertEqual(self.box_size(self.get_object(w, "crate", self.pb.updates.FULL)), (2, 3, 4))
        req.entity.reference.CopyFrom(self.obj("no_such_object"))
        self.assertStatus(C.NOT_FOUND, self.stub.UpdateEntityProperties, req, culprit="no_such_object")

        props = self.pb.updates.UpdateObjectPropertiesRequest(world_id=w, object=self.obj("crate"),
                                                              view=self.pb.updates.FULL)
        props.simulation_component.is_static = True
        updated = self.stub.UpdateObjectProperties(props, timeout=harness.CALL_SECONDS)
        self.assertEqual(updated.name, "crate")
        self.assertTrue(updated.object_component.simulation_component.is_static)
        self.assertTrue(self.get_object(w, "crate", self.pb.updates.FULL).object_component.simulation_component
                        .is_static)
        props.object.CopyFrom(self.obj("no_such_object"))
        self.assertStatus(C.NOT_FOUND, self.stub.UpdateObjectProperties, props, culprit="no_such_object")

    # ---- frames ----

    @needs("CreateWorld", "CreateObject", "CreateFrame", "GetFrame", "ListFrames", "UpdateFrameName",
           "ReparentFrame", "UpdateFrameProperties", "DeleteFrame", "GetTransform")
    def test_frames(self):
        w = self.new_world("it_frames")
        self.create_box(w, "robot", x=1)
        self.create_box(w, "table", y=2)
        u = self.pb.updates
        flange = self.stub.CreateFrame(u.CreateFrameRequest(world_id=w, parent_object=self.obj("robot"),
                                                            new_frame_name="flange",
                                                            parent_t_new_frame=self.pose(0, 0, 0.5)),
                                       timeout=harness.CALL_SECONDS)
        self.assertEqual((flange.name, flange.object.name), ("flange", "robot"))
        tip = self.stub.CreateFrame(u.CreateFrameRequest(world_id=w, parent_frame=self.frame("robot", "flange"),
                                                         new_frame_name="tip", parent_t_new_frame=self.pose(0.1, 0, 0)),
                                    timeout=harness.CALL_SECONDS)
        self.assertEqual(tip.parent_frame.name, "flange")
        got = self.stub.GetFrame(self.m.GetFrameRequest(world_id=w, frame=self.frame("robot", "tip")),
                                 timeout=harness.CALL_SECONDS)
        self.assertEqual(got.id, tip.id)
        listed = self.stub.ListFrames(self.m.ListFramesRequest(world_id=w, object=self.obj("robot")),
                                      timeout=harness.CALL_SECONDS)
        self.assertEqual(sorted(f.name for f in listed.frames), ["flange", "tip"])
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.frame_node("robot", "tip")),
                                   (1.1, 0, 0.5, 0, 0, 0, 1))
        self.assertStatus(C.ALREADY_EXISTS, self.stub.CreateFrame,
                          u.CreateFrameRequest(world_id=w, parent_object=self.obj("robot"), new_frame_name="flange",
                                               parent_t_new_frame=self.pose()), culprit="flange")
        self.assertStatus(C.NOT_FOUND, self.stub.CreateFrame,
                          u.CreateFrameRequest(world_id=w, parent_object=self.obj("no_such_object"),
                                               new_frame_name="f", parent_t_new_frame=self.pose()))
        self.assertStatus(C.NOT_FOUND, self.stub.GetFrame,
                          self.m.GetFrameRequest(world_id=w, frame=self.frame("robot", "no_such_frame")),
                          culprit="no_such_frame")
        self.assertStatus(C.NOT_FOUND, self.stub.ListFrames,
                          self.m.ListFramesRequest(world_id=w, object=self.obj("no_such_object")),
                          culprit="no_such_object")

        renamed = self.stub.UpdateFrameName(u.UpdateFrameNameRequest(world_id=w, frame=self.frame("robot", "tip"),
                                                                     name="tcp"), timeout=harness.CALL_SECONDS)
        self.assertEqual((renamed.id, renamed.name), (tip.id, "tcp"))
        self.assertStatus(C.ALREADY_EXISTS, self.stub.UpdateFrameName,
                          u.UpdateFrameNameRequest(world_id=w, frame=self.frame("robot", "tcp"), name="flange"),
                          culprit="flange")
        self.assertStatus(C.NOT_FOUND, self.stub.UpdateFrameName,
                          u.UpdateFrameNameRequest(world_id=w, frame=self.frame("robot", "tip"), name="x"),
                          culprit="tip")
        attach = u.UpdateFramePropertiesRequest(world_id=w, frame=self.frame("robot", "tcp"))
        attach.is_attachment_frame.value = True
        self.assertTrue(self.stub.UpdateFrameProperties(attach, timeout=harness.CALL_SECONDS).is_attachment_frame)
        self.assertTrue(self.stub.GetFrame(self.m.GetFrameRequest(world_id=w, frame=self.frame("robot", "tcp")),
                                           timeout=harness.CALL_SECONDS).is_attachment_frame)
        attach.frame.CopyFrom(self.frame("robot", "no_such_frame"))
        self.assertStatus(C.NOT_FOUND, self.stub.UpdateFrameProperties, attach, culprit="no_such_frame")

        # The frame moves to the table, keeping its pose in the world.
        before = self.transform(w, self.node("root"), self.frame_node("robot", "tcp"))
        moved = self.stub.ReparentFrame(u.ReparentFrameRequest(
            world_id=w, frame=self.frame("robot", "tcp"),
            parent_object=self.pb.refs.ObjectReferenceWithEntityFilter(reference=self.obj("table"))),
            timeout=harness.CALL_SECONDS)
        self.assertEqual(moved.object.name, "table")
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.frame_node("table", "tcp")), before)
        self.assertStatus(C.NOT_FOUND, self.stub.ReparentFrame, u.ReparentFrameRequest(
            world_id=w, frame=self.frame("table", "tcp"),
            parent_object=self.pb.refs.ObjectReferenceWithEntityFilter(reference=self.obj("no_such_object"))),
            culprit="no_such_object")
        self.assertEqual(self.stub.GetFrame(self.m.GetFrameRequest(world_id=w, frame=self.frame("table", "tcp")),
                                            timeout=harness.CALL_SECONDS).object.name, "table")

        # A frame with child frames goes only with force.
        self.stub.CreateFrame(u.CreateFrameRequest(world_id=w, parent_frame=self.frame("robot", "flange"),
                                                   new_frame_name="child", parent_t_new_frame=self.pose()),
                              timeout=harness.CALL_SECONDS)
        self.assertStatus(C.FAILED_PRECONDITION, self.stub.DeleteFrame,
                          u.DeleteFrameRequest(world_id=w, frame=self.frame("robot", "flange")), culprit="flange")
        self.stub.DeleteFrame(u.DeleteFrameRequest(world_id=w, frame=self.frame("robot", "flange"), force=True),
                              timeout=harness.CALL_SECONDS)
        listed = self.stub.ListFrames(self.m.ListFramesRequest(world_id=w, object=self.obj("robot")),
                                      timeout=harness.CALL_SECONDS)
        self.assertEqual(list(listed.frames), [])
        self.assertStatus(C.NOT_FOUND, self.stub.DeleteFrame,
                          u.DeleteFrameRequest(world_id=w, frame=self.frame("robot", "flange")))

    @needs("CreateWorld", "CreateObject", "CreateFrame", "GetTransform")
    def test_create_frame_under_an_object_as_intrinsics_client_does(self):
        # Intrinsic's ObjectWorldClient.create_frame names an object parent
        # in parent_object_with_filter (field 8 of the oneof attach_to, as in
        # Intrinsic's object_world_updates.proto), the root by id, and
        # leaves the filter unset: the frame hangs from the base entity.
        u = self.pb.updates
        field = u.CreateFrameRequest.DESCRIPTOR.fields_by_name["parent_object_with_filter"]
        self.assertEqual((field.number, field.containing_oneof.name), (8, "attach_to"))
        w = self.new_world("it_frames_filter")
        self.create_box(w, "robot", x=1)
        req = u.CreateFrameRequest(world_id=w, new_frame_name="tcp", parent_t_new_frame=self.pose(0, 0, 0.5))
        req.parent_object_with_filter.reference.CopyFrom(self.pb.refs.ObjectReference(id=self.get_object(w, "robot").id))
        tcp = self.stub.CreateFrame(req, timeout=harness.CALL_SECONDS)
        self.assertEqual((tcp.name, tcp.object.name), ("tcp", "robot"))
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.frame_node("robot", "tcp")),
                                   (1, 0, 0.5, 0, 0, 0, 1))
        req = u.CreateFrameRequest(world_id=w, new_frame_name="mark", parent_t_new_frame=self.pose(2, 0, 0))
        req.parent_object_with_filter.reference.id = "root"
        self.assertEqual(self.stub.CreateFrame(req, timeout=harness.CALL_SECONDS).object.name, "root")
        # A filter picks the entity; one that picks none is refused, naming it.
        req = u.CreateFrameRequest(world_id=w, new_frame_name="top")
        req.parent_object_with_filter.reference.CopyFrom(self.obj("robot"))
        req.parent_object_with_filter.entity_filter.include_final_entity = True
        self.assertEqual(self.stub.CreateFrame(req, timeout=harness.CALL_SECONDS).object.name, "robot")
        req.new_frame_name = "side"
        req.parent_object_with_filter.entity_filter.Clear()
        req.parent_object_with_filter.entity_filter.entity_names.append("no_such_entity")
        self.assertStatus(C.NOT_FOUND, self.stub.CreateFrame, req, culprit="no_such_entity")

    # ---- transforms ----

    @needs("CreateWorld", "CreateObject", "GetTransform", "UpdateTransform")
    def test_get_and_update_transform(self):
        w = self.new_world("it_transform")
        self.create_box(w, "a", 1, 0, 0, quat_z(math.pi / 2))
        self.create_box(w, "b", 0, 1, 0, parent="a")
        # b is 1 m along a's y, which is the world's -x.
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.node("b")),
                                   (0, 0, 0) + quat_z(math.pi / 2))
        self.assertPoseAlmostEqual(self.transform(w, self.node("a"), self.node("b")), (0, 1, 0, 0, 0, 0, 1))

        # Between neighbours, the node nearer the end of the chain moves:
        # setting a_t_b moves b (and not a).
        reply = self.stub.UpdateTransform(self.pb.updates.UpdateTransformRequest(
            world_id=w, node_a=self.node("a"), node_b=self.node("b"), a_t_b=self.pose(3, 4, 5)),
            timeout=harness.CALL_SECONDS)
        self.assertEqual(reply.WhichOneof("updated_node"), "object")
        self.assertEqual(reply.object.name, "b")
        self.assertPoseAlmostEqual(self.transform(w, self.node("a"), self.node("b")), (3, 4, 5, 0, 0, 0, 1))
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.node("a")),
                                   (1, 0, 0) + quat_z(math.pi / 2))
        # Between nodes that are not neighbours, the node to move must be
        # named; here a moves so that root_t_b is as given.
        self.assertStatus(C.INVALID_ARGUMENT, self.stub.UpdateTransform, self.pb.updates.UpdateTransformRequest(
            world_id=w, node_a=self.node("root"), node_b=self.node("b"), a_t_b=self.pose(0, 0, 1)), culprit="'b'")
        reply = self.stub.UpdateTransform(self.pb.updates.UpdateTransformRequest(
            world_id=w, node_a=self.node("root"), node_b=self.node("b"), node_to_update=self.node("a"),
            a_t_b=self.pose(0, 0, 1)), timeout=harness.CALL_SECONDS)
        self.assertEqual(reply.object.name, "a")
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.node("b")), (0, 0, 1, 0, 0, 0, 1))
        self.assertPoseAlmostEqual(self.transform(w, self.node("a"), self.node("b")), (3, 4, 5, 0, 0, 0, 1))

        self.assertStatus(C.NOT_FOUND, self.transform, w, self.node("root"), self.node("no_such_object"),
                          culprit="no_such_object")
        self.assertStatus(C.INVALID_ARGUMENT, self.stub.GetTransform,
                          self.m.GetTransformRequest(world_id=w, node_a=self.node("root")))
        self.assertStatus(C.NOT_FOUND, self.stub.UpdateTransform, self.pb.updates.UpdateTransformRequest(
            world_id=w, node_a=self.node("root"), node_b=self.node("no_such_object"), a_t_b=self.pose()),
            culprit="no_such_object")
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.node("b")), (0, 0, 1, 0, 0, 0, 1))

    # ---- batches ----

    @needs("CreateWorld", "CreateObject", "UpdateWorldResources", "ListObjects")
    def test_update_world_resources_is_atomic(self):
        w = self.new_world("it_batch")
        self.create_box(w, "a")
        self.create_box(w, "b", x=2)
        u = self.pb.updates
        before = self.list_objects(w, u.FULL)

        batch = self.m.UpdateWorldResourcesRequest(world_id=w, view=u.FULL)
        batch.world_updates.updates.add().update_object_name.CopyFrom(
            u.UpdateObjectNameRequest(object=self.obj("a"), name="renamed"))
        batch.world_updates.updates.add().update_transform.CopyFrom(
            u.UpdateTransformRequest(node_a=self.node("root"), node_b=self.node("b"), a_t_b=self.pose(9, 9, 9)))
        batch.world_updates.updates.add().delete_object.CopyFrom(
            u.DeleteObjectRequest(object=self.obj("no_such_object")))
        self.assertStatus(C.NOT_FOUND, self.stub.UpdateWorldResources, batch, culprit="no_such_object")
        # Nothing of the batch was applied.
        self.assertEqual(self.list_objects(w, u.FULL), before)

        del batch.world_updates.updates[2]
        reply = self.stub.UpdateWorldResources(batch, timeout=harness.CALL_SECONDS)
        self.assertEqual(sorted(o.name for o in reply.objects), ["b", "renamed", "root"])
        self.assertEqual(self.names(w), ["b", "renamed", "root"])
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.node("b")), (9, 9, 9, 0, 0, 0, 1))

    # ---- comparing and syncing worlds ----

    @needs("CreateWorld", "CreateObject", "CloneWorld", "CompareWorlds", "UpdateTransform")
    def test_compare_worlds(self):
        base = self.new_world("it_compare_base")
        self.create_box(base, "fixed")
        self.create_box(base, "moving")
        self.create_box(base, "doomed")
        self.stub.CloneWorld(self.m.CloneWorldRequest(world_id=base, cloned_world_id="it_compare_changed"),
                             timeout=harness.CALL_SECONDS)
        changed = "it_compare_changed"
        self.addCleanup(self.drop_world, changed)
        same = self.stub.CompareWorlds(self.m.CompareWorldsRequest(base_world_id=base, changed_world_id=changed),
                                       timeout=harness.CALL_SECONDS)
        self.assertEqual((len(same.added), len(same.removed), len(same.modified)), (0, 0, 0))

        added = self.create_box(changed, "new")
        self.stub.UpdateTransform(self.pb.updates.UpdateTransformRequest(
            world_id=changed, node_a=self.node("root"), node_b=self.node("moving"), a_t_b=self.pose(0, 0, 1)),
            timeout=harness.CALL_SECONDS)
        self.stub.DeleteObject(self.pb.updates.DeleteObjectRequest(world_id=changed, object=self.obj("doomed")),
                               timeout=harness.CALL_SECONDS)
        diff = self.stub.CompareWorlds(self.m.CompareWorldsRequest(base_world_id=base, changed_world_id=changed),
                                       timeout=harness.CALL_SECONDS)
        self.assertEqual([r.id for r in diff.added], [added.id])
        self.assertEqual([o.name for o in diff.removed], ["doomed"])
        self.assertEqual([m.object.id for m in diff.modified], [self.get_object(base, "moving").id])
        by_name = self.stub.CompareWorlds(self.m.CompareWorldsRequest(
            base_world_id=base, changed_world_id=changed, unique_id_mode=self.m.CompareWorldsRequest.BY_NAME),
            timeout=harness.CALL_SECONDS)
        self.assertEqual(len(by_name.modified), 1)
        self.assertStatus(C.NOT_FOUND, self.stub.CompareWorlds,
                          self.m.CompareWorldsRequest(base_world_id=base, changed_world_id="it_no_such_world"),
                          culprit="it_no_such_world")

    @needs("CreateWorld", "CreateObject", "CloneWorld", "SyncObject", "UpdateTransform", "GetTransform")
    def test_sync_object(self):
        main = self.new_world("it_sync_main")
        self.create_box(main, "crate")
        self.stub.CloneWorld(self.m.CloneWorldRequest(world_id=main, cloned_world_id="it_sync_branch"),
                             timeout=harness.CALL_SECONDS)
        branch = "it_sync_branch"
        self.addCleanup(self.drop_world, branch)
        self.stub.UpdateTransform(self.pb.updates.UpdateTransformRequest(
            world_id=branch, node_a=self.node("root"), node_b=self.node("crate"), a_t_b=self.pose(5, 0, 0)),
            timeout=harness.CALL_SECONDS)
        self.stub.SyncObject(self.m.SyncObjectRequest(from_world_id=branch, to_world_id=main,
                                                      object=self.obj("crate")), timeout=harness.CALL_SECONDS)
        self.assertPoseAlmostEqual(self.transform(main, self.node("root"), self.node("crate")), (5, 0, 0, 0, 0, 0, 1))
        self.assertStatus(C.NOT_FOUND, self.stub.SyncObject, self.m.SyncObjectRequest(
            from_world_id=branch, to_world_id=main, object=self.obj("no_such_object")), culprit="no_such_object")
        self.assertStatus(C.NOT_FOUND, self.stub.SyncObject, self.m.SyncObjectRequest(
            from_world_id="it_no_such_world", to_world_id=main, object=self.obj("crate")), culprit="it_no_such_world")
        self.assertStatus(C.INVALID_ARGUMENT, self.stub.SyncObject,
                          self.m.SyncObjectRequest(from_world_id=branch, to_world_id=main))
        # A world built apart hands out the same ids: the id of the crate's
        # frame is another object's there, and the sync is refused naming
        # both (the crate's own id is the first object's: that one would
        # be overwritten).
        self.stub.CreateFrame(self.pb.updates.CreateFrameRequest(world_id=main, parent_object=self.obj("crate"),
                                                                 new_frame_name="lid"), timeout=harness.CALL_SECONDS)
        apart = self.new_world("it_sync_apart")
        self.create_box(apart, "first")
        self.create_box(apart, "second")
        error = self.assertStatus(C.FAILED_PRECONDITION, self.stub.SyncObject, self.m.SyncObjectRequest(
            from_world_id=main, to_world_id=apart, object=self.obj("crate")), culprit="'crate'")
        self.assertIn("'second'", error.details())
        self.assertEqual(self.names(apart), ["first", "root", "second"])

    # ---- collisions ----

    @needs("CreateWorld", "CreateObject", "GetCollisionSettings", "UpdateCollisionSettings", "ToggleCollisions")
    def test_collision_settings(self):
        w = self.new_world("it_collisions")
        self.create_box(w, "a")
        self.create_box(w, "b", x=3)
        u = self.pb.updates
        settings = self.pb.collision.CollisionSettings(minimum_margin=0.01)
        rule = settings.collision_rules.add()
        rule.left.add().object.CopyFrom(self.obj("a"))
        rule.right.add().object.CopyFrom(self.obj("b"))
        rule.collision_action.is_excluded = True
        world = self.stub.UpdateCollisionSettings(u.UpdateCollisionSettingsRequest(
            world_id=w, collision_settings=settings), timeout=harness.CALL_SECONDS)
        self.assertAlmostEqual(world.collision_settings.minimum_margin, 0.01)
        got = self.stub.GetCollisionSettings(self.m.GetCollisionSettingsRequest(world_id=w),
                                             timeout=harness.CALL_SECONDS)
        self.assertAlmostEqual(got.minimum_margin, 0.01)
        self.assertEqual(len(got.collision_rules), 1)
        self.assertTrue(got.collision_rules[0].collision_action.is_excluded)

        toggled = self.stub.ToggleCollisions(u.ToggleCollisionsRequest(
            world_id=w, toggle_mode=u.TOGGLE_MODE_ENABLE,
            object_a=self.pb.refs.ObjectReferenceWithEntityFilter(reference=self.obj("a")),
            object_b=self.pb.refs.ObjectReferenceWithEntityFilter(reference=self.obj("b"))),
            timeout=harness.CALL_SECONDS)
        self.assertEqual(sorted(o.name for o in toggled.objects), ["a", "b"])
        self.assertNotEqual(self.stub.GetCollisionSettings(self.m.GetCollisionSettingsRequest(world_id=w),
                                                           timeout=harness.CALL_SECONDS), got)

        bad = self.pb.collision.CollisionSettings()
        bad_rule = bad.collision_rules.add()
        bad_rule.left.add().object.CopyFrom(self.obj("no_such_object"))
        bad_rule.right.add().object.CopyFrom(self.obj("a"))
        bad_rule.collision_action.is_excluded = True
        self.assertStatus(C.NOT_FOUND, self.stub.UpdateCollisionSettings,
                          u.UpdateCollisionSettingsRequest(world_id=w, collision_settings=bad), culprit="no_such_object")
        self.assertStatus(C.NOT_FOUND, self.stub.GetCollisionSettings,
                          self.m.GetCollisionSettingsRequest(world_id="it_no_such_world"), culprit="it_no_such_world")
        before = self.stub.GetCollisionSettings(self.m.GetCollisionSettingsRequest(world_id=w),
                                                timeout=harness.CALL_SECONDS)
        self.assertStatus(C.NOT_FOUND, self.stub.ToggleCollisions, u.ToggleCollisionsRequest(
            world_id=w, toggle_mode=u.TOGGLE_MODE_DISABLE,
            object_a=self.pb.refs.ObjectReferenceWithEntityFilter(reference=self.obj("a")),
            object_b=self.pb.refs.ObjectReferenceWithEntityFilter(reference=self.obj("no_such_object"))),
            culprit="no_such_object")
        self.assertEqual(self.stub.GetCollisionSettings(self.m.GetCollisionSettingsRequest(world_id=w),
                                                        timeout=harness.CALL_SECONDS), before)

    # ---- kinematics ----

    @needs("CreateWorld", "CreateObject", "UpdateObjectJoints", "UpdateKinematicObjectProperties")
    def test_kinematics_refused_on_plain_objects(self):
        w = self.new_world("it_not_kinematic")
        self.create_box(w, "crate")
        u = self.pb.updates
        self.assertStatus(C.FAILED_PRECONDITION, self.stub.UpdateObjectJoints,
                          u.UpdateObjectJointsRequest(world_id=w, object=self.obj("crate"), joint_positions=[0.1]),
                          culprit="crate")
        self.assertStatus(C.FAILED_PRECONDITION, self.stub.UpdateKinematicObjectProperties,
                          u.UpdateKinematicObjectPropertiesRequest(
                              world_id=w, object=self.obj("crate"),
                              named_joint_configurations_to_set=[u.NamedJointConfiguration(name="home",
                                                                                           joint_positions=[0])]),
                          culprit="crate")
        self.assertStatus(C.NOT_FOUND, self.stub.UpdateObjectJoints,
                          u.UpdateObjectJointsRequest(world_id=w, object=self.obj("no_such_object")),
                          culprit="no_such_object")

    @needs("ListWorlds", "ListObjects", "GetObject", "UpdateObjectJoints", "UpdateKinematicObjectProperties",
           "GetTransform")
    def test_kinematics_of_a_loaded_arm(self):
        # The robot of ARM: one revolute elbow (limits -2..2 rad) about z,
        # carrying the forearm and the frame tool attached to it.
        world, obj = self.kinematic_object()
        u = self.pb.updates
        self.assertEqual(obj.name, "robot")
        self.assertEqual(len(obj.kinematic_object_component.joint_entity_ids), 1)
        robot = self.pb.refs.ObjectReference(id=obj.id)
        tool = self.frame_node("robot", "tool")
        base = self.node("robot")
        before = self.transform(world, base, tool)
        # Radians both ways, as Intrinsic's client sends them
        # (ObjectWorldClient.update_joint_positions), whatever the request's
        # comment upstream says: what is written is what GetObject reads.
        moved = self.stub.UpdateObjectJoints(u.UpdateObjectJointsRequest(
            world_id=world, object=robot, joint_positions=[math.pi / 6], view=u.BASIC), timeout=harness.CALL_SECONDS)
        self.assertEqual(moved.name, "robot")
        got = self.get_object(world, "robot", u.FULL).kinematic_object_component
        self.assertEqual(len(got.joint_positions), 1)
        self.assertAlmostEqual(got.joint_positions[0], math.pi / 6, places=12)
        # A joint limit written straight back as a position is within it.
        upper = got.joint_system_limits.max_position.values[0]
        self.stub.UpdateObjectJoints(u.UpdateObjectJointsRequest(world_id=world, object=robot, joint_positions=[upper]),
                                     timeout=harness.CALL_SECONDS)
        self.assertAlmostEqual(self.get_object(world, "robot", u.FULL).kinematic_object_component.joint_positions[0],
                               upper, places=12)
        self.stub.UpdateObjectJoints(u.UpdateObjectJointsRequest(world_id=world, object=robot,
                                                                 joint_positions=[math.pi / 6]),
                                     timeout=harness.CALL_SECONDS)
        after = self.transform(world, base, tool)
        # Turning about the elbow's z keeps the tool's height and its
        # distance from the elbow's axis, and moves it.
        self.assertAlmostEqual(after[2], before[2], places=9)
        self.assertGreater(math.dist(after[:2], before[:2]), 1e-3)

        self.assertStatus(C.INVALID_ARGUMENT, self.stub.UpdateObjectJoints, u.UpdateObjectJointsRequest(
            world_id=world, object=robot, joint_positions=[0.1, 0.2]), culprit="robot")
        self.assertStatus(C.OUT_OF_RANGE, self.stub.UpdateObjectJoints, u.UpdateObjectJointsRequest(
            world_id=world, object=robot, joint_positions=[math.pi]), culprit="elbow")
        self.assertPoseAlmostEqual(self.transform(world, base, tool), after)

        named = self.stub.UpdateKinematicObjectProperties(u.UpdateKinematicObjectPropertiesRequest(
            world_id=world, object=robot, view=u.FULL,
            named_joint_configurations_to_set=[u.NamedJointConfiguration(name="home", joint_positions=[0.25])]),
            timeout=harness.CALL_SECONDS)
        configs = {c.name: list(c.joint_positions) for c in named.kinematic_object_component.named_joint_configurations}
        self.assertEqual(configs.get("home"), [0.25])
        self.assertStatus(C.INVALID_ARGUMENT, self.stub.UpdateKinematicObjectProperties,
                          u.UpdateKinematicObjectPropertiesRequest(
                              world_id=world, object=robot,
                              named_joint_configurations_to_set=[u.NamedJointConfiguration(
                                  name="wrong", joint_positions=[0.0, 0.0])]), culprit="wrong")
        kept = self.get_object(world, "robot", u.FULL).kinematic_object_component
        self.assertEqual([c.name for c in kept.named_joint_configurations], ["home"])

    def kinematic_object(self):
        """(world id, Object in the FULL view) of the first kinematic object
        of any world the server holds."""
        for meta in self.stub.ListWorlds(self.m.ListWorldsRequest(), timeout=harness.CALL_SECONDS).world_metadatas:
            for o in self.list_objects(meta.id, self.pb.updates.FULL).objects:
                if o.type == self.m.KINEMATIC_OBJECT:
                    return meta.id, o
        self.fail("no world of ListWorlds holds a KINEMATIC_OBJECT, though the server serves %s" % ARM)

    @needs("CloneWorld", "GetFrame", "GetTransform", "UpdateTransform")
    def test_world_frames_attached_to_a_model(self):
        # ARM's world-level frames held (attached_to robot) and above_forearm
        # (robot::forearm) are frames of the object robot: moved, the robot
        # carries them along; drop_zone, attached to nothing, stays global.
        self.stub.CloneWorld(self.m.CloneWorldRequest(world_id="world", cloned_world_id="it_world_frames"),
                             timeout=harness.CALL_SECONDS)
        self.addCleanup(self.drop_world, "it_world_frames")
        w, root, robot = "it_world_frames", self.node("root"), self.node("robot")
        for name in ("held", "above_forearm"):
            frame = self.stub.GetFrame(self.m.GetFrameRequest(world_id=w, frame=self.frame("robot", name)),
                                       timeout=harness.CALL_SECONDS)
            self.assertEqual(frame.object.name, "robot")
        attached = [self.frame_node("robot", "held"), self.frame_node("robot", "above_forearm")]
        on_robot = [self.transform(w, robot, f) for f in attached]
        in_world = [self.transform(w, root, f) for f in attached]
        drop_zone = self.transform(w, root, self.frame_node("root", "drop_zone"))
        self.stub.UpdateTransform(self.pb.updates.UpdateTransformRequest(
            world_id=w, node_a=root, node_b=robot, a_t_b=self.pose(-3, 2, 0.5, quat_z(1.4))),
            timeout=harness.CALL_SECONDS)
        for f, robot_t_f, root_t_f in zip(attached, on_robot, in_world):
            self.assertPoseAlmostEqual(self.transform(w, robot, f), robot_t_f)
            self.assertGreater(math.dist(self.transform(w, root, f)[:3], root_t_f[:3]), 1.0)
        self.assertPoseAlmostEqual(self.transform(w, root, self.frame_node("root", "drop_zone")), drop_zone)

    # ---- footprints ----

    @needs("AreFootprintsCompatible", "CreateWorld", "CreateObject")
    def test_are_footprints_compatible(self):
        w = self.new_world("it_footprints")
        self.create_box(w, "crate")
        self.create_box(w, "shelf", x=2)
        nothing = self.stub.AreFootprintsCompatible(self.m.AreFootprintsCompatibleRequest(world_id=w),
                                                    timeout=harness.CALL_SECONDS)
        self.assertEqual(list(nothing.pairs), [])

        sharing = importlib.import_module("intrinsic.skills.proto.footprint_pb2").ObjectWorldReservation

        def reserve(footprint, kind, name):
            footprint.object_reservation.add(type=kind).object.object_name = name

        req = self.m.AreFootprintsCompatibleRequest(world_id=w, return_all_incompatible_pairs=True)
        reserve(req.left_set.add(), sharing.WRITE, "crate")
        reserve(req.right_set.add(), sharing.READ, "crate")
        reserve(req.right_set.add(), sharing.READ, "shelf")
        reply = self.stub.AreFootprintsCompatible(req, timeout=harness.CALL_SECONDS)
        # Writing the crate excludes reading it, not reading the shelf.
        self.assertEqual([(p.left_index, p.right_index) for p in reply.pairs], [(0, 0)])
        self.assertIn("crate", reply.pairs[0].reason.message)

        reserve(req.right_set.add(), sharing.READ, "no_such_object")
        self.assertStatus(C.NOT_FOUND, self.stub.AreFootprintsCompatible, req, culprit="no_such_object")
        req.world_id = "it_no_such_world"
        self.assertStatus(C.NOT_FOUND, self.stub.AreFootprintsCompatible, req, culprit="it_no_such_world")

    # ---- many clients ----

    @needs("CreateWorld", "CreateObject", "ListObjects", "GetTransform")
    def test_concurrent_clients(self):
        worlds = [self.new_world("it_threads_%d" % k) for k in range(4)]
        shared = self.new_world("it_threads_shared")
        def client(k, errors):
            for i in range(10):
                self.create_box(worlds[k], "box_%d" % i, x=i)
                self.create_box(shared, "t%d_box_%d" % (k, i), y=k)
                got = self.transform(worlds[k], self.node("root"), self.node("box_%d" % i))
                if abs(got[0] - i) > 1e-12:
                    errors.append("thread %d: box_%d at %s" % (k, i, got))

        self.assertEqual(harness.in_threads(client, 4), [])
        for w in worlds:
            self.assertEqual(len(self.list_objects(w).objects), 11)
        self.assertEqual(len(self.list_objects(shared).objects), 41)


class HingeWorldTest(ObjectWorldCalls, harness.ServerTest):
    """A server on a world whose kinematic object has visual and collision
    entities: hinge, whose revolute joint pivot turns the link door (a
    visual, a collision and a second visual) about the link post. Each test
    works on a clone of it."""
    SERVICE = SERVICE_NAME
    SERVER_ARGS = ("--world", harness.world("shapes_to_joint.sdf"))

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.m = cls.pb.ows
        cls.stub = cls.pb.ows_grpc.ObjectWorldServiceStub(cls.channel)

    def clone(self, world_id):
        self.stub.CloneWorld(self.m.CloneWorldRequest(world_id="world", cloned_world_id=world_id),
                             timeout=harness.CALL_SECONDS)
        self.addCleanup(self.drop_world, world_id)
        return world_id


class ClientFiltersTest(HingeWorldTest):
    """The entity filters Intrinsic's ObjectWorldClient sends, and the
    features it calls."""

    def with_filter(self, name, **flags):
        return self.pb.refs.ObjectReferenceWithEntityFilter(reference=self.obj(name),
                                                            entity_filter=self.pb.refs.ObjectEntityFilter(**flags))

    def entity_named(self, world, object_name, entity_name):
        obj = self.get_object(world, object_name, self.pb.updates.FULL)
        return next(k for k, e in obj.entities.items() if e.name == entity_name)

    def turn_pivot(self, world, q, object_name="hinge"):
        self.stub.UpdateObjectJoints(self.pb.updates.UpdateObjectJointsRequest(
            world_id=world, object=self.obj(object_name), joint_positions=[q]), timeout=harness.CALL_SECONDS)

    def test_final_entity_is_the_last_link(self):
        # reparent_object_to_final_entity: the door, not one of its visuals
        # or its collision ("3 final entities, not one" before).
        w = self.clone("it_final_entity")
        u = self.pb.updates
        self.create_box(w, "sign", x=2)
        moved = self.stub.ReparentObject(u.ReparentObjectRequest(
            world_id=w, object=self.obj("sign"), parent_object=self.with_filter("hinge", include_final_entity=True),
            view=u.FULL), timeout=harness.CALL_SECONDS)
        self.assertEqual(moved.parent.name, "hinge")
        self.assertEqual(moved.parent_entity.id, self.entity_named(w, "hinge", "door"))
        # The sign rides on the door.
        before = self.transform(w, self.node("root"), self.node("sign"))
        self.turn_pivot(w, 0.5)
        self.assertGreater(math.dist(self.transform(w, self.node("root"), self.node("sign"))[:3], before[:3]), 0.1)
        # GetTransform's node filters pick the same entity.
        door = self.stub.GetTransform(self.m.GetTransformRequest(
            world_id=w, node_a=self.node("root"), node_b=self.node("hinge"),
            node_b_filter=self.pb.refs.ObjectEntityFilter(include_final_entity=True)), timeout=harness.CALL_SECONDS)
        by_name = self.stub.GetTransform(self.m.GetTransformRequest(
            world_id=w, node_a=self.node("root"), node_b=self.node("hinge"),
            node_b_filter=self.pb.refs.ObjectEntityFilter(entity_names=["door"])), timeout=harness.CALL_SECONDS)
        self.assertEqual(door.a_t_b, by_name.a_t_b)

    def test_reparent_frame_to_an_object(self):
        # ObjectWorldClient.reparent_frame(frame, object) hangs the frame
        # from the object's final entity, keeping its world pose.
        w = self.clone("it_reparent_frame_final")
        u = self.pb.updates
        req = u.CreateFrameRequest(world_id=w, new_frame_name="mark", parent_t_new_frame=self.pose(1, 2, 3))
        req.parent_object_with_filter.reference.id = "root"
        self.stub.CreateFrame(req, timeout=harness.CALL_SECONDS)
        moved = self.stub.ReparentFrame(u.ReparentFrameRequest(
            world_id=w, frame=self.frame("root", "mark"), parent_object=self.with_filter("hinge",
                                                                                          include_final_entity=True)),
            timeout=harness.CALL_SECONDS)
        self.assertEqual(moved.object.name, "hinge")
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.frame_node("hinge", "mark")),
                                   (1, 2, 3, 0, 0, 0, 1))
        door_t_mark = self.stub.GetTransform(self.m.GetTransformRequest(
            world_id=w, node_a=self.node("hinge"), node_b=self.frame_node("hinge", "mark"),
            node_a_filter=self.pb.refs.ObjectEntityFilter(entity_names=["door"])), timeout=harness.CALL_SECONDS).a_t_b
        self.turn_pivot(w, -0.7)
        after = self.stub.GetTransform(self.m.GetTransformRequest(
            world_id=w, node_a=self.node("hinge"), node_b=self.frame_node("hinge", "mark"),
            node_a_filter=self.pb.refs.ObjectEntityFilter(entity_names=["door"])), timeout=harness.CALL_SECONDS).a_t_b
        for axis in "xyz":
            self.assertAlmostEqual(getattr(after.position, axis), getattr(door_t_mark.position, axis), places=12)

    def test_toggle_collisions_with_all_entities(self):
        # ObjectWorldClient.disable_collisions' default filters pick every
        # entity, the hinge's frame latch too: frames do not collide and
        # are skipped, where the call was refused before.
        w = self.clone("it_toggle_all")
        u = self.pb.updates
        self.create_box(w, "crate", x=3)
        toggled = self.stub.ToggleCollisions(u.ToggleCollisionsRequest(
            world_id=w, toggle_mode=u.TOGGLE_MODE_DISABLE,
            object_a=self.with_filter("hinge", include_all_entities=True),
            object_b=self.with_filter("crate", include_all_entities=True), view=u.BASIC),
            timeout=harness.CALL_SECONDS)
        self.assertEqual(sorted(o.name for o in toggled.objects), ["crate", "hinge"])
        rules = self.stub.GetCollisionSettings(self.m.GetCollisionSettingsRequest(world_id=w),
                                               timeout=harness.CALL_SECONDS).collision_rules
        self.assertEqual(len(rules), 1)
        self.assertTrue(rules[0].collision_action.is_excluded)

    def test_cartesian_limits_and_payload_are_kept(self):
        # As ObjectWorldClient.update_kinematic_object_cartesian_limits sends
        # them (world_id, object, cartesian_limits and nothing else), and a
        # mounted payload the same way: GetObject's FULL view gives back
        # what was set, a clone keeps it, CompareWorlds sees a change, and a
        # malformed one is refused at once (CreateWorld's snapshot is
        # test_ows_kinematics' cartesian_limits_and_payload).
        w = self.clone("it_cartesian")
        u = self.pb.updates
        cart = importlib.import_module("intrinsic.icon.proto.cart_space_pb2")
        limits = cart.CartesianLimits(min_translational_velocity=[-1, -2, -3], max_translational_velocity=[1, 2, 3],
                                      max_translational_position=[4, float("inf"), 5], max_rotational_velocity=2.0,
                                      max_rotational_jerk=300.0)
        self.stub.UpdateKinematicObjectProperties(
            u.UpdateKinematicObjectPropertiesRequest(world_id=w, object=self.obj("hinge"), cartesian_limits=limits),
            timeout=harness.CALL_SECONDS)
        req = u.UpdateKinematicObjectPropertiesRequest(world_id=w, object=self.obj("hinge"))
        req.mounted_payload.mass_kg = 1.5
        req.mounted_payload.tip_t_cog.CopyFrom(self.pose(z=0.05))
        req.mounted_payload.inertia.rows = req.mounted_payload.inertia.cols = 3
        req.mounted_payload.inertia.values.extend([0.01, 0, 0, 0, 0.02, 0, 0, 0, 0.03])
        self.stub.UpdateKinematicObjectProperties(req, timeout=harness.CALL_SECONDS)
        kept = self.get_object(w, "hinge", view=u.FULL).kinematic_object_component
        self.assertEqual(kept.cartesian_limits, limits)
        self.assertEqual(kept.mounted_payload, req.mounted_payload)
        self.assertFalse(self.get_object(w, "hinge").HasField("kinematic_object_component"))

        self.stub.CloneWorld(self.m.CloneWorldRequest(world_id=w, cloned_world_id="it_cartesian_clone"),
                             timeout=harness.CALL_SECONDS)
        self.addCleanup(self.drop_world, "it_cartesian_clone")
        cloned = self.get_object("it_cartesian_clone", "hinge", view=u.FULL).kinematic_object_component
        self.assertEqual(cloned.mounted_payload, req.mounted_payload)
        req.mounted_payload.mass_kg = 2.0
        req.world_id = "it_cartesian_clone"
        self.stub.UpdateKinematicObjectProperties(req, timeout=harness.CALL_SECONDS)
        diff = self.stub.CompareWorlds(self.m.CompareWorldsRequest(base_world_id=w,
                                                                    changed_world_id="it_cartesian_clone"),
                                       timeout=harness.CALL_SECONDS)
        self.assertEqual([m.object.id for m in diff.modified], [self.get_object(w, "hinge").id])
        self.assertIn("Payload", diff.modified[0].modification)

        bad = u.UpdateKinematicObjectPropertiesRequest(world_id=w, object=self.obj("hinge"))
        bad.cartesian_limits.max_translational_jerk.extend([1.0, 2.0])
        self.assertStatus(C.INVALID_ARGUMENT, self.stub.UpdateKinematicObjectProperties, bad,
                          culprit="cartesian_limits.max_translational_jerk", timeout=1.0)

    def test_create_object_from_scene_object(self):
        # ObjectWorldClient.create_object with a SceneObject: the request as
        # the client builds it (under root's final entity, a global alias,
        # a pose, user data), a base link with a box, a second link and a
        # frame on it, listed child first.
        w = self.clone("it_scene_object")
        u = self.pb.updates
        so_pb = importlib.import_module("intrinsic.scene.proto.v1.scene_object_pb2")
        any_pb = importlib.import_module("google.protobuf.any_pb2")
        wrappers = importlib.import_module("google.protobuf.wrappers_pb2")
        scene = so_pb.SceneObject(name="crate_asset")
        tip = scene.entities.add(name="tip", parent_name="lid", parent_t_this=self.pose(x=0.25))
        tip.frame.is_attachment_frame = True
        lid = scene.entities.add(name="lid", parent_name="body", parent_t_this=self.pose(z=0.5))
        lid.link.geometry_component.CopyFrom(self.box_geometry(0.5, 0.5, 0.1, name="lid"))
        body = scene.entities.add(name="body")
        body.link.geometry_component.CopyFrom(self.box_geometry(1, 2, 3))
        body.link.physics_component.mass_kg = 4.0
        note = any_pb.Any()
        note.Pack(wrappers.StringValue(value="fragile"))
        req = u.CreateObjectRequest(world_id=w, name="crate", name_is_global_alias=True,
                                    parent_object_t_created_object=self.pose(x=2), user_data={"note": note})
        req.parent_object.reference.id = "root"
        req.parent_object.entity_filter.include_final_entity = True
        req.create_from_scene_object.scene_object.CopyFrom(scene)
        self.stub.CreateObject(req, timeout=harness.CALL_SECONDS)
        crate = self.get_object(w, "crate", view=u.FULL)
        self.assertEqual(sorted(e.name for e in crate.entities.values()), ["body", "lid", "tip"])
        self.assertEqual([(f.name, f.is_attachment_frame) for f in crate.frames], [("tip", True)])
        self.assertEqual({e.name: self.entity_box(e) for e in crate.entities.values()},
                         {"body": (1.0, 2.0, 3.0), "lid": (0.5, 0.5, 0.1), "tip": None})
        self.assertIn("note", crate.object_component.user_data)
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.frame_node("crate", "tip")),
                                   (2.25, 0, 0.5, 0, 0, 0, 1))

    def test_create_kinematic_object_from_scene_object(self):
        # A SceneObject's joint makes a KINEMATIC_OBJECT: the base link
        # post, the revolute joint pivot on it (0.5 along x, turned 0.3 rad
        # about z), the link door on the joint and the frame handle on the
        # door, listed child first; the joint takes its raw_value, has no
        # limits, and moves what hangs from it.
        w = self.clone("it_scene_joint")
        u = self.pb.updates
        so_pb = importlib.import_module("intrinsic.scene.proto.v1.scene_object_pb2")
        scene = so_pb.SceneObject(name="gate")
        scene.entities.add(name="handle", parent_name="door").frame.SetInParent()
        scene.entities.add(name="door", parent_name="pivot", parent_t_this=self.pose(x=0.2)).link.SetInParent()
        pivot = scene.entities.add(name="pivot", parent_name="post").joint.kinematics_component
        pivot.motion_type = pivot.MOTION_TYPE_REVOLUTE
        pivot.axis.z = 1.0
        pivot.raw_value = 0.3
        pivot.parent_t_inboard.CopyFrom(self.pose(x=0.5))
        scene.entities.add(name="post").link.SetInParent()
        req = u.CreateObjectRequest(world_id=w, name="gate")
        req.parent_object.reference.id = "root"
        req.create_from_scene_object.scene_object.CopyFrom(scene)
        self.stub.CreateObject(req, timeout=harness.CALL_SECONDS)
        gate = self.get_object(w, "gate", view=u.FULL)
        self.assertEqual(gate.type, self.m.KINEMATIC_OBJECT)
        self.assertEqual(list(gate.kinematic_object_component.joint_positions), [0.3])
        self.assertEqual([gate.entities[i].name for i in gate.kinematic_object_component.joint_entity_ids],
                         ["pivot"])
        self.assertEqual(list(gate.kinematic_object_component.joint_system_limits.max_position.values),
                         [math.inf])
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.frame_node("gate", "handle")),
                                   (0.5 + 0.2 * math.cos(0.3), 0.2 * math.sin(0.3), 0) + quat_z(0.3))
        self.turn_pivot(w, 0.0, "gate")
        self.assertPoseAlmostEqual(self.transform(w, self.node("root"), self.frame_node("gate", "handle")),
                                   (0.7, 0, 0, 0, 0, 0, 1))
        # A fixed joint alone leaves the object physical.
        fixed = u.CreateObjectRequest(world_id=w, name="bracket")
        so = fixed.create_from_scene_object.scene_object
        so.entities.add(name="base").link.SetInParent()
        weld = so.entities.add(name="weld", parent_name="base").joint.kinematics_component
        weld.motion_type = weld.MOTION_TYPE_FIXED
        so.entities.add(name="arm", parent_name="weld", parent_t_this=self.pose(z=1)).link.SetInParent()
        self.stub.CreateObject(fixed, timeout=harness.CALL_SECONDS)
        self.assertEqual(self.get_object(w, "bracket").type, self.m.PHYSICAL_OBJECT)

    def test_unsupported_features_are_not_retried(self):
        # Intrinsic's client retries UNAVAILABLE, UNIMPLEMENTED and
        # RESOURCE_EXHAUSTED for about a minute; what worldkit does not
        # support answers at once, with a code it does not retry and a
        # message naming the feature.
        w = self.clone("it_unsupported")
        u = self.pb.updates
        retried = (C.UNAVAILABLE, C.UNIMPLEMENTED, C.RESOURCE_EXHAUSTED)
        scene = u.CreateObjectRequest(world_id=w, name="from_scene")
        sensor = scene.create_from_scene_object.scene_object.entities.add(name="cam", parent_name="body")
        sensor.sensor.SetInParent()
        joint = scene.create_from_scene_object.scene_object.entities.add(name="j", parent_name="body")
        joint.joint.SetInParent()
        scene.create_from_scene_object.scene_object.entities.add(name="body").link.SetInParent()
        scene.parent_object.reference.id = "root"
        scene.parent_object.entity_filter.include_final_entity = True
        bare_joint = u.CreateObjectRequest(world_id=w, name="from_scene")
        bare_joint.create_from_scene_object.scene_object.entities.add(name="body").link.SetInParent()
        bare_joint.create_from_scene_object.scene_object.entities.add(name="j", parent_name="body").joint.SetInParent()
        sim = u.CreateObjectRequest(world_id=w, name="from_scene")
        sim.create_from_scene_object.scene_object.entities.add(name="body").link.SetInParent()
        sim.create_from_scene_object.scene_object.simulation_spec.SetInParent()
        for call, req, feature in ((self.stub.CreateObject, scene, "scene_object.entities['cam'] is a sensor"),
                                   (self.stub.CreateObject, bare_joint,
                                    "scene_object.entities['j'] is a joint without a kinematics_component"),
                                   (self.stub.CreateObject, sim, "scene_object.simulation_spec")):
            err = self.assertStatus(C.INVALID_ARGUMENT, call, req, culprit=feature, timeout=1.0)
            self.assertNotIn(err.code(), retried)
