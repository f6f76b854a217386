#!/usr/bin/env python3
"""world_proto_wire.py — worldkit's proto2 rewrite of Intrinsic's object world
protos against the proto3 layout peers use.

Usage: world_proto_wire.py TEST_BINARY PROTO_DIR PROTOBUF_INCLUDE GRPC_PYTHON_PLUGIN

1. protoc compiles every file of PROTO_DIR/intrinsic and PROTO_DIR/google to
   Python with gRPC stubs, and the stubs import: what Python clients and the
   integration tests do.
2. The messages that TEST_BINARY (test_world_proto) prints with its case
   print_wire, packed by protobuf-c, are compared byte for byte with the same
   content serialized by Python's protobuf from a proto3 description of the
   public layout (intrinsic-ai/sdk): the names, numbers and types below,
   written as data, with proto3 `optional` where the public files have it.
   The big messages are described only by the fields the test sets.
"""
import os
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto
STRING, BOOL, DOUBLE, MESSAGE = F.TYPE_STRING, F.TYPE_BOOL, F.TYPE_DOUBLE, F.TYPE_MESSAGE

# message -> [(field, number, type, type name or None, flags)]; flags: "rep"
# repeated, "opt" proto3 optional, or "oneof:<name>".
PUBLIC = {
    "ObjectReferenceByName": [("object_name", 1, STRING, None, "")],
    "FrameReferenceByName": [("object_name", 1, STRING, None, ""), ("frame_name", 2, STRING, None, "")],
    "TransformNodeReferenceByName": [
        ("object", 1, MESSAGE, "ObjectReferenceByName", "oneof:transform_node_reference_by_name"),
        ("frame", 2, MESSAGE, "FrameReferenceByName", "oneof:transform_node_reference_by_name"),
    ],
    "TransformNodeReference": [
        ("id", 1, STRING, None, "oneof:transform_node_reference"),
        ("by_name", 2, MESSAGE, "TransformNodeReferenceByName", "oneof:transform_node_reference"),
        ("debug_hint", 3, STRING, None, ""),
    ],
    "EntityReference": [("id", 1, STRING, None, "oneof:entity_reference")],
    "ObjectEntityFilter": [
        ("include_base_entity", 1, BOOL, None, ""),
        ("include_final_entity", 2, BOOL, None, ""),
        ("include_all_entities", 3, BOOL, None, ""),
        ("entity_references", 4, MESSAGE, "EntityReference", "rep"),
        ("entity_names", 5, STRING, None, "rep"),
    ],
    "GetTransformRequest": [
        ("world_id", 1, STRING, None, ""),
        ("node_a", 2, MESSAGE, "TransformNodeReference", ""),
        ("node_b", 3, MESSAGE, "TransformNodeReference", ""),
        ("node_a_filter", 4, MESSAGE, "ObjectEntityFilter", ""),
        ("node_b_filter", 5, MESSAGE, "ObjectEntityFilter", ""),
    ],
    "CloneWorldRequest": [
        ("world_id", 1, STRING, None, ""),
        ("cloned_world_id", 5, STRING, None, ""),
        ("allow_overwrite", 6, BOOL, None, ""),
        ("user_tag", 7, STRING, None, "opt"),
    ],
    "KinematicObjectComponent": [
        ("joint_positions", 1, DOUBLE, None, "rep"),
        ("joint_entity_ids", 5, STRING, None, "rep"),
        ("are_kinematics_updated", 12, BOOL, None, "opt"),
    ],
    "UpdateObjectJointRequest": [
        ("world_id", 1, STRING, None, ""),
        ("joint_position", 3, DOUBLE, None, "opt"),
        ("joint_name", 7, STRING, None, ""),
    ],
    "ObjectWorldUpdate": [
        ("update_object_joint", 19, MESSAGE, "UpdateObjectJointRequest", "oneof:update"),
    ],
}


def public_classes():
    """The message classes of a proto3 file holding PUBLIC, in a pool of its own."""
    fdp = descriptor_pb2.FileDescriptorProto(
        name="public_layout/world.proto", package="intrinsic_proto.world", syntax="proto3")
    for name, fields in PUBLIC.items():
        msg = fdp.message_type.add(name=name)
        oneofs = {}
        for field, number, ftype, type_name, flags in fields:
            f = msg.field.add(name=field, number=number, type=ftype, label=F.LABEL_OPTIONAL)
            if type_name:
                f.type_name = ".intrinsic_proto.world." + type_name
            if flags == "rep":
                f.label = F.LABEL_REPEATED
            elif flags.startswith("oneof:"):
                oneof = flags[len("oneof:"):]
                if oneof not in oneofs:
                    oneofs[oneof] = len(msg.oneof_decl)
                    msg.oneof_decl.add(name=oneof)
                f.oneof_index = oneofs[oneof]
            elif flags == "opt":
                # proto3 `optional` is a one-field oneof named after the field
                # (no message here mixes these with real oneofs, which would
                # have to come first).
                f.proto3_optional = True
                f.oneof_index = len(msg.oneof_decl)
                msg.oneof_decl.add(name="_" + field)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    file_desc = pool.FindFileByName(fdp.name)
    get = getattr(message_factory, "GetMessageClass", None)
    factory = None if get else message_factory.MessageFactory(pool)
    classes = {}
    for name, desc in file_desc.message_types_by_name.items():
        classes[name] = get(desc) if get else factory.GetPrototype(desc)
    return classes


def public_messages(c):
    """The content test_world_proto packs, built with the public layout."""
    clone = c["CloneWorldRequest"](world_id="a", cloned_world_id="b", allow_overwrite=True, user_tag="")
    transform = c["GetTransformRequest"](world_id="w")
    transform.node_a.by_name.frame.object_name = "o"
    transform.node_a.by_name.frame.frame_name = "f"
    transform.node_b.id = "root"
    transform.node_a_filter.include_all_entities = True
    kinematic = c["KinematicObjectComponent"](
        joint_positions=[1.0, -0.5], joint_entity_ids=["j"], are_kinematics_updated=True)
    update = c["ObjectWorldUpdate"]()
    update.update_object_joint.joint_position = 0.0
    update.update_object_joint.joint_name = "j"
    return {
        "clone_world_request": clone,
        "get_transform_request": transform,
        "kinematic_object_component": kinematic,
        "object_world_update": update,
    }


def check_python_stubs(proto_dir, include, plugin):
    files = []
    for top in ("intrinsic", "google"):
        for root, _, names in os.walk(os.path.join(proto_dir, top)):
            files += [os.path.join(root, n) for n in names if n.endswith(".proto")]
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(["protoc", "-I" + proto_dir, "-I" + include, "--python_out=" + out, "--grpc_python_out=" + out,
                        "--plugin=protoc-gen-grpc_python=" + plugin] + sorted(files), check=True)
        probe = ("import intrinsic.world.proto.object_world_service_pb2 as m, "
                 "intrinsic.world.proto.object_world_service_pb2_grpc as g\n"
                 "s = m.DESCRIPTOR.services_by_name['ObjectWorldService']\n"
                 "assert len(s.methods) == 32, len(s.methods)\n"
                 "assert hasattr(g, 'ObjectWorldServiceStub')\n")
        env = dict(os.environ, PYTHONPATH=out)
        subprocess.run([sys.executable, "-c", probe], check=True, env=env)
    print("ok   python stubs (%d files)" % len(files))


def main():
    binary, proto_dir, include, plugin = sys.argv[1:5]
    check_python_stubs(proto_dir, include, plugin)
    printed = subprocess.run([binary, "print_wire"], check=True, capture_output=True, text=True).stdout
    ours = dict(line.split(" ", 1) for line in printed.splitlines() if " " in line and not line.startswith("ok "))
    classes = public_classes()
    failed = 0
    for name, msg in public_messages(classes).items():
        theirs = msg.SerializeToString(deterministic=True).hex()
        mine = ours.get(name, "(not printed)").strip()
        if mine != theirs:
            failed += 1
            print("FAIL %s\n    protobuf-c: %s\n    proto3:     %s" % (name, mine, theirs))
            continue
        # And back: the proto3 reader sees the presence protobuf-c wrote.
        back = type(msg).FromString(bytes.fromhex(mine))
        if back != msg:
            failed += 1
            print("FAIL %s: proto3 reads back %s" % (name, back))
            continue
        print("ok   %s" % name)
    clone = classes["CloneWorldRequest"].FromString(bytes.fromhex(ours["clone_world_request"]))
    if not clone.HasField("user_tag"):
        failed += 1
        print("FAIL clone_world_request: the empty user_tag is not present for proto3")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
