/*
 * Image file I/O: choice of format by extension, argument checks, opening
 * files for reading and the write-to-a-temporary-then-rename rule shared by
 * every writer. The formats themselves live in png.c, jpeg.c, pnm.c, npy.c,
 * flo.c.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imageio_private.h"

/* The sticky bit: XSI, not in the POSIX base the build asks for; its value
 * is the same on every system. */
#ifndef S_ISVTX
#define S_ISVTX 01000
#endif

typedef enum image_format {
    FORMAT_UNKNOWN,
    FORMAT_PNG,
    FORMAT_JPEG,
    FORMAT_PGM,
    FORMAT_PPM,
    FORMAT_PNM,
    FORMAT_NPY,
    FORMAT_FLO,
} image_format;

static const struct {
    const char *ext;
    image_format format;
} extensions[] = {
    {"png", FORMAT_PNG}, {"jpg", FORMAT_JPEG}, {"jpeg", FORMAT_JPEG}, {"pgm", FORMAT_PGM},
    {"ppm", FORMAT_PPM}, {"pnm", FORMAT_PNM},  {"npy", FORMAT_NPY},   {"flo", FORMAT_FLO},
};

/* ---- small helpers ------------------------------------------------------- */

clik_status clikio__fail(char *err, size_t errlen, clik_status st, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        /* Messages are one line even when a path or a library message is not. */
        for (char *p = err; *p; p++) {
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        }
    }
    return st;
}

static void clear_message(char *err, size_t errlen)
{
    if (err && errlen > 0)
        err[0] = '\0';
}

clik_status clikio__check_dims(const char *path, const char *kind, uint64_t width, uint64_t height,
                               char *err, size_t errlen)
{
    if (width == 0 || height == 0)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: %s header gives an empty image (%llux%llu)", path, kind,
                            (unsigned long long)width, (unsigned long long)height);
    if (width > CLIKIO_MAX_DIM || height > CLIKIO_MAX_DIM || width * height > CLIKIO_MAX_PIXELS)
        return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                            "%s: %s header claims %llux%llu pixels, more than the limit of "
                            "%d per side and %llu in all",
                            path, kind, (unsigned long long)width, (unsigned long long)height,
                            CLIKIO_MAX_DIM, (unsigned long long)CLIKIO_MAX_PIXELS);
    return CLIK_OK;
}

int clikio__host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

static int ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int same_ignoring_case(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b))
            return 0;
    }
    return *a == *b;
}

static image_format format_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot)
        return FORMAT_UNKNOWN;
    for (size_t i = 0; i < sizeof(extensions) / sizeof(extensions[0]); i++) {
        if (same_ignoring_case(dot + 1, extensions[i].ext))
            return extensions[i].format;
    }
    return FORMAT_UNKNOWN;
}

int clikio_is_stdout(const char *path)
{
    const size_t n = strlen(path);
    if (n == 1 && path[0] == '-')
        return 1;
    if (n < 3 || strcmp(path + n - 2, ":-") != 0)
        return 0;
    for (size_t i = 0; i < sizeof(extensions) / sizeof(extensions[0]); i++)
        if (strlen(extensions[i].ext) == n - 2 && strncasecmp(path, extensions[i].ext, n - 2) == 0)
            return 1;
    return 0;
}

/* The format an output is written in: "-" PNG, "EXT:-" EXT's, else the
 * extension's. */
static image_format output_format(const char *path)
{
    if (strcmp(path, "-") == 0)
        return FORMAT_PNG;
    if (clikio_is_stdout(path)) {
        char ext[8];
        snprintf(ext, sizeof(ext), "x.%.*s", (int)(strlen(path) - 2), path);
        return format_of(ext);
    }
    return format_of(path);
}

int clikio_writes_npy(const char *path)
{
    return output_format(path) == FORMAT_NPY;
}

static clik_status unknown_extension(const char *path, char *err, size_t errlen)
{
    return clikio__fail(err, errlen, CLIK_ERR_INVALID_ARG,
                        "%s: unknown image file extension (use .png, .jpg, .jpeg, .pgm, .ppm, "
                        ".pnm, .npy or, for flows, .flo)",
                        path);
}

/* ---- reading --------------------------------------------------------------- */

static clik_status unknown_format(const char *path, char *err, size_t errlen)
{
    return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                        "%s: neither its first bytes nor its extension name a format clik reads "
                        "(PNG, JPEG, PGM/PPM, NumPy .npy, Middlebury .flo)",
                        path);
}

clik_status clikio__open_read(const char *path, FILE **fp, int64_t *size, char *err, size_t errlen)
{
    *fp = NULL;
    *size = -1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat info;
    if (fstat(fileno(f), &info) != 0) {
        int e = errno;
        fclose(f);
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    /* fopen() opens a directory happily; reading it would fail later with a
     * less helpful message. */
    if (S_ISDIR(info.st_mode)) {
        fclose(f);
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: is a directory", path);
    }
    if (S_ISREG(info.st_mode)) {
        if (info.st_size == 0) {
            fclose(f);
            return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s: file is empty", path);
        }
        *size = (int64_t)info.st_size;
    }
    *fp = f;
    return CLIK_OK;
}

int64_t clikio__bytes_left(FILE *fp, int64_t size)
{
    if (size < 0)
        return -1;
    off_t pos = ftello(fp);
    if (pos < 0)
        return -1;
    return (int64_t)pos >= size ? 0 : size - (int64_t)pos;
}

/* Shared start of both public readers: clears the outputs and checks the
 * arguments. */
static clik_status begin_read(const char *func, const char *path, clik_image *img, char *err,
                              size_t errlen)
{
    clear_message(err, errlen);
    if (img)
        memset(img, 0, sizeof(*img));
    if (!path)
        return clikio__fail(err, errlen, CLIK_ERR_NULL, "%s: path is NULL", func);
    if (!img)
        return clikio__fail(err, errlen, CLIK_ERR_NULL, "%s: %s: image pointer is NULL", func,
                            path);
    return CLIK_OK;
}

/* The format that the first bytes of a file announce (n of them read),
 * FORMAT_UNKNOWN where none does. */
static image_format format_by_content(const unsigned char *b, size_t n)
{
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
    if (n >= 8 && memcmp(b, png, 8) == 0)
        return FORMAT_PNG;
    if (n >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff)
        return FORMAT_JPEG;
    if (n >= 6 && memcmp(b, "\x93NUMPY", 6) == 0)
        return FORMAT_NPY;
    if (n >= 4 && memcmp(b, "PIEH", 4) == 0)
        return FORMAT_FLO;
    if (n >= 2 && b[0] == 'P' && b[1] >= '1' && b[1] <= '7')
        return FORMAT_PNM;
    return FORMAT_UNKNOWN;
}

/* A stream that cannot seek back (standard input, a pipe), read whole into
 * memory as a stream the readers take like a file; *mem holds the bytes.
 * Its first bytes must name a format (or path's extension must): a stream
 * of anything else is refused from them, not read to its end. Past
 * CLIKIO_MAX_STREAM bytes it is refused as soon as they are read. */
static clik_status slurp(FILE *in, const char *path, FILE **fp, int64_t *size, char **mem,
                         char *err, size_t errlen)
{
    const char *what = in == stdin ? "standard input" : "the stream";
    const uint64_t most = CLIKIO_MAX_STREAM < SIZE_MAX - 1 ? CLIKIO_MAX_STREAM : SIZE_MAX - 1;
    size_t n = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    if (!buf)
        return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    size_t got;
    while (n < 8 && (got = fread(buf + n, 1, 8 - n, in)) > 0)
        n += got;
    if (n > 0 && !ferror(in) &&
        format_by_content((const unsigned char *)buf, n) == FORMAT_UNKNOWN &&
        format_of(path) == FORMAT_UNKNOWN) {
        free(buf);
        return unknown_format(path, err, errlen);
    }
    while (!feof(in) && !ferror(in)) {
        if (n == cap) {
            /* One byte past the limit tells a stream of exactly the limit
             * from a longer one. */
            if ((uint64_t)cap > most) {
                free(buf);
                return clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT,
                                    "%s: %s holds more than %llu bytes, more than any image "
                                    "clik reads",
                                    path, what, (unsigned long long)most);
            }
            size_t grown = (uint64_t)cap * 2 > most + 1 ? (size_t)most + 1 : cap * 2;
            char *more = realloc(buf, grown);
            if (!more) {
                free(buf);
                return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY,
                                    "%s: out of memory after %zu bytes of %s", path, n, what);
            }
            buf = more;
            cap = grown;
        }
        n += fread(buf + n, 1, cap - n, in);
    }
    if (ferror(in) || n == 0) {
        free(buf);
        return ferror(in)
                   ? clikio__fail(err, errlen, CLIK_ERR_IO, "%s: read error", path)
                   : clikio__fail(err, errlen, CLIK_ERR_FILE_FORMAT, "%s: %s is empty", path, what);
    }
    *fp = fmemopen(buf, n, "rb");
    if (!*fp) {
        free(buf);
        return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    }
    *size = (int64_t)n;
    *mem = buf;
    return CLIK_OK;
}

/* Opens path for clikio_read ("-": standard input): a regular file as it
 * is, anything else read whole first (the format is read from the first
 * bytes, then the reader starts again from the first). */
static clik_status open_input(const char *path, FILE **fp, int64_t *size, char **mem, char *err,
                              size_t errlen)
{
    *mem = NULL;
    if (strcmp(path, "-") == 0)
        return slurp(stdin, path, fp, size, mem, err, errlen);
    clik_status st = clikio__open_read(path, fp, size, err, errlen);
    if (st != CLIK_OK || *size >= 0)
        return st;
    FILE *stream = *fp;
    st = slurp(stream, path, fp, size, mem, err, errlen);
    fclose(stream);
    return st;
}

static clik_order npy_order = CLIK_ORDER_RGB;

/* Exchanges the first and third element of every pixel, in place. */
static void swap_red_blue(clik_image *img)
{
    const size_t es = clik_type_size(img->type), px = (size_t)img->channels * es;
    unsigned char t[8];
    for (int y = 0; y < img->height; y++) {
        unsigned char *p = (unsigned char *)img->data + (size_t)y * img->stride;
        for (int x = 0; x < img->width; x++, p += px) {
            memcpy(t, p, es);
            memcpy(p, p + 2 * es, es);
            memcpy(p + 2 * es, t, es);
        }
    }
}

void clikio_set_npy_order(clik_order order)
{
    npy_order = order == CLIK_ORDER_BGR ? CLIK_ORDER_BGR : CLIK_ORDER_RGB;
}

clik_status clikio__read_stream(FILE *fp, int64_t size, const char *path, clik_image *img,
                                int *had_alpha, char *err, size_t errlen)
{
    /* The format the content announces, else the extension's. */
    unsigned char head[8];
    const size_t got = fread(head, 1, sizeof(head), fp);
    image_format format = format_by_content(head, got);
    if (format == FORMAT_UNKNOWN)
        format = format_of(path);
    if (format == FORMAT_UNKNOWN)
        return unknown_format(path, err, errlen);
    if (fseek(fp, 0, SEEK_SET) != 0)
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot seek: %s", path, strerror(errno));
    clik_status st;
    int alpha = 0;
    switch (format) {
    case FORMAT_PNG: st = clikio__png_read(fp, path, img, &alpha, err, errlen); break;
    case FORMAT_JPEG: st = clikio__jpeg_read(fp, path, img, err, errlen); break;
    case FORMAT_NPY:
        st = clikio__npy_read(fp, size, path, img, err, errlen);
        alpha = st == CLIK_OK && (img->channels == 2 || img->channels == 4);
        break;
    case FORMAT_FLO: st = clikio__flo_read(fp, size, path, img, err, errlen); break;
    default: st = clikio__pnm_read(fp, size, path, img, err, errlen); break;
    }
    if (st == CLIK_OK && format == FORMAT_NPY && img->channels >= 3 && npy_order == CLIK_ORDER_BGR)
        swap_red_blue(img);
    if (st == CLIK_OK && had_alpha)
        *had_alpha = alpha;
    return st;
}

clik_status clikio_read(const char *path, clik_image *img, int *had_alpha, char *err, size_t errlen)
{
    if (had_alpha)
        *had_alpha = 0;
    clik_status st = begin_read("clikio_read", path, img, err, errlen);
    if (st != CLIK_OK)
        return st;
    FILE *fp;
    int64_t size;
    char *mem;
    st = open_input(path, &fp, &size, &mem, err, errlen);
    if (st != CLIK_OK)
        return st;
    st = clikio__read_stream(fp, size, path, img, had_alpha, err, errlen);
    fclose(fp);
    free(mem);
    return st;
}

static clik_status read_npy_by(const char *fn, clikio_sized_read_fn *reader, const char *path,
                               clik_image *img, char *err, size_t errlen)
{
    clik_status st = begin_read(fn, path, img, err, errlen);
    if (st != CLIK_OK)
        return st;
    FILE *fp;
    int64_t size;
    st = clikio__open_read(path, &fp, &size, err, errlen);
    if (st != CLIK_OK)
        return st;
    st = reader(fp, size, path, img, err, errlen);
    fclose(fp);
    return st;
}

clik_status clikio_read_npy(const char *path, clik_image *img, char *err, size_t errlen)
{
    return read_npy_by("clikio_read_npy", clikio__npy_read, path, img, err, errlen);
}

clik_status clikio_read_npy_planes(const char *path, clik_image *img, char *err, size_t errlen)
{
    return read_npy_by("clikio_read_npy_planes", clikio__npy_read_planes, path, img, err, errlen);
}

/* ---- writing --------------------------------------------------------------- */

/* Temporary names differ by process and by call, and O_EXCL settles any
 * remaining race, so concurrent writers never share a temporary file. */
static atomic_uint temp_counter;

/* The longest name a file in the folder of path may have. 255 where the
 * system cannot say: it is the limit of the common file systems. */
static size_t longest_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : NULL;
    long n = pathconf(dir ? dir : ".", _PC_NAME_MAX);
    free(dir);
    return n > 0 ? (size_t)n : 255;
}

/* Writes "DIR/.BASE.PID.N.TAG", a name next to path, into name (cap bytes,
 * at least strlen(path) + 64): the same folder keeps rename() atomic, the
 * leading dot keeps it out of listings and globs. BASE is cut short where
 * the whole name would pass name_max, so that every name that fits can be
 * written; the process id and the counter keep the names unique. */
static void sibling_name(const char *path, const char *tag, size_t name_max, char *name, size_t cap)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dir_len;
    char suffix[64];
    size_t suffix_len = (size_t)snprintf(suffix, sizeof(suffix), ".%ld.%u.%s", (long)getpid(),
                                         atomic_fetch_add(&temp_counter, 1u), tag);
    size_t keep = strlen(base);
    if (1 + keep + suffix_len > name_max) {
        keep = name_max > 1 + suffix_len ? name_max - 1 - suffix_len : 0;
        /* Cut before a whole UTF-8 character, not inside one. */
        while (keep > 0 && ((unsigned char)base[keep] & 0xC0) == 0x80)
            keep--;
    }
    snprintf(name, cap, "%.*s.%.*s%s", (int)dir_len, path, (int)keep, base, suffix);
}

/* Creates "DIR/.BASE.PID.N.tmp" next to path (see sibling_name()); O_EXCL
 * settles any remaining race. */
static clik_status create_temp(const char *path, char **tmp_path, FILE **fp, char *err,
                               size_t errlen)
{
    size_t cap = strlen(path) + 64;
    char *name = malloc(cap);
    if (!name)
        return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    size_t name_max = longest_name(path);
    for (int attempt = 0; attempt < 100; attempt++) {
        sibling_name(path, "tmp", name_max, name, cap);
        /* 0666 lets the umask decide the final permissions, as for any new file. */
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            int e = errno;
            free(name);
            return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot create file: %s", path,
                                strerror(e));
        }
        FILE *f = fdopen(fd, "wb");
        if (!f) {
            int e = errno;
            close(fd);
            unlink(name);
            free(name);
            return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot create file: %s", path,
                                strerror(e));
        }
        *tmp_path = name;
        *fp = f;
        return CLIK_OK;
    }
    free(name);
    return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: no free temporary file name", path);
}

/* A file that path already names keeps its permission bits: the new file
 * (open as fp) takes them before it replaces the old one. */
static clik_status keep_mode(FILE *fp, const char *path, char *err, size_t errlen)
{
    struct stat old;
    if (stat(path, &old) != 0 || !S_ISREG(old.st_mode))
        return CLIK_OK;
    if (fchmod(fileno(fp), old.st_mode & (S_IRWXU | S_IRWXG | S_IRWXO)) != 0)
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot give the new file its mode: %s",
                            path, strerror(errno));
    return CLIK_OK;
}

/* Pushes everything to disk before the rename, so that a crash never leaves
 * a renamed but incomplete file. Closes fp in every case. */
static clik_status finish_temp(FILE *fp, const char *path, char *err, size_t errlen)
{
    int failed = fflush(fp) != 0 || ferror(fp);
    int e = errno;
    if (!failed && fsync(fileno(fp)) != 0) {
        failed = 1;
        e = errno;
    }
    if (fclose(fp) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (failed)
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: write failed: %s", path, strerror(e));
    return CLIK_OK;
}

/* What a staged file holds: img written by writer, or (writer NULL) the
 * size bytes at data. */
typedef struct stage_job {
    clikio_writer writer;
    const clik_image *img;
    int keep_alpha;
    const void *data;
    size_t size;
} stage_job;

/* Writes what j holds to fp, which it leaves open. */
static clik_status write_job(FILE *fp, const char *path, const stage_job *j, char *err,
                             size_t errlen)
{
    if (j->writer)
        return j->writer(fp, path, j->img, j->keep_alpha, err, errlen);
    if (j->size && fwrite(j->data, 1, j->size, fp) != j->size)
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot write: %s", path,
                            strerror(errno));
    return CLIK_OK;
}

/* Writes job on a temporary file next to path; on success *staged holds it. */
static clik_status stage_to(const char *path, const stage_job *job, clikio_staged *staged,
                            char *err, size_t errlen)
{
    char *final_path = strdup(path);
    if (!final_path)
        return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    char *tmp_path = NULL;
    FILE *fp = NULL;
    /* Standard output: the whole file first, in the temporary folder. */
    char spool[4096];
    const char *tmpdir = getenv("TMPDIR");
    snprintf(spool, sizeof(spool), "%s/clik-stdout", tmpdir && *tmpdir ? tmpdir : "/tmp");
    const int to_stdout = clikio_is_stdout(path);
    clik_status st = create_temp(to_stdout ? spool : path, &tmp_path, &fp, err, errlen);
    if (st == CLIK_OK) {
        st = to_stdout ? CLIK_OK : keep_mode(fp, path, err, errlen);
        if (st == CLIK_OK)
            st = write_job(fp, path, job, err, errlen);
        if (st != CLIK_OK)
            fclose(fp);
        else
            st = finish_temp(fp, path, err, errlen);
        if (st != CLIK_OK)
            unlink(tmp_path);
    }
    if (st != CLIK_OK) {
        free(tmp_path);
        free(final_path);
        return st;
    }
    staged->path = final_path;
    staged->tmp_path = tmp_path;
    return CLIK_OK;
}

/* Runs writer on a temporary file next to path; on success *staged holds it. */
static clik_status stage_with(const char *path, clikio_writer writer, const clik_image *img,
                              int keep_alpha, clikio_staged *staged, char *err, size_t errlen)
{
    const stage_job j = {writer, img, keep_alpha, NULL, 0};
    return stage_to(path, &j, staged, err, errlen);
}

clik_status clikio_stage_bytes(const char *path, const void *data, size_t size,
                               clikio_staged *staged, char *err, size_t errlen)
{
    clear_message(err, errlen);
    if (!staged || !path || (!data && size))
        return clikio__fail(err, errlen, CLIK_ERR_NULL, "clikio_stage_bytes: a pointer is NULL");
    memset(staged, 0, sizeof(*staged));
    const stage_job j = {NULL, NULL, 0, data, size};
    return stage_to(path, &j, staged, err, errlen);
}

/* The staged file at tmp to standard output. */
static clik_status copy_to_stdout(const char *tmp, char *err, size_t errlen)
{
    FILE *in = fopen(tmp, "rb");
    if (!in)
        return clikio__fail(err, errlen, CLIK_ERR_IO, "-: cannot reopen %s: %s", tmp,
                            strerror(errno));
    char buf[1 << 16];
    size_t n;
    int failed = 0;
    while (!failed && (n = fread(buf, 1, sizeof(buf), in)) > 0)
        failed = fwrite(buf, 1, n, stdout) != n;
    failed = failed || ferror(in) || fflush(stdout) != 0 || ferror(stdout);
    const int e = errno;
    fclose(in);
    return failed ? clikio__fail(err, errlen, CLIK_ERR_IO, "-: cannot write standard output: %s",
                                 strerror(e))
                  : CLIK_OK;
}

clik_status clikio_commit(clikio_staged *staged, char *err, size_t errlen)
{
    clear_message(err, errlen);
    if (!staged || !staged->tmp_path)
        return clikio__fail(err, errlen, CLIK_ERR_NULL, "clikio_commit: nothing staged");
    clik_status st = CLIK_OK;
    if (clikio_is_stdout(staged->path)) {
        st = copy_to_stdout(staged->tmp_path, err, errlen);
        unlink(staged->tmp_path);
    } else if (rename(staged->tmp_path, staged->path) != 0) {
        st = clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot replace: %s", staged->path,
                          strerror(errno));
        unlink(staged->tmp_path);
    }
    free(staged->tmp_path);
    free(staged->path);
    memset(staged, 0, sizeof(*staged));
    return st;
}

void clikio_discard(clikio_staged *staged)
{
    if (!staged)
        return;
    if (staged->tmp_path)
        unlink(staged->tmp_path);
    free(staged->tmp_path);
    free(staged->path);
    memset(staged, 0, sizeof(*staged));
}

/* ---- several files, all or none ------------------------------------------ */

clik_status clikio_check_replaceable(const char *path, char *err, size_t errlen)
{
    struct stat file, dir;
    if (!path || clikio_is_stdout(path) || lstat(path, &file) != 0)
        return CLIK_OK; /* nothing there to replace */
    if (S_ISDIR(file.st_mode))
        return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot replace: it is a folder", path);
    const char *slash = strrchr(path, '/');
    char *folder = slash ? strndup(path, (size_t)(slash - path) + 1) : NULL;
    if (slash && !folder)
        return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    int known = stat(folder ? folder : ".", &dir) == 0;
    free(folder);
    /* In a sticky folder (such as /tmp) only the owner of a file, the owner
     * of the folder or root may remove or replace it. */
    const uid_t me = geteuid();
    if (known && (dir.st_mode & S_ISVTX) && me != 0 && file.st_uid != me && dir.st_uid != me)
        return clikio__fail(err, errlen, CLIK_ERR_IO,
                            "%s: cannot replace: its folder is sticky (+t) and the file "
                            "belongs to another user",
                            path);
    return CLIK_OK;
}

/* What clikio_commit_all() did to one name. */
typedef struct commit_step {
    char *kept;   /* the file that was at the name, under a hidden name; NULL: none */
    int linked;   /* kept is a second link (the name held the file throughout) */
    int in_place; /* the staged file is at the name */
} commit_step;

/* Keeps the file at path under a hidden name next to it ("DIR/.BASE.PID.N.old"):
 * a second hard link, so that path names a file throughout, or where the
 * folder takes none, the file renamed. */
static clik_status keep_aside(const char *path, commit_step *step, char *err, size_t errlen)
{
    size_t cap = strlen(path) + 64;
    char *name = malloc(cap);
    if (!name)
        return clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "%s: out of memory", path);
    size_t name_max = longest_name(path);
    int e = EEXIST;
    for (int attempt = 0; attempt < 100 && e == EEXIST; attempt++) {
        sibling_name(path, "old", name_max, name, cap);
        struct stat taken;
        if (linkat(AT_FDCWD, path, AT_FDCWD, name, 0) == 0) {
            step->linked = 1;
        } else if ((e = errno) == EEXIST || lstat(name, &taken) == 0) {
            e = EEXIST;
            continue;
        } else if (rename(path, name) != 0) {
            e = errno;
            break;
        }
        step->kept = name;
        return CLIK_OK;
    }
    free(name);
    return clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot replace: %s", path,
                        e == EEXIST ? "no free temporary file name" : strerror(e));
}

/* Appends "; " and a formatted note to the message in err. */
static void add_note(char *err, size_t errlen, const char *fmt, ...) CLIKIO_PRINTF(3, 4);
static void add_note(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    size_t n = strlen(err);
    if (n + 3 >= errlen)
        return;
    memcpy(err + n, "; ", 3);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n + 2, errlen - n - 2, fmt, ap);
    va_end(ap);
}

/* Puts back what the names of staged[0..n) held before (step by step, last
 * first), after a failure. */
static void undo_commit(clikio_staged *const *staged, commit_step *steps, size_t n, char *err,
                        size_t errlen)
{
    for (size_t i = n; i-- > 0;) {
        commit_step *s = &steps[i];
        const char *path = staged[i]->path;
        if (s->kept && (s->in_place || !s->linked)) {
            if (rename(s->kept, path) != 0) {
                add_note(err, errlen, "%s could not be put back (%s); it is kept as %s", path,
                         strerror(errno), s->kept);
                continue; /* the kept file stays where the note says */
            }
        } else if (s->kept) {
            unlink(s->kept); /* a second link: the name still holds the file */
        } else if (s->in_place) {
            unlink(path);
        }
        free(s->kept);
        s->kept = NULL;
    }
}

clik_status clikio_commit_all(clikio_staged *const *staged, size_t n, char *err, size_t errlen)
{
    clear_message(err, errlen);
    clik_status st = CLIK_OK;
    size_t out = n; /* the one entry for standard output, if any */
    for (size_t i = 0; i < n && st == CLIK_OK; i++) {
        if (!staged || !staged[i] || !staged[i]->tmp_path)
            st = clikio__fail(err, errlen, CLIK_ERR_NULL,
                              "clikio_commit_all: entry %zu: nothing staged", i);
        else if (clikio_is_stdout(staged[i]->path) && out < n)
            st = clikio__fail(err, errlen, CLIK_ERR_INVALID_ARG,
                              "clikio_commit_all: two entries for standard output");
        else if (clikio_is_stdout(staged[i]->path))
            out = i;
        else
            st = clikio_check_replaceable(staged[i]->path, err, errlen);
    }
    commit_step *steps = st == CLIK_OK ? calloc(n ? n : 1, sizeof(*steps)) : NULL;
    if (st == CLIK_OK && !steps)
        st = clikio__fail(err, errlen, CLIK_ERR_NO_MEMORY, "clikio_commit_all: out of memory");
    /* Each file in place, what its name held kept aside until all are. */
    for (size_t i = 0; i < n && st == CLIK_OK; i++) {
        clikio_staged *f = staged[i];
        struct stat there;
        if (i == out)
            continue;
        if (lstat(f->path, &there) == 0)
            st = S_ISDIR(there.st_mode) ? clikio_check_replaceable(f->path, err, errlen)
                                        : keep_aside(f->path, &steps[i], err, errlen);
        if (st != CLIK_OK)
            break;
        if (rename(f->tmp_path, f->path) != 0) {
            st = clikio__fail(err, errlen, CLIK_ERR_IO, "%s: cannot replace: %s", f->path,
                              strerror(errno));
            break;
        }
        steps[i].in_place = 1;
        free(f->tmp_path);
        f->tmp_path = NULL;
    }
    /* Standard output last: what is written there cannot be taken back. */
    if (st == CLIK_OK && out < n)
        st = copy_to_stdout(staged[out]->tmp_path, err, errlen);
    if (steps) {
        if (st != CLIK_OK)
            undo_commit(staged, steps, n, err, errlen);
        for (size_t i = 0; i < n; i++) {
            if (steps[i].kept && st == CLIK_OK)
                unlink(steps[i].kept);
            free(steps[i].kept);
        }
        free(steps);
    }
    for (size_t i = 0; staged && i < n; i++)
        clikio_discard(staged[i]);
    return st;
}

/* Shared start of both public writers: argument and image checks. */
static clik_status begin_write(const char *func, const char *path, const clik_image *img, char *err,
                               size_t errlen)
{
    clear_message(err, errlen);
    if (!path)
        return clikio__fail(err, errlen, CLIK_ERR_NULL, "%s: path is NULL", func);
    if (!img)
        return clikio__fail(err, errlen, CLIK_ERR_NULL, "%s: %s: image pointer is NULL", func,
                            path);
    clik_status st = clik_image_validate(img);
    if (st != CLIK_OK)
        return clikio__fail(err, errlen, st, "%s: cannot write an invalid image (%s)", path,
                            clik_status_str(st));
    if (!img->data)
        return clikio__fail(err, errlen, CLIK_ERR_INVALID_ARG,
                            "%s: the image is a device image; download it to the host first", path);
    return CLIK_OK;
}

/* Picks the writer for format and img, or explains why there is none. */
static clik_status choose_writer(image_format format, const char *path, const clik_image *img,
                                 clikio_writer *writer, char *err, size_t errlen)
{
    int u8 = img->type == CLIK_U8;
    int u16 = img->type == CLIK_U16;
    switch (format) {
    case FORMAT_PNG: *writer = clikio__png_write; break;
    case FORMAT_JPEG:
        *writer = clikio__jpeg_write;
        u16 = 0; /* baseline JPEG is 8-bit only */
        break;
    case FORMAT_PGM:
        if (img->channels == 4)
            return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                                "%s: PGM holds grey images only; write 4 channels as .ppm or "
                                ".pnm",
                                path);
        *writer = clikio__pgm_write;
        break;
    case FORMAT_PPM: *writer = clikio__ppm_write; break;
    case FORMAT_PNM: *writer = img->channels == 4 ? clikio__ppm_write : clikio__pgm_write; break;
    case FORMAT_NPY: *writer = clikio__npy_write; return CLIK_OK; /* any dtype */
    case FORMAT_FLO:
        if (img->channels != 2 || img->type != CLIK_F32)
            return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                                "%s: .flo holds flows (2-channel f32), not %d-channel %s images",
                                path, img->channels, clik_type_name(img->type));
        *writer = clikio__flo_write;
        return CLIK_OK;
    default: return unknown_extension(path, err, errlen);
    }
    if (!u8 && !u16)
        return clikio__fail(err, errlen, CLIK_ERR_UNSUPPORTED_FORMAT,
                            "%s: cannot write %s images in this format (%s)", path,
                            clik_type_name(img->type),
                            format == FORMAT_JPEG ? "JPEG takes u8" : "it takes u8 or u16");
    return CLIK_OK;
}

/* *out = the 3- or 4-channel img with `channels` channels (the alpha of 3
 * widened to 4 opaque: u8 255, u16 65535), red and blue exchanged when
 * swap is set. */
static clik_status colour_copy(const clik_image *img, int channels, int swap, clik_image *out,
                               char *err, size_t errlen)
{
    clik_status st = clik_image_alloc(out, img->width, img->height, channels, img->type);
    if (st != CLIK_OK)
        return clikio__fail(err, errlen, st, "out of memory for a copy to write");
    const size_t es = clik_type_size(img->type), in_px = (size_t)img->channels * es;
    const size_t out_px = (size_t)channels * es;
    const int red = swap ? 2 : 0;
    const uint16_t opaque = 0xffff; /* both bytes 0xff */
    for (int y = 0; y < img->height; y++) {
        const unsigned char *in = (const unsigned char *)img->data + (size_t)y * img->stride;
        unsigned char *o = (unsigned char *)out->data + (size_t)y * out->stride;
        for (int x = 0; x < img->width; x++, in += in_px, o += out_px) {
            memcpy(o, in + (size_t)red * es, es);
            memcpy(o + es, in + es, es);
            memcpy(o + 2 * es, in + (size_t)(2 - red) * es, es);
            if (channels == 4)
                memcpy(o + 3 * es, img->channels == 4 ? in + 3 * es : (const void *)&opaque, es);
        }
    }
    return CLIK_OK;
}

/* Stages img by the extension of path; func names the public caller in
 * messages. Image files get RGB(A): 3 channels and BGR(A) images go through
 * an RGBA copy (the alpha of 3 channels not written); .npy files get the
 * colour order clikio_set_npy_order() set. */
static clik_status stage_image(const char *func, const char *path, const clik_image *img,
                               int keep_alpha, clikio_staged *staged, char *err, size_t errlen)
{
    clik_status st = begin_write(func, path, img, err, errlen);
    if (st != CLIK_OK)
        return st;
    const image_format format = output_format(path);
    clikio_writer writer = NULL;
    st = choose_writer(format, path, img, &writer, err, errlen);
    if (st != CLIK_OK)
        return st;
    const int npy = format == FORMAT_NPY, colour = img->channels >= 3;
    const clik_order want = npy ? npy_order : CLIK_ORDER_RGB;
    if (!colour || (img->order == want && (npy || img->channels == 4)))
        return stage_with(path, writer, img, keep_alpha, staged, err, errlen);
    clik_image copy;
    st = colour_copy(img, npy ? img->channels : 4, img->order != want, &copy, err, errlen);
    if (st == CLIK_OK && copy.channels != img->channels)
        st = choose_writer(format, path, &copy, &writer, err, errlen);
    if (st == CLIK_OK)
        st = stage_with(path, writer, &copy, keep_alpha && img->channels == 4, staged, err, errlen);
    clik_image_free(&copy);
    return st;
}

clik_status clikio_stage(const char *path, const clik_image *img, int keep_alpha,
                         clikio_staged *staged, char *err, size_t errlen)
{
    if (!staged)
        return clikio__fail(err, errlen, CLIK_ERR_NULL, "clikio_stage: staged is NULL");
    memset(staged, 0, sizeof(*staged));
    return stage_image("clikio_stage", path, img, keep_alpha, staged, err, errlen);
}

clik_status clikio_write(const char *path, const clik_image *img, int keep_alpha, char *err,
                         size_t errlen)
{
    clikio_staged staged = {0};
    clik_status st = stage_image("clikio_write", path, img, keep_alpha, &staged, err, errlen);
    return st != CLIK_OK ? st : clikio_commit(&staged, err, errlen);
}

clik_status clikio_write_npy(const char *path, const clik_image *img, char *err, size_t errlen)
{
    clik_status st = begin_write("clikio_write_npy", path, img, err, errlen);
    if (st != CLIK_OK)
        return st;
    clikio_staged staged = {0};
    st = stage_with(path, clikio__npy_write, img, 1, &staged, err, errlen);
    return st != CLIK_OK ? st : clikio_commit(&staged, err, errlen);
}
