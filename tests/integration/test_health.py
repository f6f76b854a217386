"""test_health.py — the standard health service, grpc.health.v1.Health,
called by grpcio: Check, and Watch's stream (the current status at once,
SERVICE_UNKNOWN for a name the server does not serve with the stream kept
open, NOT_SERVING when the server shuts down and then the stream's end),
with watches that do not hold the server's workers, and ones cancelled or
past their deadline that leave it serving.
"""
import signal
import threading
import time

import grpc

from . import harness

C = grpc.StatusCode
SI = "simulation_interfaces.SimulationInterfaces"
OWS = "intrinsic_proto.world.ObjectWorldService"
# A shutdown with only watches open must not wait for the server's grace
# (30 s) to pass.
PROMPT_STOP_SECONDS = 15


class Watching:
    """A Watch stream whose messages a thread collects as they come, so that
    a test can wait for the next with a timeout."""

    def __init__(self, channel, pb, service, timeout=None):
        h = pb.health
        watch = channel.unary_stream("/grpc.health.v1.Health/Watch",
                                     request_serializer=h.HealthCheckRequest.SerializeToString,
                                     response_deserializer=h.HealthCheckResponse.FromString)
        self.call = watch(h.HealthCheckRequest(service=service), timeout=timeout)
        self.statuses = []
        self.error = None
        self.ended = threading.Event()
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for reply in self.call:
                with self.changed:
                    self.statuses.append(reply.status)
                    self.changed.notify_all()
        except grpc.RpcError as e:
            self.error = e
        with self.changed:
            self.ended.set()
            self.changed.notify_all()

    def wait_for(self, count, seconds=harness.CALL_SECONDS):
        """The statuses once there are count of them (or the stream ended,
        or seconds passed)."""
        with self.changed:
            self.changed.wait_for(lambda: len(self.statuses) >= count or self.ended.is_set(), seconds)
            return list(self.statuses)

    def wait_end(self, seconds=harness.CALL_SECONDS):
        """The code the stream ended with (OK for a clean end), or None when
        it is still open after seconds."""
        if not self.ended.wait(seconds):
            return None
        return self.error.code() if self.error else C.OK


class HealthTest(harness.ServerTest):
    # Fewer workers than the watches opened below.
    SERVER_ARGS = ("--workers", "2")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.status = cls.pb.health.HealthCheckResponse

    def watch(self, service="", timeout=None):
        w = Watching(self.channel, self.pb, service, timeout)
        self.addCleanup(w.call.cancel)
        return w

    def test_check_answers_serving_and_not_found(self):
        for service in ("", SI, OWS):
            with self.subTest(service=service):
                self.assertEqual(self.health(service).status, self.status.SERVING)
        self.assertStatus(C.NOT_FOUND, self.health, "no.such.Service")

    def test_watch_sends_the_current_status_and_stays_open(self):
        for service in ("", SI, OWS):
            with self.subTest(service=service):
                w = self.watch(service)
                self.assertEqual(w.wait_for(1), [self.status.SERVING])
                # Nothing changes while the server runs: no second message,
                # and the stream stays open.
                self.assertIsNone(w.wait_end(0.5))
                self.assertEqual(w.wait_for(2, 0.1), [self.status.SERVING])

    def test_watch_of_an_unknown_service_says_so_and_stays_open(self):
        w = self.watch("no.such.Service")
        self.assertEqual(w.wait_for(1), [self.status.SERVICE_UNKNOWN])
        self.assertIsNone(w.wait_end(0.5))

    def test_watches_do_not_hold_the_workers(self):
        watches = [self.watch(SI if i % 2 else "") for i in range(8)]
        for w in watches:
            self.assertEqual(w.wait_for(1), [self.status.SERVING])
        # Two workers, eight open watches: ordinary calls still answer.
        self.assertEqual(self.health().status, self.status.SERVING)
        stub = self.pb.si_grpc.SimulationInterfacesStub(self.channel)
        stub.GetSimulatorFeatures(self.pb.si.GetSimulatorFeaturesRequest(), timeout=harness.CALL_SECONDS)

    def test_a_cancelled_watch_leaves_the_others(self):
        gone = self.watch("")
        kept = self.watch("")
        self.assertEqual(gone.wait_for(1), [self.status.SERVING])
        gone.call.cancel()
        self.assertEqual(gone.wait_end(), C.CANCELLED)
        self.assertEqual(kept.wait_for(1), [self.status.SERVING])
        self.assertIsNone(kept.wait_end(0.2))
        self.assertEqual(self.health().status, self.status.SERVING)

    def test_a_watch_ends_at_its_deadline(self):
        w = self.watch("", timeout=1.0)
        self.assertEqual(w.wait_for(1), [self.status.SERVING])
        self.assertEqual(w.wait_end(), C.DEADLINE_EXCEEDED)

    def test_a_watch_of_no_request_is_invalid(self):
        watch = self.channel.unary_stream("/grpc.health.v1.Health/Watch")
        with self.assertRaises(grpc.RpcError) as e:
            list(watch(harness.GARBAGE, timeout=harness.CALL_SECONDS))
        self.assertEqual(e.exception.code(), C.INVALID_ARGUMENT)


class ShutdownTest(harness.ServerTest):
    """The watchers of a server that stops hear NOT_SERVING, then their
    streams end; the server does not wait its grace for them."""

    def test_shutdown_turns_watches_not_serving(self):
        status = self.pb.health.HealthCheckResponse
        server_watch = Watching(self.channel, self.pb, "")
        service_watch = Watching(self.channel, self.pb, OWS)
        unknown_watch = Watching(self.channel, self.pb, "no.such.Service")
        self.assertEqual(server_watch.wait_for(1), [status.SERVING])
        self.assertEqual(service_watch.wait_for(1), [status.SERVING])
        self.assertEqual(unknown_watch.wait_for(1), [status.SERVICE_UNKNOWN])

        started = time.monotonic()
        self.server.proc.send_signal(signal.SIGTERM)
        for w in (server_watch, service_watch):
            self.assertEqual(w.wait_for(2), [status.SERVING, status.NOT_SERVING])
            self.assertEqual(w.wait_end(), C.UNAVAILABLE)
        self.assertEqual(unknown_watch.wait_end(), C.UNAVAILABLE)
        self.assertEqual(unknown_watch.statuses, [status.SERVICE_UNKNOWN])
        self.assertEqual(self.server.proc.wait(timeout=harness.STOP_SECONDS), 0, self.server.stderr())
        self.assertLess(time.monotonic() - started, PROMPT_STOP_SECONDS)
