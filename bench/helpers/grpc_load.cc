// grpc_load.cc — the client in bench/server: keeps STREAMS calls of one
// figure in flight at a running `worldkit serve` for SECONDS, each stream
// starting its next call as soon as the last one answers, and prints what
// it measured. It is a peer worldkit did not write: gRPC's C++ library with
// stubs that protoc and grpc_cpp_plugin generate from proto/, so the bytes
// on the wire and their framing are the ones any C++ client would send.
//
//   grpc_load TARGET FIGURE SECONDS STREAMS CHANNELS THREADS [MODEL]
//
// FIGURE is one of
//   get_transform  world "bench_tf" (100 objects in 10 chains of 10, two
//                  frames each), then GetTransform between a frame and an
//                  object, cycling through 64 pairs
//   get_transform_floor  GetTransform requests of the same shape, sent to
//                  bench/helpers/grpc_floor, whose empty answers are taken
//   hostile        get_transform's calls on all streams but the last, which
//                  sends requests that once held the server (GetEntities
//                  filters regcomp could not bound, 200,000 sources); the
//                  latencies are GetTransform's, the attacker's are extra
//   list_objects   world "bench_1k" (1,000 objects), then ListObjects
//   spawn          SpawnEntities of MODEL (an SDFormat file) under a name
//                  unique to the stream and call, then DeleteEntity of it
//   mixed          the three at once on worlds built once, stream s running
//                  the (s % 3)-th: bench/server's soak
// The worlds are built over the API before the clock starts; building is
// not measured. CHANNELS is 1 (every stream shares one channel: one HTTP/2
// connection, streams multiplexed on it, as clients usually share one) or
// up to the stream count (connections taken in turn). The streams run on
// the async API, spread over THREADS threads with a completion queue each:
// a thread per stream would spend the client's CPU on waking threads, CPU
// that on a small machine the server under test would lack.
//
// Prints "key value" lines on stdout: measuring (as the clock starts), then
// once it stops calls, seconds, p50_ms, p99_ms,
// max_ms (for spawn, of SpawnEntities; delete_p99_ms for DeleteEntity),
// client_cpu_s. Any call that fails, or answers something other than what
// was asked, ends the program with status 1 and a line on stderr naming
// the call.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>

#include "intrinsic/world/proto/object_world_service.grpc.pb.h"
#include "simulation_interfaces/simulation_interfaces.grpc.pb.h"

namespace ows = intrinsic_proto::world;
namespace si = simulation_interfaces;
using Clock = std::chrono::steady_clock;

namespace {

// simulation_interfaces' Result.result for success (worldkit's WK_RESULT_OK).
constexpr uint32_t kResultOk = 1;
// Every call has a deadline, so a server that stops answering ends the run
// with DEADLINE_EXCEEDED rather than hanging it.
constexpr auto kDeadline = std::chrono::seconds(10);

[[noreturn]] void fail(const std::string &what)
{
    std::fprintf(stderr, "grpc_load: %s\n", what.c_str());
    std::exit(1);
}

const char *code_name(grpc::StatusCode c)
{
    static const char *const names[] = {
        "OK",           "CANCELLED",          "UNKNOWN",          "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
        "NOT_FOUND",    "ALREADY_EXISTS",     "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
        "ABORTED",      "OUT_OF_RANGE",       "UNIMPLEMENTED",    "INTERNAL",         "UNAVAILABLE",
        "DATA_LOSS",    "UNAUTHENTICATED",
    };
    unsigned i = static_cast<unsigned>(c);
    return i < sizeof names / sizeof names[0] ? names[i] : "UNKNOWN";
}

// "" when the call succeeded, else what went wrong, naming the method.
std::string status_error(const char *method, const grpc::Status &s)
{
    if (s.ok())
        return "";
    return std::string(method) + ": " + code_name(s.error_code()) + ": " + s.error_message();
}

void check(const char *method, const grpc::Status &s)
{
    std::string e = status_error(method, s);
    if (!e.empty())
        fail(e);
}

// A message from its proto3 JSON form: requests read as they would in a
// client's configuration, and nested messages stay short.
template <class M> M from_json(const std::string &json)
{
    M m;
    auto st = google::protobuf::util::JsonStringToMessage(json, &m);
    if (!st.ok())
        fail("bad JSON for " + M::descriptor()->full_name() + ": " + std::string(st.message()) + ": " + json);
    return m;
}

void set_deadline(grpc::ClientContext &ctx)
{
    ctx.set_deadline(std::chrono::system_clock::now() + kDeadline); // gRPC takes the system clock
}

// A box of side 0.2 m as a single-entity object's geometry.
const char kBox[] =
    "{'namedGeometries':{'Intrinsic_Collision':{'namedGeometries':{'shape':{'geometry':{'inlineGeometryData':"
    "{'exactGeometry':{'primitiveSet':{'primitives':[{'shape':{'box':{'size':{'x':0.2,'y':0.2,'z':0.2}}}}]}}}}}}}}}";

// JSON with single quotes (easier to write in C++) made standard.
std::string json(std::string s)
{
    std::replace(s.begin(), s.end(), '\'', '"');
    return s;
}

std::string pose_json(double x, double y, double z, double yaw)
{
    char buf[256];
    std::snprintf(buf, sizeof buf, "{'position':{'x':%.17g,'y':%.17g,'z':%.17g},'orientation':{'z':%.17g,'w':%.17g}}",
                  x, y, z, std::sin(yaw / 2), std::cos(yaw / 2));
    return buf;
}

// A call of the setup, waited for: its answer, or the end of the program.
template <class Stub, class Req, class Resp>
Resp call(Stub &stub, grpc::Status (Stub::*method)(grpc::ClientContext *, const Req &, Resp *), const char *name,
          const Req &req)
{
    Resp resp;
    grpc::ClientContext ctx;
    set_deadline(ctx);
    check(name, (stub.*method)(&ctx, req, &resp));
    return resp;
}

using OwsStub = ows::ObjectWorldService::Stub;

// Creates a world with the id asked for; the id the server chose (a free id
// is kept, a taken one is used as a prefix).
std::string create_world(OwsStub &stub, const std::string &id)
{
    auto req = from_json<ows::CreateWorldRequest>(json("{'world':{'worldMetadata':{'id':'" + id + "'}}}"));
    ows::WorldMetadata meta = call(stub, &OwsStub::CreateWorld, "CreateWorld", req);
    if (meta.id().empty())
        fail("CreateWorld: the answer has no world id");
    return meta.id();
}

// CreateObject of a box named name, under parent (a name; empty: the root
// object) at pose; the new object's id.
std::string create_object(OwsStub &stub, const std::string &world, const std::string &name,
                          const std::string &parent, const std::string &pose)
{
    std::string parent_json =
        parent.empty() ? "" : "'parentObject':{'reference':{'byName':{'objectName':'" + parent + "'}}},";
    auto req = from_json<ows::CreateObjectRequest>(
        json("{'worldId':'" + world + "','name':'" + name + "'," + parent_json + "'parentObjectTCreatedObject':" +
             pose + ",'createSingleEntityObject':{'geometryComponent':" + kBox + "}}"));
    ows::Object obj = call(stub, &OwsStub::CreateObject, "CreateObject", req);
    if (obj.name() != name || obj.id().empty())
        fail("CreateObject '" + name + "': answered object '" + obj.name() + "' id '" + obj.id() + "'");
    return obj.id();
}

// CreateFrame named name under an object or a frame (by id); its id.
std::string create_frame(OwsStub &stub, const std::string &world, const std::string &name,
                         const char *parent_kind, const std::string &parent_id, const std::string &pose)
{
    auto req = from_json<ows::CreateFrameRequest>(json("{'worldId':'" + world + "','newFrameName':'" + name + "','" +
                                                       parent_kind + "':{'id':'" + parent_id +
                                                       "'},'parentTNewFrame':" + pose + "}"));
    ows::Frame frame = call(stub, &OwsStub::CreateFrame, "CreateFrame", req);
    if (frame.name() != name || frame.id().empty())
        fail("CreateFrame '" + name + "': answered frame '" + frame.name() + "' id '" + frame.id() + "'");
    return frame.id();
}

// CPU time of this process (every thread), user and system.
double cpu_seconds()
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

double ms_since(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// What a stream's completed call means to the driver.
enum class Next {
    kIterationDone, // the iteration's calls are done and right: start the next one
    kCallStarted,   // the stream started another call of the same iteration
    kFailed,        // the stream's error says what went wrong
};

// A stub's method that prepares an async unary call.
template <class Stub, class Req, class Resp>
using Prepare = std::unique_ptr<grpc::ClientAsyncResponseReader<Resp>> (Stub::*)(grpc::ClientContext *, const Req &,
                                                                                 grpc::CompletionQueue *);

// One of the concurrent streams: one call in flight at a time, on the
// completion queue of the thread that drives it, with the stream as tag.
class Stream {
  public:
    virtual ~Stream() = default;
    // Starts the first call of the next iteration.
    virtual void start(grpc::CompletionQueue *cq) = 0;
    // The call in flight completed; ok is the queue's flag.
    virtual Next done(grpc::CompletionQueue *cq, bool ok) = 0;

    std::vector<double> ms;       // latency of each measured call
    std::vector<double> extra_ms; // of the second call of an iteration (spawn's delete)
    std::string error;

  protected:
    // Starts a call of req into resp: a fresh context (one serves a single
    // call) with its deadline, and the clock.
    template <class Stub, class Req, class Resp>
    void start_call(Stub &stub, Prepare<Stub, Req, Resp> prepare, const Req &req, Resp &resp,
                    std::unique_ptr<grpc::ClientAsyncResponseReader<Resp>> &reader, grpc::CompletionQueue *cq)
    {
        resp.Clear();
        ctx_ = std::make_unique<grpc::ClientContext>();
        set_deadline(*ctx_);
        t0_ = Clock::now();
        reader = (stub.*prepare)(ctx_.get(), req, cq);
        reader->StartCall();
        reader->Finish(&resp, &status_, this);
    }

    // Notes the completed call's latency in into; whether its status is OK
    // (else error says why).
    bool finish_call(const char *method, bool ok, std::vector<double> &into)
    {
        into.push_back(ms_since(t0_));
        error = ok ? status_error(method, status_) : std::string(method) + ": the completion queue dropped the call";
        return error.empty();
    }

  private:
    std::unique_ptr<grpc::ClientContext> ctx_;
    grpc::Status status_;
    Clock::time_point t0_;
};

// Streams that call one unary method: request(i) is the i-th call's
// request, check(response) "" when the answer is right.
template <class Stub, class Req, class Resp> class UnaryStream final : public Stream {
  public:
    UnaryStream(Stub &stub, Prepare<Stub, Req, Resp> prepare, const char *method, std::function<const Req &(uint64_t)> request,
                std::function<std::string(const Resp &)> check)
        : stub_(stub), prepare_(prepare), method_(method), request_(std::move(request)), check_(std::move(check))
    {
    }

    void start(grpc::CompletionQueue *cq) override
    {
        start_call(stub_, prepare_, request_(i_++), resp_, reader_, cq);
    }

    Next done(grpc::CompletionQueue *, bool ok) override
    {
        if (finish_call(method_, ok, ms))
            error = check_(resp_);
        return error.empty() ? Next::kIterationDone : Next::kFailed;
    }

  private:
    Stub &stub_;
    Prepare<Stub, Req, Resp> prepare_;
    const char *method_;
    std::function<const Req &(uint64_t)> request_;
    std::function<std::string(const Resp &)> check_;
    std::unique_ptr<grpc::ClientAsyncResponseReader<Resp>> reader_;
    Resp resp_;
    uint64_t i_ = 0;
};

struct Figure {
    uint64_t calls = 0;
    double seconds = 0;
    double client_cpu_s = 0; // this process's CPU while the clock ran
    std::vector<double> ms, extra_ms;
};

// Keeps every stream's calls going back to back for seconds, the streams
// spread over threads (each with its own completion queue), all starting
// together. The first failure stops every stream and the program.
Figure drive(std::vector<std::unique_ptr<Stream>> &streams, int threads, double seconds)
{
    std::atomic<int> ready{0};
    std::atomic<bool> go{false}, stop{false};
    Clock::time_point end;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++) {
        pool.emplace_back([&, t] {
            std::vector<Stream *> mine;
            for (size_t s = static_cast<size_t>(t); s < streams.size(); s += static_cast<size_t>(threads))
                mine.push_back(streams[s].get());
            for (Stream *s : mine)
                s->ms.reserve(1 << 20);
            grpc::CompletionQueue cq;
            ready++;
            while (!go.load())
                std::this_thread::yield();
            for (Stream *s : mine)
                s->start(&cq);
            size_t in_flight = mine.size();
            void *tag;
            bool ok;
            while (in_flight && cq.Next(&tag, &ok)) {
                Stream *s = static_cast<Stream *>(tag);
                Next n = s->done(&cq, ok);
                if (n == Next::kFailed)
                    stop = true;
                if (n == Next::kCallStarted)
                    continue;
                if (n == Next::kIterationDone && !stop.load(std::memory_order_relaxed) && Clock::now() < end)
                    s->start(&cq);
                else
                    in_flight--;
            }
            cq.Shutdown();
            while (cq.Next(&tag, &ok))
                ;
        });
    }
    while (ready.load() < threads)
        std::this_thread::yield();
    std::printf("measuring 1\n"); // bench/server samples the server's CPU now
    std::fflush(stdout);
    double cpu0 = cpu_seconds();
    Clock::time_point start = Clock::now();
    end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    go = true;
    for (auto &t : pool)
        t.join();
    Figure f;
    f.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    f.client_cpu_s = cpu_seconds() - cpu0;
    for (auto &s : streams)
        if (!s->error.empty())
            fail(s->error);
    for (auto &s : streams) {
        f.ms.insert(f.ms.end(), s->ms.begin(), s->ms.end());
        f.extra_ms.insert(f.extra_ms.end(), s->extra_ms.begin(), s->extra_ms.end());
    }
    f.calls = f.ms.size();
    if (!f.calls)
        fail("no call completed");
    return f;
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    size_t k = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
    std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
    return v[k];
}

// Stubs on the channels: every stream on one, or one channel (and
// connection) each. A local subchannel pool keeps gRPC from sharing one
// connection between channels to the same address.
template <class Service>
std::vector<std::unique_ptr<typename Service::Stub>> stubs(const std::string &target, int streams, int channels)
{
    std::vector<std::shared_ptr<grpc::Channel>> chans;
    for (int c = 0; c < channels; c++) {
        grpc::ChannelArguments args;
        args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
        chans.push_back(grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args));
    }
    for (auto &c : chans)
        if (!c->WaitForConnected(std::chrono::system_clock::now() + kDeadline))
            fail("cannot connect to " + target);
    std::vector<std::unique_ptr<typename Service::Stub>> out;
    for (int s = 0; s < streams; s++)
        out.push_back(Service::NewStub(chans[static_cast<size_t>(s % channels)]));
    return out;
}

// How a figure's load is driven: where, for how long, how many streams on
// how many connections and client threads.
struct Load {
    std::string target;
    double seconds;
    int streams, channels, threads;
};

using TransformRequests = std::vector<ows::GetTransformRequest>;

// Builds the GetTransform world (100 objects in 10 chains, 200 frames) and
// 64 requests between its frames and objects.
std::shared_ptr<const TransformRequests> transform_world(OwsStub &setup)
{
    std::string world = create_world(setup, "bench_tf");
    constexpr int kChains = 10, kDepth = 10;
    std::vector<std::string> names, tips;
    for (int c = 0; c < kChains; c++) {
        for (int d = 0; d < kDepth; d++) {
            std::string name = "o" + std::to_string(c) + "_" + std::to_string(d);
            std::string parent = d ? "o" + std::to_string(c) + "_" + std::to_string(d - 1) : "";
            std::string pose = d ? pose_json(0.5, 0, 0.1, 0.2) : pose_json(0.5, c, 0.1, 0.05 * c);
            std::string id = create_object(setup, world, name, parent, pose);
            std::string grip = create_frame(setup, world, "grip", "parentObject", id, pose_json(0, 0, 0.15, 0.3));
            tips.push_back(create_frame(setup, world, "tip", "parentFrame", grip, pose_json(0.05, 0, 0.02, -0.1)));
            names.push_back(name);
        }
    }

    // Sanity: root to the first object is the pose it was created at.
    {
        auto req = from_json<ows::GetTransformRequest>(json(
            "{'worldId':'" + world + "','nodeA':{'id':'root'},'nodeB':{'byName':{'object':{'objectName':'o0_0'}}}}"));
        const auto p = call(setup, &OwsStub::GetTransform, "GetTransform", req).a_t_b().position();
        if (std::fabs(p.x() - 0.5) > 1e-9 || std::fabs(p.y()) > 1e-9 || std::fabs(p.z() - 0.1) > 1e-9)
            fail("GetTransform root -> o0_0: answered (" + std::to_string(p.x()) + ", " + std::to_string(p.y()) +
                 ", " + std::to_string(p.z()) + "), created at (0.5, 0, 0.1)");
    }

    // 64 pairs: a frame (by id) deep in one chain to an object (by name) in
    // another, or higher up the same one.
    auto reqs = std::make_shared<TransformRequests>();
    unsigned seed = 12345;
    for (int k = 0; k < 64; k++) {
        seed = seed * 1103515245u + 12345u;
        size_t a = (seed >> 8) % tips.size();
        seed = seed * 1103515245u + 12345u;
        size_t b = (seed >> 8) % names.size();
        reqs->push_back(from_json<ows::GetTransformRequest>(
            json("{'worldId':'" + world + "','nodeA':{'id':'" + tips[a] + "'},'nodeB':{'byName':{'object':{"
                 "'objectName':'" + names[b] + "'}}}}")));
    }

    return reqs;
}

// Stream s of GetTransform calls, taking the requests in turn from its own
// place.
// The answers are checked unless floor: a floor server answers empty.
std::unique_ptr<Stream> transform_stream(OwsStub &stub, std::shared_ptr<const TransformRequests> reqs, size_t s,
                                         bool floor = false)
{
    using TfStream = UnaryStream<OwsStub, ows::GetTransformRequest, ows::GetTransformResponse>;
    return std::make_unique<TfStream>(
        stub, &OwsStub::PrepareAsyncGetTransform, "GetTransform",
        [reqs, s](uint64_t i) -> const ows::GetTransformRequest & { return (*reqs)[(s * 7 + i) % reqs->size()]; },
        [floor](const ows::GetTransformResponse &r) {
            return floor || r.a_t_b().has_position() ? std::string()
                                                     : std::string("GetTransform: the answer has no a_t_b");
        });
}

Figure get_transform(const Load &load)
{
    auto st = stubs<ows::ObjectWorldService>(load.target, load.streams, load.channels);
    auto reqs = transform_world(*st[0]);
    std::vector<std::unique_ptr<Stream>> streams;
    for (size_t s = 0; s < st.size(); s++)
        streams.push_back(transform_stream(*st[s], reqs, s));
    return drive(streams, load.threads, load.seconds);
}

// GetTransform's calls against the floor server (bench/helpers/grpc_floor):
// 64 requests shaped as get_transform's (a frame by id to an object by
// name), with no world behind them.
Figure get_transform_floor(const Load &load)
{
    auto st = stubs<ows::ObjectWorldService>(load.target, load.streams, load.channels);
    auto reqs = std::make_shared<TransformRequests>();
    for (int i = 0; i < 64; i++)
        reqs->push_back(from_json<ows::GetTransformRequest>(
            json("{'worldId':'bench_tf','nodeA':{'id':'frm_" + std::to_string(300 + i) +
                 "'},'nodeB':{'byName':{'object':{'objectName':'o" + std::to_string(i % 10) + "_" +
                 std::to_string(i / 10) + "'}}}}")));
    std::vector<std::unique_ptr<Stream>> streams;
    for (size_t s = 0; s < st.size(); s++)
        streams.push_back(transform_stream(*st[s], reqs, s, true));
    return drive(streams, load.threads, load.seconds);
}

// A ListObjects request of the 1,000-object world, and how many objects it
// answers.
struct ListWorld {
    ows::ListObjectsRequest req;
    int expected;
};

std::shared_ptr<const ListWorld> list_world(OwsStub &setup)
{
    std::string world = create_world(setup, "bench_1k");
    constexpr int kObjects = 1000;
    for (int i = 0; i < kObjects; i++)
        create_object(setup, world, "box" + std::to_string(i), "",
                      pose_json(0.5 * (i % 40), 0.5 * (i / 40), 0.1, 0.01 * i));
    ows::ListObjectsRequest req;
    req.set_world_id(world);
    int expected = call(setup, &OwsStub::ListObjects, "ListObjects", req).objects_size();
    if (expected < kObjects)
        fail("ListObjects: " + std::to_string(expected) + " objects, " + std::to_string(kObjects) + " created");
    return std::make_shared<const ListWorld>(ListWorld{req, expected});
}

std::unique_ptr<Stream> list_stream(OwsStub &stub, std::shared_ptr<const ListWorld> world)
{
    using ListStream = UnaryStream<OwsStub, ows::ListObjectsRequest, ows::ListObjectsResponse>;
    return std::make_unique<ListStream>(
        stub, &OwsStub::PrepareAsyncListObjects, "ListObjects",
        [world](uint64_t) -> const ows::ListObjectsRequest & { return world->req; },
        [world](const ows::ListObjectsResponse &r) {
            return r.objects_size() == world->expected ? std::string()
                                                       : "ListObjects: " + std::to_string(r.objects_size()) +
                                                             " objects, " + std::to_string(world->expected) +
                                                             " before";
        });
}

Figure list_objects(const Load &load)
{
    auto st = stubs<ows::ObjectWorldService>(load.target, load.streams, load.channels);
    auto world = list_world(*st[0]);
    std::vector<std::unique_ptr<Stream>> streams;
    for (auto &stub : st)
        streams.push_back(list_stream(*stub, world));
    return drive(streams, load.threads, load.seconds);
}

// "" when a simulation_interfaces Result is OK, else what it says.
std::string result_error(const char *method, const si::Result &r)
{
    if (r.result() == kResultOk)
        return "";
    return std::string(method) + ": result " + std::to_string(r.result()) + ": " + r.error_message();
}

// A stream whose iteration spawns the model under a name of its own
// (SpawnEntities, measured) and deletes it again (DeleteEntity, measured
// apart), so the world stays the same size however long the run.
class SpawnStream final : public Stream {
  public:
    SpawnStream(si::SimulationInterfaces::Stub &stub, int index, const std::string &model)
        : stub_(stub), index_(index), model_(model)
    {
    }

    void start(grpc::CompletionQueue *cq) override
    {
        spawn_req_.Clear();
        si::SpawnEntityRequest *one = spawn_req_.add_spawn_requests();
        name_ = "box_s" + std::to_string(index_) + "_" + std::to_string(i_);
        one->set_name(name_);
        one->mutable_entity_resource()->set_uri(model_);
        auto *p = one->mutable_initial_pose()->mutable_pose();
        p->mutable_position()->set_x(0.3 * index_);
        p->mutable_position()->set_y(0.01 * static_cast<double>(i_ % 100));
        deleting_ = false;
        start_call(stub_, &SiStub::PrepareAsyncSpawnEntities, spawn_req_, spawn_resp_, spawn_reader_, cq);
    }

    Next done(grpc::CompletionQueue *cq, bool ok) override
    {
        const char *method = deleting_ ? "DeleteEntity" : "SpawnEntities";
        if (!finish_call(method, ok, deleting_ ? extra_ms : ms))
            return Next::kFailed;
        if (deleting_) {
            error = result_error(method, delete_resp_.result());
            i_++;
            return error.empty() ? Next::kIterationDone : Next::kFailed;
        }
        error = result_error(method, spawn_resp_.result());
        if (error.empty() && spawn_resp_.results_size() != 1)
            error = "SpawnEntities: " + std::to_string(spawn_resp_.results_size()) + " results for one request";
        if (error.empty() && spawn_resp_.results(0).entity_name() != name_)
            error = "SpawnEntities '" + name_ + "': spawned as '" + spawn_resp_.results(0).entity_name() + "'";
        if (!error.empty())
            return Next::kFailed;
        delete_req_.set_entity(name_);
        deleting_ = true;
        start_call(stub_, &SiStub::PrepareAsyncDeleteEntity, delete_req_, delete_resp_, delete_reader_, cq);
        return Next::kCallStarted;
    }

  private:
    using SiStub = si::SimulationInterfaces::Stub;
    SiStub &stub_;
    int index_;
    std::string model_, name_;
    uint64_t i_ = 0;
    bool deleting_ = false;
    si::SpawnEntitiesRequest spawn_req_;
    si::SpawnEntitiesResponse spawn_resp_;
    si::DeleteEntityRequest delete_req_;
    si::DeleteEntityResponse delete_resp_;
    std::unique_ptr<grpc::ClientAsyncResponseReader<si::SpawnEntitiesResponse>> spawn_reader_;
    std::unique_ptr<grpc::ClientAsyncResponseReader<si::DeleteEntityResponse>> delete_reader_;
};

Figure spawn(const Load &load, const std::string &model)
{
    auto st = stubs<si::SimulationInterfaces>(load.target, load.streams, load.channels);
    std::vector<std::unique_ptr<Stream>> streams;
    for (size_t s = 0; s < st.size(); s++)
        streams.push_back(std::make_unique<SpawnStream>(*st[s], static_cast<int>(s), model));
    return drive(streams, load.threads, load.seconds);
}

// An attacker: GetEntities with filters whose cost glibc's regcomp did not
// bound (nested counted repetitions, back-references) and
// GetAvailableWorlds with 200,000 sources, in turn, each refused at once;
// whatever the server answers is taken, and its latency goes to extra_ms.
class AttackStream final : public Stream {
  public:
    explicit AttackStream(si::SimulationInterfaces::Stub &stub) : stub_(stub)
    {
        for (int i = 0; i < 200000; i++)
            worlds_req_.add_additional_sources(".");
    }

    void start(grpc::CompletionQueue *cq) override
    {
        static const char *const filters[] = {"a{1,255}{1,255}{1,255}", "(a{1,255}){1,255}{1,8}",
                                              "^(.*)(.*)(.*)(.*)(.*)\\1\\2\\3\\4\\5b"};
        if (i_ % 4 == 3) {
            start_call(stub_, &SiStub::PrepareAsyncGetAvailableWorlds, worlds_req_, worlds_resp_, worlds_reader_, cq);
        } else {
            entities_req_.mutable_filters()->set_filter(filters[i_ % 4]);
            start_call(stub_, &SiStub::PrepareAsyncGetEntities, entities_req_, entities_resp_, entities_reader_, cq);
        }
        i_++;
    }

    Next done(grpc::CompletionQueue *, bool ok) override
    {
        finish_call("attack", ok, extra_ms);
        error.clear(); /* a refusal is the expected answer */
        return Next::kIterationDone;
    }

  private:
    using SiStub = si::SimulationInterfaces::Stub;
    SiStub &stub_;
    uint64_t i_ = 0;
    si::GetEntitiesRequest entities_req_;
    si::GetEntitiesResponse entities_resp_;
    si::GetAvailableWorldsRequest worlds_req_;
    si::GetAvailableWorldsResponse worlds_resp_;
    std::unique_ptr<grpc::ClientAsyncResponseReader<si::GetEntitiesResponse>> entities_reader_;
    std::unique_ptr<grpc::ClientAsyncResponseReader<si::GetAvailableWorldsResponse>> worlds_reader_;
};

// GetTransform's load with the last stream attacking: the figure's
// latencies are GetTransform's alone (the attacker's are extra_ms).
Figure hostile(const Load &load)
{
    auto ows_stubs = stubs<ows::ObjectWorldService>(load.target, load.streams, load.channels);
    auto si_stubs = stubs<si::SimulationInterfaces>(load.target, load.streams, load.channels);
    auto reqs = transform_world(*ows_stubs[0]);
    std::vector<std::unique_ptr<Stream>> streams;
    for (size_t s = 0; s + 1 < ows_stubs.size(); s++)
        streams.push_back(transform_stream(*ows_stubs[s], reqs, s));
    streams.push_back(std::make_unique<AttackStream>(*si_stubs.back()));
    return drive(streams, load.threads, load.seconds);
}

// The three loads at once, for a soak: stream s runs GetTransform, spawn
// and delete, or ListObjects as s % 3 says, on worlds built once, so that
// the server's state stays the same size however long the run.
Figure mixed(const Load &load, const std::string &model)
{
    auto ows_stubs = stubs<ows::ObjectWorldService>(load.target, load.streams, load.channels);
    auto si_stubs = stubs<si::SimulationInterfaces>(load.target, load.streams, load.channels);
    auto reqs = transform_world(*ows_stubs[0]);
    auto world = list_world(*ows_stubs[0]);
    std::vector<std::unique_ptr<Stream>> streams;
    for (size_t s = 0; s < ows_stubs.size(); s++) {
        if (s % 3 == 0)
            streams.push_back(transform_stream(*ows_stubs[s], reqs, s));
        else if (s % 3 == 1)
            streams.push_back(std::make_unique<SpawnStream>(*si_stubs[s], static_cast<int>(s), model));
        else
            streams.push_back(list_stream(*ows_stubs[s], world));
    }
    return drive(streams, load.threads, load.seconds);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 7 || argc > 8) {
        std::fprintf(stderr, "usage: grpc_load TARGET get_transform|get_transform_floor|hostile|list_objects|spawn|"
                             "mixed SECONDS STREAMS CHANNELS "
                             "THREADS [MODEL]\n");
        return 2;
    }
    Load load{argv[1], std::atof(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]), std::atoi(argv[6])};
    std::string figure = argv[2];
    if (load.seconds <= 0 || load.streams < 1 || load.channels < 1 || load.channels > load.streams ||
        load.threads < 1 || load.threads > load.streams)
        fail("SECONDS must be positive, STREAMS at least 1, CHANNELS and THREADS from 1 to STREAMS");
    Figure f;
    if (figure == "get_transform") {
        f = get_transform(load);
    } else if (figure == "get_transform_floor") {
        f = get_transform_floor(load);
    } else if (figure == "hostile") {
        f = hostile(load);
    } else if (figure == "list_objects") {
        f = list_objects(load);
    } else if (figure == "spawn" || figure == "mixed") {
        if (argc != 8)
            fail(figure + " needs MODEL, an SDFormat file");
        f = figure == "spawn" ? spawn(load, argv[7]) : mixed(load, argv[7]);
    } else {
        fail("no figure named " + figure);
    }
    std::printf("calls %llu\nseconds %.6f\np50_ms %.6f\np99_ms %.6f\nmax_ms %.6f\nclient_cpu_s %.3f\n",
                static_cast<unsigned long long>(f.calls), f.seconds, percentile(f.ms, 0.50), percentile(f.ms, 0.99),
                *std::max_element(f.ms.begin(), f.ms.end()), f.client_cpu_s);
    if (!f.extra_ms.empty())
        std::printf("delete_p99_ms %.6f\n", percentile(f.extra_ms, 0.99));
    return 0;
}
