/*
 * clik conformance: every operation on every OpenCL device (in strict mode,
 * with and without local memory) and on every CPU path, compared with the
 * scalar oracle under the operation's tolerance class.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases.h"
#include "cli.h"

static const char *const usage =
    "usage: clik conformance [--device SPEC] [--op NAME] [--quick] [--junit FILE]\n"
    "                        [--report-dir DIR]\n"
    "Runs every operation at every test size, pattern and channel count on each\n"
    "OpenCL device (strict mode: no CPU fallback; once with local memory, once\n"
    "without) and on the NEON and scalar CPU paths, and compares each result with\n"
    "the scalar oracle under the operation's tolerance class. Prints a table per\n"
    "device; exits 1 if anything fails.\n"
    "  --device SPEC     only this device (none: the CPU paths only)\n"
    "  --op NAME         only this operation\n"
    "  --quick           sizes up to 128x64 only\n"
    "  --junit FILE      also write JUnit XML\n"
    "  --report-dir DIR  also write one text report per device into DIR\n";

#define MAX_BACKENDS 32
#define MAX_CASES    128

typedef struct op_tally {
    int runs, passed;
    double max_abs;
    char first_failure[640];
} op_tally;

typedef struct backend {
    char name[640];
    char slug[96];
    clik_context_options opt;
    char device[32];
    op_tally ops[MAX_CASES];
    int skipped; /* could not create the context */
    char skip_reason[512];
    FILE *junit; /* this backend's test cases, gathered before the totals are known */
    int runs, failed;
} backend;

typedef struct run_state {
    int junit;
    int quick;
    const char *only_op;
    int total_runs, total_failed;
} run_state;

static void xml_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 32 || *s == '\n' || *s == '\t')
                fputc(*s, f);
        }
    }
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

static int add_backend(backend *list, int n, const char *name, const char *short_name,
                       const char *device, clik_cpu_path cpu, int local_memory)
{
    if (n == MAX_BACKENDS)
        return n;
    backend *b = &list[n];
    memset(b, 0, sizeof(*b));
    snprintf(b->name, sizeof(b->name), "%s", name);
    slugify(short_name, b->slug, sizeof(b->slug));
    snprintf(b->device, sizeof(b->device), "%s", device);
    clik_context_options_init(&b->opt);
    b->opt.device = b->device;
    b->opt.cpu_path = cpu;
    b->opt.local_memory = local_memory;
    b->opt.strict = 1;
    return n + 1;
}

/* Backends selected by spec (NULL: everything present). */
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
            clik_devices_free(devs);
            return -1;
        }
    }
    for (int i = 0; i < count; i++) {
        if (only != -2 && only != i)
            continue;
        char dev[32], name[640], short_name[200];
        snprintf(dev, sizeof(dev), "%d:%d", devs[i].platform_index, devs[i].device_index);
        for (int local = 1; local >= 0; local--) {
            const char *variant = local ? "local memory" : "no local memory";
            snprintf(name, sizeof(name), "%s %s (%s, %s, driver %s), %s", dev, devs[i].name,
                     devs[i].platform_name, devs[i].opencl_c_version, devs[i].driver_version,
                     variant);
            snprintf(short_name, sizeof(short_name), "%s %.60s %s", dev, devs[i].name,
                     local ? "local" : "nolocal");
            n = add_backend(list, n, name, short_name, dev, CLIK_CPU_AUTO, local);
        }
    }
    if (only < 0) {
        if (clik_cpu_path_available(CLIK_CPU_NEON))
            n = add_backend(list, n, "cpu neon", "cpu neon", "none", CLIK_CPU_NEON, -1);
        n = add_backend(list, n, "cpu scalar (the oracle, against itself)", "cpu scalar", "none",
                        CLIK_CPU_SCALAR, -1);
    }
    clik_devices_free(devs);
    return n;
}

static void record(run_state *rs, backend *b, int ci, const clik_case *c, int w, int h, int ch,
                   clik_pattern p, const clik_case_result *r)
{
    op_tally *t = &b->ops[ci];
    int ok = clik_case_passed(r);
    t->runs++;
    t->passed += ok;
    if (r->cmp.max_abs > t->max_abs)
        t->max_abs = r->cmp.max_abs;
    rs->total_runs++;
    rs->total_failed += !ok;
    b->runs++;
    b->failed += !ok;
    char what[640] = "";
    if (!ok) {
        if (r->status != CLIK_OK || r->oracle_status != CLIK_OK)
            snprintf(what, sizeof(what), "%s: %s",
                     clik_status_str(r->status != CLIK_OK ? r->status : r->oracle_status),
                     r->message);
        else
            snprintf(what, sizeof(what), "%s", r->cmp.detail);
        if (!t->first_failure[0])
            snprintf(t->first_failure, sizeof(t->first_failure), "%dx%dx%d %s: %s", w, h, ch,
                     clik_pattern_name(p), what);
    }
    if (b->junit) {
        fprintf(b->junit, "    <testcase classname=\"%s.%s\" name=\"%s %dx%dx%d %s\">", b->slug,
                c->op, c->op, w, h, ch, clik_pattern_name(p));
        if (!ok) {
            fprintf(b->junit, "<failure message=\"");
            xml_escape(b->junit, what);
            fprintf(b->junit, "\"/>");
        }
        fprintf(b->junit, "</testcase>\n");
    }
}

static void run_backend(run_state *rs, backend *b, clik_context *oracle, int bi, int nb)
{
    clik_context *ctx;
    clik_status st = clik_context_create(&ctx, &b->opt);
    if (st != CLIK_OK) {
        b->skipped = 1;
        snprintf(b->skip_reason, sizeof(b->skip_reason), "%s: %s", clik_status_str(st),
                 clik_context_message(NULL));
        return;
    }
    int sizes = 0;
    while (sizes < clik_test_size_count &&
           (!rs->quick || (clik_test_sizes[sizes][0] <= 128 && clik_test_sizes[sizes][1] <= 64)))
        sizes++;
    for (int ci = 0; ci < clik_case_count() && ci < MAX_CASES; ci++) {
        const clik_case *c = clik_case_at(ci);
        if (rs->only_op && strcmp(rs->only_op, c->op) != 0)
            continue;
        for (int s = 0; s < sizes; s++)
            for (int ch = 1; ch <= 4; ch *= 2) {
                if (!(c->channels & (1u << ch)))
                    continue;
                for (int p = 0; p < CLIK_PATTERN_COUNT; p++) {
                    const int w = clik_test_sizes[s][0], h = clik_test_sizes[s][1];
                    cli_progress("[%d/%d] %.40s: %s %dx%dx%d %s", bi + 1, nb, b->name, c->op, w, h,
                                 ch, clik_pattern_name((clik_pattern)p));
                    clik_case_result r;
                    clik_case_check(c, ctx, oracle, w, h, ch, (clik_pattern)p, 1000u + s, &r);
                    clik_backend want = b->opt.cpu_path == CLIK_CPU_NEON     ? CLIK_BACKEND_NEON
                                        : b->opt.cpu_path == CLIK_CPU_SCALAR ? CLIK_BACKEND_SCALAR
                                                                             : CLIK_BACKEND_OPENCL;
                    if (r.status == CLIK_OK && r.backend != want) {
                        r.status = CLIK_ERR_FALLBACK;
                        snprintf(r.message, sizeof(r.message), "ran on %s, not %s",
                                 clik_backend_name(r.backend), clik_backend_name(want));
                    }
                    record(rs, b, ci, c, w, h, ch, (clik_pattern)p, &r);
                }
            }
    }
    cli_progress_done();
    clik_context_destroy(ctx);
}

static void print_table(FILE *f, const backend *b)
{
    fprintf(f, "\n%s\n", b->name);
    if (b->skipped) {
        fprintf(f, "  not run: %s\n", b->skip_reason);
        return;
    }
    fprintf(f, "  %-12s %-9s %6s %7s %10s  %s\n", "op", "tolerance", "runs", "passed", "max|diff|",
            "result");
    for (int ci = 0; ci < clik_case_count() && ci < MAX_CASES; ci++) {
        const op_tally *t = &b->ops[ci];
        if (t->runs == 0)
            continue;
        fprintf(f, "  %-12s %-9s %6d %7d %10.4g  %s\n", clik_case_at(ci)->op,
                clik_tolerance_name(clik_case_at(ci)->tol), t->runs, t->passed, t->max_abs,
                t->passed == t->runs ? "PASS" : "FAIL");
        if (t->first_failure[0])
            fprintf(f, "      first failure: %s\n", t->first_failure);
    }
}

/* Writes path through a temporary file and a rename: one test suite per backend. */
static int write_junit(const char *path, backend *list, int n, const run_state *rs)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "clik conformance: %s: %s\n", path, strerror(errno));
        return CLI_FAILED;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"clik conformance\" tests=\"%d\" failures=\"%d\">\n",
            rs->total_runs, rs->total_failed);
    for (int i = 0; i < n; i++) {
        fprintf(f, "  <testsuite name=\"");
        xml_escape(f, list[i].name);
        fprintf(f, "\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n", list[i].runs,
                list[i].failed, list[i].skipped);
        if (list[i].skipped) {
            fprintf(f, "    <testcase classname=\"%s\" name=\"context\"><skipped message=\"",
                    list[i].slug);
            xml_escape(f, list[i].skip_reason);
            fprintf(f, "\"/></testcase>\n");
        }
        if (list[i].junit) {
            rewind(list[i].junit);
            char buf[8192];
            size_t got;
            while ((got = fread(buf, 1, sizeof(buf), list[i].junit)) > 0)
                fwrite(buf, 1, got, f);
        }
        fprintf(f, "  </testsuite>\n");
    }
    fprintf(f, "</testsuites>\n");
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        fprintf(stderr, "clik conformance: cannot write %s\n", path);
        return CLI_FAILED;
    }
    return CLI_OK;
}

static int write_reports(const char *dir, const backend *list, int n)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "clik conformance: %s: %s\n", dir, strerror(errno));
        return CLI_FAILED;
    }
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.txt", dir, list[i].slug);
        FILE *f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "clik conformance: %s: %s\n", path, strerror(errno));
            return CLI_FAILED;
        }
        fprintf(f, "clik %s conformance report\n", clik_version());
        print_table(f, &list[i]);
        if (fclose(f) != 0)
            return CLI_FAILED;
    }
    return CLI_OK;
}

int cmd_conformance(int argc, char **argv)
{
    const char *junit = NULL, *report_dir = NULL, *only_op = NULL;
    int quick = 0;
    const cli_option options[] = {{"--junit", &junit, NULL},
                                  {"--report-dir", &report_dir, NULL},
                                  {"--op", &only_op, NULL},
                                  {"--quick", NULL, &quick},
                                  {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 0, 0, &args, usage);
    if (rc != CLI_OK || args.help)
        return rc;
    if (only_op && !clik_case_find(only_op)) {
        fprintf(stderr, "clik conformance: unknown operation %s; known:", only_op);
        for (int i = 0; i < clik_case_count(); i++)
            fprintf(stderr, " %s", clik_case_at(i)->op);
        fprintf(stderr, "\n");
        return CLI_USAGE;
    }
    static backend list[MAX_BACKENDS];
    int n = collect_backends(args.device, list);
    if (n < 0)
        return CLI_FAILED;
    clik_context *oracle;
    clik_context_options ref;
    clik_context_options_init(&ref);
    ref.device = "none";
    ref.cpu_path = CLIK_CPU_SCALAR;
    if (clik_context_create(&oracle, &ref) != CLIK_OK)
        return cli_error("conformance", NULL, CLIK_ERR_NO_MEMORY, "oracle context");

    run_state rs = {.junit = junit != NULL, .quick = quick, .only_op = only_op};
    for (int i = 0; i < n && junit; i++)
        if (!(list[i].junit = tmpfile())) {
            fprintf(stderr, "clik conformance: cannot create a temporary file\n");
            rc = CLI_FAILED;
        }
    printf("clik %s conformance: %d backend(s)%s\n", clik_version(), n,
           quick ? ", quick sizes" : "");
    int not_run = 0;
    for (int i = 0; i < n; i++) {
        run_backend(&rs, &list[i], oracle, i, n);
        print_table(stdout, &list[i]);
        fflush(stdout);
        not_run += list[i].skipped;
    }
    clik_context_destroy(oracle);
    printf("\n%d runs, %d failed%s: %s\n", rs.total_runs, rs.total_failed,
           not_run ? ", some backends not run" : "", rs.total_failed || not_run ? "FAIL" : "PASS");
    if (rs.total_failed || not_run)
        rc = CLI_FAILED;
    if (junit && write_junit(junit, list, n, &rs) != CLI_OK)
        rc = CLI_FAILED;
    for (int i = 0; i < n; i++)
        if (list[i].junit)
            fclose(list[i].junit);
    if (report_dir && write_reports(report_dir, list, n) != CLI_OK)
        rc = CLI_FAILED;
    return rc;
}
