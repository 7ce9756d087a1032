/* clik devices: every platform and device with its capabilities. SPDX-License-Identifier:
 * BSD-2-Clause */
#include <stdio.h>

#include "cli.h"

static const char *const usage = "usage: clik devices [--device SPEC]\n"
                                 "Lists every OpenCL platform and device with its capabilities,\n"
                                 "and the device that SPEC (default: $CLIK_DEVICE, else auto) "
                                 "selects.\n";

static void print_device(const clik_device_info *d)
{
    cli_print_device(stdout, d);
    printf("       vendor %s; driver %s; %s; %s\n", d->vendor, d->driver_version, d->device_version,
           d->opencl_c_version);
    printf("       %u compute units at %u MHz; global memory %.1f GiB (largest block %.1f GiB)\n",
           d->compute_units, d->max_clock_mhz, (double)d->global_mem_size / (1 << 30),
           (double)d->max_alloc_size / (1 << 30));
    printf("       local memory %llu KiB (%s); work-groups up to %zu, per dimension %zu x %zu x "
           "%zu\n",
           (unsigned long long)(d->local_mem_size / 1024),
           d->local_mem_dedicated ? "on chip" : "in global memory", d->max_work_group_size,
           d->max_work_item_sizes[0], d->max_work_item_sizes[1], d->max_work_item_sizes[2]);
    printf("       images %s; fp16 %s; fp64 %s; non-uniform work-groups %s\n",
           d->image_support ? "yes" : "no", d->fp16 ? "yes" : "no", d->fp64 ? "yes" : "no",
           d->non_uniform_work_groups ? "yes" : "no");
}

int cmd_devices(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse(argc, argv, NULL, 0, 0, &args, usage);
    if (rc != CLI_OK)
        return rc;
    const char *why = "";
    const char *lib = clik_opencl_library(&why);
    if (lib)
        printf("OpenCL library: %s\n", lib);
    else
        printf("OpenCL library: none loaded (%s)\n", why);

    clik_device_info *list;
    int count;
    clik_status st = clik_devices_list(&list, &count);
    if (st != CLIK_OK)
        return cli_error("devices", NULL, st, "listing devices");
    int platform = -1;
    for (int i = 0; i < count; i++) {
        if (list[i].platform_index != platform) {
            platform = list[i].platform_index;
            printf("\nplatform %d: %s (%s; %s)\n", platform, list[i].platform_name,
                   list[i].platform_vendor, list[i].platform_version);
        }
        print_device(&list[i]);
    }
    if (count == 0)
        printf("\nno OpenCL device\n");
    printf("\nCPU paths: scalar%s\n", clik_cpu_path_available(CLIK_CPU_NEON) ? ", neon" : "");
    printf("\n--device picks one: gpu or cpu (an OpenCL device of that type: a CPU device\n"
           "such as PoCL runs the OpenCL kernels on the processor), P:D, part of a name,\n"
           "or none (no OpenCL: clik's own C code, the CPU paths above; also the fallback\n"
           "when an OpenCL device fails an operation). auto: a GPU, else a CPU device,\n"
           "else none.\n");

    clik_context *ctx;
    rc = cli_context(args.device, &ctx);
    if (rc == CLI_OK) {
        const clik_device_info *d = clik_context_device(ctx);
        const char *spec = args.device ? args.device : "$CLIK_DEVICE or auto";
        if (d)
            printf("selected (%s): %d:%d %s\n", spec, d->platform_index, d->device_index, d->name);
        else
            printf("selected (%s): the CPU (%s path)\n", spec,
                   clik_backend_name(clik_context_cpu_backend(ctx)));
        clik_context_destroy(ctx);
    }
    clik_devices_free(list);
    return rc;
}
