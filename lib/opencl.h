/*
 * OpenCL entry points, resolved at run time with dlopen/dlsym so that the
 * library needs no OpenCL library at build or link time.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CLIK_OPENCL_H
#define CLIK_OPENCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include <CL/cl.h>

/* X(name, return type, parameter list) for every entry point clik calls. */
#define CLIK_CL_FUNCTIONS(X)                                                                       \
    X(clGetPlatformIDs, cl_int, (cl_uint, cl_platform_id *, cl_uint *))                            \
    X(clGetPlatformInfo, cl_int, (cl_platform_id, cl_platform_info, size_t, void *, size_t *))     \
    X(clGetDeviceIDs, cl_int,                                                                      \
      (cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *))                        \
    X(clGetDeviceInfo, cl_int, (cl_device_id, cl_device_info, size_t, void *, size_t *))           \
    X(clCreateContext, cl_context,                                                                 \
      (const cl_context_properties *, cl_uint, const cl_device_id *,                               \
       void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *, cl_int *))         \
    X(clReleaseContext, cl_int, (cl_context))                                                      \
    X(clCreateCommandQueue, cl_command_queue,                                                      \
      (cl_context, cl_device_id, cl_command_queue_properties, cl_int *))                           \
    X(clReleaseCommandQueue, cl_int, (cl_command_queue))                                           \
    X(clCreateBuffer, cl_mem, (cl_context, cl_mem_flags, size_t, void *, cl_int *))                \
    X(clReleaseMemObject, cl_int, (cl_mem))                                                        \
    X(clCreateProgramWithSource, cl_program,                                                       \
      (cl_context, cl_uint, const char **, const size_t *, cl_int *))                              \
    X(clCreateProgramWithBinary, cl_program,                                                       \
      (cl_context, cl_uint, const cl_device_id *, const size_t *, const unsigned char **,          \
       cl_int *, cl_int *))                                                                        \
    X(clBuildProgram, cl_int,                                                                      \
      (cl_program, cl_uint, const cl_device_id *, const char *,                                    \
       void(CL_CALLBACK *)(cl_program, void *), void *))                                           \
    X(clGetProgramInfo, cl_int, (cl_program, cl_program_info, size_t, void *, size_t *))           \
    X(clGetProgramBuildInfo, cl_int,                                                               \
      (cl_program, cl_device_id, cl_program_build_info, size_t, void *, size_t *))                 \
    X(clReleaseProgram, cl_int, (cl_program))                                                      \
    X(clCreateKernel, cl_kernel, (cl_program, const char *, cl_int *))                             \
    X(clReleaseKernel, cl_int, (cl_kernel))                                                        \
    X(clSetKernelArg, cl_int, (cl_kernel, cl_uint, size_t, const void *))                          \
    X(clGetKernelWorkGroupInfo, cl_int,                                                            \
      (cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *, size_t *))              \
    X(clEnqueueNDRangeKernel, cl_int,                                                              \
      (cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *,       \
       cl_uint, const cl_event *, cl_event *))                                                     \
    X(clEnqueueReadBuffer, cl_int,                                                                 \
      (cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint, const cl_event *,       \
       cl_event *))                                                                                \
    X(clEnqueueWriteBuffer, cl_int,                                                                \
      (cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint, const cl_event *, \
       cl_event *))                                                                                \
    X(clEnqueueReadBufferRect, cl_int,                                                             \
      (cl_command_queue, cl_mem, cl_bool, const size_t *, const size_t *, const size_t *, size_t,  \
       size_t, size_t, size_t, void *, cl_uint, const cl_event *, cl_event *))                     \
    X(clEnqueueWriteBufferRect, cl_int,                                                            \
      (cl_command_queue, cl_mem, cl_bool, const size_t *, const size_t *, const size_t *, size_t,  \
       size_t, size_t, size_t, const void *, cl_uint, const cl_event *, cl_event *))               \
    X(clEnqueueCopyBuffer, cl_int,                                                                 \
      (cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint, const cl_event *,        \
       cl_event *))                                                                                \
    X(clEnqueueCopyBufferRect, cl_int,                                                             \
      (cl_command_queue, cl_mem, cl_mem, const size_t *, const size_t *, const size_t *, size_t,   \
       size_t, size_t, size_t, cl_uint, const cl_event *, cl_event *))                             \
    X(clEnqueueMapBuffer, void *,                                                                  \
      (cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint, const cl_event *, \
       cl_event *, cl_int *))                                                                      \
    X(clEnqueueUnmapMemObject, cl_int,                                                             \
      (cl_command_queue, cl_mem, void *, cl_uint, const cl_event *, cl_event *))                   \
    X(clFinish, cl_int, (cl_command_queue))                                                        \
    X(clFlush, cl_int, (cl_command_queue))                                                         \
    X(clWaitForEvents, cl_int, (cl_uint, const cl_event *))                                        \
    X(clRetainEvent, cl_int, (cl_event))                                                           \
    X(clEnqueueMarkerWithWaitList, cl_int,                                                         \
      (cl_command_queue, cl_uint, const cl_event *, cl_event *))                                   \
    X(clEnqueueBarrierWithWaitList, cl_int,                                                        \
      (cl_command_queue, cl_uint, const cl_event *, cl_event *))                                   \
    X(clGetEventProfilingInfo, cl_int, (cl_event, cl_profiling_info, size_t, void *, size_t *))    \
    X(clReleaseEvent, cl_int, (cl_event))

typedef struct clik_cl_api {
#define CLIK_CL_MEMBER(name, ret, params) ret(CL_API_CALL *name) params;
    CLIK_CL_FUNCTIONS(CLIK_CL_MEMBER)
#undef CLIK_CL_MEMBER
    /* OpenCL 1.2's, NULL where the library lacks it (optional). */
    void *(CL_API_CALL *clGetExtensionFunctionAddressForPlatform)(cl_platform_id, const char *);
} clik_cl_api;

/* The loaded entry points, or NULL when no OpenCL library could be loaded.
 * Thread-safe; the library is loaded once per process. */
const clik_cl_api *clik__cl(void);

/* Name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). */
const char *clik__cl_error_name(cl_int err);

#endif
