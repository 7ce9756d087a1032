/*
 * Tuning strings ("key=value,...") checked against the registry of
 * lib/tuning_keys.h: an unknown key or a value out of its range is an error
 * that names it, never a silent default.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const clik_tune_key registry[CLIK_TUNE_COUNT] = {
#define CLIK_TUNE_KEY(id, name, family, kind, min, max, choices, def, doc)                         \
    {name, family, CLIK_TUNE_KIND_##kind, min, max, choices, def, doc},
#include "tuning_keys.h"
#undef CLIK_TUNE_KEY
};

const clik_tune_key *clik__tune_key(int id)
{
    return id >= 0 && id < CLIK_TUNE_COUNT ? &registry[id] : NULL;
}

long clik__tune(const clik_context *ctx, clik_tune_id id, long def)
{
    return ctx->tune_set[id] ? ctx->tune[id] : def;
}

int clik__tune_given(const clik_context *ctx, clik_tune_id id)
{
    return ctx->tune_set[id];
}

void clik__tune_values(const clik_tune_key *k, char *out, size_t cap)
{
    switch (k->kind) {
    case CLIK_TUNE_KIND_FLAG: snprintf(out, cap, "0|1"); break;
    case CLIK_TUNE_KIND_CHOICE: snprintf(out, cap, "%s", k->choices); break;
    default: snprintf(out, cap, "%ld..%ld", k->min, k->max); break;
    }
}

/* Index of `text` (len bytes) among the '|'-separated choices, or -1. */
static int choice_index(const char *choices, const char *text, size_t len)
{
    int i = 0;
    for (const char *p = choices;; i++) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == len && memcmp(p, text, len) == 0)
            return i;
        if (!bar)
            return -1;
        p = bar + 1;
    }
}

/* A whole decimal integer within [min, max]. */
static int parse_int(const char *text, size_t len, long min, long max, long *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof(buf))
        return 0;
    memcpy(buf, text, len);
    buf[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if (!(buf[i] >= '0' && buf[i] <= '9') && !(i == 0 && buf[i] == '-'))
            return 0;
    errno = 0;
    char *end;
    long v = strtol(buf, &end, 10);
    if (errno || *end || v < min || v > max)
        return 0;
    *out = v;
    return 1;
}

static int find_key(const char *name, size_t len)
{
    for (int i = 0; i < CLIK_TUNE_COUNT; i++)
        if (strlen(registry[i].name) == len && memcmp(registry[i].name, name, len) == 0)
            return i;
    return -1;
}

/* The known key nearest to an unknown one (one edit or a swap away), for
 * the message. */
static const char *near_key(const char *name, size_t len)
{
    for (int i = 0; i < CLIK_TUNE_COUNT; i++) {
        const char *k = registry[i].name;
        size_t n = strlen(k), a = 0;
        while (a < n && a < len && k[a] == name[a])
            a++;
        size_t b = 0;
        while (b < n - a && b < len - a && k[n - 1 - b] == name[len - 1 - b])
            b++;
        size_t rest_k = n - a - b, rest_n = len - a - b;
        if ((rest_k <= 1 && rest_n <= 1) ||
            (rest_k == 2 && rest_n == 2 && k[a] == name[a + 1] && k[a + 1] == name[a]))
            return k;
    }
    return NULL;
}

clik_status clik__tune_parse(clik_context *ctx, const char *text, const char *source)
{
    for (const char *p = text; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (len > 0) {
            if (!eq || eq == p)
                return clik__fail(NULL, CLIK_ERR_INVALID_ARG,
                                  "%s: '%.*s' is not key=value (pairs are separated by commas)",
                                  source, (int)(len > 64 ? 64 : len), p);
            size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
            int id = find_key(p, klen);
            if (id < 0) {
                const char *near = near_key(p, klen);
                return clik__fail(NULL, CLIK_ERR_INVALID_ARG,
                                  "%s: unknown tuning key '%.*s'%s%s%s (the README lists them)",
                                  source, (int)(klen > 64 ? 64 : klen), p,
                                  near ? "; did you mean '" : "", near ? near : "",
                                  near ? "'?" : "");
            }
            const clik_tune_key *k = &registry[id];
            const char *value = eq + 1;
            long v;
            int ok = k->kind == CLIK_TUNE_KIND_CHOICE
                         ? (v = choice_index(k->choices, value, vlen)) >= 0
                         : parse_int(value, vlen, k->min, k->max, &v);
            if (!ok) {
                char values[160];
                clik__tune_values(k, values, sizeof(values));
                return clik__fail(NULL, CLIK_ERR_INVALID_ARG, "%s: %s=%.*s: expected %s%s", source,
                                  k->name, (int)(vlen > 64 ? 64 : vlen), value,
                                  k->kind == CLIK_TUNE_KIND_INT ? "an integer in " : "", values);
            }
            ctx->tune[id] = v;
            ctx->tune_set[id] = 1;
        }
        p = end ? end + 1 : NULL;
    }
    return CLIK_OK;
}

long clik__band_rows(const clik_context *ctx, int id, long rows)
{
    const long groups = (long)ctx->dev.compute_units * 4;
    const long n =
        clik__tune(ctx, (clik_tune_id)id, (rows + groups - 1) / (groups > 0 ? groups : 1));
    return n < 1 ? 1 : n;
}
