/* NEON intrinsics: native on AArch64, through SIMDe elsewhere. SPDX-License-Identifier:
 * BSD-2-Clause */
#ifndef CLIK_NEON_H
#define CLIK_NEON_H

#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/arm/neon.h>
#endif

#if defined(__GNUC__)
#define CLIK_INLINE static inline __attribute__((always_inline))
#else
#define CLIK_INLINE static inline
#endif

#endif
