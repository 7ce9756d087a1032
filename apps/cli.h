/* Shared pieces of the clik subcommands. SPDX-License-Identifier: BSD-2-Clause */
#ifndef CLIK_CLI_H
#define CLIK_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "clik.h"

/* Exit statuses of every subcommand, and CLI_HELP: --help was answered, so
 * the command has nothing more to do and the tool exits with CLI_OK. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2, CLI_HELP = 3 };

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
    const char *api; /* the library functions it calls (clik help VERB), or NULL */
} cli_command;

/* Subcommands, one per family file. */
int cmd_devices(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_equalize(int argc, char **argv);
int cmd_clahe(int argc, char **argv);
int cmd_lut(int argc, char **argv);
int cmd_conformance(int argc, char **argv);
int cmd_pyramid(int argc, char **argv);
int cmd_pyrup(int argc, char **argv);
int cmd_laplacian(int argc, char **argv);
int cmd_integral(int argc, char **argv);
int cmd_resize(int argc, char **argv);
int cmd_blur(int argc, char **argv);
int cmd_ssim(int argc, char **argv);
int cmd_upscale(int argc, char **argv);
int cmd_flow(int argc, char **argv);
int cmd_flowviz(int argc, char **argv);
int cmd_warp(int argc, char **argv);
int cmd_flowcmp(int argc, char **argv);
int cmd_lapar(int argc, char **argv);
int cmd_lapar_net(int argc, char **argv);
int cmd_lapar_compress(int argc, char **argv);
int cmd_lapar_train(int argc, char **argv);

int cmd_tune(int argc, char **argv);
int cmd_tune_any(int argc, char **argv);
int cmd_warmup(int argc, char **argv);
int cmd_yuv(int argc, char **argv);

/* Pieces the resampling commands share (resize.c, filter.c). */
int resize_parse_method(const char *text, clik_interp *method);
int resize_parse_scale(const char *cmd, const char *text, double *scale);
clik_status rgba_expand(const clik_image *src, clik_image *rgba);
void rgba_collapse(const clik_image *rgba, clik_image *dst);
int rgba_collapse_new(const char *cmd, const clik_image *rgba, clik_image *grey, const char *path);
clik_status resize_any(clik_context *ctx, const clik_image *src, clik_image *dst,
                       clik_interp method, double scale);
int blur_parse_ksize(const char *cmd, const char *option, const char *text, int *ksize);

/* Parsed command line: options with values, flags, and positional args. */
typedef struct cli_args {
    const char *device;
    const char *positional[200]; /* lapar-compress: 64 triples and its output */
    int npositional;
} cli_args;

/* One option of a subcommand: "--name" with a value (value != NULL) or a
 * flag (flag != NULL). */
typedef struct cli_option {
    const char *name;
    const char **value;
    int *flag;
} cli_option;

/* Parses argv; --help (which prints the usage and returns CLI_HELP) and the
 * global options (cli_global_option) are always known, anywhere. Options
 * with a value take it as the next argument or after '=' (--scale 2,
 * --scale=2); a flag given a value is refused. Prints the
 * problem and returns CLI_USAGE on unknown options, missing values, or a
 * count of positional arguments outside [min_pos, max_pos]. args->device is
 * the last --device given, before the command or after it (NULL: none). */
int cli_parse(int argc, char **argv, const cli_option *options, int min_pos, int max_pos,
              cli_args *args, const char *usage);

/* The options of every command, given before the command's name or among its
 * arguments: --device SPEC, --png-level N (0..9, set at once for every PNG
 * written), -v/--verbose. When argv[*i] is one of them, takes it (and *i
 * moves past its value) and returns CLI_OK, or prints "WHO: the problem"
 * and usage and returns CLI_USAGE for a missing or bad value; else returns
 * -1 and changes nothing. */
int cli_global_option(int argc, char **argv, int *i, const char *who, const char *usage);
/* 1 when arg is an option (a global one or one of options) whose value is
 * the next argument rather than after an '='. */
int cli_option_takes_value(const cli_option *options, const char *arg);
/* What the global options are, for the help of the tool and of each command. */
extern const char cli_global_help[];

/* Creates a context on --device (NULL: $CLIK_DEVICE, else auto); prints
 * the reason and returns CLI_FAILED on failure, listing the devices there
 * are when the selection matched none. */
int cli_context(const char *device, clik_context **ctx);

/* After a device selection that failed with st: for CLIK_ERR_NO_DEVICE,
 * prints the devices there are, as `clik devices` names them, and points
 * to that command. */
void cli_device_not_found(clik_status st);

/* One line of `clik devices` naming a device: "  P:D  NAME  [TYPE]". */
void cli_print_device(FILE *out, const clik_device_info *d);

/* What an operation is measured from: cli_op_start() just before it, and
 * cli_op_done() just after, whether it succeeded or not. With -v,
 * cli_op_done() prints "clik CMD: WHAT: " the backend that ran, the device,
 * the kernel programs compiled, loaded and reused, and the time taken; with
 * stderr on a terminal and no -v, a note the first time a command's
 * operation compiled kernels (which takes seconds on some devices). */
typedef struct cli_op_clock {
    double start;
    clik_context_stats stats;
} cli_op_clock;
void cli_op_start(clik_context *ctx, cli_op_clock *clock);
void cli_op_done(const char *cmd, clik_context *ctx, const cli_op_clock *clock, const char *what);

/* Prints "clik NAME: what: STATUS_NAME: detail" to stderr; returns CLI_FAILED. */
int cli_error(const char *cmd, clik_context *ctx, clik_status st, const char *what);
/* The end of an operation that returned st: cli_op_done(), then for a
 * failure cli_error() against what. Returns CLI_OK or CLI_FAILED. */
int cli_op_end(const char *cmd, clik_context *ctx, const cli_op_clock *clock, clik_status st,
               const char *what);

/* Progress on a terminal only: a line rewritten in place on stderr. */
void cli_progress(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void cli_progress_done(void);

/* Reads an image file of 8-bit pixels (PNG, JPEG, PGM/PPM) into img; prints
 * the reason and returns CLI_FAILED otherwise. had_alpha may be NULL. */
int cli_read_u8(const char *cmd, const char *path, clik_image *img, int *had_alpha);

/* Writes img by the extension of path (atomically, so path may be the file
 * img came from); prints the reason and returns CLI_FAILED on failure.
 * For a command's one output: more than one goes through cli_outputs. */
int cli_write_image(const char *cmd, const char *path, const clik_image *img, int keep_alpha);

/* The files one command reads and writes, for commands that write more than
 * one file. Every output is checked against every input and every other
 * output, and that it can replace what its name holds, before anything
 * runs; written under a temporary name as it is ready, and put in place only
 * when all of them are (clikio_commit_all()): a failure leaves neither new
 * outputs nor temporaries, and every file that was there before the command
 * as it was. */
typedef struct cli_outputs {
    const char *cmd;
    struct cli_file *inputs, *outputs;
    int ninputs, noutputs;
    int input_cap, output_cap;
} cli_outputs;

void cli_outputs_init(cli_outputs *set, const char *cmd);
/* Names a file the command reads. Adding it is what forbids writing it: a
 * command that may write its one output over its input leaves it out. */
int cli_outputs_input(cli_outputs *set, const char *path);
/* Names a file the command writes; outputs are numbered from 0 in the order
 * added. The two return CLI_FAILED (with a message) when out of memory. */
int cli_outputs_add(cli_outputs *set, const char *path);
/* Refuses (CLI_USAGE) an output that is the same file as an input or as
 * another output, and (CLI_FAILED) one that is a folder or a file this user
 * may not replace (clikio_check_replaceable()), with a message. */
int cli_outputs_check(const cli_outputs *set);
/* Writes output `index` under its temporary name; prints the reason and
 * returns CLI_FAILED on failure. */
int cli_outputs_stage(cli_outputs *set, int index, const clik_image *img, int keep_alpha);
/* Writes output `index` as the bytes given (a model file), as
 * cli_outputs_stage() writes an image. */
int cli_outputs_stage_bytes(cli_outputs *set, int index, const void *data, size_t size);
/* Puts every output (all staged) in place, or none; prints the reason and
 * returns CLI_FAILED on failure, every name then holding what it held
 * before. */
int cli_outputs_commit(cli_outputs *set);
/* Removes the temporaries not committed and frees the set. */
void cli_outputs_free(cli_outputs *set);
/* The end of a command's outputs: when rc is CLI_OK, commits them
 * (cli_outputs_commit()); then frees the set. Returns rc, or the commit's
 * failure. */
int cli_outputs_finish(cli_outputs *set, int rc);
/* Makes img an image of this shape, keeping it when it already is one:
 * in host memory (ctx NULL, clik_image_alloc()) or on ctx's device
 * (clik_image_create()). */
clik_status cli_image_ensure(clik_context *ctx, clik_image *img, int width, int height,
                             int channels, clik_type type);
/* Frees each image listed (clik_image_free()), up to the NULL that ends the
 * list. */
void cli_images_free(clik_image *img, ...)
#if defined(__GNUC__)
    __attribute__((sentinel))
#endif
    ;

/* The end of a command that writes through set: cli_outputs_finish(set,
 * rc), then destroys ctx (may be NULL) and frees each image listed, as
 * cli_images_free() does. Returns rc, or the commit's failure. */
int cli_finish(cli_outputs *set, int rc, clik_context *ctx, ...)
#if defined(__GNUC__)
    __attribute__((sentinel))
#endif
    ;

/* Names every input, then every output, of set (NULL entries are skipped, so
 * that optional files keep the numbering of the outputs given) and checks
 * them as cli_outputs_check() does; the first failure is returned. */
int cli_outputs_plan(cli_outputs *set, const char *const *inputs, int ninputs,
                     const char *const *outputs, int noutputs);

/* Reads the image at path, the one the command works on, once set is
 * planned (rc: how planning went): on any failure set is freed and the
 * failure returned. */
int cli_outputs_read(cli_outputs *set, int rc, const char *path, clik_image *img, int *had_alpha);

/* The one channel that SSIM and optical flow compare, into luma (allocated
 * here): the grey of grey + alpha, the luma of colour (BT.601, as clik_gray);
 * for a grey img, a copy. */
clik_status cli_luma(clik_context *ctx, const clik_image *img, clik_image *luma);

/* The LAPAR network of --net NAME (built in) or --model FILE for a scale
 * (lapar.c, lapar_net.c): CLI_OK, or the status with a message naming clik CMD
 * (a network of another scale: CLI_USAGE). */
int cli_load_net(clik_context *ctx, const char *cmd, const char *name, const char *model, int scale,
                 clik_lapar_net **net);

/* ---- commands of one image in and (at most) one image out ---------------------------- */

/* The files and images of such a command, as the steps below see them. */
typedef struct cli_image_io {
    const char *cmd; /* the command's name, argv[0] (as cli_parse() takes it) */
    const char *device;
    const char *in_path, *out_path; /* the positional arguments; out_path NULL: none */
    clik_image img;                 /* IN as read: u8, or f32 (see takes_f32) */
    clik_image out;                 /* the result when allocated by prepare, else img */
    int had_alpha;
    int wide;   /* IN had 16-bit samples: img is f32 (a sample / 257), OUT written 16-bit */
    void *data; /* the command's own: its option values, and what it works out */
} cli_image_io;

typedef struct cli_image_op {
    const char *usage;
    int npositional; /* IN, or IN OUT */
    /* After parsing, before IN is read: checks the option values (NULL: none). */
    int (*check)(cli_image_io *io);
    /* After IN is read, before the device is opened: sizes or loads what the
     * operation needs, printing the problem on failure (NULL: none). */
    int (*prepare)(cli_image_io *io);
    /* The operation; its failure is reported against IN. Either run, or
     * (run NULL) a library function from the image read to the result. */
    clik_status (*run)(clik_context *ctx, cli_image_io *io);
    clik_status (*apply)(clik_context *ctx, const clik_image *src, clik_image *dst);
    /* 1: the operation takes f32 too: a 16-bit IN (PNG, PGM/PPM) is read as
     * f32 on the 0..255 scale (a sample / 257) and OUT written 16-bit (a .npy
     * as f32); an f32 .npy is taken as it is. 0: IN must be 8-bit. */
    int takes_f32;
} cli_image_op;

/* The whole command, named by argv[0] in its messages as in cli_parse()'s:
 * parses argv with options (--help and --device too), checks, reads IN,
 * prepares, opens the device, runs and writes the result to OUT (keeping
 * alpha as IN had it). data is the command's own, and what the options
 * point into. Returns the exit status. */
int cli_image_main(const cli_image_op *op, int argc, char **argv, const cli_option *options,
                   void *data);

/* ---- numbered frame sequences ---------------------------------------------------------- */

/* The room for a file name made from a pattern. */
#define CLI_NAME_CAP 4096

/* 1 when name (may be NULL) is a pattern that cli_numbered_path() takes. */
int cli_is_pattern(const char *name);

/* Finds the first frame of pattern (start, or with start < 0 frame 0 if it
 * exists, else 1) and counts the frames up to the first missing number. */
void cli_count_frames(const char *pattern, int start, int *first, int *count);

/* Monotonic seconds, for timing a run. */
double cli_seconds(void);

/* A numbered file name: pattern holds exactly one %d, %Nd or %0Nd (N < 10);
 * "%%" is a literal percent sign. Writes the name of file `index` into out
 * and returns 1, or returns 0 for a malformed pattern or a name that does
 * not fit in cap bytes. */
int cli_numbered_path(const char *pattern, int index, char *out, size_t cap);

/* Frames first .. first + count - 1 of pattern (which must outlive it),
 * read ahead in order on threads of the host (one fewer than the
 * processors, 1 to 4; none, and each frame read when taken, when no thread
 * starts): a few frames in memory at a time. NULL: out of memory. */
typedef struct cli_frames cli_frames;
cli_frames *cli_frames_start(const char *pattern, int first, int count);
/* Frame i (0 for the first), each taken once and in order: an 8-bit image
 * that the caller frees, and whether its file had alpha (had_alpha may be
 * NULL). Prints the reason, after "clik CMD: ", when it cannot be read. */
int cli_frames_take(cli_frames *r, const char *cmd, int i, clik_image *img, int *had_alpha);
/* Seconds spent in cli_frames_take: the time the caller waited for frames. */
double cli_frames_wait_s(const cli_frames *r);
/* Stops the readers and frees what they read ahead; NULL is allowed. */
void cli_frames_stop(cli_frames *r);

/* Results written behind on threads of the host (one fewer than the
 * processors, 1 to 4; none, and each item written when handed over, when
 * no thread starts): item i is written from slot i % slots by fn(user, i,
 * slot), which prints why it fails; items are taken in order, written
 * several at a time. */
typedef struct cli_writers cli_writers;
typedef int (*cli_write_fn)(void *user, int item, int slot);
/* The slots that keep every writer busy: the writers and 2 more, at most
 * CLI_MAX_SLOTS. */
#define CLI_MAX_SLOTS 6
int cli_writers_slots(void);
/* Writers for items 0 .. items - 1 in `slots` slots. NULL: out of memory. */
cli_writers *cli_writers_start(int items, int slots, cli_write_fn fn, void *user);
/* Waits until item i's slot is free (its item before is written); returns
 * CLI_OK, or the first failure of a writer (then stop). */
int cli_writers_slot(cli_writers *w, int i);
/* Hands item i (its slot filled) to the writers. */
void cli_writers_queue(cli_writers *w, int i);
/* Lets the writers finish the items handed over, frees them and returns the
 * first failure; *wait_s (may be NULL): the seconds the caller waited in
 * cli_writers_slot and here. */
int cli_writers_finish(cli_writers *w, double *wait_s);

/* Parses "WxH"; returns 1 on success. */
int cli_parse_size(const char *text, int *width, int *height);
/* A whole argument read as a finite number; returns 1 on success. */
int cli_parse_number(const char *text, double *value);
/* A whole argument read as an integer in lo..hi; returns 1 on success. */
int cli_parse_count(const char *text, long lo, long hi, int *value);
/* The value of option OPTION, one of the n names: CLI_OK and *index its
 * place, or CLI_USAGE after "clik CMD: OPTION TEXT: expected A, B or C". */
int cli_parse_choice(const char *cmd, const char *option, const char *text,
                     const char *const *names, int n, int *index);

#endif
