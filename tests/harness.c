/* Backend iteration for the Check suites. SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE /* strcasestr */
#include "harness.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases.h"

clik_context *h_ctx;
clik_context *h_oracle;
char h_backend[512];
const char *h_tuning = "";
char h_device[32] = "none";
clik_backend h_expected;
int h_small;
int h_patterns = SUP_PATTERN_COUNT;

/* 1 while a forced kernel variant runs: sizes past a megapixel are left to
 * the device's default kernels (the variants' edges and strips are all
 * reached at 641 x 479), except in full runs (CLIK_TEST_FULL=1). */
static int h_variant;
int h_full;
/* CLIK_TEST_MAX_PIXELS: sizes up to this many pixels (slow emulators). */
static long h_max_pixels = -1;
/* The disk cache option of the contexts on the device under test: 0 (off)
 * on PoCL unless h_pocl_disk_cache, else -1 (the default). PoCL keeps a
 * cache of its own builds (POCL_CACHE_DIR, in the build tree for the
 * tests), and the binary that clik's cache stores makes PoCL compile each
 * kernel's generic work-group function besides, which it never loads where
 * it has its compiler: most of a PoCL suite's compile time. test_cache
 * checks clik's cache on every device. */
static int h_cache = -1;
int h_pocl_disk_cache;

/* The oracle's outputs, kept across the passes of one process (each
 * tuning string, each device) while they fit in ORACLE_CACHE_BYTES: the
 * scalar oracle gives the same output for the same input, and recomputing
 * it took a large share of the OpenCL suites' time. Only the OpenCL runs,
 * which make several passes, keep them. */
#define ORACLE_CACHE_BYTES ((size_t)768 << 20)
typedef struct oracle_entry {
    const sup_case *c;
    int width, height, channels;
    sup_pattern pattern;
    uint64_t seed;
    sup_case_oracle o;
} oracle_entry;
static int oracle_cache_on;
static oracle_entry *oracle_cache;
static int oracle_cached, oracle_cap;
static size_t oracle_bytes;

static size_t image_bytes(const clik_image *m)
{
    return m->data ? m->stride * (size_t)m->height : 0;
}

static void oracle_cache_free(void)
{
    for (int i = 0; i < oracle_cached; i++)
        sup_case_oracle_free(&oracle_cache[i].o);
    free(oracle_cache);
    oracle_cache = NULL;
    oracle_cached = oracle_cap = 0;
    oracle_bytes = 0;
}

void h_case_check(const sup_case *c, clik_context *ctx, int width, int height, int channels,
                  sup_pattern pattern, uint64_t seed, sup_case_result *r)
{
    for (int i = 0; oracle_cache_on && i < oracle_cached; i++) {
        const oracle_entry *e = &oracle_cache[i];
        if (e->c == c && e->width == width && e->height == height && e->channels == channels &&
            e->pattern == pattern && e->seed == seed) {
            sup_case_compare(&e->o, ctx, c->tol, r);
            return;
        }
    }
    sup_case_oracle o;
    sup_case_oracle_run(c, h_oracle, width, height, channels, pattern, seed, &o);
    sup_case_compare(&o, ctx, c->tol, r);
    const size_t bytes = image_bytes(&o.in) + image_bytes(&o.want);
    if (oracle_cache_on && oracle_bytes + bytes <= ORACLE_CACHE_BYTES) {
        if (oracle_cached == oracle_cap) {
            const int cap = oracle_cap ? 2 * oracle_cap : 256;
            oracle_entry *grown = realloc(oracle_cache, (size_t)cap * sizeof(*grown));
            if (grown) {
                oracle_cache = grown;
                oracle_cap = cap;
            }
        }
        if (oracle_cached < oracle_cap) {
            oracle_cache[oracle_cached++] =
                (oracle_entry){c, width, height, channels, pattern, seed, o};
            oracle_bytes += bytes;
            return;
        }
    }
    sup_case_oracle_free(&o);
}

int h_all_tests(void)
{
    return !h_variant || h_full;
}

int h_size_count(void)
{
    int n = 0;
    while (n < sup_test_size_count) {
        const long px = (long)sup_test_sizes[n][0] * sup_test_sizes[n][1];
        if ((h_small && (sup_test_sizes[n][0] > 128 || sup_test_sizes[n][1] > 64)) ||
            (h_variant && !h_full && px > 1000000) || (h_max_pixels >= 0 && px > h_max_pixels))
            break;
        n++;
    }
    return n;
}

/* The scalar backend is the oracle's own code: its cases compare the oracle
 * with itself, which checks that the context picks that path and that it
 * is deterministic; small sizes say that much (its hand-worked tests run
 * in full): up to 128 x 64, and below it where the build has the NEON path,
 * whose suite runs the oracle on those inputs (and every larger one) under
 * the same memcheck, sanitizers or emulator. */
static int case_size_count(void)
{
    int n = h_size_count();
    const long most = clik_cpu_path_available(CLIK_CPU_NEON) ? 27 * 13 : 128 * 64;
    if (h_expected == CLIK_BACKEND_SCALAR && !h_full)
        while (n > 0 && (long)sup_test_sizes[n - 1][0] * sup_test_sizes[n - 1][1] > most)
            n--;
    return n;
}

const sup_case *h_family_case(const char *family, int n)
{
    int seen = 0;
    for (int i = 0; i < sup_case_count(); i++)
        if (strcmp(sup_case_at(i)->family, family) == 0 && seen++ == n)
            return sup_case_at(i);
    return NULL;
}

int h_family_case_count(const char *family)
{
    int n = 0;
    while (h_family_case(family, n))
        n++;
    return n;
}

void h_check_case(const sup_case *c)
{
    h_check_case_sizes(c, sup_test_size_count, 1000000);
}

void h_check_case_sizes(const sup_case *c, int sizes, long all_patterns_pixels)
{
    ck_assert_ptr_nonnull(c);
    int nch = 0;
    for (int ch = 1; ch <= 4; ch++)
        nch += (c->channels & (1u << ch)) != 0;
    for (int s = 0; s < case_size_count() && s < sizes; s++)
        for (int ch = 1, k = 0; ch <= 4; ch++) {
            if (!(c->channels & (1u << ch)))
                continue;
            /* A forced variant takes one channel count per size, each in
             * turn (each count a program of its own on most families): the
             * default kernels and full runs take every count at every size. */
            if (h_variant && !h_full && nch > 1 && k++ != s % nch)
                continue;
            for (int p = 0; p < h_patterns; p++) {
                const int w = sup_test_sizes[s][0], h = sup_test_sizes[s][1];
                /* Past a megapixel (h_check_case), one pattern per channel
                 * count (a different one each): the suite stays inside
                 * CI's time. */
                if ((long)w * h > all_patterns_pixels && p != (ch + s) % h_patterns)
                    continue;
                /* 3 channels, which most families run as 4 between two
                 * conversions, stop there too outside full runs. */
                if (ch == 3 && !h_full && (long)w * h > all_patterns_pixels)
                    continue;
                sup_case_result r;
                h_case_check(c, h_ctx, w, h, ch, (sup_pattern)p, 1000u + s, &r);
                ck_assert_msg(r.status == CLIK_OK, "%s %dx%dx%d %s on %s: %s: %s", c->op, w, h, ch,
                              sup_pattern_name(p), h_backend, clik_status_str(r.status), r.message);
                ck_assert_msg(r.backend == h_expected, "%s ran on %s, expected %s", c->op,
                              clik_backend_name(r.backend), clik_backend_name(h_expected));
                ck_assert_msg(sup_case_passed(&r), "%s %dx%dx%d %s on %s: %s", c->op, w, h, ch,
                              sup_pattern_name(p), h_backend, r.cmp.detail);
            }
        }
}

static int run_suite(Suite *(*make)(void))
{
    SRunner *sr = srunner_create(make());
    const char *fork = getenv("CK_FORK");
    if (!fork || strcmp(fork, "yes") != 0)
        srunner_set_fork_status(sr, CK_NOFORK); /* OpenCL runtimes do not survive fork() */
    printf("== backend: %s ==\n", h_backend);
    fflush(stdout);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}

static int run_backend(Suite *(*make)(void), clik_context_options *opt)
{
    clik_context_options ref;
    clik_context_options_init(&ref);
    ref.device = "none";
    ref.cpu_path = CLIK_CPU_SCALAR;
    clik_status st = clik_context_create(&h_oracle, &ref);
    if (st != CLIK_OK) {
        printf("FAIL %s: oracle context: %s\n", h_backend, clik_context_message(NULL));
        return 1;
    }
    st = clik_context_create(&h_ctx, opt);
    if (st != CLIK_OK) {
        printf("FAIL %s: context: %s: %s\n", h_backend, clik_status_str(st),
               clik_context_message(NULL));
        clik_context_destroy(h_oracle);
        return 1;
    }
    int failed = run_suite(make);
    clik_context_destroy(h_ctx);
    clik_context_destroy(h_oracle);
    h_ctx = h_oracle = NULL;
    return failed;
}

static int run_opencl(Suite *(*make)(void), const char *const *tunings)
{
    clik_device_info *list;
    int count;
    if (clik_devices_list(&list, &count) != CLIK_OK || count == 0) {
        const char *why = "";
        const char *lib = clik_opencl_library(&why);
        printf("SKIP: no OpenCL device (%s%s)\n", lib ? "library " : "", lib ? lib : why);
        return 77;
    }
    static const char *const no_tuning[] = {"", NULL};
    if (!tunings)
        tunings = no_tuning;
    /* CLIK_TEST_TUNINGS=default: the device's default kernels only, where
     * another run covers the forced variants with the same kernel code. */
    const char *which = getenv("CLIK_TEST_TUNINGS");
    const int defaults_only = which && strcmp(which, "default") == 0;
    if (defaults_only && tunings[0] && tunings[1])
        printf("forced kernel variants not run here (CLIK_TEST_TUNINGS=default)\n");
    /* CLIK_TEST_DEVICE: only the devices whose name or platform holds it. */
    const char *only = getenv("CLIK_TEST_DEVICE");
    int failed = 0, ran = 0;
    oracle_cache_on = 1;
    for (int i = 0; i < count; i++)
        for (int t = 0; tunings[t] && (t == 0 || !defaults_only); t++) {
            if (only && *only && !strcasestr(list[i].name, only) &&
                !strcasestr(list[i].platform_name, only))
                continue;
            ran = 1;
            char spec[32];
            snprintf(spec, sizeof(spec), "%d:%d", list[i].platform_index, list[i].device_index);
            snprintf(h_backend, sizeof(h_backend), "opencl %s %s (%s)%s%s", spec, list[i].name,
                     list[i].platform_name, *tunings[t] ? " tuning " : "", tunings[t]);
            clik_context_options opt;
            clik_context_options_init(&opt);
            snprintf(h_device, sizeof(h_device), "%s", spec);
            opt.device = h_device;
            opt.strict = 1;
            opt.tuning = tunings[t];
            h_tuning = tunings[t];
            h_cache =
                !h_pocl_disk_cache && strstr(list[i].platform_name, "Portable Computing Language")
                    ? 0
                    : -1;
            opt.cache = h_cache;
            h_variant = t > 0;
            h_expected = CLIK_BACKEND_OPENCL;
            failed += run_backend(make, &opt);
        }
    clik_devices_free(list);
    oracle_cache_free();
    if (!ran) {
        printf("SKIP: no OpenCL device matches CLIK_TEST_DEVICE=%s\n", only);
        return 77;
    }
    return failed ? 1 : 0;
}

int harness_main(Suite *(*make)(void), const char *const *tunings)
{
    return harness_main_full(make, tunings, tunings);
}

int harness_main_full(Suite *(*make)(void), const char *const *tunings,
                      const char *const *full_tunings)
{
    /* CLIK_TEST_PATTERNS=N: the first N patterns only (slow backends). */
    const char *patterns = getenv("CLIK_TEST_PATTERNS");
    if (patterns && atoi(patterns) >= 1 && atoi(patterns) < SUP_PATTERN_COUNT)
        h_patterns = atoi(patterns);
    const char *small = getenv("CLIK_TEST_SMALL");
    h_small = small && strcmp(small, "1") == 0;
    const char *full = getenv("CLIK_TEST_FULL");
    h_full = full && strcmp(full, "1") == 0;
    if (h_full)
        tunings = full_tunings;
    const char *max_pixels = getenv("CLIK_TEST_MAX_PIXELS");
    if (max_pixels && *max_pixels)
        h_max_pixels = atol(max_pixels);
    const char *backend = getenv("CLIK_TEST_BACKEND");
    if (!backend || !*backend)
        backend = "none";
    if (strcmp(backend, "opencl") == 0)
        return run_opencl(make, tunings);
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    if (strcmp(backend, "scalar") == 0) {
        opt.cpu_path = CLIK_CPU_SCALAR;
        h_expected = CLIK_BACKEND_SCALAR;
    } else if (strcmp(backend, "neon") == 0) {
        if (!clik_cpu_path_available(CLIK_CPU_NEON)) {
            printf("SKIP: this build has no NEON path\n");
            return 77;
        }
        opt.cpu_path = CLIK_CPU_NEON;
        h_expected = CLIK_BACKEND_NEON;
    } else if (strcmp(backend, "none") == 0) {
        snprintf(h_backend, sizeof(h_backend), "none");
        return run_suite(make) ? 1 : 0;
    } else {
        printf("CLIK_TEST_BACKEND=%s: expected opencl, scalar, neon or none\n", backend);
        return 2;
    }
    snprintf(h_backend, sizeof(h_backend), "%s", backend);
    return run_backend(make, &opt) ? 1 : 0;
}

void h_check_case_at(const sup_case *c, int width, int height, int channels, sup_pattern pattern,
                     uint64_t seed)
{
    sup_case_result r;
    h_case_check(c, h_ctx, width, height, channels, pattern, seed, &r);
    ck_assert_msg(sup_case_passed(&r), "%s %dx%dx%d %s on %s: %s %s %s", c->op, width, height,
                  channels, sup_pattern_name(pattern), h_backend, clik_status_str(r.status),
                  r.message, r.cmp.detail);
}

void h_check_family_sizes(const char *family, const int (*sizes)[2], int count, int channels,
                          uint64_t seed)
{
    for (int i = 0; i < count; i++)
        for (int c = 0; c < h_family_case_count(family); c++)
            h_check_case_at(h_family_case(family, c), sizes[i][0], sizes[i][1], channels,
                            SUP_PATTERN_NOISE, seed);
}

void h_check_family_thin(const char *family, int long_width, int long_height, int channels,
                         uint64_t seed)
{
    const int sizes[][2] = {{1, 37}, {37, 1}, {1, 2}, {2, 1}, {1, long_height}, {long_width, 1}};
    h_check_family_sizes(family, sizes, (int)(sizeof(sizes) / sizeof(sizes[0])), channels, seed);
}

/* Pixel x of row y of a host image, as bytes. */
static const uint8_t *pixel_at(const clik_image *img, int x, int y)
{
    const size_t px = (size_t)img->channels * clik_type_size(img->type);
    return (const uint8_t *)img->data + (size_t)y * img->stride + (size_t)x * px;
}

void h_check_three_channels(const sup_case *c, int width, int height, clik_order order)
{
    ck_assert_ptr_nonnull(c);
    clik_image in4, in3, out4 = {0}, out3 = {0};
    ck_assert_int_eq(clik_image_alloc(&in4, width, height, 4, c->type), CLIK_OK);
    ck_assert_int_eq(clik_image_alloc(&in3, width, height, 3, c->type), CLIK_OK);
    sup_pattern_fill(&in4, SUP_PATTERN_NOISE, 77);
    const size_t esize = clik_type_size(c->type);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            memcpy((uint8_t *)pixel_at(&in3, x, y), pixel_at(&in4, x, y), 3 * esize);
    in4.order = in3.order = order;
    clik_status st4 = c->run(h_ctx, &in4, &out4);
    ck_assert_msg(st4 == CLIK_OK, "%s 4 channels on %s: %s", c->op, h_backend,
                  clik_context_message(h_ctx));
    clik_status st3 = c->run(h_ctx, &in3, &out3);
    ck_assert_msg(st3 == CLIK_OK, "%s 3 channels on %s: %s", c->op, h_backend,
                  clik_context_message(h_ctx));
    ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
    /* One row of per-channel entries (a histogram): those of 3 channels
     * lead those of 4. */
    const int entries = out3.height == 1 && out4.height == 1 && out3.width < out4.width;
    if (!entries)
        ck_assert_int_eq(out3.width, out4.width);
    ck_assert_int_eq(out3.height, out4.height);
    ck_assert_int_eq(out3.type, out4.type);
    /* A colour result: the colour channels of the 4-channel one; any other:
     * the same image. */
    const int colour = out3.channels == 3 && out4.channels == 4;
    ck_assert(colour || out3.channels == out4.channels);
    const size_t n = (size_t)out3.channels * clik_type_size(out3.type);
    for (int y = 0; y < out3.height; y++)
        for (int x = 0; x < out3.width; x++)
            ck_assert_msg(memcmp(pixel_at(&out3, x, y), pixel_at(&out4, x, y), n) == 0,
                          "%s %dx%d on %s: 3 channels differ from 4 at (%d, %d)", c->op, width,
                          height, h_backend, x, y);
    h_free_images(&in4, &in3, &out4, &out3, NULL);
}

void h_check_family_three_channels(const char *family)
{
    static const int sizes[][2] = {{37, 5}, {83, 19}};
    for (int i = 0; i < h_family_case_count(family); i++) {
        const sup_case *c = h_family_case(family, i);
        if (c->channels & (1u << 3))
            for (int s = 0; s < 2; s++)
                h_check_three_channels(c, sizes[s][0], sizes[s][1],
                                       s ? CLIK_ORDER_BGR : CLIK_ORDER_RGB);
    }
}

/* dst = src with the first and third channel of every pixel swapped. */
static void swap_red_blue(const clik_image *src, clik_image *dst)
{
    const size_t esize = clik_type_size(src->type);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            const uint8_t *in = pixel_at(src, x, y);
            uint8_t *out = (uint8_t *)pixel_at(dst, x, y);
            memcpy(out, in, (size_t)src->channels * esize);
            memcpy(out, in + 2 * esize, esize);
            memcpy(out + 2 * esize, in, esize);
        }
}

void h_check_bgr_swaps(const char *id, int width, int height)
{
    const sup_case *c = sup_case_find(id);
    ck_assert_msg(c != NULL, "no case %s", id);
    for (int ch = 3; ch <= 4; ch++) {
        clik_image rgb, bgr, out_rgb = {0}, out_bgr = {0}, swapped;
        ck_assert_int_eq(clik_image_alloc(&rgb, width, height, ch, c->type), CLIK_OK);
        ck_assert_int_eq(clik_image_alloc(&bgr, width, height, ch, c->type), CLIK_OK);
        sup_pattern_fill(&rgb, SUP_PATTERN_NOISE, 91);
        swap_red_blue(&rgb, &bgr);
        bgr.order = CLIK_ORDER_BGR;
        ck_assert_msg(c->run(h_ctx, &rgb, &out_rgb) == CLIK_OK, "%s RGB on %s: %s", id, h_backend,
                      clik_context_message(h_ctx));
        ck_assert_msg(c->run(h_ctx, &bgr, &out_bgr) == CLIK_OK, "%s BGR on %s: %s", id, h_backend,
                      clik_context_message(h_ctx));
        ck_assert_int_eq(clik_context_last_backend(h_ctx), h_expected);
        ck_assert(out_rgb.width == out_bgr.width && out_rgb.height == out_bgr.height &&
                  out_rgb.channels == out_bgr.channels && out_rgb.type == out_bgr.type);
        ck_assert_int_eq(clik_image_alloc(&swapped, out_rgb.width, out_rgb.height, out_rgb.channels,
                                          out_rgb.type),
                         CLIK_OK);
        if (out_rgb.channels >= 3)
            swap_red_blue(&out_rgb, &swapped);
        else
            for (int y = 0; y < out_rgb.height; y++)
                for (int x = 0; x < out_rgb.width; x++)
                    memcpy((uint8_t *)pixel_at(&swapped, x, y), pixel_at(&out_rgb, x, y),
                           (size_t)out_rgb.channels * clik_type_size(out_rgb.type));
        const size_t n = (size_t)out_rgb.channels * clik_type_size(out_rgb.type);
        for (int y = 0; y < out_rgb.height; y++)
            for (int x = 0; x < out_rgb.width; x++)
                ck_assert_msg(memcmp(pixel_at(&swapped, x, y), pixel_at(&out_bgr, x, y), n) == 0,
                              "%s, %d channels on %s: BGR differs from RGB at (%d, %d)", id, ch,
                              h_backend, x, y);
        h_free_images(&rgb, &bgr, &out_rgb, &out_bgr, &swapped, NULL);
    }
}

void h_check_colour_orders(const char *family, int width, int height, const char *id, ...)
{
    h_check_family_three_channels(family);
    va_list ap;
    va_start(ap, id);
    for (const char *c = id; c; c = va_arg(ap, const char *))
        h_check_bgr_swaps(c, width, height);
    va_end(ap);
}

clik_context *h_cpu_context(void)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    clik_context *ctx = NULL;
    ck_assert_int_eq(clik_context_create(&ctx, &opt), CLIK_OK);
    return ctx;
}

clik_context_options h_device_options(const char *cache_dir, int strict)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = h_device;
    opt.cache_dir = cache_dir;
    opt.strict = strict;
    return opt;
}

clik_context *h_context_create(const clik_context_options *opt)
{
    clik_context *ctx = NULL;
    ck_assert_msg(clik_context_create(&ctx, opt) == CLIK_OK, "context on %s, tuning \"%s\": %s",
                  opt->device ? opt->device : "(default)", opt->tuning ? opt->tuning : "",
                  clik_context_message(NULL));
    return ctx;
}

clik_import_desc h_host_desc(void *ptr, size_t size, int w, int h, int ch, size_t stride)
{
    clik_import_desc d;
    clik_import_desc_init(&d);
    d.kind = CLIK_IMPORT_HOST;
    d.ptr = ptr;
    d.size = size;
    d.width = w;
    d.height = h;
    d.channels = ch;
    d.type = CLIK_U8;
    d.stride = stride;
    return d;
}

clik_context *h_tuned_context(const char *tuning)
{
    if (h_expected != CLIK_BACKEND_OPENCL)
        return h_ctx;
    clik_context_options opt = h_device_options(NULL, 1);
    opt.tuning = tuning;
    opt.cache = h_cache;
    return h_context_create(&opt);
}

static void add_tests(TCase *tc, const h_test *tests, int count)
{
    for (int i = 0; i < count; i++) {
        if (tests[i].all_tests_only && !h_all_tests())
            continue;
        if (tests[i].loops > 0)
            tcase_add_loop_test(tc, tests[i].test, 0, tests[i].loops);
        else
            tcase_add_test(tc, tests[i].test);
    }
}

TCase *h_tcase(Suite *s, const char *name, double timeout, const h_test *tests, int count)
{
    TCase *tc = tcase_create(name);
    if (timeout >= 0)
        tcase_set_timeout(tc, timeout);
    add_tests(tc, tests, count);
    suite_add_tcase(s, tc);
    return tc;
}

/* The suite that h_suite_main() runs. */
static const h_suite *the_suite;

START_TEST(matches_oracle)
{
    h_check_case(h_family_case(the_suite->family, _i));
}
END_TEST

int h_threads_usable(const char *test)
{
    const char *why = getenv("CLIK_TEST_NO_THREADS");
    if (!why || !*why)
        return 1;
    printf("SKIP %s: %s (CLIK_TEST_NO_THREADS)\n", test, why);
    return 0;
}

/* A context on the CPU path under test with `threads` threads. */
static clik_context *threads_context(int threads)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    opt.cpu_path = h_expected == CLIK_BACKEND_NEON ? CLIK_CPU_NEON : CLIK_CPU_SCALAR;
    opt.threads = threads;
    clik_context *ctx = NULL;
    ck_assert_msg(clik_context_create(&ctx, &opt) == CLIK_OK, "%d threads: %s", threads,
                  clik_context_message(NULL));
    return ctx;
}

/* The family whose cases a suite runs: its own, else the one named as the
 * suite (the LAPAR suites run their cases in tests of their own). */
static const char *suite_family(void)
{
    return the_suite->family ? the_suite->family : the_suite->name;
}

/* The CPU path on 3 threads (an odd split of the rows) gives the bytes of
 * one thread: each channel count at 301 x 167, where the rows are worth
 * splitting, and at 27 x 13, where they are not. */
START_TEST(threads_agree)
{
    const sup_case *c = h_family_case(suite_family(), _i);
    clik_context *one = threads_context(1), *three = threads_context(3);
    static const int sizes[][2] = {{301, 167}, {27, 13}};
    for (int s = 0; s < 2; s++)
        for (int ch = 1; ch <= 4; ch++) {
            if (!(c->channels & (1u << ch)))
                continue;
            sup_case_oracle o;
            clik_status st = sup_case_oracle_run(c, one, sizes[s][0], sizes[s][1], ch,
                                                 SUP_PATTERN_NOISE, 2900u + ch, &o);
            ck_assert_msg(st == CLIK_OK, "%s on 1 thread: %s", c->op, o.message);
            sup_case_result r;
            sup_case_compare(&o, three, SUP_TOL_EXACT, &r);
            sup_case_oracle_free(&o);
            ck_assert_msg(sup_case_passed(&r), "%s %dx%dx%d: 3 threads against 1: %s %s %s", c->op,
                          sizes[s][0], sizes[s][1], ch, clik_status_str(r.status), r.message,
                          r.cmp.detail);
        }
    clik_context_destroy(one);
    clik_context_destroy(three);
}
END_TEST

static Suite *make_the_suite(void)
{
    Suite *s = suite_create(the_suite->name);
    TCase *tc = h_tcase(s, the_suite->name, the_suite->timeout, NULL, 0);
    if (the_suite->family)
        tcase_add_loop_test(tc, matches_oracle, 0, h_family_case_count(the_suite->family));
    /* tests/run.sh sets CLIK_TEST_NO_THREADS where the emulator cannot start a
     * thread (qemu-user here hangs in any pthread_create); the threads are
     * then tested on the native build only, and the run says so. */
    if (h_expected == CLIK_BACKEND_NEON && h_family_case_count(suite_family()) > 0 &&
        h_threads_usable("threads_agree"))
        tcase_add_loop_test(tc, threads_agree, 0, h_family_case_count(suite_family()));
    add_tests(tc, the_suite->tests, the_suite->count);
    return s;
}

int h_suite_main(const h_suite *suite)
{
    the_suite = suite;
    return harness_main_full(make_the_suite, suite->tunings,
                             suite->full_tunings ? suite->full_tunings : suite->tunings);
}

void h_alloc_images(int width, int height, int channels, clik_type type, clik_image *first, ...)
{
    va_list ap;
    va_start(ap, first);
    for (clik_image *m = first; m; m = va_arg(ap, clik_image *))
        ck_assert_int_eq(clik_image_alloc(m, width, height, channels, type), CLIK_OK);
    va_end(ap);
}

void h_free_images(clik_image *first, ...)
{
    va_list ap;
    va_start(ap, first);
    for (clik_image *m = first; m; m = va_arg(ap, clik_image *))
        clik_image_free(m);
    va_end(ap);
}

void h_tuned_context_free(clik_context *ctx)
{
    if (ctx != h_ctx)
        clik_context_destroy(ctx);
}

void h_write_text(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

char *h_tempdir(void)
{
    const char *base = getenv("TMPDIR");
    char templ[512];
    snprintf(templ, sizeof(templ), "%s/clik-test-XXXXXX", base && *base ? base : "/tmp");
    char *dir = mkdtemp(templ);
    return dir ? strdup(dir) : NULL;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void h_rmtree(char *path)
{
    if (path)
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(path);
}

uint8_t *h_default_model_bytes(size_t *n)
{
    const clik_lapar_model *m = clik_lapar_model_default(2);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(clik_lapar_model_write(h_oracle, m, NULL, 0, n), CLIK_OK);
    uint8_t *b = malloc(*n);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(clik_lapar_model_write(h_oracle, m, b, *n, n), CLIK_OK);
    return b;
}
