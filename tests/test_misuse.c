/*
 * API misuse: every public function of clik.h called with NULL pointers,
 * cleared and malformed image descriptors, sizes and byte counts out of
 * range, unknown types and channel counts, images of another context, the
 * context of a failed clik_context_create (NULL), and overlapping inputs
 * and outputs. Each misuse must give its own status and a message of its
 * own, write none of its outputs, and leave the context working: the next
 * correct call on it must succeed with the scalar oracle's result.
 *
 * misuse_rows has one row per public function; misuse_functions.sh checks
 * the rows against the declarations of lib/clik.h (`test_misuse --list`
 * prints the rows). A row's checks column names what its cases check
 * beyond the common misuse: each was a bug of the library once, now fixed,
 * and a failing row prints it.
 *
 * Failures are collected, not fatal: each row reports every misbehaviour it
 * sees (one line each, prefixed "MISUSE"), then fails once.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, _Fork */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#include <sys/single_threaded.h>
#define HAVE_UNDERSCORE_FORK 1
#endif

#include "cases.h"
#include "harness.h"

#if defined(__GNUC__)
#define FORMAT(f, a) __attribute__((format(printf, f, a)))
#else
#define FORMAT(f, a)
#endif

#define SENTINEL 0xa5 /* bytes of outputs that nothing may write */
#define OUT_FILL 0x5a /* bytes of scalar outputs (histograms, means, tickets) */
#define MAX_SIDE (1 << 20)
#define MAXP     8 /* image parameters of one call (a pyramid counts each level) */
#define MAXS     (MAXP + 8)
#define LA       6 /* atoms of the LAPAR dictionary of the cases */
#define LA_STORE 8 /* atoms its storage holds (cases with more than LA) */

static clik_context *other_ctx;  /* a second context on the backend under test */
static clik_context *failed_ctx; /* what a failed clik_context_create left: NULL */

/* ---- collected failures ------------------------------------------------------- */

static const char *row_name = "";
static char case_name[320];
static int nfailed;
static char failures[3000]; /* the first failures, for Check's message (it has a limit) */
static size_t failures_len;
static int failures_left_out;

static void set_case(const char *fmt, ...) FORMAT(1, 2);
static void set_case(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(case_name, sizeof(case_name), fmt, ap);
    va_end(ap);
}

static void failed(const char *fmt, ...) FORMAT(1, 2);
static void failed(const char *fmt, ...)
{
    char what[1024], line[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    int n = snprintf(line, sizeof(line), "%s: %s: %s\n", row_name, case_name, what);
    printf("MISUSE [%s] %s", h_backend, line);
    fflush(stdout);
    nfailed++;
    if (n > 0 && failures_len + (size_t)n < sizeof(failures)) {
        memcpy(failures + failures_len, line, (size_t)n + 1);
        failures_len += (size_t)n;
    } else {
        failures_left_out++;
    }
}

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond))                                                                               \
            failed(__VA_ARGS__);                                                                   \
    } while (0)

/* "CLIK_ERR_STRIDE" out of "CLIK_ERR_STRIDE: row stride ...". */
static const char *sname(clik_status st)
{
    static char names[4][48];
    static int next;
    char *out = names[next++ & 3];
    const char *s = clik_status_str(st);
    size_t n = strcspn(s, ":");
    if (n >= sizeof(names[0]))
        n = sizeof(names[0]) - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

static void expect_status(clik_status got, clik_status want)
{
    EXPECT(got == want, "got %s, want %s", sname(got), sname(want));
}

/* The failure must leave a message of its own in ctx: mark_message() puts
 * a known one there first. */
static char marker[1024];

static void mark_message(clik_context *ctx)
{
    clik_image scratch;
    clik_image_create(ctx, &scratch, 0, 1, 1, CLIK_U8);
    snprintf(marker, sizeof(marker), "%s", clik_context_message(ctx));
}

static void expect_message(clik_context *ctx)
{
    const char *m = clik_context_message(ctx);
    EXPECT(m && *m && strcmp(m, marker) != 0, "no message of its own (message: \"%s\")",
           m ? m : "(NULL)");
}

/* call, made after mark_message(ctx), must return want and leave a message
 * of its own in ctx. */
#define EXPECT_REFUSED(ctx, call, want)                                                            \
    do {                                                                                           \
        mark_message(ctx);                                                                         \
        expect_status((call), (want));                                                             \
        expect_message(ctx);                                                                       \
    } while (0)

/* 1 when all n bytes of p are b. */
static int all_bytes(const void *p, size_t n, unsigned char b)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != b)
            return 0;
    return 1;
}

/* Constructors may clear their output on failure; nothing else may touch it. */
static void expect_untouched_or_cleared(const void *p, size_t n, unsigned char fill,
                                        const char *what)
{
    EXPECT(all_bytes(p, n, fill) || all_bytes(p, n, 0), "%s was half written on failure", what);
}

/* A correct call on the context under test still succeeds, on its backend,
 * with the oracle's result. */
static void ctx_works(void)
{
    const sup_case *c = sup_case_find("hist_compute");
    ck_assert_ptr_nonnull(c);
    sup_case_result res;
    sup_case_check(c, h_ctx, h_oracle, 27, 13, 2, SUP_PATTERN_NOISE, 11, &res);
    EXPECT(sup_case_passed(&res) && res.backend == h_expected,
           "then a correct call on the context fails: %s (%s) %s on %s", sname(res.status),
           res.message, res.cmp.detail, clik_backend_name(res.backend));
}

/* Runs fn(arg) in a child process; returns its wait status. For the cases
 * where a broken library would crash or corrupt memory: the suite goes on. */
static int in_child(void (*fn)(void *), void *arg)
{
    fflush(stdout);
    fflush(stderr);
#ifdef HAVE_UNDERSCORE_FORK
    /* With one thread no lock can be held across the fork, so the handlers
     * that fork() runs have nothing to do; _Fork() skips them. qemu-user 7.2
     * (the aarch64 step) spins for ever in the child of a guest fork(). */
    pid_t pid = __libc_single_threaded ? _Fork() : fork();
#else
    pid_t pid = fork();
#endif
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        fn(arg);
        _exit(0);
    }
    int ws = 0;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    return ws;
}

/* Read-only zero pages (nothing committed): the pixels of images whose byte
 * counts the library must refuse before it reads them. NULL when the
 * address space is not there. */
static void *zero_pages(size_t bytes, int writable)
{
    void *p = mmap(NULL, bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* ---- images ------------------------------------------------------------------------ */

static size_t row_bytes(const clik_image *m)
{
    return (size_t)m->width * (size_t)m->channels * clik_type_size(m->type);
}

static size_t span_of(const clik_image *m)
{
    return (size_t)(m->height - 1) * m->stride + row_bytes(m);
}

/* A host image with two spare elements at the end of each row, in memory of
 * its own filled with SENTINEL. */
static clik_image host_image(int w, int h, int ch, clik_type t, void **mem)
{
    const size_t stride = ((size_t)w * (size_t)ch + 2) * clik_type_size(t);
    *mem = malloc(stride * (size_t)h);
    ck_assert_ptr_nonnull(*mem);
    memset(*mem, SENTINEL, stride * (size_t)h);
    clik_image img;
    ck_assert_int_eq(clik_image_wrap(&img, w, h, ch, t, *mem, stride), CLIK_OK);
    return img;
}

static void copy_rows(const clik_image *dst, const clik_image *src)
{
    for (int y = 0; y < dst->height; y++)
        memcpy((char *)dst->data + (size_t)y * dst->stride,
               (const char *)src->data + (size_t)y * src->stride, row_bytes(dst));
}

/* An image a case owns or watches: the parameters of the valid call first,
 * then the images of the case. */
typedef struct slot {
    clik_image img;      /* as made */
    clik_context *owner; /* device images: their context */
    void *mem;           /* host images: their memory */
    const char *name;
} slot;

static slot make_slot(int w, int h, int ch, clik_type t, clik_context *device_owner,
                      const char *name)
{
    slot s = {.owner = device_owner, .name = name};
    if (!device_owner) {
        s.img = host_image(w, h, ch, t, &s.mem);
        return s;
    }
    clik_status st = clik_image_create(device_owner, &s.img, w, h, ch, t);
    ck_assert_msg(st == CLIK_OK, "%s: a %dx%dx%d %s device image: %s: %s", row_name, w, h, ch,
                  clik_type_name(t), sname(st), clik_context_message(device_owner));
    void *mem;
    clik_image fill = host_image(w, h, ch, t, &mem);
    st = clik_image_upload(device_owner, &s.img, &fill);
    ck_assert_msg(st == CLIK_OK, "%s: upload: %s", row_name, sname(st));
    free(mem);
    return s;
}

static void slot_free(slot *s)
{
    if (s->owner)
        clik_image_free(&s->img);
    else
        free(s->mem);
    memset(s, 0, sizeof(*s));
}

static void slot_write(const slot *s, const clik_image *content)
{
    if (!s->owner) {
        copy_rows(&s->img, content);
        return;
    }
    clik_status st = clik_image_upload(s->owner, (clik_image *)&s->img, content);
    ck_assert_msg(st == CLIK_OK, "%s: upload of %s: %s: %s", row_name, s->name, sname(st),
                  clik_context_message(s->owner));
}

/* The image's content on the host: the image itself, or a download of it
 * into *mem (to be freed). */
static clik_image slot_view(const slot *s, void **mem)
{
    *mem = NULL;
    if (!s->owner)
        return s->img;
    clik_image h = host_image(s->img.width, s->img.height, s->img.channels, s->img.type, mem);
    clik_status st = clik_image_download(s->owner, &h, &s->img);
    ck_assert_msg(st == CLIK_OK, "%s: download of %s: %s: %s", row_name, s->name, sname(st),
                  clik_context_message(s->owner));
    return h;
}

/* Every byte of the image as it is now (host images with their padding). */
static unsigned char *slot_bytes(const slot *s, size_t *n)
{
    void *mem;
    clik_image v = slot_view(s, &mem);
    *n = v.stride * (size_t)v.height;
    unsigned char *b = malloc(*n);
    ck_assert_ptr_nonnull(b);
    memcpy(b, v.data, *n);
    free(mem);
    return b;
}

/* ---- the generic engine for functions that take images ------------------------------------- */

typedef enum arg_kind {
    ARG_PTR,  /* a pointer argument of its own: NULL is refused */
    ARG_OPT,  /* a pointer argument of its own: NULL is allowed */
    ARG_ELEM, /* an element of an array argument (pyramid levels) */
} arg_kind;

typedef enum loc_kind {
    LOC_ANY,    /* host or device image: the row runs with each */
    LOC_HOST,   /* host images only */
    LOC_DEVICE, /* device images only */
} loc_kind;

typedef struct param_spec {
    const char *name;
    int width, height, channels;
    clik_type type;
    int out;
    arg_kind arg;
    loc_kind loc;
    sup_tolerance tol; /* outputs: against the oracle */
} param_spec;

typedef struct scalars {
    uint32_t hist[4 * 256];
    double mean;
    uint64_t ticket;
    clik_lapar_tuning tuning; /* clik_lapar_tune's best, clik_lapar_tuning_get's out */
    clik_lapar_selection sel; /* clik_lapar_compress's */
    float mix[LA_STORE * LA_STORE];
} scalars;

typedef struct margs {
    clik_image img[MAXP];
    clik_image *ptr[MAXP]; /* &img[i], or NULL */
    int count, ntables, ksize, tile;
    int use_hist, use_tables, use_mean, use_ticket, use_opt;
    double sigma;
    double fx, fy; /* clik_resize_scaled */
    clik_interp method;
    uint8_t tables[4 * 256];
    clik_fusion_options opt;
    clik_fusion_stream *stream;
    clik_flow_options flow; /* use_opt */
    /* LAPAR: the dictionary (use_dict; use_data: its weights, use_dict_sel:
     * its selection, use_sel_mix: the selection's mix), the scale, the
     * tuning to store (use_t), the outputs of compress (use_sel_out,
     * use_mix) and of the tuning functions (use_tuning). */
    int scale, atoms, use_dict, use_data, use_dict_sel, use_sel_mix, use_t, use_tuning;
    int use_calib, use_sel_out, use_mix, second_truth_null;
    float dict[LA_STORE * CLIK_LAPAR_TAPS];
    float sel_mix[LA_STORE * LA_STORE];
    clik_lapar_selection sel;
    clik_lapar_tuning t;
    double alpha;
    clik_lapar_compress_options copt; /* use_opt */
    scalars out;                      /* written by the call */
} margs;

struct op_run;

typedef struct op_spec {
    int nparams;
    param_spec p[MAXP];
    void (*init)(margs *a);                           /* the scalar arguments */
    clik_status (*call)(clik_context *ctx, margs *a); /* ctx NULL: as a failed create left it */
    /* Or, call NULL, a function of an input image and an output image itself,
     * called with the first two parameters. */
    clik_status (*image_op)(clik_context *ctx, const clik_image *src, clik_image *dst);
    void (*extra)(struct op_run *r);     /* the function's own misuse cases */
    void (*fill)(struct op_run *r);      /* special inputs (NULL: noise) */
    void (*reference)(struct op_run *r); /* NULL: call on the oracle */
    void (*fini)(margs *a);
    void (*check)(struct op_run *r, const margs *a); /* a correct call's scalar outputs */
    int compare_hist, compare_mean;
    int needs_device; /* OpenCL only: without a device a correct call is CLIK_ERR_NO_DEVICE */
    int no_backend;   /* transfers: no operation runs, the last backend stays */
    int transfer;     /* bounds-checked by OpenCL: oversized descriptors are safe to try */
} op_spec;

typedef struct op_run {
    const op_spec *s;
    int device; /* LOC_ANY parameters are device images */
    const char *mode;
    margs base, work;
    slot slots[MAXS];
    int nslots;
    clik_image pristine[MAXP]; /* the valid arguments' content (outputs: SENTINEL) */
    void *pristine_mem[MAXP];
    clik_image ref[MAXP]; /* the oracle's outputs */
    void *ref_mem[MAXP];
    scalars ref_out;
} op_run;

/* s's function called with a on ctx. */
static clik_status spec_call(const op_spec *s, clik_context *ctx, margs *a)
{
    return s->call ? s->call(ctx, a) : s->image_op(ctx, a->ptr[0], a->ptr[1]);
}

static void margs_copy(margs *dst, const margs *src)
{
    *dst = *src;
    for (int i = 0; i < MAXP; i++)
        dst->ptr[i] = src->ptr[i] ? &dst->img[i] : NULL;
}

static int is_device(const op_run *r, int i)
{
    return r->s->p[i].loc == LOC_DEVICE || (r->s->p[i].loc == LOC_ANY && r->device);
}

static int add_slot(op_run *r, slot s)
{
    ck_assert_int_lt(r->nslots, MAXS);
    r->slots[r->nslots] = s;
    return r->nslots++;
}

/* Frees the images of the last case. */
static void drop_case_slots(op_run *r)
{
    while (r->nslots > r->s->nparams)
        slot_free(&r->slots[--r->nslots]);
}

static void fill_input(clik_image *img, int seed)
{
    sup_pattern_fill(img, SUP_PATTERN_NOISE, 100u + (unsigned)seed);
}

/* Host copies of the valid arguments, for the oracle. */
static void reference_args(op_run *r, margs *ra)
{
    margs_copy(ra, &r->base);
    for (int i = 0; i < r->s->nparams; i++) {
        const clik_image *p = &r->pristine[i];
        r->ref[i] = host_image(p->width, p->height, p->channels, p->type, &r->ref_mem[i]);
        copy_rows(&r->ref[i], p);
        ra->img[i] = r->ref[i];
    }
}

static void default_reference(op_run *r)
{
    margs ra;
    reference_args(r, &ra);
    clik_status st = spec_call(r->s, h_oracle, &ra);
    ck_assert_msg(st == CLIK_OK, "%s: the oracle: %s: %s", row_name, sname(st),
                  clik_context_message(h_oracle));
    r->ref_out = ra.out;
}

/* Calls the function with r->work on ctx and checks that it refuses with
 * status want, a message, and no write to any image or scalar output. */
static void refused(op_run *r, clik_context *ctx, clik_status want)
{
    unsigned char *before[MAXS];
    size_t n[MAXS];
    for (int k = 0; k < r->nslots; k++)
        before[k] = slot_bytes(&r->slots[k], &n[k]);
    const scalars out_before = r->work.out;
    if (ctx)
        mark_message(ctx);
    clik_status st = spec_call(r->s, ctx, &r->work);
    expect_status(st, want);
    if (ctx && st != CLIK_OK)
        expect_message(ctx);
    for (int k = 0; k < r->nslots; k++) {
        size_t m;
        unsigned char *after = slot_bytes(&r->slots[k], &m);
        if (m == n[k] && memcmp(after, before[k], m) != 0) {
            size_t at = 0;
            while (after[at] == before[k][at])
                at++;
            failed("wrote %s (byte %zu: 0x%02x, was 0x%02x)", r->slots[k].name, at, after[at],
                   before[k][at]);
            /* The next cases start from the valid arguments again. */
            if (k < r->s->nparams)
                slot_write(&r->slots[k], &r->pristine[k]);
        }
        free(after);
        free(before[k]);
    }
    EXPECT(memcmp(&out_before, &r->work.out, sizeof(out_before)) == 0,
           "wrote its scalar output (histogram, mean, ticket, tuning or selection)");
}

/* A function of OpenCL devices on a context without one: the correct call
 * is refused with CLIK_ERR_NO_DEVICE (a message, nothing written), and the
 * context works on. */
static void works_without_device(op_run *r)
{
    char was[sizeof(case_name)];
    snprintf(was, sizeof(was), "%s", case_name);
    set_case("%s, then a correct call without an OpenCL device", was);
    margs_copy(&r->work, &r->base);
    memset(&r->work.out, OUT_FILL, sizeof(r->work.out));
    refused(r, h_ctx, CLIK_ERR_NO_DEVICE);
    ctx_works();
    set_case("%s", was);
}

/* A correct call after the misuse succeeds with the oracle's result. */
static void works(op_run *r)
{
    const op_spec *s = r->s;
    if (s->needs_device && !clik_context_device(h_ctx)) {
        works_without_device(r);
        return;
    }
    for (int i = 0; i < s->nparams; i++)
        if (s->p[i].out)
            slot_write(&r->slots[i], &r->pristine[i]);
    margs a;
    margs_copy(&a, &r->base);
    memset(&a.out, OUT_FILL, sizeof(a.out));
    clik_status st = spec_call(s, h_ctx, &a);
    if (st != CLIK_OK) {
        failed("then a correct call fails: %s: %s", sname(st), clik_context_message(h_ctx));
        return;
    }
    EXPECT(s->no_backend || clik_context_last_backend(h_ctx) == h_expected,
           "then a correct call runs on %s, not %s",
           clik_backend_name(clik_context_last_backend(h_ctx)), clik_backend_name(h_expected));
    for (int i = 0; i < s->nparams; i++) {
        if (!s->p[i].out)
            continue;
        void *mem;
        clik_image got = slot_view(&r->slots[i], &mem);
        sup_compare cmp;
        sup_compare_images(&got, &r->ref[i], s->p[i].tol, &cmp);
        EXPECT(cmp.pass, "then a correct call gives a wrong %s: %s", s->p[i].name, cmp.detail);
        free(mem);
    }
    if (s->compare_hist)
        EXPECT(memcmp(a.out.hist, r->ref_out.hist, sizeof(a.out.hist)) == 0,
               "then a correct call gives a wrong histogram");
    if (s->compare_mean)
        EXPECT(fabs(a.out.mean - r->ref_out.mean) <= 1e-4 * fmax(1.0, fabs(r->ref_out.mean)),
               "then a correct call gives a mean of %.9g, the oracle %.9g", a.out.mean,
               r->ref_out.mean);
    if (s->check)
        s->check(r, &a);
}

/* The misuse of r->work on ctx is refused; then the context still works.
 * Frees the case's images. */
static void try_misuse(op_run *r, clik_context *ctx, clik_status want)
{
    refused(r, ctx, want);
    drop_case_slots(r);
    works(r);
}

static void vstart(op_run *r, const char *fmt, va_list ap)
{
    char what[256];
    vsnprintf(what, sizeof(what), fmt, ap);
    set_case("%s: %s", r->mode, what);
    margs_copy(&r->work, &r->base);
}

static void start(op_run *r, const char *fmt, ...) FORMAT(2, 3);
static void start(op_run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vstart(r, fmt, ap);
    va_end(ap);
}

/* Parameter i of the case becomes a new image (host or device as dev says):
 * an input holds noise, an output SENTINEL. Returns it. */
static clik_image *swap_image_at(op_run *r, int i, int w, int h, int ch, clik_type t, int dev)
{
    int k = add_slot(r, make_slot(w, h, ch, t, dev ? h_ctx : NULL, "a replaced argument"));
    if (!r->s->p[i].out) {
        void *mem;
        clik_image content = host_image(w, h, ch, t, &mem);
        fill_input(&content, 40 + i);
        slot_write(&r->slots[k], &content);
        free(mem);
    }
    r->work.img[i] = r->slots[k].img;
    return &r->work.img[i];
}

static clik_image *swap_image(op_run *r, int i, int w, int h, int ch, clik_type t)
{
    return swap_image_at(r, i, w, h, ch, t, is_device(r, i));
}

static void finish(op_run *r, clik_status want)
{
    try_misuse(r, h_ctx, want);
}

/* The case what: the argument that r's field stands for is left out (the
 * field 0 or NULL), which is refused as CLIK_ERR_NULL. */
#define NULL_CASE(r, what, field)                                                                  \
    do {                                                                                           \
        start(r, what);                                                                            \
        (r)->work.field = 0;                                                                       \
        finish(r, CLIK_ERR_NULL);                                                                  \
    } while (0)

/* Each of the values (an array), set in turn in r's argument field, is
 * refused as CLIK_ERR_INVALID_ARG; fmt names the case from the value. */
#define INVALID_VALUES(r, field, values, fmt)                                                      \
    for (size_t v_ = 0; v_ < sizeof(values) / sizeof((values)[0]); v_++) {                         \
        start(r, fmt, (values)[v_]);                                                               \
        (r)->work.field = (values)[v_];                                                            \
        finish(r, CLIK_ERR_INVALID_ARG);                                                           \
    }

/* A case of one replaced parameter, named as fmt says: parameter i as a new
 * w x h image of ch channels of type t (swap_image), refused with want. */
static void swapped_case(op_run *r, int i, int w, int h, int ch, clik_type t, clik_status want,
                         const char *fmt, ...) FORMAT(8, 9);
static void swapped_case(op_run *r, int i, int w, int h, int ch, clik_type t, clik_status want,
                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vstart(r, fmt, ap);
    va_end(ap);
    swap_image(r, i, w, h, ch, t);
    finish(r, want);
}

/* src and dst the same image: allowed (in place), with the oracle's result. */
static void in_place_ok(op_run *r, int in, int out)
{
    start(r, "%s and %s the same image (in place)", r->s->p[in].name, r->s->p[out].name);
    const param_spec *p = &r->s->p[in];
    int k = add_slot(r, make_slot(p->width, p->height, p->channels, p->type,
                                  is_device(r, in) ? h_ctx : NULL, "the in-place image"));
    slot_write(&r->slots[k], &r->pristine[in]);
    r->work.img[in] = r->work.img[out] = r->slots[k].img;
    clik_status st = spec_call(r->s, h_ctx, &r->work);
    expect_status(st, CLIK_OK);
    if (st == CLIK_OK) {
        void *mem;
        clik_image got = slot_view(&r->slots[k], &mem);
        sup_compare cmp;
        sup_compare_images(&got, &r->ref[out], r->s->p[out].tol, &cmp);
        EXPECT(cmp.pass, "in place gives a wrong result: %s", cmp.detail);
        free(mem);
    }
    drop_case_slots(r);
}

/* ---- descriptor spoilers: each makes one field of a valid descriptor wrong ------ */

/* spoil returns 0 where it does not apply to the image; without one, the
 * variant sets the int at offset field of the descriptor to value. */
typedef struct variant {
    const char *what;
    clik_status want;
    int (*spoil)(clik_image *img);
    size_t field;
    int value;
} variant;

static int v_cleared(clik_image *m)
{
    memset(m, 0, sizeof(*m));
    return 1;
}
static int v_type_zero(clik_image *m)
{
    m->type = (clik_type)0;
    return 1;
}
static int v_type_unknown(clik_image *m)
{
    m->type = (clik_type)99;
    return 1;
}
static int v_stride_zero(clik_image *m)
{
    m->stride = 0;
    return 1;
}
static int v_stride_short(clik_image *m)
{
    m->stride = row_bytes(m) - clik_type_size(m->type);
    return 1;
}
static int v_stride_misaligned(clik_image *m)
{
    if (clik_type_size(m->type) == 1)
        return 0;
    m->stride += 1;
    return 1;
}
static int v_stride_max(clik_image *m)
{
    m->stride = SIZE_MAX - SIZE_MAX % clik_type_size(m->type);
    return 1;
}
static int v_stride_wraps(clik_image *m)
{
    m->stride = SIZE_MAX / 2 + 1; /* a multiple of every element size */
    return m->height >= 3;
}

static const variant variants[] = {
    {"a cleared descriptor", CLIK_ERR_NULL, v_cleared, 0, 0},
    {"width 0", CLIK_ERR_INVALID_SIZE, NULL, offsetof(clik_image, width), 0},
    {"height -1", CLIK_ERR_INVALID_SIZE, NULL, offsetof(clik_image, height), -1},
    {"width INT_MIN", CLIK_ERR_INVALID_SIZE, NULL, offsetof(clik_image, width), INT_MIN},
    {"width 2^20 + 1", CLIK_ERR_INVALID_SIZE, NULL, offsetof(clik_image, width), MAX_SIDE + 1},
    {"height INT_MAX", CLIK_ERR_INVALID_SIZE, NULL, offsetof(clik_image, height), INT_MAX},
    {"0 channels", CLIK_ERR_UNSUPPORTED_FORMAT, NULL, offsetof(clik_image, channels), 0},
    {"5 channels", CLIK_ERR_UNSUPPORTED_FORMAT, NULL, offsetof(clik_image, channels), 5},
    {"order 2", CLIK_ERR_INVALID_ARG, NULL, offsetof(clik_image, order), 2},
    {"-4 channels", CLIK_ERR_UNSUPPORTED_FORMAT, NULL, offsetof(clik_image, channels), -4},
    {"8 channels", CLIK_ERR_UNSUPPORTED_FORMAT, NULL, offsetof(clik_image, channels), 8},
    {"type 0", CLIK_ERR_UNSUPPORTED_FORMAT, v_type_zero, 0, 0},
    {"type 99", CLIK_ERR_UNSUPPORTED_FORMAT, v_type_unknown, 0, 0},
    {"stride 0", CLIK_ERR_STRIDE, v_stride_zero, 0, 0},
    {"stride one element short of a row", CLIK_ERR_STRIDE, v_stride_short, 0, 0},
    {"stride not a multiple of the element size", CLIK_ERR_STRIDE, v_stride_misaligned, 0, 0},
    {"stride SIZE_MAX (the byte count overflows)", CLIK_ERR_OVERFLOW, v_stride_max, 0, 0},
    {"stride 2^63 (height x stride wraps)", CLIK_ERR_OVERFLOW, v_stride_wraps, 0, 0},
};
#define NVARIANTS ((int)(sizeof(variants) / sizeof(variants[0])))

/* Applies variant v to m; 0 where it does not apply. */
static int spoil(const variant *v, clik_image *m)
{
    if (v->spoil)
        return v->spoil(m);
    *(int *)(void *)((char *)m + v->field) = v->value;
    return 1;
}

/* NULL, every spoiled descriptor, both pointers set, an image of another
 * context, and the context of a failed create. */
static void descriptor_cases(op_run *r)
{
    const op_spec *s = r->s;
    start(r, "the context of a failed clik_context_create (NULL)");
    try_misuse(r, failed_ctx, CLIK_ERR_NULL);
    for (int i = 0; i < s->nparams; i++) {
        const param_spec *p = &s->p[i];
        if (p->arg == ARG_PTR) {
            start(r, "%s: NULL", p->name);
            r->work.ptr[i] = NULL;
            finish(r, CLIK_ERR_NULL);
        }
        for (int v = 0; v < NVARIANTS; v++) {
            start(r, "%s: %s", p->name, variants[v].what);
            if (spoil(&variants[v], &r->work.img[i]))
                finish(r, variants[v].want);
        }
        /* Both a host and a device image: neither (no pointer is NULL). */
        start(r, "%s: both data and buffer set", p->name);
        int k = add_slot(r, make_slot(p->width, p->height, p->channels, p->type,
                                      is_device(r, i) ? NULL : h_ctx, "the other half"));
        if (is_device(r, i))
            r->work.img[i].data = r->slots[k].img.data;
        else
            r->work.img[i].buffer = r->slots[k].img.buffer;
        finish(r, CLIK_ERR_INVALID_ARG);
        if (p->loc != LOC_HOST) {
            start(r, "%s: a device image of another context", p->name);
            k = add_slot(r, make_slot(p->width, p->height, p->channels, p->type, other_ctx,
                                      "the other context's image"));
            if (!p->out)
                slot_write(&r->slots[k], &r->pristine[i]);
            r->work.img[i] = r->slots[k].img;
            finish(r, CLIK_ERR_WRONG_CONTEXT);
        }
    }
}

/* Offset of a second image inside the first for a partial overlap: a row
 * down, kept 8-byte aligned for the wider element types. */
static size_t overlap_offset(const clik_image *first)
{
    size_t off = (first->stride + 7) & ~(size_t)7;
    if (off >= span_of(first))
        off = 8;
    return off < span_of(first) ? off : 0;
}

/* Every output sharing memory with an input or another output, partly
 * (host images: one buffer holds both; device images: a descriptor of
 * another format over the same buffer). */
static void overlap_cases(op_run *r)
{
    const op_spec *s = r->s;
    for (int i = 0; i < s->nparams; i++)
        for (int j = 0; j < s->nparams; j++) {
            if (i == j || (!s->p[i].out && !s->p[j].out))
                continue;
            const clik_image *a = &r->base.img[i], *b = &r->base.img[j];
            if (!is_device(r, i) && !is_device(r, j)) {
                const int same_format = a->width == b->width && a->height == b->height &&
                                        a->channels == b->channels && a->type == b->type;
                for (int shifted = 0; shifted < 2; shifted++) {
                    /* One address and one format is the same image (in
                     * place): a case of its own. */
                    size_t off = shifted ? overlap_offset(a) : 0;
                    if ((shifted && off == 0) || (!shifted && same_format))
                        continue;
                    start(r, "%s overlaps %s (%zu bytes in)", s->p[j].name, s->p[i].name, off);
                    size_t bytes = span_of(a);
                    if (off + span_of(b) > bytes)
                        bytes = off + span_of(b);
                    int k =
                        add_slot(r, make_slot((int)bytes, 1, 1, CLIK_U8, NULL, "shared memory"));
                    unsigned char *arena = r->slots[k].img.data;
                    clik_image at_a = *a, at_b = *b;
                    at_a.data = arena;
                    at_b.data = arena + off;
                    /* Inputs hold their pixels; outputs start as SENTINEL. */
                    if (!s->p[i].out)
                        copy_rows(&at_a, &r->pristine[i]);
                    if (!s->p[j].out)
                        copy_rows(&at_b, &r->pristine[j]);
                    r->work.img[i] = at_a;
                    r->work.img[j] = at_b;
                    finish(r, CLIK_ERR_INVALID_ARG);
                }
            } else if (is_device(r, i) && is_device(r, j) &&
                       (a->width != b->width || a->height != b->height ||
                        a->channels != b->channels || a->type != b->type) &&
                       span_of(b) <= span_of(a)) {
                start(r, "%s over the buffer of %s, as another format", s->p[j].name, s->p[i].name);
                r->work.img[j].buffer = a->buffer;
                finish(r, CLIK_ERR_INVALID_ARG);
            }
        }
}

static void run_call_in_child(void *arg)
{
    op_run *r = arg;
    _exit(100 + (int)spec_call(r->s, h_ctx, &r->work));
}

/* A device image whose descriptor claims more bytes than its buffer holds
 * (a larger stride). CPU contexts run the case in a child process (the
 * library may write past the buffer); OpenCL only for transfers, which the
 * runtime bounds-checks (kernels would write out of bounds in-process). */
static void oversize_cases(op_run *r)
{
    const op_spec *s = r->s;
    for (int i = 0; i < s->nparams; i++) {
        if (!is_device(r, i))
            continue;
        start(r, "%s: a device image descriptor larger than its buffer", s->p[i].name);
        r->work.img[i].stride += 16 * clik_type_size(s->p[i].type);
        if (clik_context_device(h_ctx)) {
            if (s->transfer)
                finish(r, CLIK_ERR_INVALID_ARG);
            continue;
        }
        int ws = in_child(run_call_in_child, r);
        if (WIFSIGNALED(ws))
            failed("crashed (signal %d)", WTERMSIG(ws));
        else if (WEXITSTATUS(ws) < 100)
            failed("memory errors in the call (exit %d; the sanitizer's or valgrind's report is "
                   "above)",
                   WEXITSTATUS(ws));
        else
            expect_status((clik_status)(WEXITSTATUS(ws) - 100), CLIK_ERR_INVALID_ARG);
    }
}

static void run_open(op_run *r, const op_spec *s, int device)
{
    memset(r, 0, sizeof(*r));
    r->s = s;
    r->device = device;
    int any = 0;
    for (int i = 0; i < s->nparams; i++)
        any |= s->p[i].loc == LOC_ANY;
    r->mode = !any ? "images" : device ? "device images" : "host images";
    for (int i = 0; i < s->nparams; i++) {
        const param_spec *p = &s->p[i];
        r->pristine[i] = host_image(p->width, p->height, p->channels, p->type, &r->pristine_mem[i]);
        if (!p->out)
            fill_input(&r->pristine[i], i);
    }
    if (s->fill)
        s->fill(r);
    for (int i = 0; i < s->nparams; i++) {
        const param_spec *p = &s->p[i];
        add_slot(r, make_slot(p->width, p->height, p->channels, p->type,
                              is_device(r, i) ? h_ctx : NULL, p->name));
        slot_write(&r->slots[i], &r->pristine[i]);
        r->base.img[i] = r->slots[i].img;
        r->base.ptr[i] = &r->base.img[i];
    }
    memset(&r->base.out, OUT_FILL, sizeof(r->base.out));
    if (s->init)
        s->init(&r->base);
    if (s->reference)
        s->reference(r);
    else
        default_reference(r);
    set_case("%s: a correct call", r->mode);
    works(r);
}

static void run_close(op_run *r)
{
    if (r->s->fini)
        r->s->fini(&r->base);
    for (int k = r->nslots - 1; k >= 0; k--)
        slot_free(&r->slots[k]);
    for (int i = 0; i < r->s->nparams; i++) {
        free(r->pristine_mem[i]);
        free(r->ref_mem[i]);
    }
}

/* Every case of a function that takes images, with host images and (where
 * it takes either) with device images. */
static void run_op(const op_spec *s)
{
    int any = 0;
    for (int i = 0; i < s->nparams; i++)
        any |= s->p[i].loc == LOC_ANY;
    for (int device = 0; device <= any; device++) {
        op_run *r = calloc(1, sizeof(*r));
        ck_assert_ptr_nonnull(r);
        run_open(r, s, device);
        descriptor_cases(r);
        if (s->extra)
            s->extra(r);
        overlap_cases(r);
        oversize_cases(r);
        run_close(r);
        free(r);
    }
}

/* ---- histogram family -------------------------------------------------------------- */

#define P_IN(n, w, h, c, t)                                                                        \
    {                                                                                              \
        n, w, h, c, t, 0, ARG_PTR, LOC_ANY, SUP_TOL_EXACT                                          \
    }
#define P_OUT(n, w, h, c, t)                                                                       \
    {                                                                                              \
        n, w, h, c, t, 1, ARG_PTR, LOC_ANY, SUP_TOL_EXACT                                          \
    }

static void init_hist(margs *a)
{
    a->use_hist = 1;
}

static clik_status call_hist(clik_context *ctx, margs *a)
{
    return clik_hist_compute(ctx, a->ptr[0], a->use_hist ? a->out.hist : NULL);
}

static void extra_hist(op_run *r)
{
    NULL_CASE(r, "hist NULL", use_hist);
    swapped_case(r, 0, 24, 20, 2, CLIK_U16, CLIK_ERR_UNSUPPORTED_FORMAT, "src u16");
    swapped_case(r, 0, 24, 20, 2, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "src f32");
    if (r->device)
        return;
    /* 2^20 x 4097 pixels: more than 32-bit counts hold. */
    start(r, "src of 2^20 x 4097 pixels (the counts overflow)");
    const size_t bytes = (size_t)MAX_SIDE * 4097;
    void *pixels = zero_pages(bytes, 0);
    if (!pixels) {
        printf("%s: %s: not run: no %zu bytes of address space\n", row_name, case_name, bytes);
        return;
    }
    r->work.img[0] =
        (clik_image){MAX_SIDE, 4097, 1, CLIK_U8, MAX_SIDE, pixels, NULL, 0, CLIK_ORDER_RGB};
    finish(r, CLIK_ERR_OVERFLOW);
    munmap(pixels, bytes);
}

static const op_spec hist_spec = {
    .nparams = 1,
    .p = {P_IN("src", 24, 20, 2, CLIK_U8)},
    .init = init_hist,
    .call = call_hist,
    .extra = extra_hist,
    .compare_hist = 1,
};

/* dst of another size or format than src. */
static void pair_mismatch_cases(op_run *r, int w, int h, int ch, clik_type t,
                                clik_status channel_status)
{
    swapped_case(r, 1, w - 1, h, ch, t, CLIK_ERR_SIZE_MISMATCH, "dst one column narrower");
    swapped_case(r, 1, w, h + 1, ch, t, CLIK_ERR_SIZE_MISMATCH, "dst one row taller");
    swapped_case(r, 1, w, h, ch == 2 ? 1 : 2, t, channel_status, "dst with other channels");
    swapped_case(r, 1, w, h, ch, CLIK_F64, CLIK_ERR_UNSUPPORTED_FORMAT, "dst f64");
    start(r, "src and dst u16");
    swap_image(r, 0, w, h, ch, CLIK_U16);
    swap_image(r, 1, w, h, ch, CLIK_U16);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
}

static void extra_equalize(op_run *r)
{
    /* A dst with other channels is CLIK_ERR_UNSUPPORTED_FORMAT, as in every
     * other family. */
    pair_mismatch_cases(r, 24, 20, 4, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT);
    in_place_ok(r, 0, 1);
}

static const op_spec equalize_spec = {
    .nparams = 2,
    .p = {P_IN("src", 24, 20, 4, CLIK_U8), P_OUT("dst", 24, 20, 4, CLIK_U8)},
    .image_op = clik_hist_equalize,
    .extra = extra_equalize,
};

static void extra_equalize_luma(op_run *r)
{
    pair_mismatch_cases(r, 24, 20, 4, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT);
    const int channels[] = {1, 2};
    for (int i = 0; i < 2; i++) {
        start(r, "src and dst of %d channels (the luma is that of colour)", channels[i]);
        swap_image(r, 0, 24, 20, channels[i], CLIK_U8);
        swap_image(r, 1, 24, 20, channels[i], CLIK_U8);
        finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
    }
    swapped_case(r, 0, 24, 20, 3, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT,
                 "src of 3 channels, dst of 4");
    in_place_ok(r, 0, 1);
}

static const op_spec equalize_luma_spec = {
    .nparams = 2,
    .p = {P_IN("src", 24, 20, 4, CLIK_U8), P_OUT("dst", 24, 20, 4, CLIK_U8)},
    .image_op = clik_hist_equalize_luma,
    .extra = extra_equalize_luma,
};

/* clahe: sigma is the clip limit, count x tile the grid. */
static void init_clahe(margs *a)
{
    a->sigma = 40.0;
    a->count = 8;
    a->tile = 5;
}

static clik_status call_clahe(clik_context *ctx, margs *a)
{
    return clik_clahe(ctx, a->ptr[0], a->ptr[1], a->sigma, a->count, a->tile);
}

static void extra_clahe(op_run *r)
{
    const double clips[] = {0.0, -1.0, NAN, INFINITY, -INFINITY};
    INVALID_VALUES(r, sigma, clips, "clip %g");
    const int grids[][2] = {{0, 8}, {8, 0}, {-1, 8}, {INT_MIN, 8}, {8, INT_MIN}};
    for (int i = 0; i < 5; i++) {
        start(r, "grid %dx%d", grids[i][0], grids[i][1]);
        r->work.count = grids[i][0];
        r->work.tile = grids[i][1];
        finish(r, CLIK_ERR_INVALID_ARG);
    }
    const int large[][2] = {{25, 5}, {8, 21}, {INT_MAX, 8}, {8, INT_MAX}};
    for (int i = 0; i < 4; i++) {
        start(r, "grid %dx%d on a 24x20 image", large[i][0], large[i][1]);
        r->work.count = large[i][0];
        r->work.tile = large[i][1];
        finish(r, CLIK_ERR_INVALID_SIZE);
    }
    pair_mismatch_cases(r, 24, 20, 4, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT);
    start(r, "src and dst of 2 channels (grey or colour)");
    swap_image(r, 0, 24, 20, 2, CLIK_U8);
    swap_image(r, 1, 24, 20, 2, CLIK_U8);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
    swapped_case(r, 0, 24, 20, 3, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT,
                 "src of 3 channels, dst of 4");
    in_place_ok(r, 0, 1);
}

static const op_spec clahe_spec = {
    .nparams = 2,
    .p = {P_IN("src", 24, 20, 4, CLIK_U8), P_OUT("dst", 24, 20, 4, CLIK_U8)},
    .init = init_clahe,
    .call = call_clahe,
    .extra = extra_clahe,
};

static void init_lut(margs *a)
{
    a->use_tables = 1;
    a->ntables = 4;
    for (int i = 0; i < 4 * 256; i++)
        a->tables[i] = (uint8_t)(i * 167 + 13);
}

static clik_status call_lut(clik_context *ctx, margs *a)
{
    return clik_hist_lut(ctx, a->ptr[0], a->ptr[1], a->use_tables ? a->tables : NULL, a->ntables);
}

static void extra_lut(op_run *r)
{
    NULL_CASE(r, "tables NULL", use_tables);
    const int counts[] = {0, 2, 3, 5, -1, INT_MAX, INT_MIN};
    INVALID_VALUES(r, ntables, counts, "ntables %d for 4 channels");
    pair_mismatch_cases(r, 24, 20, 4, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT); /* as equalize */
    in_place_ok(r, 0, 1);
}

static const op_spec lut_spec = {
    .nparams = 2,
    .p = {P_IN("src", 24, 20, 4, CLIK_U8), P_OUT("dst", 24, 20, 4, CLIK_U8)},
    .init = init_lut,
    .call = call_lut,
    .extra = extra_lut,
};

/* ---- pyramid family ---------------------------------------------------------------- */

/* The refusals of a pyramid step (src p[0], dst p[1] of r's spec): a dst of
 * each of the n sizes, of type other or of 1 channel, and src and dst both
 * of type neither, which the step does not take. */
static void pyr_step_refusals(op_run *r, const int (*sizes)[2], int n, clik_type other,
                              clik_type neither)
{
    const param_spec *src = &r->s->p[0], *dst = &r->s->p[1];
    for (int i = 0; i < n; i++) {
        swapped_case(r, 1, sizes[i][0], sizes[i][1], dst->channels, dst->type,
                     CLIK_ERR_SIZE_MISMATCH, "dst %dx%d", sizes[i][0], sizes[i][1]);
    }
    swapped_case(r, 1, dst->width, dst->height, dst->channels, other, CLIK_ERR_UNSUPPORTED_FORMAT,
                 "dst %s for %s src", clik_type_name(other), clik_type_name(src->type));
    swapped_case(r, 1, dst->width, dst->height, 1, dst->type, CLIK_ERR_UNSUPPORTED_FORMAT,
                 "dst of 1 channel for %d", dst->channels);
    start(r, "src and dst %s", clik_type_name(neither));
    swap_image(r, 0, src->width, src->height, src->channels, neither);
    swap_image(r, 1, dst->width, dst->height, dst->channels, neither);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
}

static void extra_pyr_down(op_run *r)
{
    const int sizes[][2] = {{13, 10}, {12, 11}, {11, 10}, {24, 20}};
    pyr_step_refusals(r, sizes, 4, CLIK_F32, CLIK_U16);
}

static const op_spec pyr_down_spec = {
    .nparams = 2,
    .p = {P_IN("src", 24, 20, 2, CLIK_U8), P_OUT("dst", 12, 10, 2, CLIK_U8)},
    .image_op = clik_pyr_down,
    .extra = extra_pyr_down,
};

static void extra_pyr_up(op_run *r)
{
    const int sizes[][2] = {{25, 20}, {24, 21}, {22, 20}, {24, 18}, {12, 10}};
    pyr_step_refusals(r, sizes, 5, CLIK_U8, CLIK_S16);
}

static const op_spec pyr_up_spec = {
    .nparams = 2,
    .p = {{"src", 12, 10, 4, CLIK_F32, 0, ARG_PTR, LOC_ANY, SUP_TOL_F32},
          {"dst", 24, 20, 4, CLIK_F32, 1, ARG_PTR, LOC_ANY, SUP_TOL_F32}},
    .image_op = clik_pyr_up,
    .extra = extra_pyr_up,
};

static void init_count3(margs *a)
{
    a->count = 3;
}

/* Counts a 24 x 20 pyramid cannot have (it has 1 to 5 levels). */
static void bad_counts(op_run *r)
{
    const int counts[] = {0, -1, 6, INT_MAX, INT_MIN};
    INVALID_VALUES(r, count, counts, "count %d");
}

static clik_status call_gaussian(clik_context *ctx, margs *a)
{
    return clik_pyr_gaussian(ctx, a->ptr[0], a->ptr[1], a->count);
}

static void extra_gaussian(op_run *r)
{
    bad_counts(r);
    swapped_case(r, 2, 7, 5, 1, CLIK_U8, CLIK_ERR_SIZE_MISMATCH, "level 2 of 7x5");
    swapped_case(r, 1, 12, 10, 1, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "level 1 f32");
    swapped_case(r, 3, 3, 3, 2, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT, "level 3 of 2 channels");
    swapped_case(r, 0, 24, 20, 1, CLIK_U16, CLIK_ERR_UNSUPPORTED_FORMAT, "src u16");
}

#define P_LEVEL(n, w, h, t)                                                                        \
    {                                                                                              \
        n, w, h, 1, t, 1, ARG_ELEM, LOC_ANY, SUP_TOL_EXACT                                         \
    }

static const op_spec gaussian_spec = {
    .nparams = 4,
    .p = {P_IN("src", 24, 20, 1, CLIK_U8), P_OUT("level 1", 12, 10, 1, CLIK_U8),
          P_LEVEL("level 2", 6, 5, CLIK_U8), P_LEVEL("level 3", 3, 3, CLIK_U8)},
    .init = init_count3,
    .call = call_gaussian,
    .extra = extra_gaussian,
};

static clik_status call_laplacian(clik_context *ctx, margs *a)
{
    return clik_pyr_laplacian(ctx, a->ptr[0], a->ptr[1], a->count);
}

static void extra_laplacian(op_run *r)
{
    bad_counts(r);
    swapped_case(r, 1, 24, 20, 1, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT, "band 0 u8");
    swapped_case(r, 3, 6, 5, 1, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT,
                 "band 2 f32 among s16 bands");
    swapped_case(r, 2, 13, 10, 1, CLIK_S16, CLIK_ERR_SIZE_MISMATCH, "band 1 of 13x10");
    swapped_case(r, 4, 3, 3, 2, CLIK_S16, CLIK_ERR_UNSUPPORTED_FORMAT, "band 3 of 2 channels");
    swapped_case(r, 0, 24, 20, 1, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "s16 bands of an f32 src");
}

static const op_spec laplacian_spec = {
    .nparams = 5,
    .p = {P_IN("src", 24, 20, 1, CLIK_U8), P_OUT("band 0", 24, 20, 1, CLIK_S16),
          P_LEVEL("band 1", 12, 10, CLIK_S16), P_LEVEL("band 2", 6, 5, CLIK_S16),
          P_LEVEL("band 3", 3, 3, CLIK_S16)},
    .init = init_count3,
    .call = call_laplacian,
    .extra = extra_laplacian,
};

static clik_status call_collapse(clik_context *ctx, margs *a)
{
    return clik_pyr_collapse(ctx, a->ptr[0], a->count, a->ptr[4]);
}

/* The bands of a real u8 image: collapse gives it back exactly. */
static void fill_collapse(op_run *r)
{
    void *mem;
    clik_image src = host_image(24, 20, 1, CLIK_U8, &mem);
    sup_pattern_fill(&src, SUP_PATTERN_EDGES, 5);
    ck_assert_int_eq(clik_pyr_laplacian(h_oracle, &src, r->pristine, 3), CLIK_OK);
    free(mem);
}

static void extra_collapse(op_run *r)
{
    bad_counts(r);
    swapped_case(r, 4, 24, 20, 1, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "dst f32 from s16 bands");
    swapped_case(r, 4, 24, 20, 2, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT, "dst of 2 channels");
    swapped_case(r, 4, 25, 20, 1, CLIK_U8, CLIK_ERR_SIZE_MISMATCH, "dst of 25x20");
    swapped_case(r, 0, 24, 20, 1, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT, "band 0 u8");
    swapped_case(r, 2, 6, 5, 1, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT,
                 "band 2 f32 among s16 bands");
}

static const op_spec collapse_spec = {
    .nparams = 5,
    .p = {P_IN("band 0", 24, 20, 1, CLIK_S16),
          {"band 1", 12, 10, 1, CLIK_S16, 0, ARG_ELEM, LOC_ANY, SUP_TOL_EXACT},
          {"band 2", 6, 5, 1, CLIK_S16, 0, ARG_ELEM, LOC_ANY, SUP_TOL_EXACT},
          {"band 3", 3, 3, 1, CLIK_S16, 0, ARG_ELEM, LOC_ANY, SUP_TOL_EXACT},
          P_OUT("dst", 24, 20, 1, CLIK_U8)},
    .init = init_count3,
    .call = call_collapse,
    .extra = extra_collapse,
    .fill = fill_collapse,
};

/* ---- integral ------------------------------------------------------------------------ */

static clik_status call_integral(clik_context *ctx, margs *a)
{
    return clik_integral(ctx, a->ptr[0], a->ptr[1], a->ptr[2]);
}

static void extra_integral(op_run *r)
{
    const clik_type sums[] = {CLIK_U8, CLIK_F32, CLIK_S16};
    for (int i = 0; i < 3; i++) {
        swapped_case(r, 1, 25, 21, 2, sums[i], CLIK_ERR_UNSUPPORTED_FORMAT, "sum %s of u8 pixels",
                     clik_type_name(sums[i]));
    }
    swapped_case(r, 2, 25, 21, 2, CLIK_U32, CLIK_ERR_UNSUPPORTED_FORMAT, "sqsum u32");
    swapped_case(r, 1, 24, 20, 2, CLIK_U32, CLIK_ERR_SIZE_MISMATCH,
                 "sum of 24x20 (the src's size)");
    swapped_case(r, 2, 25, 22, 2, CLIK_U64, CLIK_ERR_SIZE_MISMATCH, "sqsum of 25x22");
    swapped_case(r, 1, 25, 21, 1, CLIK_U32, CLIK_ERR_UNSUPPORTED_FORMAT, "sum of 1 channel for 2");
    swapped_case(r, 0, 24, 20, 2, CLIK_U16, CLIK_ERR_UNSUPPORTED_FORMAT, "src u16");
    /* Two outputs in one image: neither would hold its result. */
    start(r, "sum and sqsum the same u64 image");
    r->work.img[2] = *swap_image(r, 1, 25, 21, 2, CLIK_U64);
    finish(r, CLIK_ERR_INVALID_ARG);
    if (r->device)
        return;
    /* 255 x 4200 x 4100 > 2^32 - 1: u32 sums overflow. Zero pages stand for
     * the pixels and the sums: nothing is committed unless written. */
    start(r, "u32 sums of a 4200x4100 u8 image (they overflow)");
    const size_t in_bytes = (size_t)4200 * 4100, out_bytes = (size_t)4201 * 4101 * 4;
    void *pixels = zero_pages(in_bytes, 0), *sum = zero_pages(out_bytes, 1);
    if (pixels && sum) {
        r->work.img[0] =
            (clik_image){4200, 4100, 1, CLIK_U8, 4200, pixels, NULL, 0, CLIK_ORDER_RGB};
        r->work.img[1] =
            (clik_image){4201, 4101, 1, CLIK_U32, 4201 * 4, sum, NULL, 0, CLIK_ORDER_RGB};
        r->work.ptr[2] = NULL;
        finish(r, CLIK_ERR_OVERFLOW);
        set_case("%s: u32 sums of a 4200x4100 u8 image (they overflow)", r->mode);
        EXPECT(all_bytes(sum, out_bytes, 0), "wrote the sums");
    } else {
        printf("%s: %s: not run: no address space\n", row_name, case_name);
    }
    if (pixels)
        munmap(pixels, in_bytes);
    if (sum)
        munmap(sum, out_bytes);
}

static const op_spec integral_spec = {
    .nparams = 3,
    .p = {P_IN("src", 24, 20, 2, CLIK_U8),
          P_OUT("sum", 25, 21, 2, CLIK_U32),
          {"sqsum", 25, 21, 2, CLIK_U64, 1, ARG_OPT, LOC_ANY, SUP_TOL_EXACT}},
    .call = call_integral,
    .extra = extra_integral,
};

/* ---- resize and filters ------------------------------------------------------------- */

static void init_resize(margs *a)
{
    a->method = CLIK_INTERP_BICUBIC;
}

static clik_status call_resize(clik_context *ctx, margs *a)
{
    return clik_resize(ctx, a->ptr[0], a->ptr[1], a->method);
}

static void extra_resize(op_run *r)
{
    const int methods[] = {-1, 4, INT_MAX};
    INVALID_VALUES(r, method, methods, "method %d");
    start(r, "src of 2 channels, dst of 3");
    swap_image(r, 0, 24, 20, 2, CLIK_U8);
    swap_image(r, 1, 36, 30, 3, CLIK_U8);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
    swapped_case(r, 1, 36, 30, 1, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT, "dst of 1 channel for 4");
    swapped_case(r, 1, 36, 30, 4, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "dst f32 for u8 src");
    start(r, "src and dst u16");
    swap_image(r, 0, 24, 20, 4, CLIK_U16);
    swap_image(r, 1, 36, 30, 4, CLIK_U16);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
    start(r, "dst the same image as src (no resizing in place)");
    r->work.img[1] = r->work.img[0];
    finish(r, CLIK_ERR_INVALID_ARG);
}

static const op_spec resize_spec = {
    .nparams = 2,
    .p = {P_IN("src", 24, 20, 4, CLIK_U8),
          {"dst", 36, 30, 4, CLIK_U8, 1, ARG_PTR, LOC_ANY, SUP_TOL_U8_FLOAT}},
    .init = init_resize,
    .call = call_resize,
    .extra = extra_resize,
};

static void init_resize_scaled(margs *a)
{
    a->method = CLIK_INTERP_BICUBIC;
    a->fx = a->fy = 1.37;
}

static clik_status call_resize_scaled(clik_context *ctx, margs *a)
{
    return clik_resize_scaled(ctx, a->ptr[0], a->ptr[1], a->method, a->fx, a->fy);
}

/* Scales that are not finite and positive, and a dst not of the scale. */
static void extra_resize_scaled(op_run *r)
{
    extra_resize(r);
    const double bad[] = {0.0, -1.37, NAN, INFINITY};
    INVALID_VALUES(r, fy, bad, "scale_y %g");
    swapped_case(r, 1, 36, 30, 4, CLIK_U8, CLIK_ERR_INVALID_SIZE, "dst 36x30, not 33x27");
}

/* 24 x 20 by 1.37: 33 x 27. */
static const op_spec resize_scaled_spec = {
    .nparams = 2,
    .p = {P_IN("src", 24, 20, 4, CLIK_U8),
          {"dst", 33, 27, 4, CLIK_U8, 1, ARG_PTR, LOC_ANY, SUP_TOL_U8_FLOAT}},
    .init = init_resize_scaled,
    .call = call_resize_scaled,
    .extra = extra_resize_scaled,
};

static void init_blur(margs *a)
{
    a->ksize = 5;
    a->sigma = 1.2;
}

static clik_status call_blur(clik_context *ctx, margs *a)
{
    return clik_gaussian_blur(ctx, a->ptr[0], a->ptr[1], a->ksize, a->sigma);
}

static void extra_blur(op_run *r)
{
    const int ksizes[] = {0, -3, 2, 33, INT_MAX, INT_MIN};
    INVALID_VALUES(r, ksize, ksizes, "ksize %d");
    const double sigmas[] = {NAN, INFINITY, -INFINITY};
    INVALID_VALUES(r, sigma, sigmas, "sigma %g");
    pair_mismatch_cases(r, 24, 20, 2, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT);
    in_place_ok(r, 0, 1);
}

static const op_spec blur_spec = {
    .nparams = 2,
    .p = {P_IN("src", 24, 20, 2, CLIK_U8),
          {"dst", 24, 20, 2, CLIK_U8, 1, ARG_PTR, LOC_ANY, SUP_TOL_U8_FLOAT}},
    .init = init_blur,
    .call = call_blur,
    .extra = extra_blur,
};

static void extra_gray(op_run *r)
{
    swapped_case(r, 0, 24, 20, 2, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT, "src of 2 channels");
    swapped_case(r, 1, 24, 20, 4, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT, "dst of 4 channels");
    swapped_case(r, 1, 24, 20, 1, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "dst f32 for u8 src");
    swapped_case(r, 1, 24, 21, 1, CLIK_U8, CLIK_ERR_SIZE_MISMATCH, "dst of 24x21");
    start(r, "src and dst u16");
    swap_image(r, 0, 24, 20, 4, CLIK_U16);
    swap_image(r, 1, 24, 20, 1, CLIK_U16);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
}

static const op_spec gray_spec = {
    .nparams = 2,
    .p = {P_IN("src", 24, 20, 4, CLIK_U8), P_OUT("dst", 24, 20, 1, CLIK_U8)},
    .image_op = clik_gray,
    .extra = extra_gray,
};

/* ---- SSIM ---------------------------------------------------------------------------- */

static void init_ssim(margs *a)
{
    a->use_mean = 1;
}

static clik_status call_ssim(clik_context *ctx, margs *a)
{
    return clik_ssim(ctx, a->ptr[0], a->ptr[1], a->ptr[2], a->use_mean ? &a->out.mean : NULL);
}

/* a and b that do not agree or that the function does not take. */
static void ssim_input_cases(op_run *r, int allow_f32)
{
    swapped_case(r, 1, 24, 21, 1, CLIK_U8, CLIK_ERR_SIZE_MISMATCH, "b of 24x21");
    swapped_case(r, 1, 24, 20, 1, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "b f32, a u8");
    start(r, "a and b of 2 channels");
    swap_image(r, 0, 24, 20, 2, CLIK_U8);
    swap_image(r, 1, 24, 20, 2, CLIK_U8);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
    start(r, "a and b u16");
    swap_image(r, 0, 24, 20, 1, CLIK_U16);
    swap_image(r, 1, 24, 20, 1, CLIK_U16);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
    if (!allow_f32) {
        start(r, "a and b f32");
        swap_image(r, 0, 24, 20, 1, CLIK_F32);
        swap_image(r, 1, 24, 20, 1, CLIK_F32);
        finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
    }
}

static void extra_ssim(op_run *r)
{
    start(r, "map and mean both NULL");
    r->work.ptr[2] = NULL;
    r->work.use_mean = 0;
    finish(r, CLIK_ERR_NULL);
    start(r, "a and b of 10x10 (smaller than the window)");
    swap_image(r, 0, 10, 10, 1, CLIK_U8);
    swap_image(r, 1, 10, 10, 1, CLIK_U8);
    r->work.ptr[2] = NULL;
    finish(r, CLIK_ERR_INVALID_SIZE);
    start(r, "a and b of 10x20");
    swap_image(r, 0, 10, 20, 1, CLIK_U8);
    swap_image(r, 1, 10, 20, 1, CLIK_U8);
    r->work.ptr[2] = NULL;
    finish(r, CLIK_ERR_INVALID_SIZE);
    ssim_input_cases(r, 1);
    swapped_case(r, 2, 14, 10, 1, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT, "map u8");
    swapped_case(r, 2, 14, 11, 1, CLIK_F32, CLIK_ERR_SIZE_MISMATCH, "map of 14x11");
    swapped_case(r, 2, 14, 10, 2, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "map of 2 channels");
}

static const op_spec ssim_spec = {
    .nparams = 3,
    .p = {P_IN("a", 24, 20, 1, CLIK_U8),
          P_IN("b", 24, 20, 1, CLIK_U8),
          {"map", 14, 10, 1, CLIK_F32, 1, ARG_OPT, LOC_ANY, SUP_TOL_SSIM}},
    .init = init_ssim,
    .call = call_ssim,
    .extra = extra_ssim,
    .compare_mean = 1,
};

static void init_tiles(margs *a)
{
    a->tile = 8;
}

static clik_status call_tiles(clik_context *ctx, margs *a)
{
    return clik_ssim_tiles(ctx, a->ptr[0], a->ptr[1], a->tile, a->ptr[2]);
}

static void extra_tiles(op_run *r)
{
    const int tiles[] = {0, 1, 17, -8, INT_MAX, INT_MIN};
    INVALID_VALUES(r, tile, tiles, "tile %d");
    ssim_input_cases(r, 0);
    swapped_case(r, 2, 3, 4, 1, CLIK_F32, CLIK_ERR_SIZE_MISMATCH, "map of 3x4");
    swapped_case(r, 2, 3, 3, 1, CLIK_F64, CLIK_ERR_UNSUPPORTED_FORMAT, "map f64");
}

static const op_spec tiles_spec = {
    .nparams = 3,
    .p = {P_IN("a", 24, 20, 1, CLIK_U8),
          P_IN("b", 24, 20, 1, CLIK_U8),
          {"map", 3, 3, 1, CLIK_F32, 1, ARG_PTR, LOC_ANY, SUP_TOL_F32}},
    .init = init_tiles,
    .call = call_tiles,
    .extra = extra_tiles,
};

/* ---- fusion ---------------------------------------------------------------------------- */

#define FW 16 /* fusion frames: 16 x 12 RGBA, scaled by 2 */
#define FH 12

static clik_status call_fusion(clik_context *ctx, margs *a)
{
    return clik_upscale_fusion(ctx, a->ptr[0], a->ptr[1], a->use_opt ? &a->opt : NULL, a->ptr[2]);
}

static void bad_options(op_run *r)
{
    const int tiles[] = {1, 17, 0}, blurs[] = {0, 2, 33, -1};
    for (int i = 0; i < 3; i++) {
        start(r, "option tile %d", tiles[i]);
        clik_fusion_options_init(&r->work.opt);
        r->work.use_opt = 1;
        r->work.opt.tile = tiles[i];
        finish(r, CLIK_ERR_INVALID_ARG);
    }
    for (int i = 0; i < 4; i++) {
        start(r, "option blur_ksize %d", blurs[i]);
        clik_fusion_options_init(&r->work.opt);
        r->work.use_opt = 1;
        r->work.opt.blur_ksize = blurs[i];
        finish(r, CLIK_ERR_INVALID_ARG);
    }
    const float thresholds[] = {NAN, INFINITY};
    for (int i = 0; i < 2; i++) {
        start(r, "option threshold %g", (double)thresholds[i]);
        clik_fusion_options_init(&r->work.opt);
        r->work.use_opt = 1;
        r->work.opt.threshold = thresholds[i];
        finish(r, CLIK_ERR_INVALID_ARG);
    }
}

/* dst (and map) sizes that are no integer scale of 2..8 of the frame. */
static void bad_scales(op_run *r)
{
    const int sizes[][2] = {{2 * FW + 1, 2 * FH}, {FW, FH}, {9 * FW, 9 * FH}, {2 * FW, 3 * FH}};
    for (int i = 0; i < 4; i++) {
        start(r, "dst of %dx%d", sizes[i][0], sizes[i][1]);
        swap_image(r, 1, sizes[i][0], sizes[i][1], 4, CLIK_U8);
        swap_image(r, 2, sizes[i][0], sizes[i][1], 1, CLIK_U8);
        finish(r, CLIK_ERR_SIZE_MISMATCH);
    }
}

static void extra_fusion(op_run *r)
{
    bad_options(r);
    bad_scales(r);
    swapped_case(r, 0, FW, FH, 1, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT, "src of 1 channel");
    swapped_case(r, 1, 2 * FW, 2 * FH, 4, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "dst f32");
    swapped_case(r, 2, 2 * FW, 2 * FH, 4, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT,
                 "map of 4 channels");
    swapped_case(r, 2, 2 * FW, 2 * FH, 1, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "map f32");
    swapped_case(r, 2, 2 * FW, 2 * FH + 1, 1, CLIK_U8, CLIK_ERR_SIZE_MISMATCH, "map of %dx%d",
                 2 * FW, 2 * FH + 1);
}

static const op_spec fusion_spec = {
    .nparams = 3,
    .p = {P_IN("src", FW, FH, 4, CLIK_U8),
          {"dst", 2 * FW, 2 * FH, 4, CLIK_U8, 1, ARG_PTR, LOC_ANY, SUP_TOL_FUSION},
          {"artifact map", 2 * FW, 2 * FH, 1, CLIK_U8, 1, ARG_OPT, LOC_ANY, SUP_TOL_FUSION}},
    .call = call_fusion,
    .extra = extra_fusion,
};

static void init_stream(margs *a)
{
    a->use_ticket = 1;
    clik_status st = clik_fusion_stream_create(h_ctx, FW, FH, 2, NULL, 2, &a->stream);
    ck_assert_msg(st == CLIK_OK, "stream: %s: %s", sname(st), clik_context_message(h_ctx));
}

static void fini_stream(margs *a)
{
    clik_fusion_stream_destroy(a->stream);
}

/* Submits one frame and waits for it; ctx NULL passes a NULL stream. */
static clik_status call_submit(clik_context *ctx, margs *a)
{
    clik_fusion_stream *s = ctx ? a->stream : NULL;
    clik_status st = clik_fusion_stream_submit(s, a->ptr[0], a->ptr[1], a->ptr[2],
                                               a->use_ticket ? &a->out.ticket : NULL);
    if (st == CLIK_OK)
        st = clik_fusion_stream_wait(s, UINT64_MAX);
    return st;
}

static void reference_fusion(op_run *r)
{
    margs ra;
    reference_args(r, &ra);
    clik_status st = clik_upscale_fusion(h_oracle, ra.ptr[0], ra.ptr[1], NULL, ra.ptr[2]);
    ck_assert_msg(st == CLIK_OK, "oracle fusion: %s", sname(st));
}

static void extra_submit(op_run *r)
{
    bad_scales(r);
    const char *names[] = {"src", "dst", "artifact map"};
    for (int i = 0; i < 3; i++) {
        start(r, "%s a device image", names[i]);
        const param_spec *p = &r->s->p[i];
        swap_image_at(r, i, p->width, p->height, p->channels, p->type, 1);
        finish(r, CLIK_ERR_INVALID_ARG);
    }
    start(r, "a frame of another size than the stream's");
    swap_image(r, 0, FW + 4, FH, 4, CLIK_U8);
    swap_image(r, 1, 2 * FW + 8, 2 * FH, 4, CLIK_U8);
    swap_image(r, 2, 2 * FW + 8, 2 * FH, 1, CLIK_U8);
    finish(r, CLIK_ERR_SIZE_MISMATCH);
    start(r, "a frame of another scale than the stream's");
    swap_image(r, 1, 3 * FW, 3 * FH, 4, CLIK_U8);
    swap_image(r, 2, 3 * FW, 3 * FH, 1, CLIK_U8);
    finish(r, CLIK_ERR_SIZE_MISMATCH);
}

#define P_FRAME(n, w, h, c, out, arg)                                                              \
    {                                                                                              \
        n, w, h, c, CLIK_U8, out, arg, LOC_HOST, SUP_TOL_FUSION                                    \
    }

static const op_spec submit_spec = {
    .nparams = 3,
    .p = {P_FRAME("src", FW, FH, 4, 0, ARG_PTR), P_FRAME("dst", 2 * FW, 2 * FH, 4, 1, ARG_PTR),
          P_FRAME("artifact map", 2 * FW, 2 * FH, 1, 1, ARG_OPT)},
    .init = init_stream,
    .call = call_submit,
    .extra = extra_submit,
    .reference = reference_fusion,
    .fini = fini_stream,
};

/* ---- optical flow ---------------------------------------------------------------------------- */

#define FLW 16 /* flow images: 16 x 12, two levels of one warp of 10 iterations */
#define FLH 12

static void init_flow(margs *a)
{
    a->use_opt = 1;
    clik_flow_options_init(&a->flow);
    a->flow.scales = 2;
    a->flow.warps = 1;
    a->flow.iterations = CLIK_FLOW_CHECK_EVERY;
    a->flow.storage = CLIK_FLOW_STORAGE_F32;
}

static clik_status call_flow(clik_context *ctx, margs *a)
{
    return clik_flow_tvl1(ctx, a->ptr[0], a->ptr[1], a->ptr[2], a->use_opt ? &a->flow : NULL);
}

/* I1 is I0 moved a pixel to the right: a flow of about (1, 0) to find. */
static void fill_flow(op_run *r)
{
    const clik_image *i0 = &r->pristine[0], *i1 = &r->pristine[1];
    sup_pattern_fill(&r->pristine[0], SUP_PATTERN_EDGES, 7);
    for (int y = 0; y < FLH; y++) {
        const uint8_t *in = (const uint8_t *)i0->data + (size_t)y * i0->stride;
        uint8_t *out = (uint8_t *)i1->data + (size_t)y * i1->stride;
        for (int x = 0; x < FLW; x++)
            out[x] = in[x > 0 ? x - 1 : 0];
    }
}

#define FLOW_FIELD(f) #f, offsetof(clik_flow_options, f)

/* Every option out of its range, NaN and the infinities among them. */
static void bad_flow_options(op_run *r)
{
    const struct {
        const char *name;
        size_t at;
        double v;
    } reals[] = {
        {FLOW_FIELD(tau), 0.0},          {FLOW_FIELD(tau), -0.25},
        {FLOW_FIELD(tau), 0.2500001},    {FLOW_FIELD(tau), NAN},
        {FLOW_FIELD(tau), INFINITY},     {FLOW_FIELD(lambda), 0.0},
        {FLOW_FIELD(lambda), -1.0},      {FLOW_FIELD(lambda), NAN},
        {FLOW_FIELD(lambda), INFINITY},  {FLOW_FIELD(theta), 0.0},
        {FLOW_FIELD(theta), -0.3},       {FLOW_FIELD(theta), NAN},
        {FLOW_FIELD(theta), -INFINITY},  {FLOW_FIELD(zoom), 0.0},
        {FLOW_FIELD(zoom), -0.5},        {FLOW_FIELD(zoom), 1.0},
        {FLOW_FIELD(zoom), 1.5},         {FLOW_FIELD(zoom), NAN},
        {FLOW_FIELD(epsilon), -0.01},    {FLOW_FIELD(epsilon), NAN},
        {FLOW_FIELD(epsilon), INFINITY}, {FLOW_FIELD(sigma), -0.8},
        {FLOW_FIELD(sigma), 100.5},      {FLOW_FIELD(sigma), NAN},
        {FLOW_FIELD(sigma), INFINITY},
    };
    for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
        start(r, "option %s %g", reals[i].name, reals[i].v);
        memcpy((char *)&r->work.flow + reals[i].at, &reals[i].v, sizeof(double));
        finish(r, CLIK_ERR_INVALID_ARG);
    }
    const struct {
        const char *name;
        size_t at;
        int v;
    } ints[] = {
        {FLOW_FIELD(scales), -1},
        {FLOW_FIELD(scales), CLIK_FLOW_MAX_SCALES + 1},
        {FLOW_FIELD(scales), INT_MIN},
        {FLOW_FIELD(warps), 0},
        {FLOW_FIELD(warps), -1},
        {FLOW_FIELD(warps), 1001},
        {FLOW_FIELD(warps), INT_MAX},
        {FLOW_FIELD(iterations), 0},
        {FLOW_FIELD(iterations), -300},
        {FLOW_FIELD(iterations), INT_MIN},
        {FLOW_FIELD(initial_flow), 2},
        {FLOW_FIELD(initial_flow), -1},
        {FLOW_FIELD(initial_flow), INT_MAX},
    };
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        start(r, "option %s %d", ints[i].name, ints[i].v);
        memcpy((char *)&r->work.flow + ints[i].at, &ints[i].v, sizeof(int));
        finish(r, CLIK_ERR_INVALID_ARG);
    }
    const int storages[] = {-1, 3, INT_MAX};
    INVALID_VALUES(r, flow.storage, storages, "option storage %d");
}

static void extra_flow(op_run *r)
{
    bad_flow_options(r);
    swapped_case(r, 1, FLW, FLH, 1, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "I1 f32, I0 u8");
    swapped_case(r, 1, FLW, FLH + 1, 1, CLIK_U8, CLIK_ERR_SIZE_MISMATCH, "I1 of %dx%d", FLW,
                 FLH + 1);
    swapped_case(r, 1, FLW - 1, FLH, 1, CLIK_U8, CLIK_ERR_SIZE_MISMATCH, "I1 of %dx%d", FLW - 1,
                 FLH);
    const struct {
        int ch;
        clik_type t;
    } inputs[] = {{2, CLIK_U8}, {4, CLIK_U16}, {1, CLIK_U16}, {1, CLIK_F16}, {1, CLIK_F64}};
    swapped_case(r, 1, FLW, FLH, 3, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT,
                 "I1 of 3 channels, I0 grey");
    for (int i = 0; i < 5; i++) {
        start(r, "I0 and I1 of %d channels %s", inputs[i].ch, clik_type_name(inputs[i].t));
        swap_image(r, 0, FLW, FLH, inputs[i].ch, inputs[i].t);
        swap_image(r, 1, FLW, FLH, inputs[i].ch, inputs[i].t);
        finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
    }
    const struct {
        int ch;
        clik_type t;
    } flows[] = {{1, CLIK_F32}, {4, CLIK_F32}, {2, CLIK_U8}, {2, CLIK_F64}, {2, CLIK_S32}};
    for (int i = 0; i < 5; i++) {
        swapped_case(r, 2, FLW, FLH, flows[i].ch, flows[i].t, CLIK_ERR_UNSUPPORTED_FORMAT,
                     "flow of %d channels %s", flows[i].ch, clik_type_name(flows[i].t));
    }
    const int sizes[][2] = {{FLW - 1, FLH}, {FLW, FLH + 1}, {2 * FLW, 2 * FLH}};
    for (int initial = 0; initial < 2; initial++)
        for (int i = 0; i < 3; i++) {
            start(r, "%s of %dx%d", initial ? "an initial flow" : "flow", sizes[i][0], sizes[i][1]);
            r->work.flow.initial_flow = initial;
            swap_image(r, 2, sizes[i][0], sizes[i][1], 2, CLIK_F32);
            finish(r, CLIK_ERR_SIZE_MISMATCH);
        }
    start(r, "an initial flow of 1 channel");
    r->work.flow.initial_flow = 1;
    swap_image(r, 2, FLW, FLH, 1, CLIK_F32);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
}

static const op_spec flow_spec = {
    .nparams = 3,
    .p = {P_IN("I0", FLW, FLH, 1, CLIK_U8),
          P_IN("I1", FLW, FLH, 1, CLIK_U8),
          {"flow", FLW, FLH, 2, CLIK_F32, 1, ARG_PTR, LOC_ANY, SUP_TOL_FLOW}},
    .init = init_flow,
    .call = call_flow,
    .extra = extra_flow,
    .fill = fill_flow,
};

/* The warps: src (u8, any of 1 to 4 channels), flow, [ref,] dst. */
static clik_status call_flow_warp(clik_context *ctx, margs *a)
{
    return clik_flow_warp(ctx, a->ptr[0], a->ptr[1], a->ptr[2]);
}

static clik_status call_flow_warp_average(clik_context *ctx, margs *a)
{
    return clik_flow_warp_average(ctx, a->ptr[0], a->ptr[1], a->ptr[2], a->ptr[3]);
}

/* The formats and sizes both warps refuse; src is parameter s, the flow
 * f, the output (and ref) the others of n. */
static void warp_refusals(op_run *r, int s, int f, int n)
{
    const struct {
        int ch;
        clik_type t;
    } flows[] = {{1, CLIK_F32}, {3, CLIK_F32}, {2, CLIK_U8}, {2, CLIK_F64}, {2, CLIK_F16}};
    for (int i = 0; i < 5; i++)
        swapped_case(r, f, FLW, FLH, flows[i].ch, flows[i].t, CLIK_ERR_UNSUPPORTED_FORMAT,
                     "flow of %d channels %s", flows[i].ch, clik_type_name(flows[i].t));
    swapped_case(r, f, FLW + 1, FLH, 2, CLIK_F32, CLIK_ERR_SIZE_MISMATCH, "flow of %dx%d", FLW + 1,
                 FLH);
    swapped_case(r, f, FLW, FLH - 1, 2, CLIK_F32, CLIK_ERR_SIZE_MISMATCH, "flow of %dx%d", FLW,
                 FLH - 1);
    for (int i = 0; i < n; i++) {
        if (i == f)
            continue;
        swapped_case(r, i, FLW, FLH + 2, 3, CLIK_U8, CLIK_ERR_SIZE_MISMATCH, "%s of %dx%d",
                     i == s ? "src" : "an image", FLW, FLH + 2);
        swapped_case(r, i, FLW, FLH, 3, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "%s f32",
                     i == s ? "src" : "an image");
        swapped_case(r, i, FLW, FLH, 1, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT, "%s grey",
                     i == s ? "src" : "an image");
    }
    start(r, "every image u16");
    for (int i = 0; i < n; i++)
        if (i != f)
            swap_image(r, i, FLW, FLH, 3, CLIK_U16);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
}

static void extra_flow_warp(op_run *r)
{
    warp_refusals(r, 0, 1, 3);
}

static void extra_flow_warp_average(op_run *r)
{
    warp_refusals(r, 1, 2, 4);
    in_place_ok(r, 0, 3);
}

static const op_spec flow_warp_spec = {
    .nparams = 3,
    .p = {P_IN("src", FLW, FLH, 3, CLIK_U8), P_IN("flow", FLW, FLH, 2, CLIK_F32),
          P_OUT("dst", FLW, FLH, 3, CLIK_U8)},
    .call = call_flow_warp,
    .extra = extra_flow_warp,
};

static const op_spec flow_warp_average_spec = {
    .nparams = 4,
    .p = {P_IN("ref", FLW, FLH, 3, CLIK_U8), P_IN("src", FLW, FLH, 3, CLIK_U8),
          P_IN("flow", FLW, FLH, 2, CLIK_F32), P_OUT("dst", FLW, FLH, 3, CLIK_U8)},
    .call = call_flow_warp_average,
    .extra = extra_flow_warp_average,
};

/* ---- LAPAR ----------------------------------------------------------------------------------- */

#define LRW 6 /* clik_lapar_upsample and clik_lapar_filter: 6 x 4 RGBA by 3 */
#define LRH 4
#define TNW 4 /* the tuning functions: 4 x 3 RGBA by 2 */
#define TNH 3
#define CPW 8 /* clik_lapar_compress: one calibration image of 8 x 6 RGBA */
#define CPH 6

#define P_PHI(w, h)                                                                                \
    {                                                                                              \
        "phi", w, (h)*LA, 1, CLIK_F32, 0, ARG_PTR, LOC_ANY, SUP_TOL_EXACT                          \
    }

/* The atoms of the default dictionary that the cases' dictionary holds: LA
 * in use, then more for the cases of larger dictionaries. */
static const int lapar_pick[LA_STORE] = {0, 7, 31, 44, 50, 53, 20, 60};

static void init_lapar_dict(margs *a)
{
    float all[CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS];
    ck_assert_int_eq(clik_lapar_dict_default(all), CLIK_OK);
    for (int l = 0; l < LA_STORE; l++)
        memcpy(a->dict + l * CLIK_LAPAR_TAPS, all + lapar_pick[l] * CLIK_LAPAR_TAPS,
               sizeof(float) * CLIK_LAPAR_TAPS);
    a->atoms = LA;
    a->use_dict = a->use_data = 1;
    /* The selection of the cases that use one: 3 of the LA atoms. */
    memset(&a->sel, 0, sizeof(a->sel));
    a->sel.atoms = LA;
    a->sel.kept = 3;
    const int index[3] = {1, 3, 4};
    for (int i = 0; i < 3; i++) {
        a->sel.index[i] = index[i];
        a->sel.gamma[i] = 0.7f + 0.2f * (float)i;
        for (int l = 0; l < LA; l++)
            a->sel_mix[i * LA + l] = (l == index[i] ? 1.0f : 0.0f) + 0.05f * (float)(l - i);
    }
}

/* The dictionary that a's fields describe; *sel holds its selection. */
static clik_lapar_dict lapar_dict(const margs *a, clik_lapar_selection *sel)
{
    *sel = a->sel;
    sel->mix = a->use_sel_mix ? a->sel_mix : NULL;
    return (clik_lapar_dict){a->atoms, a->use_data ? a->dict : NULL, a->use_dict_sel ? sel : NULL};
}

static void scale_f32(clik_image *img, float k)
{
    for (int y = 0; y < img->height; y++) {
        float *row = (float *)(void *)((char *)img->data + (size_t)y * img->stride);
        for (int x = 0; x < img->width * img->channels; x++)
            row[x] *= k;
    }
}

/* lr in [0, 1] and phi in [0, 1 / LA]: outputs of about 1, where F32's
 * tolerance holds for sums taken in another order. */
static void fill_lapar(op_run *r)
{
    scale_f32(&r->pristine[0], 1.0f / 255.0f);
    scale_f32(&r->pristine[1], 1.0f / (255.0f * LA));
}

/* Dictionaries that no call takes (phi has LA planes). */
static void dict_cases(op_run *r)
{
    NULL_CASE(r, "dict NULL", use_dict);
    NULL_CASE(r, "dict->data NULL", use_data);
    const int counts[] = {0, -1, CLIK_LAPAR_MAX_ATOMS + 1, INT_MAX, INT_MIN};
    INVALID_VALUES(r, atoms, counts, "a dictionary of %d atoms");
    start(r, "a dictionary of %d atoms for a phi of %d planes", LA + 1, LA);
    r->work.atoms = LA + 1;
    finish(r, CLIK_ERR_SIZE_MISMATCH);
    const float weights[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
        start(r, "a dictionary weight of %g", (double)weights[i]);
        r->work.dict[3 * CLIK_LAPAR_TAPS + 12] = weights[i];
        finish(r, CLIK_ERR_INVALID_ARG);
    }
}

static void start_selection(op_run *r, const char *what)
{
    start(r, "a selection of 3 of %d atoms: %s", LA, what);
    r->work.use_dict_sel = 1;
}

/* Selections the dictionary cannot have, and phi of planes that neither
 * the dictionary nor its selection has; w x h is dst's size. */
static void selection_cases(op_run *r, int w, int h)
{
    start_selection(r, "for a dictionary of 7 atoms");
    r->work.sel.atoms = LA + 1;
    finish(r, CLIK_ERR_INVALID_ARG);
    char what[64];
    const int kept[] = {0, -1, LA + 1, INT_MIN};
    for (int i = 0; i < 4; i++) {
        snprintf(what, sizeof(what), "kept %d", kept[i]);
        start_selection(r, what);
        r->work.sel.kept = kept[i];
        finish(r, CLIK_ERR_INVALID_ARG);
    }
    const int index[][3] = {{1, 1, 4}, {3, 1, 4}, {-1, 3, 4}, {1, 3, LA}, {1, 3, INT_MAX}};
    for (int i = 0; i < 5; i++) {
        snprintf(what, sizeof(what), "indices %d, %d, %d", index[i][0], index[i][1], index[i][2]);
        start_selection(r, what);
        memcpy(r->work.sel.index, index[i], sizeof(index[i]));
        finish(r, CLIK_ERR_INVALID_ARG);
    }
    start_selection(r, "gamma NaN");
    r->work.sel.gamma[1] = NAN;
    finish(r, CLIK_ERR_INVALID_ARG);
    start_selection(r, "a mix with an infinity");
    r->work.use_sel_mix = 1;
    r->work.sel_mix[LA + 2] = INFINITY;
    finish(r, CLIK_ERR_INVALID_ARG);
    start_selection(r, "phi of 4 planes");
    swap_image(r, 1, w, 4 * h, 1, CLIK_F32);
    finish(r, CLIK_ERR_SIZE_MISMATCH);
    /* A mix weights every plane: phi of the kept 3 is not enough. */
    start_selection(r, "a mix, phi of 3 planes");
    r->work.use_sel_mix = 1;
    swap_image(r, 1, w, 3 * h, 1, CLIK_F32);
    finish(r, CLIK_ERR_SIZE_MISMATCH);
}

/* Scales other than 2..4, a scale that dst is not of, and an lr whose dst
 * would be wider than 2^20. */
static void scale_cases(op_run *r, int scale)
{
    const int scales[] = {1, 5, 0, -2, INT_MAX, INT_MIN};
    INVALID_VALUES(r, scale, scales, "scale %d");
    const int other = scale == 2 ? 3 : 2;
    start(r, "scale %d for a dst of scale %d", other, scale);
    r->work.scale = other;
    finish(r, CLIK_ERR_SIZE_MISMATCH);
    swapped_case(r, 0, MAX_SIDE / scale + 1, 1, 1, CLIK_U8, CLIK_ERR_INVALID_SIZE,
                 "lr of %dx1 by %d (a dst wider than 2^20)", MAX_SIDE / scale + 1, scale);
}

/* lr, phi and dst of formats or sizes the filter does not take (w x h is
 * lr's size, s the scale). */
static void lapar_format_cases(op_run *r, int w, int h, int s)
{
    const int dw = s * w, dh = s * h;
    swapped_case(r, 0, w, h, 4, CLIK_U16, CLIK_ERR_UNSUPPORTED_FORMAT, "lr u16");
    start(r, "lr and dst of 2 channels");
    swap_image(r, 0, w, h, 2, CLIK_F32);
    swap_image(r, 2, dw, dh, 2, CLIK_F32);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
    swapped_case(r, 2, dw, dh, 4, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT, "dst u8 for an f32 lr");
    swapped_case(r, 2, dw, dh, 1, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT, "dst of 1 channel for 4");
    swapped_case(r, 2, dw - 1, dh, 4, CLIK_F32, CLIK_ERR_SIZE_MISMATCH, "dst one column narrower");
    swapped_case(r, 2, dw, dh + 1, 4, CLIK_F32, CLIK_ERR_SIZE_MISMATCH, "dst one row taller");
    const struct {
        int ch;
        clik_type t;
    } phis[] = {{1, CLIK_U8}, {1, CLIK_F64}, {1, CLIK_U16}, {2, CLIK_F32}};
    for (int i = 0; i < 4; i++) {
        swapped_case(r, 1, dw, dh * LA, phis[i].ch, phis[i].t, CLIK_ERR_UNSUPPORTED_FORMAT,
                     "phi of %d channels %s", phis[i].ch, clik_type_name(phis[i].t));
    }
    const int sizes[][2] = {{dw + 1, dh * LA}, {dw, dh * (LA - 1)}, {dw, dh * LA - 1}, {dw, dh}};
    for (int i = 0; i < 4; i++) {
        swapped_case(r, 1, sizes[i][0], sizes[i][1], 1, CLIK_F32, CLIK_ERR_SIZE_MISMATCH,
                     "phi of %dx%d", sizes[i][0], sizes[i][1]);
    }
}

/* The argument cases of the functions that take a filter's arguments. */
static void lapar_cases(op_run *r)
{
    const int w = r->s->p[0].width, h = r->s->p[0].height, s = r->s->p[2].width / w;
    dict_cases(r);
    selection_cases(r, s * w, s * h);
    scale_cases(r, s);
    lapar_format_cases(r, w, h, s);
}

static void init_upsample(margs *a)
{
    a->scale = 3;
}

static clik_status call_upsample(clik_context *ctx, margs *a)
{
    return clik_lapar_upsample(ctx, a->ptr[0], a->scale, a->ptr[1]);
}

static void extra_upsample(op_run *r)
{
    scale_cases(r, 3);
    const struct {
        int ch;
        clik_type t;
    } lrs[] = {{4, CLIK_U16}, {4, CLIK_F16}, {1, CLIK_S16}};
    for (int i = 0; i < 3; i++) {
        swapped_case(r, 0, LRW, LRH, lrs[i].ch, lrs[i].t, CLIK_ERR_UNSUPPORTED_FORMAT,
                     "lr of %d channels %s", lrs[i].ch, clik_type_name(lrs[i].t));
    }
    start(r, "lr and dst of 2 channels");
    swap_image(r, 0, LRW, LRH, 2, CLIK_U8);
    swap_image(r, 1, 3 * LRW, 3 * LRH, 2, CLIK_F32);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
    swapped_case(r, 1, 3 * LRW, 3 * LRH, 4, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT,
                 "dst u8 (the type of lr)");
    swapped_case(r, 1, 3 * LRW, 3 * LRH, 1, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT,
                 "dst of 1 channel for 4");
    swapped_case(r, 1, 3 * LRW - 1, 3 * LRH, 4, CLIK_F32, CLIK_ERR_SIZE_MISMATCH,
                 "dst one column narrower");
    swapped_case(r, 1, 3 * LRW, 3 * LRH + 1, 4, CLIK_F32, CLIK_ERR_SIZE_MISMATCH,
                 "dst one row taller");
}

static const op_spec upsample_spec = {
    .nparams = 2,
    .p = {P_IN("lr", LRW, LRH, 4, CLIK_U8),
          {"dst", 3 * LRW, 3 * LRH, 4, CLIK_F32, 1, ARG_PTR, LOC_ANY, SUP_TOL_F32}},
    .init = init_upsample,
    .call = call_upsample,
    .extra = extra_upsample,
};

static void init_lapar_filter(margs *a)
{
    init_lapar_dict(a);
    a->scale = 3;
}

static clik_status call_lapar_filter(clik_context *ctx, margs *a)
{
    clik_lapar_selection sel;
    const clik_lapar_dict d = lapar_dict(a, &sel);
    return clik_lapar_filter(ctx, a->ptr[0], a->ptr[1], a->use_dict ? &d : NULL, a->scale,
                             a->ptr[2]);
}

static const op_spec lapar_filter_spec = {
    .nparams = 3,
    .p = {P_IN("lr", LRW, LRH, 4, CLIK_F32),
          P_PHI(3 * LRW, 3 * LRH),
          {"dst", 3 * LRW, 3 * LRH, 4, CLIK_F32, 1, ARG_PTR, LOC_ANY, SUP_TOL_F32}},
    .init = init_lapar_filter,
    .call = call_lapar_filter,
    .extra = lapar_cases,
    .fill = fill_lapar,
};

static void init_compress(margs *a)
{
    init_lapar_dict(a);
    a->use_calib = a->use_sel_out = a->use_mix = a->use_opt = 1;
    a->count = 1;
    a->alpha = 0.5;
    clik_lapar_compress_options_init(&a->copt);
    a->copt.samples = CPW * CPH * 2 / 3; /* drawn, not every pixel */
    a->copt.refit_samples = CPW * CPH / 3;
}

static clik_status call_compress(clik_context *ctx, margs *a)
{
    clik_lapar_selection sel;
    const clik_lapar_dict d = lapar_dict(a, &sel);
    const clik_lapar_calib calib[2] = {
        {a->ptr[0], a->ptr[1], a->ptr[2]},
        {a->ptr[0], a->ptr[1], a->second_truth_null ? NULL : a->ptr[2]}};
    return clik_lapar_compress(ctx, a->use_calib ? calib : NULL, a->count, a->use_dict ? &d : NULL,
                               a->alpha, a->use_opt ? &a->copt : NULL,
                               a->use_sel_out ? &a->out.sel : NULL, a->use_mix ? a->out.mix : NULL);
}

static void fill_compress(op_run *r)
{
    scale_f32(&r->pristine[0], 1.0f / (255.0f * LA));
}

/* The selection and re-fit matrix of a correct call: the oracle's (the fit
 * runs on the host, the same way on every backend). */
static void check_compress(op_run *r, const margs *a)
{
    const clik_lapar_selection *got = &a->out.sel, *want = &r->ref_out.sel;
    int same = got->atoms == want->atoms && got->kept == want->kept && got->mix == a->out.mix;
    for (int i = 0; same && i < want->kept; i++)
        same = got->index[i] == want->index[i] &&
               memcmp(&got->gamma[i], &want->gamma[i], sizeof(float)) == 0;
    same = same && memcmp(a->out.mix, r->ref_out.mix, sizeof(float) * (size_t)want->kept * LA) == 0;
    EXPECT(same, "then a correct call selects other atoms or weights than the oracle");
}

static void reference_compress(op_run *r)
{
    default_reference(r);
    ck_assert_msg(r->ref_out.sel.atoms == LA && r->ref_out.sel.kept == LA / 2,
                  "%s: the oracle keeps %d of %d atoms", row_name, r->ref_out.sel.kept,
                  r->ref_out.sel.atoms);
}

static void extra_compress(op_run *r)
{
    NULL_CASE(r, "calib NULL", use_calib);
    NULL_CASE(r, "sel NULL", use_sel_out);
    start(r, "count 2, calib[1].truth NULL");
    r->work.count = 2;
    r->work.second_truth_null = 1;
    finish(r, CLIK_ERR_NULL);
    const int counts[] = {0, -1, 65, INT_MAX, INT_MIN};
    INVALID_VALUES(r, count, counts, "count %d");
    dict_cases(r);
    start(r, "a dictionary that is a selection already");
    r->work.use_dict_sel = 1;
    finish(r, CLIK_ERR_INVALID_ARG);
    const double alphas[] = {0.0, -0.5, 1.0000001, 2.0, NAN, INFINITY, -INFINITY};
    INVALID_VALUES(r, alpha, alphas, "alpha %g");
    const int samples[][2] = {{0, 1},  {-1, 1},  {(1 << 24) + 1, 1}, {INT_MIN, 1},
                              {32, 0}, {32, 33}, {32, -1},           {32, INT_MIN}};
    for (int i = 0; i < 8; i++) {
        start(r, "option samples %d, refit_samples %d", samples[i][0], samples[i][1]);
        r->work.copt.samples = samples[i][0];
        r->work.copt.refit_samples = samples[i][1];
        finish(r, CLIK_ERR_INVALID_ARG);
    }
    const struct {
        const char *what;
        int i, w, h, ch;
        clik_type t;
        clik_status want;
    } images[] = {
        {"upsampled u8", 1, CPW, CPH, 4, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"upsampled f16", 1, CPW, CPH, 4, CLIK_F16, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"truth u16", 2, CPW, CPH, 4, CLIK_U16, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"truth of 1 channel for 4", 2, CPW, CPH, 1, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"phi u8", 0, CPW, CPH * LA, 1, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"phi of 2 channels", 0, CPW, CPH * LA, 2, CLIK_F32, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"truth one column wider", 2, CPW + 1, CPH, 4, CLIK_U8, CLIK_ERR_SIZE_MISMATCH},
        {"truth one row shorter", 2, CPW, CPH - 1, 4, CLIK_U8, CLIK_ERR_SIZE_MISMATCH},
        {"phi one column wider", 0, CPW + 1, CPH * LA, 1, CLIK_F32, CLIK_ERR_SIZE_MISMATCH},
        {"phi of 5 planes", 0, CPW, CPH * (LA - 1), 1, CLIK_F32, CLIK_ERR_SIZE_MISMATCH},
    };
    for (size_t i = 0; i < sizeof(images) / sizeof(images[0]); i++) {
        start(r, "%s", images[i].what);
        swap_image(r, images[i].i, images[i].w, images[i].h, images[i].ch, images[i].t);
        finish(r, images[i].want);
    }
    start(r, "upsampled and truth of 2 channels");
    swap_image(r, 1, CPW, CPH, 2, CLIK_F32);
    swap_image(r, 2, CPW, CPH, 2, CLIK_U8);
    finish(r, CLIK_ERR_UNSUPPORTED_FORMAT);
    /* Nothing to fit. */
    start(r, "truth f32, every element NaN");
    swap_image(r, 2, CPW, CPH, 4, CLIK_F32);
    void *mem;
    clik_image nan = host_image(CPW, CPH, 4, CLIK_F32, &mem);
    for (int y = 0; y < CPH; y++)
        for (int x = 0; x < CPW * 4; x++)
            ((float *)(void *)((char *)nan.data + (size_t)y * nan.stride))[x] = NAN;
    slot_write(&r->slots[r->nslots - 1], &nan);
    free(mem);
    finish(r, CLIK_ERR_INVALID_ARG);
}

static const op_spec compress_spec = {
    .nparams = 3,
    .p = {P_IN("phi", CPW, CPH *LA, 1, CLIK_F32), P_IN("upsampled", CPW, CPH, 4, CLIK_F32),
          P_IN("truth", CPW, CPH, 4, CLIK_U8)},
    .init = init_compress,
    .call = call_compress,
    .extra = extra_compress,
    .fill = fill_compress,
    .reference = reference_compress,
    .check = check_compress,
    .no_backend = 1,
};

/* The tuning functions: a tuning that runs on every device. */
static void init_lapar_tuning(margs *a)
{
    init_lapar_dict(a);
    a->scale = 2;
    a->use_tuning = a->use_t = 1;
    a->t = (clik_lapar_tuning){CLIK_LAPAR_VARIANT_DIRECT, 8, 4, 0.0, 0};
}

static clik_status call_tune(clik_context *ctx, margs *a)
{
    clik_lapar_selection sel;
    const clik_lapar_dict d = lapar_dict(a, &sel);
    return clik_lapar_tune(ctx, a->ptr[0], a->ptr[1], a->use_dict ? &d : NULL, a->scale, a->ptr[2],
                           a->use_tuning ? &a->out.tuning : NULL);
}

static clik_status call_tuning_get(clik_context *ctx, margs *a)
{
    clik_lapar_selection sel;
    const clik_lapar_dict d = lapar_dict(a, &sel);
    return clik_lapar_tuning_get(ctx, a->ptr[0], a->ptr[1], a->use_dict ? &d : NULL, a->scale,
                                 a->ptr[2], a->use_tuning ? &a->out.tuning : NULL);
}

static clik_status call_tuning_set(clik_context *ctx, margs *a)
{
    clik_lapar_selection sel;
    const clik_lapar_dict d = lapar_dict(a, &sel);
    return clik_lapar_tuning_set(ctx, a->ptr[0], a->ptr[1], a->use_dict ? &d : NULL, a->scale,
                                 a->ptr[2], a->use_t ? &a->t : NULL);
}

/* clik_lapar_tune writes dst: the oracle's filter. */
static void reference_tune(op_run *r)
{
    margs ra;
    reference_args(r, &ra);
    clik_status st = call_lapar_filter(h_oracle, &ra);
    ck_assert_msg(st == CLIK_OK, "%s: the oracle's filter: %s: %s", row_name, sname(st),
                  clik_context_message(h_oracle));
}

/* The tuning functions other than tune write no image: dst stays as it is. */
static void reference_tuning(op_run *r)
{
    margs ra;
    reference_args(r, &ra);
    if (r->s->call == call_tuning_get && clik_context_device(h_ctx)) {
        clik_status st = call_tuning_get(h_ctx, &ra);
        ck_assert_msg(st == CLIK_OK, "%s: a first call: %s: %s", row_name, sname(st),
                      clik_context_message(h_ctx));
        r->ref_out = ra.out;
    }
}

static int tuning_runs(const clik_lapar_tuning *t)
{
    return t->variant >= CLIK_LAPAR_VARIANT_UPSAMPLED && t->variant <= CLIK_LAPAR_VARIANT_DIRECT &&
           t->wg_x >= 1 && t->wg_y >= 1;
}

static void check_tune(op_run *r, const margs *a)
{
    (void)r;
    const clik_lapar_tuning *t = &a->out.tuning;
    EXPECT(tuning_runs(t) && isfinite(t->ms) && t->ms >= 0.0,
           "then a correct call finds variant %d, %dx%d, %g ms", (int)t->variant, t->wg_x, t->wg_y,
           t->ms);
}

static void check_tuning_get(op_run *r, const margs *a)
{
    const clik_lapar_tuning *t = &a->out.tuning, *first = &r->ref_out.tuning;
    EXPECT(tuning_runs(t) && t->variant == first->variant && t->wg_x == first->wg_x &&
               t->wg_y == first->wg_y && t->stored == first->stored,
           "then a correct call gives variant %d, %dx%d (stored %d), the first %d, %dx%d (%d)",
           (int)t->variant, t->wg_x, t->wg_y, t->stored, (int)first->variant, first->wg_x,
           first->wg_y, first->stored);
}

/* What was stored is what clik_lapar_tuning_get gives back. */
static void check_tuning_set(op_run *r, const margs *a)
{
    (void)r;
    clik_lapar_selection sel;
    const clik_lapar_dict d = lapar_dict(a, &sel);
    clik_lapar_tuning got = {CLIK_LAPAR_VARIANT_AUTO, 0, 0, 0.0, 0};
    clik_status st =
        clik_lapar_tuning_get(h_ctx, a->ptr[0], a->ptr[1], &d, a->scale, a->ptr[2], &got);
    EXPECT(st == CLIK_OK && got.variant == a->t.variant && got.wg_x == a->t.wg_x &&
               got.wg_y == a->t.wg_y && got.stored == 1,
           "then a correct call stores variant %d, %dx%d, and clik_lapar_tuning_get gives %s, "
           "variant %d, %dx%d (stored %d)",
           (int)a->t.variant, a->t.wg_x, a->t.wg_y, sname(st), (int)got.variant, got.wg_x, got.wg_y,
           got.stored);
}

static void extra_tune(op_run *r)
{
    NULL_CASE(r, "best NULL", use_tuning);
    lapar_cases(r);
}

static void extra_tuning_get(op_run *r)
{
    NULL_CASE(r, "out NULL", use_tuning);
    lapar_cases(r);
}

static void extra_tuning_set(op_run *r)
{
    NULL_CASE(r, "t NULL", use_t);
    const struct {
        const char *what;
        int variant, x, y;
    } bad[] = {
        {"variant AUTO", CLIK_LAPAR_VARIANT_AUTO, 8, 4},
        {"variant 4", 4, 8, 4},
        {"variant -1", -1, 8, 4},
        {"variant INT_MIN", INT_MIN, 8, 4},
        {"a work-group of 0x4", CLIK_LAPAR_VARIANT_DIRECT, 0, 4},
        {"a work-group of 8x-1", CLIK_LAPAR_VARIANT_DIRECT, 8, -1},
        {"a work-group of INT_MIN x INT_MIN", CLIK_LAPAR_VARIANT_UPSAMPLED, INT_MIN, INT_MIN},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        start(r, "t: %s", bad[i].what);
        r->work.t.variant = (clik_lapar_variant)bad[i].variant;
        r->work.t.wg_x = bad[i].x;
        r->work.t.wg_y = bad[i].y;
        finish(r, CLIK_ERR_INVALID_ARG);
    }
    /* Past every device's limits; without a device, the device is missing. */
    start(r, "t: a work-group of 2^16 x 2^16");
    r->work.t.wg_x = r->work.t.wg_y = 1 << 16;
    finish(r, clik_context_device(h_ctx) ? CLIK_ERR_INVALID_ARG : CLIK_ERR_NO_DEVICE);
    lapar_cases(r);
}

#define TUNING_SPEC(CALL, EXTRA, REFERENCE, CHECK, DST_TOL, NO_BACKEND)                            \
    {                                                                                              \
        .nparams = 3,                                                                              \
        .p = {P_IN("lr", TNW, TNH, 4, CLIK_F32),                                                   \
              P_PHI(2 * TNW, 2 * TNH),                                                             \
              {"dst", 2 * TNW, 2 * TNH, 4, CLIK_F32, 1, ARG_PTR, LOC_ANY, DST_TOL}},               \
        .init = init_lapar_tuning, .call = CALL, .extra = EXTRA, .fill = fill_lapar,               \
        .reference = REFERENCE, .check = CHECK, .needs_device = 1, .no_backend = NO_BACKEND,       \
    }

/* dst is written by tune alone: the others must leave it as it is. */
static const op_spec tune_spec =
    TUNING_SPEC(call_tune, extra_tune, reference_tune, check_tune, SUP_TOL_F32, 0);
static const op_spec tuning_get_spec = TUNING_SPEC(
    call_tuning_get, extra_tuning_get, reference_tuning, check_tuning_get, SUP_TOL_EXACT, 1);
static const op_spec tuning_set_spec = TUNING_SPEC(
    call_tuning_set, extra_tuning_set, reference_tuning, check_tuning_set, SUP_TOL_EXACT, 1);

/* ---- transfers ------------------------------------------------------------------------- */

static clik_status call_upload(clik_context *ctx, margs *a)
{
    return clik_image_upload(ctx, a->ptr[0], a->ptr[1]);
}

static clik_status call_download(clik_context *ctx, margs *a)
{
    return clik_image_download(ctx, a->ptr[0], a->ptr[1]);
}

/* The queued copies, waited for: a failed call must leave the ticket 0
 * (else the row sees CLIK_ERR_CANCELLED, which no transfer returns). */
static clik_status queued_copy(clik_context *ctx, margs *a, int upload)
{
    uint64_t ticket = 7;
    clik_status st = upload ? clik_image_upload_async(ctx, a->ptr[0], a->ptr[1], &ticket)
                            : clik_image_download_async(ctx, a->ptr[0], a->ptr[1], &ticket);
    if (st != CLIK_OK)
        return ticket == 0 ? st : CLIK_ERR_CANCELLED;
    return clik_context_wait(ctx, ticket);
}

static clik_status call_upload_async(clik_context *ctx, margs *a)
{
    return queued_copy(ctx, a, 1);
}

static clik_status call_download_async(clik_context *ctx, margs *a)
{
    return queued_copy(ctx, a, 0);
}

/* A copy: dst (parameter 0) is src (parameter 1). */
static void reference_copy(op_run *r)
{
    margs ra;
    reference_args(r, &ra);
    copy_rows(&r->ref[0], &r->pristine[1]);
}

/* dst 0 and src 1, each where the transfer does not take it, or of
 * another size or format. */
static void transfer_cases(op_run *r)
{
    const param_spec *d = &r->s->p[0], *s = &r->s->p[1];
    start(r, "dst where the other kind of image is needed");
    swap_image_at(r, 0, d->width, d->height, d->channels, d->type, d->loc == LOC_HOST);
    finish(r, CLIK_ERR_INVALID_ARG);
    start(r, "src where the other kind of image is needed");
    swap_image_at(r, 1, s->width, s->height, s->channels, s->type, s->loc == LOC_HOST);
    finish(r, CLIK_ERR_INVALID_ARG);
    swapped_case(r, 1, s->width, s->height + 1, s->channels, s->type, CLIK_ERR_SIZE_MISMATCH,
                 "src one row taller");
    swapped_case(r, 1, s->width - 1, s->height, s->channels, s->type, CLIK_ERR_SIZE_MISMATCH,
                 "src one column narrower");
    /* A format mismatch is CLIK_ERR_UNSUPPORTED_FORMAT, as in the
     * operations. */
    swapped_case(r, 1, s->width, s->height, 1, s->type, CLIK_ERR_UNSUPPORTED_FORMAT,
                 "src of 1 channel for 2");
    swapped_case(r, 1, s->width, s->height, s->channels, CLIK_S16, CLIK_ERR_UNSUPPORTED_FORMAT,
                 "src s16 for u16");
}

/* The spec of a transfer (clik_image_upload, clik_image_download): a u16
 * copy from src to dst, each where the transfer needs it. */
#define TRANSFER_SPEC(call_fn, dst_loc, src_loc)                                                   \
    {                                                                                              \
        .nparams = 2,                                                                              \
        .p = {{"dst", 24, 20, 2, CLIK_U16, 1, ARG_PTR, dst_loc, SUP_TOL_EXACT},                    \
              {"src", 24, 20, 2, CLIK_U16, 0, ARG_PTR, src_loc, SUP_TOL_EXACT}},                   \
        .call = call_fn, .extra = transfer_cases, .reference = reference_copy, .no_backend = 1,    \
        .transfer = 1,                                                                             \
    }

static const op_spec upload_spec = TRANSFER_SPEC(call_upload, LOC_DEVICE, LOC_HOST);
static const op_spec download_spec = TRANSFER_SPEC(call_download, LOC_HOST, LOC_DEVICE);
static const op_spec upload_async_spec = TRANSFER_SPEC(call_upload_async, LOC_DEVICE, LOC_HOST);
static const op_spec download_async_spec = TRANSFER_SPEC(call_download_async, LOC_HOST, LOC_DEVICE);

/* ---- the rows of the operations -------------------------------------------------------- */

static void row_hist_compute(void)
{
    run_op(&hist_spec);
}
static void row_hist_equalize(void)
{
    run_op(&equalize_spec);
}
static void row_hist_equalize_luma(void)
{
    run_op(&equalize_luma_spec);
}
static void row_clahe(void)
{
    run_op(&clahe_spec);
}
static void row_hist_lut(void)
{
    run_op(&lut_spec);
}
static void row_pyr_down(void)
{
    run_op(&pyr_down_spec);
}
static void row_pyr_up(void)
{
    run_op(&pyr_up_spec);
}
static void row_pyr_gaussian(void)
{
    run_op(&gaussian_spec);
}
static void row_pyr_laplacian(void)
{
    run_op(&laplacian_spec);
}
static void row_pyr_collapse(void)
{
    run_op(&collapse_spec);
}
static void row_integral(void)
{
    run_op(&integral_spec);
}
static void row_resize(void)
{
    run_op(&resize_spec);
}
static void row_resize_scaled(void)
{
    run_op(&resize_scaled_spec);
}
static void row_gaussian_blur(void)
{
    run_op(&blur_spec);
}
static void row_gray(void)
{
    run_op(&gray_spec);
}
static void row_ssim(void)
{
    run_op(&ssim_spec);
}
static void row_ssim_tiles(void)
{
    run_op(&tiles_spec);
}
static void row_upscale_fusion(void)
{
    run_op(&fusion_spec);
}
static void row_fusion_stream_submit(void)
{
    run_op(&submit_spec);
}
static void row_image_upload(void)
{
    run_op(&upload_spec);
}
static void row_image_download(void)
{
    run_op(&download_spec);
}
/* 1 when st is CLIK_OK, else a failure of the row naming what failed. */
static int expect_ok(clik_status st, const char *what)
{
    EXPECT(st == CLIK_OK, "%s: %s", what, sname(st));
    return st == CLIK_OK;
}
/* The queued copies as the blocking ones, then a NULL ticket. */
static void queued_null_ticket(int upload)
{
    clik_image dev, host;
    uint16_t px[4 * 3] = {0};
    set_case("ticket NULL");
    if (!expect_ok(clik_image_create(h_ctx, &dev, 4, 3, 1, CLIK_U16), "a device image"))
        return;
    clik_image_wrap(&host, 4, 3, 1, CLIK_U16, px, 4 * sizeof(uint16_t));
    EXPECT_REFUSED(h_ctx,
                   upload ? clik_image_upload_async(h_ctx, &dev, &host, NULL)
                          : clik_image_download_async(h_ctx, &host, &dev, NULL),
                   CLIK_ERR_NULL);
    clik_image_free(&dev);
    ctx_works();
}
static void row_image_upload_async(void)
{
    run_op(&upload_async_spec);
    queued_null_ticket(1);
}
static void row_image_download_async(void)
{
    run_op(&download_async_spec);
    queued_null_ticket(0);
}
static void row_context_wait(void)
{
    set_case("ctx NULL");
    expect_status(clik_context_wait(NULL, 1), CLIK_ERR_NULL);
    set_case("the context of a failed create");
    expect_status(clik_context_wait(failed_ctx, 1), CLIK_ERR_NULL);
    set_case("ticket 0");
    EXPECT_REFUSED(h_ctx, clik_context_wait(h_ctx, 0), CLIK_ERR_INVALID_ARG);
    set_case("a ticket not yet given");
    EXPECT_REFUSED(h_ctx, clik_context_wait(h_ctx, UINT64_MAX), CLIK_ERR_INVALID_ARG);
    set_case("a ticket of another context");
    clik_image dev, host;
    uint8_t px[6] = {1, 2, 3, 4, 5, 6};
    clik_image_wrap(&host, 3, 2, 1, CLIK_U8, px, 3);
    uint64_t t = 0;
    if (expect_ok(clik_image_create(h_ctx, &dev, 3, 2, 1, CLIK_U8), "a device image")) {
        if (expect_ok(clik_image_upload_async(h_ctx, &dev, &host, &t), "a queued upload")) {
            EXPECT_REFUSED(other_ctx, clik_context_wait(other_ctx, t + 1000), CLIK_ERR_INVALID_ARG);
            set_case("a correct wait, then the same ticket again");
            expect_status(clik_context_wait(h_ctx, t), CLIK_OK);
            expect_status(clik_context_wait(h_ctx, t), CLIK_OK);
        }
        clik_image_free(&dev);
    }
    ctx_works();
}
static void row_flow_tvl1(void)
{
    run_op(&flow_spec);
}
static void row_flow_warp(void)
{
    run_op(&flow_warp_spec);
}
static void row_flow_warp_average(void)
{
    run_op(&flow_warp_average_spec);
}
static void row_lapar_upsample(void)
{
    run_op(&upsample_spec);
}
static void row_lapar_filter(void)
{
    run_op(&lapar_filter_spec);
}
static void row_lapar_compress(void)
{
    run_op(&compress_spec);
}
static void row_lapar_tune(void)
{
    run_op(&tune_spec);
}
static void row_lapar_tuning_get(void)
{
    run_op(&tuning_get_spec);
}
static void row_lapar_tuning_set(void)
{
    run_op(&tuning_set_spec);
}

/* ---- names and sizes ------------------------------------------------------------------------ */

static void row_version(void)
{
    set_case("the version");
    char want[32];
    snprintf(want, sizeof(want), "%d.%d.%d", CLIK_VERSION_MAJOR, CLIK_VERSION_MINOR,
             CLIK_VERSION_PATCH);
    const char *v = clik_version();
    EXPECT(v && strcmp(v, want) == 0, "\"%s\", want \"%s\"", v ? v : "(NULL)", want);
}

static const int unknown_values[] = {-1, 0x7fff, INT_MAX, INT_MIN, 999};

static void row_status_str(void)
{
    for (int i = 0; i < 5; i++) {
        set_case("status %d", unknown_values[i]);
        const char *s = clik_status_str((clik_status)unknown_values[i]);
        EXPECT(s && strstr(s, "UNKNOWN"), "\"%s\", want an UNKNOWN name", s ? s : "(NULL)");
    }
    set_case("CLIK_STATUS_COUNT");
    const char *s = clik_status_str(CLIK_STATUS_COUNT);
    EXPECT(s && strstr(s, "UNKNOWN"), "\"%s\"", s ? s : "(NULL)");
}

static void row_type_size(void)
{
    for (int i = 0; i < 5; i++) {
        set_case("type %d", unknown_values[i]);
        EXPECT(clik_type_size((clik_type)unknown_values[i]) == 0, "%zu, want 0",
               clik_type_size((clik_type)unknown_values[i]));
    }
    set_case("type 0");
    EXPECT(clik_type_size((clik_type)0) == 0, "not 0");
}

static void expect_unknown_name(const char *got)
{
    EXPECT(got && strcmp(got, "unknown") == 0, "\"%s\", want \"unknown\"", got ? got : "(NULL)");
}

static void row_type_name(void)
{
    for (int i = 0; i < 5; i++) {
        set_case("type %d", unknown_values[i]);
        expect_unknown_name(clik_type_name((clik_type)unknown_values[i]));
    }
}

static void row_backend_name(void)
{
    for (int i = 0; i < 5; i++) {
        set_case("backend %d", unknown_values[i]);
        expect_unknown_name(clik_backend_name((clik_backend)unknown_values[i]));
    }
}

static void row_interp_name(void)
{
    for (int i = 0; i < 5; i++) {
        set_case("method %d", unknown_values[i]);
        expect_unknown_name(clik_interp_name((clik_interp)unknown_values[i]));
    }
}

static void row_cpu_path_available(void)
{
    for (int i = 0; i < 5; i++) {
        set_case("path %d", unknown_values[i]);
        EXPECT(clik_cpu_path_available((clik_cpu_path)unknown_values[i]) == 0, "available");
    }
    set_case("CLIK_CPU_SCALAR and CLIK_CPU_AUTO");
    EXPECT(clik_cpu_path_available(CLIK_CPU_SCALAR) && clik_cpu_path_available(CLIK_CPU_AUTO),
           "not available");
}

/* INT_MAX sides halve without overflow (no INT_MAX + 1). */
static void row_pyr_level_size(void)
{
    const struct {
        int w, h, level, lw, lh;
    } cases[] = {
        {INT_MAX, INT_MAX, 1, 1 << 30, 1 << 30},
        {INT_MAX, 1, 1, 1 << 30, 1},
        {INT_MAX, 3, 2, 1 << 29, 1},
        {INT_MAX, INT_MAX, 31, 1, 1},
        {INT_MAX, INT_MAX, INT_MAX, 1, 1},
        {1921, 1081, -1, 1921, 1081},
        {1921, 1081, INT_MIN, 1921, 1081},
        {1921, 1081, 0, 1921, 1081},
        {1921, 1081, 3, 241, 136},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        set_case("%dx%d level %d", cases[i].w, cases[i].h, cases[i].level);
        int lw = -7, lh = -7;
        clik_pyr_level_size(cases[i].w, cases[i].h, cases[i].level, &lw, &lh);
        EXPECT(lw == cases[i].lw && lh == cases[i].lh, "%dx%d, want %dx%d", lw, lh, cases[i].lw,
               cases[i].lh);
    }
    set_case("NULL outputs");
    int lw = -7;
    clik_pyr_level_size(640, 480, 2, NULL, NULL);
    clik_pyr_level_size(640, 480, 2, &lw, NULL);
    EXPECT(lw == 160, "width %d, want 160", lw);
}

/* INT_MAX sides without overflow; sides below 1 give 0 levels (there is
 * no such image). */
static void row_pyr_max_levels(void)
{
    const struct {
        int w, h, levels;
    } cases[] = {
        {INT_MAX, INT_MAX, 31},
        {INT_MAX, 1, 31},
        {1, INT_MAX, 31},
        {1, 1, 0},
        {2, 1, 1},
        {1921, 1081, 11},
        {0, 0, 0},
        {-5, 3, 0},
        {0, 5, 0},
        {INT_MIN, INT_MIN, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        set_case("%dx%d", cases[i].w, cases[i].h);
        int n = clik_pyr_max_levels(cases[i].w, cases[i].h);
        EXPECT(n == cases[i].levels, "%d levels, want %d", n, cases[i].levels);
    }
}

static void row_resize_size(void)
{
    int w = -7, h = -7;
    set_case("out_width NULL");
    expect_status(clik_resize_size(10, 10, 2, 2, NULL, &h), CLIK_ERR_NULL);
    set_case("out_height NULL");
    expect_status(clik_resize_size(10, 10, 2, 2, &w, NULL), CLIK_ERR_NULL);
    const double scales[] = {0.0, -0.0, -1.0, NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 6; i++) {
        set_case("scale_x %g", scales[i]);
        expect_status(clik_resize_size(10, 10, scales[i], 1.0, &w, &h), CLIK_ERR_INVALID_ARG);
        set_case("scale_y %g", scales[i]);
        expect_status(clik_resize_size(10, 10, 1.0, scales[i], &w, &h), CLIK_ERR_INVALID_ARG);
    }
    const struct {
        int w, h;
        double sx, sy;
    } sizes[] = {
        {0, 10, 1, 1},       {10, -1, 1, 1},     {MAX_SIDE + 1, 1, 1, 1},
        {INT_MAX, 1, 1, 1},  {INT_MIN, 1, 1, 1}, {1, 1, 0.4, 1},
        {MAX_SIDE, 1, 2, 1}, {1, 1, 1e308, 1},   {1, 1, 1, 4.9e-324},
    };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        set_case("%dx%d by %g, %g", sizes[i].w, sizes[i].h, sizes[i].sx, sizes[i].sy);
        expect_status(clik_resize_size(sizes[i].w, sizes[i].h, sizes[i].sx, sizes[i].sy, &w, &h),
                      CLIK_ERR_INVALID_SIZE);
    }
    set_case("outputs after the failures");
    EXPECT(w == -7 && h == -7, "written: %dx%d", w, h);
    set_case("640x480 by 0.5");
    expect_status(clik_resize_size(640, 480, 0.5, 0.5, &w, &h), CLIK_OK);
    EXPECT(w == 320 && h == 240, "%dx%d, want 320x240", w, h);
}

static void row_gaussian_weights(void)
{
    float w[CLIK_BLUR_MAX_KSIZE + 2];
    memset(w, OUT_FILL, sizeof(w));
    set_case("weights NULL");
    expect_status(clik_gaussian_weights(5, 0.0, NULL), CLIK_ERR_NULL);
    const int ksizes[] = {0, -1, 2, 32, 33, INT_MAX, INT_MIN};
    for (int i = 0; i < 7; i++) {
        set_case("ksize %d", ksizes[i]);
        expect_status(clik_gaussian_weights(ksizes[i], 0.0, w), CLIK_ERR_INVALID_ARG);
    }
    const double sigmas[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
        set_case("sigma %g", sigmas[i]);
        expect_status(clik_gaussian_weights(5, sigmas[i], w), CLIK_ERR_INVALID_ARG);
    }
    set_case("the weights after the failures");
    EXPECT(all_bytes(w, sizeof(w), OUT_FILL), "written");
    /* Extreme but valid sigmas: finite weights summing to 1. */
    const double extreme[] = {1e-300, 1e300, DBL_MIN};
    for (int i = 0; i < 3; i++) {
        set_case("31 taps, sigma %g", extreme[i]);
        expect_status(clik_gaussian_weights(31, extreme[i], w), CLIK_OK);
        double sum = 0.0;
        int finite = 1;
        for (int k = 0; k < 31; k++) {
            finite &= isfinite(w[k]) != 0;
            sum += w[k];
        }
        EXPECT(finite && fabs(sum - 1.0) < 1e-5, "weights sum to %g", sum);
        EXPECT(all_bytes(&w[31], 2 * sizeof(float), OUT_FILL), "wrote past 31 weights");
    }
}

/* ---- image descriptors ------------------------------------------------------------------ */

static void row_image_wrap(void)
{
    uint8_t buf[512];
    clik_image img;
    const struct {
        const char *what;
        int w, h, ch;
        clik_type t;
        size_t stride;
        clik_status want;
    } cases[] = {
        {"width 0", 0, 4, 1, CLIK_U8, 0, CLIK_ERR_INVALID_SIZE},
        {"width -1", -1, 4, 1, CLIK_U8, 0, CLIK_ERR_INVALID_SIZE},
        {"width INT_MIN", INT_MIN, 4, 1, CLIK_U8, 0, CLIK_ERR_INVALID_SIZE},
        {"width 2^20 + 1", MAX_SIDE + 1, 1, 1, CLIK_U8, 0, CLIK_ERR_INVALID_SIZE},
        {"width INT_MAX", INT_MAX, 1, 4, CLIK_F64, 0, CLIK_ERR_INVALID_SIZE},
        {"height 0", 4, 0, 1, CLIK_U8, 0, CLIK_ERR_INVALID_SIZE},
        {"height INT_MAX", 4, INT_MAX, 1, CLIK_U8, 0, CLIK_ERR_INVALID_SIZE},
        {"0 channels", 4, 4, 0, CLIK_U8, 0, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"5 channels", 4, 4, 5, CLIK_U8, 0, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"-1 channels", 4, 4, -1, CLIK_U8, 0, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"INT_MAX channels", 4, 4, INT_MAX, CLIK_U8, 0, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"type 0", 4, 4, 1, (clik_type)0, 0, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"type 99", 4, 4, 1, (clik_type)99, 0, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"type -1", 4, 4, 1, (clik_type)-1, 0, CLIK_ERR_UNSUPPORTED_FORMAT},
        {"stride one byte short", 8, 4, 1, CLIK_U8, 7, CLIK_ERR_STRIDE},
        {"stride of an odd byte count for u16", 4, 4, 1, CLIK_U16, 9, CLIK_ERR_STRIDE},
        {"stride SIZE_MAX", 4, 2, 1, CLIK_U8, SIZE_MAX, CLIK_ERR_OVERFLOW},
        {"stride 2^63", 4, 3, 1, CLIK_U8, SIZE_MAX / 2 + 1, CLIK_ERR_OVERFLOW},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        set_case("%s", cases[i].what);
        memset(&img, OUT_FILL, sizeof(img));
        expect_status(clik_image_wrap(&img, cases[i].w, cases[i].h, cases[i].ch, cases[i].t, buf,
                                      cases[i].stride),
                      cases[i].want);
        expect_untouched_or_cleared(&img, sizeof(img), OUT_FILL, "the image");
    }
    set_case("img NULL");
    expect_status(clik_image_wrap(NULL, 4, 4, 1, CLIK_U8, buf, 0), CLIK_ERR_NULL);
    set_case("data NULL");
    memset(&img, OUT_FILL, sizeof(img));
    expect_status(clik_image_wrap(&img, 4, 4, 1, CLIK_U8, NULL, 0), CLIK_ERR_NULL);
    expect_untouched_or_cleared(&img, sizeof(img), OUT_FILL, "the image");
    set_case("a correct call");
    expect_status(clik_image_wrap(&img, 8, 4, 2, CLIK_U16, buf, 40), CLIK_OK);
    EXPECT(img.width == 8 && img.height == 4 && img.channels == 2 && img.type == CLIK_U16 &&
               img.stride == 40 && img.data == buf && img.buffer == NULL,
           "a wrong descriptor");
}

/* Image sizes, channel counts and types that no image may have, and the
 * status that clik_image_alloc and clik_image_create refuse them with. */
static const struct {
    const char *what;
    int w, h, ch;
    clik_type t;
    clik_status want;
} bad_shapes[] = {
    {"width 0", 0, 4, 1, CLIK_U8, CLIK_ERR_INVALID_SIZE},
    {"height -1", 4, -1, 1, CLIK_U8, CLIK_ERR_INVALID_SIZE},
    {"width INT_MIN", INT_MIN, 4, 1, CLIK_U8, CLIK_ERR_INVALID_SIZE},
    {"width INT_MIN, 4 f64", INT_MIN, 4, 4, CLIK_F64, CLIK_ERR_INVALID_SIZE},
    {"width 2^20 + 1", MAX_SIDE + 1, 1, 1, CLIK_U8, CLIK_ERR_INVALID_SIZE},
    {"height INT_MAX", 1, INT_MAX, 4, CLIK_F64, CLIK_ERR_INVALID_SIZE},
    {"width and height INT_MAX", INT_MAX, INT_MAX, 4, CLIK_F64, CLIK_ERR_INVALID_SIZE},
    {"0 channels", 4, 4, 0, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT},
    {"-1 channels", 4, 4, -1, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT},
    {"-2 channels", 4, 4, -2, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT},
    {"5 channels", 4, 4, 5, CLIK_U8, CLIK_ERR_UNSUPPORTED_FORMAT},
    {"INT_MAX channels", 4, 4, INT_MAX, CLIK_F64, CLIK_ERR_UNSUPPORTED_FORMAT},
    {"type 0", 4, 4, 1, (clik_type)0, CLIK_ERR_UNSUPPORTED_FORMAT},
    {"type 99", 4, 4, 1, (clik_type)99, CLIK_ERR_UNSUPPORTED_FORMAT},
};
#define NBAD_SHAPES (sizeof(bad_shapes) / sizeof(bad_shapes[0]))

static void row_image_alloc(void)
{
    clik_image img;
    for (size_t i = 0; i < NBAD_SHAPES; i++) {
        const int w = bad_shapes[i].w, h = bad_shapes[i].h, ch = bad_shapes[i].ch;
        set_case("%s", bad_shapes[i].what);
        memset(&img, OUT_FILL, sizeof(img));
        expect_status(clik_image_alloc(&img, w, h, ch, bad_shapes[i].t), bad_shapes[i].want);
        expect_untouched_or_cleared(&img, sizeof(img), OUT_FILL, "the image");
    }
    set_case("img NULL");
    expect_status(clik_image_alloc(NULL, 4, 4, 1, CLIK_U8), CLIK_ERR_NULL);
    set_case("a correct call");
    expect_status(clik_image_alloc(&img, 3, 5, 4, CLIK_F32), CLIK_OK);
    EXPECT(img.data && img.stride == 48 && clik_image_validate(&img) == CLIK_OK, "not usable");
    clik_image_free(&img);
}

static void row_image_alloc_on(void)
{
    clik_image img;
    set_case("ctx NULL");
    memset(&img, OUT_FILL, sizeof(img));
    expect_status(clik_image_alloc_on(NULL, &img, 4, 4, 1, CLIK_U8), CLIK_ERR_NULL);
    set_case("img NULL");
    expect_status(clik_image_alloc_on(h_ctx, NULL, 4, 4, 1, CLIK_U8), CLIK_ERR_NULL);
    set_case("width 0");
    memset(&img, OUT_FILL, sizeof(img));
    expect_status(clik_image_alloc_on(h_ctx, &img, 0, 4, 1, CLIK_U8), CLIK_ERR_INVALID_SIZE);
    expect_untouched_or_cleared(&img, sizeof(img), OUT_FILL, "the image");
    set_case("5 channels");
    expect_status(clik_image_alloc_on(h_ctx, &img, 4, 4, 5, CLIK_U8), CLIK_ERR_UNSUPPORTED_FORMAT);
    set_case("a correct call, freed twice");
    expect_status(clik_image_alloc_on(h_ctx, &img, 3, 5, 4, CLIK_F32), CLIK_OK);
    EXPECT(img.data && img.stride == 48 && clik_image_validate(&img) == CLIK_OK, "not usable");
    clik_image_free(&img);
    EXPECT(img.data == NULL && img.width == 0, "not cleared");
    clik_image_free(&img);
}

static void row_context_transfer_bandwidth(void)
{
    double up = -1.0, down = -1.0;
    set_case("ctx NULL");
    expect_status(clik_context_transfer_bandwidth(NULL, 4096, 1, &up, &down), CLIK_ERR_NULL);
    set_case("out NULL");
    expect_status(clik_context_transfer_bandwidth(h_ctx, 4096, 1, NULL, &down), CLIK_ERR_NULL);
    expect_status(clik_context_transfer_bandwidth(h_ctx, 4096, 1, &up, NULL), CLIK_ERR_NULL);
    set_case("bytes 0");
    expect_status(clik_context_transfer_bandwidth(h_ctx, 0, 1, &up, &down), CLIK_ERR_INVALID_ARG);
    set_case("reps 0");
    expect_status(clik_context_transfer_bandwidth(h_ctx, 4096, 0, &up, &down),
                  CLIK_ERR_INVALID_ARG);
    set_case("a correct call");
    expect_status(clik_context_transfer_bandwidth(h_ctx, 65536, 2, &up, &down), CLIK_OK);
    EXPECT(up > 0.0 && down > 0.0, "no bandwidth");
}

static void free_wrapped_in_child(void *arg)
{
    (void)arg;
    unsigned char pixels[64]; /* the caller's memory: not the library's to free */
    memset(pixels, 7, sizeof(pixels));
    clik_image img;
    if (clik_image_wrap(&img, 8, 8, 1, CLIK_U8, pixels, 0) != CLIK_OK)
        _exit(3);
    clik_image_free(&img);
    const int cleared = img.data == NULL && img.buffer == NULL && img.width == 0;
    _exit(!cleared ? 4 : !all_bytes(pixels, sizeof(pixels), 7) ? 5 : 0);
}

static void describe_child(int ws, const char *what)
{
    if (WIFSIGNALED(ws))
        failed("%s: the process died of signal %d", what, WTERMSIG(ws));
    else if (WEXITSTATUS(ws) != 0)
        failed("%s: exit %d", what, WEXITSTATUS(ws));
}

static void row_image_free(void)
{
    set_case("NULL");
    clik_image_free(NULL);
    set_case("a cleared image");
    clik_image img;
    memset(&img, 0, sizeof(img));
    clik_image_free(&img);
    EXPECT(all_bytes(&img, sizeof(img), 0), "changed");
    set_case("an allocated image, freed twice");
    ck_assert_int_eq(clik_image_alloc(&img, 4, 4, 1, CLIK_U8), CLIK_OK);
    clik_image_free(&img);
    EXPECT(img.data == NULL && img.width == 0, "not cleared");
    clik_image_free(&img);
    set_case("a device image");
    ck_assert_int_eq(clik_image_create(h_ctx, &img, 4, 4, 1, CLIK_U8), CLIK_OK);
    clik_image_free(&img);
    EXPECT(img.buffer == NULL && img.width == 0, "not cleared");
    set_case("a device image of another context");
    ck_assert_int_eq(clik_image_create(other_ctx, &img, 4, 4, 1, CLIK_U8), CLIK_OK);
    clik_image_free(&img);
    EXPECT(img.buffer == NULL, "not cleared");
    /* Only the struct of a wrapped image is cleared, its memory stays the
     * caller's. In a child process: a free() of stack memory would abort. */
    set_case("a wrapped image (caller's stack memory)");
    describe_child(in_child(free_wrapped_in_child, NULL),
                   "clik_image_free must only clear a wrapped image, not free its memory");
    ctx_works();
}

static void row_image_validate(void)
{
    slot host = make_slot(24, 20, 2, CLIK_F32, NULL, "host"),
         dev = make_slot(24, 20, 2, CLIK_F32, h_ctx, "device");
    set_case("NULL");
    expect_status(clik_image_validate(NULL), CLIK_ERR_NULL);
    for (int d = 0; d < 2; d++) {
        const clik_image valid = d ? dev.img : host.img;
        const char *kind = d ? "device image" : "host image";
        set_case("a valid %s", kind);
        expect_status(clik_image_validate(&valid), CLIK_OK);
        for (int v = 0; v < NVARIANTS; v++) {
            clik_image m = valid;
            set_case("%s: %s", kind, variants[v].what);
            if (spoil(&variants[v], &m))
                expect_status(clik_image_validate(&m), variants[v].want);
        }
        set_case("%s: both data and buffer set", kind);
        clik_image both = valid;
        both.data = host.img.data;
        both.buffer = dev.img.buffer;
        expect_status(clik_image_validate(&both), CLIK_ERR_INVALID_ARG);
    }
    slot_free(&host);
    slot_free(&dev);
}

static void row_image_create(void)
{
    clik_image img;
    for (size_t i = 0; i < NBAD_SHAPES; i++) {
        const int w = bad_shapes[i].w, h = bad_shapes[i].h, ch = bad_shapes[i].ch;
        set_case("%s", bad_shapes[i].what);
        memset(&img, OUT_FILL, sizeof(img));
        EXPECT_REFUSED(h_ctx, clik_image_create(h_ctx, &img, w, h, ch, bad_shapes[i].t),
                       bad_shapes[i].want);
        expect_untouched_or_cleared(&img, sizeof(img), OUT_FILL, "the image");
        ctx_works();
    }
    if (clik_context_device(h_ctx)) {
        /* 32 TiB: more than any device allocates (a CPU context's answer
         * would depend on the host's overcommit policy). */
        set_case("2^20 x 2^20 x 4 f64 (32 TiB) on the device");
        memset(&img, OUT_FILL, sizeof(img));
        expect_status(clik_image_create(h_ctx, &img, MAX_SIDE, MAX_SIDE, 4, CLIK_F64),
                      CLIK_ERR_NO_MEMORY);
        expect_untouched_or_cleared(&img, sizeof(img), OUT_FILL, "the image");
        ctx_works();
    }
    set_case("img NULL");
    expect_status(clik_image_create(h_ctx, NULL, 4, 4, 1, CLIK_U8), CLIK_ERR_NULL);
    set_case("the context of a failed clik_context_create");
    memset(&img, OUT_FILL, sizeof(img));
    expect_status(clik_image_create(failed_ctx, &img, 4, 4, 1, CLIK_U8), CLIK_ERR_NULL);
    expect_untouched_or_cleared(&img, sizeof(img), OUT_FILL, "the image");
    ctx_works();
}

/* ---- devices -------------------------------------------------------------------------------- */

static void row_devices_list(void)
{
    clik_device_info *list = (clik_device_info *)&list;
    int count = -7;
    set_case("list NULL");
    expect_status(clik_devices_list(NULL, &count), CLIK_ERR_NULL);
    EXPECT(count == -7, "count written");
    set_case("count NULL");
    expect_status(clik_devices_list(&list, NULL), CLIK_ERR_NULL);
    EXPECT(list == (clik_device_info *)&list, "list written");
    set_case("a correct call");
    expect_status(clik_devices_list(&list, &count), CLIK_OK);
    EXPECT(count >= 0 && (count == 0 || list), "%d devices, list %p", count, (void *)list);
    EXPECT(h_expected != CLIK_BACKEND_OPENCL || count > 0, "no device on the OpenCL backend");
    clik_devices_free(list);
}

static void row_devices_free(void)
{
    set_case("NULL");
    clik_devices_free(NULL);
    set_case("an empty or full list");
    clik_device_info *list;
    int count;
    ck_assert_int_eq(clik_devices_list(&list, &count), CLIK_OK);
    clik_devices_free(list);
}

static void row_device_select(void)
{
    clik_device_info list[2];
    memset(list, 0, sizeof(list));
    list[0].type = CLIK_DEVICE_CPU;
    snprintf(list[0].name, sizeof(list[0].name), "cpu-one");
    list[1].type = CLIK_DEVICE_GPU;
    list[1].platform_index = 1;
    snprintf(list[1].name, sizeof(list[1].name), "gpu-two");
    char long_spec[300];
    memset(long_spec, 'g', sizeof(long_spec) - 1);
    long_spec[sizeof(long_spec) - 1] = '\0';
    const struct {
        const char *what;
        const clik_device_info *list;
        int count;
        const char *spec;
        int with_index;
        clik_status want;
    } cases[] = {
        {"list NULL with 2 entries", NULL, 2, "auto", 1, CLIK_ERR_NULL},
        {"spec NULL", list, 2, NULL, 1, CLIK_ERR_NULL},
        {"index NULL", list, 2, "auto", 0, CLIK_ERR_NULL},
        {"count -1", list, -1, "auto", 1, CLIK_ERR_INVALID_SIZE},
        {"count INT_MIN", list, INT_MIN, "0:0", 1, CLIK_ERR_INVALID_SIZE},
        {"spec \"\"", list, 2, "", 1, CLIK_ERR_DEVICE_SPEC},
        {"spec \"1:\"", list, 2, "1:", 1, CLIK_ERR_DEVICE_SPEC},
        {"spec of 299 characters", list, 2, long_spec, 1, CLIK_ERR_DEVICE_SPEC},
        {"spec \"99999999999999999999:0\"", list, 2, "99999999999999999999:0", 1,
         CLIK_ERR_DEVICE_SPEC},
        {"spec \"7:7\"", list, 2, "7:7", 1, CLIK_ERR_NO_DEVICE},
        {"spec \"mali\"", list, 2, "mali", 1, CLIK_ERR_NO_DEVICE},
        {"spec \"gpu\" with an empty list", list, 0, "gpu", 1, CLIK_ERR_NO_DEVICE},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        set_case("%s", cases[i].what);
        int index = 1234;
        expect_status(clik_device_select(cases[i].list, cases[i].count, cases[i].spec,
                                         cases[i].with_index ? &index : NULL),
                      cases[i].want);
        /* Not even -1 (the C fallback) is written on failure. */
        EXPECT(index == 1234, "index written on failure: %d", index);
    }
    set_case("a correct call");
    int index = -7;
    expect_status(clik_device_select(list, 2, "auto", &index), CLIK_OK);
    EXPECT(index == 1, "index %d, want 1 (the GPU)", index);
}

static void row_opencl_library(void)
{
    set_case("why NULL");
    const char *a = clik_opencl_library(NULL);
    set_case("why");
    const char *why = (const char *)&why;
    const char *b = clik_opencl_library(&why);
    EXPECT(a == b, "two answers: %s, %s", a ? a : "(NULL)", b ? b : "(NULL)");
    EXPECT(why && (b || *why), "no reason with no library (why %p)", (const void *)why);
    EXPECT(h_expected != CLIK_BACKEND_OPENCL || b, "no library on the OpenCL backend");
}

/* ---- contexts ------------------------------------------------------------------------------- */

static void row_context_options_init(void)
{
    set_case("NULL");
    clik_context_options_init(NULL);
    set_case("a correct call");
    clik_context_options opt;
    memset(&opt, OUT_FILL, sizeof(opt));
    clik_context_options_init(&opt);
    EXPECT(opt.device == NULL && opt.cache == -1 && opt.strict == -1 &&
               opt.cpu_path == CLIK_CPU_AUTO && opt.local_memory == -1 && opt.profiling == -1 &&
               opt.threads == -1 && opt.log == NULL && opt.tuning == NULL &&
               opt.kernel_dir == NULL && opt.compile == NULL && opt.compile_user == NULL,
           "not all \"not set\"");
}

static void row_context_create(void)
{
    const struct {
        const char *what;
        const char *device;
        int cpu_path;
        const char *tuning;
        clik_status want;
    } cases[] = {
        {"device \"1:\"", "1:", CLIK_CPU_AUTO, NULL, CLIK_ERR_DEVICE_SPEC},
        {"device \"no-such-device-anywhere\"", "no-such-device-anywhere", CLIK_CPU_AUTO, NULL,
         CLIK_ERR_NO_DEVICE},
        {"cpu_path 9", "none", 9, NULL, CLIK_ERR_INVALID_ARG},
        {"cpu_path -1", "none", -1, NULL, CLIK_ERR_INVALID_ARG},
        {"tuning \"x\"", "none", CLIK_CPU_AUTO, "x", CLIK_ERR_INVALID_ARG},
        {"tuning \"=1\"", "none", CLIK_CPU_AUTO, "=1", CLIK_ERR_INVALID_ARG},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        set_case("%s", cases[i].what);
        clik_context_options opt;
        clik_context_options_init(&opt);
        opt.device = cases[i].device;
        opt.cpu_path = (clik_cpu_path)cases[i].cpu_path;
        opt.tuning = cases[i].tuning;
        clik_context *ctx = (clik_context *)&opt;
        expect_status(clik_context_create(&ctx, &opt), cases[i].want);
        EXPECT(ctx == NULL, "*ctx not NULL after a failure");
        const char *m = clik_context_message(NULL);
        EXPECT(m && *m, "no message");
        if (ctx && ctx != (clik_context *)&opt)
            clik_context_destroy(ctx);
    }
    if (!clik_cpu_path_available(CLIK_CPU_NEON)) {
        set_case("cpu_path NEON in a build without it");
        clik_context_options opt;
        clik_context_options_init(&opt);
        opt.device = "none";
        opt.cpu_path = CLIK_CPU_NEON;
        clik_context *ctx = (clik_context *)&opt;
        expect_status(clik_context_create(&ctx, &opt), CLIK_ERR_NO_NEON);
        EXPECT(ctx == NULL, "*ctx not NULL after a failure");
    }
    set_case("ctx NULL");
    expect_status(clik_context_create(NULL, NULL), CLIK_ERR_NULL);
    set_case("a correct call");
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    clik_context *ctx = NULL;
    expect_status(clik_context_create(&ctx, &opt), CLIK_OK);
    clik_context_destroy(ctx);
}

static void row_context_destroy(void)
{
    set_case("NULL");
    clik_context_destroy(NULL);
    set_case("the context of a failed create");
    clik_context_destroy(failed_ctx);
    set_case("a context with images left");
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = "none";
    clik_context *ctx;
    ck_assert_int_eq(clik_context_create(&ctx, &opt), CLIK_OK);
    clik_context_destroy(ctx);
}

static void row_context_message(void)
{
    set_case("NULL after a failed create");
    clik_context *ctx;
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = ":";
    ck_assert_int_eq(clik_context_create(&ctx, &opt), CLIK_ERR_DEVICE_SPEC);
    const char *m = clik_context_message(NULL);
    EXPECT(m && strstr(m, ":"), "\"%s\"", m ? m : "(NULL)");
    set_case("a context after a failure");
    EXPECT_REFUSED(h_ctx, clik_gaussian_blur(h_ctx, NULL, NULL, 3, 0.0), CLIK_ERR_NULL);
}

static void row_context_device(void)
{
    set_case("NULL");
    EXPECT(clik_context_device(NULL) == NULL, "not NULL");
    set_case("the context under test");
    const clik_device_info *d = clik_context_device(h_ctx);
    EXPECT((d != NULL) == (h_expected == CLIK_BACKEND_OPENCL), "device %s", d ? d->name : "(none)");
}

static void row_context_last_backend(void)
{
    set_case("NULL");
    EXPECT(clik_context_last_backend(NULL) == CLIK_BACKEND_NONE, "not none");
}

static void row_context_cpu_backend(void)
{
    set_case("NULL");
    EXPECT(clik_context_cpu_backend(NULL) == CLIK_BACKEND_NONE, "not none");
    set_case("the context under test");
    clik_backend b = clik_context_cpu_backend(h_ctx);
    EXPECT(b == CLIK_BACKEND_SCALAR || b == CLIK_BACKEND_NEON, "%s", clik_backend_name(b));
}

static void row_context_fallback_cause(void)
{
    set_case("NULL");
    EXPECT(clik_context_fallback_cause(NULL) == CLIK_OK, "not CLIK_OK");
    set_case("after an operation that ran");
    uint8_t px[4] = {1, 2, 3, 4};
    clik_image img;
    clik_image_wrap(&img, 2, 2, 1, CLIK_U8, px, 0);
    EXPECT(clik_hist_equalize(h_ctx, &img, &img) == CLIK_OK, "equalize failed");
    EXPECT(clik_context_fallback_cause(h_ctx) == CLIK_OK, "%s",
           clik_status_str(clik_context_fallback_cause(h_ctx)));
}

static void row_context_stats_get(void)
{
    clik_context_stats stats;
    set_case("NULL context");
    memset(&stats, OUT_FILL, sizeof(stats));
    clik_context_stats_get(NULL, &stats);
    EXPECT(stats.programs_built == 0 && stats.fallbacks == 0 && stats.last_kernel_ms == 0.0,
           "not cleared");
    set_case("NULL stats");
    clik_context_stats_get(h_ctx, NULL);
    ctx_works();
}

static void row_context_finish(void)
{
    set_case("NULL");
    expect_status(clik_context_finish(NULL), CLIK_ERR_NULL);
    set_case("the context of a failed create");
    expect_status(clik_context_finish(failed_ctx), CLIK_ERR_NULL);
    set_case("a correct call");
    expect_status(clik_context_finish(h_ctx), CLIK_OK);
}

static void row_context_copy_bandwidth(void)
{
    double gbps = -7.0;
    set_case("ctx NULL");
    expect_status(clik_context_copy_bandwidth(NULL, 4096, 1, &gbps), CLIK_ERR_NULL);
    set_case("the context of a failed create");
    expect_status(clik_context_copy_bandwidth(failed_ctx, 4096, 1, &gbps), CLIK_ERR_NULL);
    set_case("gbps NULL");
    EXPECT_REFUSED(h_ctx, clik_context_copy_bandwidth(h_ctx, 4096, 1, NULL), CLIK_ERR_NULL);
    const struct {
        size_t bytes;
        int reps;
    } cases[] = {{0, 1},     {4095, 1},      {((size_t)1 << 31) + 16, 1}, {SIZE_MAX, 1}, {4096, 0},
                 {4096, -1}, {4096, INT_MIN}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        set_case("%zu bytes, %d reps", cases[i].bytes, cases[i].reps);
        EXPECT_REFUSED(h_ctx,
                       clik_context_copy_bandwidth(h_ctx, cases[i].bytes, cases[i].reps, &gbps),
                       CLIK_ERR_INVALID_ARG);
    }
    set_case("gbps after the failures");
    EXPECT(gbps == -7.0, "written: %g", gbps);
    set_case("a correct call");
    expect_status(clik_context_copy_bandwidth(h_ctx, 4096, 1, &gbps), CLIK_OK);
    EXPECT(isfinite(gbps) && gbps > 0.0, "%g GB/s", gbps);
    ctx_works();
}

static void row_context_fma_peak(void)
{
    double gflops = -7.0;
    set_case("ctx NULL");
    expect_status(clik_context_fma_peak(NULL, 1, &gflops), CLIK_ERR_NULL);
    set_case("the context of a failed create");
    expect_status(clik_context_fma_peak(failed_ctx, 1, &gflops), CLIK_ERR_NULL);
    set_case("gflops NULL");
    EXPECT_REFUSED(h_ctx, clik_context_fma_peak(h_ctx, 1, NULL), CLIK_ERR_NULL);
    const int reps[] = {0, -1, INT_MIN};
    for (size_t i = 0; i < sizeof(reps) / sizeof(reps[0]); i++) {
        set_case("%d reps", reps[i]);
        EXPECT_REFUSED(h_ctx, clik_context_fma_peak(h_ctx, reps[i], &gflops), CLIK_ERR_INVALID_ARG);
    }
    set_case("gflops after the failures");
    EXPECT(gflops == -7.0, "written: %g", gflops);
    set_case("a correct call");
    expect_status(clik_context_fma_peak(h_ctx, 1, &gflops), CLIK_OK);
    EXPECT(isfinite(gflops) && gflops > 0.0, "%g GFLOP/s", gflops);
    ctx_works();
}

/* ---- fusion options and streams -------------------------------------------------------------- */

static void row_fusion_options_init(void)
{
    set_case("NULL");
    clik_fusion_options_init(NULL);
    set_case("a correct call");
    clik_fusion_options opt;
    memset(&opt, OUT_FILL, sizeof(opt));
    clik_fusion_options_init(&opt);
    EXPECT(opt.tile == 8 && opt.blur_ksize == 7 && opt.threshold == 0.05f, "not the defaults");
}

/* A stream on h_ctx gives the oracle's fusion of a frame. */
static void stream_works(clik_fusion_stream *s, int submit_first)
{
    void *mem[4];
    clik_image src = host_image(FW, FH, 4, CLIK_U8, &mem[0]);
    clik_image dst = host_image(2 * FW, 2 * FH, 4, CLIK_U8, &mem[1]);
    clik_image want = host_image(2 * FW, 2 * FH, 4, CLIK_U8, &mem[2]);
    fill_input(&src, 3);
    clik_fusion_stream *own = NULL;
    if (!s) {
        clik_status st = clik_fusion_stream_create(h_ctx, FW, FH, 2, NULL, 0, &own);
        EXPECT(st == CLIK_OK, "then a correct stream fails: %s: %s", sname(st),
               clik_context_message(h_ctx));
        s = own;
    }
    ck_assert_int_eq(clik_upscale_fusion(h_oracle, &src, &want, NULL, NULL), CLIK_OK);
    if (s && submit_first) {
        uint64_t ticket = 0;
        clik_status st = clik_fusion_stream_submit(s, &src, &dst, NULL, &ticket);
        if (st == CLIK_OK)
            st = clik_fusion_stream_wait(s, ticket);
        EXPECT(st == CLIK_OK, "then a correct frame fails: %s: %s", sname(st),
               clik_context_message(h_ctx));
        sup_compare cmp;
        sup_compare_images(&dst, &want, SUP_TOL_FUSION, &cmp);
        EXPECT(st != CLIK_OK || cmp.pass, "then a correct frame is wrong: %s", cmp.detail);
    }
    clik_fusion_stream_destroy(own);
    for (int i = 0; i < 3; i++)
        free(mem[i]);
}

static void row_fusion_stream_create(void)
{
    clik_fusion_options bad[4];
    for (int i = 0; i < 4; i++)
        clik_fusion_options_init(&bad[i]);
    bad[0].tile = 1;
    bad[1].blur_ksize = 4;
    bad[2].threshold = NAN;
    bad[3].tile = INT_MIN;
    const struct {
        const char *what;
        int w, h, scale, depth;
        const clik_fusion_options *opt;
        clik_status want;
    } cases[] = {
        {"width 0", 0, FH, 2, 0, NULL, CLIK_ERR_INVALID_SIZE},
        {"height -1", FW, -1, 2, 0, NULL, CLIK_ERR_INVALID_SIZE},
        {"width 2^20 + 1", MAX_SIDE + 1, FH, 2, 0, NULL, CLIK_ERR_INVALID_SIZE},
        {"height INT_MAX", FW, INT_MAX, 2, 0, NULL, CLIK_ERR_INVALID_SIZE},
        {"width INT_MIN", INT_MIN, FH, 2, 0, NULL, CLIK_ERR_INVALID_SIZE},
        {"an output wider than 2^20", (1 << 18) + 1, 1, 4, 0, NULL, CLIK_ERR_INVALID_SIZE},
        {"scale 1", FW, FH, 1, 0, NULL, CLIK_ERR_INVALID_ARG},
        {"scale 9", FW, FH, 9, 0, NULL, CLIK_ERR_INVALID_ARG},
        {"scale 0", FW, FH, 0, 0, NULL, CLIK_ERR_INVALID_ARG},
        {"scale INT_MAX", FW, FH, INT_MAX, 0, NULL, CLIK_ERR_INVALID_ARG},
        {"depth -1", FW, FH, 2, -1, NULL, CLIK_ERR_INVALID_ARG},
        {"depth 9", FW, FH, 2, 9, NULL, CLIK_ERR_INVALID_ARG},
        {"depth INT_MAX", FW, FH, 2, INT_MAX, NULL, CLIK_ERR_INVALID_ARG},
        {"option tile 1", FW, FH, 2, 0, &bad[0], CLIK_ERR_INVALID_ARG},
        {"option blur_ksize 4", FW, FH, 2, 0, &bad[1], CLIK_ERR_INVALID_ARG},
        {"option threshold NaN", FW, FH, 2, 0, &bad[2], CLIK_ERR_INVALID_ARG},
        {"option tile INT_MIN", FW, FH, 2, 0, &bad[3], CLIK_ERR_INVALID_ARG},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        set_case("%s", cases[i].what);
        clik_fusion_stream *s = (clik_fusion_stream *)&s;
        EXPECT_REFUSED(h_ctx,
                       clik_fusion_stream_create(h_ctx, cases[i].w, cases[i].h, cases[i].scale,
                                                 cases[i].opt, cases[i].depth, &s),
                       cases[i].want);
        EXPECT(s == NULL || s == (clik_fusion_stream *)&s, "*stream set on failure");
        ctx_works();
    }
    clik_fusion_stream *s = (clik_fusion_stream *)&s;
    set_case("ctx NULL");
    expect_status(clik_fusion_stream_create(NULL, FW, FH, 2, NULL, 0, &s), CLIK_ERR_NULL);
    set_case("the context of a failed create");
    expect_status(clik_fusion_stream_create(failed_ctx, FW, FH, 2, NULL, 0, &s), CLIK_ERR_NULL);
    EXPECT(s == (clik_fusion_stream *)&s, "*stream written");
    set_case("stream NULL");
    EXPECT_REFUSED(h_ctx, clik_fusion_stream_create(h_ctx, FW, FH, 2, NULL, 0, NULL),
                   CLIK_ERR_NULL);
    set_case("a correct stream");
    stream_works(NULL, 1);
}

static void row_fusion_stream_wait(void)
{
    set_case("NULL");
    expect_status(clik_fusion_stream_wait(NULL, 1), CLIK_ERR_NULL);
    clik_fusion_stream *s;
    ck_assert_int_eq(clik_fusion_stream_create(h_ctx, FW, FH, 2, NULL, 2, &s), CLIK_OK);
    const uint64_t tickets[] = {0, 1, 100, UINT64_MAX};
    for (int i = 0; i < 4; i++) {
        set_case("ticket %llu with nothing submitted", (unsigned long long)tickets[i]);
        expect_status(clik_fusion_stream_wait(s, tickets[i]), CLIK_OK);
    }
    set_case("after a refused frame");
    clik_image empty;
    memset(&empty, 0, sizeof(empty));
    EXPECT(clik_fusion_stream_submit(s, &empty, &empty, NULL, NULL) != CLIK_OK, "accepted");
    expect_status(clik_fusion_stream_wait(s, UINT64_MAX), CLIK_OK);
    stream_works(s, 1);
    clik_fusion_stream_destroy(s);
}

static void row_fusion_stream_destroy(void)
{
    set_case("NULL");
    clik_fusion_stream_destroy(NULL);
    set_case("with a frame in flight");
    clik_fusion_stream *s;
    ck_assert_int_eq(clik_fusion_stream_create(h_ctx, FW, FH, 2, NULL, 2, &s), CLIK_OK);
    void *mem[3];
    clik_image src = host_image(FW, FH, 4, CLIK_U8, &mem[0]);
    clik_image dst = host_image(2 * FW, 2 * FH, 4, CLIK_U8, &mem[1]);
    clik_image want = host_image(2 * FW, 2 * FH, 4, CLIK_U8, &mem[2]);
    fill_input(&src, 9);
    ck_assert_int_eq(clik_upscale_fusion(h_oracle, &src, &want, NULL, NULL), CLIK_OK);
    expect_status(clik_fusion_stream_submit(s, &src, &dst, NULL, NULL), CLIK_OK);
    clik_fusion_stream_destroy(s); /* waits for the frame */
    sup_compare cmp;
    sup_compare_images(&dst, &want, SUP_TOL_FUSION, &cmp);
    EXPECT(cmp.pass, "the frame in flight is wrong after destroy: %s", cmp.detail);
    for (int i = 0; i < 3; i++)
        free(mem[i]);
    ctx_works();
}

/* ---- flow and LAPAR options, the default dictionary ------------------------------------------ */

static void row_flow_options_init(void)
{
    set_case("NULL");
    clik_flow_options_init(NULL);
    set_case("a correct call");
    clik_flow_options o;
    memset(&o, OUT_FILL, sizeof(o));
    clik_flow_options_init(&o);
    EXPECT(o.tau == 0.25 && o.lambda == 0.15 && o.theta == 0.3 && o.scales == 0 && o.zoom == 0.5 &&
               o.warps == 5 && o.epsilon == 0.01 && o.iterations == 300 && o.sigma == 0.8 &&
               o.initial_flow == 0 && o.storage == CLIK_FLOW_STORAGE_AUTO,
           "not the defaults");
}

static void row_lapar_compress_options_init(void)
{
    set_case("NULL");
    clik_lapar_compress_options_init(NULL);
    set_case("a correct call");
    clik_lapar_compress_options o;
    memset(&o, OUT_FILL, sizeof(o));
    clik_lapar_compress_options_init(&o);
    EXPECT(o.samples == 65536 && o.refit_samples == 16384 && o.seed == 1, "not the defaults");
}

static void row_lapar_dict_default(void)
{
    set_case("atoms NULL");
    expect_status(clik_lapar_dict_default(NULL), CLIK_ERR_NULL);
    set_case("a correct call");
    float atoms[(CLIK_LAPAR_ATOMS + 1) * CLIK_LAPAR_TAPS];
    memset(atoms, OUT_FILL, sizeof(atoms));
    expect_status(clik_lapar_dict_default(atoms), CLIK_OK);
    /* Finite, centrally symmetric, summing to 1 (the differences too:
     * +1.4 and -0.4); nothing past the last atom. */
    for (int l = 0; l < CLIK_LAPAR_ATOMS; l++) {
        const float *a = atoms + l * CLIK_LAPAR_TAPS;
        double sum = 0.0;
        int finite = 1, symmetric = 1;
        for (int k = 0; k < CLIK_LAPAR_TAPS; k++) {
            finite &= isfinite(a[k]) != 0;
            symmetric &= memcmp(&a[k], &a[CLIK_LAPAR_TAPS - 1 - k], sizeof(float)) == 0;
            sum += a[k];
        }
        EXPECT(finite && symmetric && fabs(sum - 1.0) < 1e-5, "atom %d: %s, %s, sum %g", l,
               finite ? "finite" : "not finite", symmetric ? "symmetric" : "not symmetric", sum);
    }
    EXPECT(all_bytes(atoms + CLIK_LAPAR_ATOMS * CLIK_LAPAR_TAPS, CLIK_LAPAR_TAPS * sizeof(float),
                     OUT_FILL),
           "wrote past %d atoms", CLIK_LAPAR_ATOMS);
}

/* ---- the LAPAR model family ------------------------------------------------------------------ */

/* A correct call of the family's ops: CLIK_OK, or on an OpenCL device (strict,
 * no kernel yet) the refused fall back. */
static void expect_model_op(clik_status st)
{
    EXPECT(st == CLIK_OK || (clik_context_device(h_ctx) && st == CLIK_ERR_FALLBACK),
           "a correct call gives %s: %s", sname(st), clik_context_message(h_ctx));
}

static void row_lapar_model_options_init(void)
{
    set_case("NULL");
    clik_lapar_model_options_init(NULL);
    set_case("a correct call");
    clik_lapar_model_options o;
    memset(&o, OUT_FILL, sizeof(o));
    clik_lapar_model_options_init(&o);
    EXPECT(o.scale == 2 && o.angles == 16 && o.strengths == 3 && o.coherences == 3 &&
               o.phases == 0 && o.window == 5 && o.atoms == 13 && o.alpha == 1e-5 &&
               o.min_samples == 64 && o.f16 == 1 && o.progress == NULL &&
               o.strength_edges[0] == 0.0f && o.coherence_edges[0] == 0.0f,
           "not the defaults");
}

static void row_lapar_model_read(void)
{
    size_t n;
    uint8_t *b = h_default_model_bytes(&n);
    clik_lapar_model *m = (clik_lapar_model *)&m;
    set_case("ctx NULL");
    expect_status(clik_lapar_model_read(NULL, b, n, &m), CLIK_ERR_NULL);
    set_case("data NULL");
    EXPECT_REFUSED(h_ctx, clik_lapar_model_read(h_ctx, NULL, n, &m), CLIK_ERR_NULL);
    set_case("model NULL");
    expect_status(clik_lapar_model_read(h_ctx, b, n, NULL), CLIK_ERR_NULL);
    const size_t sizes[] = {0, 1, 27, n - 1, n + 1};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        set_case("size %zu of %zu", sizes[i], n);
        uint8_t *c = calloc(1, sizes[i] + 1);
        memcpy(c, b, sizes[i] < n ? sizes[i] : n);
        EXPECT_REFUSED(h_ctx, clik_lapar_model_read(h_ctx, c, sizes[i], &m), CLIK_ERR_FILE_FORMAT);
        free(c);
    }
    EXPECT(m == (clik_lapar_model *)&m, "*model written on failure");
    set_case("a correct call");
    expect_status(clik_lapar_model_read(h_ctx, b, n, &m), CLIK_OK);
    if (m != (clik_lapar_model *)&m)
        clik_lapar_model_free(m);
    free(b);
    ctx_works();
}

static void row_lapar_model_load(void)
{
    clik_lapar_model *m = (clik_lapar_model *)&m;
    set_case("ctx NULL");
    expect_status(clik_lapar_model_load(NULL, "x", &m), CLIK_ERR_NULL);
    set_case("path NULL");
    expect_status(clik_lapar_model_load(h_ctx, NULL, &m), CLIK_ERR_NULL);
    set_case("model NULL");
    expect_status(clik_lapar_model_load(h_ctx, "x", NULL), CLIK_ERR_NULL);
    set_case("a missing file");
    EXPECT_REFUSED(h_ctx, clik_lapar_model_load(h_ctx, "/nonexistent/m.clikm", &m), CLIK_ERR_IO);
    set_case("a folder");
    EXPECT(clik_lapar_model_load(h_ctx, "/", &m) != CLIK_OK, "accepted");
    EXPECT(m == (clik_lapar_model *)&m, "*model written on failure");
    ctx_works();
}

static void row_lapar_model_write(void)
{
    const clik_lapar_model *m = clik_lapar_model_default(2);
    size_t n = 0;
    set_case("ctx NULL");
    expect_status(clik_lapar_model_write(NULL, m, NULL, 0, &n), CLIK_ERR_NULL);
    set_case("model NULL");
    expect_status(clik_lapar_model_write(h_ctx, NULL, NULL, 0, &n), CLIK_ERR_NULL);
    set_case("size NULL");
    expect_status(clik_lapar_model_write(h_ctx, m, NULL, 0, NULL), CLIK_ERR_NULL);
    set_case("a buffer one byte short");
    expect_status(clik_lapar_model_write(h_ctx, m, NULL, 0, &n), CLIK_OK);
    uint8_t *b = malloc(n);
    memset(b, SENTINEL, n);
    size_t got = 0;
    EXPECT_REFUSED(h_ctx, clik_lapar_model_write(h_ctx, m, b, n - 1, &got), CLIK_ERR_INVALID_SIZE);
    EXPECT(got == n && all_bytes(b, n, SENTINEL), "wrote into a short buffer");
    set_case("a correct call");
    expect_status(clik_lapar_model_write(h_ctx, m, b, n, &got), CLIK_OK);
    free(b);
    ctx_works();
}

static void row_lapar_model_combine(void)
{
    const clik_lapar_model *m = clik_lapar_model_default(2);
    clik_lapar_model *out = (clik_lapar_model *)&out;
    set_case("ctx NULL");
    expect_status(clik_lapar_model_combine(NULL, m, m, &out), CLIK_ERR_NULL);
    set_case("a NULL");
    expect_status(clik_lapar_model_combine(h_ctx, NULL, m, &out), CLIK_ERR_NULL);
    set_case("out NULL");
    expect_status(clik_lapar_model_combine(h_ctx, m, m, NULL), CLIK_ERR_NULL);
    set_case("one scale twice");
    EXPECT_REFUSED(h_ctx, clik_lapar_model_combine(h_ctx, m, m, &out), CLIK_ERR_INVALID_ARG);
    EXPECT(out == (clik_lapar_model *)&out, "*out written on failure");
    ctx_works();
}

static void row_lapar_model_describe(void)
{
    const clik_lapar_model *m = clik_lapar_model_default(2);
    clik_lapar_model_options o;
    set_case("ctx NULL");
    expect_status(clik_lapar_model_describe(NULL, m, 2, &o), CLIK_ERR_NULL);
    set_case("model NULL");
    expect_status(clik_lapar_model_describe(h_ctx, NULL, 2, &o), CLIK_ERR_NULL);
    set_case("opt NULL");
    expect_status(clik_lapar_model_describe(h_ctx, m, 2, NULL), CLIK_ERR_NULL);
    const int scales[] = {0, 1, 5, -1, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
        set_case("scale %d", scales[i]);
        EXPECT_REFUSED(h_ctx, clik_lapar_model_describe(h_ctx, m, scales[i], &o),
                       CLIK_ERR_INVALID_ARG);
    }
    set_case("a correct call");
    expect_status(clik_lapar_model_describe(h_ctx, m, 4, &o), CLIK_OK);
    EXPECT(o.scale == 4, "scale %d", o.scale);
}

static void row_lapar_model_default(void)
{
    const int bad[] = {0, 1, 5, -1, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        set_case("scale %d", bad[i]);
        EXPECT(clik_lapar_model_default(bad[i]) == NULL, "not NULL");
    }
    set_case("scales 2, 3, 4");
    for (int s = 2; s <= 4; s++)
        EXPECT(clik_lapar_model_default(s) != NULL, "x%d: NULL", s);
}

static void row_lapar_model_free(void)
{
    set_case("NULL");
    clik_lapar_model_free(NULL);
    set_case("the default model (ignored)");
    clik_lapar_model_free((clik_lapar_model *)clik_lapar_model_default(3));
    EXPECT(clik_lapar_model_default(3) != NULL, "the default is gone");
}

static void row_lapar_classify(void)
{
    void *mem[3];
    clik_image up = host_image(12, 8, 4, CLIK_F32, &mem[0]);
    clik_image bk = host_image(12, 8, 1, CLIK_U16, &mem[1]);
    clik_image small = host_image(11, 8, 1, CLIK_U16, &mem[2]);
    memset(mem[0], 0, up.stride * 8);
    set_case("ctx NULL");
    expect_status(clik_lapar_classify(NULL, &up, NULL, 2, &bk), CLIK_ERR_NULL);
    set_case("up NULL");
    expect_status(clik_lapar_classify(h_ctx, NULL, NULL, 2, &bk), CLIK_ERR_NULL);
    set_case("buckets NULL");
    expect_status(clik_lapar_classify(h_ctx, &up, NULL, 2, NULL), CLIK_ERR_NULL);
    set_case("buckets one column narrower");
    EXPECT_REFUSED(h_ctx, clik_lapar_classify(h_ctx, &up, NULL, 2, &small), CLIK_ERR_SIZE_MISMATCH);
    set_case("up as buckets");
    expect_status(clik_lapar_classify(h_ctx, &up, NULL, 2, &up), CLIK_ERR_UNSUPPORTED_FORMAT);
    set_case("scale 5");
    expect_status(clik_lapar_classify(h_ctx, &up, NULL, 5, &bk), CLIK_ERR_INVALID_ARG);
    EXPECT(all_bytes(mem[1], bk.stride * 8, SENTINEL), "buckets written by a refused call");
    set_case("a correct call");
    expect_model_op(clik_lapar_classify(h_ctx, &up, NULL, 2, &bk));
    for (int i = 0; i < 3; i++)
        free(mem[i]);
    ctx_works();
}

static void row_upscale_lapar(void)
{
    void *mem[3];
    clik_image src = host_image(6, 4, 4, CLIK_U8, &mem[0]);
    clik_image dst = host_image(12, 8, 4, CLIK_U8, &mem[1]);
    clik_image grey = host_image(12, 8, 1, CLIK_U8, &mem[2]);
    fill_input(&src, 4);
    set_case("ctx NULL");
    expect_status(clik_upscale_lapar(NULL, &src, &dst, 2, NULL), CLIK_ERR_NULL);
    set_case("src NULL");
    expect_status(clik_upscale_lapar(h_ctx, NULL, &dst, 2, NULL), CLIK_ERR_NULL);
    set_case("dst NULL");
    expect_status(clik_upscale_lapar(h_ctx, &src, NULL, 2, NULL), CLIK_ERR_NULL);
    const int scales[] = {0, 1, 5, -2, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
        set_case("scale %d", scales[i]);
        EXPECT_REFUSED(h_ctx, clik_upscale_lapar(h_ctx, &src, &dst, scales[i], NULL),
                       CLIK_ERR_INVALID_ARG);
    }
    set_case("dst of 3 times the size");
    expect_status(clik_upscale_lapar(h_ctx, &src, &dst, 3, NULL), CLIK_ERR_SIZE_MISMATCH);
    set_case("dst grey for RGBA");
    expect_status(clik_upscale_lapar(h_ctx, &src, &grey, 2, NULL), CLIK_ERR_UNSUPPORTED_FORMAT);
    EXPECT(all_bytes(mem[1], dst.stride * 8, SENTINEL), "dst written by a refused call");
    set_case("a correct call");
    expect_model_op(clik_upscale_lapar(h_ctx, &src, &dst, 2, NULL));
    for (int i = 0; i < 3; i++)
        free(mem[i]);
    ctx_works();
}

static void row_lapar_trainer_create(void)
{
    clik_lapar_trainer *t = (clik_lapar_trainer *)&t;
    set_case("ctx NULL");
    expect_status(clik_lapar_trainer_create(NULL, NULL, &t), CLIK_ERR_NULL);
    set_case("trainer NULL");
    expect_status(clik_lapar_trainer_create(h_ctx, NULL, NULL), CLIK_ERR_NULL);
    clik_lapar_model_options o;
    const char *what[] = {"scale 5", "angles 0", "window 4", "atoms 30", "alpha -1", "phases 2"};
    for (int i = 0; i < 6; i++) {
        clik_lapar_model_options_init(&o);
        switch (i) {
        case 0: o.scale = 5; break;
        case 1: o.angles = 0; break;
        case 2: o.window = 4; break;
        case 3: o.atoms = 30; break;
        case 4: o.alpha = -1.0; break;
        default: o.phases = 2; break;
        }
        set_case("%s", what[i]);
        EXPECT_REFUSED(h_ctx, clik_lapar_trainer_create(h_ctx, &o, &t), CLIK_ERR_INVALID_ARG);
    }
    EXPECT(t == (clik_lapar_trainer *)&t, "*trainer written on failure");
    set_case("a correct call");
    expect_status(clik_lapar_trainer_create(h_ctx, NULL, &t), CLIK_OK);
    if (t != (clik_lapar_trainer *)&t)
        clik_lapar_trainer_free(t);
    ctx_works();
}

/* A trainer of the default options on the oracle's context. */
static clik_lapar_trainer *default_trainer(void)
{
    clik_lapar_trainer *t = NULL;
    ck_assert_int_eq(clik_lapar_trainer_create(h_oracle, NULL, &t), CLIK_OK);
    return t;
}

static void row_lapar_trainer_add(void)
{
    clik_lapar_trainer *t = default_trainer();
    void *mem[2];
    clik_image two = host_image(8, 8, 2, CLIK_U8, &mem[0]);
    clik_image s16 = host_image(8, 8, 1, CLIK_S16, &mem[1]);
    set_case("trainer NULL");
    expect_status(clik_lapar_trainer_add(NULL, &two), CLIK_ERR_NULL);
    set_case("hr NULL");
    expect_status(clik_lapar_trainer_add(t, NULL), CLIK_ERR_NULL);
    set_case("2 channels");
    expect_status(clik_lapar_trainer_add(t, &two), CLIK_ERR_UNSUPPORTED_FORMAT);
    set_case("s16");
    expect_status(clik_lapar_trainer_add(t, &s16), CLIK_ERR_UNSUPPORTED_FORMAT);
    uint64_t n = 1;
    clik_lapar_trainer_samples(t, &n);
    EXPECT(n == 0, "%llu samples after refused images", (unsigned long long)n);
    clik_lapar_trainer_free(t);
    free(mem[0]);
    free(mem[1]);
}

static void row_lapar_trainer_samples(void)
{
    uint64_t n = 7;
    set_case("trainer NULL");
    expect_status(clik_lapar_trainer_samples(NULL, &n), CLIK_ERR_NULL);
    clik_lapar_trainer *t = default_trainer();
    set_case("samples NULL");
    expect_status(clik_lapar_trainer_samples(t, NULL), CLIK_ERR_NULL);
    set_case("a correct call");
    expect_status(clik_lapar_trainer_samples(t, &n), CLIK_OK);
    EXPECT(n == 0, "%llu samples", (unsigned long long)n);
    clik_lapar_trainer_free(t);
}

static void row_lapar_trainer_solve(void)
{
    clik_lapar_model *m = (clik_lapar_model *)&m;
    set_case("trainer NULL");
    expect_status(clik_lapar_trainer_solve(NULL, &m), CLIK_ERR_NULL);
    clik_lapar_trainer *t = default_trainer();
    set_case("model NULL");
    expect_status(clik_lapar_trainer_solve(t, NULL), CLIK_ERR_NULL);
    set_case("no samples");
    expect_status(clik_lapar_trainer_solve(t, &m), CLIK_ERR_INVALID_ARG);
    EXPECT(m == (clik_lapar_model *)&m, "*model written on failure");
    clik_lapar_trainer_free(t);
}

static void row_lapar_trainer_free(void)
{
    set_case("NULL");
    clik_lapar_trainer_free(NULL);
}

/* ---- the table ----------------------------------------------------------------------------- */

/* ---- YUV frames ---------------------------------------------------------------------- */

static void row_yuv_wrap(void)
{
    static uint8_t buf[64 * 48];
    const struct {
        const char *what;
        int format, w, h;
        size_t stride;
        clik_status want;
    } cases[] = {
        {"format 0", 0, 8, 8, 0, CLIK_ERR_INVALID_ARG},
        {"format 4", 4, 8, 8, 0, CLIK_ERR_INVALID_ARG},
        {"format -1", -1, 8, 8, 0, CLIK_ERR_INVALID_ARG},
        {"odd width", CLIK_YUV_NV21, 7, 8, 0, CLIK_ERR_INVALID_SIZE},
        {"odd height", CLIK_YUV_NV12, 8, 7, 0, CLIK_ERR_INVALID_SIZE},
        {"width 0", CLIK_YUV_I420, 0, 8, 0, CLIK_ERR_INVALID_SIZE},
        {"height -2", CLIK_YUV_I420, 8, -2, 0, CLIK_ERR_INVALID_SIZE},
        {"width INT_MIN", CLIK_YUV_NV21, INT_MIN, 8, 0, CLIK_ERR_INVALID_SIZE},
        {"width 2^20 + 2", CLIK_YUV_NV21, MAX_SIDE + 2, 2, 0, CLIK_ERR_INVALID_SIZE},
        {"stride one byte short", CLIK_YUV_NV21, 8, 8, 7, CLIK_ERR_STRIDE},
        {"I420 stride odd", CLIK_YUV_I420, 8, 8, 9, CLIK_ERR_STRIDE},
        {"stride SIZE_MAX", CLIK_YUV_NV12, 8, 8, SIZE_MAX, CLIK_ERR_OVERFLOW},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        set_case("%s", cases[i].what);
        clik_yuv_image f;
        memset(&f, OUT_FILL, sizeof(f));
        expect_status(clik_yuv_wrap(&f, (clik_yuv_format)cases[i].format, cases[i].w, cases[i].h,
                                    buf, cases[i].stride),
                      cases[i].want);
        expect_untouched_or_cleared(&f, sizeof(f), OUT_FILL, "the frame");
    }
    set_case("frame NULL");
    expect_status(clik_yuv_wrap(NULL, CLIK_YUV_NV21, 8, 8, buf, 0), CLIK_ERR_NULL);
    set_case("data NULL");
    clik_yuv_image f;
    expect_status(clik_yuv_wrap(&f, CLIK_YUV_NV21, 8, 8, NULL, 0), CLIK_ERR_NULL);
}

static void row_yuv_size(void)
{
    static const int sizes[][2] = {{0, 2},  {2, 0},       {3, 2},           {2, 3},
                                   {-2, 2}, {INT_MIN, 2}, {MAX_SIDE + 2, 2}};
    for (int i = 0; i < 7; i++) {
        set_case("%d x %d", sizes[i][0], sizes[i][1]);
        EXPECT(clik_yuv_size(sizes[i][0], sizes[i][1]) == 0, "not 0");
    }
    set_case("the largest frame");
    EXPECT(clik_yuv_size(MAX_SIDE, MAX_SIDE) == (size_t)MAX_SIDE * MAX_SIDE / 2 * 3, "wrong");
}

/* The checks both directions share: NULL pointers, an unknown space, a
 * frame of an unknown format, each with a message. */
static void yuv_op_misuse(int to_rgb)
{
    static uint8_t buf[16 * 12 * 3 / 2], rgbbuf[16 * 12 * 4];
    clik_yuv_image f;
    clik_image rgb;
    if (clik_yuv_wrap(&f, CLIK_YUV_NV12, 16, 12, buf, 0) != CLIK_OK ||
        clik_image_wrap(&rgb, 16, 12, 4, CLIK_U8, rgbbuf, 0) != CLIK_OK) {
        set_case("set-up");
        EXPECT(0, "the frame or the image could not be wrapped");
        return;
    }
#define YUV_CALL(c, fr, im, sp)                                                                    \
    (to_rgb ? clik_yuv_to_rgb(c, fr, im, sp) : clik_rgb_to_yuv(c, im, fr, sp))
    set_case("ctx NULL");
    expect_status(YUV_CALL(NULL, &f, &rgb, CLIK_YUV_BT601), CLIK_ERR_NULL);
    set_case("frame NULL");
    EXPECT_REFUSED(h_ctx, YUV_CALL(h_ctx, NULL, &rgb, CLIK_YUV_BT601), CLIK_ERR_NULL);
    set_case("image NULL");
    EXPECT_REFUSED(h_ctx, YUV_CALL(h_ctx, &f, NULL, CLIK_YUV_BT601), CLIK_ERR_NULL);
    static const int spaces[] = {-1, 4, INT_MAX};
    for (int i = 0; i < 3; i++) {
        set_case("space %d", spaces[i]);
        EXPECT_REFUSED(h_ctx, YUV_CALL(h_ctx, &f, &rgb, (clik_yuv_space)spaces[i]),
                       CLIK_ERR_INVALID_ARG);
    }
    set_case("frame of format 7");
    clik_yuv_image bad = f;
    bad.format = (clik_yuv_format)7;
    EXPECT_REFUSED(h_ctx, YUV_CALL(h_ctx, &bad, &rgb, CLIK_YUV_BT601), CLIK_ERR_INVALID_ARG);
    set_case("a correct call");
    expect_status(YUV_CALL(h_ctx, &f, &rgb, CLIK_YUV_BT709_FULL), CLIK_OK);
#undef YUV_CALL
}

static void row_yuv_to_rgb(void)
{
    yuv_op_misuse(1);
}

static void row_rgb_to_yuv(void)
{
    yuv_op_misuse(0);
}

/* A 16 x 12 frame f and a gw x gh frame g (at most 32 x 24) of format, over
 * static memory; 0, with the set-up case failed, when they cannot be made. */
static int src_dst_frames(clik_yuv_format format, int gw, int gh, clik_yuv_image *f,
                          clik_yuv_image *g)
{
    static uint8_t buf[16 * 12 * 3 / 2], out[32 * 24 * 3 / 2];
    if (clik_yuv_wrap(f, format, 16, 12, buf, 0) != CLIK_OK ||
        clik_yuv_wrap(g, format, gw, gh, out, 0) != CLIK_OK) {
        set_case("set-up");
        EXPECT(0, "the frames could not be wrapped");
        return 0;
    }
    return 1;
}

/* The frame-to-frame operations, arg their last argument. */
typedef clik_status (*frame_call)(clik_context *ctx, const clik_yuv_image *f, clik_yuv_image *g,
                                  const void *arg);

static clik_status call_yuv_resize(clik_context *ctx, const clik_yuv_image *f, clik_yuv_image *g,
                                   const void *method)
{
    return clik_yuv_resize(ctx, f, g, *(const clik_interp *)method);
}

static clik_status call_yuv_upscale_lapar(clik_context *ctx, const clik_yuv_image *f,
                                          clik_yuv_image *g, const void *unused)
{
    (void)unused;
    return clik_yuv_upscale_lapar(ctx, f, g, 2, NULL);
}

static clik_status call_yuv_upscale_lapar_net(clik_context *ctx, const clik_yuv_image *f,
                                              clik_yuv_image *g, const void *net)
{
    return clik_yuv_upscale_lapar_net(ctx, f, g, net);
}

/* ctx, src and dst NULL in turn. */
static void frame_nulls(frame_call call, const clik_yuv_image *f, clik_yuv_image *g,
                        const void *arg)
{
    set_case("ctx NULL");
    expect_status(call(NULL, f, g, arg), CLIK_ERR_NULL);
    set_case("src NULL");
    EXPECT_REFUSED(h_ctx, call(h_ctx, NULL, g, arg), CLIK_ERR_NULL);
    set_case("dst NULL");
    EXPECT_REFUSED(h_ctx, call(h_ctx, f, NULL, arg), CLIK_ERR_NULL);
}

static void row_yuv_resize(void)
{
    clik_yuv_image f, g;
    if (!src_dst_frames(CLIK_YUV_NV21, 8, 6, &f, &g))
        return;
    const clik_interp bilinear = CLIK_INTERP_BILINEAR;
    frame_nulls(call_yuv_resize, &f, &g, &bilinear);
    static const int methods[] = {-1, 4, INT_MAX};
    for (int i = 0; i < 3; i++) {
        set_case("method %d", methods[i]);
        EXPECT_REFUSED(h_ctx, clik_yuv_resize(h_ctx, &f, &g, (clik_interp)methods[i]),
                       CLIK_ERR_INVALID_ARG);
    }
    set_case("dst of another format");
    clik_yuv_image other = g;
    other.format = CLIK_YUV_NV12;
    EXPECT_REFUSED(h_ctx, clik_yuv_resize(h_ctx, &f, &other, CLIK_INTERP_BILINEAR),
                   CLIK_ERR_INVALID_ARG);
    set_case("dst over src");
    EXPECT_REFUSED(h_ctx, clik_yuv_resize(h_ctx, &f, &f, CLIK_INTERP_NEAREST),
                   CLIK_ERR_INVALID_ARG);
    set_case("a correct call");
    expect_status(clik_yuv_resize(h_ctx, &f, &g, CLIK_INTERP_BICUBIC_AA), CLIK_OK);
}

static void row_yuv_upscale_lapar(void)
{
    clik_yuv_image f, g;
    if (!src_dst_frames(CLIK_YUV_NV12, 32, 24, &f, &g))
        return;
    frame_nulls(call_yuv_upscale_lapar, &f, &g, NULL);
    static const int scales[] = {INT_MIN, -2, 0, 1, 5, INT_MAX};
    for (int i = 0; i < 6; i++) {
        set_case("scale %d", scales[i]);
        EXPECT_REFUSED(h_ctx, clik_yuv_upscale_lapar(h_ctx, &f, &g, scales[i], NULL),
                       CLIK_ERR_INVALID_ARG);
    }
    set_case("dst of the wrong size for the scale");
    EXPECT_REFUSED(h_ctx, clik_yuv_upscale_lapar(h_ctx, &f, &g, 3, NULL), CLIK_ERR_SIZE_MISMATCH);
    set_case("a correct call");
    expect_status(clik_yuv_upscale_lapar(h_ctx, &f, &g, 2, NULL), CLIK_OK);
}

static void row_yuv_upscale_lapar_net(void)
{
    clik_yuv_image f, g;
    clik_lapar_net *net = NULL;
    if (!src_dst_frames(CLIK_YUV_NV21, 32, 24, &f, &g))
        return;
    set_case("the network of the cases");
    if (!expect_ok(sup_case_small_net(&net), "sup_case_small_net"))
        return;
    frame_nulls(call_yuv_upscale_lapar_net, &f, &g, net);
    set_case("net NULL");
    EXPECT_REFUSED(h_ctx, clik_yuv_upscale_lapar_net(h_ctx, &f, &g, NULL), CLIK_ERR_NULL);
    set_case("dst over src");
    EXPECT_REFUSED(h_ctx, clik_yuv_upscale_lapar_net(h_ctx, &f, &f, net), CLIK_ERR_INVALID_ARG);
    set_case("a correct call");
    expect_status(clik_yuv_upscale_lapar_net(h_ctx, &f, &g, net), CLIK_OK);
    clik_lapar_net_free(net);
}

/* ---- imported memory ------------------------------------------------------------------ */

static void row_import_desc_init(void)
{
    set_case("desc NULL");
    clik_import_desc_init(NULL);
    set_case("a filled desc");
    clik_import_desc d;
    memset(&d, OUT_FILL, sizeof(d));
    clik_import_desc_init(&d);
    EXPECT(d.fd == -1 && d.kind == 0 && d.ptr == NULL && d.size == 0 && d.flags == 0,
           "not cleared with fd -1");
}

static void row_image_import(void)
{
    static uint8_t buf[16 * 12];
    const clik_import_desc good = h_host_desc(buf, sizeof(buf), 16, 12, 1, 0);
    const struct {
        const char *what;
        int kind, fd, w, channels, type;
        size_t stride, size, offset;
        unsigned flags;
        clik_status want;
    } cases[] = {
        {"kind 0", 0, -1, 16, 1, CLIK_U8, 0, sizeof(buf), 0, 0, CLIK_ERR_INVALID_ARG},
        {"kind 4", 4, -1, 16, 1, CLIK_U8, 0, sizeof(buf), 0, 0, CLIK_ERR_INVALID_ARG},
        {"kind -1", -1, -1, 16, 1, CLIK_U8, 0, sizeof(buf), 0, 0, CLIK_ERR_INVALID_ARG},
        {"dma-buf fd -1", CLIK_IMPORT_DMABUF, -1, 16, 1, CLIK_U8, 0, 4096, 0, 0,
         CLIK_ERR_INVALID_ARG},
        {"ION fd INT_MIN", CLIK_IMPORT_ION, INT_MIN, 16, 1, CLIK_U8, 0, 4096, 0, 0,
         CLIK_ERR_INVALID_ARG},
        {"flags 2", CLIK_IMPORT_HOST, -1, 16, 1, CLIK_U8, 0, sizeof(buf), 0, 2,
         CLIK_ERR_INVALID_ARG},
        {"width 0", CLIK_IMPORT_HOST, -1, 0, 1, CLIK_U8, 0, sizeof(buf), 0, 0,
         CLIK_ERR_INVALID_SIZE},
        {"width INT_MIN", CLIK_IMPORT_HOST, -1, INT_MIN, 1, CLIK_U8, 0, sizeof(buf), 0, 0,
         CLIK_ERR_INVALID_SIZE},
        {"channels 0", CLIK_IMPORT_HOST, -1, 16, 0, CLIK_U8, 0, sizeof(buf), 0, 0,
         CLIK_ERR_UNSUPPORTED_FORMAT},
        {"type 999", CLIK_IMPORT_HOST, -1, 16, 1, 999, 0, sizeof(buf), 0, 0,
         CLIK_ERR_UNSUPPORTED_FORMAT},
        {"stride short", CLIK_IMPORT_HOST, -1, 16, 1, CLIK_U8, 15, sizeof(buf), 0, 0,
         CLIK_ERR_STRIDE},
        {"stride SIZE_MAX", CLIK_IMPORT_HOST, -1, 16, 1, CLIK_U8, SIZE_MAX, sizeof(buf), 0, 0,
         CLIK_ERR_OVERFLOW},
        {"size 0", CLIK_IMPORT_HOST, -1, 16, 1, CLIK_U8, 0, 0, 0, 0, CLIK_ERR_INVALID_ARG},
        {"size one byte short", CLIK_IMPORT_HOST, -1, 16, 1, CLIK_U8, 0, sizeof(buf) - 1, 0, 0,
         CLIK_ERR_INVALID_ARG},
        {"f32 at an odd address", CLIK_IMPORT_HOST, -1, 4, 1, CLIK_F32, 0, sizeof(buf) - 1, 0, 0,
         CLIK_ERR_INVALID_ARG},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        set_case("%s", cases[i].what);
        clik_import_desc d = good;
        d.kind = (clik_import_kind)cases[i].kind;
        d.fd = cases[i].fd;
        d.width = cases[i].w;
        d.channels = cases[i].channels;
        d.type = (clik_type)cases[i].type;
        d.stride = cases[i].stride;
        d.size = cases[i].size;
        d.offset = cases[i].offset;
        d.flags = cases[i].flags;
        if (cases[i].type == CLIK_F32)
            d.ptr = buf + 1;
        clik_image out;
        memset(&out, OUT_FILL, sizeof(out));
        EXPECT_REFUSED(h_ctx, clik_image_import(h_ctx, &d, &out), cases[i].want);
        expect_untouched_or_cleared(&out, sizeof(out), OUT_FILL, "the image");
    }
    set_case("ptr NULL");
    clik_import_desc d = good;
    d.ptr = NULL;
    clik_image out;
    EXPECT_REFUSED(h_ctx, clik_image_import(h_ctx, &d, &out), CLIK_ERR_NULL);
    set_case("ctx NULL");
    expect_status(clik_image_import(NULL, &good, &out), CLIK_ERR_NULL);
    set_case("desc NULL");
    expect_status(clik_image_import(h_ctx, NULL, &out), CLIK_ERR_NULL);
    set_case("out NULL");
    expect_status(clik_image_import(h_ctx, &good, NULL), CLIK_ERR_NULL);
    set_case("a read-only import written");
    d = good;
    d.flags = CLIK_IMPORT_READ_ONLY;
    expect_status(clik_image_import(h_ctx, &d, &out), CLIK_OK);
    static uint8_t src[16 * 12];
    clik_image plain;
    expect_status(clik_image_wrap(&plain, 16, 12, 1, CLIK_U8, src, 0), CLIK_OK);
    EXPECT_REFUSED(h_ctx, clik_gaussian_blur(h_ctx, &plain, &out, 3, 0.0), CLIK_ERR_READ_ONLY);
    expect_status(clik_gaussian_blur(h_ctx, &out, &plain, 3, 0.0), CLIK_OK);
    clik_image_free(&out);
    set_case("a correct call");
    expect_status(clik_image_import(h_ctx, &good, &out), CLIK_OK);
    EXPECT(clik_image_import_path(&out) != CLIK_IMPORT_PATH_NONE, "path none");
    clik_image_free(&out);
    ctx_works();
}

static void row_yuv_import(void)
{
    static uint8_t buf[16 * 12 * 3 / 2];
    clik_import_desc good = h_host_desc(buf, sizeof(buf), 16, 12, 1, 0);
    const struct {
        const char *what;
        int format, w, channels;
        size_t stride, size;
        clik_status want;
    } cases[] = {
        {"format 0", 0, 16, 1, 0, sizeof(buf), CLIK_ERR_INVALID_ARG},
        {"format 4", 4, 16, 1, 0, sizeof(buf), CLIK_ERR_INVALID_ARG},
        {"odd width", CLIK_YUV_NV21, 15, 1, 0, sizeof(buf), CLIK_ERR_INVALID_SIZE},
        {"width INT_MIN", CLIK_YUV_NV12, INT_MIN, 1, 0, sizeof(buf), CLIK_ERR_INVALID_SIZE},
        {"3 channels", CLIK_YUV_NV21, 16, 3, 0, sizeof(buf), CLIK_ERR_INVALID_ARG},
        {"I420 stride odd", CLIK_YUV_I420, 16, 1, 17, sizeof(buf), CLIK_ERR_STRIDE},
        {"stride SIZE_MAX", CLIK_YUV_NV12, 16, 1, SIZE_MAX, sizeof(buf), CLIK_ERR_OVERFLOW},
        {"chroma one byte short", CLIK_YUV_NV21, 16, 1, 0, sizeof(buf) - 1, CLIK_ERR_INVALID_ARG},
        {"V plane one byte short", CLIK_YUV_I420, 16, 1, 0, sizeof(buf) - 1, CLIK_ERR_INVALID_ARG},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        set_case("%s", cases[i].what);
        clik_import_desc d = good;
        d.width = cases[i].w;
        d.channels = cases[i].channels;
        d.stride = cases[i].stride;
        d.size = cases[i].size;
        clik_yuv_image f;
        memset(&f, OUT_FILL, sizeof(f));
        EXPECT_REFUSED(h_ctx, clik_yuv_import(h_ctx, &d, (clik_yuv_format)cases[i].format, &f),
                       cases[i].want);
        expect_untouched_or_cleared(&f, sizeof(f), OUT_FILL, "the frame");
    }
    clik_yuv_image f;
    set_case("ctx NULL");
    expect_status(clik_yuv_import(NULL, &good, CLIK_YUV_NV21, &f), CLIK_ERR_NULL);
    set_case("desc NULL");
    expect_status(clik_yuv_import(h_ctx, NULL, CLIK_YUV_NV21, &f), CLIK_ERR_NULL);
    set_case("frame NULL");
    expect_status(clik_yuv_import(h_ctx, &good, CLIK_YUV_NV21, NULL), CLIK_ERR_NULL);
    set_case("a correct call");
    expect_status(clik_yuv_import(h_ctx, &good, CLIK_YUV_I420, &f), CLIK_OK);
    clik_image_free(&f.y);
    clik_image_free(&f.u);
    clik_image_free(&f.v);
    ctx_works();
}

static void row_image_import_path(void)
{
    set_case("NULL");
    EXPECT(clik_image_import_path(NULL) == CLIK_IMPORT_PATH_NONE, "not none");
    set_case("a cleared image");
    clik_image img;
    memset(&img, 0, sizeof(img));
    EXPECT(clik_image_import_path(&img) == CLIK_IMPORT_PATH_NONE, "not none");
    set_case("a device image");
    expect_status(clik_image_create(h_ctx, &img, 4, 4, 1, CLIK_U8), CLIK_OK);
    EXPECT(clik_image_import_path(&img) == CLIK_IMPORT_PATH_NONE, "not none");
    clik_image_free(&img);
}

static void row_import_path_name(void)
{
    for (int i = 0; i < 5; i++) {
        set_case("path %d", unknown_values[i]);
        expect_unknown_name(clik_import_path_name((clik_import_path)unknown_values[i]));
    }
    set_case("path none");
    const char *s = clik_import_path_name(CLIK_IMPORT_PATH_NONE);
    EXPECT(s && strcmp(s, "none") == 0, "\"%s\"", s ? s : "(NULL)");
}

typedef struct misuse_row {
    const char *name;   /* the public function */
    void (*run)(void);  /* its misuse cases */
    const char *checks; /* what its cases check beyond the common misuse; NULL: nothing */
} misuse_row;

static void row_prepare_options_init(void)
{
    set_case("NULL");
    clik_prepare_options_init(NULL);
    set_case("a correct call");
    clik_prepare_options o;
    memset(&o, OUT_FILL, sizeof(o));
    clik_prepare_options_init(&o);
    EXPECT(o.ops == NULL && o.types == 0 && o.channels == 0 && o.background == 0,
           "not the defaults");
}

static void row_prepare_op_name(void)
{
    set_case("before the first and past the last");
    EXPECT(clik_prepare_op_name(-1) == NULL && clik_prepare_op_name(INT_MIN) == NULL &&
               clik_prepare_op_name(INT_MAX) == NULL,
           "a name out of range");
    set_case("a correct call");
    EXPECT(clik_prepare_op_name(0) != NULL, "no first name");
}

static void row_context_prepare(void)
{
    clik_prepare_options o;
    clik_prepare_options_init(&o);
    o.ops = "hist_lut";
    o.channels = 1u << 1;
    set_case("ctx NULL");
    expect_status(clik_context_prepare(NULL, &o), CLIK_ERR_NULL);
    set_case("the context of a failed create");
    expect_status(clik_context_prepare(failed_ctx, &o), CLIK_ERR_NULL);
    const struct {
        const char *ops;
        unsigned types, channels;
    } bad[] = {{"no_such_op", 0, 0},       {"hist_lut,", 0, 0}, {",hist_lut", 0, 0},
               {"hist_lut,,pyr_up", 0, 0}, {"HIST_LUT", 0, 0},  {"hist_lut", 1u << CLIK_F64, 0},
               {"hist_lut", 1u, 0},        {"hist_lut", 0, 1u}, {"hist_lut", 0, 1u << 5}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        set_case("ops \"%s\", types 0x%x, channels 0x%x", bad[i].ops, bad[i].types,
                 bad[i].channels);
        clik_prepare_options b = o;
        b.ops = bad[i].ops;
        b.types = bad[i].types;
        b.channels = bad[i].channels;
        EXPECT_REFUSED(h_ctx, clik_context_prepare(h_ctx, &b), CLIK_ERR_INVALID_ARG);
    }
    set_case("a correct call");
    expect_status(clik_context_prepare(h_ctx, &o), CLIK_OK);
    ctx_works();
}

static void row_context_prepare_wait(void)
{
    set_case("ctx NULL");
    expect_status(clik_context_prepare_wait(NULL), CLIK_ERR_NULL);
    set_case("nothing to wait for");
    expect_status(clik_context_prepare_wait(h_ctx), CLIK_OK);
    set_case("a background prepare");
    clik_prepare_options o;
    clik_prepare_options_init(&o);
    o.ops = "hist_lut";
    o.channels = 1u << 1;
    o.background = 1;
    expect_status(clik_context_prepare(h_ctx, &o), CLIK_OK);
    expect_status(clik_context_prepare_wait(h_ctx), CLIK_OK);
    expect_status(clik_context_prepare_wait(h_ctx), CLIK_OK);
    ctx_works();
}

/* Checked in every function that takes images (one check in the library,
 * clik_image_validate and clik__check_image, serves them all). */
#define BOTH "a descriptor with data and buffer both set is CLIK_ERR_INVALID_ARG"
#define LARGER                                                                                     \
    "a device image descriptor larger than its buffer is CLIK_ERR_INVALID_ARG (the CPU paths "     \
    "would read and write past the buffer)"
#define IMAGES BOTH "; " LARGER

/* A row of the table: the function clik_FN, walked by row_FN, and what its
 * cases check beyond the common ones (NULL: nothing more). */
#define ROW(fn, checks)                                                                            \
    {                                                                                              \
        "clik_" #fn, row_##fn, checks                                                              \
    }

static const misuse_row misuse_rows[] = {
    ROW(version, NULL),
    ROW(status_str, NULL),
    ROW(type_size, NULL),
    ROW(type_name, NULL),
    ROW(image_wrap, NULL),
    ROW(image_alloc, NULL),
    ROW(image_alloc_on, NULL),
    ROW(image_free,
        "a wrapped image: only the struct is cleared, the caller's memory is not freed"),
    ROW(image_validate, BOTH),
    ROW(devices_list, NULL),
    ROW(devices_free, NULL),
    ROW(device_select,
        "a negative count is CLIK_ERR_INVALID_SIZE; *index is not written on failure"),
    ROW(opencl_library, NULL),
    ROW(cpu_path_available, NULL),
    ROW(context_options_init, NULL),
    ROW(prepare_options_init, NULL),
    ROW(prepare_op_name, NULL),
    ROW(context_prepare,
        "an unknown or empty operation name, a case that differs, and type or channel bits outside "
        "u8/f32 and 1..4 are CLIK_ERR_INVALID_ARG with a message"),
    ROW(context_prepare_wait, NULL),
    ROW(context_create, NULL),
    ROW(context_destroy, NULL),
    ROW(context_message, NULL),
    ROW(context_device, NULL),
    ROW(context_last_backend, NULL),
    ROW(backend_name, NULL),
    ROW(context_cpu_backend, NULL),
    ROW(context_fallback_cause, NULL),
    ROW(context_stats_get, NULL),
    ROW(context_finish, NULL),
    ROW(context_copy_bandwidth, "gbps NULL is CLIK_ERR_NULL with a message"),
    ROW(context_transfer_bandwidth, NULL),
    ROW(context_fma_peak, NULL),
    ROW(image_create, NULL),
    ROW(image_upload,
        "a channel or type mismatch is CLIK_ERR_UNSUPPORTED_FORMAT; NULL images leave a "
        "message; " IMAGES),
    ROW(image_download, "as clik_image_upload"),
    ROW(image_upload_async, "as clik_image_upload; a NULL ticket is CLIK_ERR_NULL"),
    ROW(image_download_async, "as clik_image_upload; a NULL ticket is CLIK_ERR_NULL"),
    ROW(context_wait, "a ticket the context did not give is CLIK_ERR_INVALID_ARG"),
    ROW(hist_compute, IMAGES),
    ROW(hist_equalize, "a dst of other channels is CLIK_ERR_UNSUPPORTED_FORMAT; " IMAGES),
    ROW(hist_equalize_luma, "1 or 2 channels is CLIK_ERR_UNSUPPORTED_FORMAT; " IMAGES),
    ROW(clahe,
        "clip not finite or not above 0, a grid side below 1: CLIK_ERR_INVALID_ARG; a grid side "
        "above the image's: CLIK_ERR_INVALID_SIZE; 2 channels: "
        "CLIK_ERR_UNSUPPORTED_FORMAT; " IMAGES),
    ROW(hist_lut, "as clik_hist_equalize"),
    ROW(pyr_level_size, "INT_MAX sides halve without overflow"),
    ROW(pyr_max_levels, "INT_MAX sides without overflow; sides below 1 give 0 levels"),
    ROW(pyr_down, IMAGES),
    ROW(pyr_up, IMAGES),
    ROW(pyr_gaussian, "levels overlapping src or each other are CLIK_ERR_INVALID_ARG; " IMAGES),
    ROW(pyr_laplacian, "bands overlapping src or each other are CLIK_ERR_INVALID_ARG; " IMAGES),
    ROW(pyr_collapse, "a dst overlapping a band is CLIK_ERR_INVALID_ARG; " IMAGES),
    ROW(integral, "a cleared sum is CLIK_ERR_NULL; " IMAGES),
    ROW(interp_name, NULL),
    ROW(resize_size, NULL),
    ROW(resize, IMAGES),
    ROW(resize_scaled, IMAGES),
    ROW(gaussian_weights, NULL),
    ROW(gaussian_blur, IMAGES),
    ROW(gray, IMAGES),
    ROW(yuv_wrap, "odd sizes are CLIK_ERR_INVALID_SIZE and an odd I420 stride CLIK_ERR_STRIDE; the "
                  "frame is not "
                  "half written"),
    ROW(yuv_size, NULL),
    ROW(yuv_to_rgb,
        "an unknown colour space or frame format is CLIK_ERR_INVALID_ARG with a message (plane "
        "checks: tests/test_yuv.c)"),
    ROW(rgb_to_yuv,
        "an unknown colour space or frame format is CLIK_ERR_INVALID_ARG with a message (plane "
        "checks: tests/test_yuv.c)"),
    ROW(yuv_upscale_lapar,
        "a scale outside 2..4 is CLIK_ERR_INVALID_ARG and a dst not scale times src "
        "CLIK_ERR_SIZE_MISMATCH, each with a message (plane checks: tests/test_yuv.c)"),
    ROW(yuv_upscale_lapar_net,
        "net NULL is CLIK_ERR_NULL and dst over src CLIK_ERR_INVALID_ARG, each with a message "
        "(sizes and plane checks: tests/test_yuv.c)"),
    ROW(yuv_resize,
        "an unknown method, frames of different formats and dst over src are CLIK_ERR_INVALID_ARG "
        "with a message (plane checks: tests/test_yuv.c)"),
    ROW(import_desc_init, NULL),
    ROW(image_import,
        "a read-only import is refused as an output (CLIK_ERR_READ_ONLY) and read as an input"),
    ROW(yuv_import, "a frame short of its last plane leaves no plane imported"),
    ROW(image_import_path, NULL),
    ROW(import_path_name, NULL),
    ROW(ssim, IMAGES),
    ROW(ssim_tiles, IMAGES),
    ROW(fusion_options_init, NULL),
    ROW(upscale_fusion, IMAGES),
    ROW(fusion_stream_create, NULL),
    ROW(fusion_stream_submit, "a cleared frame is CLIK_ERR_NULL"),
    ROW(fusion_stream_wait, NULL),
    ROW(fusion_stream_destroy, NULL),
    ROW(flow_options_init, NULL),
    ROW(flow_tvl1, NULL),
    ROW(flow_warp, NULL),
    ROW(flow_warp_average, NULL),
    ROW(lapar_dict_default, NULL),
    ROW(lapar_upsample, NULL),
    ROW(lapar_filter, NULL),
    ROW(lapar_compress_options_init, NULL),
    ROW(lapar_compress, NULL),
    ROW(lapar_tune, NULL),
    ROW(lapar_tuning_set, "a tuning no device runs (variant AUTO or unknown, a side below 1) is "
                          "CLIK_ERR_INVALID_ARG, with a device or without"),
    ROW(lapar_tuning_get, NULL),
    ROW(lapar_model_options_init, NULL),
    ROW(lapar_model_read, NULL),
    ROW(lapar_model_load, NULL),
    ROW(lapar_model_write, NULL),
    ROW(lapar_model_combine, NULL),
    ROW(lapar_model_describe, NULL),
    ROW(lapar_model_default, NULL),
    ROW(lapar_model_free, NULL),
    ROW(lapar_classify, NULL),
    ROW(upscale_lapar, NULL),
    ROW(lapar_trainer_create, NULL),
    ROW(lapar_trainer_add, NULL),
    ROW(lapar_trainer_samples, NULL),
    ROW(lapar_trainer_solve, NULL),
    ROW(lapar_trainer_free, NULL),
};
#define NROWS ((int)(sizeof(misuse_rows) / sizeof(misuse_rows[0])))

START_TEST(misuse)
{
    const misuse_row *row = &misuse_rows[_i];
    row_name = row->name;
    nfailed = 0;
    failures_len = 0;
    failures_left_out = 0;
    failures[0] = '\0';
    set_case("setup");
    row->run();
    if (nfailed)
        ck_abort_msg("%s: %d misbehaviour(s)%s%s:\n%s%s", row->name, nfailed,
                     row->checks ? "; its cases check: " : "", row->checks ? row->checks : "",
                     failures, failures_left_out ? "(more in the MISUSE lines above)" : "");
}
END_TEST

static void setup(void)
{
    clik_context_options opt;
    clik_context_options_init(&opt);
    opt.device = h_device; /* "none" on the CPU backends */
    opt.cpu_path = h_expected == CLIK_BACKEND_NEON ? CLIK_CPU_NEON : CLIK_CPU_SCALAR;
    opt.strict = 1;
    clik_status st = clik_context_create(&other_ctx, &opt);
    ck_assert_msg(st == CLIK_OK, "second context: %s: %s", sname(st), clik_context_message(NULL));
    opt.device = "1:";
    failed_ctx = (clik_context *)&opt;
    ck_assert_int_eq(clik_context_create(&failed_ctx, &opt), CLIK_ERR_DEVICE_SPEC);
    ck_assert_ptr_null(failed_ctx);
}

static void teardown(void)
{
    clik_context_destroy(other_ctx);
    other_ctx = NULL;
}

static Suite *make_suite(void)
{
    Suite *s = suite_create("misuse");
    TCase *tc = tcase_create("misuse");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, misuse, 0, NROWS);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    /* --list: the functions of the table, for misuse_functions.sh. */
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < NROWS; i++)
            puts(misuse_rows[i].name);
        return 0;
    }
    h_pocl_disk_cache = 1; /* the tuning store's rows: it lives in the cache folder */
    return harness_main(make_suite, NULL);
}
