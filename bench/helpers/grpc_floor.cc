// grpc_floor.cc — the floor bench/server measures worldkit against: a bare
// gRPC server, on gRPC's own C++ library, that answers every unary call of
// any method with an empty message and status OK, doing no work of its
// own. Whatever calls per second it reaches on a host, in the same run,
// is what gRPC and the kernel allow there; worldkit's figures are read as
// a ratio to it.
//
//   grpc_floor THREADS
//
// Listens on a free loopback port, prints "listening PORT" once it serves,
// and serves until it is killed. THREADS threads each drive a completion
// queue of their own.
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

namespace {

// One call's life on a queue: asked for, its request read, answered,
// finished; then it asks for the next call.
class Call {
  public:
    Call(grpc::AsyncGenericService *service, grpc::ServerCompletionQueue *cq)
        : service_(service), cq_(cq), stream_(&ctx_)
    {
        service_->RequestCall(&ctx_, &stream_, cq_, cq_, this);
    }

    // The queue's answer for this call's last step; false when the call is
    // over (this object deleted).
    bool step(bool ok)
    {
        switch (state_) {
        case State::kAsked:
            if (!ok)
                return finish_now();
            new Call(service_, cq_);
            state_ = State::kReading;
            stream_.Read(&request_, this);
            return true;
        case State::kReading:
            state_ = State::kAnswered;
            stream_.WriteAndFinish(grpc::ByteBuffer(), grpc::WriteOptions(), grpc::Status::OK, this);
            return true;
        case State::kAnswered:
            return finish_now();
        }
        return finish_now();
    }

  private:
    enum class State { kAsked, kReading, kAnswered };

    bool finish_now()
    {
        delete this;
        return false;
    }

    grpc::AsyncGenericService *service_;
    grpc::ServerCompletionQueue *cq_;
    grpc::GenericServerContext ctx_;
    grpc::GenericServerAsyncReaderWriter stream_;
    grpc::ByteBuffer request_;
    State state_ = State::kAsked;
};

void drive(grpc::AsyncGenericService *service, grpc::ServerCompletionQueue *cq)
{
    new Call(service, cq);
    void *tag;
    bool ok;
    while (cq->Next(&tag, &ok))
        static_cast<Call *>(tag)->step(ok);
}

} // namespace

int main(int argc, char **argv)
{
    int threads = argc == 2 ? std::atoi(argv[1]) : 0;
    if (threads < 1) {
        std::fprintf(stderr, "usage: grpc_floor THREADS\n");
        return 2;
    }
    grpc::AsyncGenericService service;
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterAsyncGenericService(&service);
    std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues;
    for (int i = 0; i < threads; i++)
        queues.push_back(builder.AddCompletionQueue());
    std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
    if (!server || port == 0) {
        std::fprintf(stderr, "grpc_floor: could not listen on loopback\n");
        return 1;
    }
    std::printf("listening %d\n", port);
    std::fflush(stdout);
    std::vector<std::thread> pool;
    for (size_t i = 1; i < queues.size(); i++)
        pool.emplace_back(drive, &service, queues[i].get());
    drive(&service, queues[0].get());
    return 0;
}
