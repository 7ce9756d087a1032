/*
 * libFuzzer harness of the tuning store's record reader (lib/tune_store.c).
 * Each input is a record's text: parsed on its own, and stored as the entry
 * of one fixed (program, kernel, problem class) in a temporary cache folder
 * and loaded through clik__tune_load, as a later run would. A record is
 * accepted only in the exact form a store writes: an accepted input is
 * written back byte for byte and loads again the same; anything else is
 * rejected (CLIK_ERR_FILE_FORMAT), never half-read. The context's memory of
 * loaded entries is dropped before each load, as a new context starts. (The
 * entry's container, a cache entry, has its own harness: fuzz_cache.)
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "internal.h"

#define PROGRAM "lapar"
#define KERNEL  "lapar_filter"
#define PROBLEM "u8 c4 phi-f32 x4 sym terms 72 px 2^20"

static char dir[512];
static clik_context *ctx;

static void remove_folder(void)
{
    clik_strbuf key = {0};
    if (ctx && clik__tune_entry_key(ctx, PROGRAM, KERNEL, PROBLEM, &key) == 0) {
        char hash[33], path[700];
        clik__hash_hex(key.data, key.len, hash);
        snprintf(path, sizeof(path), "%s/tune/%s.bin", dir, hash);
        unlink(path);
    }
    clik__sb_free(&key);
    clik_context_destroy(ctx);
    char tune[600];
    snprintf(tune, sizeof(tune), "%s/tune", dir);
    rmdir(tune);
    rmdir(dir);
}

/* A context without a device whose cache folder is a fresh folder. */
static void setup(void)
{
    if (ctx)
        return;
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/clik-fuzz-tune-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir))
        abort();
    clik_context_options o = fuzz_cpu_options();
    o.cache_dir = dir;
    ctx = fuzz_create(&o);
    atexit(remove_folder);
}

static int same(const clik_tune_record *a, const clik_tune_record *b)
{
    return a->variant == b->variant && a->wg[0] == b->wg[0] && a->wg[1] == b->wg[1] &&
           a->wg[2] == b->wg[2] && a->ms == b->ms;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    clik_tune_record rec, loaded;
    const int parsed = clik__tune_record_parse((const char *)data, size, KERNEL, PROBLEM, &rec);
    if (parsed) {
        /* Accepted: exactly what a store writes for that record. */
        char text[CLIK_TUNE_RECORD_MAX + 1];
        const size_t n = clik__tune_record_format(KERNEL, PROBLEM, &rec, text, sizeof(text));
        if (n != size || memcmp(text, data, size) != 0)
            abort();
    }
    /* The same bytes as the content of the store's entry. */
    clik_strbuf key = {0};
    char d[600];
    snprintf(d, sizeof(d), "%s/tune", dir);
    if (clik__tune_entry_key(ctx, PROGRAM, KERNEL, PROBLEM, &key) != 0)
        abort();
    const clik_status stored = clik__cache_store(d, key.data, data, size);
    if (stored == CLIK_OK) {
        /* A later run's context: nothing remembered from earlier inputs. */
        clik__tune_memo_free(ctx);
        const clik_status st = clik__tune_load(ctx, PROGRAM, KERNEL, PROBLEM, &loaded);
        if (parsed ? st != CLIK_OK || !same(&rec, &loaded) : st != CLIK_ERR_FILE_FORMAT)
            abort();
        if (parsed) {
            /* A store of the record writes the same entry, which loads the same. */
            if (clik__tune_store(ctx, PROGRAM, KERNEL, PROBLEM, &rec) != CLIK_OK ||
                clik__tune_load(ctx, PROGRAM, KERNEL, PROBLEM, &loaded) != CLIK_OK ||
                !same(&rec, &loaded))
                abort();
        }
    } else if (size != 0 && size <= CLIK_TUNE_RECORD_MAX) {
        abort(); /* the folder is ours: only an empty entry is refused */
    }
    clik__sb_free(&key);
    return 0;
}
