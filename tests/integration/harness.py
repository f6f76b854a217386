"""harness.py — what the integration tests share: Python stubs generated from
proto/ at test time by a real gRPC implementation (protoc with
grpc_python_plugin, run by Debian's python3-grpcio and python3-protobuf),
and a `worldkit serve` child process for the tests to call.

The client is deliberately not ours: nothing here links worldkit or reads
its C headers; what a test knows of the server is the .proto files, the
numeric result codes of simulation_interfaces (as wk_api.h defines them),
and gRPC's status codes.

Environment:
  WORLDKIT         the worldkit binary (CTest passes $<TARGET_FILE:worldkit_cli>)
  WK_PROTOC        protoc (default: protoc on PATH)
  WK_GRPC_PLUGIN   grpc_python_plugin (default /usr/bin/grpc_python_plugin)
  WK_PROTO_INCLUDE the folder holding google/protobuf/*.proto (default /usr/include)
"""
import atexit
import importlib
import importlib.util
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import grpc

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROTO_DIR = os.path.join(SOURCE, "proto")
WORLDS = os.path.join(SOURCE, "tests", "formats", "worlds")

# How long the server gets to print its address, and to exit after SIGTERM;
# generous because make check runs it under ASan beside other tests.
START_SECONDS = 60
STOP_SECONDS = 60
# Deadline of an ordinary call.
CALL_SECONDS = 30

# Result codes of simulation_interfaces (msg/Result and the services'
# own), the numbers of include/worldkit/wk_api.h.
FEATURE_UNSUPPORTED = 0
OK = 1
NOT_FOUND = 2
INCORRECT_STATE = 3
OPERATION_FAILED = 4
LOAD_UNSUPPORTED_FORMAT = 101
LOAD_NO_RESOURCE = 102
LOAD_RESOURCE_PARSE_ERROR = 103
LOAD_MISSING_ASSETS = 104
LOAD_UNSUPPORTED_ASSETS = 105
SPAWN_NAME_NOT_UNIQUE = 101
SPAWN_NAME_INVALID = 102
SPAWN_UNSUPPORTED_FORMAT = 103
SPAWN_NO_RESOURCE = 104
SPAWN_RESOURCE_PARSE_ERROR = 106
SPAWN_MISSING_ASSETS = 107
SPAWN_ENTITIES_FAILED = 150
SET_STATE_ALREADY_IN_TARGET_STATE = 101
SET_STATE_INCORRECT_TRANSITION = 103
SET_ENTITY_STATE_INVALID_POSE = 101
NO_WORLD_LOADED = 101
# msg/SimulationState
STATE_STOPPED, STATE_PLAYING, STATE_PAUSED, STATE_QUITTING, STATE_NO_WORLD = 0, 1, 2, 3, 4


class Stubs:
    """The generated modules, imported once per process from a temporary
    folder removed at exit."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="wk_stubs_")
        atexit.register(shutil.rmtree, self.dir, True)
        protos = []
        for root, _, names in os.walk(PROTO_DIR):
            protos += [os.path.relpath(os.path.join(root, n), PROTO_DIR) for n in names if n.endswith(".proto")]
        plugin = os.environ.get("WK_GRPC_PLUGIN", "/usr/bin/grpc_python_plugin")
        include = os.environ.get("WK_PROTO_INCLUDE", "/usr/include")
        protoc = os.environ.get("WK_PROTOC", "protoc")
        subprocess.run([protoc, "-I" + PROTO_DIR, "-I" + include, "--python_out=" + self.dir,
                        "--grpc_python_out=" + self.dir, "--plugin=protoc-gen-grpc_python=" + plugin]
                       + sorted(protos), check=True, cwd=PROTO_DIR)
        sys.path.insert(0, self.dir)
        self.si = importlib.import_module("simulation_interfaces.simulation_interfaces_pb2")
        self.si_grpc = importlib.import_module("simulation_interfaces.simulation_interfaces_pb2_grpc")
        self.ows = importlib.import_module("intrinsic.world.proto.object_world_service_pb2")
        self.ows_grpc = importlib.import_module("intrinsic.world.proto.object_world_service_pb2_grpc")
        self.refs = importlib.import_module("intrinsic.world.proto.object_world_refs_pb2")
        self.updates = importlib.import_module("intrinsic.world.proto.object_world_updates_pb2")
        self.geometry = importlib.import_module("intrinsic.world.proto.geometry_component_pb2")
        self.collision = importlib.import_module("intrinsic.world.proto.collision_settings_pb2")
        self.pose = importlib.import_module("intrinsic.math.proto.pose_pb2")
        self.levels = importlib.import_module("worldkit.levels_pb2")
        self.levels_grpc = importlib.import_module("worldkit.levels_pb2_grpc")
        self.watch = importlib.import_module("worldkit.watch_pb2")
        self.watch_grpc = importlib.import_module("worldkit.watch_pb2_grpc")
        # grpc/health/v1/health_pb2.py cannot be imported by its package
        # name, which is grpcio's own `grpc`: load it under another name.
        path = os.path.join(self.dir, "grpc", "health", "v1", "health_pb2.py")
        spec = importlib.util.spec_from_file_location("wk_health_pb2", path)
        self.health = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.health)


_stubs = None


def stubs():
    global _stubs
    if _stubs is None:
        _stubs = Stubs()
    return _stubs


def binary():
    path = os.environ.get("WORLDKIT")
    if not path:
        raise unittest.SkipTest("WORLDKIT names no worldkit binary (CTest passes it)")
    return path


class Server:
    """`worldkit serve` on a free loopback port, until stop(); in memory
    unless args name a --data directory (the later option wins)."""

    def __init__(self, *args, env=None):
        self.log = tempfile.NamedTemporaryFile(prefix="wk_serve_", suffix=".log", delete=False)
        self.args = [binary(), "serve", "--listen", "127.0.0.1:0", "--memory"] + list(args)
        # Unbuffered: _wait_address reads the first line byte by byte
        # between select() calls.
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=self.log, bufsize=0,
                                     env=dict(os.environ, **(env or {})))
        self.address = self._wait_address()
        self.channel = grpc.insecure_channel(self.address)
        self._wait_healthy()

    def _wait_address(self):
        """The HOST:PORT of the "worldkit: serving on HOST:PORT" line."""
        end = time.monotonic() + START_SECONDS
        line = b""
        while time.monotonic() < end and not line.endswith(b"\n"):
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if ready:
                byte = self.proc.stdout.read(1)
                if not byte:
                    break
                line += byte
        text = line.decode(errors="replace").strip()
        prefix = "worldkit: serving on "
        if not text.startswith(prefix):
            self.proc.kill()
            self.proc.wait()
            self.proc.stdout.close()
            raise RuntimeError("%s did not start (first line %r):\n%s" % (" ".join(self.args), text, self.stderr()))
        return text[len(prefix):]

    def _wait_healthy(self):
        h = stubs().health
        check = self.channel.unary_unary("/grpc.health.v1.Health/Check",
                                         request_serializer=h.HealthCheckRequest.SerializeToString,
                                         response_deserializer=h.HealthCheckResponse.FromString)
        reply = check(h.HealthCheckRequest(service=""), timeout=START_SECONDS, wait_for_ready=True)
        if reply.status != h.HealthCheckResponse.SERVING:
            raise RuntimeError("the server answers health status %d" % reply.status)

    def stderr(self):
        self.log.flush()
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def stop(self):
        """SIGTERM, then the exit status (0 for a graceful shutdown, which
        under ASan also means no leak was reported) and the server's
        stderr."""
        self.channel.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = "still running %d s after SIGTERM (killed)" % STOP_SECONDS
        return self._ended(code)

    def kill(self):
        """SIGKILL, then the exit status (-9 unless the server had ended on
        its own before) and the server's stderr. The calls in flight meet
        the kill, not a closing channel."""
        self.proc.send_signal(signal.SIGKILL)
        code = self.proc.wait()
        self.channel.close()
        return self._ended(code)

    def _ended(self, code):
        self.proc.stdout.close()
        err = self.stderr()
        self.log.close()
        os.unlink(self.log.name)
        return code, err


class ServerTest(unittest.TestCase):
    """A test case with one server for all its tests, started before the
    first and stopped after the last; stopping must exit 0. SERVER_ARGS
    are the arguments after `serve --listen 127.0.0.1:0 --memory`, SERVER_ENV
    variables added to its environment."""

    SERVER_ARGS = ()
    SERVER_ENV = {}

    @classmethod
    def setUpClass(cls):
        cls.pb = stubs()
        cls.server = Server(*cls.SERVER_ARGS, env=cls.SERVER_ENV)
        cls.channel = cls.server.channel
        # A cleanup, not tearDownClass: it also runs when the rest of a
        # subclass's setUpClass fails.
        cls.addClassCleanup(cls.stop_server)

    @classmethod
    def stop_server(cls):
        code, err = cls.server.stop()
        if code != 0:
            raise AssertionError("worldkit serve did not exit 0 after SIGTERM but %s; its stderr:\n%s" % (code, err))

    def health(self, service="", timeout=CALL_SECONDS):
        h = self.pb.health
        check = self.channel.unary_unary("/grpc.health.v1.Health/Check",
                                         request_serializer=h.HealthCheckRequest.SerializeToString,
                                         response_deserializer=h.HealthCheckResponse.FromString)
        return check(h.HealthCheckRequest(service=service), timeout=timeout)

    def assertStatus(self, code, call, *args, culprit=None, **kwargs):
        """Calls call(*args, **kwargs), which must fail with the gRPC status
        code (a grpc.StatusCode, or a tuple of those) and, when culprit is
        given, a message naming it; returns the error."""
        kwargs.setdefault("timeout", CALL_SECONDS)
        codes = code if isinstance(code, tuple) else (code,)
        try:
            reply = call(*args, **kwargs)
        except grpc.RpcError as e:
            if e.code() not in codes:
                self.fail("expected %s, got %s: %s" % ("/".join(c.name for c in codes), e.code().name, e.details()))
            if culprit is not None:
                self.assertIn(culprit, e.details() or "", "the message does not name the culprit")
            return e
        self.fail("expected %s, got OK: %s" % ("/".join(c.name for c in codes), reply))

    def assertResult(self, want, reply, what="", culprit=None):
        """reply.result (a simulation_interfaces Result) holds the code want
        and, when culprit is given, an error message naming it."""
        got = reply.result.result
        if got != want:
            self.fail("%sresult %d, expected %d: %s" % (what + ": " if what else "", got, want,
                                                         reply.result.error_message))
        if culprit is not None:
            self.assertIn(culprit, reply.result.error_message, "the message does not name the culprit")
        return reply


# A request no protobuf reader accepts: a varint cut short.
GARBAGE = b"\xff\xff"


def needs(*methods):
    """Skips the test when the server answers UNIMPLEMENTED for one of
    methods of the test case's SERVICE (probed once per server into its
    `unserved` set), naming them; WK_INTEGRATION_STRICT=1 makes that a
    failure instead. The methods being written are served as they land,
    and their tests then run without a change here."""
    def wrap(test):
        def run(self):
            missing = [m for m in methods if m in self.unserved]
            if missing:
                why = "not served (UNIMPLEMENTED): " + ", ".join(self.SERVICE + "/" + m for m in missing)
                if os.environ.get("WK_INTEGRATION_STRICT") == "1":
                    self.fail(why)
                self.skipTest(why)
            return test(self)
        run.__name__ = test.__name__
        run.__doc__ = test.__doc__
        return run
    return wrap


def probe_unserved(channel, service, methods, streaming=()):
    """The methods of service the server answers UNIMPLEMENTED, asked with a
    request that does not parse, so that a served method fails without
    acting (INVALID_ARGUMENT)."""
    unserved = set()
    for m in methods:
        path = "/%s/%s" % (service, m)
        if m in streaming:
            call = channel.unary_stream(path)
            try:
                for _ in call(GARBAGE, timeout=CALL_SECONDS):
                    pass
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.UNIMPLEMENTED:
                    unserved.add(m)
        else:
            try:
                channel.unary_unary(path)(GARBAGE, timeout=CALL_SECONDS)
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.UNIMPLEMENTED:
                    unserved.add(m)
    return unserved


def in_threads(client, count):
    """Runs client(k, errors) for k in 0..count-1, each in a thread of its
    own, and returns the errors they appended; an RpcError ends a client
    and counts as one."""
    errors = []

    def run(k):
        try:
            client(k, errors)
        except grpc.RpcError as e:
            errors.append("thread %d: %s %s" % (k, e.code().name, e.details()))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def world(name):
    return os.path.join(WORLDS, name)
