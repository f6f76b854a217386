"""test_view.py — the live view (`worldkit serve --http`, web/) in a real
browser: Debian's Chromium, headless, opens the page on the levels
tutorial's world (tests/formats/worlds/levels_one_performer.sdf: R1 in L1,
which holds M1 and M3; L3 holds M3, M4 and M5) and the test reads what the
page itself says (its DOM: #summary, written by web/view.js) and shows
(a screenshot):

- one drawable per visual, against the server's own state (the Kind of
  every entity in WorldWatch/Watch's full state, over gRPC);
- each model's colour, as its file's material gives it (the diffuse colour,
  else the ambient one), in the screenshot where its pose projects;
- a SetEntityState over gRPC on the page within 1 s of the call;
- a level unloaded by the performer's move: its models gone from the page;

and, on worlds of their own, the colours other files give: an MJCF world's
geoms (collisions, drawn because their bodies have no visual) in their
rgba, and SDFormat visuals named after Gazebo's material scripts.
"""
import base64
import http.client
import importlib
import json
import os
import re
import select
import shutil
import signal
import ssl
import struct
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

import grpc
import websocket  # Debian's python3-websocket
from PIL import Image  # Debian's python3-pil

from . import harness
from . import test_security as security
from .harness import OK, STATE_PAUSED

WORLD = harness.world("levels_one_performer.sdf")
MESH_WORLD = harness.world("meshes.sdf")
MJCF_WORLD = harness.world("mjcf/coloured.xml")
SCRIPTS_WORLD = harness.world("materials/gazebo_scripts.sdf")
# The diffuse colours Gazebo's gazebo.material gives the scripts
# SCRIPTS_WORLD names, as 8-bit red, green, blue (its own_diffuse keeps its
# <diffuse>; Gazebo/Wood, a texture, and an unknown name give none).
GAZEBO_SCRIPT_COLOURS = {"red": (255, 0, 0), "turquoise": (0, 255, 255), "orange": (255, 130, 12),
                         "own_diffuse": (51, 77, 230)}
COLLADA = "http://www.collada.org/2005/11/COLLADASchema"
TOKEN = "view-t0ken/for+the=test"
LOADED, UNLOADED = "#2255ff", "#999999"  # web/view.js's colours of a level's box
CHROMIUM = shutil.which("chromium")
WINDOW = (1000, 700)
VISUAL = 5  # the Kind of a visual (wk_node_kind)


def file_colours(path):
    """Each model's visual colour as the SDFormat file writes it: its
    material's diffuse, else its ambient, as 8-bit red, green, blue."""
    colours = {}
    for model in ET.parse(path).getroot().iter("model"):
        material = model.find("link/visual/material")
        given = None if material is None else next(
            (c for c in (material.find("diffuse"), material.find("ambient")) if c is not None), None)
        if given is not None:
            rgb = [float(x) for x in given.text.split()[:3]]
            colours[model.get("name")] = tuple(round(c * 255) for c in rgb)
    return colours


def mjcf_colours(path):
    """Each geom's colour as the MJCF file writes it: its rgba, else its
    material's, else its class's, as 8-bit red, green, blue."""
    root = ET.parse(path).getroot()
    materials = {m.get("name"): m.get("rgba") for m in root.iter("material")}
    classes = {c.get("class"): c.find("geom").get("rgba") for c in root.iter("default") if c.get("class")}
    colours = {}
    for geom in root.find("worldbody").iter("geom"):
        rgba = geom.get("rgba") or materials.get(geom.get("material")) or classes.get(geom.get("class"))
        colours[geom.get("name")] = tuple(round(float(c) * 255) for c in rgba.split()[:3])
    return colours


class Browser:
    """Headless Chromium on url, asked over its DevTools protocol (a
    WebSocket) for the page's window.wkView and for screenshots."""

    def __init__(self, url, folder):
        self.proc = subprocess.Popen([CHROMIUM, "--headless", "--no-sandbox", "--use-angle=swiftshader",
                                      "--enable-unsafe-swiftshader", "--window-size=%d,%d" % WINDOW,
                                      "--remote-debugging-port=0", "--user-data-dir=" + os.path.join(folder, "p"),
                                      url], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     start_new_session=True)  # its helpers go with it (close)
        port, end = None, time.monotonic() + 30
        while port is None and time.monotonic() < end:
            line = self.proc.stderr.readline().decode(errors="replace")
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            port = m and int(m.group(1))
            if not line and self.proc.poll() is not None:
                break
        if port is None:
            raise RuntimeError("chromium did not start its DevTools")
        pages = []
        for _ in range(100):
            pages = [p for p in json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port))
                     if p.get("type") == "page"]
            if pages:
                break
            time.sleep(0.1)
        self.sock = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=30)
        self.next_id = 0

    def call(self, method, **params):
        """A DevTools method's result (messages in until the answer to it)."""
        self.next_id += 1
        self.sock.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self.sock.recv())
            if reply.get("id") == self.next_id:
                return reply["result"]

    def view(self):
        """window.wkView; or the error the page shows; or None before the first message."""
        got = self.call("Runtime.evaluate", returnByValue=True,
                        expression="window.wkView ? JSON.stringify(window.wkView) : "
                                   "document.getElementById('summary').textContent")
        text = got["result"].get("value") or ""
        return json.loads(text) if text.startswith("{") else (text or None)

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))

    def close(self):
        self.sock.close()
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.proc.stderr.close()


def view_address(server):
    """The page's address, from the server's second line."""
    line, end = b"", time.monotonic() + 10
    while not line.endswith(b"\n") and time.monotonic() < end:
        if select.select([server.proc.stdout], [], [], 0.5)[0]:
            line += server.proc.stdout.read(1)
    m = re.match(r"worldkit: live view on (https?://\S+)", line.decode())
    if not m:
        raise RuntimeError("no live view address, but %r" % line)
    return m.group(1)


class PageTest(harness.ServerTest):
    """A server with the live view on WORLD_FILE, loaded before each test,
    and the means to open its page."""
    WORLD_FILE = WORLD

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.si = cls.pb.si
        cls.stub = cls.pb.si_grpc.SimulationInterfacesStub(cls.channel)
        cls.url = view_address(cls.server)

    def setUp(self):
        if self.WORLD_FILE:
            self.assertResult(OK, self.stub.LoadWorld(self.si.LoadWorldRequest(uri=self.WORLD_FILE),
                                                      timeout=harness.CALL_SECONDS))
        self.dir = tempfile.mkdtemp(prefix="wk_view_")
        self.addCleanup(shutil.rmtree, self.dir)

    def browser(self):
        b = Browser(self.url, self.dir)
        self.addCleanup(b.close)
        return b

    def until(self, browser, done, what, seconds=20):
        """The page's window.wkView once done(it) holds."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            view = browser.view()
            if isinstance(view, str):
                self.fail("the page failed: " + view)
            if view and done(view):
                return view
            time.sleep(0.02)
        self.fail("the page never showed %s: %s" % (what, browser.view()))

    def assertColourNear(self, image, v, want):
        """The colour want (8-bit red, green, blue) within 8 of a pixel of
        image near where visual v's pose projects."""
        width, height = image.size
        near = [image.getpixel((x, y)) for y in range(max(v["py"] - 6, 0), min(v["py"] + 7, height))
                for x in range(max(v["px"] - 6, 0), min(v["px"] + 7, width))]
        self.assertTrue(any(max(abs(a - b) for a, b in zip(px, want)) <= 8 for px in near),
                        "%s's colour %s not near (%d, %d) in the screenshot" % (v["model"], want, v["px"], v["py"]))

    def assertDrawnIn(self, v, want):
        """Visual v drawn in the colour want, as the page says."""
        drawn = tuple(int(v["colour"][i:i + 2], 16) for i in (1, 3, 5))
        # three.js truncates to 8 bits where the file's number rounds.
        self.assertLessEqual(max(abs(a - b) for a, b in zip(drawn, want)), 1,
                             "%s drawn in %s, its file says %s" % (v["model"], drawn, want))

    def screenshot(self, browser):
        shot = os.path.join(self.dir, "view.png")
        browser.screenshot(shot)
        image = Image.open(shot).convert("RGB")
        self.assertEqual(image.size[0], WINDOW[0])
        return shot, image


@unittest.skipUnless(CHROMIUM or os.environ.get("WK_INTEGRATION_STRICT"), "no chromium")
class ViewTest(PageTest):
    SERVER_ARGS = ("--levels", "--world", WORLD, "--http", "127.0.0.1:0")

    def visual_models(self):
        """The models owning a visual, as the server's full state has them."""
        first = next(self.pb.watch_grpc.WorldWatchStub(self.channel).Watch(self.pb.watch.WatchRequest(),
                                                                           timeout=harness.CALL_SECONDS))
        types = {t.id: t.name for t in first.state.types}
        kind, name, parent = {}, {}, {}
        for block in first.state.blocks:
            for row, e in enumerate(block.ids):
                if block.parents:
                    parent[e] = block.parents[row]
            for col in block.columns:
                for row, e in enumerate(block.ids):
                    if types[col.type] == "Kind":
                        kind[e] = col.packed_values[row]
                    elif types[col.type] == "Name":
                        name[e] = col.values[row].decode()
        models = []
        for e, k in kind.items():
            if k == VISUAL:
                p = parent.get(e)
                while p and kind.get(p) != 1:  # up to its model
                    p = parent.get(p)
                models.append(name.get(p))
        return sorted(models)

    def test_a_drawable_per_visual_in_its_colour_where_it_stands(self):
        browser = self.browser()
        view = self.until(browser, lambda v: v["drawables"] > 0, "the world")
        self.assertEqual(view["drawables"], len(view["visuals"]))
        self.assertEqual(sorted(v["model"] for v in view["visuals"]), self.visual_models())
        shot, image = self.screenshot(browser)
        colours = file_colours(WORLD)
        self.assertGreaterEqual(len(colours), 3, "the world gives its models colours")
        for v in view["visuals"]:
            self.assertDrawnIn(v, colours[v["model"]])
            self.assertColourNear(image, v, colours[v["model"]])
        if os.environ.get("WK_VIEW_SCREENSHOT"):
            shutil.copy(shot, os.environ["WK_VIEW_SCREENSHOT"])

    def assertLevelsAsTheServerHasThem(self, view):
        """The page's levels: each where ListLevels puts it, drawn blue when
        loaded and grey when not, as the server says."""
        reply = self.pb.levels_grpc.LevelsStub(self.channel).ListLevels(self.pb.levels.ListLevelsRequest(),
                                                                       timeout=harness.CALL_SECONDS)
        server = {l.name: l for l in reply.levels}
        page = {l["name"]: l for l in view["levels"]}
        self.assertEqual(sorted(page), sorted(server))
        for name, level in server.items():
            self.assertEqual((page[name]["x"], page[name]["y"], page[name]["z"]),
                             (level.center.x, level.center.y, level.center.z), name)
            self.assertEqual(page[name]["buffer"], level.buffer, name)
            self.assertEqual(page[name]["loaded"], level.loaded, name)
            self.assertEqual(page[name]["colour"], LOADED if level.loaded else UNLOADED, name)

    def performer_on(self, view, model):
        """The page's performer box follows model: centred where its visual is."""
        box = [p for p in view["performers"] if p["model"] == model]
        self.assertEqual(len(box), 1, view["performers"])
        drawn = [v for v in view["visuals"] if v["model"] == model][0]
        self.assertTrue(box[0]["shown"])
        self.assertEqual((box[0]["x"], box[0]["y"], box[0]["z"]), (drawn["x"], drawn["y"], drawn["z"]))

    def test_levels_performers_and_the_selected_entitys_kind_and_tags(self):
        browser = self.browser()
        view = self.until(browser, lambda v: v["drawables"] > 0, "the world")
        self.assertLevelsAsTheServerHasThem(view)
        self.assertEqual({l["name"] for l in view["levels"] if l["loaded"]}, {"L1"}, "R1 starts in L1 only")
        self.performer_on(view, "R1")
        info = self.si.EntityInfo(tags=["shelf", "blue"], description="a blue box")
        self.assertResult(OK, self.stub.SetEntityInfo(self.si.SetEntityInfoRequest(entity="M3", info=info),
                                                      timeout=harness.CALL_SECONDS))
        end, text = time.monotonic() + 10, ""
        while "tags: shelf, blue" not in text and time.monotonic() < end:
            text = browser.call("Runtime.evaluate", returnByValue=True, expression=(
                "[...document.querySelectorAll('#entities li')].find((li) => li.textContent === 'M3').click();"
                "document.getElementById('selected').textContent"))["result"]["value"]
        self.assertIn("M3\nkind: model\ntags: shelf, blue\nposition: 0.000 0.000 0.000", text)
        text = browser.call("Runtime.evaluate", returnByValue=True, expression=(
            "[...document.querySelectorAll('#entities li')].find((li) => li.textContent === 'L3 (level)').click();"
            "document.getElementById('selected').textContent"))["result"]["value"]
        self.assertIn("L3\nkind: level, unloaded\ntags: (none)", text)

    def test_a_change_shows_within_a_second_and_an_unloaded_level_goes(self):
        browser = self.browser()
        self.until(browser, lambda v: v["drawables"] > 0, "the world")
        pose = self.si.Pose(position=self.si.Point(x=2.5, y=-3.0, z=0.0))
        asked = time.time()
        req = self.si.SetEntityStateRequest(entity="M3", state=self.si.EntityState(pose=pose), set_pose=True)
        self.assertResult(OK, self.stub.SetEntityState(req, timeout=harness.CALL_SECONDS))
        view = self.until(browser, lambda v: any(e["name"] == "M3" and e["x"] == 2.5 for e in v["log"]),
                          "M3's new pose")
        m3 = [e for e in view["log"] if e["name"] == "M3"]
        self.assertEqual((m3[0]["x"], m3[0]["y"]), (0, 0), "M3 where the file puts it, first")
        moved = [e for e in m3 if (e["x"], e["y"]) == (2.5, -3.0)]
        self.assertLess(moved[0]["t"] / 1000 - asked, 1.0, "M3's new pose took a second or more")
        # R1, the performer, leaves L1 for L3: a step unloads L1 and its M1.
        state = self.si.SetSimulationStateRequest(state=self.si.SimulationState(state=STATE_PAUSED))
        self.assertResult(OK, self.stub.SetSimulationState(state, timeout=harness.CALL_SECONDS))
        far = self.si.Pose(position=self.si.Point(x=-5.0, y=-5.0, z=0.0))
        req = self.si.SetEntityStateRequest(entity="R1", state=self.si.EntityState(pose=far), set_pose=True)
        self.assertResult(OK, self.stub.SetEntityState(req, timeout=harness.CALL_SECONDS))
        self.assertResult(OK, self.stub.StepSimulation(self.si.StepSimulationRequest(steps=1),
                                                       timeout=harness.CALL_SECONDS))
        view = self.until(browser, lambda v: "M4" in {x["model"] for x in v["visuals"]}, "L3's M4")
        models = {v["model"] for v in view["visuals"]}
        self.assertNotIn("M1", models, "L1 unloaded: M1 gone")
        view = self.until(browser, lambda v: [l["loaded"] for l in v["levels"] if l["name"] == "L3"] == [True],
                          "L3 loaded")
        self.assertLevelsAsTheServerHasThem(view)
        self.performer_on(view, "R1")
        self.assertIn("M1", {e["name"] for e in view["log"]}, "M1 was there before")
        self.assertEqual(view["drawables"], len(self.visual_models()))


def triangles(path):
    """How many triangles a mesh file holds, read here from the file: a
    binary STL's count, an OBJ's triangular faces, a COLLADA file's
    <triangles count>."""
    if path.endswith(".stl"):
        with open(path, "rb") as f:
            return struct.unpack("<I", f.read(84)[80:])[0]
    if path.endswith(".obj"):
        with open(path) as f:
            return sum(1 for line in f if line.startswith("f "))
    return sum(int(t.get("count")) for t in ET.parse(path).getroot().iter("{%s}triangles" % COLLADA))


def glb_triangles(glb):
    """How many triangles a binary glTF 2.0 holds (its meshes' primitives,
    each TRIANGLES, by their index or else position counts), checking its
    header and that its first chunk is JSON."""
    magic, version, length = struct.unpack("<4sII", glb[:12])
    size, kind = struct.unpack("<I4s", glb[12:20])
    if (magic, version, length, kind) != (b"glTF", 2, len(glb), b"JSON"):
        raise ValueError("not a glb: %r" % glb[:20])
    doc = json.loads(glb[20:20 + size])
    count = 0
    for mesh in doc["meshes"]:
        for p in mesh["primitives"]:
            if p.get("mode", 4) != 4:
                raise ValueError("not triangles: mode %s" % p["mode"])
            count += doc["accessors"][p.get("indices", p["attributes"]["POSITION"])]["count"] // 3
    return count


@unittest.skipUnless(CHROMIUM or os.environ.get("WK_INTEGRATION_STRICT"), "no chromium")
class MeshViewTest(PageTest):
    """tests/formats/worlds/meshes.sdf: a pyramid as STL, OBJ and COLLADA
    (Z up, and Y up), and a glTF file, which the page does not draw."""
    WORLD_FILE = MESH_WORLD
    SERVER_ARGS = ("--world", MESH_WORLD, "--http", "127.0.0.1:0")

    def test_meshes_drawn_from_their_files_else_as_boxes(self):
        browser = self.browser()
        view = self.until(browser, lambda v: sum(1 for x in v["visuals"] if x["mesh"]) >= 4, "the meshes")
        by_model = {v["model"]: v for v in view["visuals"]}
        colours = file_colours(MESH_WORLD)
        folder = os.path.join(os.path.dirname(MESH_WORLD), "meshes")
        for kind in ("stl", "obj", "dae"):
            v = by_model[kind + "_mesh"]
            self.assertEqual(v["mesh"], kind)
            self.assertEqual(v["vertices"], 3 * triangles(os.path.join(folder, "pyramid." + kind)),
                             "%s: the page's vertices against the file's triangles" % kind)
            self.assertDrawnIn(v, colours[v["model"]])
        # Standing as Gazebo draws them, whichever axis the file calls up:
        # the apex 1.2 above the base (lying, the Y_UP one's top is 0.75).
        for model in ("stl_mesh", "obj_mesh", "dae_mesh", "dae_y_up_mesh"):
            self.assertAlmostEqual(by_model[model]["top"], 1.2, 6, model)
        self.assertEqual(by_model["dae_y_up_mesh"]["vertices"], by_model["dae_mesh"]["vertices"])
        self.assertEqual(view["frames"], [{"name": "marker", "x": 3, "y": -4, "z": 0.5}], "the world's frame")
        self.assertIsNone(by_model["gltf_mesh"]["mesh"], "a glTF file is not drawn")
        self.assertEqual(by_model["gltf_mesh"]["vertices"], 8, "but its box is (8 corners)")
        _, image = self.screenshot(browser)
        for v in view["visuals"]:
            self.assertColourNear(image, v, colours[v["model"]])

    def mesh_status(self, path):
        try:
            with urllib.request.urlopen(self.url.rstrip("/") + path, timeout=10) as reply:
                return reply.status, reply.read()
        except urllib.error.HTTPError as e:
            return e.code, b""

    def test_only_the_worlds_resolved_mesh_files_are_served(self):
        ids = {}
        first = next(self.pb.watch_grpc.WorldWatchStub(self.channel).Watch(self.pb.watch.WatchRequest(),
                                                                           timeout=harness.CALL_SECONDS))
        types = {t.id: t.name for t in first.state.types}
        for block in first.state.blocks:
            for col in block.columns:
                if types[col.type] == "MeshFile":
                    for row, e in enumerate(block.ids):
                        ids[col.values[row].decode()] = e
        stl = [e for f, e in ids.items() if f.endswith("pyramid.stl")][0]
        status, body = self.mesh_status("/mesh/%d" % stl)
        self.assertEqual(status, 200)
        with open(os.path.join(os.path.dirname(MESH_WORLD), "meshes", "pyramid.stl"), "rb") as f:
            self.assertEqual(body, f.read())
        gltf = [e for f, e in ids.items() if f.endswith("empty.gltf")][0]
        for path in ("/mesh/%d" % gltf, "/mesh/1", "/mesh/999999", "/mesh/x", "/mesh/../../etc/passwd",
                     "/mesh/" + os.path.abspath(MESH_WORLD)):
            self.assertEqual(self.mesh_status(path)[0], 404, path)

    def test_a_registered_mesh_drawn_from_the_glb_held_of_it(self):
        """An object ObjectWorldService made of an OBJ file registered with
        GeometryService (CreateGeometry, then a geo_ref)."""
        geo = importlib.import_module("intrinsic.geometry.proto.geometry_service_pb2")
        geo_stub = importlib.import_module("intrinsic.geometry.proto.geometry_service_pb2_grpc") \
            .GeometryServiceStub(self.channel)
        obj = os.path.join(os.path.dirname(MESH_WORLD), "meshes", "pyramid.obj")
        with open(obj, "rb") as f:
            pyramid = f.read()
        # And a strip of 4,000 triangles, whose glb goes out in many pieces.
        strip = "".join("v %d %d 0\nv %d %d 1\n" % (i, 0, i, 0) for i in range(2001))
        strip += "".join("f %d %d %d\nf %d %d %d\n" % (2 * i + 1, 2 * i + 3, 2 * i + 2, 2 * i + 2, 2 * i + 3, 2 * i + 4)
                         for i in range(2000))
        ids = {}
        for name, data, x in (("registered", pyramid, -4), ("strip", strip.encode(), -30)):
            ref = geo_stub.CreateGeometry(geo.CreateGeometryRequest(data=geo.GeometryData(obj_data=data)),
                                          timeout=harness.CALL_SECONDS).geometry_storage_refs_v0.geometry_ref
            req = self.pb.updates.CreateObjectRequest(world_id="world", name=name)
            req.parent_object.reference.id = "root"
            req.parent_object_t_created_object.position.x = x
            req.parent_object_t_created_object.position.y = -5
            shape = req.create_single_entity_object.geometry_component.named_geometries["Intrinsic_Collision"] \
                .named_geometries["shape"]
            shape.geometry.geo_ref.exact_geometry_ref = ref
            self.pb.ows_grpc.ObjectWorldServiceStub(self.channel).CreateObject(req, timeout=harness.CALL_SECONDS)
            ids[ref] = name
        # /mesh of the entity whose shape names each registration: the glb,
        # with the file's triangles.
        first = next(self.pb.watch_grpc.WorldWatchStub(self.channel).Watch(self.pb.watch.WatchRequest(),
                                                                           timeout=harness.CALL_SECONDS))
        types = {t.id: t.name for t in first.state.types}
        served = {}
        for block in first.state.blocks:
            for col in block.columns:
                for row, e in enumerate(block.ids):
                    if types[col.type] == "Uri" and col.values[row].decode() in ids:
                        status, body = self.mesh_status("/mesh/%d" % e)
                        self.assertEqual(status, 200)
                        served[ids[col.values[row].decode()]] = glb_triangles(body)
        self.assertEqual(served, {"registered": triangles(obj), "strip": 4000})
        # The page draws those triangles (one vertex per corner, as assimp
        # writes them), standing 1.2 high, in place of the box.
        browser = self.browser()
        view = self.until(browser, lambda v: any(x["mesh"] == "glb" and x["model"] == "registered"
                                                 for x in v["visuals"]), "the registered mesh")
        drawn = [v for v in view["visuals"] if v["model"] == "registered"]
        self.assertEqual(len(drawn), 1)
        self.assertEqual(drawn[0]["vertices"], 3 * triangles(obj))
        self.assertAlmostEqual(drawn[0]["top"], 1.2, 6)
        self.assertAlmostEqual(drawn[0]["x"], -4, 9)


@unittest.skipUnless(CHROMIUM or os.environ.get("WK_INTEGRATION_STRICT"), "no chromium")
class ColourViewTest(PageTest):
    """Worlds whose colours come other ways than an SDFormat <diffuse>,
    each loaded by its test."""
    WORLD_FILE = None
    SERVER_ARGS = ("--http", "127.0.0.1:0")

    def shown(self, world, count):
        """The page (and a screenshot) once it draws world's count shapes."""
        self.assertResult(OK, self.stub.LoadWorld(self.si.LoadWorldRequest(uri=world), timeout=harness.CALL_SECONDS))
        browser = self.browser()
        view = self.until(browser, lambda v: v["drawables"] >= count, "the world's %d shapes" % count)
        self.assertEqual(view["drawables"], count)
        return view, self.screenshot(browser)[1]

    def test_an_mjcf_worlds_geoms_in_their_rgba(self):
        colours = mjcf_colours(MJCF_WORLD)
        view, image = self.shown(MJCF_WORLD, len(colours))
        self.assertEqual(sorted(v["name"] for v in view["visuals"]), sorted(colours))
        for v in view["visuals"]:
            self.assertEqual(v["kind"], "collision", "a geom is a collision, drawn: its body has no visual")
            self.assertDrawnIn(v, colours[v["name"]])
            self.assertColourNear(image, v, colours[v["name"]])

    def test_gazebo_material_scripts_in_gazebos_colours(self):
        view, image = self.shown(SCRIPTS_WORLD, 6)
        by_model = {v["model"]: v for v in view["visuals"]}
        for model, want in GAZEBO_SCRIPT_COLOURS.items():
            self.assertDrawnIn(by_model[model], want)
            self.assertColourNear(image, by_model[model], want)
        for model in ("wood", "unknown"):
            self.assertEqual(by_model[model]["colour"], "#b2b2b2", "%s: no colour, the page's grey" % model)


def first_update(url, **options):
    """The first message of the page's WebSocket at url ("ws://..."), as
    JSON; raises when the server refuses the connection."""
    sock = websocket.create_connection(url, subprotocols=["worldkit-view"], timeout=30, **options)
    try:
        return json.loads(sock.recv())
    finally:
        sock.close()


@unittest.skipUnless(CHROMIUM or os.environ.get("WK_INTEGRATION_STRICT"), "no chromium")
class TokenViewTest(PageTest):
    """A server with a token: the page's WebSocket and mesh files ask for it
    (?token=..., or an Authorization header), as its gRPC calls do."""
    WORLD_FILE = None  # the --world file; a LoadWorld would need the token

    @classmethod
    def setUpClass(cls):
        cls.dir_ = tempfile.mkdtemp(prefix="wk_view_token_")
        cls.addClassCleanup(shutil.rmtree, cls.dir_, True)
        cls.token_file = os.path.join(cls.dir_, "token")
        with open(cls.token_file, "w") as f:
            f.write(TOKEN + "\n")
        os.chmod(cls.token_file, 0o600)
        cls.SERVER_ARGS = ("--token-file", cls.token_file, "--world", MESH_WORLD, "--http", "127.0.0.1:0")
        super().setUpClass()

    def ws(self, query=""):
        return "ws" + self.url[len("http"):] + "ws" + query

    def test_the_stream_and_meshes_ask_for_the_token(self):
        for query in ("", "?token=wrong", "?token=" + TOKEN[:-1], "?tok=" + TOKEN):
            with self.assertRaises(websocket.WebSocketException, msg="refused with %r" % query):
                first_update(self.ws(query))
        first = first_update(self.ws("?token=" + urllib.parse.quote(TOKEN, safe="")))
        self.assertTrue(first["full"])
        first = first_update(self.ws(), header=["Authorization: Bearer " + TOKEN])
        stl = None
        types = {t["id"]: t["name"] for t in first["state"]["types"]}
        for block in first["state"]["blocks"]:
            for col in block.get("columns", []):
                for row, e in enumerate(block["ids"]):
                    if types[col["type"]] == "MeshFile" and base64.b64decode(col["values"][row]).endswith(b".stl"):
                        stl = e
        self.assertIsNotNone(stl)
        mesh = self.url + "mesh/" + stl
        for query in ("", "?token=wrong"):
            with self.assertRaises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(mesh + query, timeout=10)
            self.assertEqual(e.exception.code, 403)
        with urllib.request.urlopen(mesh + "?token=" + urllib.parse.quote(TOKEN, safe=""), timeout=10) as reply:
            self.assertEqual(reply.status, 200)

    def test_the_page_with_the_token_shows_the_world(self):
        browser = Browser(self.url + "?token=" + urllib.parse.quote(TOKEN, safe=""), self.dir)
        self.addCleanup(browser.close)
        view = self.until(browser, lambda v: sum(1 for x in v["visuals"] if x["mesh"]) >= 4, "the meshes")
        self.assertEqual(view["drawables"], 5)


@unittest.skipUnless(shutil.which("openssl"), "no openssl command to make certificates with")
class TlsViewTest(unittest.TestCase):
    """A server with TLS serves the view over HTTPS with its certificate,
    and nothing in plain HTTP."""

    def test_the_view_speaks_tls_with_the_servers_certificate(self):
        folder = tempfile.mkdtemp(prefix="wk_view_tls_")
        self.addCleanup(shutil.rmtree, folder, True)
        security.make_certificates(folder)
        ca = os.path.join(folder, "ca.pem")
        trusting = grpc.ssl_channel_credentials(root_certificates=security.read(ca))
        server = security.SecureServer("--tls-cert", os.path.join(folder, "server.pem"), "--tls-key",
                                       os.path.join(folder, "server.key"), "--http", "127.0.0.1:0",
                                       credentials=trusting)
        self.addCleanup(server.stop)
        url = view_address(server)
        self.assertTrue(url.startswith("https://"), url)
        context = ssl.create_default_context(cafile=ca)
        with urllib.request.urlopen(url, context=context, timeout=10) as reply:
            self.assertIn(b"view.js", reply.read())
        first = first_update("wss" + url[len("https"):] + "ws", sslopt={"ca_certs": ca})
        self.assertTrue(first["full"])
        with self.assertRaises((urllib.error.URLError, ConnectionError, http.client.HTTPException)):
            urllib.request.urlopen("http" + url[len("https"):], timeout=10)
        with self.assertRaises(urllib.error.URLError):  # a client that does not trust the certificate
            urllib.request.urlopen(url, context=ssl.create_default_context(), timeout=10)


class ReachableViewTest(unittest.TestCase):
    def test_a_reachable_address_without_tls_or_token_is_refused(self):
        code, err = security.run_serve("--http", "0.0.0.0:0")
        self.assertNotEqual(code, 0)
        self.assertIn("--http 0.0.0.0:0", err)
        self.assertIn("--token-file", err)
