"""The requests Intrinsic's ObjectWorldClient builds
(intrinsic/world/python/object_world_client.py), checked field by field
against the numbers of Intrinsic's published protos, and sent to a server in
the client's shapes one after another, as a session of the client would.

INTRINSIC holds, for every message the client fills in, the field numbers of
Intrinsic's own .proto files (object_world_service.proto,
object_world_updates.proto, cart_space.proto, robot_payload.proto,
scene_object.proto, entity.proto, geometry_service.proto,
geometry_service_types.proto, geometry.proto, lazy_exact_geometry.proto,
primitives.proto, renderable.proto, triangle_mesh.proto and
geometry_storage_refs.proto, v0 and v1), copied
by hand from them. Our proto2 copies
must give every field we declare the same number and kind, and may leave a
field out only where LEFT_OUT says so."""

import importlib
import unittest

from google.protobuf import descriptor_pool

from . import harness
from .test_object_world import HingeWorldTest

INTRINSIC = {
    "intrinsic_proto.world.ListObjectsRequest": {"world_id": 1, "query_objects": 2, "view": 3},
    "intrinsic_proto.world.GetObjectRequest": {"world_id": 1, "object": 2, "resource_handle_name": 4,
                                               "object_full_path": 5, "view": 3},
    "intrinsic_proto.world.GetFrameRequest": {"world_id": 1, "frame": 2},
    "intrinsic_proto.world.GetTransformRequest": {"world_id": 1, "node_a": 2, "node_b": 3, "node_a_filter": 4,
                                                  "node_b_filter": 5},
    "intrinsic_proto.world.CloneWorldRequest": {"world_id": 1, "cloned_world_id": 5, "allow_overwrite": 6,
                                                "user_tag": 7},
    "intrinsic_proto.world.UpdateWorldResourcesRequest": {"world_id": 3, "world_updates": 1, "view": 2},
    "intrinsic_proto.world.CreateObjectRequest": {"world_id": 1, "name": 2, "name_is_global_alias": 9,
                                                  "parent_object": 3, "parent_object_t_created_object": 4,
                                                  "action_for_object_entities": 11,
                                                  "create_single_entity_object": 5, "create_from_scene_object": 12,
                                                  "user_data": 13, "view": 7},
    "intrinsic_proto.world.ObjectSpecForSingleEntityObject": {"entity_local_name": 4, "geometry_component": 3},
    "intrinsic_proto.world.ObjectSpecFromSceneObject": {"scene_object": 1, "user_data": 2},
    "intrinsic_proto.world.DeleteObjectRequest": {"world_id": 1, "object": 2, "force": 3,
                                                  "reparent_child_objects": 4},
    "intrinsic_proto.world.UpdateObjectNameRequest": {"world_id": 1, "object": 2, "name": 3,
                                                      "name_is_global_alias": 5, "view": 4},
    "intrinsic_proto.world.ReparentObjectRequest": {"world_id": 1, "object": 2, "new_parent": 3,
                                                    "parent_object": 5, "parent_frame": 6, "view": 4},
    "intrinsic_proto.world.ToggleCollisionsRequest": {"world_id": 1, "toggle_mode": 2, "object_a": 3,
                                                      "object_b": 5, "view": 8},
    "intrinsic_proto.world.UpdateObjectJointsRequest": {"world_id": 1, "object": 2, "joint_positions": 3,
                                                        "joint_names": 7, "joint_application_limits": 4,
                                                        "joint_system_limits": 5, "view": 6},
    "intrinsic_proto.world.UpdateKinematicObjectPropertiesRequest": {
        "world_id": 1, "object": 2, "named_joint_configurations_to_remove": 3,
        "named_joint_configurations_to_set": 4, "cartesian_limits": 5, "mounted_payload": 8,
        "robot_kinematics_update": 9, "view": 7},
    "intrinsic_proto.world.NamedJointConfiguration": {"name": 1, "joint_positions": 2},
    "intrinsic_proto.world.CreateFrameRequest": {"world_id": 1, "parent_object": 2, "parent_frame": 3,
                                                 "parent_object_with_filter": 8, "new_frame_name": 4,
                                                 "parent_t_new_frame": 5, "designate_as_attachment_frame": 6},
    "intrinsic_proto.world.DeleteFrameRequest": {"world_id": 1, "frame": 2, "force": 3},
    "intrinsic_proto.world.UpdateFrameNameRequest": {"world_id": 1, "frame": 2, "name": 3},
    "intrinsic_proto.world.ReparentFrameRequest": {"world_id": 1, "frame": 2, "parent_object": 3,
                                                   "parent_frame": 4},
    "intrinsic_proto.world.UpdateTransformRequest": {"world_id": 1, "node_a": 2, "node_a_filter": 7, "node_b": 3,
                                                     "node_b_filter": 8, "node_to_update": 4, "a_t_b": 5, "view": 6},
    "intrinsic_proto.world.ObjectWorldUpdate": {
        "delete_object": 11, "update_object_name": 1, "update_object_joints": 2, "update_object_joint": 19,
        "update_kinematic_object_properties": 18, "update_object_properties": 13, "update_entity_properties": 14,
        "update_collision_settings": 15, "create_frame": 7, "delete_frame": 8, "update_frame_name": 3,
        "reparent_frame": 12, "update_frame_properties": 17, "update_transform": 4, "reparent_object": 5,
        "toggle_collisions": 6},
    "intrinsic_proto.world.ObjectWorldUpdates": {"updates": 1},
    "intrinsic_proto.world.RobotPayload": {"mass_kg": 1, "tip_t_cog": 2, "inertia": 3},
    "intrinsic_proto.icon.CartesianLimits": {
        "min_translational_position": 7, "max_translational_position": 8, "min_translational_velocity": 1,
        "max_translational_velocity": 2, "min_translational_acceleration": 3, "max_translational_acceleration": 4,
        "min_translational_jerk": 5, "max_translational_jerk": 6, "max_rotational_velocity": 9,
        "max_rotational_acceleration": 10, "max_rotational_jerk": 11},
    "intrinsic_proto.scene_object.v1.SceneObject": {"name": 2, "properties": 3, "entities": 4,
                                                    "simulation_spec": 5, "collision_rules": 6, "user_data": 7},
    "intrinsic_proto.scene_object.v1.Entity": {"name": 1, "parent_name": 2, "parent_t_this": 3, "frame": 4,
                                               "link": 5, "joint": 6, "sensor": 7},
    "intrinsic_proto.scene_object.v1.Link": {"geometry_component": 1, "physics_component": 2},
    "intrinsic_proto.scene_object.v1.Frame": {"is_attachment_frame": 1},
    "intrinsic_proto.geometry.CreateGeometryRequest": {"data": 1},
    # geometry_service.proto and geometry_service_types.proto as published
    # with the v1 refs (commit dacbab4): the older messages renamed *_v0.
    "intrinsic_proto.geometry.GeometryData": {"geometry_v0": 1, "inline_geometry": 9, "primitive_set_v0": 4,
                                              "primitive_set": 8, "obj_data": 2, "gltf_bytes": 3, "stl_bytes": 5},
    "intrinsic_proto.geometry.GeometryWithMetadata": {"geometry_storage_refs_v0": 3, "geometry_storage_refs": 4,
                                                      "geometry_v0": 2, "inline_geometry": 5},
    "intrinsic_proto.geometry.GetGeometryRequest": {"geometry_storage_refs_v0": 2, "geometry_storage_refs": 3},
    "intrinsic_proto.geometry.GetRenderableRequest": {"geometry_storage_refs_v0": 3, "geometry_storage_refs": 4,
                                                      "lod_level": 2},
    "intrinsic_proto.geometry.RenderableWithMetadata": {"geometry_storage_refs_v0": 4, "geometry_storage_refs": 5,
                                                        "lod_level": 2, "renderable_v0": 3, "renderable": 6},
    "intrinsic_proto.geometry.v1.GeometryStorageRefs": {"exact_geometry_ref": 1, "renderable_ref": 2,
                                                        "keep_renderable": 3},
    "intrinsic_proto.geometry.v1.Renderable": {"glb_bytes": 1},
    "intrinsic_proto.geometry.TriangleMesh": {"vertices": 3, "faces": 6},
    "intrinsic_proto.geometry.GeometryStorageRefs": {"fingerprint": 1, "geometry_ref": 2, "renderable_ref": 3},
    "intrinsic_proto.geometry.Geometry": {"exact_geometry": 4, "renderable": 2, "generated_renderable": 3},
    "intrinsic_proto.geometry.Renderable": {"gltf_string": 1},
    "intrinsic_proto.geometry.LazyExactGeometry": {"triangle_mesh": 6, "mesh_octree_wrapping": 4,
                                                   "primitive_set": 5},
    "intrinsic_proto.geometry.PrimitiveShapeSet": {"primitives": 1},
    "intrinsic_proto.geometry.PrimitiveShape": {"box": 1, "cylinder": 2, "sphere": 3, "ellipsoid": 4, "capsule": 5,
                                                "frustum": 6},
    "intrinsic_proto.geometry.Box": {"size": 1},
    "intrinsic_proto.geometry.Cylinder": {"length": 1, "radius": 2},
    "intrinsic_proto.geometry.Sphere": {"radius": 1},
    "intrinsic_proto.geometry.Ellipsoid": {"radii": 1},
    "intrinsic_proto.geometry.Capsule": {"length": 1, "radius": 2},
    "intrinsic_proto.geometry.Frustum": {"x_angle": 1, "y_angle": 2, "min_z_distance": 3, "max_z_distance": 4},
}

# What our copies leave out on purpose (worldkit reads none of it; the
# bytes a peer sends for it are kept as unknown fields).
LEFT_OUT = {
    ("intrinsic_proto.geometry.LazyExactGeometry", "mesh_octree_wrapping"),
}


def top_level_numbers(data):
    """The field numbers of a serialized message's top level, in order."""
    numbers, i = [], 0

    def varint():
        nonlocal i
        value, shift = 0, 0
        while True:
            b = data[i]
            i += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return value

    while i < len(data):
        key = varint()
        numbers.append(key >> 3)
        wire = key & 7
        if wire == 0:
            varint()
        elif wire == 1:
            i += 8
        elif wire == 2:
            length = varint()  # read before i moves past the payload
            i += length
        elif wire == 5:
            i += 4
        else:
            raise ValueError("wire type %d" % wire)
    return numbers


class ClientRequestsTest(HingeWorldTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for module in ("intrinsic.geometry.proto.geometry_service_pb2", "intrinsic.icon.proto.cart_space_pb2",
                       "intrinsic.scene.proto.v1.scene_object_pb2", "intrinsic.world.proto.robot_payload_pb2"):
            importlib.import_module(module)

    def descriptor_of(self, full_name):
        return descriptor_pool.Default().FindMessageTypeByName(full_name)

    def test_field_numbers_are_intrinsics(self):
        for message, fields in INTRINSIC.items():
            ours = self.descriptor_of(message)
            for name, number in fields.items():
                field = ours.fields_by_name.get(name)
                if (message, name) in LEFT_OUT:
                    self.assertIsNone(field, "%s.%s is declared but listed as left out" % (message, name))
                    continue
                self.assertIsNotNone(field, "%s has no field %s" % (message, name))
                self.assertEqual(field.number, number, "%s.%s" % (message, name))
            # Nothing of ours where Intrinsic has nothing.
            for field in ours.fields:
                self.assertIn(field.name, fields, "%s.%s is not Intrinsic's" % (message, field.name))

    def check_wire(self, request):
        """The request's top-level numbers are those Intrinsic gives its
        fields."""
        allowed = set(INTRINSIC[request.DESCRIPTOR.full_name].values())
        numbers = top_level_numbers(request.SerializeToString())
        self.assertTrue(numbers, request.DESCRIPTOR.full_name)
        self.assertLessEqual(set(numbers), allowed, request.DESCRIPTOR.full_name)
        return request

    def test_a_session_in_the_clients_shapes(self):
        # Each request as ObjectWorldClient builds it, in the order a user
        # of the client might call them, on a clone of the world.
        w = self.clone("it_client_session")
        u, refs = self.pb.updates, self.pb.refs
        geometry = self.box_geometry(0.2, 0.2, 0.2)
        create = u.CreateObjectRequest(world_id=w, name="crate", name_is_global_alias=True,
                                       parent_object_t_created_object=self.pose(x=1), user_data=None)
        create.parent_object.reference.id = "root"
        create.parent_object.entity_filter.include_final_entity = True
        create.create_single_entity_object.geometry_component.CopyFrom(geometry)
        self.stub.CreateObject(self.check_wire(create), timeout=harness.CALL_SECONDS)

        crate = self.stub.GetObject(self.check_wire(self.m.GetObjectRequest(
            world_id=w, object=self.obj("crate"), view=u.FULL)), timeout=harness.CALL_SECONDS)
        frame_req = u.CreateFrameRequest(world_id=w, new_frame_name="grip", parent_t_new_frame=self.pose(z=0.1))
        frame_req.parent_object_with_filter.reference.id = crate.id
        frame = self.stub.CreateFrame(self.check_wire(frame_req), timeout=harness.CALL_SECONDS)
        self.stub.UpdateFrameName(self.check_wire(u.UpdateFrameNameRequest(
            world_id=w, frame=refs.FrameReference(id=frame.id), name="grasp")), timeout=harness.CALL_SECONDS)
        got = self.stub.GetFrame(self.check_wire(self.m.GetFrameRequest(
            world_id=w, frame=self.frame("crate", "grasp"))), timeout=harness.CALL_SECONDS)
        self.assertEqual(got.id, frame.id)

        self.stub.UpdateTransform(self.check_wire(u.UpdateTransformRequest(
            world_id=w, node_a=self.node("root"), node_b=self.node("crate"), a_t_b=self.pose(x=2),
            view=u.BASIC)), timeout=harness.CALL_SECONDS)
        a_t_b = self.stub.GetTransform(self.check_wire(self.m.GetTransformRequest(
            world_id=w, node_a=self.node("root"), node_b=self.frame_node("crate", "grasp"))),
            timeout=harness.CALL_SECONDS).a_t_b
        self.assertAlmostEqual(a_t_b.position.x, 2.0)
        self.assertAlmostEqual(a_t_b.position.z, 0.1)

        self.stub.UpdateObjectName(self.check_wire(u.UpdateObjectNameRequest(
            world_id=w, object=refs.ObjectReference(id=crate.id), name="box", view=u.BASIC,
            name_is_global_alias=True)), timeout=harness.CALL_SECONDS)
        hinge = self.get_object(w, "hinge")
        reparent = u.ReparentObjectRequest(world_id=w, object=refs.ObjectReference(id=crate.id))
        reparent.parent_object.CopyFrom(refs.ObjectReferenceWithEntityFilter(
            reference=refs.ObjectReference(id=hinge.id),
            entity_filter=refs.ObjectEntityFilter(include_final_entity=True)))
        self.stub.ReparentObject(self.check_wire(reparent), timeout=harness.CALL_SECONDS)
        self.assertEqual(self.get_object(w, "box").parent.id, hinge.id)

        all_entities = refs.ObjectEntityFilter(include_all_entities=True)
        self.stub.ToggleCollisions(self.check_wire(u.ToggleCollisionsRequest(
            world_id=w, toggle_mode=u.TOGGLE_MODE_DISABLE,
            object_a=refs.ObjectReferenceWithEntityFilter(reference=refs.ObjectReference(id=crate.id),
                                                          entity_filter=all_entities),
            object_b=refs.ObjectReferenceWithEntityFilter(reference=refs.ObjectReference(id=hinge.id),
                                                          entity_filter=all_entities),
            view=u.BASIC)), timeout=harness.CALL_SECONDS)

        self.stub.UpdateObjectJoints(self.check_wire(u.UpdateObjectJointsRequest(
            world_id=w, object=refs.ObjectReference(id=hinge.id), joint_positions=[0.5], joint_names=[],
            view=u.BASIC)), timeout=harness.CALL_SECONDS)
        configs = u.UpdateKinematicObjectPropertiesRequest(
            world_id=w, object=refs.ObjectReference(id=hinge.id), named_joint_configurations_to_remove=[],
            named_joint_configurations_to_set=[u.NamedJointConfiguration(name="open", joint_positions=[1.0])])
        self.stub.UpdateKinematicObjectProperties(self.check_wire(configs), timeout=harness.CALL_SECONDS)

        batch = u.ObjectWorldUpdates()
        batch.updates.add().delete_frame.CopyFrom(u.DeleteFrameRequest(frame=refs.FrameReference(id=frame.id)))
        self.stub.UpdateWorldResources(self.check_wire(self.m.UpdateWorldResourcesRequest(
            world_id=w, world_updates=batch, view=u.BASIC)), timeout=harness.CALL_SECONDS)
        self.stub.DeleteObject(self.check_wire(u.DeleteObjectRequest(
            world_id=w, force=False, reparent_child_objects=False, object=refs.ObjectReference(id=crate.id))),
            timeout=harness.CALL_SECONDS)
        listed = self.stub.ListObjects(self.check_wire(self.m.ListObjectsRequest(
            world_id=w, query_objects=[], view=u.FULL)), timeout=harness.CALL_SECONDS)
        self.assertNotIn("box", [o.name for o in listed.objects])

        # reset(): init_world cloned over the client's world.
        self.stub.CloneWorld(self.check_wire(self.m.CloneWorldRequest(
            world_id="init_world", cloned_world_id=w, allow_overwrite=True)), timeout=harness.CALL_SECONDS)
        self.assertEqual(self.stub.GetObject(self.m.GetObjectRequest(world_id=w, object=self.obj("hinge"),
                                                                     view=u.FULL),
                                             timeout=harness.CALL_SECONDS).kinematic_object_component
                         .joint_positions, [0.0])


if __name__ == "__main__":
    unittest.main()
