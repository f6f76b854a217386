// json.cc — wk_json_to_bytes and wk_json_from_bytes on libprotobuf's proto3
// JSON mapping (util/json_util.h). libprotobuf reads a message through its
// own descriptors, which protobuf-c's cannot stand in for (they keep no
// files, options or JSON names), so the build embeds what protoc makes of
// proto/, a FileDescriptorSet (wk__proto_descriptor_set), and a type is
// found by the full name of its protobuf-c descriptor. The two libraries
// meet in the serialized bytes. C++ only at the edge: nothing thrown leaves
// this file.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/descriptor_database.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <protobuf-c/protobuf-c.h>

#include <climits>
#include <memory>
#include <new>
#include <string>

#include "worldkit/wk_api.h"

namespace pb = google::protobuf;

extern "C" const unsigned char wk__proto_descriptor_set[];
extern "C" const size_t wk__proto_descriptor_set_size;

namespace {

// Adds the files of a serialized FileDescriptorSet to db, from which a pool
// builds a file when one of its types is first asked for. False when the
// bytes are not a set, or repeat a file.
bool read_set(const void *data, size_t size, pb::SimpleDescriptorDatabase *db)
{
    pb::FileDescriptorSet set;
    if (size > INT_MAX || !set.ParseFromArray(data, static_cast<int>(size)))
        return false;
    for (const pb::FileDescriptorProto &file : set.file())
        if (!db->Add(file))
            return false;
    return true;
}

// The types of proto/, read once for the life of the process. Pools and
// factories are thread-safe, so every call shares them.
struct own_types {
    pb::SimpleDescriptorDatabase db;
    pb::DescriptorPool pool{&db};
    pb::DynamicMessageFactory factory;
    own_types()
    {
        // The build wrote the set with protoc: it cannot fail to read.
        read_set(wk__proto_descriptor_set, wk__proto_descriptor_set_size, &db);
    }
};

int fail(wk_status *st, int code, const pb::util::Status &s)
{
    pb::StringPiece why = s.message();
    return wk_fail(st, code, "%.*s", static_cast<int>(why.size()), why.data());
}

// Calls convert with an empty message of d's type, from the pool of proto/
// and, when desc gives them, of desc's types too.
template <typename Convert>
int with_message(const ProtobufCMessageDescriptor *d, const wk_json_desc *desc, wk_status *st, Convert convert)
{
    auto run = [&](const pb::DescriptorPool &pool, pb::DynamicMessageFactory &factory) {
        const pb::Descriptor *type = pool.FindMessageTypeByName(d->name);
        if (!type)
            return wk_fail(st, WK_NOT_FOUND, "%s: no message type of that name in proto/%s", d->name,
                           desc && desc->descriptor_set ? " or wk_json_desc.descriptor_set" : "");
        std::unique_ptr<pb::Message> m(factory.GetPrototype(type)->New());
        return convert(*m);
    };
    try {
        static own_types own;
        if (!desc || !desc->descriptor_set)
            return run(own.pool, own.factory);
        pb::SimpleDescriptorDatabase extra;
        if (!read_set(desc->descriptor_set, desc->descriptor_set_size, &extra))
            return wk_fail(st, WK_INVALID, "wk_json_desc.descriptor_set is not a FileDescriptorSet");
        pb::MergedDescriptorDatabase both(&own.db, &extra);
        pb::DescriptorPool pool(&both);
        pb::DynamicMessageFactory factory;
        return run(pool, factory);
    } catch (const std::bad_alloc &) {
        return wk_fail(st, WK_NOMEM, "%s: out of memory in libprotobuf", d->name);
    }
}

// Fails st with libprotobuf's reason for refusing json: WK_PARSE when the
// text is no JSON at all, which libprotobuf's own status does not tell
// apart; so the text is read again as a google.protobuf.Value, whose JSON
// form is any JSON value, and only if that fails is it not JSON.
int refuse(const char *json, size_t len, const pb::util::Status &typed, wk_status *st)
{
    pb::Value value;
    pb::util::Status plain = pb::util::JsonStringToMessage(pb::StringPiece(json, len), &value);
    return plain.ok() ? fail(st, WK_INVALID, typed) : fail(st, WK_PARSE, plain);
}

} // namespace

extern "C" int wk_json_to_bytes(const ProtobufCMessageDescriptor *d, const char *json, size_t len,
                                const wk_json_desc *desc, wk_buf *out, wk_status *st)
{
    return with_message(d, desc, st, [&](pb::Message &m) -> int {
        // The default options refuse names the type does not have.
        pb::util::Status s = pb::util::JsonStringToMessage(pb::StringPiece(json, len), &m);
        if (!s.ok())
            return refuse(json, len, s, st);
        // Partial: required fields were checked while reading.
        std::string bytes = m.SerializePartialAsString();
        if (wk_buf_append(out, bytes.data(), bytes.size()))
            return wk_fail(st, WK_NOMEM, "%s: no memory for %zu bytes", d->name, bytes.size());
        return WK_OK;
    });
}

extern "C" int wk_json_from_bytes(const ProtobufCMessageDescriptor *d, const uint8_t *bytes, size_t len,
                                  const wk_json_desc *desc, wk_buf *out, wk_status *st)
{
    return with_message(d, desc, st, [&](pb::Message &m) -> int {
        if (len > INT_MAX || !m.ParsePartialFromArray(bytes, static_cast<int>(len)))
            return wk_fail(st, WK_PARSE, "the bytes are not a serialized %s", d->name);
        // Parsed partially, so that a missing required field can be named.
        if (!m.IsInitialized())
            return wk_fail(st, WK_INVALID, "%s: required field missing: %s", d->name,
                           m.InitializationErrorString().c_str());
        // libprotobuf keeps a number a proto2 enum has no name for as an
        // unknown field, which its printer, working on the serialized
        // message, would write as a second key of the same name.
        m.DiscardUnknownFields();
        pb::util::JsonPrintOptions options;
        options.add_whitespace = desc && desc->indent;
        std::string json;
        pb::util::Status s;
        {
            // The printer warns on stderr of the text it leaves unfinished
            // when it fails, which says nothing the status does not.
            pb::LogSilencer quiet;
            s = pb::util::MessageToJsonString(m, &json, options);
        }
        if (!s.ok())
            return fail(st, WK_INVALID, s);
        // The indented form ends in a newline, which a value has no use for.
        if (!json.empty() && json.back() == '\n')
            json.pop_back();
        // The text is NUL-terminated past its length, for callers that print it.
        if (wk_buf_reserve(out, json.size() + 1) || wk_buf_append(out, json.data(), json.size()))
            return wk_fail(st, WK_NOMEM, "%s: no memory for %zu bytes of JSON", d->name, json.size());
        out->data[out->len] = '\0';
        return WK_OK;
    });
}
