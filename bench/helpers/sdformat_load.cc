// sdformat_load.cc — the peer in bench/load: loads one SDFormat file with
// libsdformat's sdf::Root::Load and prints the milliseconds it took. Run in
// a child process so that its memory is measured apart from worldkit's.
#include <chrono>
#include <cstdio>

#include <sdf/sdf.hh>

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: sdformat_load FILE\n");
        return 2;
    }
    auto start = std::chrono::steady_clock::now();
    sdf::Root root;
    sdf::Errors errors = root.Load(argv[1]);
    auto end = std::chrono::steady_clock::now();
    for (const auto &e : errors)
        std::fprintf(stderr, "sdformat_load: %s\n", e.Message().c_str());
    std::printf("%.3f\n", std::chrono::duration<double, std::milli>(end - start).count());
    return errors.empty() ? 0 : 1;
}
