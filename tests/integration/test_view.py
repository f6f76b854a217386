"""test_view.py — the live view (`worldkit serve --http`, web/) in a real
browser: Debian's Chromium, headless, opens the page on the levels
tutorial's world (tests/formats/worlds/levels_one_performer.sdf: R1 in L1,
which holds M1 and M3; L3 holds M3, M4 and M5) and the test reads what the
page itself says (its DOM: #summary, written by web/view.js) and shows
(a screenshot):

- one drawable per visual, against the server's own state (the Kind of
  every entity in WorldWatch/Watch's full state, over gRPC);
- each model's colour in the screenshot where its pose projects;
- a SetEntityState over gRPC on the page within 1 s of the call;
- a level unloaded by the performer's move: its models gone from the page.
"""
import base64
import json
import os
import re
import select
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import urllib.request
import zlib

from . import harness
from .harness import OK, STATE_PAUSED

WORLD = harness.world("levels_one_performer.sdf")
CHROMIUM = shutil.which("chromium")
WINDOW = (1000, 700)
VISUAL = 5  # the Kind of a visual (wk_node_kind)


def read_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        prev = line
    return width, height, rows


class Browser:
    """Headless Chromium on url, asked over its DevTools protocol (a
    WebSocket, spoken here with the standard library) for the page's
    window.wkView and for screenshots."""

    def __init__(self, url, folder):
        self.proc = subprocess.Popen([CHROMIUM, "--headless", "--no-sandbox", "--use-angle=swiftshader",
                                      "--enable-unsafe-swiftshader", "--window-size=%d,%d" % WINDOW,
                                      "--remote-debugging-port=0", "--user-data-dir=" + os.path.join(folder, "p"),
                                      url], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
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
        target = urllib.parse.urlparse(pages[0]["webSocketDebuggerUrl"])
        self.sock = socket.create_connection((target.hostname, target.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
                           % (target.path, target.hostname, target.port, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self._exactly(1)
        assert b" 101 " in head.split(b"\r\n")[0], head
        self.next_id = 0

    def _exactly(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("DevTools closed")
            data += chunk
        return data

    def call(self, method, **params):
        """A DevTools method's result (one text frame out, masked; frames in
        until the answer to it)."""
        self.next_id += 1
        body = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        size = len(body)
        if size < 126:
            head = bytes([0x81, 0x80 | size])
        elif size < 65536:
            head = bytes([0x81, 0x80 | 126]) + struct.pack(">H", size)
        else:
            head = bytes([0x81, 0x80 | 127]) + struct.pack(">Q", size)
        mask = os.urandom(4)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(body)))
        while True:
            size = self._exactly(2)[1] & 0x7F
            if size == 126:
                size = struct.unpack(">H", self._exactly(2))[0]
            elif size == 127:
                size = struct.unpack(">Q", self._exactly(8))[0]
            reply = json.loads(self._exactly(size))
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
        self.proc.kill()
        self.proc.wait()
        self.proc.stderr.close()


@unittest.skipUnless(CHROMIUM or os.environ.get("WK_INTEGRATION_STRICT"), "no chromium")
class ViewTest(harness.ServerTest):
    SERVER_ARGS = ("--levels", "--world", WORLD, "--http", "127.0.0.1:0")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.si = cls.pb.si
        cls.stub = cls.pb.si_grpc.SimulationInterfacesStub(cls.channel)
        cls.url = cls.view_address()

    @classmethod
    def view_address(cls):
        """The page's address, from the server's second line."""
        line, end = b"", time.monotonic() + 10
        while not line.endswith(b"\n") and time.monotonic() < end:
            if select.select([cls.server.proc.stdout], [], [], 0.5)[0]:
                line += cls.server.proc.stdout.read(1)
        m = re.match(r"worldkit: live view on (http://\S+)", line.decode())
        if not m:
            raise RuntimeError("no live view address, but %r" % line)
        return m.group(1)

    def setUp(self):
        self.assertResult(OK, self.stub.LoadWorld(self.si.LoadWorldRequest(uri=WORLD), timeout=harness.CALL_SECONDS))
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
        shot = os.path.join(self.dir, "view.png")
        browser.screenshot(shot)
        width, height, rows = read_png(shot)
        self.assertEqual(width, WINDOW[0])
        for v in view["visuals"]:
            want = tuple(int(v["colour"][i:i + 2], 16) for i in (1, 3, 5))
            near = [rows[y][x] for y in range(max(v["py"] - 6, 0), min(v["py"] + 7, height))
                    for x in range(max(v["px"] - 6, 0), min(v["px"] + 7, width))]
            self.assertTrue(any(max(abs(a - b) for a, b in zip(px, want)) <= 8 for px in near),
                            "%s's colour %s not near (%d, %d) in the screenshot" % (v["model"], v["colour"],
                                                                                   v["px"], v["py"]))
        if os.environ.get("WK_VIEW_SCREENSHOT"):
            shutil.copy(shot, os.environ["WK_VIEW_SCREENSHOT"])

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
        self.assertIn("M1", {e["name"] for e in view["log"]}, "M1 was there before")
        self.assertEqual(view["drawables"], len(self.visual_models()))
