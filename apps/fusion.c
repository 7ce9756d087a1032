/* clik upscale: one image, or a numbered frame sequence streamed through the
 * fusion upscaler; also the LAPAR model upscaler (--method lapar) and the
 * LAPAR networks (--method lapar-a, lapar-b, lapar-c, lapar-net).
 * SPDX-License-Identifier: BSD-2-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_DEPTH 16

static const char *const upscale_usage =
    "usage: clik upscale IN OUT --scale S [--method M] [--artifact-map MAP]\n"
    "                    [--tile N] [--blur K] [--threshold T] [--model MODEL]\n"
    "                    [--device SPEC]\n"
    "       clik upscale 'IN%04d.png' 'OUT%04d.png' --scale S [--depth N] [--start N] ...\n"
    "Upscales IN by S. M is lapar (the default), fusion, lapar-a, lapar-b, lapar-c,\n"
    "lapar-net, nearest, bilinear or bicubic (as clik resize). lapar (S 2, 3 or 4) is\n"
    "LAPAR filtering of the bicubic upsample with coefficients chosen per pixel by\n"
    "the local structure, from MODEL (a file of clik lapar-train) or the model built\n"
    "into the library: sharper than bicubic on photographs. For other scales give\n"
    "--method bicubic. lapar-a, lapar-b and lapar-c (S 2 or 4) run the released\n"
    "LAPAR networks (A the most accurate and the slowest, C the fastest), which\n"
    "predict the coefficients from the image, on the device; lapar-net runs the\n"
    "network of MODEL (a .clikn file, its own scale).\n"
    "fusion is for graphics, text and pixel art, where it keeps edges hard (on\n"
    "photographs it scores below bicubic). It takes an integer S from 2 to 8: where\n"
    "the nearest and the bicubic upscales disagree inside a structured tile (tile\n"
    "SSIM of their luma times the luma difference, blurred, above the threshold)\n"
    "the pixel comes from the nearest upscale, elsewhere from the bicubic one. MAP\n"
    "(fusion only) gets that choice: 255 where the nearest pixel was taken, else 0.\n"
    "  --tile N       SSIM tile side, 2 to 16 (default 8)\n"
    "  --blur K       Gaussian blur of the artifact map, odd, 1 to 31 (default 7)\n"
    "  --threshold T  blurred artifact above T takes the nearest pixel (default 0.05)\n"
    "Grey, grey + alpha and RGB are upscaled as RGBA and written back as they came.\n"
    "With %d, %Nd or %0Nd in IN (and then in OUT and MAP) the frames IN(n) from\n"
    "--start (default: 0 if that file exists, else 1) up to the first missing\n"
    "number are upscaled in a stream, --depth frames in flight (1 to 16, default 3)\n"
    "while the next are read and the finished ones written. All frames need one\n"
    "size; the other methods take them one at a time. Every output is written or,\n"
    "on a failure, none. No output may be an input or another output; but for one\n"
    "image without MAP, OUT may be IN: the result goes to a temporary file that is\n"
    "then renamed over it.\n";

/* What the command line asks for, parsed. */
typedef struct upscale_job {
    const char *in, *out, *map; /* names, or patterns for a sequence */
    int fusion;
    int lapar;            /* --method lapar */
    int net;              /* --method lapar-a, -b, -c or lapar-net */
    const char *net_name; /* "lapar-a" ..., or NULL for lapar-net's --model */
    const char *model;    /* --model: a file; NULL: the built-in model */
    clik_interp method;   /* when neither */
    double scale;
    clik_fusion_options opt;
    int sequence, depth, start; /* start < 0: 0 or 1, whichever exists */
    const char *device;
} upscale_job;

static int usage_error(const char *message)
{
    fprintf(stderr, "clik upscale: %s\n", message);
    return CLI_USAGE;
}

static int parse_fusion_options(const char *tile, const char *blur, const char *threshold,
                                clik_fusion_options *opt)
{
    memset(opt, 0, sizeof(*opt));
    clik_fusion_options_init(opt);
    if (tile && !cli_parse_count(tile, 2, 16, &opt->tile))
        return usage_error("--tile needs a side from 2 to 16");
    if (blur && blur_parse_ksize("upscale", "--blur", blur, &opt->blur_ksize) != CLI_OK)
        return CLI_USAGE;
    double t;
    if (threshold) {
        if (!cli_parse_number(threshold, &t))
            return usage_error("--threshold needs a number");
        opt->threshold = (float)t;
    }
    return CLI_OK;
}

/* Checks the names: a sequence has patterns everywhere, one image nowhere.
 * Which files they name is checked later, on disk (plan_outputs()). */
static int check_names(upscale_job *job, int sequence_only)
{
    job->sequence = cli_is_pattern(job->in);
    if (cli_is_pattern(job->out) != job->sequence ||
        (job->map && cli_is_pattern(job->map) != job->sequence))
        return usage_error(job->sequence ? "IN is a frame pattern: OUT and MAP need %d too"
                                         : "IN is one image: OUT and MAP cannot be patterns");
    if (!job->sequence && sequence_only)
        return usage_error("--depth and --start are for frame sequences (%d in IN)");
    return CLI_OK;
}

static int parse_job(int argc, char **argv, upscale_job *job)
{
    const char *scale = NULL, *method = NULL, *tile = NULL, *blur = NULL, *threshold = NULL,
               *depth = NULL, *start = NULL;
    memset(job, 0, sizeof(*job));
    const cli_option options[] = {
        {"--scale", &scale, NULL}, {"--method", &method, NULL}, {"--artifact-map", &job->map, NULL},
        {"--tile", &tile, NULL},   {"--blur", &blur, NULL},     {"--threshold", &threshold, NULL},
        {"--depth", &depth, NULL}, {"--start", &start, NULL},   {"--model", &job->model, NULL},
        {NULL, NULL, NULL}};
    cli_args args;
    int rc = cli_parse(argc, argv, options, 2, 2, &args, upscale_usage);
    if (rc != CLI_OK)
        return rc;
    const int method_given = method != NULL;
    if (!method_given)
        method = "lapar";
    job->in = args.positional[0];
    job->out = args.positional[1];
    job->device = args.device;
    job->fusion = strcmp(method, "fusion") == 0;
    job->lapar = strcmp(method, "lapar") == 0;
    job->net = strcmp(method, "lapar-a") == 0 || strcmp(method, "lapar-b") == 0 ||
               strcmp(method, "lapar-c") == 0 || strcmp(method, "lapar-net") == 0;
    job->net_name = job->net && strcmp(method, "lapar-net") != 0 ? method : NULL;
    if (job->model && !job->lapar && !(job->net && !job->net_name))
        return usage_error("--model needs --method lapar (a model of clik lapar-train) or "
                           "lapar-net (a network file)");
    if (job->net && !job->net_name && !job->model)
        return usage_error("--method lapar-net needs --model FILE (a .clikn network)");
    if (!job->fusion) {
        if (!job->lapar && !job->net && !resize_parse_method(method, &job->method)) {
            fprintf(stderr,
                    "clik upscale: --method %s: expected fusion, lapar, lapar-a, lapar-b, "
                    "lapar-c, lapar-net, nearest, bilinear or bicubic\n",
                    method);
            return CLI_USAGE;
        }
        if (job->map || tile || blur || threshold)
            return usage_error("--artifact-map, --tile, --blur and --threshold need --method "
                               "fusion");
    }
    if ((rc = resize_parse_scale("upscale", scale, &job->scale)) != CLI_OK)
        return rc;
    if (job->fusion && (job->scale < 2 || job->scale > 8 || job->scale != (int)job->scale))
        return usage_error("--method fusion needs an integer --scale from 2 to 8");
    if (job->lapar && job->scale != 2 && job->scale != 3 && job->scale != 4)
        return usage_error(method_given ? "--method lapar needs --scale 2, 3 or 4"
                                        : "the default method, lapar, needs --scale 2, 3 or 4 "
                                          "(other scales: --method bicubic)");
    if (job->net_name && job->scale != 2 && job->scale != 4)
        return usage_error("the LAPAR networks were released for --scale 2 and 4 (x3: --method "
                           "lapar)");
    if (job->fusion && (rc = parse_fusion_options(tile, blur, threshold, &job->opt)) != CLI_OK)
        return rc;
    job->depth = 3;
    if (depth && !cli_parse_count(depth, 1, MAX_DEPTH, &job->depth))
        return usage_error("--depth needs a count from 1 to 16");
    job->start = -1;
    if (start && !cli_parse_count(start, 0, 1L << 30, &job->start))
        return usage_error("--start needs a frame number from 0 to 2^30");
    return check_names(job, depth || start);
}

/* The output size for a width x height input; prints the problem otherwise. */
static int output_size(const upscale_job *job, const char *path, int width, int height,
                       int *out_width, int *out_height)
{
    clik_status st = CLIK_ERR_INVALID_SIZE;
    if (!job->fusion && !job->lapar && !job->net) {
        st = clik_resize_size(width, height, job->scale, job->scale, out_width, out_height);
    } else if ((long)width * (long)job->scale <= 1L << 20 &&
               (long)height * (long)job->scale <= 1L << 20) {
        /* Integer scales: the result's sides are exact (and within clik_image's 2^20). */
        *out_width = width * (int)job->scale;
        *out_height = height * (int)job->scale;
        st = CLIK_OK;
    }
    if (st != CLIK_OK) {
        fprintf(stderr, "clik upscale: %s: a %dx%d image scaled by %g: %s\n", path, width, height,
                job->scale, clik_status_str(st));
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* ---- frames: one image, or one of a sequence ---------------------------------------- */

/* Whether a frame of this many channels goes through RGBA: fusion takes
 * RGBA only, lapar grey or RGBA (so grey + alpha). */
static int via_rgba(const upscale_job *job, int channels)
{
    return job->fusion ? channels != 4 : (job->lapar || job->net) && channels == 2;
}

/* One frame's buffers. For fusion, src and dst are RGBA and must stay put
 * until the frame's ticket completes; out holds dst in the input's channel
 * count when that is not 4. */
typedef struct frame {
    clik_image src, dst, out, map;
    int channels, had_alpha; /* of the input file */
    uint64_t ticket;
} frame;

static void frame_free(frame *f)
{
    cli_images_free(&f->src, &f->dst, &f->out, &f->map, NULL);
}

/* Takes the image read from a file into f->src: as RGBA for fusion. */
static int frame_take(const upscale_job *job, frame *f, clik_image *img, int had_alpha)
{
    clik_image_free(&f->src);
    f->channels = img->channels;
    f->had_alpha = had_alpha;
    if (!via_rgba(job, img->channels)) {
        f->src = *img;
        return CLI_OK;
    }
    clik_status st = rgba_expand(img, &f->src);
    clik_image_free(img);
    if (st != CLIK_OK) {
        fprintf(stderr, "clik upscale: %s\n", clik_status_str(st));
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Allocates the frame's outputs (kept from the previous frame of the slot
 * when they fit). */
static int frame_outputs(const upscale_job *job, frame *f, int out_width, int out_height)
{
    clik_status st =
        cli_image_ensure(NULL, &f->dst, out_width, out_height, f->src.channels, CLIK_U8);
    if (!via_rgba(job, f->channels))
        clik_image_free(&f->out); /* a grey frame before may have left one */
    else if (st == CLIK_OK)
        st = cli_image_ensure(NULL, &f->out, out_width, out_height, f->channels, CLIK_U8);
    if (st == CLIK_OK && job->map)
        st = cli_image_ensure(NULL, &f->map, out_width, out_height, 1, CLIK_U8);
    if (st != CLIK_OK) {
        fprintf(stderr, "clik upscale: a %dx%d result: %s\n", out_width, out_height,
                clik_status_str(st));
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Stages the finished frame as output out of set, and its map as output
 * map (map < 0: none). */
static int frame_stage(frame *f, cli_outputs *set, int out, int map)
{
    const clik_image *result = &f->dst;
    if (f->out.data) {
        rgba_collapse(&f->dst, &f->out);
        result = &f->out;
    }
    if (map >= 0 && cli_outputs_stage(set, map, &f->map, 0) != CLI_OK)
        return CLI_FAILED;
    return cli_outputs_stage(set, out, result, f->had_alpha);
}

/* --model's file, read (NULL without --model: the library's own); for the
 * networks the built-in one or --model's network, whose scale must be S. */
static int load_model(const upscale_job *job, clik_context *ctx, clik_lapar_model **model,
                      clik_lapar_net **net)
{
    *model = NULL;
    *net = NULL;
    if (job->net) {
        clik_status st = job->net_name
                             ? clik_lapar_net_builtin(ctx, job->net_name, (int)job->scale, net)
                             : clik_lapar_net_load(ctx, job->model, net);
        if (st != CLIK_OK)
            return cli_error("upscale", ctx, st, job->net_name ? job->net_name : job->model);
        clik_lapar_net_info info;
        clik_lapar_net_describe(*net, &info);
        if (info.scale != (int)job->scale) {
            fprintf(stderr, "clik upscale: %s is a x%d network, not x%g\n", job->model, info.scale,
                    job->scale);
            clik_lapar_net_free(*net);
            *net = NULL;
            return CLI_USAGE;
        }
        return CLI_OK;
    }
    if (!job->lapar || !job->model)
        return CLI_OK;
    clik_status st = clik_lapar_model_load(ctx, job->model, model);
    return st != CLIK_OK ? cli_error("upscale", ctx, st, job->model) : CLI_OK;
}

/* Upscales one image: OUT is output 0 and MAP output 1. */
static int upscale_image(const upscale_job *job)
{
    cli_outputs outs;
    cli_outputs_init(&outs, "upscale");
    /* One output may replace the input, as every one-output command's may.
     * Not with a map: were its rename to fail after OUT's, IN would be gone
     * and the command failed. */
    const char *const inputs[] = {job->map ? job->in : NULL}, *const outputs[] = {job->out,
                                                                                  job->map};
    int rc = cli_outputs_plan(&outs, inputs, 1, outputs, 2);
    clik_image img;
    int had_alpha = 0, width, height;
    frame f = {0};
    if ((rc = cli_outputs_read(&outs, rc, job->in, &img, &had_alpha)) != CLI_OK)
        return rc;
    rc = output_size(job, job->in, img.width, img.height, &width, &height);
    if (rc == CLI_OK)
        rc = frame_take(job, &f, &img, had_alpha);
    else
        clik_image_free(&img);
    if (rc == CLI_OK)
        rc = frame_outputs(job, &f, width, height);
    clik_context *ctx = NULL;
    clik_lapar_model *model = NULL;
    clik_lapar_net *net = NULL;
    if (rc == CLI_OK)
        rc = cli_context(job->device, &ctx);
    if (rc == CLI_OK)
        rc = load_model(job, ctx, &model, &net);
    if (rc == CLI_OK) {
        cli_op_clock clock;
        cli_op_start(ctx, &clock);
        clik_status st =
            job->fusion
                ? clik_upscale_fusion(ctx, &f.src, &f.dst, &job->opt, job->map ? &f.map : NULL)
            : job->lapar ? clik_upscale_lapar(ctx, &f.src, &f.dst, (int)job->scale, model)
            : job->net   ? clik_lapar_net_run(ctx, net, &f.src, &f.dst, NULL)
                         : resize_any(ctx, &f.src, &f.dst, job->method, job->scale);
        rc = cli_op_end("upscale", ctx, &clock, st, job->in);
        if (rc == CLI_OK)
            rc = frame_stage(&f, &outs, 0, job->map ? 1 : -1);
    }
    rc = cli_outputs_finish(&outs, rc);
    clik_lapar_model_free(model);
    clik_lapar_net_free(net);
    clik_context_destroy(ctx);
    frame_free(&f);
    return rc;
}

/* ---- frame sequences ---------------------------------------------------------------- */

typedef struct sequence {
    const upscale_job *job;
    int first, count;  /* frames first .. first + count - 1 */
    int width, height; /* of every input frame */
    int out_w, out_h;  /* of every output frame */
    int written;       /* frames first .. first + written - 1 are staged */
    frame *slots;      /* frame i in slots[i % nslots] */
    int nslots;        /* inflight and the writers' slots */
    int inflight;      /* frames computed at once: depth + 1 for a stream, else 1 */
    clik_context *ctx;
    clik_fusion_stream *stream; /* NULL: the resize methods and lapar, one frame at a time */
    clik_lapar_model *model;    /* lapar's --model, or NULL */
    clik_lapar_net *net;        /* the network of lapar-a, -b, -c, -net */
    cli_outputs outs;           /* frame i is output i, its map output count + i */
    cli_frames *frames;         /* the input frames, read ahead */
    cli_writers *writers;       /* the output frames, written behind */
    /* Without a stream on a GPU (queued): frame i's copy on the device
     * (dsrc[i % 2]) and its result there (ddst[i % 2]), whose copy back to
     * the frame's dst is queued. Elsewhere each frame runs on its host
     * images, which CPU devices take in place. */
    int queued;
    clik_image dsrc[2], ddst[2];
} sequence;

/* Finds the first frame and counts the frames up to the first missing number. */
static int count_frames(const upscale_job *job, sequence *seq)
{
    char name[CLI_NAME_CAP];
    cli_count_frames(job->in, job->start, &seq->first, &seq->count);
    if (seq->count == 0) {
        cli_numbered_path(job->in, seq->first, name, sizeof(name));
        fprintf(stderr, "clik upscale: %s: no such frame%s\n", name,
                job->start < 0 ? " (nor frame 0)" : "");
        return CLI_FAILED;
    }
    /* Every output name must fit too, or a late frame would fail. */
    if (!cli_numbered_path(job->out, seq->first + seq->count - 1, name, sizeof(name)) ||
        (job->map &&
         !cli_numbered_path(job->map, seq->first + seq->count - 1, name, sizeof(name)))) {
        fprintf(stderr, "clik upscale: %s: the output names are too long\n", job->out);
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* Names every input frame, output frame and map of the sequence in its
 * output set and checks them before anything runs: no output may replace
 * an input frame (which may be read after the output is written) or
 * another output. */
static int plan_outputs(const upscale_job *job, sequence *seq)
{
    const char *patterns[3] = {job->in, job->out, job->map};
    char name[CLI_NAME_CAP];
    int rc = CLI_OK;
    cli_outputs_init(&seq->outs, "upscale");
    for (int k = 0; k < (job->map ? 3 : 2) && rc == CLI_OK; k++)
        for (int i = 0; i < seq->count && rc == CLI_OK; i++) {
            cli_numbered_path(patterns[k], seq->first + i, name, sizeof(name));
            rc = k == 0 ? cli_outputs_input(&seq->outs, name) : cli_outputs_add(&seq->outs, name);
        }
    return rc == CLI_OK ? cli_outputs_check(&seq->outs) : rc;
}

/* Reads frame i of the sequence into slot f, checking its size. */
static int read_frame(sequence *seq, int i, frame *f)
{
    char name[CLI_NAME_CAP];
    clik_image img;
    int had_alpha = 0;
    cli_numbered_path(seq->job->in, seq->first + i, name, sizeof(name));
    if (cli_frames_take(seq->frames, "upscale", i, &img, &had_alpha) != CLI_OK)
        return CLI_FAILED;
    if (i == 0) {
        seq->width = img.width;
        seq->height = img.height;
        if (output_size(seq->job, name, img.width, img.height, &seq->out_w, &seq->out_h) !=
            CLI_OK) {
            clik_image_free(&img);
            return CLI_FAILED;
        }
    } else if (img.width != seq->width || img.height != seq->height) {
        fprintf(stderr,
                "clik upscale: %s is %dx%d, the frames before it %dx%d: all frames need "
                "one size\n",
                name, img.width, img.height, seq->width, seq->height);
        clik_image_free(&img);
        return CLI_FAILED;
    }
    if (frame_take(seq->job, f, &img, had_alpha) != CLI_OK)
        return CLI_FAILED;
    return frame_outputs(seq->job, f, seq->out_w, seq->out_h);
}

/* Without a stream: queues frame i's copy to the device (dsrc[i % 2]),
 * which runs beside the kernels of the frame before it. */
static int queue_upload(sequence *seq, int i)
{
    frame *f = &seq->slots[i % seq->nslots];
    clik_image *d = &seq->dsrc[i % 2];
    uint64_t ticket;
    clik_status st =
        cli_image_ensure(seq->ctx, d, f->src.width, f->src.height, f->src.channels, f->src.type);
    if (st == CLIK_OK)
        st = clik_image_upload_async(seq->ctx, d, &f->src, &ticket);
    if (st == CLIK_OK)
        return CLI_OK;
    char name[CLI_NAME_CAP];
    cli_numbered_path(seq->job->in, seq->first + i, name, sizeof(name));
    return cli_error("upscale", seq->ctx, st, name);
}

/* Starts frame i (in its slot): queued in the stream, or run on its copy
 * on the device with the copy of its result back to the slot queued. */
static int submit_frame(sequence *seq, int i)
{
    frame *f = &seq->slots[i % seq->nslots];
    const upscale_job *job = seq->job;
    char name[CLI_NAME_CAP];
    cli_numbered_path(job->in, seq->first + i, name, sizeof(name));
    clik_status st;
    if (seq->stream) {
        st = clik_fusion_stream_submit(seq->stream, &f->src, &f->dst, job->map ? &f->map : NULL,
                                       &f->ticket);
    } else {
        clik_image *src = &f->src, *dst = &f->dst;
        st = CLIK_OK;
        if (seq->queued) {
            src = &seq->dsrc[i % 2];
            dst = &seq->ddst[i % 2];
            st = cli_image_ensure(seq->ctx, dst, f->dst.width, f->dst.height, f->dst.channels,
                                  f->dst.type);
        }
        if (st == CLIK_OK)
            st = job->lapar ? clik_upscale_lapar(seq->ctx, src, dst, (int)job->scale, seq->model)
                 : job->net ? clik_lapar_net_run(seq->ctx, seq->net, src, dst, NULL)
                            : resize_any(seq->ctx, src, dst, job->method, job->scale);
        if (st == CLIK_OK && seq->queued)
            st = clik_image_download_async(seq->ctx, &f->dst, dst, &f->ticket);
    }
    return st != CLIK_OK ? cli_error("upscale", seq->ctx, st, name) : CLI_OK;
}

/* A writer's job: stages frame i from its slot. */
static int write_frame(void *user, int i, int slot)
{
    sequence *seq = user;
    return frame_stage(&seq->slots[slot], &seq->outs, i, seq->job->map ? seq->count + i : -1);
}

/* Waits for the oldest frame not yet handed to the writers and hands it. */
static int finish_frame(sequence *seq)
{
    int i = seq->written;
    frame *f = &seq->slots[i % seq->nslots];
    if (seq->stream || seq->queued) {
        clik_status st = seq->stream ? clik_fusion_stream_wait(seq->stream, f->ticket)
                                     : clik_context_wait(seq->ctx, f->ticket);
        if (st != CLIK_OK) {
            char in[CLI_NAME_CAP];
            cli_numbered_path(seq->job->in, seq->first + i, in, sizeof(in));
            return cli_error("upscale", seq->ctx, st, in);
        }
    }
    cli_writers_queue(seq->writers, i);
    seq->written++;
    cli_progress("clik upscale: %d of %d frames", seq->written, seq->count);
    return CLI_OK;
}

/* Reads frame i + 1 (into a slot the writers are done with) while frames
 * up to i are in flight, and hands frame i + 1 - inflight to the writers
 * once it completes. Queued, frame i + 1 is read and its copy to the
 * device queued before frame i's kernels, beside which it runs. */
static int run_frames(sequence *seq)
{
    const int ahead = seq->queued;
    int rc = ahead ? queue_upload(seq, 0) : CLI_OK;
    for (int i = 0; i < seq->count && rc == CLI_OK; i++) {
        const int next = i + ahead;
        if (next > 0 && next < seq->count) {
            rc = cli_writers_slot(seq->writers, next);
            if (rc == CLI_OK)
                rc = read_frame(seq, next, &seq->slots[next % seq->nslots]);
            if (rc == CLI_OK && ahead)
                rc = queue_upload(seq, next);
        }
        if (rc == CLI_OK)
            rc = submit_frame(seq, i);
        if (rc == CLI_OK && i + 1 >= seq->inflight)
            rc = finish_frame(seq);
    }
    while (rc == CLI_OK && seq->written < seq->count)
        rc = finish_frame(seq);
    return rc;
}

static int upscale_sequence(const upscale_job *job)
{
    sequence seq = {0};
    seq.job = job;
    int rc = count_frames(job, &seq);
    if (rc == CLI_OK)
        rc = plan_outputs(job, &seq);
    /* A stream holds depth + 1 frames; otherwise a frame's result comes
     * back beside the next frame's kernels (queued). */
    seq.inflight = job->fusion ? job->depth + 1 : 2;
    seq.nslots = seq.inflight + cli_writers_slots() - 1;
    if (rc == CLI_OK &&
        (!(seq.slots = calloc((size_t)seq.nslots, sizeof(frame))) ||
         !(seq.writers = cli_writers_start(seq.count, seq.nslots, write_frame, &seq)))) {
        fprintf(stderr, "clik upscale: out of memory\n");
        rc = CLI_FAILED;
    }
    if (rc != CLI_OK) {
        free(seq.slots);
        cli_outputs_free(&seq.outs);
        return rc;
    }
    double t0 = cli_seconds();
    if (!(seq.frames = cli_frames_start(job->in, seq.first, seq.count))) {
        fprintf(stderr, "clik upscale: out of memory\n");
        rc = CLI_FAILED;
    }
    if (rc == CLI_OK)
        rc = read_frame(&seq, 0, &seq.slots[0]);
    if (rc == CLI_OK)
        rc = cli_context(job->device, &seq.ctx);
    if (rc == CLI_OK)
        rc = load_model(job, seq.ctx, &seq.model, &seq.net);
    if (rc == CLI_OK && job->fusion) {
        clik_status st = clik_fusion_stream_create(seq.ctx, seq.width, seq.height, (int)job->scale,
                                                   &job->opt, job->depth, &seq.stream);
        if (st != CLIK_OK)
            rc = cli_error("upscale", seq.ctx, st, "cannot start the frame stream");
    }
    if (rc == CLI_OK && !seq.stream) {
        const clik_device_info *dev = clik_context_device(seq.ctx);
        seq.queued = dev && dev->type != CLIK_DEVICE_CPU;
    }
    if (rc == CLI_OK) {
        cli_op_clock clock;
        cli_op_start(seq.ctx, &clock);
        rc = run_frames(&seq);
        cli_op_done("upscale", seq.ctx, &clock, job->in);
    }
    /* The stream waits for the frames in flight before their buffers go,
     * the context for the queued copies. */
    clik_fusion_stream_destroy(seq.stream);
    if (seq.ctx)
        clik_context_finish(seq.ctx);
    const double frames_s = cli_frames_wait_s(seq.frames);
    cli_frames_stop(seq.frames);
    double writer_s = 0;
    const int wrc = cli_writers_finish(seq.writers, &writer_s);
    if (rc == CLI_OK)
        rc = wrc;
    cli_progress_done();
    /* Every frame is staged: put them all in place, or on a failure none. */
    rc = cli_outputs_finish(&seq.outs, rc);
    double seconds = cli_seconds() - t0;
    if (rc == CLI_OK) {
        fprintf(stderr,
                "clik upscale: %d frames, %dx%d to %dx%d, in %.3f s: %.2f frames/s (waits a "
                "frame: %.1f ms for its file, %.1f ms for the writers)\n",
                seq.count, seq.width, seq.height, seq.out_w, seq.out_h, seconds,
                seconds > 0 ? seq.count / seconds : 0.0, 1e3 * frames_s / seq.count,
                1e3 * writer_s / seq.count);
    }
    for (int i = 0; i < seq.nslots; i++)
        frame_free(&seq.slots[i]);
    cli_images_free(&seq.dsrc[0], &seq.dsrc[1], &seq.ddst[0], &seq.ddst[1], NULL);
    free(seq.slots);
    clik_lapar_model_free(seq.model);
    clik_lapar_net_free(seq.net);
    clik_context_destroy(seq.ctx);
    return rc;
}

int cmd_upscale(int argc, char **argv)
{
    upscale_job job;
    int rc = parse_job(argc, argv, &job);
    if (rc != CLI_OK)
        return rc;
    return job.sequence ? upscale_sequence(&job) : upscale_image(&job);
}
