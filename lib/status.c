/* Names of statuses, types and backends. SPDX-License-Identifier: BSD-2-Clause */
#include "clik.h"

#define CLIK_STR2(x) #x
#define CLIK_STR(x)  CLIK_STR2(x)

const char *clik_version(void)
{
    return CLIK_STR(CLIK_VERSION_MAJOR) "." CLIK_STR(CLIK_VERSION_MINOR) "." CLIK_STR(
        CLIK_VERSION_PATCH);
}

const char *clik_status_str(clik_status status)
{
    switch (status) {
    case CLIK_OK: return "CLIK_OK: success";
    case CLIK_ERR_NULL: return "CLIK_ERR_NULL: a required pointer is NULL";
    case CLIK_ERR_INVALID_ARG: return "CLIK_ERR_INVALID_ARG: an argument is out of range";
    case CLIK_ERR_INVALID_SIZE: return "CLIK_ERR_INVALID_SIZE: invalid width, height or count";
    case CLIK_ERR_SIZE_MISMATCH: return "CLIK_ERR_SIZE_MISMATCH: image sizes do not agree";
    case CLIK_ERR_UNSUPPORTED_FORMAT:
        return "CLIK_ERR_UNSUPPORTED_FORMAT: element type or channel count not supported";
    case CLIK_ERR_STRIDE: return "CLIK_ERR_STRIDE: row stride too small or misaligned";
    case CLIK_ERR_OVERFLOW: return "CLIK_ERR_OVERFLOW: a size or result does not fit its type";
    case CLIK_ERR_NO_MEMORY: return "CLIK_ERR_NO_MEMORY: allocation failed";
    case CLIK_ERR_DEVICE_SPEC: return "CLIK_ERR_DEVICE_SPEC: malformed device selection";
    case CLIK_ERR_NO_DEVICE: return "CLIK_ERR_NO_DEVICE: no OpenCL device matches";
    case CLIK_ERR_OPENCL: return "CLIK_ERR_OPENCL: an OpenCL call failed";
    case CLIK_ERR_BUILD: return "CLIK_ERR_BUILD: a kernel failed to build";
    case CLIK_ERR_DEVICE_LIMITS: return "CLIK_ERR_DEVICE_LIMITS: the device cannot run this";
    case CLIK_ERR_FALLBACK: return "CLIK_ERR_FALLBACK: strict mode forbids the CPU fallback";
    case CLIK_ERR_NO_NEON: return "CLIK_ERR_NO_NEON: the NEON path is not available";
    case CLIK_ERR_WRONG_CONTEXT: return "CLIK_ERR_WRONG_CONTEXT: image of another context";
    case CLIK_ERR_IO: return "CLIK_ERR_IO: a file could not be read or written";
    case CLIK_ERR_FILE_FORMAT: return "CLIK_ERR_FILE_FORMAT: truncated, corrupt or wrong file";
    case CLIK_ERR_CANCELLED: return "CLIK_ERR_CANCELLED: stopped by a progress callback";
    case CLIK_STATUS_COUNT: break;
    }
    return "CLIK_ERR_UNKNOWN: unknown status";
}

size_t clik_type_size(clik_type t)
{
    switch (t) {
    case CLIK_U8: return 1;
    case CLIK_S16:
    case CLIK_U16:
    case CLIK_F16: return 2;
    case CLIK_S32:
    case CLIK_U32:
    case CLIK_F32: return 4;
    case CLIK_U64:
    case CLIK_F64: return 8;
    }
    return 0;
}

const char *clik_type_name(clik_type t)
{
    switch (t) {
    case CLIK_U8: return "u8";
    case CLIK_S16: return "s16";
    case CLIK_U16: return "u16";
    case CLIK_S32: return "s32";
    case CLIK_U32: return "u32";
    case CLIK_U64: return "u64";
    case CLIK_F16: return "f16";
    case CLIK_F32: return "f32";
    case CLIK_F64: return "f64";
    }
    return "unknown";
}

const char *clik_backend_name(clik_backend backend)
{
    switch (backend) {
    case CLIK_BACKEND_NONE: return "none";
    case CLIK_BACKEND_OPENCL: return "opencl";
    case CLIK_BACKEND_NEON: return "neon";
    case CLIK_BACKEND_SCALAR: return "scalar";
    }
    return "unknown";
}
