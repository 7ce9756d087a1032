/* Device discovery and selection. SPDX-License-Identifier: BSD-2-Clause */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define QUERY_NON_UNIFORM_WORK_GROUP_SUPPORT 0x1065 /* OpenCL 3.0 query */

static void platform_string(const clik_cl_api *cl, cl_platform_id p, cl_platform_info what,
                            char *out, size_t cap)
{
    out[0] = '\0';
    if (cl->clGetPlatformInfo(p, what, cap, out, NULL) != CL_SUCCESS)
        out[0] = '\0';
    out[cap - 1] = '\0';
}

static void device_string(const clik_cl_api *cl, cl_device_id d, cl_device_info what, char *out,
                          size_t cap)
{
    out[0] = '\0';
    size_t need = 0;
    if (cl->clGetDeviceInfo(d, what, 0, NULL, &need) != CL_SUCCESS || need == 0)
        return;
    if (need <= cap) {
        if (cl->clGetDeviceInfo(d, what, cap, out, NULL) != CL_SUCCESS)
            out[0] = '\0';
    } else {
        char *tmp = malloc(need);
        if (tmp && cl->clGetDeviceInfo(d, what, need, tmp, NULL) == CL_SUCCESS) {
            memcpy(out, tmp, cap - 1);
        }
        free(tmp);
    }
    out[cap - 1] = '\0';
}

static int has_extension(const clik_cl_api *cl, cl_device_id d, const char *name)
{
    size_t need = 0;
    if (cl->clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &need) != CL_SUCCESS || need == 0)
        return 0;
    char *ext = malloc(need + 2);
    if (!ext)
        return 0;
    int found = 0;
    if (cl->clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, need, ext + 1, NULL) == CL_SUCCESS) {
        ext[0] = ' ';
        ext[need] = ' ';
        ext[need + 1] = '\0';
        for (char *p = ext; *p; p++)
            if (*p == '\0')
                *p = ' ';
        char pattern[80];
        snprintf(pattern, sizeof(pattern), " %s ", name);
        found = strstr(ext, pattern) != NULL;
    }
    free(ext);
    return found;
}

#define DEVICE_VALUE(cl, d, what, var)                                                             \
    do {                                                                                           \
        if ((cl)->clGetDeviceInfo((d), (what), sizeof(var), &(var), NULL) != CL_SUCCESS)           \
            memset(&(var), 0, sizeof(var));                                                        \
    } while (0)

static void describe(const clik_cl_api *cl, cl_platform_id p, cl_device_id d,
                     clik_device_info *info)
{
    platform_string(cl, p, CL_PLATFORM_NAME, info->platform_name, sizeof(info->platform_name));
    platform_string(cl, p, CL_PLATFORM_VENDOR, info->platform_vendor,
                    sizeof(info->platform_vendor));
    platform_string(cl, p, CL_PLATFORM_VERSION, info->platform_version,
                    sizeof(info->platform_version));
    device_string(cl, d, CL_DEVICE_NAME, info->name, sizeof(info->name));
    device_string(cl, d, CL_DEVICE_VENDOR, info->vendor, sizeof(info->vendor));
    device_string(cl, d, CL_DRIVER_VERSION, info->driver_version, sizeof(info->driver_version));
    device_string(cl, d, CL_DEVICE_VERSION, info->device_version, sizeof(info->device_version));
    device_string(cl, d, CL_DEVICE_OPENCL_C_VERSION, info->opencl_c_version,
                  sizeof(info->opencl_c_version));

    cl_device_type type;
    cl_uint units, clock;
    cl_ulong global_mem, max_alloc, local_mem;
    cl_device_local_mem_type local_type;
    size_t wg, sizes[3] = {0, 0, 0};
    cl_bool images, little = CL_TRUE;
    DEVICE_VALUE(cl, d, CL_DEVICE_TYPE, type);
    DEVICE_VALUE(cl, d, CL_DEVICE_MAX_COMPUTE_UNITS, units);
    DEVICE_VALUE(cl, d, CL_DEVICE_MAX_CLOCK_FREQUENCY, clock);
    DEVICE_VALUE(cl, d, CL_DEVICE_GLOBAL_MEM_SIZE, global_mem);
    DEVICE_VALUE(cl, d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, max_alloc);
    DEVICE_VALUE(cl, d, CL_DEVICE_LOCAL_MEM_SIZE, local_mem);
    DEVICE_VALUE(cl, d, CL_DEVICE_LOCAL_MEM_TYPE, local_type);
    DEVICE_VALUE(cl, d, CL_DEVICE_MAX_WORK_GROUP_SIZE, wg);
    DEVICE_VALUE(cl, d, CL_DEVICE_IMAGE_SUPPORT, images);
    DEVICE_VALUE(cl, d, CL_DEVICE_ENDIAN_LITTLE, little);
    cl_uint dims = 0;
    DEVICE_VALUE(cl, d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, dims);
    if (dims >= 3)
        DEVICE_VALUE(cl, d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizes);

    info->type = (type & CL_DEVICE_TYPE_GPU)           ? CLIK_DEVICE_GPU
                 : (type & CL_DEVICE_TYPE_CPU)         ? CLIK_DEVICE_CPU
                 : (type & CL_DEVICE_TYPE_ACCELERATOR) ? CLIK_DEVICE_ACCELERATOR
                                                       : CLIK_DEVICE_OTHER;
    info->compute_units = units;
    info->max_clock_mhz = clock;
    info->global_mem_size = global_mem;
    info->max_alloc_size = max_alloc;
    info->local_mem_size = local_mem;
    info->local_mem_dedicated = local_type == CL_LOCAL;
    info->max_work_group_size = wg ? wg : 1;
    for (int i = 0; i < 3; i++)
        info->max_work_item_sizes[i] = sizes[i] ? sizes[i] : 1;
    info->image_support = images != CL_FALSE;
    info->little_endian = little != CL_FALSE;
    info->fp16 = has_extension(cl, d, "cl_khr_fp16");
    info->fp64 = has_extension(cl, d, "cl_khr_fp64");

    int major = 1, minor = 0;
    if (sscanf(info->opencl_c_version, "OpenCL C %d.%d", &major, &minor) != 2) {
        major = 1;
        minor = 0;
    }
    info->opencl_c_major = major;
    info->opencl_c_minor = minor;
    int dev_major = 1, dev_minor = 0;
    if (sscanf(info->device_version, "OpenCL %d.%d", &dev_major, &dev_minor) != 2)
        dev_major = 1;
    if (dev_major == 2) {
        info->non_uniform_work_groups = 1;
    } else if (dev_major >= 3) {
        cl_bool nu = CL_FALSE;
        if (cl->clGetDeviceInfo(d, QUERY_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof(nu), &nu, NULL) !=
            CL_SUCCESS)
            nu = CL_FALSE;
        info->non_uniform_work_groups = nu != CL_FALSE;
    }
}

clik_status clik__devices_query(clik_device_info **list, cl_platform_id **platforms,
                                cl_device_id **devices, int *count)
{
    *list = NULL;
    *count = 0;
    if (platforms)
        *platforms = NULL;
    if (devices)
        *devices = NULL;
    const clik_cl_api *cl = clik__cl();
    if (!cl)
        return CLIK_OK;
    cl_uint nplat = 0;
    if (cl->clGetPlatformIDs(0, NULL, &nplat) != CL_SUCCESS || nplat == 0)
        return CLIK_OK; /* the ICD loader reports "no platform" as an error */
    cl_platform_id *plats = calloc(nplat, sizeof(*plats));
    if (!plats)
        return CLIK_ERR_NO_MEMORY;
    if (cl->clGetPlatformIDs(nplat, plats, NULL) != CL_SUCCESS) {
        free(plats);
        return CLIK_OK;
    }
    clik_device_info *infos = NULL;
    cl_platform_id *pids = NULL;
    cl_device_id *dids = NULL;
    int n = 0;
    clik_status st = CLIK_OK;
    for (cl_uint p = 0; p < nplat && st == CLIK_OK; p++) {
        cl_uint ndev = 0;
        if (cl->clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev) != CL_SUCCESS ||
            ndev == 0)
            continue;
        cl_device_id *ids = calloc(ndev, sizeof(*ids));
        void *grown1 = realloc(infos, (size_t)(n + (int)ndev) * sizeof(*infos));
        if (grown1)
            infos = grown1;
        void *grown2 = realloc(pids, (size_t)(n + (int)ndev) * sizeof(*pids));
        if (grown2)
            pids = grown2;
        void *grown3 = realloc(dids, (size_t)(n + (int)ndev) * sizeof(*dids));
        if (grown3)
            dids = grown3;
        if (!ids || !grown1 || !grown2 || !grown3) {
            free(ids);
            st = CLIK_ERR_NO_MEMORY;
            break;
        }
        if (cl->clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, ndev, ids, NULL) == CL_SUCCESS) {
            for (cl_uint d = 0; d < ndev; d++) {
                clik_device_info *info = &infos[n];
                memset(info, 0, sizeof(*info));
                info->platform_index = (int)p;
                info->device_index = (int)d;
                describe(cl, plats[p], ids[d], info);
                pids[n] = plats[p];
                dids[n] = ids[d];
                n++;
            }
        }
        free(ids);
    }
    free(plats);
    if (st != CLIK_OK || n == 0) {
        free(infos);
        free(pids);
        free(dids);
        return st;
    }
    *list = infos;
    *count = n;
    if (platforms)
        *platforms = pids;
    else
        free(pids);
    if (devices)
        *devices = dids;
    else
        free(dids);
    return CLIK_OK;
}

clik_status clik_devices_list(clik_device_info **list, int *count)
{
    if (!list || !count)
        return CLIK_ERR_NULL;
    return clik__devices_query(list, NULL, NULL, count);
}

void clik_devices_free(clik_device_info *list)
{
    free(list);
}

static int first_of_type(const clik_device_info *list, int count, clik_device_type type)
{
    for (int i = 0; i < count; i++)
        if (list[i].type == type)
            return i;
    return -1;
}

/* Parses "P:D" with decimal indices; returns 1 on success. */
static int parse_indices(const char *s, int *p, int *d)
{
    const char *colon = strchr(s, ':');
    if (!colon || colon == s || colon[1] == '\0')
        return 0;
    long v[2];
    const char *parts[2] = {s, colon + 1};
    const char *ends[2] = {colon, s + strlen(s)};
    for (int i = 0; i < 2; i++) {
        v[i] = 0;
        for (const char *c = parts[i]; c < ends[i]; c++) {
            if (!isdigit((unsigned char)*c) || v[i] > 100000)
                return 0;
            v[i] = v[i] * 10 + (*c - '0');
        }
    }
    *p = (int)v[0];
    *d = (int)v[1];
    return 1;
}

/* What a selection string selects: an entry of the list, the C fallback,
 * or a failure. */
enum { SELECT_NONE = -1, SELECT_BAD_SPEC = -2, SELECT_NO_DEVICE = -3 };

static int select_index(const clik_device_info *list, int count, const char *spec)
{
    while (isspace((unsigned char)*spec))
        spec++;
    size_t len = strlen(spec);
    while (len > 0 && isspace((unsigned char)spec[len - 1]))
        len--;
    char s[128];
    if (len == 0 || len >= sizeof(s))
        return SELECT_BAD_SPEC;
    memcpy(s, spec, len);
    s[len] = '\0';

    if (strcasecmp(s, "none") == 0)
        return SELECT_NONE;
    if (strcasecmp(s, "auto") == 0) {
        int i = first_of_type(list, count, CLIK_DEVICE_GPU);
        i = i >= 0 ? i : first_of_type(list, count, CLIK_DEVICE_CPU);
        return i >= 0 ? i : SELECT_NONE;
    }
    if (strcasecmp(s, "gpu") == 0 || strcasecmp(s, "cpu") == 0) {
        int i = first_of_type(list, count,
                              strcasecmp(s, "gpu") == 0 ? CLIK_DEVICE_GPU : CLIK_DEVICE_CPU);
        return i >= 0 ? i : SELECT_NO_DEVICE;
    }
    if (strchr(s, ':')) {
        int p, d;
        if (!parse_indices(s, &p, &d))
            return SELECT_BAD_SPEC;
        for (int i = 0; i < count; i++)
            if (list[i].platform_index == p && list[i].device_index == d)
                return i;
        return SELECT_NO_DEVICE;
    }
    for (int i = 0; i < count; i++) {
        const clik_device_info *e = &list[i];
        if (clik__strcasestr(e->name, s) || clik__strcasestr(e->vendor, s) ||
            clik__strcasestr(e->platform_name, s) || clik__strcasestr(e->platform_vendor, s) ||
            clik__strcasestr(e->platform_version, s))
            return i;
    }
    return SELECT_NO_DEVICE;
}

clik_status clik_device_select(const clik_device_info *list, int count, const char *spec,
                               int *index)
{
    if (!index || !spec || (count > 0 && !list))
        return CLIK_ERR_NULL;
    if (count < 0)
        return CLIK_ERR_INVALID_SIZE;
    const int found = select_index(list, count, spec);
    if (found == SELECT_BAD_SPEC)
        return CLIK_ERR_DEVICE_SPEC;
    if (found == SELECT_NO_DEVICE)
        return CLIK_ERR_NO_DEVICE;
    *index = found; /* written on success only */
    return CLIK_OK;
}
