/*
 * Runs a libFuzzer harness over saved inputs, without libFuzzer: every file
 * named on the command line, and every file in the folders named (and their
 * subfolders). So each harness's seed corpus runs as an ordinary test, in any
 * build and under valgrind. Fails when an argument cannot be read or when
 * nothing was found to run; a harness that crashes ends the process.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Reads a whole file into an allocation of exactly its size, so that a
 * harness reading past its input reads past the allocation, and runs it. */
static int run_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return 0;
    }
    long size = fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
    uint8_t *data = size >= 0 ? malloc(size > 0 ? (size_t)size : 1) : NULL;
    int ok =
        data && fseek(fp, 0, SEEK_SET) == 0 && fread(data, 1, (size_t)size, fp) == (size_t)size;
    fclose(fp);
    if (ok)
        LLVMFuzzerTestOneInput(data, (size_t)size);
    else
        fprintf(stderr, "replay: cannot read %s\n", path);
    free(data);
    return ok;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Runs every file under path (in name order, for reproducible runs); adds
 * the number run to *count. Returns 0 on any error. */
static int run_path(const char *path, unsigned *count)
{
    struct stat info;
    if (stat(path, &info) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(info.st_mode)) {
        if (!run_file(path))
            return 0;
        (*count)++;
        return 1;
    }
    struct dirent **entries;
    int n = scandir(path, &entries, NULL, by_name);
    if (n < 0) {
        fprintf(stderr, "replay: cannot list %s: %s\n", path, strerror(errno));
        return 0;
    }
    int ok = 1;
    for (int i = 0; i < n; i++) {
        const char *name = entries[i]->d_name;
        if (ok && strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
            size_t len = strlen(path) + strlen(name) + 2;
            char *child = malloc(len);
            if (!child) {
                fprintf(stderr, "replay: out of memory\n");
                ok = 0;
            } else {
                snprintf(child, len, "%s/%s", path, name);
                ok = run_path(child, count);
                free(child);
            }
        }
        free(entries[i]);
    }
    free(entries);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
        return EXIT_FAILURE;
    }
    unsigned count = 0;
    for (int i = 1; i < argc; i++) {
        if (!run_path(argv[i], &count))
            return EXIT_FAILURE;
    }
    if (count == 0) {
        fprintf(stderr, "replay: no inputs found\n");
        return EXIT_FAILURE;
    }
    printf("replayed %u inputs\n", count);
    return EXIT_SUCCESS;
}
