"""workload.py — one client of the crash test: a stream of ObjectWorldService
mutations on worlds of its own (ids "c<k>_w<n>"), and the model of what
those worlds must hold.

The model holds what the server acknowledged, with the values its replies
gave: per world its user tag, every object's id, parent and parent_t_this,
every frame's id, parent frame and parent_t_this. A call that failed
because the server was killed under it is "in flight": the model then also
keeps the worlds as they are if it was applied whole. After a restart the
worlds must equal one or the other, compared in full (a batch half applied
equals neither), and the model takes what the server holds.

Batches (UpdateWorldResources) are made so that a partial one shows: they
create several frames at a parking pose, then move each elsewhere, rename
the object holding them and sometimes delete another object.
"""
import collections
import copy
import random

import grpc
from google.protobuf import text_format

CALL_SECONDS = 20
# How far a pose the server answered may be from the one asked for: it
# composes poses when the node moved is not the child of node_a's.
POSE_TOLERANCE = 1e-9
ROOT = "root"
# Where a batch's frames are made before it moves them.
PARKED = (0.0, 0.0, -100.0, 0.0, 0.0, 0.0, 1.0)
# Unit quaternions (x, y, z, w) whose components are exact in binary.
TURNS = [(0.0, 0.0, 0.0, 1.0)] + [(sx * 0.5, sy * 0.5, sz * 0.5, 0.5)
                                  for sx in (1, -1) for sy in (1, -1) for sz in (1, -1)]
MAX_WORLDS = 3
MAX_OBJECTS = 20
HISTORY = 12


class CrashFailure(Exception):
    """What the crash test found wrong."""


class Unknown:
    """Equal to any value: the id of an entity whose creation was in flight."""

    def __eq__(self, other):
        return True

    def __repr__(self):
        return "<unknown id>"


UNKNOWN = Unknown()


class Near:
    """A pose asked for whose answer did not come: equal to a pose within
    POSE_TOLERANCE of it."""

    def __init__(self, pose):
        self.pose = pose

    def __eq__(self, other):
        other = other.pose if isinstance(other, Near) else other
        return len(other) == 7 and all(abs(a - b) <= POSE_TOLERANCE for a, b in zip(self.pose, other))

    def __repr__(self):
        return "~%r" % (self.pose,)


def pose_tuple(p):
    return (p.position.x, p.position.y, p.position.z,
            p.orientation.x, p.orientation.y, p.orientation.z, p.orientation.w)


class World:
    """objects: name -> (id, parent name, pose); frames: (object name,
    frame name) -> (id, parent frame name or "", pose); retired: the ids of
    the objects and frames deleted, which must not come back (a restart that
    forgot which ids were used would hand them out again). The contents
    move together: a swap exchanges them, a clone copies them."""

    def __init__(self, tag):
        self.tag = tag
        self.objects = {}
        self.frames = {}
        self.retired = set()

    def __eq__(self, other):
        return (self.tag, self.objects, self.frames) == (other.tag, other.objects, other.frames)

    def differences(self, actual):
        """What actual holds otherwise, one line a difference."""
        out = [] if self.tag == actual.tag else ["user tag %r, expected %r" % (actual.tag, self.tag)]
        for kind, want, got in (("object", self.objects, actual.objects), ("frame", self.frames, actual.frames)):
            for key in sorted(set(want) | set(got), key=str):
                if key not in got:
                    out.append("%s %s missing (expected %r)" % (kind, key, want[key]))
                elif key not in want:
                    out.append("%s %s unexpected: %r" % (kind, key, got[key]))
                elif want[key] != got[key]:
                    out.append("%s %s is %r, expected %r" % (kind, key, got[key], want[key]))
        return out

    def subtree(self, name):
        """name and the objects below it."""
        out = {name}
        grew = True
        while grew:
            below = {o for o, (_, parent, _) in self.objects.items() if parent in out}
            grew = not below <= out
            out |= below
        return out

    def delete(self, name):
        gone = self.subtree(name)
        self.retired |= {v[0] for o, v in self.objects.items() if o in gone and v[0] is not UNKNOWN}
        self.retired |= {v[0] for k, v in self.frames.items() if k[0] in gone and v[0] is not UNKNOWN}
        self.objects = {o: v for o, v in self.objects.items() if o not in gone}
        self.frames = {k: v for k, v in self.frames.items() if k[0] not in gone}

    def rename(self, old, new):
        self.objects = {(new if o == old else o): (i, new if p == old else p, pose)
                        for o, (i, p, pose) in self.objects.items()}
        self.frames = {((new if o == old else o), f): v for (o, f), v in self.frames.items()}

    def ids_back(self):
        """The ids of deleted objects and frames that are there again."""
        return ({v[0] for v in self.objects.values()} | {v[0] for v in self.frames.values()}) & self.retired

    def leaves(self):
        parents = {p for _, p, _ in self.objects.values()}
        return [o for o in self.objects if o not in parents]


def world_from_objects(objects, tag, what):
    """The World a FULL view of every object describes."""
    w = World(tag)
    roots = 0
    for o in objects:
        if o.name == ROOT:
            roots += 1
            continue
        w.objects[o.name] = (o.id, o.parent.name, pose_tuple(o.object_component.parent_t_this))
        for f in o.frames:
            w.frames[(o.name, f.name)] = (f.id, f.parent_frame.name, pose_tuple(f.parent_t_this))
    if roots != 1:
        raise CrashFailure("%s: %d root objects" % (what, roots))
    return w


def settle(want, got, what):
    """got, after checking that it is what want describes."""
    if want != got:
        raise CrashFailure("%s: %r, expected %r" % (what, got, want))
    return got


class Client:
    """The workload of client k: run() on a live server, then verify()
    after each restart. Counters: acked (per method), in_flight (per method
    and "applied" or "absent", as found after the restart)."""

    def __init__(self, k, seed, pb):
        self.k = k
        self.prefix = "c%d_" % k
        self.rng = random.Random("%d/%d" % (seed, k))
        self.pb = pb
        self.worlds = {}
        self.pending = None  # (method, worlds as they are if it was applied)
        self.made = 0
        self.acked = collections.Counter()
        self.in_flight = collections.Counter()
        self.error = None
        self.history = collections.deque(maxlen=HISTORY)  # the last calls, for a failure's report

    # ---- messages ----

    def fresh(self, kind):
        self.made += 1
        return "%s%d" % (kind, self.made)

    def random_pose(self):
        position = tuple(self.rng.randrange(-4096, 4096) / 64 for _ in range(3))
        return position + self.rng.choice(TURNS)

    def pose(self, t):
        p = self.pb.pose.Pose()
        p.position.x, p.position.y, p.position.z = t[:3]
        p.orientation.x, p.orientation.y, p.orientation.z, p.orientation.w = t[3:]
        return p

    def obj(self, name):
        refs = self.pb.refs
        return refs.ObjectReference(by_name=refs.ObjectReferenceByName(object_name=name))

    def frame(self, object_name, frame_name):
        refs = self.pb.refs
        return refs.FrameReference(by_name=refs.FrameReferenceByName(object_name=object_name, frame_name=frame_name))

    def node(self, object_name, frame_name=""):
        """The transform node of an object (ROOT: the root) or of its frame."""
        refs = self.pb.refs
        if frame_name:
            by = refs.TransformNodeReferenceByName(
                frame=refs.FrameReferenceByName(object_name=object_name, frame_name=frame_name))
        elif object_name == ROOT:
            return refs.TransformNodeReference(id="root")
        else:
            by = refs.TransformNodeReferenceByName(object=refs.ObjectReferenceByName(object_name=object_name))
        return refs.TransformNodeReference(by_name=by)

    def ball(self):
        g = self.pb.geometry.GeometryComponent()
        shape = g.named_geometries["Intrinsic_Collision"].named_geometries["ball"]
        shape.geometry.inline_geometry_data.exact_geometry.primitive_set.primitives.add().shape.sphere.radius = 0.25
        return g

    # ---- the workload ----

    def run(self, channel, stopping):
        """Mutates until a call fails; a failure while stopping is set is the
        kill's (a call cut short, or one begun as the channel closed), any
        other is the server's (kept in self.error)."""
        stub = self.pb.ows_grpc.ObjectWorldServiceStub(channel)
        try:
            while not stopping.is_set():
                self.step(stub)
        except grpc.RpcError as e:
            if not stopping.is_set():
                self.error = "client %d: %s failed: %s %s" % (self.k, self.pending[0], e.code().name, e.details())
        except ValueError as e:  # grpc's "Cannot invoke RPC on closed channel!"
            if not stopping.is_set():
                self.error = "client %d: %s: %s\n%s" % (self.k, type(e).__name__, e, self.last_calls())
        except Exception as e:  # a CrashFailure, or a bug of the test's own: either ends the test
            self.error = "client %d: %s: %s\n%s" % (self.k, type(e).__name__, e, self.last_calls())

    def last_calls(self):
        return "its last calls:\n" + "\n".join("  " + h for h in self.history)

    def step(self, stub):
        if not self.worlds:
            return self.create_world(stub, None)
        wid = self.rng.choice(sorted(self.worlds))
        w = self.worlds[wid]
        crowded = len(w.objects) >= MAX_OBJECTS
        choices = [(self.create_object, 1 if crowded else 4), (self.delete_object, 3 if crowded else 1)]
        if w.objects:
            choices += [(self.update_transform, 6), (self.create_frame, 3), (self.rename_object, 2), (self.batch, 4)]
        if len(self.worlds) < MAX_WORLDS:
            choices += [(self.create_world, 1), (self.clone_world, 1)]
        if len(self.worlds) > 1:
            choices += [(self.delete_world, 1), (self.swap_world, 1)]
        ops, weights = zip(*choices)
        return self.rng.choices(ops, weights)[0](stub, wid)

    def call(self, method, after, stub, request):
        """Calls method with after as the worlds should it be applied."""
        self.pending = (method, after)
        self.history.append("%s %s" % (method, text_format.MessageToString(request, as_one_line=True)))
        return getattr(stub, method)(request, timeout=CALL_SECONDS)

    def acknowledge(self, after):
        self.acked[self.pending[0]] += 1
        self.become(after)

    def become(self, after):
        for wid, w in after.items():
            if w.ids_back():
                raise CrashFailure("world %s: ids of deleted entities given again: %s" % (wid, sorted(w.ids_back())))
        self.worlds = after
        self.pending = None

    def create_world(self, stub, _):
        wid = self.prefix + self.fresh("w")
        tag = self.rng.choice([None, "tag_" + wid])
        after = copy.deepcopy(self.worlds)
        after[wid] = World(tag)
        m = self.pb.ows
        reply = self.call("CreateWorld", after, stub,
                          m.CreateWorldRequest(world=m.World(world_metadata=m.WorldMetadata(id=wid, user_tag=tag))))
        settle((wid, tag), (reply.id, reply.user_tag if reply.HasField("user_tag") else None), "CreateWorld reply")
        self.acknowledge(after)

    def clone_world(self, stub, source):
        """A clone under a new id, or over another world of this client's."""
        others = sorted(set(self.worlds) - {source})
        overwrite = bool(others) and self.rng.random() < 0.3
        wid = self.rng.choice(others) if overwrite else self.prefix + self.fresh("w")
        tag = self.rng.choice([None, "tag_" + self.fresh("t")])
        after = copy.deepcopy(self.worlds)
        after[wid] = copy.deepcopy(after[source])
        after[wid].tag = tag or after[source].tag
        reply = self.call("CloneWorld", after, stub,
                          self.pb.ows.CloneWorldRequest(world_id=source, cloned_world_id=wid, user_tag=tag,
                                                        allow_overwrite=overwrite))
        settle((wid, after[wid].tag), (reply.id, reply.user_tag if reply.HasField("user_tag") else None),
               "CloneWorld reply")
        self.acknowledge(after)

    def swap_world(self, stub, wid):
        """Exchanges the contents and user tags of two worlds; ids stay."""
        other = self.rng.choice(sorted(set(self.worlds) - {wid}))
        after = copy.deepcopy(self.worlds)
        after[wid], after[other] = after[other], after[wid]
        self.call("SwapWorld", after, stub, self.pb.ows.SwapWorldRequest(world_id=wid, target_world_id=other))
        self.acknowledge(after)

    def delete_world(self, stub, wid):
        after = copy.deepcopy(self.worlds)
        del after[wid]
        self.call("DeleteWorld", after, stub, self.pb.ows.DeleteWorldRequest(world_id=wid))
        self.acknowledge(after)

    def create_object(self, stub, wid):
        after = copy.deepcopy(self.worlds)
        w = after[wid]
        parent = self.rng.choice([ROOT] + sorted(w.objects))
        name = self.fresh("o")
        where = self.random_pose()
        u = self.pb.updates
        req = u.CreateObjectRequest(world_id=wid, name=name, parent_object_t_created_object=self.pose(where),
                                    view=u.FULL)
        req.create_single_entity_object.geometry_component.CopyFrom(self.ball())
        if parent != ROOT:
            req.parent_object.reference.CopyFrom(self.obj(parent))
        w.objects[name] = (UNKNOWN, parent, Near(where))
        reply = self.call("CreateObject", after, stub, req)
        w.objects[name] = settle(w.objects[name], (reply.id, reply.parent.name,
                                                   pose_tuple(reply.object_component.parent_t_this)),
                                 "CreateObject %s reply" % name)
        self.acknowledge(after)

    def create_frame(self, stub, wid):
        after = copy.deepcopy(self.worlds)
        w = after[wid]
        owner = self.rng.choice(sorted(w.objects))
        parent = self.rng.choice([""] + sorted(f for o, f in w.frames if o == owner))
        name = self.fresh("f")
        where = self.random_pose()
        u = self.pb.updates
        req = u.CreateFrameRequest(world_id=wid, new_frame_name=name, parent_t_new_frame=self.pose(where))
        if parent:
            req.parent_frame.CopyFrom(self.frame(owner, parent))
        else:
            req.parent_object.CopyFrom(self.obj(owner))
        w.frames[(owner, name)] = (UNKNOWN, parent, Near(where))
        reply = self.call("CreateFrame", after, stub, req)
        w.frames[(owner, name)] = settle(w.frames[(owner, name)], (reply.id, reply.parent_frame.name,
                                                                   pose_tuple(reply.parent_t_this)),
                                         "CreateFrame %s reply" % name)
        self.acknowledge(after)

    def update_transform(self, stub, wid):
        """Moves an object or a frame relative to its parent."""
        after = copy.deepcopy(self.worlds)
        w = after[wid]
        where = self.random_pose()
        u = self.pb.updates
        targets = sorted(w.objects) + sorted(w.frames)
        target = self.rng.choice(targets)
        if isinstance(target, tuple):
            owner, name = target
            fid, parent, _ = w.frames[target]
            w.frames[target] = (fid, parent, Near(where))
            req = u.UpdateTransformRequest(world_id=wid, node_a=self.node(owner, parent),
                                           node_b=self.node(owner, name), a_t_b=self.pose(where), view=u.FULL)
            reply = self.call("UpdateTransform", after, stub, req)
            got = (reply.frame.id, reply.frame.parent_frame.name, pose_tuple(reply.frame.parent_t_this))
            w.frames[target] = settle(w.frames[target], got, "UpdateTransform %s reply" % (target,))
        else:
            oid, parent, _ = w.objects[target]
            w.objects[target] = (oid, parent, Near(where))
            req = u.UpdateTransformRequest(world_id=wid, node_a=self.node(parent), node_b=self.node(target),
                                           a_t_b=self.pose(where), view=u.FULL)
            reply = self.call("UpdateTransform", after, stub, req)
            got = (reply.object.id, reply.object.parent.name, pose_tuple(reply.object.object_component.parent_t_this))
            w.objects[target] = settle(w.objects[target], got, "UpdateTransform %s reply" % target)
        self.acknowledge(after)

    def delete_object(self, stub, wid):
        after = copy.deepcopy(self.worlds)
        if not after[wid].objects:
            return self.create_object(stub, wid)
        name = self.rng.choice(sorted(after[wid].objects))
        after[wid].delete(name)
        u = self.pb.updates
        self.call("DeleteObject", after, stub, u.DeleteObjectRequest(world_id=wid, object=self.obj(name), force=True))
        self.acknowledge(after)

    def rename_object(self, stub, wid):
        after = copy.deepcopy(self.worlds)
        old = self.rng.choice(sorted(after[wid].objects))
        new = self.fresh("o")
        oid = after[wid].objects[old][0]
        after[wid].rename(old, new)
        u = self.pb.updates
        reply = self.call("UpdateObjectName", after, stub,
                          u.UpdateObjectNameRequest(world_id=wid, object=self.obj(old), name=new))
        settle((oid, new), (reply.id, reply.name), "UpdateObjectName reply")
        self.acknowledge(after)

    def batch(self, stub, wid):
        """Frames made parked and then moved, their object renamed and
        maybe another object deleted: one UpdateWorldResources."""
        after = copy.deepcopy(self.worlds)
        w = after[wid]
        owner = self.rng.choice(sorted(w.objects))
        u = self.pb.updates
        req = self.pb.ows.UpdateWorldResourcesRequest(world_id=wid, view=u.FULL)
        updates = req.world_updates.updates
        names = [self.fresh("b") for _ in range(self.rng.randint(3, 6))]
        for name in names:
            updates.add().create_frame.CopyFrom(u.CreateFrameRequest(
                parent_object=self.obj(owner), new_frame_name=name, parent_t_new_frame=self.pose(PARKED)))
        for name in names:
            where = self.random_pose()
            updates.add().update_transform.CopyFrom(u.UpdateTransformRequest(
                node_a=self.node(owner), node_b=self.node(owner, name), a_t_b=self.pose(where)))
            w.frames[(owner, name)] = (UNKNOWN, "", Near(where))
        renamed = self.fresh("o")
        updates.add().update_object_name.CopyFrom(u.UpdateObjectNameRequest(object=self.obj(owner), name=renamed))
        w.rename(owner, renamed)
        doomed = [o for o in w.leaves() if o != renamed]
        if doomed and self.rng.random() < 0.5:
            victim = self.rng.choice(sorted(doomed))
            updates.add().delete_object.CopyFrom(u.DeleteObjectRequest(object=self.obj(victim)))
            w.delete(victim)
        reply = self.call("UpdateWorldResources", after, stub, req)
        after[wid] = settle(w, world_from_objects(reply.objects, w.tag, "UpdateWorldResources reply"),
                            "UpdateWorldResources reply")
        after[wid].retired = w.retired
        self.acknowledge(after)

    # ---- after a restart ----

    def read(self, stub):
        """The worlds of this client as the server holds them."""
        m = self.pb.ows
        listed = stub.ListWorlds(m.ListWorldsRequest(), timeout=CALL_SECONDS).world_metadatas
        worlds = {}
        for meta in listed:
            if meta.id.startswith(self.prefix):
                objects = stub.ListObjects(m.ListObjectsRequest(world_id=meta.id, view=self.pb.updates.FULL),
                                           timeout=CALL_SECONDS).objects
                tag = meta.user_tag if meta.HasField("user_tag") else None
                worlds[meta.id] = world_from_objects(objects, tag, "world " + meta.id)
        return worlds

    def verify(self, channel):
        """The server holds every acknowledged mutation, and the one in
        flight wholly or not at all; the model becomes what it holds."""
        actual = self.read(self.pb.ows_grpc.ObjectWorldServiceStub(channel))
        if actual == self.worlds:
            matched = self.worlds
            if self.pending:
                self.in_flight[(self.pending[0], "absent")] += 1
        elif self.pending and actual == self.pending[1]:
            matched = self.pending[1]
            self.in_flight[(self.pending[0], "applied")] += 1
        else:
            lines = ["client %d after a restart: the worlds are neither as acknowledged%s" %
                     (self.k, " nor as %s in flight would leave them" % self.pending[0] if self.pending else "")]
            for label, want in (("acknowledged", self.worlds), ("in flight", self.pending and self.pending[1])):
                if want is None:
                    continue
                for wid in sorted(set(want) | set(actual)):
                    if wid not in actual:
                        lines.append("  vs %s: world %s missing" % (label, wid))
                    elif wid not in want:
                        lines.append("  vs %s: world %s unexpected" % (label, wid))
                    else:
                        lines += ["  vs %s: world %s: %s" % (label, wid, d) for d in want[wid].differences(actual[wid])]
            raise CrashFailure("\n".join(lines + [self.last_calls()]))
        for wid, w in actual.items():
            w.retired = matched[wid].retired
        self.become(actual)
