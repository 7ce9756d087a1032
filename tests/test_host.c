/*
 * The host library without a device: selection strings, settings, images,
 * statuses, and (white-box) the cache file format and include resolution.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _XOPEN_SOURCE 700
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"

/* ---- device selection on synthetic lists ------------------------------------- */

static clik_device_info fake(int p, int d, clik_device_type type, const char *platform,
                             const char *version, const char *name)
{
    clik_device_info i;
    memset(&i, 0, sizeof(i));
    i.platform_index = p;
    i.device_index = d;
    i.type = type;
    snprintf(i.platform_name, sizeof(i.platform_name), "%s", platform);
    snprintf(i.platform_version, sizeof(i.platform_version), "%s", version);
    snprintf(i.name, sizeof(i.name), "%s", name);
    return i;
}

static int pick(const clik_device_info *list, int n, const char *spec, clik_status want)
{
    int index = 1234;
    clik_status st = clik_device_select(list, n, spec, &index);
    ck_assert_msg(st == want, "'%s': %s, expected %s", spec, clik_status_str(st),
                  clik_status_str(want));
    return index;
}

START_TEST(selection_strings)
{
    clik_device_info list[3] = {
        fake(0, 0, CLIK_DEVICE_CPU, "Portable Computing Language", "OpenCL 3.0 PoCL 5.0",
             "cpu-haswell"),
        fake(1, 0, CLIK_DEVICE_GPU, "NVIDIA CUDA", "OpenCL 3.0 CUDA", "NVIDIA H100"),
        fake(1, 1, CLIK_DEVICE_GPU, "NVIDIA CUDA", "OpenCL 3.0 CUDA", "NVIDIA A100"),
    };
    ck_assert_int_eq(pick(list, 3, "auto", CLIK_OK), 1);  /* first GPU */
    ck_assert_int_eq(pick(list, 1, "auto", CLIK_OK), 0);  /* else first CPU */
    ck_assert_int_eq(pick(list, 0, "auto", CLIK_OK), -1); /* else the C fallback */
    ck_assert_int_eq(pick(list, 3, "AUTO", CLIK_OK), 1);
    ck_assert_int_eq(pick(list, 3, "gpu", CLIK_OK), 1);
    ck_assert_int_eq(pick(list, 3, "cpu", CLIK_OK), 0);
    ck_assert_int_eq(pick(list, 3, " none ", CLIK_OK), -1);
    ck_assert_int_eq(pick(list, 3, "1:1", CLIK_OK), 2);
    ck_assert_int_eq(pick(list, 3, "0:0", CLIK_OK), 0);
    ck_assert_int_eq(pick(list, 3, "pocl", CLIK_OK), 0); /* in the platform version */
    ck_assert_int_eq(pick(list, 3, "nvidia", CLIK_OK), 1);
    ck_assert_int_eq(pick(list, 3, "a100", CLIK_OK), 2);
    pick(list, 1, "gpu", CLIK_ERR_NO_DEVICE);
    pick(list, 3, "mali", CLIK_ERR_NO_DEVICE);
    pick(list, 3, "2:0", CLIK_ERR_NO_DEVICE);
    pick(list, 3, "1:7", CLIK_ERR_NO_DEVICE);
    static const char *const malformed[] = {"",    "   ",  "1:",    ":1",   "a:1",
                                            "1:b", "-1:0", "1:2:3", "1 :2", "99999999999:0"};
    for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++)
        pick(list, 3, malformed[i], CLIK_ERR_DEVICE_SPEC);
    int index;
    ck_assert_int_eq(clik_device_select(list, 3, NULL, &index), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_device_select(list, 3, "auto", NULL), CLIK_ERR_NULL);
}
END_TEST

/* ---- settings ------------------------------------------------------------------- */

static clik_status create_with_env(const char *name, const char *value, clik_context **ctx)
{
    setenv(name, value, 1);
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    clik_status st = clik_context_create(ctx, &opt);
    unsetenv(name);
    return st;
}

START_TEST(settings_are_checked)
{
    clik_context *ctx = (clik_context *)1;
    ck_assert_int_eq(create_with_env("CLIK_STRICT", "maybe", &ctx), CLIK_ERR_INVALID_ARG);
    ck_assert_ptr_null(ctx);
    ck_assert_ptr_nonnull(strstr(clik_context_message(NULL), "CLIK_STRICT=maybe"));
    ck_assert_int_eq(create_with_env("CLIK_CPU_PATH", "avx9", &ctx), CLIK_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(clik_context_message(NULL), "CLIK_CPU_PATH"));
    ck_assert_int_eq(create_with_env("CLIK_CACHE", "sometimes", &ctx), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(create_with_env("CLIK_LOCAL_MEM", "2", &ctx), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(create_with_env("CLIK_TUNE", "hist_mode", &ctx), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(create_with_env("CLIK_DEVICE", "1:x", &ctx), CLIK_OK); /* option wins */
    clik_context_destroy(ctx);

    ck_assert_int_eq(create_with_env("CLIK_STRICT", "on", &ctx), CLIK_OK);
    clik_context_destroy(ctx);
    ck_assert_int_eq(create_with_env("CLIK_CPU_PATH", "scalar", &ctx), CLIK_OK);
    ck_assert_int_eq(clik_context_cpu_backend(ctx), CLIK_BACKEND_SCALAR);
    clik_context_destroy(ctx);
    clik_status neon = create_with_env("CLIK_CPU_PATH", "neon", &ctx);
    if (clik_cpu_path_available(CLIK_CPU_NEON)) {
        ck_assert_int_eq(neon, CLIK_OK);
        ck_assert_int_eq(clik_context_cpu_backend(ctx), CLIK_BACKEND_NEON);
        clik_context_destroy(ctx);
    } else {
        ck_assert_int_eq(neon, CLIK_ERR_NO_NEON);
    }

    /* The device variable applies when the option is not set. */
    setenv("CLIK_DEVICE", "1:x", 1);
    ck_assert_int_eq(clik_context_create(&ctx, NULL), CLIK_ERR_DEVICE_SPEC);
    ck_assert_ptr_nonnull(strstr(clik_context_message(NULL), "1:x"));
    setenv("CLIK_DEVICE", "none", 1);
    ck_assert_int_eq(clik_context_create(&ctx, NULL), CLIK_OK);
    ck_assert_ptr_null(clik_context_device(ctx));
    clik_context_destroy(ctx);
    unsetenv("CLIK_DEVICE");

    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "no-such-device-anywhere";
    ck_assert_int_eq(clik_context_create(&ctx, &opt), CLIK_ERR_NO_DEVICE);
    ck_assert_ptr_nonnull(strstr(clik_context_message(NULL), "no-such-device-anywhere"));
    opt.device = "none";
    opt.cpu_path = (clik_cpu_path)9;
    ck_assert_int_eq(clik_context_create(&ctx, &opt), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_context_create(NULL, &opt), CLIK_ERR_NULL);
    clik_context_destroy(NULL);
}
END_TEST

/* ---- images ----------------------------------------------------------------------- */

START_TEST(image_descriptors)
{
    uint8_t buf[256];
    clik_image img;
    ck_assert_int_eq(clik_image_wrap(&img, 8, 4, 4, CLIK_U8, buf, 0), CLIK_OK);
    ck_assert_uint_eq(img.stride, 32);
    ck_assert_int_eq(clik_image_wrap(NULL, 8, 4, 4, CLIK_U8, buf, 0), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_image_wrap(&img, 8, 4, 4, CLIK_U8, NULL, 0), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_image_wrap(&img, 0, 4, 1, CLIK_U8, buf, 0), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_image_wrap(&img, 4, -1, 1, CLIK_U8, buf, 0), CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_image_wrap(&img, (1 << 20) + 1, 1, 1, CLIK_U8, buf, 0),
                     CLIK_ERR_INVALID_SIZE);
    ck_assert_int_eq(clik_image_wrap(&img, 4, 4, 5, CLIK_U8, buf, 0), CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_image_wrap(&img, 4, 4, 1, (clik_type)0, buf, 0),
                     CLIK_ERR_UNSUPPORTED_FORMAT);
    ck_assert_int_eq(clik_image_wrap(&img, 8, 4, 1, CLIK_U8, buf, 7), CLIK_ERR_STRIDE);
    ck_assert_int_eq(clik_image_wrap(&img, 4, 4, 1, CLIK_U16, buf, 9), CLIK_ERR_STRIDE);
    size_t huge = (SIZE_MAX / 2 + 1) & ~(size_t)7;
    ck_assert_int_eq(clik_image_wrap(&img, 4, 3, 1, CLIK_U8, buf, huge), CLIK_ERR_OVERFLOW);

    ck_assert_int_eq(clik_image_alloc(&img, 3, 5, 2, CLIK_F32), CLIK_OK);
    ck_assert_uint_eq(img.stride, 24);
    ck_assert_uint_eq((uintptr_t)img.data % 64, 0);
    ck_assert_int_eq(clik_image_validate(&img), CLIK_OK);
    clik_image_free(&img);
    ck_assert_ptr_null(img.data);
    clik_image_free(&img); /* cleared: harmless */
    clik_image_free(NULL);
    ck_assert_int_eq(clik_image_alloc(&img, 4, 4, 4, CLIK_F16), CLIK_OK);
    clik_image_free(&img);
    ck_assert_int_eq(clik_image_validate(NULL), CLIK_ERR_NULL);

    for (int t = CLIK_U8; t <= CLIK_F64; t++) {
        ck_assert_uint_gt(clik_type_size((clik_type)t), 0);
        ck_assert_str_ne(clik_type_name((clik_type)t), "unknown");
    }
    ck_assert_uint_eq(clik_type_size((clik_type)42), 0);
}
END_TEST

/* Device images on a context without a device live in host memory. */
START_TEST(cpu_context_images)
{
    clik_context *ctx;
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    ck_assert_int_eq(clik_context_create(&ctx, &opt), CLIK_OK);
    ck_assert_int_eq(clik_context_last_backend(ctx), CLIK_BACKEND_NONE);
    uint8_t in[60], out[60];
    for (int i = 0; i < 60; i++)
        in[i] = (uint8_t)(i * 7);
    clik_image host_in, host_out, dev;
    ck_assert_int_eq(clik_image_wrap(&host_in, 5, 3, 4, CLIK_U8, in, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_wrap(&host_out, 5, 3, 4, CLIK_U8, out, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_create(ctx, &dev, 5, 3, 4, CLIK_U8), CLIK_OK);
    ck_assert_ptr_null(dev.data);
    ck_assert_ptr_nonnull(dev.buffer);
    ck_assert_int_eq(clik_image_upload(ctx, &dev, &host_in), CLIK_OK);
    ck_assert_int_eq(clik_image_download(ctx, &host_out, &dev), CLIK_OK);
    ck_assert_mem_eq(in, out, 60);
    clik_image small;
    ck_assert_int_eq(clik_image_wrap(&small, 4, 3, 4, CLIK_U8, out, 0), CLIK_OK);
    ck_assert_int_eq(clik_image_download(ctx, &small, &dev), CLIK_ERR_SIZE_MISMATCH);
    ck_assert_int_eq(clik_image_upload(ctx, &host_out, &host_in), CLIK_ERR_INVALID_ARG);
    ck_assert_int_eq(clik_image_upload(NULL, &dev, &host_in), CLIK_ERR_NULL);
    ck_assert_int_eq(clik_image_create(ctx, &small, 0, 3, 1, CLIK_U8), CLIK_ERR_INVALID_SIZE);
    ck_assert_str_ne(clik_context_message(ctx), "");
    double gbps = 0;
    ck_assert_int_eq(clik_context_copy_bandwidth(ctx, 1 << 20, 2, &gbps), CLIK_OK);
    ck_assert(gbps > 0.0);
    ck_assert_int_eq(clik_context_copy_bandwidth(ctx, 10, 2, &gbps), CLIK_ERR_INVALID_ARG);
    double gflops = 0;
    ck_assert_int_eq(clik_context_fma_peak(ctx, 2, &gflops), CLIK_OK);
    ck_assert(gflops > 0.0);
    ck_assert_int_eq(clik_context_finish(ctx), CLIK_OK);
    clik_image_free(&dev);
    clik_context_destroy(ctx);
}
END_TEST

START_TEST(status_names)
{
    for (int s = 0; s < CLIK_STATUS_COUNT; s++) {
        const char *name = clik_status_str((clik_status)s);
        ck_assert_ptr_nonnull(name);
        ck_assert_msg(strncmp(name, "CLIK_", 5) == 0, "%s", name);
        for (int t = 0; t < s; t++)
            ck_assert_str_ne(name, clik_status_str((clik_status)t));
    }
    ck_assert_ptr_nonnull(strstr(clik_status_str((clik_status)999), "UNKNOWN"));
    char version[32];
    snprintf(version, sizeof(version), "%d.%d.%d", CLIK_VERSION_MAJOR, CLIK_VERSION_MINOR,
             CLIK_VERSION_PATCH);
    ck_assert_str_eq(clik_version(), version);
}
END_TEST

/* ---- white-box: cache files and kernel sources --------------------------------------- */

START_TEST(cache_file_format)
{
    char *dir = h_tempdir();
    const unsigned char bin[] = "binary\0with\0zeros";
    unsigned char *got;
    size_t len;
    ck_assert_int_eq(clik__cache_load(dir, "key A", &got, &len), CLIK_ERR_IO);
    ck_assert_int_eq(clik__cache_store(dir, "key A", bin, sizeof(bin)), CLIK_OK);
    ck_assert_int_eq(clik__cache_load(dir, "key A", &got, &len), CLIK_OK);
    ck_assert_uint_eq(len, sizeof(bin));
    ck_assert_mem_eq(got, bin, sizeof(bin));
    free(got);
    ck_assert_int_eq(clik__cache_load(dir, "key B", &got, &len), CLIK_ERR_IO);

    /* Find the entry and damage it in turn: each damage is a miss. */
    char hash[33], path[1024];
    clik__hash_hex("key A", 5, hash);
    snprintf(path, sizeof(path), "%s/%s.bin", dir, hash);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    for (off_t cut = 0; cut < st.st_size; cut += 7) {
        ck_assert_int_eq(clik__cache_store(dir, "key A", bin, sizeof(bin)), CLIK_OK);
        ck_assert_int_eq(truncate(path, cut), 0);
        ck_assert_int_eq(clik__cache_load(dir, "key A", &got, &len), CLIK_ERR_FILE_FORMAT);
    }
    /* A nested folder is created on demand; a file in the way is an error. */
    char nested[1024];
    snprintf(nested, sizeof(nested), "%s/a/b/c", dir);
    ck_assert_int_eq(clik__cache_store(nested, "k", bin, sizeof(bin)), CLIK_OK);
    snprintf(nested, sizeof(nested), "%s/%s.bin/x", dir, hash);
    ck_assert_int_eq(clik__cache_store(nested, "k", bin, sizeof(bin)), CLIK_ERR_IO);

    /* Folder resolution: option, then variables. */
    char *d = clik__cache_dir("/opt/x", 1);
    ck_assert_str_eq(d, "/opt/x");
    free(d);
    ck_assert_ptr_null(clik__cache_dir("/opt/x", 0));
    setenv("CLIK_CACHE_DIR", "/var/y", 1);
    d = clik__cache_dir(NULL, 1);
    ck_assert_str_eq(d, "/var/y");
    free(d);
    unsetenv("CLIK_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    d = clik__cache_dir(NULL, 1);
    ck_assert_str_eq(d, "/xdg/clik");
    free(d);
    unsetenv("XDG_CACHE_HOME");
    h_rmtree(dir);
}
END_TEST

START_TEST(include_resolution)
{
    char *dir = h_tempdir();
    h_write_text(dir, "a.h", "#include \"b.h\"\nint a;\n");
    h_write_text(dir, "b.h", "int b;\n");
    h_write_text(dir, "k.cl",
                 "  #  include \"a.h\"\n#include \"b.h\"\n#include <other.h>\nkernel;\n");
    clik_strbuf sb = {0};
    char err[256];
    ck_assert_int_eq(clik__kernel_source_load(dir, "k", &sb, err, sizeof(err)), CLIK_OK);
    ck_assert_str_eq(sb.data, "int b;\nint a;\n#include <other.h>\nkernel;\n");
    clik__sb_free(&sb);

    h_write_text(dir, "m.cl", "#include \"missing.h\"\n");
    ck_assert_int_eq(clik__kernel_source_load(dir, "m", &sb, err, sizeof(err)), CLIK_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err, "missing.h"));
    clik__sb_free(&sb);
    h_write_text(dir, "t.cl", "#include \"../etc/passwd\"\n");
    ck_assert_int_eq(clik__kernel_source_load(dir, "t", &sb, err, sizeof(err)),
                     CLIK_ERR_FILE_FORMAT);
    clik__sb_free(&sb);
    ck_assert_int_eq(clik__kernel_source_load(dir, "absent", &sb, err, sizeof(err)), CLIK_ERR_IO);
    clik__sb_free(&sb);

    /* The embedded programs are complete: no include left to resolve. */
    ck_assert_uint_ge(clik__embedded_kernel_count, 2);
    for (size_t i = 0; i < clik__embedded_kernel_count; i++)
        ck_assert_ptr_null(strstr(clik__embedded_kernels[i].source, "#include \""));
    h_rmtree(dir);
}
END_TEST

/* Collects the warnings of a context into a buffer. */
static void keep_log(void *user, clik_log_level level, const char *message)
{
    if (level >= CLIK_LOG_WARNING)
        snprintf(user, 512, "%s", message);
}

START_TEST(threads_setting)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    clik_context *ctx = NULL;
    static const int bad[] = {-2, 257, -1000};
    for (int i = 0; i < 3; i++) {
        opt.threads = bad[i];
        ck_assert_int_eq(clik_context_create(&ctx, &opt), CLIK_ERR_INVALID_ARG);
        ck_assert_ptr_nonnull(strstr(clik_context_message(NULL), "threads"));
    }
    /* A bad variable is ignored, with the reason logged. */
    char logged[512];
    opt.threads = -1;
    opt.log = keep_log;
    opt.log_user = logged;
    static const char *const bad_env[] = {"0", "-3", "many", "4x", "257", " "};
    for (int i = 0; i < 6; i++) {
        logged[0] = '\0';
        setenv("CLIK_THREADS", bad_env[i], 1);
        ck_assert_int_eq(clik_context_create(&ctx, &opt), CLIK_OK);
        ck_assert_msg(strstr(logged, "CLIK_THREADS") && strstr(logged, "ignored"), "'%s': '%s'",
                      bad_env[i], logged);
        clik_context_destroy(ctx);
    }
    static const char *const good_env[] = {"1", "3", "auto", ""};
    for (int i = 0; i < 4; i++) {
        logged[0] = '\0';
        setenv("CLIK_THREADS", good_env[i], 1);
        ck_assert_int_eq(clik_context_create(&ctx, &opt), CLIK_OK);
        ck_assert_msg(logged[0] == '\0', "'%s': '%s'", good_env[i], logged);
        clik_context_destroy(ctx);
    }
    unsetenv("CLIK_THREADS");
    /* Without a choice, the CPU path is NEON wherever it is built. */
    opt.log = NULL;
    ck_assert_int_eq(clik_context_create(&ctx, &opt), CLIK_OK);
    ck_assert_int_eq(clik_context_cpu_backend(ctx), clik_cpu_path_available(CLIK_CPU_NEON)
                                                        ? CLIK_BACKEND_NEON
                                                        : CLIK_BACKEND_SCALAR);
    clik_context_destroy(ctx);
}
END_TEST

/* A context whose pool ran before a fork works in the child, with the
 * parent's bytes: the parent's helpers are not there, so the child starts a
 * pool of its own (and a job's caller takes every band no helper took). */
START_TEST(threads_after_fork)
{
    if (!clik_cpu_path_available(CLIK_CPU_NEON)) {
        printf("SKIP threads_after_fork: no NEON path (the scalar blur runs on one thread)\n");
        return;
    }
    if (!h_threads_usable("threads_after_fork"))
        return;
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    opt.cpu_path = CLIK_CPU_NEON;
    opt.threads = 2;
    clik_context *ctx = NULL;
    ck_assert_int_eq(clik_context_create(&ctx, &opt), CLIK_OK);
    clik_image src, a, b;
    ck_assert_int_eq(clik_image_alloc(&src, 640, 480, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&a, 640, 480, 1, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&b, 640, 480, 1, CLIK_U8), CLIK_OK);
    for (size_t i = 0; i < (size_t)640 * 480; i++)
        ((uint8_t *)src.data)[i] = (uint8_t)(i * 2654435761u >> 24);
    ck_assert_int_eq(clik_gaussian_blur(ctx, &src, &a, 7, 0.0), CLIK_OK);
    fflush(NULL);
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        const int same = clik_gaussian_blur(ctx, &src, &b, 7, 0.0) == CLIK_OK &&
                         memcmp(a.data, b.data, (size_t)640 * 480) == 0;
        _exit(same ? 0 : 1);
    }
    int status = 0, waited = 0;
    while (waitpid(child, &status, WNOHANG) == 0 && waited < 200) {
        nanosleep(&(struct timespec){0, 100000000L}, NULL);
        waited++;
    }
    if (waited == 200) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        ck_abort_msg("the child hung on the parent's pool");
    }
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    clik_image_free(&src);
    clik_image_free(&a);
    clik_image_free(&b);
    clik_context_destroy(ctx);
}
END_TEST

/* The automatic CPU path's table lookup (the scalar code in bands where
 * the NEON code runs through SIMDe) on 3 threads gives the oracle's bytes,
 * one table or one per channel, in place too. */
START_TEST(auto_path_lut)
{
    if (!h_threads_usable("auto_path_lut"))
        return;
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    opt.threads = 3;
    clik_context *fast = NULL, *oracle = NULL;
    ck_assert_int_eq(clik_context_create(&fast, &opt), CLIK_OK);
    opt.cpu_path = CLIK_CPU_SCALAR;
    opt.threads = 1;
    ck_assert_int_eq(clik_context_create(&oracle, &opt), CLIK_OK);
    uint8_t tables[4 * 256];
    for (int i = 0; i < 4 * 256; i++)
        tables[i] = (uint8_t)(i * 7919u >> 3);
    clik_image src, a, b;
    ck_assert_int_eq(clik_image_alloc(&src, 301, 167, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&a, 301, 167, 4, CLIK_U8), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&b, 301, 167, 4, CLIK_U8), CLIK_OK);
    const size_t n = (size_t)301 * 167 * 4;
    for (size_t i = 0; i < n; i++)
        ((uint8_t *)src.data)[i] = (uint8_t)(i * 2654435761u >> 24);
    for (int ntables = 1; ntables <= 4; ntables += 3) {
        ck_assert_int_eq(clik_hist_lut(oracle, &src, &a, tables, ntables), CLIK_OK);
        ck_assert_int_eq(clik_hist_lut(fast, &src, &b, tables, ntables), CLIK_OK);
        ck_assert(memcmp(a.data, b.data, n) == 0);
        memcpy(b.data, src.data, n);
        ck_assert_int_eq(clik_hist_lut(fast, &b, &b, tables, ntables), CLIK_OK);
        ck_assert(memcmp(a.data, b.data, n) == 0);
    }
    clik_image_free(&src);
    clik_image_free(&a);
    clik_image_free(&b);
    clik_context_destroy(fast);
    clik_context_destroy(oracle);
}
END_TEST

int main(void)
{
    const h_test tests[] = {H_TEST(selection_strings),  H_TEST(settings_are_checked),
                            H_TEST(threads_setting),    H_TEST(threads_after_fork),
                            H_TEST(auto_path_lut),      H_TEST(image_descriptors),
                            H_TEST(cpu_context_images), H_TEST(status_names),
                            H_TEST(cache_file_format),  H_TEST(include_resolution)};
    return h_suite_main(&(h_suite){"host", NULL, -1, tests, H_COUNT(tests), NULL, NULL});
}
