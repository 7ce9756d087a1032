/*
 * The tuning registry (lib/tuning_keys.h): unknown keys and values out of
 * range are refused with a message naming them; the README's tuning table
 * lists exactly the registry's keys, values and defaults; and on every
 * OpenCL device, each key at the ends of its range (and each choice) still
 * gives the oracle's results for the operations of its family, and returns.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "harness.h"
#include "internal.h"

/* Creates a CPU-only context with the tuning string; returns its status and
 * leaves the create message in msg. */
static clik_status try_tuning(const char *tuning, char *msg, size_t cap)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    opt.tuning = tuning;
    clik_context *ctx = NULL;
    clik_status st = clik_context_create(&ctx, &opt);
    snprintf(msg, cap, "%s", clik_context_message(NULL));
    clik_context_destroy(ctx);
    return st;
}

START_TEST(refused)
{
    static const struct {
        const char *tuning;
        const char *says[2]; /* the message names these */
    } bad[] = {
        {"blur_lcoal=1", {"blur_lcoal", "did you mean 'blur_local'"}},
        {"ssim_variant=locl", {"ssim_variant=locl", "local|direct|rows"}},
        {"ssim_direct_rows=4294967296", {"ssim_direct_rows=4294967296", "1..16"}},
        {"resize_tile_h=1e9", {"resize_tile_h=1e9", "1..256"}},
        {"resize_tile_h=1000000000", {"resize_tile_h", "1..256"}},
        {"blur_row_w=0", {"blur_row_w=0", "1..1024"}},
        {"blur_row_w=-4", {"blur_row_w=-4", NULL}},
        {"blur_row_w= 4", {"blur_row_w", NULL}},
        {"blur_row_w=4x", {"blur_row_w=4x", NULL}},
        {"blur_local=2", {"blur_local=2", "0|1"}},
        {"blur_local=", {"blur_local=", NULL}},
        {"pool_buffers=65", {"pool_buffers=65", "0..64"}},
        {"hist_mode=local,ssim_rows_width=12", {"ssim_rows_width=12", "8|16"}},
        {"nonsense", {"nonsense", "key=value"}},
        {"=1", {"=1", NULL}},
        {"Blur_local=1", {"Blur_local", NULL}},
    };
    char msg[2048];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        clik_status st = try_tuning(bad[i].tuning, msg, sizeof(msg));
        ck_assert_msg(st == CLIK_ERR_INVALID_ARG, "'%s' gave %s, not CLIK_ERR_INVALID_ARG",
                      bad[i].tuning, clik_status_str(st));
        for (int s = 0; s < 2; s++)
            ck_assert_msg(!bad[i].says[s] || strstr(msg, bad[i].says[s]),
                          "'%s': the message does not say '%s': %s", bad[i].tuning, bad[i].says[s],
                          msg);
    }
    /* Good strings: empty pairs are skipped; a later pair wins. */
    static const char *const good[] = {"",
                                       ",",
                                       "blur_local=1,",
                                       "ssim_variant=rows,ssim_variant=local",
                                       "hist_mode=pairs,pairs_min_bytes=0,pool_buffers=0",
                                       "ssim_rows_width=8,resize_tile_w=256"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        ck_assert_msg(try_tuning(good[i], msg, sizeof(msg)) == CLIK_OK, "'%s' refused: %s", good[i],
                      msg);
    /* The variable is checked the same way, and named. */
    setenv("CLIK_TUNE", "ssim_tile_w=999", 1);
    clik_status st = try_tuning(NULL, msg, sizeof(msg));
    unsetenv("CLIK_TUNE");
    ck_assert_int_eq(st, CLIK_ERR_INVALID_ARG);
    ck_assert_msg(strstr(msg, "CLIK_TUNE") && strstr(msg, "ssim_tile_w=999"), "%s", msg);
}
END_TEST

#define TABLE_HEADING "### Tuning keys"

/* The README row of key k: | `name` | values | default | doc | */
static void readme_row(const clik_tune_key *k, char *out, size_t cap)
{
    char values[256];
    clik__tune_values(k, values, sizeof(values));
    /* Markdown tables take a literal | as \|. */
    char escaped[512];
    size_t n = 0;
    for (const char *p = values; *p && n + 3 < sizeof(escaped); p++) {
        if (*p == '|')
            escaped[n++] = '\\';
        escaped[n++] = *p;
    }
    escaped[n] = '\0';
    snprintf(out, cap, "| `%s` | %s | %s | %s |", k->name, escaped, k->def, k->doc);
}

START_TEST(readme_table)
{
    const char *path = getenv("CLIK_README");
    ck_assert_msg(path != NULL, "CLIK_README is not set");
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[len] = '\0';
    char row[1024];
    for (int i = 0; i < CLIK_TUNE_COUNT; i++) {
        readme_row(clik__tune_key(i), row, sizeof(row));
        ck_assert_msg(strstr(text, row), "README.md lacks the tuning row:\n%s", row);
    }
    /* Every row of the table (the rows after its heading, up to the first
     * line that is not a row) names a key of the registry. */
    const char *p = strstr(text, TABLE_HEADING);
    ck_assert_msg(p != NULL, "README.md has no '%s' section", TABLE_HEADING);
    int rows = 0;
    p = strstr(p, "\n|");
    ck_assert_ptr_nonnull(p);
    for (p++; *p == '|'; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
        if (strncmp(p, "| `", 3) != 0)
            continue; /* the header and its rule */
        const char *name = p + 3, *end = strchr(name, '`');
        ck_assert_ptr_nonnull(end);
        int known = 0;
        for (int i = 0; i < CLIK_TUNE_COUNT; i++)
            known |= strlen(clik__tune_key(i)->name) == (size_t)(end - name) &&
                     strncmp(clik__tune_key(i)->name, name, (size_t)(end - name)) == 0;
        ck_assert_msg(known, "README.md's tuning table has '%.*s', which is not a key",
                      (int)(end - name), name);
        rows++;
    }
    ck_assert_int_eq(rows, CLIK_TUNE_COUNT);
}
END_TEST

/* The values to try for key k: both ends of the range; in full runs also
 * one odd value inside and every choice (the family suites' forced
 * variants take inner choices in CI too). */
static int key_values(const clik_tune_key *k, long *v)
{
    int n = 0;
    v[n++] = k->min;
    v[n++] = k->max;
    if (!h_full)
        return n;
    if (k->kind == CLIK_TUNE_KIND_CHOICE)
        for (long c = k->min + 1; c < k->max; c++)
            v[n++] = c;
    else if (k->kind == CLIK_TUNE_KIND_INT && k->max - k->min > 4)
        v[n++] = k->min + 2 + ((k->min + 2) % 2 == 0);
    return n;
}

/* Families whose cases run for key k. */
static int key_families(const clik_tune_key *k, const char **out)
{
    if (strcmp(k->family, "*") != 0) {
        out[0] = k->family;
        return 1;
    }
    out[0] = "filter";
    out[1] = "pyramid";
    return 2;
}

/* The choice or number as text. */
static void value_text(const clik_tune_key *k, long v, char *out, size_t cap)
{
    if (k->kind != CLIK_TUNE_KIND_CHOICE) {
        snprintf(out, cap, "%ld", v);
        return;
    }
    const char *p = k->choices;
    for (long i = 0; i < v; i++)
        p = strchr(p, '|') + 1;
    size_t n = strcspn(p, "|");
    snprintf(out, cap, "%.*s", (int)n, p);
}

START_TEST(extremes)
{
    const clik_tune_key *k = clik__tune_key(_i);
    long values[16];
    const int nv = key_values(k, values);
    const char *families[2];
    const int nf = key_families(k, families);
    /* Sizes up to 641 x 479: strips, bands and tiles all reach their edges
     * (every size in full runs). The networks and the flow, hundreds of
     * operations a pixel, stop at 128 x 64 outside full runs (a tile's
     * edge is reached there: their suites run the larger sizes). */
    const int heavy = strncmp(k->family, "lapar_", 6) == 0 || strcmp(k->family, "flow") == 0;
    int nsizes = h_size_count() < 6 || h_full ? h_size_count() : 6;
    if (heavy && !h_full && nsizes > 5)
        nsizes = 5;
    for (int v = 0; v < nv; v++) {
        char text[64], tuning[128];
        value_text(k, values[v], text, sizeof(text));
        snprintf(tuning, sizeof(tuning), "%s=%s", k->name, text);
        clik_context *ctx = h_tuned_context(tuning);
        for (int f = 0; f < nf; f++)
            for (int c = 0; c < h_family_case_count(families[f]); c++) {
                const sup_case *cs = h_family_case(families[f], c);
                int nch = 0;
                for (int ch = 1; ch <= 4; ch *= 2)
                    nch += (cs->channels & (1u << ch)) != 0;
                for (int s = 0; s < nsizes; s++)
                    for (int ch = 1, k = 0; ch <= 4; ch *= 2) {
                        if (!(cs->channels & (1u << ch)))
                            continue;
                        /* As a forced variant does: one channel count per
                         * size in turn (each count is a program of its own on
                         * most families), every count at every size in full
                         * runs. */
                        if (!h_full && nch > 1 && k++ != s % nch)
                            continue;
                        const int w = sup_test_sizes[s][0], h = sup_test_sizes[s][1];
                        const sup_pattern p = (sup_pattern)((s + ch) % SUP_PATTERN_COUNT);
                        sup_case_result r;
                        h_case_check(cs, ctx, w, h, ch, p, 2000u + s, &r);
                        ck_assert_msg(r.status == CLIK_OK, "%s %s %dx%dx%d on %s: %s: %s", tuning,
                                      cs->op, w, h, ch, h_backend, clik_status_str(r.status),
                                      r.message);
                        ck_assert_msg(sup_case_passed(&r), "%s %s %dx%dx%d %s on %s: %s", tuning,
                                      cs->op, w, h, ch, sup_pattern_name(p), h_backend,
                                      r.cmp.detail);
                    }
            }
        h_tuned_context_free(ctx);
    }
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("tuning");
    TCase *tc = tcase_create("registry");
    const char *backend = getenv("CLIK_TEST_BACKEND");
    if (!backend || strcmp(backend, "opencl") != 0) {
        tcase_add_test(tc, refused);
        tcase_add_test(tc, readme_table);
    } else {
        tcase_set_timeout(tc, 600);
        tcase_add_loop_test(tc, extremes, 0, CLIK_TUNE_COUNT);
    }
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_main(make_suite, NULL);
}
