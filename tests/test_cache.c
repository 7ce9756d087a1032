/*
 * The host library on each OpenCL device: the program cache in memory and
 * on disk, several processes sharing a cache folder, the fallback policy,
 * build logs, discovery without a platform, contexts in threads.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cases.h"
#include "harness.h"

extern char **environ;

/* ---- helpers ------------------------------------------------------------ */

static clik_context *open_ctx(const char *cache_dir, int cache, const char *kernel_dir, int strict)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = h_device;
    opt.cache_dir = cache_dir;
    opt.cache = cache;
    opt.kernel_dir = kernel_dir;
    opt.strict = strict;
    clik_context *ctx = NULL;
    clik_status st = clik_context_create(&ctx, &opt);
    ck_assert_msg(st == CLIK_OK, "context on %s: %s", h_device, clik_context_message(NULL));
    return ctx;
}

/* Runs equalize through ctx and checks it against the oracle. */
static clik_case_result equalize_once(clik_context *ctx)
{
    clik_case_result r;
    clik_case_check(clik_case_find("equalize"), ctx, h_oracle, 99, 37, 1, CLIK_PATTERN_NOISE, 3,
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

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
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

static int wait_worker(pid_t pid, const char *out, char *line, size_t cap)
{
    int status = 0;
    waitpid(pid, &status, 0);
    line[0] = '\0';
    FILE *f = fopen(out, "r");
    if (f) {
        size_t got = fread(line, 1, cap - 1, f);
        line[got] = '\0';
        fclose(f);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* ---- the cache ------------------------------------------------------------ */

START_TEST(second_context_loads_from_disk)
{
    char *dir = h_tempdir();
    clik_context *a = open_ctx(dir, 1, NULL, 1);
    clik_case_result r = equalize_once(a);
    ck_assert_msg(clik_case_passed(&r), "%s %s", r.message, r.cmp.detail);
    clik_context_stats s = stats_of(a);
    ck_assert_uint_ge(s.programs_built, 1);
    ck_assert_uint_eq(s.programs_from_disk, 0);
    ck_assert_uint_eq(s.cache_written, s.programs_built);
    ck_assert_int_eq(count_files(dir, ".bin"), (int)s.programs_built);
    /* Again in the same context: served from memory. */
    r = equalize_once(a);
    ck_assert(clik_case_passed(&r));
    clik_context_stats s2 = stats_of(a);
    ck_assert_uint_eq(s2.programs_built, s.programs_built);
    ck_assert_uint_gt(s2.programs_reused, s.programs_reused);
    clik_context_destroy(a);

    clik_context *b = open_ctx(dir, 1, NULL, 1);
    r = equalize_once(b);
    ck_assert_msg(clik_case_passed(&r), "%s %s", r.message, r.cmp.detail);
    s2 = stats_of(b);
    ck_assert_uint_eq(s2.programs_built, 0);
    ck_assert_uint_eq(s2.programs_from_disk, s.programs_built);
    ck_assert_uint_eq(s2.cache_rejected, 0);
    clik_context_destroy(b);
    h_rmtree(dir);
    free(dir);
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
    clik_case_result r = equalize_once(a);
    ck_assert(clik_case_passed(&r));
    unsigned programs = stats_of(a).programs_built;
    clik_context_destroy(a);

    damage_entries(dir);
    clik_context *b = open_ctx(dir, 1, NULL, 1);
    r = equalize_once(b);
    ck_assert_msg(clik_case_passed(&r), "%s %s", r.message, r.cmp.detail);
    clik_context_stats s = stats_of(b);
    ck_assert_uint_eq(s.cache_rejected, programs);
    ck_assert_uint_eq(s.programs_built, programs);
    ck_assert_uint_eq(s.cache_written, programs);
    clik_context_destroy(b);

    clik_context *c = open_ctx(dir, 1, NULL, 1);
    r = equalize_once(c);
    ck_assert(clik_case_passed(&r));
    s = stats_of(c);
    ck_assert_uint_eq(s.programs_from_disk, programs);
    ck_assert_uint_eq(s.cache_rejected, 0);
    ck_assert_int_eq(count_files(dir, ".tmp."), 0);
    clik_context_destroy(c);
    h_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(cache_off_writes_nothing)
{
    char *dir = h_tempdir();
    clik_context *a = open_ctx(dir, 0, NULL, 1);
    clik_case_result r = equalize_once(a);
    ck_assert(clik_case_passed(&r));
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
    free(dir);
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
    clik_case_result r = equalize_once(c);
    ck_assert(clik_case_passed(&r));
    clik_context_stats s = stats_of(c);
    ck_assert_uint_eq(s.programs_built, 0);
    ck_assert_uint_eq(s.cache_rejected, 0);
    clik_context_destroy(c);
    h_rmtree(dir);
    free(dir);
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
    free(dir);
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
    write_text(kdir, "hist.cl", "__kernel void unrelated(__global int *p) { p[0] = 1; }\n");

    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = h_device;
    opt.kernel_dir = kdir;
    opt.cache = 0;
    opt.strict = 0;
    opt.log = count_warnings;
    warnings_seen = 0;
    clik_context *lax;
    ck_assert_int_eq(clik_context_create(&lax, &opt), CLIK_OK);
    clik_case_result r = equalize_once(lax);
    ck_assert_msg(clik_case_passed(&r), "%s", r.message);
    ck_assert_int_ne(r.backend, CLIK_BACKEND_OPENCL);
    ck_assert_uint_eq(stats_of(lax).fallbacks, 1);
    ck_assert_int_ge(warnings_seen, 1);
    clik_context_destroy(lax);

    clik_context *strict = open_ctx(NULL, 0, kdir, 1);
    r = equalize_once(strict);
    ck_assert_int_eq(r.status, CLIK_ERR_FALLBACK);
    ck_assert_msg(strstr(r.message, "hist_partial") && strstr(r.message, "STRICT"), "%s",
                  r.message);
    ck_assert_uint_eq(stats_of(strict).fallbacks, 0);
    clik_context_destroy(strict);
    h_rmtree(kdir);
    free(kdir);
}
END_TEST

START_TEST(build_failure_reports_its_log)
{
    char *kdir = h_tempdir();
    write_text(kdir, "common.h", "#define CLIK_BROKEN clik_undefined_symbol_xyz\n");
    write_text(kdir, "hist.cl",
               "#include \"common.h\"\n"
               "__kernel void hist_partial(__global uint *p) { p[0] = CLIK_BROKEN; }\n");
    clik_context *strict = open_ctx(NULL, 0, kdir, 1);
    clik_case_result r = equalize_once(strict);
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
    ck_assert_msg(clik_case_passed(&r), "%s", r.message);
    clik_context_destroy(lax);

    /* An include that is missing is reported by name. */
    write_text(kdir, "hist.cl", "#include \"nowhere.h\"\n");
    strict = open_ctx(NULL, 0, kdir, 1);
    r = equalize_once(strict);
    ck_assert_int_ne(r.status, CLIK_OK);
    ck_assert_msg(strstr(clik_context_message(strict), "nowhere.h"), "%s",
                  clik_context_message(strict));
    clik_context_destroy(strict);
    h_rmtree(kdir);
    free(kdir);
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
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = h_device;
    opt.strict = 1;
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
    static const char *const ops[] = {"equalize", "lut", "hist"};
    for (int i = 0; i < 6; i++) {
        clik_case_result r;
        clik_case_check(clik_case_find(ops[i % 3]), ctx, oracle, 311 + job->seed, 97, 4,
                        (clik_pattern)(i % CLIK_PATTERN_COUNT), (uint64_t)(job->seed * 10 + i), &r);
        job->failures += !clik_case_passed(&r);
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

static Suite *make_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("cache");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, second_context_loads_from_disk);
    tcase_add_test(tc, corrupt_entries_are_rebuilt);
    tcase_add_test(tc, cache_off_writes_nothing);
    tcase_add_test(tc, processes_share_a_folder);
    tcase_add_test(tc, empty_icd_folder_falls_back);
    tcase_add_test(tc, strict_turns_fallback_into_error);
    tcase_add_test(tc, build_failure_reports_its_log);
    tcase_add_test(tc, device_description);
    tcase_add_test(tc, contexts_in_threads);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_main(make_suite, NULL);
}
