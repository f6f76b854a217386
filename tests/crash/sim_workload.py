"""sim_workload.py — the crash test's simulation_interfaces client: it plays
the current world "world" (PLAYING, with one model moving) and spawns,
moves (SetEntityState) and deletes models in it, each call after the
previous one's answer, and keeps the model of what the world must hold:
every model it was answered OK for, at the pose it set. After a restart the
world must hold exactly those (the call in flight wholly or not at all),
seen alike through both services: GetEntities and ListObjects list the same
models, and GetEntityState and GetTransform give them the same poses. The
moving model is checked to be there only: its motion is checkpointed, not
journaled, so a kill loses up to --checkpoint-seconds of it.
"""
import collections
import math
import random

import grpc

from .workload import CALL_SECONDS, HISTORY, TURNS, CrashFailure

OK = 1
MAX_MODELS = 12
MOVER = "mover"
BOX = ("<sdf version='1.9'><model name='box'><link name='body'><collision name='c'><geometry><box>"
       "<size>0.5 0.5 0.5</size></box></geometry></collision></link></model></sdf>")
# Poses read back may differ from those set by a rounding of the world
# pose composed down the tree.
POSE_TOLERANCE = 1e-9
PLAYING = 1


class SimClient:
    """run() on a live server, verify() after each restart, as workload.Client."""

    def __init__(self, seed, pb):
        self.rng = random.Random("%d/sim" % seed)
        self.pb = pb
        self.models = {}  # name -> (x, y, z, qx, qy, qz, qw)
        self.pending = None  # (method, models as they are if it was applied)
        self.made = 0
        self.acked = collections.Counter()
        self.in_flight = collections.Counter()
        self.error = None
        self.history = collections.deque(maxlen=HISTORY)

    # ---- messages ----

    def pose_msg(self, t):
        si = self.pb.si
        return si.Pose(position=si.Point(x=t[0], y=t[1], z=t[2]),
                       orientation=si.Quaternion(x=t[3], y=t[4], z=t[5], w=t[6]))

    def random_pose(self):
        return tuple(self.rng.randrange(-4096, 4096) / 64 for _ in range(3)) + self.rng.choice(TURNS)

    # ---- the workload ----

    def run(self, channel, stopping):
        """As workload.Client.run: mutates until a call fails."""
        si = self.pb.si_grpc.SimulationInterfacesStub(channel)
        try:
            self.play(si)
            while not stopping.is_set():
                self.step(si)
        except grpc.RpcError as e:
            if not stopping.is_set():
                self.error = "sim client: %s failed: %s %s" % (self.pending and self.pending[0], e.code().name,
                                                             e.details())
        except ValueError as e:  # grpc's "Cannot invoke RPC on closed channel!"
            if not stopping.is_set():
                self.error = "sim client: %s: %s\n%s" % (type(e).__name__, e, self.last_calls())
        except Exception as e:  # a CrashFailure, or a bug of the test's own
            self.error = "sim client: %s: %s\n%s" % (type(e).__name__, e, self.last_calls())

    def last_calls(self):
        return "its last calls:\n" + "\n".join("  " + h for h in self.history)

    def check(self, reply, method):
        if reply.result.result != OK:
            raise CrashFailure("sim client: %s answered %d: %s" % (method, reply.result.result,
                                                                  reply.result.error_message))
        return reply

    def play(self, si):
        """The mover spawned once, given a twist, and the world set PLAYING
        (a restart brings it back stopped)."""
        si_msg = self.pb.si
        if MOVER not in self.models:
            self.spawn(si, MOVER, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0))
            twist = si_msg.EntityState(twist=si_msg.Twist(linear=si_msg.Vector3(x=0.25)))
            self.check(si.SetEntityState(si_msg.SetEntityStateRequest(entity=MOVER, state=twist, set_twist=True),
                                         timeout=CALL_SECONDS), "SetEntityState")
        state = si_msg.SetSimulationStateRequest(state=si_msg.SimulationState(state=PLAYING))
        si.SetSimulationState(state, timeout=CALL_SECONDS)  # ALREADY_IN_TARGET_STATE is fine

    def step(self, si):
        still = sorted(n for n in self.models if n != MOVER)
        choices = [(self.spawn_new, 1 if len(still) >= MAX_MODELS else 3)]
        if still:
            choices += [(self.move, 5), (self.delete, 2 if len(still) < MAX_MODELS else 4)]
        ops, weights = zip(*choices)
        self.rng.choices(ops, weights)[0](si, still)

    def call(self, method, after, stub, request):
        self.pending = (method, after)
        self.history.append("%s %s" % (method, str(request).replace("\n", " ")[:200]))
        return self.check(getattr(stub, method)(request, timeout=CALL_SECONDS), method)

    def acknowledge(self, after):
        self.acked[self.pending[0]] += 1
        self.models = after
        self.pending = None

    def spawn(self, si, name, pose):
        si_msg = self.pb.si
        after = dict(self.models)
        after[name] = pose
        req = si_msg.SpawnEntityRequest(name=name, entity_resource=si_msg.Resource(resource_string=BOX),
                                        initial_pose=si_msg.PoseStamped(pose=self.pose_msg(pose)))
        self.call("SpawnEntity", after, si, req)
        self.acknowledge(after)

    def spawn_new(self, si, _):
        self.made += 1
        self.spawn(si, "s%d_%d" % (self.rng.randrange(1 << 30), self.made), self.random_pose())

    def move(self, si, still):
        name = self.rng.choice(still)
        pose = self.random_pose()
        after = dict(self.models)
        after[name] = pose
        state = self.pb.si.EntityState(pose=self.pose_msg(pose))
        self.call("SetEntityState", after, si, self.pb.si.SetEntityStateRequest(entity=name, state=state,
                                                                                set_pose=True))
        self.acknowledge(after)

    def delete(self, si, still):
        name = self.rng.choice(still)
        after = dict(self.models)
        del after[name]
        self.call("DeleteEntity", after, si, self.pb.si.DeleteEntityRequest(entity=name))
        self.acknowledge(after)

    # ---- after a restart ----

    def read(self, channel):
        """The models as each service sees them: names to poses (GetEntities
        and GetEntityState), and the names ListObjects lists with their
        GetTransform poses."""
        si = self.pb.si_grpc.SimulationInterfacesStub(channel)
        ows = self.pb.ows_grpc.ObjectWorldServiceStub(channel)
        names = self.check(si.GetEntities(self.pb.si.GetEntitiesRequest(), timeout=CALL_SECONDS),
                           "GetEntities").entities
        seen = {}
        for name in names:
            p = self.check(si.GetEntityState(self.pb.si.GetEntityStateRequest(entity=name), timeout=CALL_SECONDS),
                           "GetEntityState").state.pose
            seen[name] = (p.position.x, p.position.y, p.position.z,
                          p.orientation.x, p.orientation.y, p.orientation.z, p.orientation.w)
        objects = ows.ListObjects(self.pb.ows.ListObjectsRequest(world_id="world"), timeout=CALL_SECONDS).objects
        listed = sorted(o.name for o in objects if o.name != "root")
        if listed != sorted(seen):
            raise CrashFailure("sim client: GetEntities lists %s, ListObjects %s" % (sorted(seen), listed))
        refs = self.pb.refs
        for name, pose in seen.items():
            node = refs.TransformNodeReference(by_name=refs.TransformNodeReferenceByName(
                object=refs.ObjectReferenceByName(object_name=name)))
            t = ows.GetTransform(self.pb.ows.GetTransformRequest(
                world_id="world", node_a=refs.TransformNodeReference(id="root"), node_b=node),
                timeout=CALL_SECONDS).a_t_b
            via_ows = (t.position.x, t.position.y, t.position.z,
                       t.orientation.x, t.orientation.y, t.orientation.z, t.orientation.w)
            if not same_pose(pose, via_ows):
                raise CrashFailure("sim client: %s is at %s to GetEntityState, %s to GetTransform" %
                                   (name, pose, via_ows))
        return seen

    def verify(self, channel):
        """The world holds every acknowledged change, and the one in flight
        wholly or not at all; the model becomes what it holds."""
        seen = self.read(channel)
        if MOVER in self.models and (MOVER not in seen or not all(map(math.isfinite, seen[MOVER]))):
            raise CrashFailure("sim client: the moving model is gone or not finite after a restart: %s" %
                               (seen.get(MOVER),))
        if matches(self.models, seen):
            if self.pending:
                self.in_flight[(self.pending[0], "absent")] += 1
        elif self.pending and matches(self.pending[1], seen):
            self.in_flight[(self.pending[0], "applied")] += 1
        else:
            raise CrashFailure("sim client after a restart: the world holds %s; acknowledged %s%s\n%s" %
                               (seen, self.models, "; in flight %s would leave %s" % self.pending
                                if self.pending else "", self.last_calls()))
        self.models = {n: seen[n] for n in seen}
        self.pending = None


def same_pose(a, b):
    # q and -q are the same turn.
    sign = -1.0 if sum(x * y for x, y in zip(a[3:], b[3:])) < 0 else 1.0
    return all(abs(x - y * (sign if i >= 3 else 1.0)) <= POSE_TOLERANCE for i, (x, y) in enumerate(zip(a, b)))


def matches(want, seen):
    """Whether the world seen holds exactly the models of want, each at its
    pose (the mover anywhere)."""
    return sorted(want) == sorted(seen) and all(n == MOVER or same_pose(want[n], seen[n]) for n in want)
