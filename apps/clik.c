/* The clik command-line tool: one subcommand per operation family. SPDX-License-Identifier:
 * BSD-2-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_command commands[] = {
    {"devices", "list OpenCL platforms and devices, and which one is used", cmd_devices,
     "clik_devices_list"},
    {"hist", "print the 256-bin histogram of each channel of an image", cmd_hist,
     "clik_hist_compute"},
    {"equalize", "histogram equalization (OpenCV equalizeHist semantics), or of the luma",
     cmd_equalize, "clik_hist_equalize, clik_hist_equalize_luma"},
    {"clahe", "contrast-limited adaptive equalization (OpenCV createCLAHE)", cmd_clahe,
     "clik_clahe"},
    {"lut", "map pixels through a 256-entry table", cmd_lut, "clik_hist_lut"},
    {"pyramid", "Gaussian pyramid levels (OpenCV pyrDown semantics)", cmd_pyramid,
     "clik_pyr_gaussian"},
    {"pyrup", "upsample by 2 (OpenCV pyrUp semantics)", cmd_pyrup, "clik_pyr_up"},
    {"laplacian", "Laplacian pyramid bands, checked to collapse back to the input", cmd_laplacian,
     "clik_pyr_laplacian, clik_pyr_collapse"},
    {"integral", "integral image (OpenCV layout) as NumPy .npy", cmd_integral, "clik_integral"},
    {"resize", "resample by a scale or to a size (nearest, bilinear, bicubic)", cmd_resize,
     "clik_resize_scaled, clik_resize"},
    {"blur", "Gaussian blur (OpenCV GaussianBlur, reflect-101 borders)", cmd_blur,
     "clik_gaussian_blur"},
    {"ssim", "mean SSIM of two images (scikit-image semantics), and its map", cmd_ssim,
     "clik_ssim"},
    {"upscale", "fusion or LAPAR-model upscaler, or resampling; frame sequences streamed",
     cmd_upscale,
     "clik_upscale_lapar, clik_upscale_fusion, clik_fusion_stream_*, clik_resize_scaled, "
     "clik_lapar_net_run"},
    {"flow", "TV-L1 optical flow between two images, or along a frame sequence", cmd_flow,
     "clik_flow_tvl1"},
    {"warp", "move an image back along a flow (cv2.remap), or average it with a frame", cmd_warp,
     "clik_flow_warp, clik_flow_warp_average"},
    {"flowviz", "draw a flow with the Middlebury colour wheel", cmd_flowviz, NULL},
    {"flowcmp", "end-point and angular error of one flow against another", cmd_flowcmp, NULL},
    {"lapar", "LAPAR super-resolution filtering of an image by its coefficients", cmd_lapar,
     "clik_lapar_filter"},
    {"lapar-net", "the coefficients of a LAPAR network for an image (and its upscale)",
     cmd_lapar_net, "clik_lapar_net_run_with"},
    {"lapar-compress", "keep a fraction of the LAPAR dictionary, fitted on calibration images",
     cmd_lapar_compress, "clik_lapar_compress"},
    {"lapar-train", "train the LAPAR coefficient model of upscale --method lapar", cmd_lapar_train,
     "clik_lapar_trainer_*"},
    {"tune", "search and store the fastest LAPAR filter or network kernel shape on a device",
     cmd_tune_any, "clik_lapar_tune, clik_lapar_net_tune"},
    {"yuv", "YUV 4:2:0 camera frames (NV21, NV12, I420) to RGB and back", cmd_yuv,
     "clik_yuv_to_rgb, clik_rgb_to_yuv"},
    {"warmup", "compile the OpenCL programs of operations ahead of time, into the kernel cache",
     cmd_warmup, "clik_context_prepare"},
    {"conformance", "run every operation on every device against the scalar oracle",
     cmd_conformance, NULL},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: clik [OPTIONS] COMMAND [ARGS] [OPTIONS]\n"
                 "       clik help COMMAND    (the same as clik COMMAND --help)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-14s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n%s  -h, --help       this list, or after a command its help\n"
            "  --version        the version\nclik %s\n",
            cli_global_help, clik_version());
}

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "clik: unknown command '%s'\n\n", name);
    usage(stderr);
    return CLI_USAGE;
}

/* clik help [COMMAND]: the tool's help, or the command's (its --help). */
static int help(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return CLI_OK;
    }
    const cli_command *c = find_command(argv[1]);
    if (!c)
        return unknown_command(argv[1]);
    if (argc > 2) {
        fprintf(stderr, "clik help: unexpected argument %s\nusage: clik help [COMMAND]\n", argv[2]);
        return CLI_USAGE;
    }
    if (c->api)
        printf("clik %s calls %s\n\n", c->name, c->api);
    static char help_flag[] = "--help";
    char *args[] = {argv[1], help_flag, NULL};
    return c->run(2, args);
}

static int run(int argc, char **argv)
{
    /* The global options may come before the command. */
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return CLI_OK;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("clik %s\n", clik_version());
            return CLI_OK;
        }
        int rc = cli_global_option(argc, argv, &i, "clik", "(clik --help lists the options)\n");
        if (rc == -1) {
            fprintf(stderr, "clik: unknown option %s before the command\n\n", argv[i]);
            usage(stderr);
            return CLI_USAGE;
        }
        if (rc != CLI_OK)
            return rc;
    }
    if (i >= argc) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[i], "help") == 0)
        return help(argc - i, argv + i);
    const cli_command *c = find_command(argv[i]);
    return c ? c->run(argc - i, argv + i) : unknown_command(argv[i]);
}

/* Standard output is buffered, so a full disk or a closed descriptor shows
 * only here, after the command: a result that did not reach its reader is a
 * failure, whatever the command returned. Every command prints its results
 * through stdout for this check to see them. */
static int finish_stdout(int rc)
{
    errno = 0;
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    /* A closed stdout (">&-") that nothing was written to is no failure:
     * only fclose() notices it, with EBADF. */
    if (fclose(stdout) != 0 && !failed && errno != EBADF) {
        failed = 1;
        e = errno;
    }
    if (!failed)
        return rc;
    fprintf(stderr, "clik: cannot write to standard output: %s\n", e ? strerror(e) : "write error");
    return rc != CLI_OK ? rc : CLI_FAILED;
}

int main(int argc, char **argv)
{
    const int rc = run(argc, argv);
    return finish_stdout(rc == CLI_HELP ? CLI_OK : rc);
}
