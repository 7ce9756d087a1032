/*
 * On-disk cache of program binaries. One file per key:
 *   "CLIKBIN1" | u32 key length | u64 binary length | 32-hex binary hash |
 *   key | binary
 * Writers write a temporary file in the same folder and rename it, so that
 * readers in other processes see a whole entry or none; readers check every
 * field and treat a mismatch as a miss.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define MAGIC        "CLIKBIN1"
#define HEADER_BYTES (8 + 4 + 8 + 32)

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static char *entry_path(const char *dir, const char *key)
{
    char hash[33];
    clik__hash_hex(key, strlen(key), hash);
    clik_strbuf sb = {0};
    clik__sb_printf(&sb, "%s/%s.bin", dir, hash);
    if (sb.failed) {
        clik__sb_free(&sb);
        return NULL;
    }
    return sb.data;
}

/* mkdir -p that tolerates other processes creating the same folders. */
static int make_dirs(const char *dir)
{
    char *path = clik__strdup(dir);
    if (!path)
        return -1;
    for (char *p = path + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(path, 0700) != 0 && errno != EEXIST) {
                free(path);
                return -1;
            }
            *p = saved;
            if (saved == '\0')
                break;
        }
    }
    free(path);
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

clik_status clik__cache_load(const char *dir, const char *key, unsigned char **binary,
                             size_t *length)
{
    *binary = NULL;
    *length = 0;
    char *path = entry_path(dir, key);
    if (!path)
        return CLIK_ERR_NO_MEMORY;
    char *data;
    size_t size;
    clik_status st = clik__read_file(path, &data, &size);
    free(path);
    if (st != CLIK_OK)
        return st == CLIK_ERR_NO_MEMORY ? st : CLIK_ERR_IO;

    const unsigned char *p = (const unsigned char *)data;
    size_t key_len = strlen(key);
    st = CLIK_ERR_FILE_FORMAT;
    if (size >= HEADER_BYTES && memcmp(p, MAGIC, 8) == 0 && get_le(p + 8, 4) == key_len) {
        uint64_t bin_len = get_le(p + 12, 8);
        if (size - HEADER_BYTES >= key_len && bin_len == size - HEADER_BYTES - key_len &&
            bin_len > 0 && memcmp(p + HEADER_BYTES, key, key_len) == 0) {
            const unsigned char *bin = p + HEADER_BYTES + key_len;
            char hash[33];
            clik__hash_hex(bin, (size_t)bin_len, hash);
            if (memcmp(hash, p + 20, 32) == 0) {
                unsigned char *copy = malloc((size_t)bin_len);
                if (copy) {
                    memcpy(copy, bin, (size_t)bin_len);
                    *binary = copy;
                    *length = (size_t)bin_len;
                    st = CLIK_OK;
                } else {
                    st = CLIK_ERR_NO_MEMORY;
                }
            }
        }
    }
    free(data);
    return st;
}

static int write_all(int fd, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

clik_status clik__cache_store(const char *dir, const char *key, const unsigned char *binary,
                              size_t length)
{
    if (make_dirs(dir) != 0)
        return CLIK_ERR_IO;
    char *path = entry_path(dir, key);
    if (!path)
        return CLIK_ERR_NO_MEMORY;
    clik_strbuf tmp = {0};
    clik__sb_printf(&tmp, "%s.tmp.XXXXXX", path);
    if (tmp.failed) {
        free(path);
        clik__sb_free(&tmp);
        return CLIK_ERR_NO_MEMORY;
    }
    int fd = mkstemp(tmp.data);
    if (fd < 0) {
        free(path);
        clik__sb_free(&tmp);
        return CLIK_ERR_IO;
    }
    unsigned char header[HEADER_BYTES];
    size_t key_len = strlen(key);
    memcpy(header, MAGIC, 8);
    put_le(header + 8, key_len, 4);
    put_le(header + 12, length, 8);
    char hash[33];
    clik__hash_hex(binary, length, hash);
    memcpy(header + 20, hash, 32);
    int bad = write_all(fd, header, sizeof(header)) || write_all(fd, key, key_len) ||
              write_all(fd, binary, length);
    bad |= close(fd) != 0;
    if (!bad)
        bad = rename(tmp.data, path) != 0;
    if (bad)
        unlink(tmp.data);
    free(path);
    clik__sb_free(&tmp);
    return bad ? CLIK_ERR_IO : CLIK_OK;
}

char *clik__cache_dir(const char *option, int enabled)
{
    if (!enabled)
        return NULL;
    if (option && *option)
        return clik__strdup(option);
    const char *env = getenv("CLIK_CACHE_DIR");
    if (env && *env)
        return clik__strdup(env);
    clik_strbuf sb = {0};
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg == '/')
        clik__sb_printf(&sb, "%s/clik", xdg);
    else if (home && *home == '/')
        clik__sb_printf(&sb, "%s/.cache/clik", home);
    else
        return NULL; /* e.g. Android apps: the caller sets a folder */
    if (sb.failed) {
        clik__sb_free(&sb);
        return NULL;
    }
    return sb.data;
}
