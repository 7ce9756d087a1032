/*
 * clik-bench's report: the table rows, the JSON lines and the header, from
 * the driver's results (bench.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_main.h"

void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

void json_number(double v, int valid)
{
    if (valid && v == v && v < 1e300 && v > -1e300)
        printf("%.6g", v);
    else
        printf("null");
}

typedef struct derived {
    double ns_per_pixel, gbps, copy_ratio;
    double fps, fps_kernel; /* frames per second, end to end and kernels only */
    int have_gbps;
    const char *basis;
} derived;

static derived derive(const result *r, double copy_gbps)
{
    derived d;
    d.ns_per_pixel = r->e2e_ms * 1e6 / ((double)r->width * (double)r->height);
    double ms = r->kernel_ms >= 0.0 ? r->kernel_ms : r->e2e_ms;
    d.basis = r->kernel_ms >= 0.0 ? "kernel" : "end_to_end";
    d.have_gbps = ms > 0.0;
    d.gbps = d.have_gbps ? r->bytes / (ms * 1e6) : 0.0;
    d.copy_ratio = d.have_gbps && copy_gbps > 0.0 ? d.gbps / copy_gbps : 0.0;
    d.fps = r->e2e_ms > 0.0 ? 1e3 / r->e2e_ms : 0.0;
    d.fps_kernel = r->kernel_ms > 0.0 ? 1e3 / r->kernel_ms : 0.0;
    return d;
}

/* One kernel of --kernels: launches and milliseconds per timed call, and
 * the GB/s of its byte model (0: none). */
static void kernel_figures(const options *o, const kernel_time *k, double *launches, double *ms,
                           double *gbps)
{
    *launches = (double)k->launches / o->reps;
    *ms = k->ms / o->reps;
    *gbps = k->bytes > 0.0 && k->ms > 0.0 ? k->bytes * (double)k->launches / (k->ms * 1e6) : 0.0;
}

void print_json(const options *o, clik_context *ctx, const result *r, double copy_gbps,
                double copy_same_gbps)
{
    const clik_device_info *dev = clik_context_device(ctx);
    derived d = derive(r, copy_gbps);
    const unsigned flags = r->op->flags;
    printf("{\"op\":");
    json_string(r->op->name);
    printf(",\"size\":\"%dx%d\",\"width\":%d,\"height\":%d,\"channels\":%d", r->width, r->height,
           r->width, r->height, o->channels);
    if (flags & BENCH_USES_SCALE) {
        printf(",\"scale\":");
        json_number(o->scale, 1);
        printf(",\"out_width\":%d,\"out_height\":%d", r->out_width, r->out_height);
    }
    printf(",\"device\":");
    json_string(dev ? dev->name : "cpu");
    printf(",\"device_type\":\"%s\",\"platform\":", bench_device_type_name(dev));
    json_string(dev ? dev->platform_name : "");
    printf(",\"backend\":\"%s\",\"resident\":%s,\"reps\":%d,\"warmup\":%d",
           clik_backend_name(r->backend), r->resident ? "true" : "false", o->reps, o->warmup);
    printf(",\"host_alloc\":\"%s\"", o->host_context ? "context" : "malloc");
    if (flags & BENCH_STREAM)
        printf(",\"frames_per_run\":%d,\"depth\":%d", r->frames, o->depth);
    printf(",\"kernel_ms\":");
    json_number(r->kernel_ms, r->kernel_ms >= 0.0);
    printf(",\"end_to_end_ms\":");
    json_number(r->e2e_ms, 1);
    printf(",\"end_to_end_min_ms\":");
    json_number(r->e2e_min_ms, 1);
    printf(",\"end_to_end_profiled_ms\":");
    json_number(r->e2e_profiled_ms, r->e2e_profiled_ms >= 0.0);
    /* On a CPU device or the CPU path, the work in CPU time: what a busy
     * shared machine does not take away. */
    printf(",\"cpu_ms\":");
    json_number(r->cpu_ms, 1);
    if (flags & BENCH_FRAMES) {
        printf(",\"fps_end_to_end\":");
        json_number(d.fps, d.fps > 0.0);
        printf(",\"fps_kernel\":");
        json_number(d.fps_kernel, d.fps_kernel > 0.0);
    }
    printf(",\"ns_per_pixel\":");
    json_number(d.ns_per_pixel, 1);
    printf(",\"bytes\":%.0f,\"gbps\":", r->bytes);
    json_number(d.gbps, d.have_gbps);
    printf(",\"gbps_basis\":\"%s\",\"copy_gbps\":", d.basis);
    json_number(copy_gbps, copy_gbps > 0.0);
    printf(",\"copy_ratio\":");
    json_number(d.copy_ratio, d.have_gbps && copy_gbps > 0.0);
    printf(",\"fma_gflops\":");
    json_number(fma_gflops, fma_gflops > 0.0);
    /* The copy of one image's bytes: what a kernel of this size can reach. */
    printf(",\"copy_same_size_gbps\":");
    json_number(copy_same_gbps, copy_same_gbps > 0.0);
    /* Pinned transfers of the run, and the op's host images at that rate. */
    printf(",\"h2d_gbps\":");
    json_number(h2d_gbps, h2d_gbps > 0.0);
    printf(",\"d2h_gbps\":");
    json_number(d2h_gbps, d2h_gbps > 0.0);
    const double xms = transfer_ms(r);
    printf(",\"transfer_bytes_in\":%.0f,\"transfer_bytes_out\":%.0f,\"transfer_ms\":",
           r->resident ? 0.0 : r->xfer_in, r->resident ? 0.0 : r->xfer_out);
    json_number(xms, xms >= 0.0);
    if (r->has_value) {
        printf(",\"value\":");
        json_number(r->value, 1);
    }
    if (r->detail[0]) {
        printf(",\"check\":");
        json_string(r->detail);
    }
    if (o->kernels) {
        printf(",\"kernels\":[");
        for (int i = 0; i < r->kernels.n; i++) {
            double launches, ms, gbps;
            kernel_figures(o, &r->kernels.k[i], &launches, &ms, &gbps);
            printf("%s{\"name\":", i ? "," : "");
            json_string(r->kernels.k[i].name);
            printf(",\"launches\":");
            json_number(launches, 1);
            printf(",\"ms\":");
            json_number(ms, 1);
            printf(",\"gbps\":");
            json_number(gbps, gbps > 0.0);
            printf(",\"copy_ratio\":");
            json_number(gbps / copy_gbps, gbps > 0.0 && copy_gbps > 0.0);
            const double gflops =
                r->kernels.k[i].flops > 0.0 && ms > 0.0 ? r->kernels.k[i].flops / (ms * 1e6) : 0.0;
            printf(",\"gflops\":");
            json_number(gflops, gflops > 0.0);
            printf(",\"fma_peak_ratio\":");
            json_number(gflops / fma_gflops, gflops > 0.0 && fma_gflops > 0.0);
            printf("}");
        }
        printf("]");
    }
    printf("}\n");
    fflush(stdout);
}

void print_header(const options *o, clik_context *ctx, double copy_gbps)
{
    const clik_device_info *dev = clik_context_device(ctx);
    if (dev)
        printf("device   %s (%s, %s, %u compute units)\n", dev->name, dev->platform_name,
               bench_device_type_name(dev), dev->compute_units);
    else
        printf("device   none: the CPU path (%s)\n",
               clik_backend_name(clik_context_cpu_backend(ctx)));
    printf("copy     %.2f GB/s (%s, read + write)\n", copy_gbps,
           dev ? "device buffer copy" : "host memcpy");
    printf("transfer %.2f GB/s host to device, %.2f GB/s device to host (%s)\n", h2d_gbps, d2h_gbps,
           dev ? "pinned host memory" : "host memcpy");
    if (fma_gflops > 0.0)
        printf("fma      %.1f GFLOP/s FP32 (%s)\n", fma_gflops,
               dev ? "fused multiply-add chains on every compute unit" : "one host thread");
    if (!o->resident)
        printf("host     %s\n", o->host_context ? "clik_image_alloc_on (zero-copy or pinned)"
                                                : "clik_image_alloc (malloc)");
    printf("images   %d channel(s), %s; median of %d runs after %d warm-up\n", o->channels,
           o->resident ? "resident on the device (call + finish)"
                       : "on the host (host-to-host, transfers included)",
           o->reps, o->warmup);
    if (o->flags & BENCH_USES_SCALE)
        printf("scale    %g (fusion and LAPAR ops; size is the input's)\n", o->scale);
    if (o->flags & BENCH_STREAM)
        printf("stream   %d frames per timed run, %d in flight, host frames; times per frame\n",
               o->frames, o->depth);
    printf("\n%-18s %-11s %-8s %10s %10s %8s %8s %7s %8s %8s", "op", "size", "backend", "e2e ms",
           "kernel ms", "ns/px", "GB/s", "copy%", "xfer MB", "xfer ms");
    if (o->flags & BENCH_FRAMES)
        printf(" %9s %9s", "fps e2e", "fps kern");
    printf("\n");
    fflush(stdout);
}

static void print_kernel_rows(const options *o, const result *r, double copy_gbps)
{
    for (int i = 0; i < r->kernels.n; i++) {
        double launches, ms, gbps;
        kernel_figures(o, &r->kernels.k[i], &launches, &ms, &gbps);
        printf("  kernel %-24s %7.1f launches %10.4f ms %10.4f ms each", r->kernels.k[i].name,
               launches, ms, launches > 0.0 ? ms / launches : 0.0);
        if (gbps > 0.0)
            printf(" %8.2f GB/s %4.0f%%", gbps, copy_gbps > 0.0 ? 100.0 * gbps / copy_gbps : 0.0);
        if (r->kernels.k[i].flops > 0.0 && ms > 0.0) {
            const double gflops = r->kernels.k[i].flops / (ms * 1e6);
            printf(" %9.1f GFLOP/s %4.0f%% of FMA peak", gflops,
                   fma_gflops > 0.0 ? 100.0 * gflops / fma_gflops : 0.0);
        }
        printf("\n");
    }
}

void print_row(const options *o, const result *r, double copy_gbps)
{
    derived d = derive(r, copy_gbps);
    char size[32], e2e[32], kernel[32], gbps[32], ratio[32];
    snprintf(size, sizeof(size), "%dx%d", r->width, r->height);
    snprintf(e2e, sizeof(e2e), r->e2e_ms < 0.1 ? "%.4f" : "%.3f", r->e2e_ms);
    if (r->kernel_ms >= 0.0)
        snprintf(kernel, sizeof(kernel), r->kernel_ms < 0.1 ? "%.4f" : "%.3f", r->kernel_ms);
    else
        snprintf(kernel, sizeof(kernel), "-");
    snprintf(gbps, sizeof(gbps), d.have_gbps ? "%.2f%s" : "-", d.gbps,
             r->kernel_ms >= 0.0 ? "" : "*");
    if (d.have_gbps && copy_gbps > 0.0)
        snprintf(ratio, sizeof(ratio), "%.0f%%", 100.0 * d.copy_ratio);
    else
        snprintf(ratio, sizeof(ratio), "-");
    char xmb[32] = "-", xms[32] = "-";
    if (transfer_ms(r) >= 0.0) {
        snprintf(xmb, sizeof(xmb), "%.2f", (r->xfer_in + r->xfer_out) * 1e-6);
        snprintf(xms, sizeof(xms), "%.3f", transfer_ms(r));
    }
    printf("%-18s %-11s %-8s %10s %10s %8.3f %8s %7s %8s %8s", r->op->name, size,
           clik_backend_name(r->backend), e2e, kernel, d.ns_per_pixel, gbps, ratio, xmb, xms);
    if (o->flags & BENCH_FRAMES) {
        char fps[32] = "-", fps_kernel[32] = "-";
        if ((r->op->flags & BENCH_FRAMES) && d.fps > 0.0)
            snprintf(fps, sizeof(fps), "%.1f", d.fps);
        if ((r->op->flags & BENCH_FRAMES) && d.fps_kernel > 0.0)
            snprintf(fps_kernel, sizeof(fps_kernel), "%.1f", d.fps_kernel);
        printf(" %9s %9s", fps, fps_kernel);
    }
    printf("\n");
    print_kernel_rows(o, r, copy_gbps);
    fflush(stdout);
}
