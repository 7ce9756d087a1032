/*
 * Kernel sources from a folder, with `#include "x.h"` resolved by inlining,
 * so that a program is one self-contained string (the form the build embeds
 * and the form whose hash keys the binary cache). Used at build time by the
 * embedding tool and at run time for CLIK_KERNEL_DIR.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_DEPTH 8
#define MAX_FILES 32

typedef struct resolver {
    const char *dir;
    char *seen[MAX_FILES];
    int nseen;
    char *err;
    size_t errlen;
} resolver;

/* If line is `#include "name"`, copies name into out and returns 1. */
static int include_name(const char *line, size_t len, char *out, size_t outlen)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i == len || line[i] != '#')
        return 0;
    i++;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (len - i < 7 || strncmp(line + i, "include", 7) != 0)
        return 0;
    i += 7;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i == len || line[i] != '"')
        return 0;
    size_t start = ++i;
    while (i < len && line[i] != '"')
        i++;
    if (i == len || i - start == 0 || i - start >= outlen)
        return 0;
    memcpy(out, line + start, i - start);
    out[i - start] = '\0';
    return 1;
}

static clik_status resolve_file(resolver *r, const char *file, clik_strbuf *out, int depth)
{
    if (depth > MAX_DEPTH) {
        snprintf(r->err, r->errlen, "%s: includes nested too deeply", file);
        return CLIK_ERR_FILE_FORMAT;
    }
    if (strchr(file, '/') || strstr(file, "..")) {
        snprintf(r->err, r->errlen, "%s: only files of the kernel folder may be included", file);
        return CLIK_ERR_FILE_FORMAT;
    }
    for (int i = 0; i < r->nseen; i++)
        if (strcmp(r->seen[i], file) == 0)
            return CLIK_OK; /* each header once */
    if (r->nseen == MAX_FILES) {
        snprintf(r->err, r->errlen, "%s: too many included files", file);
        return CLIK_ERR_FILE_FORMAT;
    }
    r->seen[r->nseen] = clik__strdup(file);
    if (!r->seen[r->nseen])
        return CLIK_ERR_NO_MEMORY;
    r->nseen++;

    clik_strbuf path = {0};
    clik__sb_printf(&path, "%s/%s", r->dir, file);
    char *text;
    size_t len;
    clik_status st = path.failed ? CLIK_ERR_NO_MEMORY : clik__read_file(path.data, &text, &len);
    if (st != CLIK_OK) {
        snprintf(r->err, r->errlen, "%s: cannot read", path.data ? path.data : file);
        clik__sb_free(&path);
        return st;
    }
    clik__sb_free(&path);

    const char *p = text, *end = text + len;
    while (p < end && st == CLIK_OK) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t line_len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char name[128];
        if (include_name(p, line_len, name, sizeof(name))) {
            st = resolve_file(r, name, out, depth + 1);
        } else {
            clik__sb_append(out, p, line_len);
            clik__sb_append(out, "\n", 1);
        }
        p += line_len + (nl ? 1 : 0);
    }
    free(text);
    if (st == CLIK_OK && out->failed)
        st = CLIK_ERR_NO_MEMORY;
    return st;
}

clik_status clik__kernel_source_load(const char *dir, const char *name, clik_strbuf *out, char *err,
                                     size_t errlen)
{
    resolver r = {.dir = dir, .err = err, .errlen = errlen};
    if (errlen)
        err[0] = '\0';
    clik_strbuf file = {0};
    clik__sb_printf(&file, "%s.cl", name);
    clik_status st = file.failed ? CLIK_ERR_NO_MEMORY : resolve_file(&r, file.data, out, 0);
    clik__sb_free(&file);
    for (int i = 0; i < r.nseen; i++)
        free(r.seen[i]);
    return st;
}
