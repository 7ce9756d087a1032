/*
 * clik conformance: every operation on every OpenCL device (in strict mode,
 * with and without local memory) and on every CPU path, compared with the
 * scalar oracle under the operation's tolerance class.
 *
 * The oracle runs once per input (case, size, channels, pattern); every
 * backend is then compared with that one output. Inputs are spread over
 * worker threads, each with its own contexts (a context serves one thread
 * at a time); rows come out in the case table's order whatever the threads
 * do, each as soon as its operation is complete.
 *
 * PoCL and Oclgrind devices are the exception: PoCL keeps one process-wide
 * cache of kernel library handles whose reference counts go wrong when the
 * same kernel runs in several contexts at once (an assertion aborts the
 * process), and Oclgrind 21.10 running kernels of two contexts at once gives
 * wrong bytes, then crashes (a segmentation fault, or an assertion in its
 * queue). Each such backend therefore has one context, shared by the
 * workers under one lock; PoCL spreads every kernel over all the cores
 * anyway.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cases.h"
#include "cli.h"

static const char *const conformance_usage =
    "usage: clik conformance [--device SPEC] [--op NAMES] [--jobs N] [--quick] [--list]\n"
    "                        [--junit FILE] [--report-dir DIR]\n"
    "Runs every operation at every test size, pattern and channel count on each\n"
    "OpenCL device (strict mode: no CPU fallback; once with local memory, once\n"
    "without) and on the NEON and scalar CPU paths, and compares each result with\n"
    "the scalar oracle, computed once per input, under the operation's tolerance\n"
    "class. The scalar path is the oracle's own: it is run again on the inputs up\n"
    "to 128x64 and compared bit for bit. Prints one row per operation and backend\n"
    "as soon as it is known; an operation that a device cannot run by design is\n"
    "reported as unsupported, apart from passes and failures. Exits 1 if anything\n"
    "fails.\n"
    "  --device SPEC     only this device (none: the CPU paths only)\n"
    "  --op NAMES        only these operations: names or globs (resize-*), comma-\n"
    "                    separated; may be repeated\n"
    "  --jobs N          worker threads (default: the CPUs online); a PoCL or\n"
    "                    Oclgrind device serves one job at a time\n"
    "  --quick           sizes up to 128x64 only\n"
    "  --list            print the operations and backends, run nothing\n"
    "  --junit FILE      also write JUnit XML (unsupported runs are skipped tests)\n"
    "  --report-dir DIR  also write one text report per backend into DIR\n";

#include "conformance.h"

typedef struct worker {
    conformance_run *r;
    int id;
    clik_context *oracle;
    clik_context *ctx[MAX_BACKENDS];
    char ctx_error[MAX_BACKENDS][600]; /* why ctx[b] is NULL in this thread */
    char oracle_error[600];            /* why oracle is NULL in this thread */
    double oracle_seconds;
    pthread_t thread;
} worker;

double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void slugify(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (; *in && n + 1 < cap; in++) {
        char c = *in;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (ok)
            out[n++] = c;
        else if (n > 0 && out[n - 1] != '-')
            out[n++] = '-';
    }
    while (n > 0 && out[n - 1] == '-')
        n--;
    out[n] = '\0';
}

static char *copy_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

/* ---- operations ------------------------------------------------------------------ */

static int has_glob(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

static int name_matches(const char *spec, const char *op)
{
    return has_glob(spec) ? fnmatch(spec, op, 0) == 0 : strcmp(spec, op) == 0;
}

static void list_known_ops(FILE *f)
{
    fprintf(f, "known operations:");
    for (int i = 0; i < sup_case_count(); i++)
        fprintf(f, " %s", sup_case_at(i)->op);
    fprintf(f, "\n");
}

/* An --op piece that names or matches cases by their old names: says what
 * they are called now (1), or 0 when it matches none. */
static int report_renamed(const char *piece)
{
    int found = 0;
    for (int i = 0; i < sup_case_renamed_count(); i++) {
        const char *new_name, *old = sup_case_renamed_at(i, &new_name);
        if (name_matches(piece, old)) {
            fprintf(stderr, "clik conformance: --op %s: the operation '%s' is named '%s' now\n",
                    piece, old, new_name);
            found = 1;
        }
    }
    return found;
}

/* Splits one --op value at its commas; every piece must name or match a
 * case. Marks the cases it selects. */
static int mark_cases(const char *spec, unsigned char *chosen)
{
    char piece[256];
    const char *p = spec;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0 || len >= sizeof(piece)) {
            fprintf(stderr, "clik conformance: --op %s: an empty or overlong name\n", spec);
            return CLI_USAGE;
        }
        memcpy(piece, p, len);
        piece[len] = '\0';
        int hits = 0;
        for (int i = 0; i < sup_case_count(); i++)
            if (name_matches(piece, sup_case_at(i)->op)) {
                chosen[i] = 1;
                hits++;
            }
        if (!hits) {
            if (report_renamed(piece))
                return CLI_USAGE;
            fprintf(stderr, "clik conformance: --op %s: no operation %s %s\n", spec,
                    has_glob(piece) ? "matches" : "is named", piece);
            list_known_ops(stderr);
            return CLI_USAGE;
        }
        if (!end)
            return CLI_OK;
        p = end + 1;
    }
}

/* The cases the --op values select (all when there are none), in table order. */
static int select_cases(const char *const *specs, int nspecs, conformance_run *r)
{
    const int total = sup_case_count();
    unsigned char *chosen = calloc((size_t)total, 1);
    r->cases = calloc((size_t)total, sizeof(*r->cases));
    if (!chosen || !r->cases) {
        free(chosen);
        fprintf(stderr, "clik conformance: out of memory\n");
        return CLI_FAILED;
    }
    for (int i = 0; i < nspecs; i++)
        if (mark_cases(specs[i], chosen) != CLI_OK) {
            free(chosen);
            return CLI_USAGE;
        }
    for (int i = 0; i < total; i++)
        if (!nspecs || chosen[i])
            r->cases[r->ncases++] = sup_case_at(i);
    free(chosen);
    return CLI_OK;
}

/* Pulls every "--op VALUE" and "--op=VALUE" out of argv (cli_parse keeps only an option's
 * last value), reading the other options as cli_parse does, so that the
 * value of another option is never taken for --op. */
static int take_op_specs(int argc, char **argv, const cli_option *options, char **kept,
                         const char **specs, int *nspecs)
{
    int n = 0;
    *nspecs = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *spec = NULL;
        if (i > 0 && strncmp(a, "--op=", 5) == 0)
            spec = a + 5;
        else if (i > 0 && strcmp(a, "--op") == 0 && i + 1 < argc)
            spec = argv[++i];
        if (spec) {
            if (*nspecs == MAX_OP_SPECS) {
                fprintf(stderr, "clik conformance: more than %d --op options\n", MAX_OP_SPECS);
                return -1;
            }
            specs[(*nspecs)++] = spec;
            continue;
        }
        kept[n++] = argv[i];
        if (i > 0 && cli_option_takes_value(options, a) && i + 1 < argc)
            kept[n++] = argv[++i];
    }
    kept[n] = NULL;
    return n;
}

/* ---- backends -------------------------------------------------------------------- */

static int add_backend(backend *list, int n, const char *name, const char *label,
                       const char *device, clik_cpu_path cpu, int local_memory, clik_backend want)
{
    if (n == MAX_BACKENDS)
        return n;
    backend *b = &list[n];
    memset(b, 0, sizeof(*b));
    snprintf(b->name, sizeof(b->name), "%s", name);
    snprintf(b->label, sizeof(b->label), "%s", label);
    snprintf(b->device, sizeof(b->device), "%s", device);
    b->want = want;
    clik_context_options_init(&b->opt);
    b->opt.device = b->device;
    b->opt.cpu_path = cpu;
    b->opt.local_memory = local_memory;
    b->opt.strict = 1;
    return n + 1;
}

/* Backends selected by spec (NULL: everything present); -1 on a bad spec. */
static int collect_backends(const char *spec, backend *list)
{
    int n = 0;
    clik_device_info *devs = NULL;
    int count = 0;
    clik_devices_list(&devs, &count);
    int only = -2; /* -2: all devices and CPU paths */
    if (spec) {
        clik_status st = clik_device_select(devs, count, spec, &only);
        if (st != CLIK_OK) {
            fprintf(stderr, "clik conformance: --device %s: %s\n", spec, clik_status_str(st));
            cli_device_not_found(st);
            clik_devices_free(devs);
            return -1;
        }
    }
    for (int i = 0; i < count; i++) {
        if (only != -2 && only != i)
            continue;
        char dev[32], name[640], label[48], slug_text[200];
        snprintf(dev, sizeof(dev), "%d:%d", devs[i].platform_index, devs[i].device_index);
        for (int local = 1; local >= 0; local--) {
            const char *variant = local ? "local memory" : "no local memory";
            snprintf(name, sizeof(name), "%s %s (%s, %s, driver %s), %s", dev, devs[i].name,
                     devs[i].platform_name, devs[i].opencl_c_version, devs[i].driver_version,
                     variant);
            snprintf(label, sizeof(label), "%s %s", dev, local ? "local" : "no-local");
            n = add_backend(list, n, name, label, dev, CLIK_CPU_AUTO, local, CLIK_BACKEND_OPENCL);
            list[n - 1].shared =
                strstr(devs[i].platform_name, "Portable Computing Language") != NULL ||
                strstr(devs[i].platform_name, "Oclgrind") != NULL;
            snprintf(slug_text, sizeof(slug_text), "%s %.60s %s", dev, devs[i].name,
                     local ? "local" : "nolocal");
            slugify(slug_text, list[n - 1].slug, sizeof(list[n - 1].slug));
        }
    }
    if (only < 0) {
        if (clik_cpu_path_available(CLIK_CPU_NEON)) {
            n = add_backend(list, n, "cpu neon", "neon", "none", CLIK_CPU_NEON, -1,
                            CLIK_BACKEND_NEON);
            slugify("cpu neon", list[n - 1].slug, sizeof(list[n - 1].slug));
        }
        n = add_backend(list, n,
                        "cpu scalar: the oracle's own path, run again on the inputs up to "
                        "128x64 and compared bit for bit (determinism, path selection)",
                        "scalar", "none", CLIK_CPU_SCALAR, -1, CLIK_BACKEND_SCALAR);
        list[n - 1].oracle_path = 1;
        slugify("cpu scalar", list[n - 1].slug, sizeof(list[n - 1].slug));
    }
    clik_devices_free(devs);
    return n;
}

/* ---- inputs ---------------------------------------------------------------------- */

static int size_count(int quick)
{
    int n = 0;
    while (n < sup_test_size_count &&
           (!quick || (sup_test_sizes[n][0] <= SMALL_W && sup_test_sizes[n][1] <= SMALL_H)))
        n++;
    return n;
}

static int is_small(const input *in)
{
    return in->width <= SMALL_W && in->height <= SMALL_H;
}

/* Every input of every selected case: sizes, channel counts, patterns. */
static int make_inputs(conformance_run *r, int quick)
{
    const int sizes = size_count(quick);
    const size_t most = (size_t)r->ncases * (size_t)sizes * 4 * SUP_PATTERN_COUNT;
    r->inputs = calloc(most ? most : 1, sizeof(*r->inputs));
    r->order = calloc(most ? most : 1, sizeof(*r->order));
    r->op_first = calloc((size_t)r->ncases + 1, sizeof(*r->op_first));
    r->op_left = calloc((size_t)r->ncases + 1, sizeof(*r->op_left));
    if (!r->inputs || !r->order || !r->op_first || !r->op_left)
        return CLI_FAILED;
    for (int k = 0; k < r->ncases; k++) {
        r->op_first[k] = r->ninputs;
        for (int s = 0; s < sizes; s++)
            for (int ch = 1; ch <= 4; ch++) {
                if (!(r->cases[k]->channels & (1u << ch)))
                    continue;
                for (int p = 0; p < SUP_PATTERN_COUNT; p++) {
                    input *in = &r->inputs[r->ninputs++];
                    in->op = k;
                    in->width = sup_test_sizes[s][0];
                    in->height = sup_test_sizes[s][1];
                    in->channels = ch;
                    in->pattern = (sup_pattern)p;
                    in->seed = 1000u + (uint64_t)s;
                    /* A fixed cost per run (launches, setup) plus one per element. */
                    in->weight = 20000.0 + (double)in->width * in->height * ch;
                    in->results = calloc((size_t)r->nbackends, sizeof(outcome));
                    if (!in->results)
                        return CLI_FAILED;
                    r->total_weight += in->weight;
                }
            }
        r->op_left[k] = r->ninputs - r->op_first[k];
    }
    r->op_first[r->ncases] = r->ninputs;
    /* Inside each operation the largest inputs go first, so that the last
     * input of an operation is a short one and its rows come out soon. */
    int o = 0;
    for (int k = 0; k < r->ncases; k++)
        for (int i = r->op_first[k + 1] - 1; i >= r->op_first[k]; i--)
            r->order[o++] = i;
    return CLI_OK;
}

static void free_inputs(conformance_run *r)
{
    for (int i = 0; i < r->ninputs; i++) {
        for (int b = 0; b < r->nbackends && r->inputs[i].results; b++)
            free(r->inputs[i].results[b].message);
        free(r->inputs[i].results);
    }
    free(r->inputs);
    free(r->order);
    free(r->op_first);
    free(r->op_left);
    free(r->cases);
}

void describe_input(const input *in, char *out, size_t cap)
{
    snprintf(out, cap, "%dx%dx%d %s", in->width, in->height, in->channels,
             sup_pattern_name(in->pattern));
}

/* ---- running ---------------------------------------------------------------------- */

static void set_message(outcome *o, const char *text)
{
    o->message = copy_text(text);
}

/* Runs one backend on the oracle's input and files the outcome. */
static void run_backend(const worker *w, int b, const sup_case_oracle *oracle, outcome *o)
{
    conformance_run *r = w->r;
    const backend *be = &r->backends[b];
    clik_context *ctx = be->shared ? r->shared_ctx[b] : w->ctx[b];
    if (!ctx) {
        o->state = OUT_FAIL;
        set_message(o, w->ctx_error[b]);
        return;
    }
    const sup_tolerance tol = be->oracle_path ? SUP_TOL_EXACT : oracle->c->tol;
    sup_case_result res;
    if (be->shared)
        pthread_mutex_lock(&r->shared_lock);
    sup_case_compare(oracle, ctx, tol, &res);
    if (be->shared)
        pthread_mutex_unlock(&r->shared_lock);
    o->seconds = res.seconds;
    o->max_abs = res.cmp.max_abs;
    const char *reason;
    char what[768];
    if (sup_case_unsupported(&res, &reason)) {
        o->state = OUT_UNSUPPORTED;
        set_message(o, reason);
        return;
    }
    if (res.status == CLIK_OK && res.backend != be->want) {
        o->state = OUT_FAIL;
        snprintf(what, sizeof(what), "%s: ran on %s, not %s", clik_status_str(CLIK_ERR_FALLBACK),
                 clik_backend_name(res.backend), clik_backend_name(be->want));
        set_message(o, what);
        return;
    }
    if (sup_case_passed(&res)) {
        o->state = OUT_PASS;
        return;
    }
    o->state = OUT_FAIL;
    if (res.status != CLIK_OK || res.oracle_status != CLIK_OK)
        snprintf(what, sizeof(what), "%s: %s",
                 clik_status_str(res.status != CLIK_OK ? res.status : res.oracle_status),
                 res.message);
    else
        snprintf(what, sizeof(what), "%s", res.cmp.detail);
    set_message(o, what);
}

/* The oracle once, then every backend against it. */
static void run_input(worker *w, input *in)
{
    conformance_run *r = w->r;
    sup_case_oracle oracle;
    sup_case_oracle_run(r->cases[in->op], w->oracle, in->width, in->height, in->channels,
                        in->pattern, in->seed, &oracle);
    w->oracle_seconds += oracle.seconds;
    for (int b = 0; b < r->nbackends; b++) {
        const backend *be = &r->backends[b];
        if (be->not_run || (be->oracle_path && !is_small(in)))
            continue; /* OUT_NOT_RUN */
        run_backend(w, b, &oracle, &in->results[b]);
    }
    sup_case_oracle_free(&oracle);
}

static clik_status create_context(const clik_context_options *opt, clik_context **ctx, char *why,
                                  size_t cap)
{
    clik_status st = clik_context_create(ctx, opt);
    if (st != CLIK_OK)
        snprintf(why, cap, "%s: %s", clik_status_str(st), clik_context_message(NULL));
    return st;
}

static void oracle_options(clik_context_options *opt)
{
    clik_context_options_init(opt);
    opt->device = "none";
    opt->cpu_path = CLIK_CPU_SCALAR;
}

/* Contexts of a worker other than the first, made in its own thread. A
 * backend whose context fails here fails every input this worker takes:
 * separate contexts in separate threads must work. */
static void open_worker_contexts(worker *w)
{
    clik_context_options opt;
    oracle_options(&opt);
    char why[512];
    if (create_context(&opt, &w->oracle, why, sizeof(why)) != CLIK_OK) {
        w->oracle = NULL;
        snprintf(w->oracle_error, sizeof(w->oracle_error),
                 "job %d cannot create its oracle context: %s", w->id + 1, why);
    }
    for (int b = 0; b < w->r->nbackends; b++) {
        const backend *be = &w->r->backends[b];
        if (be->not_run || be->shared)
            continue;
        if (create_context(&be->opt, &w->ctx[b], why, sizeof(why)) != CLIK_OK) {
            w->ctx[b] = NULL;
            snprintf(w->ctx_error[b], sizeof(w->ctx_error[b]),
                     "job %d cannot create its context: %s", w->id + 1, why);
        }
    }
}

static void close_worker_contexts(worker *w)
{
    for (int b = 0; b < w->r->nbackends; b++)
        clik_context_destroy(w->ctx[b]);
    clik_context_destroy(w->oracle);
}

static void fail_all(worker *w, input *in, const char *why)
{
    for (int b = 0; b < w->r->nbackends; b++)
        if (!w->r->backends[b].not_run) {
            in->results[b].state = OUT_FAIL;
            set_message(&in->results[b], why);
        }
}

static void *work(void *arg)
{
    worker *w = arg;
    conformance_run *r = w->r;
    if (w->id > 0)
        open_worker_contexts(w);
    for (;;) {
        pthread_mutex_lock(&r->lock);
        int i = r->next < r->ninputs ? r->order[r->next++] : -1;
        pthread_mutex_unlock(&r->lock);
        if (i < 0)
            break;
        input *in = &r->inputs[i];
        if (w->oracle)
            run_input(w, in);
        else
            fail_all(w, in, w->oracle_error);
        int failed = 0;
        for (int b = 0; b < r->nbackends; b++)
            failed += in->results[b].state == OUT_FAIL;
        pthread_mutex_lock(&r->lock);
        r->done++;
        r->done_weight += in->weight;
        r->failed += failed;
        r->op_left[in->op]--;
        pthread_cond_signal(&r->changed);
        pthread_mutex_unlock(&r->lock);
    }
    return NULL;
}

/* ---- the command ----------------------------------------------------------------------- */

static int default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (int)n;
}

static void list_run(const conformance_run *r)
{
    printf("operations (%d):\n", r->ncases);
    printf("  %-*s  %-9s %-*s  %-5s %s\n", r->width.op, "op", "family", r->width.tol, "tolerance",
           "type", "channels");
    for (int k = 0; k < r->ncases; k++) {
        const sup_case *c = r->cases[k];
        char channels[16] = "";
        for (int ch = 1; ch <= 4; ch++)
            if (c->channels & (1u << ch))
                snprintf(channels + strlen(channels), sizeof(channels) - strlen(channels), "%s%d",
                         channels[0] ? "," : "", ch);
        printf("  %-*s  %-9s %-*s  %-5s %s\n", r->width.op, c->op, c->family, r->width.tol,
               sup_tolerance_name(c->tol), clik_type_name(c->type), channels);
    }
    printf("backends (%d):\n", r->nbackends);
    print_legend(stdout, r);
}

/* Worker 0's contexts and the shared ones, made here: a backend whose
 * context cannot be made at all is reported as not run. */
static int open_first_contexts(conformance_run *r, worker *w)
{
    clik_context_options opt;
    oracle_options(&opt);
    char why[512];
    if (create_context(&opt, &w->oracle, why, sizeof(why)) != CLIK_OK) {
        fprintf(stderr, "clik conformance: oracle context: %s\n", why);
        return CLI_FAILED;
    }
    for (int b = 0; b < r->nbackends; b++) {
        backend *be = &r->backends[b];
        clik_context *ctx;
        if (create_context(&be->opt, &ctx, be->not_run_reason, sizeof(be->not_run_reason)) !=
            CLIK_OK)
            be->not_run = 1;
        else if (be->shared)
            r->shared_ctx[b] = ctx;
        else
            w->ctx[b] = ctx;
    }
    return CLI_OK;
}

static int run_all(conformance_run *r, int jobs)
{
    const double start = now_seconds();
    worker *workers = calloc((size_t)jobs, sizeof(*workers));
    if (!workers) {
        fprintf(stderr, "clik conformance: out of memory\n");
        return CLI_FAILED;
    }
    for (int j = 0; j < jobs; j++) {
        workers[j].r = r;
        workers[j].id = j;
    }
    int rc = open_first_contexts(r, &workers[0]);
    if (rc != CLI_OK) {
        close_worker_contexts(&workers[0]);
        free(workers);
        return rc;
    }
    printf("clik %s conformance: %d operation%s, %d inputs, %d backend%s, %d job%s\n",
           clik_version(), r->ncases, r->ncases == 1 ? "" : "s", r->ninputs, r->nbackends,
           r->nbackends == 1 ? "" : "s", jobs, jobs == 1 ? "" : "s");
    print_legend(stdout, r);
    for (int b = 0; b < r->nbackends; b++)
        if (r->backends[b].not_run)
            printf("  %-*s  not run: %s\n", r->width.label, r->backends[b].label,
                   r->backends[b].not_run_reason);
    printf("\n");
    print_header(stdout, r);
    fflush(stdout);

    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&r->changed, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&r->lock, NULL);
    pthread_mutex_init(&r->shared_lock, NULL);
    int started = 0;
    for (; started < jobs; started++)
        if (pthread_create(&workers[started].thread, NULL, work, &workers[started]) != 0)
            break;
    if (started == 0) {
        fprintf(stderr, "clik conformance: cannot start a worker thread\n");
        rc = CLI_FAILED;
    } else {
        stream_rows(r, start);
    }
    for (int j = 0; j < started; j++)
        pthread_join(workers[j].thread, NULL);
    r->ran = started > 0;
    for (int j = 0; j < jobs; j++) {
        r->oracle_seconds += workers[j].oracle_seconds;
        close_worker_contexts(&workers[j]);
    }
    for (int b = 0; b < r->nbackends; b++)
        clik_context_destroy(r->shared_ctx[b]);
    pthread_mutex_destroy(&r->lock);
    pthread_mutex_destroy(&r->shared_lock);
    pthread_cond_destroy(&r->changed);
    free(workers);
    if (rc == CLI_OK) {
        print_summary(stdout, r, now_seconds() - start, started);
        fflush(stdout);
    }
    return rc;
}

int cmd_conformance(int argc, char **argv)
{
    const char *junit = NULL, *report_dir = NULL, *jobs_text = NULL, *last_op = NULL;
    int quick = 0, list = 0;
    const cli_option options[] = {{"--junit", &junit, NULL}, {"--report-dir", &report_dir, NULL},
                                  {"--op", &last_op, NULL},  {"--jobs", &jobs_text, NULL},
                                  {"--quick", NULL, &quick}, {"--list", NULL, &list},
                                  {NULL, NULL, NULL}};
    char **kept = calloc((size_t)argc + 1, sizeof(*kept));
    const char *specs[MAX_OP_SPECS];
    int nspecs = 0;
    if (!kept) {
        fprintf(stderr, "clik conformance: out of memory\n");
        return CLI_FAILED;
    }
    const int nkept = take_op_specs(argc, argv, options, kept, specs, &nspecs);
    cli_args args;
    int rc =
        nkept < 0 ? CLI_USAGE : cli_parse(nkept, kept, options, 0, 0, &args, conformance_usage);
    free(kept);
    if (rc != CLI_OK)
        return rc;
    int jobs = default_jobs();
    if (jobs_text && !cli_parse_count(jobs_text, 1, MAX_JOBS, &jobs)) {
        fprintf(stderr, "clik conformance: --jobs %s: expected a whole number in 1..%d\n%s",
                jobs_text, MAX_JOBS, conformance_usage);
        return CLI_USAGE;
    }

    conformance_run r;
    memset(&r, 0, sizeof(r));
    static backend backends[MAX_BACKENDS];
    rc = select_cases(specs, nspecs, &r);
    if (rc == CLI_OK) {
        r.backends = backends;
        r.nbackends = collect_backends(args.device, backends);
        if (r.nbackends < 0)
            rc = CLI_FAILED;
    }
    if (rc == CLI_OK)
        column_widths_of(&r);
    if (rc == CLI_OK && list) {
        list_run(&r);
        free(r.cases);
        return CLI_OK;
    }
    if (rc == CLI_OK && make_inputs(&r, quick) != CLI_OK) {
        fprintf(stderr, "clik conformance: out of memory\n");
        rc = CLI_FAILED;
    }
    for (int b = 0; rc == CLI_OK && junit && b < r.nbackends; b++)
        if (!(backends[b].junit = tmpfile())) {
            fprintf(stderr, "clik conformance: cannot create a temporary file\n");
            rc = CLI_FAILED;
        }
    if (rc == CLI_OK) {
        if (jobs > r.ninputs)
            jobs = r.ninputs > 0 ? r.ninputs : 1;
        rc = run_all(&r, jobs);
    }
    int failed = 0;
    for (int b = 0; b < r.nbackends; b++)
        failed += backends[b].failed + backends[b].not_run;
    if (rc == CLI_OK && failed)
        rc = CLI_FAILED;
    if (junit && r.ran && write_junit(junit, &r) != CLI_OK)
        rc = CLI_FAILED;
    if (report_dir && r.ran && write_reports(report_dir, &r) != CLI_OK)
        rc = CLI_FAILED;
    for (int b = 0; b < r.nbackends; b++)
        if (backends[b].junit)
            fclose(backends[b].junit);
    free_inputs(&r);
    return rc;
}
