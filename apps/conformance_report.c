/*
 * clik conformance's report: the table (streamed as each operation
 * finishes), the progress line, the summary and legend, JUnit XML and the
 * per-backend text reports, written whole or not at all.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance.h"

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

/* ---- the table ---------------------------------------------------------------------- */

typedef struct tally {
    int runs, passed, failed, unsupported;
    double max_abs, seconds;
    int first_failure, first_unsupported; /* input indices, -1 if none */
} tally;

static void tally_op(const conformance_run *r, int k, int b, tally *t)
{
    memset(t, 0, sizeof(*t));
    t->first_failure = t->first_unsupported = -1;
    for (int i = r->op_first[k]; i < r->op_first[k + 1]; i++) {
        const outcome *o = &r->inputs[i].results[b];
        if (o->state == OUT_NOT_RUN)
            continue;
        t->runs++;
        t->seconds += o->seconds;
        if (o->max_abs > t->max_abs)
            t->max_abs = o->max_abs;
        if (o->state == OUT_PASS)
            t->passed++;
        if (o->state == OUT_FAIL && t->failed++ == 0)
            t->first_failure = i;
        if (o->state == OUT_UNSUPPORTED && t->unsupported++ == 0)
            t->first_unsupported = i;
    }
}

static const char *message_of(const conformance_run *r, int i, int b)
{
    const char *m = r->inputs[i].results[b].message;
    return m ? m : "out of memory for the message";
}

void column_widths_of(conformance_run *r)
{
    column_widths *w = &r->width;
    w->op = (int)strlen("op");
    w->tol = (int)strlen("tolerance");
    w->label = (int)strlen("backend");
    for (int k = 0; k < r->ncases; k++) {
        int n = (int)strlen(r->cases[k]->op), t = (int)strlen(sup_tolerance_name(r->cases[k]->tol));
        w->op = n > w->op ? n : w->op;
        w->tol = t > w->tol ? t : w->tol;
    }
    for (int b = 0; b < r->nbackends; b++) {
        int n = (int)strlen(r->backends[b].label);
        w->label = n > w->label ? n : w->label;
    }
}

void print_header(FILE *f, const conformance_run *r)
{
    fprintf(f, "%-*s  %-*s  %-*s %6s %6s %6s %6s %10s %8s  %s\n", r->width.op, "op", r->width.tol,
            "tolerance", r->width.label, "backend", "runs", "passed", "failed", "unsup",
            "max|diff|", "seconds", "result");
}

static void print_op_row(FILE *f, const conformance_run *r, int k, int b, const tally *t)
{
    const backend *be = &r->backends[b];
    const sup_tolerance tol = be->oracle_path ? SUP_TOL_EXACT : r->cases[k]->tol;
    char result[700], where[96];
    if (t->failed)
        snprintf(result, sizeof(result), "FAIL");
    else if (t->passed)
        snprintf(result, sizeof(result), "PASS");
    else if (t->unsupported)
        snprintf(result, sizeof(result), "unsupported: %s", message_of(r, t->first_unsupported, b));
    else
        snprintf(result, sizeof(result), "not run");
    fprintf(f, "%-*s  %-*s  %-*s %6d %6d %6d %6d %10.4g %8.2f  %s\n", r->width.op, r->cases[k]->op,
            r->width.tol, sup_tolerance_name(tol), r->width.label, be->label, t->runs, t->passed,
            t->failed, t->unsupported, t->max_abs, t->seconds, result);
    if (t->failed) {
        describe_input(&r->inputs[t->first_failure], where, sizeof(where));
        fprintf(f, "    first failure (%d of %d): %s: %s\n", t->failed, t->runs, where,
                message_of(r, t->first_failure, b));
    }
    if (t->unsupported && (t->failed || t->passed)) {
        describe_input(&r->inputs[t->first_unsupported], where, sizeof(where));
        fprintf(f, "    unsupported (%d of %d), first %s: %s\n", t->unsupported, t->runs, where,
                message_of(r, t->first_unsupported, b));
    }
}

static void junit_cases(const conformance_run *r, int k, int b)
{
    backend *be = &r->backends[b];
    for (int i = r->op_first[k]; i < r->op_first[k + 1]; i++) {
        const outcome *o = &r->inputs[i].results[b];
        if (o->state == OUT_NOT_RUN)
            continue;
        char where[96];
        describe_input(&r->inputs[i], where, sizeof(where));
        fprintf(be->junit, "    <testcase classname=\"%s.%s\" name=\"%s %s\" time=\"%.6f\">",
                be->slug, r->cases[k]->op, r->cases[k]->op, where, o->seconds);
        if (o->state != OUT_PASS) {
            fprintf(be->junit,
                    o->state == OUT_FAIL ? "<failure message=\"" : "<skipped message=\"");
            if (o->state == OUT_UNSUPPORTED)
                fputs("unsupported: ", be->junit);
            xml_escape(be->junit, message_of(r, i, b));
            fprintf(be->junit, "\"/>");
        }
        fprintf(be->junit, "</testcase>\n");
    }
}

/* Prints the rows of operation k (all its inputs done), adds them up, and
 * files its JUnit test cases. */
static void emit_op(conformance_run *r, int k)
{
    for (int b = 0; b < r->nbackends; b++) {
        backend *be = &r->backends[b];
        if (be->not_run)
            continue;
        tally t;
        tally_op(r, k, b, &t);
        print_op_row(stdout, r, k, b, &t);
        be->runs += t.runs;
        be->passed += t.passed;
        be->failed += t.failed;
        be->unsupported += t.unsupported;
        be->seconds += t.seconds;
        if (be->junit)
            junit_cases(r, k, b);
    }
    fflush(stdout);
}

/* ---- progress ------------------------------------------------------------------------ */

static void format_duration(double s, char *out, size_t cap)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(out, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(out, cap, "%ld:%02ld", t / 60, t % 60);
}

/* The progress line (on a terminal only); called with r->lock held. */
static void show_progress(const conformance_run *r, double start, int emitted)
{
    const double elapsed = now_seconds() - start;
    char spent[32], eta[32] = "?";
    format_duration(elapsed, spent, sizeof(spent));
    if (r->done_weight > 0.0)
        format_duration(elapsed * (r->total_weight - r->done_weight) / r->done_weight, eta,
                        sizeof(eta));
    cli_progress("conformance: %d/%d inputs (%.0f%%), %d failed, %s elapsed, ETA %s; at %s",
                 r->done, r->ninputs, 100.0 * r->done_weight / r->total_weight, r->failed, spent,
                 eta, emitted < r->ncases ? r->cases[emitted]->op : "the end");
}

/* Waits for the workers, printing each operation's rows in table order as
 * soon as all its inputs are done. */
void stream_rows(conformance_run *r, double start)
{
    int emitted = 0;
    double shown = 0.0;
    pthread_mutex_lock(&r->lock);
    while (emitted < r->ncases) {
        if (r->op_left[emitted] == 0) {
            pthread_mutex_unlock(&r->lock);
            cli_progress_done();
            emit_op(r, emitted++); /* its inputs are no worker's any more */
            pthread_mutex_lock(&r->lock);
            continue;
        }
        if (now_seconds() - shown >= 0.25) { /* a few redraws a second at most */
            show_progress(r, start, emitted);
            shown = now_seconds();
        }
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&r->changed, &r->lock, &until);
    }
    pthread_mutex_unlock(&r->lock);
    cli_progress_done();
}

/* ---- reports ------------------------------------------------------------------------- */

void print_summary(FILE *f, const conformance_run *r, double wall, int jobs)
{
    int runs = 0, passed = 0, failed = 0, unsupported = 0, not_run = 0;
    fprintf(f, "\n%-*s %8s %8s %8s %8s %10s\n", r->width.label, "backend", "runs", "passed",
            "failed", "unsup", "busy s");
    fprintf(f, "%-*s %8s %8s %8s %8s %10.1f\n", r->width.label, "oracle", "", "", "", "",
            r->oracle_seconds);
    for (int b = 0; b < r->nbackends; b++) {
        const backend *be = &r->backends[b];
        if (be->not_run) {
            fprintf(f, "%-*s not run: %s\n", r->width.label, be->label, be->not_run_reason);
            not_run++;
            continue;
        }
        fprintf(f, "%-*s %8d %8d %8d %8d %10.1f\n", r->width.label, be->label, be->runs, be->passed,
                be->failed, be->unsupported, be->seconds);
        runs += be->runs;
        passed += be->passed;
        failed += be->failed;
        unsupported += be->unsupported;
    }
    fprintf(f, "\n%d runs: %d passed, %d failed, %d unsupported%s: %s\n", runs, passed, failed,
            unsupported, not_run ? ", some backends not run" : "",
            failed || not_run ? "FAIL" : "PASS");
    fprintf(f, "time: %.1f s with %d job%s (busy s: summed over jobs, each backend's runs only)\n",
            wall, jobs, jobs == 1 ? "" : "s");
}

void print_legend(FILE *f, const conformance_run *r)
{
    for (int b = 0; b < r->nbackends; b++)
        fprintf(f, "  %-*s  %s%s\n", r->width.label, r->backends[b].label, r->backends[b].name,
                r->backends[b].shared ? "; one job at a time (PoCL, Oclgrind)" : "");
}

/* A file written through a temporary file and a rename. */
typedef struct staged_file {
    const char *path;
    char tmp[4200];
} staged_file;

/* Opens the temporary file of path; prints the reason and returns NULL on failure. */
static FILE *staged_open(staged_file *s, const char *path)
{
    s->path = path;
    snprintf(s->tmp, sizeof(s->tmp), "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(s->tmp, "w");
    if (!f)
        fprintf(stderr, "clik conformance: %s: %s\n", path, strerror(errno));
    return f;
}

/* Closes f and renames it over the path; on a failure removes it, prints it
 * and returns CLI_FAILED. */
static int staged_close(staged_file *s, FILE *f)
{
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(s->tmp, s->path) != 0) {
        remove(s->tmp);
        fprintf(stderr, "clik conformance: cannot write %s\n", s->path);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Writes path through a temporary file and a rename: one test suite per backend. */
int write_junit(const char *path, const conformance_run *r)
{
    staged_file staged;
    FILE *f = staged_open(&staged, path);
    if (!f)
        return CLI_FAILED;
    int tests = 0, failures = 0, skipped = 0;
    for (int b = 0; b < r->nbackends; b++) {
        tests += r->backends[b].runs + r->backends[b].not_run;
        failures += r->backends[b].failed;
        skipped += r->backends[b].unsupported + r->backends[b].not_run;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f,
            "<testsuites name=\"clik conformance\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n",
            tests, failures, skipped);
    for (int b = 0; b < r->nbackends; b++) {
        const backend *be = &r->backends[b];
        fprintf(f, "  <testsuite name=\"");
        xml_escape(f, be->name);
        fprintf(f, "\" tests=\"%d\" failures=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
                be->runs + be->not_run, be->failed, be->unsupported + be->not_run, be->seconds);
        if (be->not_run) {
            fprintf(f, "    <testcase classname=\"%s\" name=\"context\"><skipped message=\"",
                    be->slug);
            xml_escape(f, be->not_run_reason);
            fprintf(f, "\"/></testcase>\n");
        }
        if (be->junit) {
            rewind(be->junit);
            char buf[8192];
            size_t got;
            while ((got = fread(buf, 1, sizeof(buf), be->junit)) > 0)
                fwrite(buf, 1, got, f);
        }
        fprintf(f, "  </testsuite>\n");
    }
    fprintf(f, "</testsuites>\n");
    return staged_close(&staged, f);
}

static void print_backend_report(FILE *f, const conformance_run *r, int b)
{
    const backend *be = &r->backends[b];
    fprintf(f, "clik %s conformance report\n\n%s\n", clik_version(), be->name);
    if (be->not_run) {
        fprintf(f, "  not run: %s\n", be->not_run_reason);
        return;
    }
    fprintf(f, "\n");
    print_header(f, r);
    for (int k = 0; k < r->ncases; k++) {
        tally t;
        tally_op(r, k, b, &t);
        print_op_row(f, r, k, b, &t);
    }
    fprintf(f, "\n%d runs: %d passed, %d failed, %d unsupported: %s\n", be->runs, be->passed,
            be->failed, be->unsupported, be->failed ? "FAIL" : "PASS");
}

/* One report per backend, each written through a temporary file and a rename. */
int write_reports(const char *dir, const conformance_run *r)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "clik conformance: %s: %s\n", dir, strerror(errno));
        return CLI_FAILED;
    }
    for (int b = 0; b < r->nbackends; b++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.txt", dir, r->backends[b].slug);
        staged_file staged;
        FILE *f = staged_open(&staged, path);
        if (!f)
            return CLI_FAILED;
        print_backend_report(f, r, b);
        if (staged_close(&staged, f) != CLI_OK)
            return CLI_FAILED;
    }
    return CLI_OK;
}
