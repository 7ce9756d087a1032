/* The clik command-line tool: one subcommand per operation family. SPDX-License-Identifier:
 * BSD-2-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_command commands[] = {
    {"devices", "list OpenCL platforms and devices, and which one is used", cmd_devices},
    {"hist", "print the 256-bin histogram of each channel of an image", cmd_hist},
    {"equalize", "histogram equalization (OpenCV equalizeHist semantics)", cmd_equalize},
    {"lut", "map pixels through a 256-entry table", cmd_lut},
    {"pyramid", "Gaussian pyramid levels (OpenCV pyrDown semantics)", cmd_pyramid},
    {"pyrup", "upsample by 2 (OpenCV pyrUp semantics)", cmd_pyrup},
    {"laplacian", "Laplacian pyramid bands, checked to collapse back to the input", cmd_laplacian},
    {"integral", "integral image (OpenCV layout) as NumPy .npy", cmd_integral},
    {"resize", "resample by a scale or to a size (nearest, bilinear, bicubic)", cmd_resize},
    {"blur", "Gaussian blur (OpenCV GaussianBlur, reflect-101 borders)", cmd_blur},
    {"ssim", "mean SSIM of two images (scikit-image semantics), and its map", cmd_ssim},
    {"upscale", "fusion or LAPAR-model upscaler, or resampling; frame sequences streamed",
     cmd_upscale},
    {"flow", "TV-L1 optical flow between two images, or along a frame sequence", cmd_flow},
    {"flowviz", "draw a flow with the Middlebury colour wheel", cmd_flowviz},
    {"flowcmp", "end-point and angular error of one flow against another", cmd_flowcmp},
    {"lapar", "LAPAR super-resolution filtering of an image by its coefficients", cmd_lapar},
    {"lapar-compress", "keep a fraction of the LAPAR dictionary, fitted on calibration images",
     cmd_lapar_compress},
    {"lapar-train", "train the LAPAR coefficient model of upscale --method lapar", cmd_lapar_train},
    {"tune", "search and store the fastest LAPAR kernel shape on a device", cmd_tune},
    {"conformance", "run every operation on every device against the scalar oracle",
     cmd_conformance},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: clik COMMAND [ARGS] [--device SPEC] [--help]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\nSPEC: auto (default), gpu, cpu, none, P:D (platform:device), or part of a\n"
            "platform or device name such as pocl or nvidia. clik %s\n",
            clik_version());
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("clik %s\n", clik_version());
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "clik: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
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
    return finish_stdout(run(argc, argv));
}
