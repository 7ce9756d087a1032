/* String buffers, files and hashing. SPDX-License-Identifier: BSD-2-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

static int sb_reserve(clik_strbuf *sb, size_t extra)
{
    if (sb->failed)
        return 0;
    if (sb->len + extra + 1 <= sb->cap)
        return 1;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + extra + 1) {
        if (cap > SIZE_MAX / 2) {
            sb->failed = 1;
            return 0;
        }
        cap *= 2;
    }
    char *data = realloc(sb->data, cap);
    if (!data) {
        sb->failed = 1;
        return 0;
    }
    sb->data = data;
    sb->cap = cap;
    return 1;
}

void clik__sb_append(clik_strbuf *sb, const char *text, size_t len)
{
    if (!sb_reserve(sb, len))
        return;
    memcpy(sb->data + sb->len, text, len);
    sb->len += len;
    sb->data[sb->len] = '\0';
}

void clik__sb_vprintf(clik_strbuf *sb, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    char small[256];
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    if (n >= 0 && (size_t)n < sizeof(small)) {
        clik__sb_append(sb, small, (size_t)n);
    } else if (n >= 0 && sb_reserve(sb, (size_t)n)) {
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, again);
        sb->len += (size_t)n;
    }
    va_end(again);
}

void clik__sb_printf(clik_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    clik__sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

void clik__sb_free(clik_strbuf *sb)
{
    free(sb->data);
    memset(sb, 0, sizeof(*sb));
}

char *clik__strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int clik__strcasestr(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 0;
    for (const char *h = haystack; *h; h++) {
        size_t i = 0;
        while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

clik_status clik__read_file(const char *path, char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return CLIK_ERR_IO;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
        (unsigned long long)st.st_size >= SIZE_MAX) {
        fclose(f);
        return CLIK_ERR_IO;
    }
    size_t size = (size_t)st.st_size;
    char *buf = malloc(size + 1);
    if (!buf) {
        fclose(f);
        return CLIK_ERR_NO_MEMORY;
    }
    size_t got = fread(buf, 1, size, f);
    int bad = ferror(f) || got != size;
    fclose(f);
    if (bad) {
        free(buf);
        return CLIK_ERR_IO;
    }
    buf[size] = '\0';
    *data = buf;
    *len = size;
    return CLIK_OK;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

void clik__hash_hex(const void *data, size_t len, char out[33])
{
    /* Two independent 64-bit lanes: FNV-1a, and a multiply-rotate lane. */
    const unsigned char *p = data;
    uint64_t a = 0xcbf29ce484222325ull, b = 0x9e3779b97f4a7c15ull ^ (uint64_t)len;
    for (size_t i = 0; i < len; i++) {
        a = (a ^ p[i]) * 0x100000001b3ull;
        b = (b + p[i] + 1) * 0xff51afd7ed558ccdull;
        b = (b << 31) | (b >> 33);
    }
    a = mix64(a ^ (uint64_t)len);
    b = mix64(b);
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
}
