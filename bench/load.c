/* load.c — how fast worldkit reads big SDFormat worlds, and how much memory
 * it takes, against libsdformat on the same file in the same run.
 *
 * It writes worlds of n simple models (one link each, with a box visual and
 * a box collision; a third of the models posed relative_to a world frame or
 * to the previous model), then reads each in a child process, so that the
 * child's peak resident memory (wait4's ru_maxrss) is that reader's alone.
 * worldkit's figure is wk_desc_read: parsing, frame resolution and the
 * description; libsdformat's is sdf::Root::Load, run by the helper program
 * helpers/sdformat_load next to this one. Prints:
 *   load.sdf_1k, load.sdf_1k_rss, load.sdformat_1k, load.sdformat_1k_rss,
 *   load.speedup (sdformat_1k / sdf_1k), load.sdf_100k, load.sdf_100k_rss. */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define BENCH_NAME "bench/load"
#include "bench.h"
#include "worldkit/wk_formats.h"

typedef struct run {
    double ms;
    double rss_mb;
} run;


static void write_world(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write the world file");
    fprintf(f, "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"big\">\n");
    int frames = n / 100 + 1;
    for (int k = 0; k < frames; k++)
        fprintf(f, "<frame name=\"area_%d\"><pose>%d %d 0 0 0 %g</pose></frame>\n", k, k * 10, -k * 10, k * 0.01);
    for (int i = 0; i < n; i++) {
        char rel[64] = "";
        if (i % 3 == 1)
            snprintf(rel, sizeof rel, " relative_to=\"area_%d\"", i % frames);
        else if (i % 3 == 2)
            snprintf(rel, sizeof rel, " relative_to=\"m%d\"", i - 1);
        fprintf(f,
                "<model name=\"m%d\"><pose%s>%g %g 0.5 0 0 %g</pose><link name=\"body\">"
                "<visual name=\"visual\"><geometry><box><size>1 1 1</size></box></geometry></visual>"
                "<collision name=\"collision\"><geometry><box><size>1 1 1</size></box></geometry></collision>"
                "</link></model>\n",
                i, rel, (double)(i % 100) * 2, (double)(i / 100) * 2, (double)(i % 7) * 0.1);
    }
    fprintf(f, "</world>\n</sdf>\n");
    if (fclose(f))
        die("cannot write the world file");
}

/* Waits for the child; its milliseconds come through the pipe. */
static run collect(pid_t pid, int fd)
{
    struct rusage ru;
    int status;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("a reader failed");
    char buf[64] = "";
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        die("a reader reported no time");
    return (run){atof(buf), (double)ru.ru_maxrss / 1024.0};
}

static run run_worldkit(const char *path)
{
    int fds[2];
    if (pipe(fds))
        die("pipe");
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        double start = now_s() * 1e3;
        wk_world_desc *d = NULL;
        wk_status st = {0};
        int rc = wk_desc_read(&(wk_read_desc){.uri = path}, &d, &st);
        double ms = now_s() * 1e3 - start;
        if (rc) {
            fprintf(stderr, "bench/load: %s\n", st.message);
            _exit(1);
        }
        dprintf(fds[1], "%.3f\n", ms);
        _exit(0); /* the description dies with the child */
    }
    close(fds[1]);
    return collect(pid, fds[0]);
}

static run run_sdformat(const char *helper, const char *path)
{
    int fds[2];
    if (pipe(fds))
        die("pipe");
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDOUT_FILENO);
        execl(helper, helper, path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    return collect(pid, fds[0]);
}

/* The best of reps runs: the fastest time and the smallest peak memory. */
static run best_of(int reps, run (*fn)(const char *, const char *), const char *a, const char *b)
{
    run best = {1e300, 1e300};
    for (int i = 0; i < reps; i++) {
        run r = fn(a, b);
        best.ms = r.ms < best.ms ? r.ms : best.ms;
        best.rss_mb = r.rss_mb < best.rss_mb ? r.rss_mb : best.rss_mb;
    }
    return best;
}

static run worldkit_adapter(const char *path, const char *unused)
{
    (void)unused;
    return run_worldkit(path);
}

static run sdformat_adapter(const char *path, const char *helper)
{
    return run_sdformat(helper, path);
}

int main(int argc, char **argv)
{
    (void)argc;
    char helper[4096];
    const char *slash = strrchr(argv[0], '/');
    snprintf(helper, sizeof helper, "%.*s/helpers/sdformat_load", slash ? (int)(slash - argv[0]) : 1,
             slash ? argv[0] : ".");
    char dir[] = "/tmp/wk_bench_load_XXXXXX";
    if (!mkdtemp(dir))
        die("mkdtemp");
    char small[64], big[64];
    snprintf(small, sizeof small, "%s/1k.sdf", dir);
    snprintf(big, sizeof big, "%s/100k.sdf", dir);
    write_world(small, 1000);
    write_world(big, 100000);

    run wk1 = best_of(5, worldkit_adapter, small, NULL);
    run sdf1 = best_of(1, sdformat_adapter, small, helper);
    run wk100 = best_of(3, worldkit_adapter, big, NULL);
    printf("bench load.sdf_1k %.2f ms\n", wk1.ms);
    printf("bench load.sdf_1k_rss %.1f MB\n", wk1.rss_mb);
    printf("bench load.sdformat_1k %.1f ms\n", sdf1.ms);
    printf("bench load.sdformat_1k_rss %.1f MB\n", sdf1.rss_mb);
    printf("bench load.speedup %.0f x\n", sdf1.ms / wk1.ms);
    printf("bench load.sdf_100k %.1f ms\n", wk100.ms);
    printf("bench load.sdf_100k_rss %.1f MB\n", wk100.rss_mb);
    unlink(small);
    unlink(big);
    rmdir(dir);
    return 0;
}
