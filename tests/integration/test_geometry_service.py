"""Intrinsic's GeometryService, as ObjectWorldClient calls it
(register_geometry and register_geometry_v1: CreateGeometry), on a server
keeping its store in a --data folder: geometry registered is kept under the
SHA-256 of its GeometryData, served back by GetGeometry and GetRenderable,
used as the shape of the objects whose geometry names it, and still there
after the server is stopped and started again on the same folder. What
cannot be served is refused at once with a code the client does not retry;
what is too large, with RESOURCE_EXHAUSTED naming the limit.

The messages are ours, built from proto/; test_client_requests.py checks
that their field numbers are those of Intrinsic's published protos, and the
wire check here reads the bytes of each request against those numbers."""

import hashlib
import importlib
import shutil
import tempfile
import unittest

import grpc

from . import harness
from .test_client_requests import INTRINSIC, top_level_numbers
from .test_object_world import ObjectWorldCalls

C = grpc.StatusCode
# What Intrinsic's client retries for about a minute before it reports.
RETRIED = (C.UNAVAILABLE, C.UNIMPLEMENTED, C.RESOURCE_EXHAUSTED)
REF_PREFIX = "worldkit-geometry:"


class GeometryServiceTest(ObjectWorldCalls, harness.ServerTest):

    @classmethod
    def setUpClass(cls):
        cls.data = tempfile.mkdtemp(prefix="wk_geometry_")
        cls.SERVER_ARGS = ("--data", cls.data)
        super().setUpClass()
        cls.addClassCleanup(shutil.rmtree, cls.data, ignore_errors=True)
        cls.m = cls.pb.ows
        cls.stub = cls.pb.ows_grpc.ObjectWorldServiceStub(cls.channel)
        cls.geo = importlib.import_module("intrinsic.geometry.proto.geometry_service_pb2")
        cls.geo_grpc = importlib.import_module("intrinsic.geometry.proto.geometry_service_pb2_grpc")
        cls.geo_stub = cls.geo_grpc.GeometryServiceStub(cls.channel)
        cls.storage_refs = importlib.import_module("intrinsic.geometry.proto.geometry_storage_refs_pb2")

    def restart(self):
        """Stops the server (it must exit 0) and starts it again on its
        --data folder, with new stubs."""
        type(self).stop_server()
        server = harness.Server(*self.SERVER_ARGS)
        type(self).server, type(self).channel = server, server.channel
        type(self).stub = self.pb.ows_grpc.ObjectWorldServiceStub(server.channel)
        type(self).geo_stub = self.geo_grpc.GeometryServiceStub(server.channel)

    def register(self, data):
        """CreateGeometry as register_geometry sends it: the refs answered,
        checked against the fingerprint of the data."""
        request = self.geo.CreateGeometryRequest(data=data)
        numbers = top_level_numbers(request.SerializeToString())
        self.assertEqual(numbers, [INTRINSIC["intrinsic_proto.geometry.CreateGeometryRequest"]["data"]])
        refs = self.geo_stub.CreateGeometry(request, timeout=harness.CALL_SECONDS).geometry_storage_refs
        fingerprint = hashlib.sha256(data.SerializeToString()).hexdigest()
        self.assertEqual(refs.fingerprint, fingerprint)
        self.assertEqual(refs.geometry_ref, REF_PREFIX + fingerprint)
        return refs

    def box_data(self, sx, sy, sz):
        data = self.geo.GeometryData()
        box = data.primitive_set.primitives.add().box
        box.size.x, box.size.y, box.size.z = sx, sy, sz
        return data

    def object_of(self, world, name, refs):
        """CreateObject with a GeometryComponent naming the registered
        geometry, as a user of the client builds one from the refs."""
        g = self.pb.geometry.GeometryComponent()
        shape = g.named_geometries["Intrinsic_Collision"].named_geometries["shape"]
        shape.geometry.geo_ref.exact_geometry_ref = refs.geometry_ref
        req = self.pb.updates.CreateObjectRequest(world_id=world, name=name)
        req.parent_object.reference.id = "root"
        req.create_single_entity_object.geometry_component.CopyFrom(g)
        self.stub.CreateObject(req, timeout=harness.CALL_SECONDS)

    def test_registered_geometry_is_kept_served_and_used(self):
        box = self.register(self.box_data(0.1, 0.2, 0.3))
        self.assertEqual(self.register(self.box_data(0.1, 0.2, 0.3)), box)
        self.assertEqual(box.renderable_ref, "")  # no glTF to serve for a primitive
        ball = self.geo.GeometryData()
        ball.geometry.exact_geometry.primitive_set.primitives.add().sphere.radius = 0.25
        ball_refs = self.register(ball)
        stl = self.register(self.geo.GeometryData(stl_bytes=b"solid a\nendsolid a\n"))
        gltf_bytes = b"glTF\x02\x00\x00\x00" + bytes(range(256))
        gltf = self.register(self.geo.GeometryData(gltf_bytes=gltf_bytes))
        self.assertEqual(gltf.renderable_ref, gltf.geometry_ref)

        # A scene object whose link names the registered sphere.
        w = self.new_world("geometry_world")
        self.object_of(w, "crate", box)
        self.object_of(w, "part", stl)
        so = self.pb.updates.CreateObjectRequest(world_id=w, name="ball")
        so.parent_object.reference.id = "root"
        link = so.create_from_scene_object.scene_object.entities.add(name="body").link
        link.geometry_component.named_geometries["Intrinsic_Collision"].named_geometries["shape"].geometry.geo_ref \
            .exact_geometry_ref = ball_refs.geometry_ref
        self.stub.CreateObject(so, timeout=harness.CALL_SECONDS)

        for restarted in (False, True):
            with self.subTest(restarted=restarted):
                if restarted:
                    self.restart()
                got = self.geo_stub.GetGeometry(self.geo.GetGeometryRequest(geometry_storage_refs=box),
                                                timeout=harness.CALL_SECONDS)
                self.assertEqual(got.geometry_storage_refs.fingerprint, box.fingerprint)
                size = got.geometry.exact_geometry.primitive_set.primitives[0].box.size
                self.assertEqual((size.x, size.y, size.z), (0.1, 0.2, 0.3))
                got = self.geo_stub.GetGeometry(self.geo.GetGeometryRequest(
                    geometry_storage_refs=self.storage_refs.GeometryStorageRefs(
                        geometry_ref=ball_refs.geometry_ref)), timeout=harness.CALL_SECONDS)
                self.assertEqual(got.geometry, ball.geometry)
                rendered = self.geo_stub.GetRenderable(
                    self.geo.GetRenderableRequest(geometry_storage_refs=gltf, lod_level=3),
                    timeout=harness.CALL_SECONDS)
                self.assertEqual(rendered.renderable.gltf_string, gltf_bytes)
                self.assertEqual(rendered.lod_level, 0)
                # The objects: a box and a sphere of the registered sizes,
                # and a mesh named by its reference.
                self.assertEqual(self.box_size(self.get_object(w, "crate", view=self.pb.updates.FULL)),
                                 (0.1, 0.2, 0.3))
                ball_obj = self.get_object(w, "ball", view=self.pb.updates.FULL)
                radii = [p.shape.sphere.radius for e in ball_obj.entities.values()
                         for s in e.geometry_component.named_geometries.values()
                         for t in s.named_geometries.values()
                         for p in t.geometry.inline_geometry_data.exact_geometry.primitive_set.primitives]
                self.assertEqual(radii[:1], [0.25])
                part = self.get_object(w, "part", view=self.pb.updates.FULL)
                refs = [t.geometry.geo_ref.exact_geometry_ref for e in part.entities.values()
                        for s in e.geometry_component.named_geometries.values() for t in s.named_geometries.values()]
                self.assertIn(stl.geometry_ref, refs)

        # What cannot be served is refused at once, not retried.
        for call, req, code, culprit in (
                (self.geo_stub.GetGeometry, self.geo.GetGeometryRequest(geometry_storage_refs=stl),
                 C.FAILED_PRECONDITION, "registered as stl_bytes, and worldkit makes no Geometry"),
                (self.geo_stub.GetRenderable, self.geo.GetRenderableRequest(geometry_storage_refs=box),
                 C.FAILED_PRECONDITION, "makes no glTF renderable"),
                (self.geo_stub.GetGeometry, self.geo.GetGeometryRequest(), C.INVALID_ARGUMENT,
                 "geometry_storage_refs names no geometry registered here"),
                (self.geo_stub.CreateGeometry, self.geo.CreateGeometryRequest(), C.INVALID_ARGUMENT,
                 "data holds no geometry")):
            err = self.assertStatus(code, call, req, culprit=culprit, timeout=1.0)
            self.assertNotIn(err.code(), RETRIED)
        missing = self.storage_refs.GeometryStorageRefs(fingerprint="0" * 64)
        self.assertStatus(C.NOT_FOUND, self.geo_stub.GetGeometry,
                          self.geo.GetGeometryRequest(geometry_storage_refs=missing), culprit="0" * 64)

    def test_a_geometry_past_the_message_cap_is_refused(self):
        big = self.geo.CreateGeometryRequest(data=self.geo.GeometryData(stl_bytes=b"\0" * (17 * 1024 * 1024)))
        self.assertStatus(C.RESOURCE_EXHAUSTED, self.geo_stub.CreateGeometry, big, culprit="16777216")


class GeometryMemoryBoundTest(harness.ServerTest):
    """A server past --max-memory-mib refuses to keep more geometry."""
    SERVER_ARGS = ("--max-memory-mib", "1")

    def test_create_geometry_refused_past_the_memory_bound(self):
        geo = importlib.import_module("intrinsic.geometry.proto.geometry_service_pb2")
        stub = importlib.import_module("intrinsic.geometry.proto.geometry_service_pb2_grpc").GeometryServiceStub(
            self.channel)
        req = geo.CreateGeometryRequest(data=geo.GeometryData(stl_bytes=b"solid a\nendsolid a\n"))
        self.assertStatus(C.RESOURCE_EXHAUSTED, stub.CreateGeometry, req, culprit="--max-memory-mib")


if __name__ == "__main__":
    unittest.main()
