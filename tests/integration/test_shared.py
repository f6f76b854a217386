"""test_shared.py — two `worldkit serve --store postgresql://...` on one
database, seen through gRPC: ListWorlds names each world's holder in
WorldMetadata's field of worldkit's own (owner, 100), and so do
`worldkit worlds`, GetWorld and CloneWorld; CreateWorld without an id, through either server, never
gives an id the other gave.

Run inside tests/store/with_postgres.sh, which starts the database and
names it in WK_TEST_PG_URL; skipped without it.
"""
import json
import os
import subprocess
import unittest

from . import harness


class SharedDatabase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        url = os.environ.get("WK_TEST_PG_URL")
        if not url:
            raise unittest.SkipTest("no WK_TEST_PG_URL (tests/store/with_postgres.sh sets it)")
        cls.pb = harness.stubs()
        cls.servers = []
        cls.addClassCleanup(cls.stop_servers)
        cls.servers = [harness.Server("--store", url) for _ in range(2)]
        cls.stubs = [cls.pb.ows_grpc.ObjectWorldServiceStub(s.channel) for s in cls.servers]

    @classmethod
    def stop_servers(cls):
        for s in cls.servers:
            code, err = s.stop()
            if code != 0:
                raise AssertionError("worldkit serve did not exit 0 after SIGTERM but %s; its stderr:\n%s"
                                     % (code, err))

    def create(self, server, world_id=""):
        m = self.pb.ows
        reply = self.stubs[server].CreateWorld(m.CreateWorldRequest(world=m.World(
            world_metadata=m.WorldMetadata(id=world_id))), timeout=harness.CALL_SECONDS)
        self.addCleanup(self.stubs[server].DeleteWorld, m.DeleteWorldRequest(world_id=reply.id),
                        timeout=harness.CALL_SECONDS)
        return reply

    def test_listing_names_owners(self):
        self.create(0, "held_by_0")
        self.create(1, "held_by_1")
        want = {"held_by_0": self.servers[0].address, "held_by_1": self.servers[1].address}
        for stub in self.stubs:
            reply = stub.ListWorlds(self.pb.ows.ListWorldsRequest(), timeout=harness.CALL_SECONDS)
            got = {m.id: m.owner for m in reply.world_metadatas if m.id in want}
            self.assertEqual(got, want)
        out = subprocess.run([harness.binary(), "worlds", "--server", self.servers[1].address],
                             capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        listed = {m["id"]: m.get("owner") for m in json.loads(out.stdout)["worldMetadatas"]}
        self.assertEqual(listed["held_by_0"], self.servers[0].address)
        self.assertEqual(listed["held_by_1"], self.servers[1].address)

    def test_get_world_and_clone_world_name_the_owner(self):
        m = self.pb.ows
        for k in range(2):
            world_id = self.create(k, "owned_by_%d" % k).id
            got = self.stubs[k].GetWorld(m.GetWorldRequest(world_id=world_id), timeout=harness.CALL_SECONDS)
            self.assertEqual(got.owner, self.servers[k].address)
            clone = self.stubs[k].CloneWorld(m.CloneWorldRequest(world_id=world_id, cloned_world_id=world_id + "_clone"),
                                             timeout=harness.CALL_SECONDS)
            self.addCleanup(self.stubs[k].DeleteWorld, m.DeleteWorldRequest(world_id=clone.id),
                            timeout=harness.CALL_SECONDS)
            self.assertEqual(clone.owner, self.servers[k].address)

    def test_picked_ids_never_clash(self):
        ids = [self.create(k % 2).id for k in range(6)]
        self.assertEqual(len(set(ids)), 6, ids)


if __name__ == "__main__":
    unittest.main()
