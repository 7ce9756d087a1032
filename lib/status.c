/*
 * Statuses and messages: the names of statuses, types and backends; the
 * message that details a context's last failure (or, without a context,
 * the last failed clik_context_create() of the thread); the log callback.
 * Every layer of the library reports through here.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The message of a failure without a context: clik_context_create's. */
static _Thread_local char create_message[2048];

static void set_message(clik_context *ctx, const char *fmt, va_list ap)
{
    /* Formatted apart first: the arguments may point into the message. */
    char buf[1024];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    if (ctx) {
        ctx->message.len = 0;
        ctx->message.failed = 0;
        clik__sb_append(&ctx->message, buf, strlen(buf));
    } else {
        snprintf(create_message, sizeof(create_message), "%s", buf);
    }
}

clik_status clik__fail(clik_context *ctx, clik_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_message(ctx, fmt, ap);
    va_end(ap);
    return status;
}

clik_status clik__fail_cl(clik_context *ctx, cl_int err, const char *what)
{
    clik_status st = err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY
                         ? CLIK_ERR_NO_MEMORY
                         : CLIK_ERR_OPENCL;
    return clik__fail(ctx, st, "%s: %s (%d)", what, clik__cl_error_name(err), (int)err);
}

clik_status clik__fail_log(clik_context *ctx, clik_status status, const char *log, const char *fmt,
                           ...)
{
    clik_strbuf *m = &ctx->message;
    m->len = 0;
    m->failed = 0;
    va_list ap;
    va_start(ap, fmt);
    clik__sb_vprintf(m, fmt, ap);
    va_end(ap);
    clik__sb_append(m, log, strlen(log));
    return status;
}

void clik__create_message_clear(void)
{
    create_message[0] = '\0';
}

const char *clik_context_message(const clik_context *ctx)
{
    if (!ctx)
        return create_message;
    return ctx->message.data ? ctx->message.data : "";
}

void clik__log(clik_context *ctx, clik_log_level level, const char *fmt, ...)
{
    if (!ctx || !ctx->log)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    ctx->log(ctx->log_user, level, buf);
}

/* ---- names ---------------------------------------------------------------- */

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
    case CLIK_ERR_READ_ONLY: return "CLIK_ERR_READ_ONLY: an image imported read-only is written";
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
