"""test_security.py — `worldkit serve` with a bearer token and with TLS,
called by grpcio: a call without the token or with a wrong one fails
UNAUTHENTICATED and the right one goes through; the health check needs no
token; over TLS a client that trusts the server's certificate gets through
and a plaintext one does not; with a client CA only a client holding a
certificate that CA signed does; an address other machines reach is refused
without TLS or a token, and so are a token file every user can read and an
empty one. `worldkit call` reaches the secured servers with its
--token-file and --tls-ca.

The certificates are made at test time with the openssl command; the TLS
tests are skipped where it is not installed.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

import grpc

from . import harness

C = grpc.StatusCode
TOKEN = "s3cret-t0ken_for.the+test/only=="


def write_file(path, text, mode=0o600):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def run_serve(*args):
    """Runs `worldkit serve ARGS` to its end, for servers that must refuse
    to start; the exit status and stderr."""
    p = subprocess.run([harness.binary(), "serve", "--memory"] + list(args), capture_output=True, text=True,
                       timeout=harness.START_SECONDS)
    return p.returncode, p.stderr


def call_cli(address, *args):
    """`worldkit worlds --server ADDRESS ARGS`: the exit status and output."""
    p = subprocess.run([harness.binary(), "worlds", "--server", address, "--timeout", "30"] + list(args),
                       capture_output=True, text=True, timeout=harness.START_SECONDS)
    return p.returncode, p.stdout + p.stderr


def list_worlds(pb, channel, metadata=None):
    stub = pb.ows_grpc.ObjectWorldServiceStub(channel)
    return stub.ListWorlds(pb.ows.ListWorldsRequest(), metadata=metadata, timeout=harness.CALL_SECONDS)


class TokenTest(harness.ServerTest):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="wk_token_")
        cls.addClassCleanup(shutil.rmtree, cls.dir, True)
        cls.token_file = write_file(os.path.join(cls.dir, "token"), TOKEN + "\n")
        cls.SERVER_ARGS = ("--token-file", cls.token_file)
        super().setUpClass()

    def ows_call(self, metadata, timeout=harness.CALL_SECONDS):
        stub = self.pb.ows_grpc.ObjectWorldServiceStub(self.channel)
        return stub.ListWorlds(self.pb.ows.ListWorldsRequest(), metadata=metadata, timeout=timeout)

    def test_a_call_without_token_is_unauthenticated(self):
        e = self.assertStatus(C.UNAUTHENTICATED, self.ows_call, None)
        self.assertIn("bearer token", e.details())

    def test_a_wrong_token_is_unauthenticated(self):
        for value in ("Bearer wrong", "Bearer " + TOKEN[:-1], "Bearer " + TOKEN + "x", "Basic " + TOKEN, TOKEN,
                      "Bearer "):
            with self.subTest(value=value):
                self.assertStatus(C.UNAUTHENTICATED, self.ows_call, (("authorization", value),))

    def test_the_right_token_goes_through(self):
        reply = self.ows_call((("authorization", "Bearer " + TOKEN),))
        self.assertIsInstance(reply, self.pb.ows.ListWorldsResponse)
        # The scheme's case is free (RFC 7235).
        self.ows_call((("authorization", "bearer " + TOKEN),))

    def test_every_service_asks_for_it(self):
        stub = self.pb.si_grpc.SimulationInterfacesStub(self.channel)
        self.assertStatus(C.UNAUTHENTICATED, stub.GetSimulationState, self.pb.si.GetSimulationStateRequest())
        # An unknown method says no more than a known one.
        unknown = self.channel.unary_unary("/no.Such/Method")
        self.assertStatus(C.UNAUTHENTICATED, unknown, b"")

    def test_health_needs_no_token(self):
        self.assertEqual(self.health().status, self.pb.health.HealthCheckResponse.SERVING)

    def test_a_compressed_health_check_is_refused_from_its_headers(self):
        # The door open to anyone: a megabyte of gzip inflating to 1 GiB,
        # sent here without a token, took 11 s of CPU and 1.5 GB before the
        # size limit refused it. 64 MiB of zeros is some 64 KB of gzip.
        check = self.channel.unary_unary("/grpc.health.v1.Health/Check")
        zeros = self.pb.health.HealthCheckRequest(service="\0" * (64 << 20)).SerializeToString()
        self.assertStatus(C.UNIMPLEMENTED, check, zeros, compression=grpc.Compression.Gzip, culprit="gzip")
        self.assertEqual(self.health().status, self.pb.health.HealthCheckResponse.SERVING)

    def test_worldkit_call_sends_the_token_file(self):
        code, out = call_cli(self.server.address)
        self.assertEqual(code, 1, out)
        self.assertIn("UNAUTHENTICATED", out)
        wrong = write_file(os.path.join(self.dir, "wrong"), "not-the-token\n")
        code, out = call_cli(self.server.address, "--token-file", wrong)
        self.assertIn("UNAUTHENTICATED", out)
        code, out = call_cli(self.server.address, "--token-file", self.token_file)
        self.assertEqual(code, 0, out)
        self.assertIn("{", out)


class TokenFileTest(unittest.TestCase):
    """Token files the server refuses, and an address it refuses without
    one."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="wk_token_")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def test_a_reachable_address_without_tls_or_token_is_refused(self):
        code, err = run_serve("--listen", "0.0.0.0:0")
        self.assertEqual(code, 1, err)
        self.assertIn("TLS", err)
        self.assertIn("--token-file", err)

    def test_a_token_file_every_user_can_read_is_refused(self):
        path = write_file(os.path.join(self.dir, "token"), TOKEN, 0o644)
        code, err = run_serve("--listen", "0.0.0.0:0", "--token-file", path)
        self.assertEqual(code, 1, err)
        self.assertIn(path, err)
        self.assertIn("chmod 600", err)

    def test_an_empty_token_is_refused(self):
        path = write_file(os.path.join(self.dir, "token"), " \n")
        code, err = run_serve("--token-file", path)
        self.assertEqual(code, 1, err)
        self.assertIn("no token", err)

    def test_a_missing_token_file_is_refused(self):
        path = os.path.join(self.dir, "nothing")
        code, err = run_serve("--token-file", path)
        self.assertEqual(code, 1, err)
        self.assertIn(path, err)

    def test_a_reachable_address_with_a_token_serves(self):
        path = write_file(os.path.join(self.dir, "token"), TOKEN)
        server = harness.Server("--listen", "0.0.0.0:0", "--token-file", path)
        try:
            port = server.address.rsplit(":", 1)[1]
            with grpc.insecure_channel("127.0.0.1:" + port) as channel:
                list_worlds(harness.stubs(), channel, (("authorization", "Bearer " + TOKEN),))
        finally:
            code, err = server.stop()
        self.assertEqual(code, 0, err)


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, capture_output=True, timeout=60)


def make_certificates(folder):
    """A CA, a server certificate for localhost and 127.0.0.1, and a client
    certificate, both signed by the CA; and a second CA that signed
    nothing here."""
    ext = write_file(os.path.join(folder, "server.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    for ca in ("ca", "other_ca"):
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", ca + ".key", "-out", ca + ".pem", "-days", "2", "-subj", "/CN=worldkit test " + ca,
                cwd=folder)
    for name in ("server", "client"):
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                name + ".key", "-out", name + ".csr", "-subj", "/CN=" + ("localhost" if name == "server" else name),
                cwd=folder)
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", name + ".pem", "-days", "2", *(("-extfile", ext) if name == "server" else ()), cwd=folder)


def read(path):
    with open(path, "rb") as f:
        return f.read()


class SecureServer(harness.Server):
    """harness.Server whose channel speaks TLS with credentials."""

    def __init__(self, *args, credentials):
        self.credentials = credentials
        super().__init__(*args)

    def _wait_healthy(self):
        self.channel.close()
        self.channel = grpc.secure_channel(self.address, self.credentials)
        super()._wait_healthy()


@unittest.skipUnless(shutil.which("openssl"), "no openssl command to make certificates with")
class TlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pb = harness.stubs()
        cls.dir = tempfile.mkdtemp(prefix="wk_tls_")
        cls.addClassCleanup(shutil.rmtree, cls.dir, True)
        make_certificates(cls.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def serve(self, *extra, credentials):
        server = SecureServer("--tls-cert", self.path("server.pem"), "--tls-key", self.path("server.key"), *extra,
                              credentials=credentials)
        self.addCleanup(self.stopped, server)
        return server

    def stopped(self, server):
        code, err = server.stop()
        self.assertEqual(code, 0, err)

    def test_a_tls_client_gets_through_and_a_plaintext_one_does_not(self):
        trusting = grpc.ssl_channel_credentials(root_certificates=read(self.path("ca.pem")))
        server = self.serve(credentials=trusting)
        list_worlds(self.pb, server.channel)
        with grpc.insecure_channel(server.address) as plain:
            with self.assertRaises(grpc.RpcError) as e:
                list_worlds(self.pb, plain)
            self.assertEqual(e.exception.code(), C.UNAVAILABLE)
        # A client that trusts another CA does not take the server's word.
        other = grpc.ssl_channel_credentials(root_certificates=read(self.path("other_ca.pem")))
        with grpc.secure_channel(server.address, other) as wrong:
            with self.assertRaises(grpc.RpcError) as e:
                list_worlds(self.pb, wrong)
            self.assertEqual(e.exception.code(), C.UNAVAILABLE)
        code, out = call_cli(server.address, "--tls-ca", self.path("ca.pem"))
        self.assertEqual(code, 0, out)
        code, out = call_cli(server.address)
        self.assertEqual(code, 1, out)

    def test_a_client_ca_takes_only_clients_it_signed(self):
        ca = read(self.path("ca.pem"))
        holder = grpc.ssl_channel_credentials(root_certificates=ca, private_key=read(self.path("client.key")),
                                              certificate_chain=read(self.path("client.pem")))
        server = self.serve("--tls-client-ca", self.path("ca.pem"), credentials=holder)
        list_worlds(self.pb, server.channel)
        with grpc.secure_channel(server.address, grpc.ssl_channel_credentials(root_certificates=ca)) as anonymous:
            with self.assertRaises(grpc.RpcError) as e:
                list_worlds(self.pb, anonymous)
            self.assertEqual(e.exception.code(), C.UNAVAILABLE)
        code, out = call_cli(server.address, "--tls-ca", self.path("ca.pem"), "--tls-cert", self.path("client.pem"),
                             "--tls-key", self.path("client.key"))
        self.assertEqual(code, 0, out)

    def test_tls_and_a_token_together(self):
        token = write_file(self.path("token"), TOKEN)
        trusting = grpc.ssl_channel_credentials(root_certificates=read(self.path("ca.pem")))
        server = self.serve("--token-file", token, credentials=trusting)
        with grpc.secure_channel(server.address, trusting) as channel:
            with self.assertRaises(grpc.RpcError) as e:
                list_worlds(self.pb, channel)
            self.assertEqual(e.exception.code(), C.UNAUTHENTICATED)
            list_worlds(self.pb, channel, (("authorization", "Bearer " + TOKEN),))

    def test_a_key_without_certificate_is_refused(self):
        code, err = run_serve("--tls-key", self.path("server.key"))
        self.assertEqual(code, 1, err)
        self.assertIn("certificate", err)

    def test_a_certificate_that_is_no_pem_is_refused(self):
        not_pem = write_file(self.path("not.pem"), "hello\n")
        code, err = run_serve("--listen", "127.0.0.1:0", "--tls-cert", not_pem, "--tls-key", self.path("server.key"))
        self.assertEqual(code, 1, err)
        self.assertIn("TLS", err)


if __name__ == "__main__":
    unittest.main()
