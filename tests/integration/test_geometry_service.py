"""Intrinsic's GeometryService, as ObjectWorldClient calls it
(register_geometry and register_geometry_v1: CreateGeometry), on a server
keeping its store in a --data folder: geometry registered is kept under the
SHA-256 of its GeometryData, served back by GetGeometry and GetRenderable,
used as the shape of the objects whose geometry names it, and still there
after the server is stopped and started again on the same folder. OBJ and
STL files come back as triangle meshes, checked against the solids the test
wrote them from. What cannot be served is refused at once with a code the
client does not retry; a file that is not a mesh, with INVALID_ARGUMENT
naming it; what is too large, with RESOURCE_EXHAUSTED naming the limit.

The messages are ours, built from proto/; test_client_requests.py checks
that their field numbers are those of Intrinsic's published protos, and the
wire check here reads the bytes of each request against those numbers."""

import hashlib
import importlib
import json
import shutil
import struct
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

# The solids the mesh files are written from: a tetrahedron's triangles
# (outward, as STL lists them) and a cube's corners and quad faces (as an
# OBJ lists them, counted from 1).
TETRAHEDRON = (((0, 0, 0), (0, 2, 0), (1, 0, 0)), ((0, 0, 0), (1, 0, 0), (0, 0, 3)),
               ((0, 0, 0), (0, 0, 3), (0, 2, 0)), ((1, 0, 0), (0, 2, 0), (0, 0, 3)))
CUBE_CORNERS = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
CUBE_QUADS = ((1, 2, 4, 3), (5, 7, 8, 6), (1, 5, 6, 2), (3, 4, 8, 7), (1, 3, 7, 5), (2, 6, 8, 4))


def ascii_stl(triangles):
    lines = ["solid test"]
    for t in triangles:
        lines += ["facet normal 0 0 0", "outer loop"] + ["vertex %r %r %r" % v for v in t] + ["endloop", "endfacet"]
    return ("\n".join(lines + ["endsolid test", ""])).encode()


def binary_stl(triangles):
    out = b"binary STL written by the test".ljust(80, b" ") + struct.pack("<I", len(triangles))
    for t in triangles:
        out += struct.pack("<12fH", 0, 0, 0, *[c for v in t for c in v], 0)
    return out


def cube_obj():
    lines = ["# a unit cube", "o cube"] + ["v %r %r %r" % c for c in CUBE_CORNERS] + ["vn 0 0 1"]
    lines += ["f " + " ".join("%d//1" % i for i in q) for q in CUBE_QUADS]
    return ("\n".join(lines) + "\n").encode()


def points_and_triangles(mesh):
    """A TriangleMesh's vertices as points and its faces as triangles of
    points, checking that every index names a vertex."""
    v = list(mesh.vertices)
    points = [tuple(v[i:i + 3]) for i in range(0, len(v), 3)]
    assert len(v) % 3 == 0 and len(mesh.faces) % 3 == 0
    triangles = [tuple(points[i] for i in mesh.faces[k:k + 3]) for k in range(0, len(mesh.faces), 3)]
    return points, triangles


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
        cls.storage_refs_v1 = importlib.import_module("intrinsic.geometry.proto.v1.geometry_storage_refs_pb2")

    def restart(self):
        """Stops the server (it must exit 0) and starts it again on its
        --data folder, with new stubs."""
        type(self).stop_server()
        server = harness.Server(*self.SERVER_ARGS)
        type(self).server, type(self).channel = server, server.channel
        type(self).stub = self.pb.ows_grpc.ObjectWorldServiceStub(server.channel)
        type(self).geo_stub = self.geo_grpc.GeometryServiceStub(server.channel)

    def register(self, data):
        """CreateGeometry as the client sends it: the refs register_geometry
        reads (CreateGeometry(...).geometry_storage_refs_v0), checked against
        the fingerprint of the data and against the v1 refs
        register_geometry_v1 reads (.geometry_storage_refs)."""
        request = self.geo.CreateGeometryRequest(data=data)
        numbers = top_level_numbers(request.SerializeToString())
        self.assertEqual(numbers, [INTRINSIC["intrinsic_proto.geometry.CreateGeometryRequest"]["data"]])
        answer = self.geo_stub.CreateGeometry(request, timeout=harness.CALL_SECONDS)
        refs, refs_v1 = answer.geometry_storage_refs_v0, answer.geometry_storage_refs
        fingerprint = hashlib.sha256(data.SerializeToString()).hexdigest()
        self.assertEqual(refs.fingerprint, fingerprint)
        self.assertEqual(refs.geometry_ref, REF_PREFIX + fingerprint)
        self.assertEqual(refs_v1.exact_geometry_ref, refs.geometry_ref)
        self.assertEqual(refs_v1.renderable_ref, refs.renderable_ref)
        self.assertEqual(refs_v1.keep_renderable, bool(refs.renderable_ref))
        numbers = set(top_level_numbers(answer.SerializeToString()))
        wire = INTRINSIC["intrinsic_proto.geometry.GeometryWithMetadata"]
        self.assertEqual(numbers, {wire["geometry_storage_refs_v0"], wire["geometry_storage_refs"]})
        return refs

    def box_data(self, sx, sy, sz):
        data = self.geo.GeometryData()
        box = data.primitive_set_v0.primitives.add().box
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
        ball.geometry_v0.exact_geometry.primitive_set.primitives.add().sphere.radius = 0.25
        ball_refs = self.register(ball)
        stl = self.register(self.geo.GeometryData(stl_bytes=ascii_stl(TETRAHEDRON)))
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
                got = self.geo_stub.GetGeometry(self.geo.GetGeometryRequest(geometry_storage_refs_v0=box),
                                                timeout=harness.CALL_SECONDS)
                self.assertEqual(got.geometry_storage_refs_v0.fingerprint, box.fingerprint)
                size = got.geometry_v0.exact_geometry.primitive_set.primitives[0].box.size
                self.assertEqual((size.x, size.y, size.z), (0.1, 0.2, 0.3))
                got = self.geo_stub.GetGeometry(self.geo.GetGeometryRequest(
                    geometry_storage_refs_v0=self.storage_refs.GeometryStorageRefs(
                        geometry_ref=ball_refs.geometry_ref)), timeout=harness.CALL_SECONDS)
                self.assertEqual(got.geometry_v0, ball.geometry_v0)
                # By v1 refs, as register_geometry_v1's caller asks.
                rendered = self.geo_stub.GetRenderable(
                    self.geo.GetRenderableRequest(geometry_storage_refs=self.storage_refs_v1.GeometryStorageRefs(
                        exact_geometry_ref=gltf.geometry_ref), lod_level=3),
                    timeout=harness.CALL_SECONDS)
                self.assertEqual(rendered.renderable_v0.gltf_string, gltf_bytes)
                self.assertEqual(rendered.renderable.glb_bytes, gltf_bytes)
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
                (self.geo_stub.GetRenderable, self.geo.GetRenderableRequest(geometry_storage_refs_v0=box),
                 C.FAILED_PRECONDITION, "makes no glTF renderable"),
                (self.geo_stub.GetGeometry, self.geo.GetGeometryRequest(), C.INVALID_ARGUMENT,
                 "name no geometry registered here"),
                (self.geo_stub.CreateGeometry, self.geo.CreateGeometryRequest(), C.INVALID_ARGUMENT,
                 "data holds no geometry")):
            err = self.assertStatus(code, call, req, culprit=culprit, timeout=1.0)
            self.assertNotIn(err.code(), RETRIED)
        missing = self.storage_refs.GeometryStorageRefs(fingerprint="0" * 64)
        self.assertStatus(C.NOT_FOUND, self.geo_stub.GetGeometry,
                          self.geo.GetGeometryRequest(geometry_storage_refs_v0=missing), culprit="0" * 64)

    def mesh_of(self, refs):
        got = self.geo_stub.GetGeometry(self.geo.GetGeometryRequest(geometry_storage_refs_v0=refs),
                                        timeout=harness.CALL_SECONDS)
        self.assertFalse(got.geometry_v0.exact_geometry.HasField("primitive_set"))
        return points_and_triangles(got.geometry_v0.exact_geometry.triangle_mesh)

    def bounds(self, points):
        return tuple(min(p[k] for p in points) for k in range(3)), tuple(max(p[k] for p in points) for k in range(3))

    def check_glb(self, refs, vertices, indices, bounds):
        """GetRenderable of a mesh: a binary glTF 2.0 (its header and JSON
        chunk read as the glTF spec lays them out) whose one POSITION
        accessor has the mesh's bounds and between its vertex count and one
        vertex per corner (assimp's writer gives each corner its own), and
        whose indices count its triangles' corners."""
        got = self.geo_stub.GetRenderable(self.geo.GetRenderableRequest(geometry_storage_refs_v0=refs),
                                          timeout=harness.CALL_SECONDS)
        glb = got.renderable.glb_bytes
        self.assertEqual(got.renderable_v0.gltf_string, glb)
        magic, version, length = struct.unpack_from("<4sII", glb)
        self.assertEqual((magic, version, length), (b"glTF", 2, len(glb)))
        chunk_length, chunk_type = struct.unpack_from("<I4s", glb, 12)
        self.assertEqual(chunk_type, b"JSON")
        gltf = json.loads(glb[20:20 + chunk_length])
        (primitive,) = [p for m in gltf["meshes"] for p in m["primitives"]]
        position = gltf["accessors"][primitive["attributes"]["POSITION"]]
        self.assertTrue(vertices <= position["count"] <= indices, position["count"])
        self.assertEqual((tuple(position["min"]), tuple(position["max"])), bounds)
        self.assertEqual(gltf["accessors"][primitive["indices"]]["count"], indices)

    def test_inline_triangle_mesh_registered_as_intrinsics_cpp_client_does(self):
        # data.inline_geometry (9) holding the mesh itself: served back as
        # given (v1 inline_geometry and the older triangle_mesh), as a glb,
        # and as an object's mesh.
        corners = sorted({p for t in TETRAHEDRON for p in t})
        data = self.geo.GeometryData()
        mesh = data.inline_geometry.exact_geometry.triangle_mesh
        mesh.vertices.extend(float(x) for p in corners for x in p)
        mesh.faces.extend(corners.index(p) for t in TETRAHEDRON for p in t)
        refs = self.register(data)
        got = self.geo_stub.GetGeometry(self.geo.GetGeometryRequest(geometry_storage_refs_v0=refs),
                                        timeout=harness.CALL_SECONDS)
        self.assertEqual(got.inline_geometry, data.inline_geometry)
        points, triangles = self.mesh_of(refs)
        self.assertEqual(set(triangles), {tuple(map(lambda v: tuple(map(float, v)), t)) for t in TETRAHEDRON})
        self.check_glb(refs, 4, 12, ((0, 0, 0), (1, 2, 3)))
        self.object_of(self.new_world("inline_world"), "given_mesh", refs)

    def test_mesh_files_come_back_as_triangle_meshes(self):
        # STL, ASCII and binary: each triangle as written, its corners joined.
        for stl in (ascii_stl(TETRAHEDRON), binary_stl(TETRAHEDRON)):
            with self.subTest(binary=not stl.startswith(b"solid")):
                points, triangles = self.mesh_of(self.register(self.geo.GeometryData(stl_bytes=stl)))
                self.assertEqual(len(points), 4)
                self.assertEqual(len(triangles), 4)
                self.assertEqual(set(triangles), {tuple(map(lambda v: tuple(map(float, v)), t)) for t in TETRAHEDRON})
                self.assertEqual(self.bounds(points), ((0, 0, 0), (1, 2, 3)))
                self.check_glb(self.register(self.geo.GeometryData(stl_bytes=stl)), 4, 12, ((0, 0, 0), (1, 2, 3)))
        # OBJ: the cube's 8 corners (its normals do not split them) and each
        # quad as two triangles lying in the quad's face, covering its area.
        points, triangles = self.mesh_of(self.register(self.geo.GeometryData(obj_data=cube_obj())))
        self.assertEqual(sorted(points), sorted(CUBE_CORNERS))
        self.assertEqual(len(triangles), 12)
        self.assertEqual(self.bounds(points), ((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)))
        area = 0
        for a, b, c in triangles:
            self.assertTrue(any(a[k] == b[k] == c[k] for k in range(3)), (a, b, c))
            u, w = [b[k] - a[k] for k in range(3)], [c[k] - a[k] for k in range(3)]
            cross = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
            area += sum(x * x for x in cross) ** 0.5 / 2
        self.assertAlmostEqual(area, 6.0)
        self.check_glb(self.register(self.geo.GeometryData(obj_data=cube_obj())), 8, 36,
                       ((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)))

    def test_a_file_that_is_not_a_mesh_is_refused_naming_it(self):
        cut = binary_stl(TETRAHEDRON)[:-30]
        for data, culprit in (
                (self.geo.GeometryData(stl_bytes=b"solid empty\nendsolid empty\n"),
                 "data.stl_bytes is not a mesh assimp reads as stl: Validation failed: The mesh empty contains no "
                 "vertices"),
                (self.geo.GeometryData(obj_data=b"v 0 0 0\nv 1 0 0\nl 1 2\n"), "data.obj_data holds no triangle"),
                (self.geo.GeometryData(stl_bytes=cut), "data.stl_bytes is not a mesh assimp reads as stl"),
                (self.geo.GeometryData(obj_data=b"v 0 0 0\nv 1 0 0\nf 1 2 9\n"),
                 "data.obj_data is not a mesh assimp reads as obj"),
                (self.geo.GeometryData(obj_data=b"mtllib /etc/passwd\nusemtl x\n"), "data.obj_data")):
            with self.subTest(culprit=culprit):
                err = self.assertStatus(C.INVALID_ARGUMENT, self.geo_stub.CreateGeometry,
                                        self.geo.CreateGeometryRequest(data=data), culprit=culprit)
                self.assertNotIn(err.code(), RETRIED)
                self.assertNotIn("root:", err.details())  # nothing of the local file it names

    def test_a_geometry_past_the_message_cap_is_refused(self):
        big = self.geo.CreateGeometryRequest(data=self.geo.GeometryData(stl_bytes=b"\0" * (17 * 1024 * 1024)))
        self.assertStatus(C.RESOURCE_EXHAUSTED, self.geo_stub.CreateGeometry, big, culprit="16777216")


class GeometryResponseBoundTest(harness.ServerTest):
    """A mesh whose triangle mesh is past --max-response-mib is refused by
    GetGeometry, naming the bound; the file itself was taken."""
    SERVER_ARGS = ("--max-response-mib", "1")

    def test_a_mesh_past_the_response_bound_is_refused(self):
        geo = importlib.import_module("intrinsic.geometry.proto.geometry_service_pb2")
        stub = importlib.import_module("intrinsic.geometry.proto.geometry_service_pb2_grpc").GeometryServiceStub(
            self.channel)
        # 16000 triangles of 3 distinct corners each: 800 KB of STL, 1.3 MB of mesh.
        triangles = [((i, 0, 0), (i, 1, 0), (i, 0, 1)) for i in range(16000)]
        refs = stub.CreateGeometry(geo.CreateGeometryRequest(data=geo.GeometryData(stl_bytes=binary_stl(triangles))),
                                   timeout=harness.CALL_SECONDS).geometry_storage_refs_v0
        self.assertStatus(C.RESOURCE_EXHAUSTED, stub.GetGeometry, geo.GetGeometryRequest(geometry_storage_refs_v0=refs),
                          culprit="--max-response-mib")


class GeometryMemoryBoundTest(harness.ServerTest):
    """A server past --max-memory-mib refuses to keep more geometry."""
    SERVER_ARGS = ("--max-memory-mib", "1")

    def test_create_geometry_refused_past_the_memory_bound(self):
        geo = importlib.import_module("intrinsic.geometry.proto.geometry_service_pb2")
        stub = importlib.import_module("intrinsic.geometry.proto.geometry_service_pb2_grpc").GeometryServiceStub(
            self.channel)
        req = geo.CreateGeometryRequest(data=geo.GeometryData(stl_bytes=ascii_stl(TETRAHEDRON)))
        self.assertStatus(C.RESOURCE_EXHAUSTED, stub.CreateGeometry, req, culprit="--max-memory-mib")


if __name__ == "__main__":
    unittest.main()
