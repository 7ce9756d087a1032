/*
 * The host library on each OpenCL device: the program cache in memory and
 * on disk, several processes sharing a cache folder, entries that are cut,
 * damaged, forged or not files at all, writers killed mid-write, the
 * fallback policy, build logs, discovery without a platform, contexts in
 * threads.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cases.h"
#include "clik_lapar_net.h"
#include "harness.h"

extern char **environ;

/* ---- helpers ------------------------------------------------------------ */

static clik_context *open_ctx(const char *cache_dir, int cache, const char *kernel_dir, int strict)
{
    clik_context_options opt = h_device_options(cache_dir, strict);
    opt.cache = cache;
    opt.kernel_dir = kernel_dir;
    return h_context_create(&opt);
}

/* Runs equalize through ctx and checks it against the oracle. */
static sup_case_result equalize_once(clik_context *ctx)
{
    sup_case_result r;
    sup_case_check(sup_case_find("hist_equalize"), ctx, h_oracle, 99, 37, 1, SUP_PATTERN_NOISE, 3,
                   &r);
    return r;
}

static clik_context_stats stats_of(clik_context *ctx)
{
    clik_context_stats s;
    clik_context_stats_get(ctx, &s);
    return s;
}

/* Number of entries in dir whose name contains needle. */
static int count_files(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && strstr(e->d_name, needle))
            n++;
    closedir(d);
    return n;
}

/* Starts the worker with the environment changed by `set` ("NAME=value")
 * and `unset` (names); returns its pid. out receives its stdout. */
static pid_t spawn_worker(const char *const *args, const char *const *set, const char *const *unset,
                          const char *out)
{
    const char *worker = getenv("CLIK_TEST_WORKER");
    ck_assert_msg(worker != NULL, "CLIK_TEST_WORKER is not set");
    char *envp[512];
    int n = 0;
    for (char **e = environ; *e && n < 400; e++) {
        int drop = 0;
        for (int i = 0; unset && unset[i]; i++) {
            size_t len = strlen(unset[i]);
            drop |= strncmp(*e, unset[i], len) == 0 && (*e)[len] == '=';
        }
        for (int i = 0; set && set[i]; i++) {
            size_t len = strcspn(set[i], "=");
            drop |= strncmp(*e, set[i], len + 1) == 0;
        }
        if (!drop)
            envp[n++] = *e;
    }
    for (int i = 0; set && set[i]; i++)
        envp[n++] = (char *)set[i];
    envp[n] = NULL;
    char *argv[16];
    int a = 0;
    argv[a++] = (char *)worker;
    for (int i = 0; args && args[i] && a < 15; i++)
        argv[a++] = (char *)args[i];
    argv[a] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int err = posix_spawn(&pid, worker, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    ck_assert_msg(err == 0, "cannot start %s", worker);
    return pid;
}

/* What a worker wrote to out, up to cap - 1 bytes, in line ("" if none). */
static void read_line(const char *out, char *line, size_t cap)
{
    line[0] = '\0';
    FILE *f = fopen(out, "r");
    if (f) {
        size_t got = fread(line, 1, cap - 1, f);
        line[got] = '\0';
        fclose(f);
    }
}

static int wait_worker(pid_t pid, const char *out, char *line, size_t cap)
{
    int status = 0;
    waitpid(pid, &status, 0);
    read_line(out, line, cap);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Like wait_worker, but a worker still running after `seconds` is killed
 * and -1 returned: a run that blocks fails its test instead of the suite
 * hanging. */
static int wait_worker_within(pid_t pid, const char *out, char *line, size_t cap, int seconds)
{
    int status = 0;
    for (long waited_ms = 0; waitpid(pid, &status, WNOHANG) != pid; waited_ms += 100) {
        if (waited_ms >= seconds * 1000L) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            snprintf(line, cap, "(still running after %d s)", seconds);
            return -1;
        }
        struct timespec step = {0, 100 * 1000 * 1000};
        nanosleep(&step, NULL);
    }
    read_line(out, line, cap);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The disk cache's reader and writer (lib/cache.c) and the hash that names
 * its entries (lib/util.c): internal functions of the static library that
 * this suite links. */
clik_status clik__cache_load(const char *dir, const char *key, unsigned char **binary,
                             size_t *length);
clik_status clik__cache_store(const char *dir, const char *key, const unsigned char *binary,
                              size_t length);
void clik__hash_hex(const void *data, size_t len, char out[33]);

static const char test_key[] = "clik test\nprogram faults\ndriver 1\n";

static void entry_path_of(const char *dir, const char *key, char *path, size_t cap)
{
    char hash[33];
    clik__hash_hex(key, strlen(key), hash);
    int n = snprintf(path, cap, "%s/%s.bin", dir, hash);
    ck_assert(n > 0 && (size_t)n < cap);
}

static void put_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static unsigned char *get_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    ck_assert_int_ge(size, 0);
    rewind(f);
    unsigned char *data = malloc((size_t)size + 1);
    ck_assert_ptr_nonnull(data);
    ck_assert_uint_eq(fread(data, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *len = (size_t)size;
    return data;
}

/* Moves path's modification time `seconds` into the past. */
static void age_file(const char *path, long seconds)
{
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= seconds;
    t[1] = t[0];
    ck_assert_int_eq(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW), 0);
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A load of key that must be rejected; `what` names the damage. */
static void expect_rejected(const char *dir, const char *key, const char *what)
{
    unsigned char *bin = (unsigned char *)"unchanged";
    size_t len = 1;
    clik_status st = clik__cache_load(dir, key, &bin, &len);
    ck_assert_msg(st == CLIK_ERR_FILE_FORMAT, "%s: %s", what, clik_status_str(st));
    ck_assert_msg(bin == NULL && len == 0, "%s: a binary came back", what);
}

/* Stores over whatever is in the entry's place, then loads it back. */
static void expect_replaced(const char *dir, const char *key, const unsigned char *bin, size_t n,
                            const char *what)
{
    ck_assert_msg(clik__cache_store(dir, key, bin, n) == CLIK_OK, "%s: store", what);
    unsigned char *got;
    size_t len;
    ck_assert_msg(clik__cache_load(dir, key, &got, &len) == CLIK_OK, "%s: load", what);
    ck_assert_uint_eq(len, n);
    ck_assert_mem_eq(got, bin, n);
    free(got);
    char path[1024];
    entry_path_of(dir, key, path, sizeof(path));
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_msg(S_ISREG(st.st_mode), "%s: the entry is not a file", what);
    ck_assert_int_eq(count_files(dir, ".tmp."), 0);
}

/* An entry in the previous format, "CLIKBIN1" | u32 key length | u64 binary
 * length | 32-hex hash of the binary | key | binary, whose hash matches. */
static void put_v1_entry(const char *path, const char *key, const unsigned char *bin, size_t n)
{
    size_t key_len = strlen(key);
    unsigned char *e = malloc(52 + key_len + n);
    ck_assert_ptr_nonnull(e);
    memcpy(e, "CLIKBIN1", 8);
    for (int i = 0; i < 4; i++)
        e[8 + i] = (unsigned char)(key_len >> (8 * i));
    for (int i = 0; i < 8; i++)
        e[12 + i] = (unsigned char)((uint64_t)n >> (8 * i));
    char hash[33];
    clik__hash_hex(bin, n, hash);
    memcpy(e + 20, hash, 32);
    memcpy(e + 52, key, key_len);
    memcpy(e + 52 + key_len, bin, n);
    put_file(path, e, 52 + key_len + n);
    free(e);
}

/* The paths of the entries in dir (HASH.bin); returns how many. */
static int list_entries(const char *dir, char paths[][1024], int cap)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strlen(e->d_name) == 36 && strcmp(e->d_name + 32, ".bin") == 0 && n < cap)
            snprintf(paths[n++], 1024, "%s/%s", dir, e->d_name);
    closedir(d);
    return n;
}

/* The key written in an entry: from "clik VERSION\n" to the end of its
 * "driver" line (the library builds keys that way). */
static void entry_key(const char *path, char *key, size_t cap)
{
    size_t size;
    unsigned char *data = get_file(path, &size);
    data[size] = '\0';
    char start[64];
    snprintf(start, sizeof(start), "clik %s\nprogram ", clik_version());
    const char *p = NULL;
    for (size_t i = 0; !p && i + strlen(start) <= size; i++)
        if (memcmp(data + i, start, strlen(start)) == 0)
            p = (const char *)data + i;
    ck_assert_msg(p != NULL, "no key in %s", path);
    const char *driver = strstr(p, "\ndriver ");
    ck_assert_ptr_nonnull(driver);
    size_t len = (size_t)(strchr(driver + 1, '\n') + 1 - p);
    ck_assert_uint_lt(len, cap);
    memcpy(key, p, len);
    key[len] = '\0';
    free(data);
}

/* Runs clik__cache_load(dir, key) in a child process that has `seconds` to
 * finish; returns its status, or -1 when the load blocked. */
static int load_in_child(const char *dir, const char *key, unsigned seconds)
{
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGALRM, SIG_DFL); /* Check's own handler would end the whole suite */
        alarm(seconds);
        unsigned char *bin = NULL;
        size_t len;
        clik_status st = clik__cache_load(dir, key, &bin, &len);
        free(bin);
        _exit((int)st);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- the cache ------------------------------------------------------------ */

START_TEST(second_context_loads_from_disk)
{
    char *dir = h_tempdir();
    clik_context *a = open_ctx(dir, 1, NULL, 1);
    sup_case_result r = equalize_once(a);
    ck_assert_msg(sup_case_passed(&r), "%s %s", r.message, r.cmp.detail);
    clik_context_stats s = stats_of(a);
    ck_assert_uint_ge(s.programs_built, 1);
    ck_assert_uint_eq(s.programs_from_disk, 0);
    ck_assert_uint_eq(s.cache_written, s.programs_built);
    ck_assert_int_eq(count_files(dir, ".bin"), (int)s.programs_built);
    /* Again in the same context: served from memory. */
    r = equalize_once(a);
    ck_assert(sup_case_passed(&r));
    clik_context_stats s2 = stats_of(a);
    ck_assert_uint_eq(s2.programs_built, s.programs_built);
    ck_assert_uint_gt(s2.programs_reused, s.programs_reused);
    clik_context_destroy(a);

    clik_context *b = open_ctx(dir, 1, NULL, 1);
    r = equalize_once(b);
    ck_assert_msg(sup_case_passed(&r), "%s %s", r.message, r.cmp.detail);
    s2 = stats_of(b);
    ck_assert_uint_eq(s2.programs_built, 0);
    ck_assert_uint_eq(s2.programs_from_disk, s.programs_built);
    ck_assert_uint_eq(s2.cache_rejected, 0);
    clik_context_destroy(b);
    h_rmtree(dir);
}
END_TEST

/* Puts "ENTRY.load" next to every entry of dir; with hold, keeps each open
 * and locked as a loader does (fds[] gets them), else leaves it as a loader
 * that died inside the driver leaves it. Returns the count. */
static int mark_loads(const char *dir, int hold, int *fds, int cap)
{
    char paths[64][1024];
    int n = list_entries(dir, paths, 64), marked = 0;
    for (int i = 0; i < n && marked < cap; i++) {
        char marker[1100];
        snprintf(marker, sizeof(marker), "%.1000s.load", paths[i]);
        int fd = open(marker, O_RDWR | O_CREAT | O_EXCL, 0600);
        ck_assert_msg(fd >= 0, "%s", marker);
        if (hold) {
            ck_assert_int_eq(flock(fd, LOCK_SH), 0);
            fds[marked] = fd;
        } else {
            close(fd);
        }
        marked++;
    }
    return marked;
}

START_TEST(entry_that_crashed_a_loader_is_rebuilt)
{
    char *dir = h_tempdir();
    clik_context *a = open_ctx(dir, 1, NULL, 1);
    sup_case_result r = equalize_once(a);
    ck_assert_msg(sup_case_passed(&r), "%s %s", r.message, r.cmp.detail);
    const unsigned built = stats_of(a).programs_built;
    clik_context_destroy(a);

    /* A loader that holds its marker is loading now: the entries are used. */
    int fds[64];
    int held = mark_loads(dir, 1, fds, 64);
    ck_assert_int_eq(held, (int)built);
    clik_context *b = open_ctx(dir, 1, NULL, 1);
    r = equalize_once(b);
    ck_assert_msg(sup_case_passed(&r), "%s %s", r.message, r.cmp.detail);
    ck_assert_uint_eq(stats_of(b).programs_from_disk, built);
    ck_assert_uint_eq(stats_of(b).cache_rejected, 0);
    clik_context_destroy(b);
    ck_assert_int_eq(count_files(dir, ".load"), held);
    for (int i = 0; i < held; i++)
        close(fds[i]);
    /* Those loaders are gone and their markers stay behind: each entry is
     * taken as one that crashed the driver, dropped and rebuilt. */
    clik_context *c = open_ctx(dir, 1, NULL, 1);
    r = equalize_once(c);
    ck_assert_msg(sup_case_passed(&r), "%s %s", r.message, r.cmp.detail);
    clik_context_stats s = stats_of(c);
    ck_assert_uint_eq(s.programs_from_disk, 0);
    ck_assert_uint_eq(s.cache_rejected, built);
    ck_assert_uint_eq(s.programs_built, built);
    clik_context_destroy(c);
    ck_assert_int_eq(count_files(dir, ".load"), 0);
    /* The rebuilt entries load again. */
    clik_context *d = open_ctx(dir, 1, NULL, 1);
    r = equalize_once(d);
    ck_assert(sup_case_passed(&r));
    ck_assert_uint_eq(stats_of(d).programs_from_disk, built);
    clik_context_destroy(d);
    h_rmtree(dir);
}
END_TEST

/* Damages every entry differently; each is rejected and rebuilt. */
static void damage_entries(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int k = 0;
    while ((e = readdir(d))) {
        if (!strstr(e->d_name, ".bin"))
            continue;
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        struct stat st;
        ck_assert_int_eq(stat(path, &st), 0);
        if (k % 3 == 0) {
            ck_assert_int_eq(truncate(path, st.st_size / 2), 0); /* cut short */
        } else if (k % 3 == 1) {
            FILE *f = fopen(path, "r+b"); /* one flipped byte near the end */
            ck_assert_ptr_nonnull(f);
            fseek(f, -5, SEEK_END);
            int c = fgetc(f);
            fseek(f, -5, SEEK_END);
            fputc(c ^ 0x40, f);
            fclose(f);
        } else {
            FILE *f = fopen(path, "wb"); /* not an entry at all */
            ck_assert_ptr_nonnull(f);
            fputs("garbage", f);
            fclose(f);
        }
        k++;
    }
    closedir(d);
    ck_assert_int_gt(k, 0);
}

START_TEST(corrupt_entries_are_rebuilt)
{
    char *dir = h_tempdir();
    clik_context *a = open_ctx(dir, 1, NULL, 1);
    sup_case_result r = equalize_once(a);
    ck_assert(sup_case_passed(&r));
    unsigned programs = stats_of(a).programs_built;
    clik_context_destroy(a);

    damage_entries(dir);
    clik_context *b = open_ctx(dir, 1, NULL, 1);
    r = equalize_once(b);
    ck_assert_msg(sup_case_passed(&r), "%s %s", r.message, r.cmp.detail);
    clik_context_stats s = stats_of(b);
    ck_assert_uint_eq(s.cache_rejected, programs);
    ck_assert_uint_eq(s.programs_built, programs);
    ck_assert_uint_eq(s.cache_written, programs);
    clik_context_destroy(b);

    clik_context *c = open_ctx(dir, 1, NULL, 1);
    r = equalize_once(c);
    ck_assert(sup_case_passed(&r));
    s = stats_of(c);
    ck_assert_uint_eq(s.programs_from_disk, programs);
    ck_assert_uint_eq(s.cache_rejected, 0);
    ck_assert_int_eq(count_files(dir, ".tmp."), 0);
    clik_context_destroy(c);
    h_rmtree(dir);
}
END_TEST

START_TEST(cache_off_writes_nothing)
{
    char *dir = h_tempdir();
    clik_context *a = open_ctx(dir, 0, NULL, 1);
    sup_case_result r = equalize_once(a);
    ck_assert(sup_case_passed(&r));
    ck_assert_uint_eq(stats_of(a).cache_written, 0);
    clik_context_destroy(a);
    ck_assert_int_eq(count_files(dir, ""), 0);

    /* The same through the environment, in a fresh process. */
    char out[1024], line[512];
    snprintf(out, sizeof(out), "%s/out.txt", dir);
    char cache_var[600];
    snprintf(cache_var, sizeof(cache_var), "CLIK_CACHE_DIR=%s/env", dir);
    const char *set[] = {"CLIK_CACHE=off", cache_var, NULL};
    const char *args[] = {"--device", h_device, "--strict", NULL};
    int rc = wait_worker(spawn_worker(args, set, NULL, out), out, line, sizeof(line));
    ck_assert_msg(rc == 0, "worker: %s", line);
    ck_assert_msg(strstr(line, "written=0"), "%s", line);
    snprintf(out, sizeof(out), "%s/env", dir);
    ck_assert_int_eq(count_files(out, ""), 0);
    h_rmtree(dir);
}
END_TEST

/* Four processes fill one empty cache folder at the same time. */
START_TEST(processes_share_a_folder)
{
    char *dir = h_tempdir();
    char cache[600];
    snprintf(cache, sizeof(cache), "%s/shared/cache", dir); /* created by the workers */
    const char *args[] = {"--device", h_device, "--cache", cache, "--strict", NULL};
    pid_t pids[4];
    char outs[4][700];
    for (int i = 0; i < 4; i++) {
        snprintf(outs[i], sizeof(outs[i]), "%s/out%d.txt", dir, i);
        pids[i] = spawn_worker(args, NULL, NULL, outs[i]);
    }
    for (int i = 0; i < 4; i++) {
        char line[512];
        int rc = wait_worker(pids[i], outs[i], line, sizeof(line));
        ck_assert_msg(rc == 0, "worker %d: %s", i, line);
        ck_assert_msg(strstr(line, "rejected=0"), "worker %d: %s", i, line);
    }
    ck_assert_int_eq(count_files(cache, ".tmp."), 0);
    ck_assert_int_gt(count_files(cache, ".bin"), 0);
    clik_context *c = open_ctx(cache, 1, NULL, 1);
    sup_case_result r = equalize_once(c);
    ck_assert(sup_case_passed(&r));
    clik_context_stats s = stats_of(c);
    ck_assert_uint_eq(s.programs_built, 0);
    ck_assert_uint_eq(s.cache_rejected, 0);
    clik_context_destroy(c);
    h_rmtree(dir);
}
END_TEST

/* ---- entries that are not what they claim ----------------------------------- */

/* The bytes of a made-up program binary. */
static void fake_binary(unsigned char *bin, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bin[i] = (unsigned char)(i * 7 + 1);
}

/* Every cut, every flipped bit, lying lengths, another key's entry, the
 * previous format: each is rejected, and a store puts a good entry in its
 * place. */
START_TEST(damaged_entries_are_rejected)
{
    char *dir = h_tempdir();
    char path[1024], other[1024], what[128];
    entry_path_of(dir, test_key, path, sizeof(path));
    unsigned char bin[300];
    fake_binary(bin, sizeof(bin));
    unsigned char *got;
    size_t len;
    ck_assert_int_eq(clik__cache_load(dir, test_key, &got, &len), CLIK_ERR_IO);
    ck_assert_int_eq(clik__cache_store(dir, test_key, bin, sizeof(bin)), CLIK_OK);
    size_t size;
    unsigned char *good = get_file(path, &size);

    /* Cut anywhere: zero bytes, the header only, the key, the binary, the
     * trailer short of its last byte. */
    for (size_t cut = 0; cut < size; cut++) {
        put_file(path, good, cut);
        snprintf(what, sizeof(what), "cut to %zu of %zu bytes", cut, size);
        expect_rejected(dir, test_key, what);
    }
    unsigned char *bad = malloc(size + 1);
    ck_assert_ptr_nonnull(bad);
    for (size_t i = 0; i < size; i++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(bad, good, size);
            bad[i] ^= (unsigned char)(1u << bit);
            put_file(path, bad, size);
            snprintf(what, sizeof(what), "bit %d of byte %zu flipped", bit, i);
            expect_rejected(dir, test_key, what);
        }
    memcpy(bad, good, size);
    bad[size] = 0;
    put_file(path, bad, size + 1);
    expect_rejected(dir, test_key, "one byte too many");
    /* Length fields that claim everything: key length, binary length. */
    memcpy(bad, good, size);
    memset(bad + 8, 0xff, 4);
    put_file(path, bad, size);
    expect_rejected(dir, test_key, "key length 2^32 - 1");
    memcpy(bad, good, size);
    memset(bad + 12, 0xff, 8);
    put_file(path, bad, size);
    expect_rejected(dir, test_key, "binary length 2^64 - 1");
    free(bad);
    expect_replaced(dir, test_key, bin, sizeof(bin), "after the damage");

    /* A whole, valid entry of another key under this key's name. */
    ck_assert_int_eq(clik__cache_store(dir, "another key", bin, sizeof(bin)), CLIK_OK);
    entry_path_of(dir, "another key", other, sizeof(other));
    ck_assert_int_eq(rename(other, path), 0);
    expect_rejected(dir, test_key, "another key's entry");
    /* The previous format, hash matching: stale, never trusted. */
    put_v1_entry(path, test_key, bin, sizeof(bin));
    expect_rejected(dir, test_key, "previous format");
    memcpy(good, "CLIKBIN9", 8);
    put_file(path, good, size);
    expect_rejected(dir, test_key, "unknown format");
    free(good);
    expect_replaced(dir, test_key, bin, sizeof(bin), "after a foreign entry");

    /* Nothing to store is refused, not written. */
    ck_assert_int_eq(clik__cache_store(dir, "empty", bin, 0), CLIK_ERR_INVALID_ARG);
    h_rmtree(dir);
}
END_TEST

/* Links, a huge file, a socket, folders in an entry's place: rejected at
 * once (nothing read through a link, nothing huge read at all), and
 * replaced by a store where a rename can replace them. */
START_TEST(non_files_in_an_entrys_place_are_rejected)
{
    char *dir = h_tempdir();
    char path[1024], other[1024];
    entry_path_of(dir, test_key, path, sizeof(path));
    unsigned char bin[300];
    fake_binary(bin, sizeof(bin));
    unsigned char *got;
    size_t len;
    ck_assert_int_eq(clik__cache_store(dir, test_key, bin, sizeof(bin)), CLIK_OK);
    /* Links are not followed: to /dev/zero, to a valid entry elsewhere. */
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(symlink("/dev/zero", path), 0);
    expect_rejected(dir, test_key, "a link to /dev/zero");
    expect_replaced(dir, test_key, bin, sizeof(bin), "a link to /dev/zero");
    char elsewhere[1024];
    snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", dir);
    ck_assert_int_eq(clik__cache_store(elsewhere, test_key, bin, sizeof(bin) / 2), CLIK_OK);
    entry_path_of(elsewhere, test_key, other, sizeof(other));
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(symlink(other, path), 0);
    expect_rejected(dir, test_key, "a link to an entry");
    expect_replaced(dir, test_key, bin, sizeof(bin), "a link to an entry");
    ck_assert_int_eq(clik__cache_load(elsewhere, test_key, &got, &len), CLIK_OK);
    ck_assert_uint_eq(len, sizeof(bin) / 2); /* the link's target is untouched */
    free(got);

    /* A huge file, starting like an entry (sparse: nothing is written), in
     * the entry's place and behind a link: rejected without reading it. The
     * loads run in a child process: a reader that tried to read it all would
     * fail the test, not take the suite's memory. */
    snprintf(other, sizeof(other), "%s/huge", dir);
    int fd = open(other, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "CLIKBIN2", 8), 8);
    off_t huge = (off_t)1 << 40;
    while (ftruncate(fd, huge) != 0 && huge > ((off_t)1 << 30))
        huge /= 2; /* the largest this file system takes */
    close(fd);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(symlink(other, path), 0);
    ck_assert_int_eq(load_in_child(dir, test_key, 20), CLIK_ERR_FILE_FORMAT);
    ck_assert_int_eq(rename(other, path), 0);
    ck_assert_int_eq(load_in_child(dir, test_key, 20), CLIK_ERR_FILE_FORMAT);
    expect_replaced(dir, test_key, bin, sizeof(bin), "a huge file");

    /* A socket, an empty folder: replaced. A folder with something in it
     * cannot be: the store fails cleanly and leaves it as it was. */
    ck_assert_int_eq(unlink(path), 0);
    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_ge(sock, 0);
    struct sockaddr_un addr = {0};
    addr.sun_family = AF_UNIX;
    ck_assert_uint_lt(strlen(path), sizeof(addr.sun_path));
    memcpy(addr.sun_path, path, strlen(path));
    ck_assert_int_eq(bind(sock, (struct sockaddr *)&addr, sizeof(addr)), 0);
    expect_rejected(dir, test_key, "a socket");
    expect_replaced(dir, test_key, bin, sizeof(bin), "a socket");
    close(sock);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    expect_rejected(dir, test_key, "an empty folder");
    expect_replaced(dir, test_key, bin, sizeof(bin), "an empty folder");
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(other, sizeof(other), "%s/inside", path);
    h_write_text(path, "inside", "kept");
    expect_rejected(dir, test_key, "a folder");
    ck_assert_int_eq(clik__cache_store(dir, test_key, bin, sizeof(bin)), CLIK_ERR_IO);
    ck_assert_int_eq(count_files(dir, ".tmp."), 0);
    ck_assert(exists(other));
    expect_rejected(dir, test_key, "a folder, after a store");

    h_rmtree(dir);
}
END_TEST

/* A FIFO in an entry's place: a load that opened it for reading would wait
 * for a writer forever. It must be rejected at once, then replaced. */
START_TEST(fifo_entry_is_rejected_at_once)
{
    char *dir = h_tempdir();
    char path[1024];
    entry_path_of(dir, test_key, path, sizeof(path));
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    int st = load_in_child(dir, test_key, 20);
    ck_assert_msg(st != -1, "a load blocked on a FIFO in the entry's place");
    ck_assert_int_eq(st, CLIK_ERR_FILE_FORMAT);
    const unsigned char bin[] = "binary";
    expect_replaced(dir, test_key, bin, sizeof(bin), "a FIFO");
    h_rmtree(dir);
}
END_TEST

/* The temporaries of writers that died are removed by the next store; those
 * of live writers (locked), fresh ones and anything not named like the
 * cache's own files stay. */
START_TEST(stale_temporaries_are_removed)
{
    char *dir = h_tempdir();
    char hash[33];
    clik__hash_hex("some other key", 14, hash);
    pid_t dead = fork(); /* a pid that no process has any more */
    ck_assert_int_ge(dead, 0);
    if (dead == 0)
        _exit(0);
    ck_assert_int_eq(waitpid(dead, NULL, 0), dead);
    char names[6][128];
    snprintf(names[0], 128, "%s.bin.tmp.Ab3dEf", hash); /* the former naming */
    snprintf(names[1], 128, "%s.bin.tmp.%ld.Gh5jKl", hash, (long)dead);
    snprintf(names[2], 128, "%s.bin.tmp.%ld.Mn7pQr", hash, (long)dead);
    snprintf(names[3], 128, "%s.bin.tmp.%ld.St9vWx", hash, (long)getpid());
    snprintf(names[4], 128, "notes.bin.tmp.1.abcdef");
    snprintf(names[5], 128, "%s.bin", hash);
    const long age[6] = {7200, 120, 0, 7200, 7200, 7200};
    const int kept[6] = {0, 0, 1, 1, 1, 1};
    char path[6][1024];
    int live = -1;
    for (int i = 0; i < 6; i++) {
        snprintf(path[i], sizeof(path[i]), "%s/%s", dir, names[i]);
        h_write_text(dir, names[i], "partial entry");
        if (i == 3) { /* a live writer holds its temporary locked */
            live = open(path[i], O_RDWR);
            ck_assert_int_ge(live, 0);
            ck_assert_int_eq(flock(live, LOCK_EX | LOCK_NB), 0);
        }
        if (age[i])
            age_file(path[i], age[i]);
    }
    const unsigned char bin[] = "binary";
    ck_assert_int_eq(clik__cache_store(dir, test_key, bin, sizeof(bin)), CLIK_OK);
    for (int i = 0; i < 6; i++)
        ck_assert_msg(exists(path[i]) == kept[i], "%s (%ld s old) should be %s", names[i], age[i],
                      kept[i] ? "kept" : "removed");
    close(live);
    /* The writer is gone now, and its temporary old: the next store removes it. */
    ck_assert_int_eq(clik__cache_store(dir, test_key, bin, sizeof(bin)), CLIK_OK);
    ck_assert(!exists(path[3]));
    ck_assert_int_eq(count_files(dir, ".tmp."), 2); /* the fresh one and notes.* */
    h_rmtree(dir);
}
END_TEST

/* A writer killed in the middle of writing an entry (by the file size
 * limit, at 4 KiB into a 64 KiB entry): no entry appears, its temporary
 * carries its pid, and once past the grace a later store removes it. */
START_TEST(killed_writer_leaves_nothing_behind)
{
    char *dir = h_tempdir();
    static unsigned char bin[64 << 10];
    for (size_t i = 0; i < sizeof(bin); i++)
        bin[i] = (unsigned char)(i ^ (i >> 8));
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct rlimit none = {0, 0}, small = {4096, 4096};
        setrlimit(RLIMIT_CORE, &none);
        setrlimit(RLIMIT_FSIZE, &small);
        signal(SIGXFSZ, SIG_DFL);
        clik__cache_store(dir, test_key, bin, sizeof(bin));
        _exit(0);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ,
                  "the writer was not killed mid-write (status %#x)", status);
    unsigned char *got;
    size_t len;
    ck_assert_int_eq(clik__cache_load(dir, test_key, &got, &len), CLIK_ERR_IO);
    char name[64], tmp[1024];
    snprintf(name, sizeof(name), ".bin.tmp.%ld.", (long)pid);
    ck_assert_int_eq(count_files(dir, ".tmp."), 1);
    ck_assert_int_eq(count_files(dir, name), 1);

    /* Within the grace it stays (a writer between two system calls looks
     * the same); past it, the next store removes it. */
    const unsigned char small_bin[] = "binary";
    ck_assert_int_eq(clik__cache_store(dir, "another key", small_bin, sizeof(small_bin)), CLIK_OK);
    ck_assert_int_eq(count_files(dir, name), 1);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, name)) {
            snprintf(tmp, sizeof(tmp), "%s/%s", dir, e->d_name);
            age_file(tmp, 120);
        }
    closedir(d);
    ck_assert_int_eq(clik__cache_store(dir, "another key", small_bin, sizeof(small_bin)), CLIK_OK);
    ck_assert_int_eq(count_files(dir, ".tmp."), 0);
    expect_replaced(dir, test_key, bin, sizeof(bin), "after a killed writer");
    h_rmtree(dir);
}
END_TEST

/* A worker run with args and the environment settings set (output to out)
 * fills the cache folder cache: its entries, at least one, go to entries
 * (16 at most); returns their count. */
static int fill_cache(const char *const *args, const char *const *set, const char *out,
                      const char *cache, char entries[16][1024])
{
    char line[512];
    int rc = wait_worker(spawn_worker(args, set, NULL, out), out, line, sizeof(line));
    ck_assert_msg(rc == 0, "worker: %s", line);
    int n = list_entries(cache, entries, 16);
    ck_assert_int_gt(n, 0);
    return n;
}

/* Each entry of a real run replaced by a FIFO: the next run is not held up,
 * rejects them, rebuilds and writes regular files in their place. */
START_TEST(fifo_entries_do_not_block_a_run)
{
    char *dir = h_tempdir();
    char cache[600], out[700], line[512], expect[64];
    snprintf(cache, sizeof(cache), "%s/cache", dir);
    snprintf(out, sizeof(out), "%s/out.txt", dir);
    const char *args[] = {"--device", h_device, "--cache", cache, "--strict", NULL};
    static char entries[16][1024];
    const int n = fill_cache(args, NULL, out, cache, entries);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(unlink(entries[i]), 0);
        ck_assert_int_eq(mkfifo(entries[i], 0600), 0);
    }
    int rc = wait_worker_within(spawn_worker(args, NULL, NULL, out), out, line, sizeof(line), 300);
    ck_assert_msg(rc == 0, "worker with FIFO entries: %s", line);
    snprintf(expect, sizeof(expect), "rejected=%d written=%d", n, n);
    ck_assert_msg(strstr(line, expect), "%s", line);
    for (int i = 0; i < n; i++) {
        struct stat st;
        ck_assert_int_eq(lstat(entries[i], &st), 0);
        ck_assert(S_ISREG(st.st_mode));
    }
    h_rmtree(dir);
}
END_TEST

/* An entry of the previous format whose hash matches its binary, the binary
 * cut to nine tenths: in that format it was a valid entry, and the driver
 * (PoCL) died on the binary in every run. Now it is rejected before the
 * driver sees it, rebuilt and replaced. The run has a PoCL cache of its
 * own: a driver that was handed the cut binary may keep broken files in
 * its cache. */
START_TEST(cut_binary_with_matching_hash_never_reaches_the_driver)
{
    char *dir = h_tempdir();
    char cache[600], pocl[640], out[700], line[512], expect[64];
    snprintf(cache, sizeof(cache), "%s/cache", dir);
    snprintf(pocl, sizeof(pocl), "POCL_CACHE_DIR=%s/pocl", dir);
    snprintf(out, sizeof(out), "%s/out.txt", dir);
    const char *set[] = {pocl, NULL};
    const char *args[] = {"--device", h_device, "--cache", cache, "--strict", "--no-core", NULL};
    static char entries[16][1024];
    const int n = fill_cache(args, set, out, cache, entries);
    for (int i = 0; i < n; i++) {
        static char key[4096];
        entry_key(entries[i], key, sizeof(key));
        unsigned char *bin;
        size_t len;
        ck_assert_int_eq(clik__cache_load(cache, key, &bin, &len), CLIK_OK);
        ck_assert_uint_gt(len, 10);
        put_v1_entry(entries[i], key, bin, len / 10 * 9);
        free(bin);
    }
    int rc = wait_worker_within(spawn_worker(args, set, NULL, out), out, line, sizeof(line), 300);
    ck_assert_msg(rc == 0, "worker with cut binaries: exit %d: %s", rc, line);
    snprintf(expect, sizeof(expect), "built=%d disk=0 rejected=%d written=%d", n, n, n);
    ck_assert_msg(strstr(line, expect), "%s", line);
    rc = wait_worker(spawn_worker(args, set, NULL, out), out, line, sizeof(line));
    snprintf(expect, sizeof(expect), "built=0 disk=%d rejected=0", n);
    ck_assert_msg(rc == 0 && strstr(line, expect), "%s", line);
    h_rmtree(dir);
}
END_TEST

/* ---- discovery and the fallback policy -------------------------------------- */

START_TEST(empty_icd_folder_falls_back)
{
    char *dir = h_tempdir();
    char vendors[600], out[700], line[512];
    snprintf(vendors, sizeof(vendors), "OCL_ICD_VENDORS=%s", dir);
    snprintf(out, sizeof(out), "%s/out.txt", dir);
    const char *set[] = {vendors, "CLIK_DEVICE=auto", NULL};
    /* OCL_ICD_FILENAMES would name drivers even with an empty folder. */
    const char *unset[] = {"CLIK_OPENCL_LIBRARY", "OCL_ICD_FILENAMES", NULL};
    int rc = wait_worker(spawn_worker(NULL, set, unset, out), out, line, sizeof(line));
    ck_assert_msg(rc == 0, "worker: %s", line);
    ck_assert_msg(strstr(line, "backend=opencl") == NULL, "%s", line);
    ck_assert_msg(strstr(line, "backend=scalar") || strstr(line, "backend=neon"), "%s", line);

    /* A named device cannot be found: a clear error, not a silent fallback. */
    const char *named[] = {"--device", "gpu", NULL};
    rc = wait_worker(spawn_worker(named, set, unset, out), out, line, sizeof(line));
    ck_assert_int_ne(rc, 0);
    ck_assert_msg(strstr(line, "CLIK_ERR_NO_DEVICE"), "%s", line);

    /* A forced library that does not exist: the search goes on, same result. */
    const char *set2[] = {vendors, "CLIK_OPENCL_LIBRARY=/nonexistent/libOpenCL.so", NULL};
    rc = wait_worker(spawn_worker(NULL, set2, unset + 1, out), out, line, sizeof(line));
    ck_assert_msg(rc == 0 && strstr(line, "backend=opencl") == NULL, "%s", line);
    h_rmtree(dir);
}
END_TEST

static int warnings_seen;
static void count_warnings(void *user, clik_log_level level, const char *message)
{
    (void)user;
    (void)message;
    if (level == CLIK_LOG_WARNING)
        warnings_seen++;
}

/* A kernel folder whose hist.cl builds but lacks the kernels. */
START_TEST(strict_turns_fallback_into_error)
{
    char *kdir = h_tempdir();
    h_write_text(kdir, "hist.cl", "__kernel void unrelated(__global int *p) { p[0] = 1; }\n");

    clik_context_options opt = h_device_options(NULL, 0);
    opt.kernel_dir = kdir;
    opt.cache = 0;
    opt.log = count_warnings;
    warnings_seen = 0;
    clik_context *lax = h_context_create(&opt);
    sup_case_result r = equalize_once(lax);
    ck_assert_msg(sup_case_passed(&r), "%s", r.message);
    ck_assert_int_ne(r.backend, CLIK_BACKEND_OPENCL);
    ck_assert_uint_eq(stats_of(lax).fallbacks, 1);
    ck_assert_int_ge(warnings_seen, 1);
    clik_context_destroy(lax);

    clik_context *strict = open_ctx(NULL, 0, kdir, 1);
    r = equalize_once(strict);
    ck_assert_int_eq(r.status, CLIK_ERR_FALLBACK);
    /* The message names the kernel that is missing and the setting. */
    ck_assert_msg(strstr(r.message, "CL_INVALID_KERNEL_NAME") && strstr(r.message, "hist_") &&
                      strstr(r.message, "STRICT"),
                  "%s", r.message);
    ck_assert_uint_eq(stats_of(strict).fallbacks, 0);
    clik_context_destroy(strict);
    h_rmtree(kdir);
}
END_TEST

START_TEST(build_failure_reports_its_log)
{
    char *kdir = h_tempdir();
    h_write_text(kdir, "common.h", "#define CLIK_BROKEN clik_undefined_symbol_xyz\n");
    h_write_text(kdir, "hist.cl",
                 "#include \"common.h\"\n"
                 "__kernel void hist_partial(__global uint *p) { p[0] = CLIK_BROKEN; }\n");
    clik_context *strict = open_ctx(NULL, 0, kdir, 1);
    sup_case_result r = equalize_once(strict);
    ck_assert_int_eq(r.status, CLIK_ERR_BUILD);
    const char *m = clik_context_message(strict);
    ck_assert_msg(strstr(m, "build log") && strstr(m, "clik_undefined_symbol_xyz"), "%s", m);
    /* The failure is remembered: no second compile. */
    unsigned built = stats_of(strict).programs_built;
    r = equalize_once(strict);
    ck_assert_int_eq(r.status, CLIK_ERR_BUILD);
    ck_assert_uint_eq(stats_of(strict).programs_built, built);
    ck_assert_ptr_nonnull(strstr(clik_context_message(strict), "clik_undefined_symbol_xyz"));
    clik_context_destroy(strict);

    /* Without strict mode the operation still gives the right answer. */
    clik_context *lax = open_ctx(NULL, 0, kdir, 0);
    r = equalize_once(lax);
    ck_assert_msg(sup_case_passed(&r), "%s", r.message);
    clik_context_destroy(lax);

    /* An include that is missing is reported by name. */
    h_write_text(kdir, "hist.cl", "#include \"nowhere.h\"\n");
    strict = open_ctx(NULL, 0, kdir, 1);
    r = equalize_once(strict);
    ck_assert_int_ne(r.status, CLIK_OK);
    ck_assert_msg(strstr(clik_context_message(strict), "nowhere.h"), "%s",
                  clik_context_message(strict));
    clik_context_destroy(strict);
    h_rmtree(kdir);
}
END_TEST

/* ---- devices and threads ------------------------------------------------------- */

START_TEST(device_description)
{
    const clik_device_info *d = clik_context_device(h_ctx);
    ck_assert_ptr_nonnull(d);
    ck_assert_str_ne(d->name, "");
    ck_assert_str_ne(d->platform_name, "");
    ck_assert_uint_ge(d->compute_units, 1);
    ck_assert_uint_ge(d->max_work_group_size, 1);
    ck_assert_uint_gt(d->local_mem_size, 0);
    ck_assert_uint_gt(d->global_mem_size, 0);
    ck_assert_int_ge(d->opencl_c_major, 1);
    clik_device_info *list;
    int count, index;
    ck_assert_int_eq(clik_devices_list(&list, &count), CLIK_OK);
    ck_assert_int_ge(count, 1);
    ck_assert_int_eq(clik_device_select(list, count, h_device, &index), CLIK_OK);
    ck_assert_str_eq(list[index].name, d->name);
    ck_assert_int_eq(clik_device_select(list, count, "auto", &index), CLIK_OK);
    ck_assert_int_ge(index, 0);
    clik_devices_free(list);
}
END_TEST

typedef struct thread_job {
    int seed;
    int failures;
} thread_job;

static void *thread_body(void *p)
{
    thread_job *job = p;
    clik_context_options opt = h_device_options(NULL, 1);
    clik_context *ctx, *oracle;
    if (clik_context_create(&ctx, &opt) != CLIK_OK) {
        job->failures++;
        return NULL;
    }
    opt.device = "none";
    opt.cpu_path = CLIK_CPU_SCALAR;
    if (clik_context_create(&oracle, &opt) != CLIK_OK) {
        clik_context_destroy(ctx);
        job->failures++;
        return NULL;
    }
    static const char *const ops[] = {"hist_equalize", "hist_lut", "hist_compute"};
    for (int i = 0; i < 6; i++) {
        sup_case_result r;
        sup_case_check(sup_case_find(ops[i % 3]), ctx, oracle, 311 + job->seed, 97, 4,
                       (sup_pattern)(i % SUP_PATTERN_COUNT), (uint64_t)(job->seed * 10 + i), &r);
        job->failures += !sup_case_passed(&r);
    }
    clik_context_destroy(oracle);
    clik_context_destroy(ctx);
    return NULL;
}

START_TEST(contexts_in_threads)
{
    pthread_t threads[3];
    thread_job jobs[3] = {{1, 0}, {2, 0}, {3, 0}};
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, thread_body, &jobs[i]), 0);
    for (int i = 0; i < 3; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_int_eq(jobs[i].failures, 0);
    }
}
END_TEST

/* ---- ahead-of-time compilation --------------------------------------------- */

static void count_compile(void *user, const char *program, const char *device)
{
    ck_assert(program && *program && device);
    ++*(int *)user;
}

/* A context on the suite's device with a disk cache in dir and a counter of
 * the compile notices. */
static clik_context *open_counted(const char *dir, int *compiles)
{
    clik_context_options opt = h_device_options(dir, 1);
    opt.compile = count_compile;
    opt.compile_user = compiles;
    return h_context_create(&opt);
}

/* A fresh cache folder (*dir), a counted context on it and prepare options
 * for ops. */
static clik_context *prepare_fixture(char **dir, int *compiles, clik_prepare_options *o,
                                     const char *ops)
{
    *dir = h_tempdir();
    *compiles = 0;
    clik_prepare_options_init(o);
    o->ops = ops;
    return open_counted(*dir, compiles);
}

/* Runs conformance case c at w x h with ch channels and checks it against
 * the oracle (a device that cannot run it by design passes it over). */
static void run_case(clik_context *ctx, const sup_case *c, int w, int h, int ch)
{
    sup_case_result r;
    sup_case_check(c, ctx, h_oracle, w, h, ch, SUP_PATTERN_NOISE, 5, &r);
    ck_assert_msg(sup_case_passed(&r) || sup_case_unsupported(&r, NULL), "%s: %s %s", c->op,
                  r.message, r.cmp.detail);
}

/* The calls after a prepare of their operations and formats build nothing,
 * at sizes other than the prepare's; the notice came before each build; a
 * second context finds everything in the cache. */
START_TEST(prepare_builds_what_the_calls_use)
{
    char *dir;
    int compiles;
    clik_prepare_options o;
    clik_context *a =
        prepare_fixture(&dir, &compiles, &o, "hist_equalize,resize,hist_equalize_luma,clahe");
    o.channels = (1u << 1) | (1u << 4);
    ck_assert_msg(clik_context_prepare(a, &o) == CLIK_OK, "%s", clik_context_message(a));
    clik_context_stats s = stats_of(a);
    ck_assert_uint_ge(s.programs_built, 2);
    ck_assert_int_eq(compiles, (int)s.programs_built);
    static const char *const ids[] = {"hist_equalize",          "resize-nearest-x2",
                                      "resize-bilinear-x2",     "resize-bicubic-down",
                                      "resize-bicubic-x3",      "resize-bicubic-aa-d3",
                                      "hist_equalize_luma-bgr", "clahe"};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        const sup_case *c = sup_case_find(ids[i]);
        ck_assert_msg(c != NULL, "%s", ids[i]);
        for (int ch = 1; ch <= 4; ch += 3)
            if (c->channels & (1u << ch))
                run_case(a, c, 301, 167, ch);
    }
    ck_assert_uint_eq(stats_of(a).programs_built, s.programs_built);
    clik_context_destroy(a);

    compiles = 0;
    clik_context *b = open_counted(dir, &compiles);
    ck_assert_int_eq(clik_context_prepare(b, &o), CLIK_OK);
    ck_assert_uint_eq(stats_of(b).programs_built, 0);
    ck_assert_uint_eq(stats_of(b).programs_from_disk, s.programs_built);
    ck_assert_int_eq(compiles, 0);
    clik_context_destroy(b);
    h_rmtree(dir);
}
END_TEST

/* In the background: a call that needs a program the thread is building
 * waits for it and loads it from the cache instead of compiling it again;
 * a context destroyed while its prepare runs waits for it. */
START_TEST(background_prepare_serves_the_first_call)
{
    char *dir;
    int compiles;
    clik_prepare_options o;
    clik_context *a = prepare_fixture(&dir, &compiles, &o, "hist_equalize");
    o.background = 1;
    ck_assert_int_eq(clik_context_prepare(a, &o), CLIK_OK);
    sup_case_result r = equalize_once(a);
    ck_assert_msg(sup_case_passed(&r), "%s %s", r.message, r.cmp.detail);
    ck_assert_int_eq(clik_context_prepare_wait(a), CLIK_OK);
    ck_assert_int_eq(clik_context_prepare_wait(a), CLIK_OK); /* nothing left to wait for */
    clik_context_stats s = stats_of(a);
    ck_assert_uint_eq(s.programs_built, 0);
    ck_assert_uint_ge(s.programs_from_disk, 1);
    ck_assert_int_ge(compiles, 1); /* the notices of the thread's builds */
    clik_context_destroy(a);

    char *dir2 = h_tempdir();
    clik_context *b = open_counted(dir2, &compiles);
    o.ops = "pyr_down";
    ck_assert_int_eq(clik_context_prepare(b, &o), CLIK_OK);
    clik_context_destroy(b);
    ck_assert_int_ge(count_files(dir2, ".bin"), 1);
    h_rmtree(dir2);
    h_rmtree(dir);
}
END_TEST

START_TEST(prepare_refuses_what_it_cannot_do)
{
    char *dir;
    int compiles;
    clik_prepare_options o;
    clik_context *a = prepare_fixture(&dir, &compiles, &o, "resize,no_such_op");
    ck_assert_int_eq(clik_context_prepare(a, &o), CLIK_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(clik_context_message(a), "'no_such_op'"));
    o.ops = "resize,";
    ck_assert_int_eq(clik_context_prepare(a, &o), CLIK_ERR_INVALID_ARG);
    o.ops = NULL;
    o.types = 1u << CLIK_U16;
    ck_assert_int_eq(clik_context_prepare(a, &o), CLIK_ERR_INVALID_ARG);
    o.types = 0;
    o.channels = 1u << 5;
    ck_assert_int_eq(clik_context_prepare(a, &o), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_context_prepare(NULL, NULL), CLIK_ERR_NULL);
    ck_assert_int_eq(compiles, 0);
    ck_assert_uint_eq(stats_of(a).programs_built, 0);
    clik_context_destroy(a);
    /* Every name that it lists it takes; without a device there is nothing to do. */
    clik_context_options co;
    clik_context_options_init(&co);
    co.device = "none";
    clik_context *none = NULL;
    ck_assert_int_eq(clik_context_create(&none, &co), CLIK_OK);
    o.channels = 0;
    int n = 0;
    for (const char *name; (name = clik_prepare_op_name(n)) != NULL; n++) {
        o.ops = name;
        ck_assert_msg(clik_context_prepare(none, &o) == CLIK_OK, "%s", name);
    }
    ck_assert_int_ge(n, 20);
    ck_assert_ptr_null(clik_prepare_op_name(-1));
    clik_context_destroy(none);
    h_rmtree(dir);
}
END_TEST

/* Full runs: every operation and format, then every conformance case of
 * the common settings builds nothing more. */
START_TEST(prepare_all_covers_the_cases)
{
    if (!h_full)
        return;
    char *dir;
    int compiles;
    clik_prepare_options o;
    clik_context *a = prepare_fixture(&dir, &compiles, &o, NULL);
    o.types = (1u << CLIK_U8) | (1u << CLIK_F32);
    ck_assert_msg(clik_context_prepare(a, &o) == CLIK_OK, "%s", clik_context_message(a));
    const unsigned built = stats_of(a).programs_built;
    /* Settings beyond the common ones compile at their first use (bicubic-aa:
     * the taps follow the scale, prepared at 2, 1/2 and 1/3 only; the
     * network cases' test networks: prepare builds the released LAPAR-A's,
     * run below). */
    /* A frame's third at these sizes (98 x 62 to 32 x 20) is no exact
     * third: a bicubic-aa of its own taps, as -aa-frac. */
    static const char *const beyond[] = {"f16",
                                         "tile4",
                                         "blur5",
                                         "-c-",
                                         "lapar_classify",
                                         "hist_lut-shared",
                                         "-any",
                                         "compact",
                                         "refit",
                                         "selected",
                                         "lapar_net_run",
                                         "-aa-frac",
                                         "-aa-f32",
                                         "yuv_resize-nv21-bicubic-aa-d3"};
    for (int i = 0; i < sup_case_count(); i++) {
        const sup_case *c = sup_case_at(i);
        int skip = 0;
        for (size_t k = 0; k < sizeof(beyond) / sizeof(beyond[0]); k++)
            skip |= strstr(c->op, beyond[k]) != NULL;
        for (int ch = 1; ch <= 4 && !skip; ch += 3) {
            if (!(c->channels & (1u << ch)))
                continue;
            run_case(a, c, 97, 61, ch);
            ck_assert_msg(stats_of(a).programs_built == built,
                          "%s with %d channels built a program", c->op, ch);
        }
    }
    for (int scale = 2; scale <= 4 && clik_lapar_net_builtin_available("lapar-a", scale);
         scale += 2) {
        clik_lapar_net *net = NULL;
        ck_assert_int_eq(clik_lapar_net_builtin(a, "lapar-a", scale, &net), CLIK_OK);
        clik_image src, dst;
        ck_assert_int_eq(clik_image_alloc(&src, 97, 61, 4, CLIK_U8), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&dst, 97 * scale, 61 * scale, 4, CLIK_U8), CLIK_OK);
        memset(src.data, 90, src.stride * 61);
        ck_assert_int_eq(clik_lapar_net_run(a, net, &src, &dst, NULL), CLIK_OK);
        clik_image_free(&src);
        clik_image_free(&dst);
        clik_lapar_net_free(net);
        ck_assert_msg(stats_of(a).programs_built == built, "LAPAR-A x%d built a program", scale);
    }
    clik_context_destroy(a);
    h_rmtree(dir);
}
END_TEST

int main(void)
{
    const h_test tests[] = {H_TEST(second_context_loads_from_disk),
                            H_TEST(corrupt_entries_are_rebuilt),
                            H_TEST(entry_that_crashed_a_loader_is_rebuilt),
                            H_TEST(cache_off_writes_nothing),
                            H_TEST(processes_share_a_folder),
                            H_TEST(damaged_entries_are_rejected),
                            H_TEST(non_files_in_an_entrys_place_are_rejected),
                            H_TEST(fifo_entry_is_rejected_at_once),
                            H_TEST(stale_temporaries_are_removed),
                            H_TEST(killed_writer_leaves_nothing_behind),
                            H_TEST(fifo_entries_do_not_block_a_run),
                            H_TEST(cut_binary_with_matching_hash_never_reaches_the_driver),
                            H_TEST(empty_icd_folder_falls_back),
                            H_TEST(strict_turns_fallback_into_error),
                            H_TEST(build_failure_reports_its_log),
                            H_TEST(device_description),
                            H_TEST(contexts_in_threads),
                            H_TEST(prepare_builds_what_the_calls_use),
                            H_TEST(background_prepare_serves_the_first_call),
                            H_TEST(prepare_refuses_what_it_cannot_do),
                            H_TEST(prepare_all_covers_the_cases)};
    return h_suite_main(&(h_suite){"cache", NULL, 0, tests, H_COUNT(tests), NULL, NULL});
}
