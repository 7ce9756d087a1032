/* clik flow along a numbered frame sequence, at the rate of video: frames
 * are decoded ahead on threads of the host, each frame goes to the device
 * once, its copy beside the kernels of the pair before, and stays there for
 * the two pairs it belongs to; each flow comes back beside the next pair's
 * kernels, and the flows are measured, drawn and written by writer threads
 * while the device computes the next ones.
 * SPDX-License-Identifier: BSD-2-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"

typedef struct flow_sequence {
    const flow_job *job;
    int first, count;    /* frames first .. first + count - 1, flows one fewer */
    int width, height;   /* of every frame */
    cli_outputs outs;    /* flow i is output i, its picture output count - 1 + i */
    flow_errors *errors; /* of each flow, with --gt */
} flow_sequence;

/* Finds the first frame and counts the frames up to the first missing
 * number: at least two, for one flow. */
static int count_frames(const flow_job *job, flow_sequence *seq)
{
    char name[CLI_NAME_CAP];
    cli_count_frames(job->in0, job->start, &seq->first, &seq->count);
    cli_numbered_path(job->in0, seq->first + seq->count, name, sizeof(name));
    if (seq->count < 2) {
        fprintf(stderr, "clik flow: %s: no such frame%s; a flow needs two frames\n", name,
                seq->count == 0 && job->start < 0 ? " (nor frame 0)" : "");
        return CLI_FAILED;
    }
    /* Every name must fit, or a late flow would fail. */
    const char *patterns[3] = {job->out, job->viz, job->gt};
    for (int k = 0; k < 3; k++)
        if (patterns[k] &&
            !cli_numbered_path(patterns[k], seq->first + seq->count - 2, name, sizeof(name))) {
            fprintf(stderr, "clik flow: %s: the names are too long\n", patterns[k]);
            return CLI_FAILED;
        }
    return CLI_OK;
}

/* Names every frame, ground truth, flow and picture of the sequence in its
 * output set and checks them before anything runs. */
static int plan_flow_outputs(const flow_job *job, flow_sequence *seq)
{
    char name[CLI_NAME_CAP];
    int rc = CLI_OK;
    cli_outputs_init(&seq->outs, "flow");
    for (int i = 0; i < seq->count && rc == CLI_OK; i++) {
        cli_numbered_path(job->in0, seq->first + i, name, sizeof(name));
        rc = cli_outputs_input(&seq->outs, name);
    }
    for (int i = 0; job->gt && i < seq->count - 1 && rc == CLI_OK; i++) {
        cli_numbered_path(job->gt, seq->first + i, name, sizeof(name));
        rc = cli_outputs_input(&seq->outs, name);
    }
    const char *patterns[2] = {job->out, job->viz};
    for (int k = 0; k < 2; k++)
        for (int i = 0; patterns[k] && i < seq->count - 1 && rc == CLI_OK; i++) {
            cli_numbered_path(patterns[k], seq->first + i, name, sizeof(name));
            rc = cli_outputs_add(&seq->outs, name);
        }
    return rc == CLI_OK ? cli_outputs_check(&seq->outs) : rc;
}

/* Measures flow i against its ground truth. */
static int measure_sequence_flow(flow_sequence *seq, int i, const clik_image *flow)
{
    char gt_name[CLI_NAME_CAP], out_name[CLI_NAME_CAP];
    cli_numbered_path(seq->job->gt, seq->first + i, gt_name, sizeof(gt_name));
    cli_numbered_path(seq->job->out, seq->first + i, out_name, sizeof(out_name));
    clik_image gt = {0};
    int rc = flow_read_file("flow", gt_name, &gt);
    if (rc == CLI_OK)
        rc = flow_measure("flow", out_name, flow, gt_name, &gt, &seq->errors[i]);
    clik_image_free(&gt);
    return rc;
}

/* The errors of each flow, then their mean over every vector counted. */
static void print_sequence_errors(const flow_sequence *seq)
{
    flow_errors all = {0, 0, 0, 0};
    for (int i = 0; i < seq->count - 1; i++) {
        const flow_errors *e = &seq->errors[i];
        char name[CLI_NAME_CAP];
        cli_numbered_path(seq->job->out, seq->first + i, name, sizeof(name));
        flow_print_errors(name, e);
        all.epe += e->epe * (double)e->counted;
        all.aae += e->aae * (double)e->counted;
        all.counted += e->counted;
        all.total += e->total;
    }
    all.epe /= (double)all.counted;
    all.aae /= (double)all.counted;
    flow_print_errors("mean", &all);
}

/* ---- flows written behind ------------------------------------------------------------ */

/* Flow i is computed into flows[slot] (cli_writers' slot of i), then
 * measured and staged by a writer. */
typedef struct flow_writer {
    flow_sequence *seq;
    clik_image flows[CLI_MAX_SLOTS];
    int nslots;
    cli_writers *w;
} flow_writer;

/* Measures flow i against its ground truth, then stages it and its picture. */
static int write_flow(void *user, int i, int slot)
{
    flow_writer *fw = user;
    flow_sequence *seq = fw->seq;
    const flow_job *job = seq->job;
    const clik_image *flow = &fw->flows[slot];
    char name[CLI_NAME_CAP];
    cli_numbered_path(job->in0, seq->first + i, name, sizeof(name));
    int rc = job->gt ? measure_sequence_flow(seq, i, flow) : CLI_OK;
    if (rc == CLI_OK)
        rc = flow_stage(&seq->outs, flow, i, job->viz ? seq->count - 1 + i : -1, name);
    return rc;
}

/* Allocates the flows (in memory the device reaches directly) and starts
 * the writers. */
static int writer_start(flow_writer *fw, flow_sequence *seq, clik_context *ctx)
{
    memset(fw, 0, sizeof(*fw));
    fw->seq = seq;
    fw->nslots = cli_writers_slots();
    for (int k = 0; k < fw->nslots; k++) {
        clik_status st =
            clik_image_alloc_on(ctx, &fw->flows[k], seq->width, seq->height, 2, CLIK_F32);
        if (st != CLIK_OK) {
            for (int j = 0; j < k; j++)
                clik_image_free(&fw->flows[j]);
            return cli_error("flow", ctx, st, "the flows");
        }
    }
    if (!(fw->w = cli_writers_start(seq->count - 1, fw->nslots, write_flow, fw))) {
        for (int k = 0; k < fw->nslots; k++)
            clik_image_free(&fw->flows[k]);
        fprintf(stderr, "clik flow: out of memory\n");
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Lets the writers finish, then frees the flows; returns the first failure. */
static int writer_finish(flow_writer *fw, double *wait_s)
{
    const int rc = cli_writers_finish(fw->w, wait_s);
    for (int k = 0; k < fw->nslots; k++)
        clik_image_free(&fw->flows[k]);
    return rc;
}

/* ---- the flows ---------------------------------------------------------------------- */

/* Frames and flows in flight. Frame k's copy to the device is queued a
 * pair ahead (before the flow of frames k - 2 and k - 1, beside whose
 * kernels it runs), into grey[k % 3] (grey frames) or colour[k % 3] (its
 * luma made on the device once the copy is done); host[k % 2] holds the
 * frame until then. Flow i is computed into the device image flow[i % 2]
 * and its copy to the writers' slot queued; the writers get it once that
 * copy is done, a pair later. */
typedef struct flow_frames {
    cli_frames *reader;
    clik_image host[2], colour[3], grey[3], flow[2];
    uint64_t up[2], down[2]; /* tickets: frame k's upload, flow i's download */
} flow_frames;

static void frames_free(flow_frames *f)
{
    for (int k = 0; k < 3; k++)
        cli_images_free(&f->colour[k], &f->grey[k], NULL);
    cli_images_free(&f->host[0], &f->host[1], &f->flow[0], &f->flow[1], NULL);
}

/* Takes frame k, checks its size and queues its copy to the device: grey
 * frames into grey[k % 3], colour into colour[k % 3], grey + alpha as the
 * luma made on the host. */
static int frame_queue(flow_sequence *seq, clik_context *ctx, flow_frames *f, int k)
{
    char name[CLI_NAME_CAP];
    cli_numbered_path(seq->job->in0, seq->first + k, name, sizeof(name));
    clik_image *img = &f->host[k % 2];
    int rc = cli_frames_take(f->reader, "flow", k, img, NULL);
    if (rc != CLI_OK)
        return rc;
    if (k == 0) {
        seq->width = img->width;
        seq->height = img->height;
    } else if (img->width != seq->width || img->height != seq->height) {
        fprintf(stderr,
                "clik flow: %s is %dx%d, the frames before it %dx%d: all frames need one size\n",
                name, img->width, img->height, seq->width, seq->height);
        return CLI_FAILED;
    }
    clik_status st = CLIK_OK;
    if (img->channels == 2) {
        clik_image luma = {0};
        st = cli_luma(ctx, img, &luma);
        clik_image_free(img);
        *img = luma;
    }
    clik_image *dev = img->channels == 1 ? &f->grey[k % 3] : &f->colour[k % 3];
    if (st == CLIK_OK)
        st = cli_image_ensure(ctx, dev, img->width, img->height, img->channels, CLIK_U8);
    if (st == CLIK_OK)
        st = cli_image_ensure(ctx, &f->grey[k % 3], img->width, img->height, 1, CLIK_U8);
    if (st == CLIK_OK)
        st = clik_image_upload_async(ctx, dev, img, &f->up[k % 2]);
    return st == CLIK_OK ? CLI_OK : cli_error("flow", ctx, st, name);
}

/* Frame k on the device as grey[k % 3]: its copy done (the host frame
 * freed), a colour frame's luma queued (as clik_gray). */
static int frame_ready(flow_sequence *seq, clik_context *ctx, flow_frames *f, int k)
{
    const int colour = f->host[k % 2].channels > 1;
    clik_status st = clik_context_wait(ctx, f->up[k % 2]);
    clik_image_free(&f->host[k % 2]);
    if (st == CLIK_OK && colour)
        st = clik_gray(ctx, &f->colour[k % 3], &f->grey[k % 3]);
    if (st == CLIK_OK)
        return CLI_OK;
    char name[CLI_NAME_CAP];
    cli_numbered_path(seq->job->in0, seq->first + k, name, sizeof(name));
    return cli_error("flow", ctx, st, name);
}

/* Hands flow i, its copy to the writers' slot done, to the writers. */
static int flow_done(clik_context *ctx, flow_writer *fw, flow_frames *f, int i)
{
    const clik_status st = clik_context_wait(ctx, f->down[i % 2]);
    if (st != CLIK_OK)
        return cli_error("flow", ctx, st, "the flows");
    cli_writers_queue(fw->w, i);
    return CLI_OK;
}

typedef struct flow_times {
    double frames_s, writer_s; /* the flow loop's waits */
} flow_times;

/* Flow i - 1, frame i - 1 to frame i, into flow[(i - 1) % 2], and its copy
 * to a writer's slot queued. */
static int flow_queue(flow_sequence *seq, clik_context *ctx, flow_writer *fw, flow_frames *f, int i)
{
    const flow_job *job = seq->job;
    int rc = cli_writers_slot(fw->w, i - 1);
    if (rc != CLI_OK)
        return rc; /* a writer said why */
    clik_image *flow = &f->flow[(i - 1) % 2];
    clik_status st = cli_image_ensure(ctx, flow, seq->width, seq->height, 2, CLIK_F32);
    if (st == CLIK_OK)
        st = clik_flow_tvl1(ctx, &f->grey[(i - 1) % 3], &f->grey[i % 3], flow, &job->opt);
    if (st == CLIK_OK)
        st = clik_image_download_async(ctx, &fw->flows[(i - 1) % fw->nslots], flow,
                                       &f->down[(i - 1) % 2]);
    if (st == CLIK_OK)
        return CLI_OK;
    char name[CLI_NAME_CAP];
    cli_numbered_path(job->in0, seq->first + i - 1, name, sizeof(name));
    return cli_error("flow", ctx, st, name);
}

/* Computes every flow, frame i - 1 to frame i, and has it staged. */
static int run_flows(flow_sequence *seq, clik_context *ctx, flow_times *times)
{
    const int flows = seq->count - 1;
    flow_frames f;
    memset(&f, 0, sizeof(f));
    flow_writer writer;
    int writing = 0, rc = CLI_OK;
    if (!(f.reader = cli_frames_start(seq->job->in0, seq->first, seq->count))) {
        fprintf(stderr, "clik flow: out of memory\n");
        rc = CLI_FAILED;
    }
    if (rc == CLI_OK)
        rc = frame_queue(seq, ctx, &f, 0);
    if (rc == CLI_OK)
        rc = frame_ready(seq, ctx, &f, 0);
    if (rc == CLI_OK)
        rc = writer_start(&writer, seq, ctx);
    writing = rc == CLI_OK;
    if (rc == CLI_OK)
        rc = frame_queue(seq, ctx, &f, 1);
    for (int i = 1; i < seq->count && rc == CLI_OK; i++) {
        rc = frame_ready(seq, ctx, &f, i);
        if (rc == CLI_OK && i + 1 < seq->count)
            rc = frame_queue(seq, ctx, &f, i + 1);
        if (rc == CLI_OK && i >= 2)
            rc = flow_done(ctx, &writer, &f, i - 2);
        if (rc == CLI_OK)
            rc = flow_queue(seq, ctx, &writer, &f, i);
        if (rc == CLI_OK)
            cli_progress("clik flow: %d of %d flows", i, flows);
    }
    if (rc == CLI_OK) /* the loop handed over flows 0 .. flows - 2 */
        rc = flow_done(ctx, &writer, &f, flows - 1);
    /* Every queued copy done before its host image goes. */
    clik_context_finish(ctx);
    times->frames_s = cli_frames_wait_s(f.reader);
    cli_frames_stop(f.reader);
    if (writing) {
        const int wrc = writer_finish(&writer, &times->writer_s);
        if (rc == CLI_OK)
            rc = wrc;
    }
    frames_free(&f);
    cli_progress_done();
    return rc;
}

int flow_sequence_run(const flow_job *job)
{
    flow_sequence seq = {0};
    seq.job = job;
    int rc = count_frames(job, &seq);
    if (rc == CLI_OK)
        rc = plan_flow_outputs(job, &seq);
    if (rc == CLI_OK && job->gt &&
        !(seq.errors = calloc((size_t)seq.count - 1, sizeof(*seq.errors)))) {
        fprintf(stderr, "clik flow: out of memory\n");
        rc = CLI_FAILED;
    }
    clik_context *ctx = NULL;
    if (rc == CLI_OK)
        rc = cli_context(job->device, &ctx);
    double t0 = cli_seconds();
    flow_times times = {0, 0};
    if (rc == CLI_OK) {
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        rc = run_flows(&seq, ctx, &times);
        cli_op_done("flow", ctx, &clock, job->in0);
    }
    /* Every flow is staged: put them all in place, or on a failure none. */
    if (rc == CLI_OK)
        rc = cli_outputs_commit(&seq.outs);
    if (rc == CLI_OK) {
        const int flows = seq.count - 1;
        const double seconds = cli_seconds() - t0;
        fprintf(stderr,
                "clik flow: %d flows of %dx%d in %.3f s (%.3f s each, %.1f pairs per second; "
                "waits a pair: %.1f ms for frames, %.1f ms for the writer)\n",
                flows, seq.width, seq.height, seconds, seconds / flows, flows / seconds,
                1e3 * times.frames_s / flows, 1e3 * times.writer_s / flows);
        if (job->gt)
            print_sequence_errors(&seq);
    }
    cli_outputs_free(&seq.outs);
    clik_context_destroy(ctx);
    free(seq.errors);
    return rc;
}
