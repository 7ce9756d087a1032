/* Run-time loading of the OpenCL library. SPDX-License-Identifier: BSD-2-Clause */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl.h"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static clik_cl_api api;
static const clik_cl_api *loaded;
static char loaded_path[512];
static char load_report[2048];

/* Where OpenCL lives when it is not on the linker path: Android vendor
 * partitions (Adreno, Mali, PowerVR) and Linux boards with Mali blobs. */
static const char *const candidates[] = {
    "libOpenCL.so.1",
    "libOpenCL.so",
#if UINTPTR_MAX > 0xffffffffu
    "/vendor/lib64/libOpenCL.so",
    "/system/vendor/lib64/libOpenCL.so",
    "/system/lib64/libOpenCL.so",
    "/vendor/lib64/egl/libGLES_mali.so",
    "/system/vendor/lib64/egl/libGLES_mali.so",
    "/vendor/lib64/libPVROCL.so",
    "/usr/lib/aarch64-linux-gnu/libmali.so",
#else
    "/vendor/lib/libOpenCL.so",
    "/system/vendor/lib/libOpenCL.so",
    "/system/lib/libOpenCL.so",
    "/vendor/lib/egl/libGLES_mali.so",
    "/system/vendor/lib/egl/libGLES_mali.so",
    "/vendor/lib/libPVROCL.so",
    "/usr/lib/arm-linux-gnueabihf/libmali.so",
#endif
    "/usr/lib/libmali.so",
};

static void report(const char *fmt, const char *a, const char *b)
{
    size_t used = strlen(load_report);
    if (used + 1 < sizeof(load_report))
        snprintf(load_report + used, sizeof(load_report) - used, fmt, a, b);
}

/* Resolves every entry point from handle; names the first missing one. */
static const char *resolve_all(void *handle, clik_cl_api *out)
{
#define CLIK_CL_RESOLVE(name, ret, params)                                                         \
    {                                                                                              \
        void *sym = dlsym(handle, #name);                                                          \
        if (!sym)                                                                                  \
            return #name;                                                                          \
        memcpy(&out->name, &sym, sizeof(sym));                                                     \
    }
    CLIK_CL_FUNCTIONS(CLIK_CL_RESOLVE)
#undef CLIK_CL_RESOLVE
    void *ext = dlsym(handle, "clGetExtensionFunctionAddressForPlatform");
    memcpy(&out->clGetExtensionFunctionAddressForPlatform, &ext, sizeof(ext));
    return NULL;
}

static int try_library(const char *path)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        report("%s: %s; ", path, why ? why : "not loadable");
        return 0;
    }
    clik_cl_api candidate;
    const char *missing = resolve_all(handle, &candidate);
    if (missing) {
        report("%s: lacks %s; ", path, missing);
        dlclose(handle);
        return 0;
    }
    api = candidate;
    loaded = &api;
    snprintf(loaded_path, sizeof(loaded_path), "%s", path);
    return 1;
}

static void load(void)
{
    const char *forced = getenv("CLIK_OPENCL_LIBRARY");
    if (forced && strcmp(forced, "none") == 0) {
        report("%s%s", "CLIK_OPENCL_LIBRARY=none: OpenCL is not loaded", "");
        return;
    }
    if (forced && *forced && try_library(forced))
        return;
    for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
        if (try_library(candidates[i]))
            return;
}

const clik_cl_api *clik__cl(void)
{
    pthread_once(&load_once, load);
    return loaded;
}

const char *clik_opencl_library(const char **why)
{
    const clik_cl_api *cl = clik__cl();
    if (why)
        *why = cl ? "" : load_report;
    return cl ? loaded_path : NULL;
}

const char *clik__cl_error_name(cl_int err)
{
    switch (err) {
#define E(x)                                                                                       \
    case x: return #x;
        E(CL_SUCCESS)
        E(CL_DEVICE_NOT_FOUND)
        E(CL_DEVICE_NOT_AVAILABLE)
        E(CL_COMPILER_NOT_AVAILABLE)
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        E(CL_OUT_OF_RESOURCES)
        E(CL_OUT_OF_HOST_MEMORY)
        E(CL_PROFILING_INFO_NOT_AVAILABLE)
        E(CL_MEM_COPY_OVERLAP)
        E(CL_BUILD_PROGRAM_FAILURE)
        E(CL_MAP_FAILURE)
        E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        E(CL_COMPILE_PROGRAM_FAILURE)
        E(CL_LINK_PROGRAM_FAILURE)
        E(CL_INVALID_VALUE)
        E(CL_INVALID_DEVICE_TYPE)
        E(CL_INVALID_PLATFORM)
        E(CL_INVALID_DEVICE)
        E(CL_INVALID_CONTEXT)
        E(CL_INVALID_QUEUE_PROPERTIES)
        E(CL_INVALID_COMMAND_QUEUE)
        E(CL_INVALID_HOST_PTR)
        E(CL_INVALID_MEM_OBJECT)
        E(CL_INVALID_BINARY)
        E(CL_INVALID_BUILD_OPTIONS)
        E(CL_INVALID_PROGRAM)
        E(CL_INVALID_PROGRAM_EXECUTABLE)
        E(CL_INVALID_KERNEL_NAME)
        E(CL_INVALID_KERNEL_DEFINITION)
        E(CL_INVALID_KERNEL)
        E(CL_INVALID_ARG_INDEX)
        E(CL_INVALID_ARG_VALUE)
        E(CL_INVALID_ARG_SIZE)
        E(CL_INVALID_KERNEL_ARGS)
        E(CL_INVALID_WORK_DIMENSION)
        E(CL_INVALID_WORK_GROUP_SIZE)
        E(CL_INVALID_WORK_ITEM_SIZE)
        E(CL_INVALID_GLOBAL_OFFSET)
        E(CL_INVALID_EVENT_WAIT_LIST)
        E(CL_INVALID_EVENT)
        E(CL_INVALID_OPERATION)
        E(CL_INVALID_BUFFER_SIZE)
        E(CL_INVALID_GLOBAL_WORK_SIZE)
#undef E
    }
    return "CL_ERROR_UNKNOWN";
}
