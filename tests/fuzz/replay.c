/* replay.c — runs a fuzz target over every file of a corpus folder, so the
 * corpus is a regression test in builds without libFuzzer. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint8_t *data = NULL;
    size_t len = 0, cap = 0, n;
    uint8_t chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n > cap) {
            cap = (len + n) * 2;
            uint8_t *grown = realloc(data, cap);
            if (!grown) {
                free(data);
                fclose(f);
                return -1;
            }
            data = grown;
        }
        for (size_t i = 0; i < n; i++)
            data[len + i] = chunk[i];
        len += n;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data ? data : (const uint8_t *)"", len);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (!dir) {
        fprintf(stderr, "cannot open corpus %s\n", argv[1]);
        return 2;
    }
    int count = 0;
    char path[4096];
    for (struct dirent *entry; (entry = readdir(dir));) {
        if (entry->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", argv[1], entry->d_name);
        if (replay_file(path)) {
            fprintf(stderr, "cannot read %s\n", path);
            closedir(dir);
            return 1;
        }
        count++;
    }
    closedir(dir);
    printf("replayed %d inputs from %s\n", count, argv[1]);
    return count > 0 ? 0 : 1;
}
