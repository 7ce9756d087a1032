/*
 * libFuzzer harness of the disk cache's entry reader: each input becomes the
 * entry of one fixed key in a temporary cache folder and is loaded. A load
 * rejects it (CLIK_ERR_FILE_FORMAT) or returns its binary; an accepted
 * entry is exactly what a store of that binary writes, byte for byte, and
 * loads back the same.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "internal.h"

#define FUZZ_KEY "clik fuzz\nprogram entry\n"

static char dir[512];
static char path[600];

static void remove_folder(void)
{
    unlink(path);
    rmdir(dir);
}

/* The folder and the entry's path, made on the first input. */
static void setup(void)
{
    if (dir[0])
        return;
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/clik-fuzz-cache-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir))
        abort();
    char hash[33];
    clik__hash_hex(FUZZ_KEY, strlen(FUZZ_KEY), hash);
    snprintf(path, sizeof(path), "%s/%s.bin", dir, hash);
    atexit(remove_folder);
}

static void put(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
}

/* The entry file as it is now; NULL when unreadable. */
static unsigned char *get(size_t *size)
{
    char *data;
    return clik__read_file(path, &data, size) == CLIK_OK ? (unsigned char *)data : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    put(data, size);
    unsigned char *bin;
    size_t len;
    clik_status st = clik__cache_load(dir, FUZZ_KEY, &bin, &len);
    if (st == CLIK_ERR_FILE_FORMAT && !bin && len == 0)
        return 0;
    if (st != CLIK_OK || !bin || len == 0 || len >= size)
        abort();
    /* Accepted: a store of the binary writes the input again. */
    if (clik__cache_store(dir, FUZZ_KEY, bin, len) != CLIK_OK)
        abort();
    size_t stored_size;
    unsigned char *stored = get(&stored_size);
    if (!stored || stored_size != size || memcmp(stored, data, size) != 0)
        abort();
    free(stored);
    unsigned char *again;
    size_t again_len;
    if (clik__cache_load(dir, FUZZ_KEY, &again, &again_len) != CLIK_OK || again_len != len ||
        memcmp(again, bin, len) != 0)
        abort();
    free(again);
    free(bin);
    return 0;
}
