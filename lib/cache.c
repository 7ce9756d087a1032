/*
 * On-disk cache of program binaries. One file per key, named by the key's
 * hash, little-endian integers:
 *   "CLIKBIN2" | u32 key length | u64 binary length | key | binary |
 *   32-hex hash of all the bytes before it | "CLIKEND2"
 * The hash covers the header and the key as well as the binary and is
 * written last with the end marker, and the lengths must add up to the
 * file's size: a cut anywhere, a flipped byte, a foreign key or a header
 * from another entry is a rejected entry, never bytes for the driver.
 *
 * Writers write a temporary file in the same folder and rename it, so that
 * readers in other processes see a whole entry or none. A temporary is named
 * after its entry and its writer's pid and stays locked (flock) while it is
 * written; each store removes the temporaries that killed writers left.
 *
 * Entries are opened without following links or blocking, and only regular
 * files of a bounded size are read: a FIFO, a device, a link or a folder in
 * an entry's place is a rejected entry, which a store replaces (a folder only
 * when it is empty).
 *
 * A valid entry can still hold a binary that crashes the driver (a forged
 * entry, or a driver that cannot load its own output): while the driver
 * takes a binary, the loader holds a locked marker "ENTRY.load". A marker
 * that nobody holds was left by a loader that died there, so the entry is
 * dropped and rebuilt instead of crashing every later run.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define MAGIC         "CLIKBIN2"
#define END_MARK      "CLIKEND2"
#define HEADER_BYTES  (8 + 4 + 8)
#define TRAILER_BYTES (32 + 8)

/* Program binaries of clik's kernels are tens to hundreds of KiB (PoCL's
 * largest is about 215 KiB). The bound keeps a damaged or foreign file from
 * making a load allocate and read gigabytes; a binary past it is not stored. */
#define MAX_BINARY ((size_t)64 << 20)

/* A temporary whose writer is gone (nobody holds its lock) and that nobody
 * touched for this long was left by a killed writer. Writers lock it right
 * after creating it and rename it right after closing it, so the grace only
 * has to cover two system calls and a stalled scheduler. */
#define ABANDONED_SECONDS 60
/* Where locks cannot be tested (some network file systems) age alone
 * decides: writing an entry takes well under a second. */
#define STALE_SECONDS 600

#define HASH_DIGITS 32

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

/* dir/HASH.bin, HASH being the key's. */
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

/* 1 for HASH.bin.tmp.*: the temporaries of this cache (HASH being 32 hex
 * digits), and nothing else that may share the folder. */
static int is_temp_name(const char *name)
{
    for (int i = 0; i < HASH_DIGITS; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return 0;
    return strncmp(name + HASH_DIGITS, ".bin.tmp.", 9) == 0;
}

/* Opens an existing file for reading: never blocks (a FIFO), never follows
 * a link, never becomes a controlling terminal. */
static int open_quietly(const char *path)
{
    return open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
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

/* Creates ENTRY.tmp.PID.XXXXXX next to the entry, not inherited by
 * children, and locks it while it stays open (on a file system without locks
 * age alone tells when it is stale). Returns the descriptor. */
static int make_temp(const char *entry, char **tmp_path)
{
    *tmp_path = NULL;
    clik_strbuf tmp = {0};
    clik__sb_printf(&tmp, "%s.tmp.%ld.XXXXXX", entry, (long)getpid());
    if (tmp.failed) {
        clik__sb_free(&tmp);
        return -1;
    }
    int fd = mkstemp(tmp.data);
    if (fd < 0) {
        clik__sb_free(&tmp);
        return -1;
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    flock(fd, LOCK_EX | LOCK_NB);
    *tmp_path = tmp.data;
    return fd;
}

/* ---- loading ------------------------------------------------------------- */

/* Reads the whole file behind fd if it is a regular file of at most max
 * bytes. CLIK_ERR_FILE_FORMAT for anything else. */
static clik_status read_entry(int fd, size_t max, unsigned char **data, size_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return CLIK_ERR_IO;
    if (!S_ISREG(st.st_mode) || st.st_size < 0 || (unsigned long long)st.st_size > max)
        return CLIK_ERR_FILE_FORMAT;
    /* A regular file after all: plain blocking reads (O_NONBLOCK was only
     * for opening; some file systems would honour it on reads). */
    int flags = fcntl(fd, F_GETFL);
    if (flags != -1)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    size_t n = (size_t)st.st_size;
    unsigned char *buf = malloc(n ? n : 1);
    if (!buf)
        return CLIK_ERR_NO_MEMORY;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(buf);
            return r < 0 ? CLIK_ERR_IO : CLIK_ERR_FILE_FORMAT; /* EOF: cut while read */
        }
        got += (size_t)r;
    }
    *data = buf;
    *size = n;
    return CLIK_OK;
}

/* Checks a whole entry; on success the binary is p[*offset ..] of *length
 * bytes. */
static int entry_valid(const unsigned char *p, size_t size, const char *key, size_t *offset,
                       size_t *length)
{
    size_t key_len = strlen(key);
    if (size < HEADER_BYTES + TRAILER_BYTES || memcmp(p, MAGIC, 8) != 0 ||
        get_le(p + 8, 4) != key_len)
        return 0;
    size_t body = size - HEADER_BYTES - TRAILER_BYTES;
    uint64_t bin_len = get_le(p + 12, 8);
    if (key_len >= body || bin_len != body - key_len || memcmp(p + HEADER_BYTES, key, key_len) != 0)
        return 0;
    size_t hashed = size - TRAILER_BYTES;
    char hash[33];
    clik__hash_hex(p, hashed, hash);
    if (memcmp(p + hashed, hash, 32) != 0 || memcmp(p + hashed + 32, END_MARK, 8) != 0)
        return 0;
    *offset = HEADER_BYTES + key_len;
    *length = (size_t)bin_len;
    return 1;
}

clik_status clik__cache_load(const char *dir, const char *key, unsigned char **binary,
                             size_t *length)
{
    *binary = NULL;
    *length = 0;
    size_t key_len = strlen(key);
    if ((uint64_t)key_len > UINT32_MAX)
        return CLIK_ERR_IO;
    char *path = entry_path(dir, key);
    if (!path)
        return CLIK_ERR_NO_MEMORY;
    int fd = open_quietly(path);
    int err = errno;
    free(path);
    if (fd < 0) {
        /* Missing: a miss. Present but not openable as a file (a link,
         * no permission, a socket): a rejected entry. */
        return err == ENOENT || err == ENOTDIR || err == ENOMEM || err == EMFILE || err == ENFILE
                   ? CLIK_ERR_IO
                   : CLIK_ERR_FILE_FORMAT;
    }
    unsigned char *data = NULL;
    size_t size = 0;
    clik_status st =
        read_entry(fd, HEADER_BYTES + key_len + MAX_BINARY + TRAILER_BYTES, &data, &size);
    close(fd);
    if (st != CLIK_OK)
        return st;
    size_t offset, bin_len;
    if (!entry_valid(data, size, key, &offset, &bin_len)) {
        free(data);
        return CLIK_ERR_FILE_FORMAT;
    }
    /* The binary moves to the front of the buffer, which then shrinks. */
    memmove(data, data + offset, bin_len);
    unsigned char *shrunk = realloc(data, bin_len);
    *binary = shrunk ? shrunk : data;
    *length = bin_len;
    return CLIK_OK;
}

/* ---- guarding the driver ---------------------------------------------------- */

int clik__cache_guard_begin(const char *dir, const char *key, int *token)
{
    *token = -1;
    char *entry = entry_path(dir, key);
    if (!entry)
        return 0;
    size_t n = strlen(entry) + sizeof(".load");
    char *marker = malloc(n);
    int crashed = 0;
    if (marker) {
        snprintf(marker, n, "%s.load", entry);
        int fd = open(marker, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            flock(fd, LOCK_SH); /* ours: other loaders see it held */
            *token = fd;
        } else if (errno == EEXIST) {
            /* Another loader's marker, or the marker of one that died. */
            fd = open(marker, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
            struct stat held, now;
            if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &held) == 0 &&
                stat(marker, &now) == 0 && held.st_ino == now.st_ino && held.st_dev == now.st_dev) {
                /* Nobody holds it, and no loader that finished unlinked it
                 * meanwhile: its loader died inside the driver. */
                crashed = 1;
                unlink(entry);
                unlink(marker);
            }
            if (fd >= 0)
                close(fd);
        }
        free(marker);
    }
    free(entry);
    return crashed;
}

void clik__cache_guard_end(const char *dir, const char *key, int token)
{
    if (token < 0)
        return;
    char *entry = entry_path(dir, key);
    if (entry) {
        size_t n = strlen(entry) + sizeof(".load");
        char *marker = malloc(n);
        if (marker) {
            snprintf(marker, n, "%s.load", entry);
            unlink(marker); /* before the lock goes: see clik__cache_guard_begin */
            free(marker);
        }
        free(entry);
    }
    close(token);
}

/* ---- storing ------------------------------------------------------------- */

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

/* 1 when the temporary `name` in the folder is abandoned: its writer no
 * longer holds its lock and it is past the grace, or locks cannot be
 * tested and it is long stale. */
static int temp_abandoned(int dirfd, const char *name, time_t now)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int abandoned = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        double age = difftime(now, st.st_mtime);
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            abandoned = age > ABANDONED_SECONDS;
        else if (errno != EWOULDBLOCK)
            abandoned = age > STALE_SECONDS;
    }
    close(fd);
    return abandoned;
}

/* Removes the temporaries of writers that were killed. Only names of the
 * cache's own shape are touched, whatever else shares the folder. */
static void sweep(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    int dfd = dirfd(d);
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)))
        if (is_temp_name(e->d_name) && temp_abandoned(dfd, e->d_name, now))
            unlinkat(dfd, e->d_name, 0);
    closedir(d);
}

/* The whole entry for key and binary, in memory. */
static unsigned char *encode_entry(const char *key, const unsigned char *binary, size_t length,
                                   size_t *size)
{
    size_t key_len = strlen(key);
    size_t hashed = HEADER_BYTES + key_len + length;
    unsigned char *p = malloc(hashed + TRAILER_BYTES);
    if (!p)
        return NULL;
    memcpy(p, MAGIC, 8);
    put_le(p + 8, key_len, 4);
    put_le(p + 12, length, 8);
    memcpy(p + HEADER_BYTES, key, key_len);
    memcpy(p + HEADER_BYTES + key_len, binary, length);
    char hash[33];
    clik__hash_hex(p, hashed, hash);
    memcpy(p + hashed, hash, 32);
    memcpy(p + hashed + 32, END_MARK, 8);
    *size = hashed + TRAILER_BYTES;
    return p;
}

/* rename() that also replaces an empty folder in the entry's place. */
static int replace(const char *from, const char *to)
{
    if (rename(from, to) == 0)
        return 0;
    if (errno != EISDIR && errno != ENOTEMPTY && errno != EEXIST)
        return -1;
    return rmdir(to) == 0 ? rename(from, to) : -1;
}

clik_status clik__cache_store(const char *dir, const char *key, const unsigned char *binary,
                              size_t length)
{
    size_t key_len = strlen(key);
    if (length == 0 || length > MAX_BINARY || (uint64_t)key_len > UINT32_MAX)
        return CLIK_ERR_INVALID_ARG;
    if (make_dirs(dir) != 0)
        return CLIK_ERR_IO;
    sweep(dir);
    size_t size;
    unsigned char *data = encode_entry(key, binary, length, &size);
    char *path = entry_path(dir, key);
    if (!data || !path) {
        free(data);
        free(path);
        return CLIK_ERR_NO_MEMORY;
    }
    char *tmp = NULL;
    int fd = make_temp(path, &tmp);
    int bad = fd < 0;
    if (!bad) {
        bad = write_all(fd, data, size);
        bad |= close(fd) != 0;
        if (!bad)
            bad = replace(tmp, path) != 0;
        if (bad)
            unlink(tmp);
    }
    free(tmp);
    free(path);
    free(data);
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
