/*
 * The integral kernels' sums (kernels/integral.cl includes this after its
 * option defaults): binary64 bit patterns built from integers on devices
 * without doubles, float-float sums for f32 sources, and the sum and
 * square types (ACC, SQ) with their operations.
 * SPDX-License-Identifier: BSD-2-Clause
 */
/* ---- binary64 bit patterns from integers --------------------------------------------- */

#if SUM_BITS || SQ_BITS
#define F64_FRACTION 0xfffffffffffffUL  /* the 52 stored significand bits */
#define F64_LEADING  0x10000000000000UL /* the implicit leading bit, 2^52 */
#define F64_SIGN     0x8000000000000000UL

/* The binary64 nearest to mag * 2^e (mag < 2^63), negated when neg:
 * rounded to nearest, ties to even, as a conversion to double rounds. The
 * values met here (integer sums, float-float sums) lie far inside the
 * normal range, so there are no subnormal or infinite results to make. */
inline ulong f64_bits(ulong mag, int e, int neg)
{
    if (mag == 0)
        return 0;
    const int top = 63 - (int)clz(mag); /* the leading bit's position */
    int ex = top + e;
    ulong m;
    if (top > 52) { /* more bits than the significand holds: round */
        const int s = top - 52;
        const ulong rest = mag & ((1UL << s) - 1), mid = 1UL << (s - 1);
        m = mag >> s;
        if (rest > mid || (rest == mid && (m & 1)))
            m++;
        if (m >> 53) { /* rounded up to the next power of two */
            m >>= 1;
            ex++;
        }
    } else {
        m = mag << (52 - top);
    }
    return (neg ? F64_SIGN : 0) | (ulong)(ex + 1023) << 52 | (m & F64_FRACTION);
}

/* An integer below 2^53 as binary64 bits (exact), and back. */
inline ulong u64_bits(ulong v)
{
    return f64_bits(v, 0, 0);
}

inline ulong bits_u64(ulong b)
{
    /* 0.0 has the exponent field 0: a shift of 63 leaves nothing. */
    return ((b & F64_FRACTION) | F64_LEADING) >> min(1075UL - (b >> 52), 63UL);
}

/* The same for 16 lanes at once, without branches. */
inline ulong16 u64_bits16(ulong16 v)
{
    const ulong16 z = clz(v); /* 11 or more below 2^53 */
    const ulong16 b = (1086UL - z) << 52 | ((v << (z - 11UL)) & F64_FRACTION);
    return select(b, (ulong16)0, v == (ulong16)0);
}

inline ulong16 bits_u64_16(ulong16 b)
{
    return ((b & F64_FRACTION) | F64_LEADING) >> min((ulong16)1075 - (b >> 52), (ulong16)63);
}
#endif

/* ---- float-float sums (f32 sources without device doubles) ----------------------------- */

#if ACC_FF || SQ_FF
/*
 * A value hi + lo, |lo| at most half an ulp of hi: 48 significant bits.
 * ff1 is one element, float2 (hi, lo); ffv a pixel, its CH elements in a
 * row (hi and lo interleaved, as in the strips: a pixel is one vload).
 * Vectors, not structs: a struct argument is passed through memory, and
 * inlining it leaves an intrinsic (llvm.experimental.noalias.scope.decl)
 * that Oclgrind cannot run.
 */
typedef float2 ff1;
#if CH == 1
typedef float2 ffv;
#define FF_PAIRS      2
#define FF_MAKE(h, l) ((float2)((h), (l)))
#elif CH == 2
typedef float4 ffv;
#define FF_PAIRS      4
#define FF_MAKE(h, l) ((float4)((h).s0, (l).s0, (h).s1, (l).s1))
#else
typedef float8 ffv;
#define FF_PAIRS      8
#define FF_MAKE(h, l) ((float8)((h).s0, (l).s0, (h).s1, (l).s1, (h).s2, (l).s2, (h).s3, (l).s3))
#endif
#define FF1_MAKE(h, l) ((float2)((h), (l)))

/* a + b: the high parts' and the low parts' sums with their exact errors
 * (TwoSum), then two renormalizations; relative error about 3 * 2^-48.
 * Every step is one rounded IEEE operation: FP_CONTRACT is off, and no
 * fast-math option reaches these programs. */
#define FF_ADD_BODY(F, MAKE)                                                                       \
    const F ah = a.even, al = a.odd, bh = b.even, bl = b.odd;                                      \
    const F s = ah + bh, sb = s - ah, se = (ah - (s - sb)) + (bh - sb);                            \
    const F t = al + bl, tb = t - al, te = (al - (t - tb)) + (bl - tb);                            \
    const F c = se + t, vh = s + c, vl = c - (vh - s), w = te + vl;                                \
    const F h = vh + w;                                                                            \
    return MAKE(h, w - (h - vh));

inline ff1 ff_add1(ff1 a, ff1 b)
{
    FF_ADD_BODY(float, FF1_MAKE)
}

#if CH == 1
#define ff_addv ff_add1
#else
inline ffv ff_addv(ffv a, ffv b)
{
    FF_ADD_BODY(VEC(float), FF_MAKE)
}
#endif

/* v * v exactly, without a fused multiply-add (Dekker): v is split into two
 * halves of 12 significant bits whose products are exact in float. */
inline ffv ff_square(VEC(float) v)
{
    const VEC(float) c = 4097.0f * v, vh = c - (c - v), vl = v - vh, p = v * v;
    return FF_MAKE(p, ((vh * vh - p) + vh * vl + vh * vl) + vl * vl);
}

/* Pixel i of the strips (float2 elements). */
#define FF_LOAD(i, p)     CONCAT(vload, FF_PAIRS)((i), (__global const float *)(p))
#define FF_STORE(v, i, p) CONCAT(vstore, FF_PAIRS)((v), (i), (__global float *)(p))

#if SUM_BITS || SQ_BITS
/* The magnitude of a float as m * 2^e, m < 2^24. Signs and magnitudes are
 * kept apart below: Oclgrind cannot run the absolute-value intrinsic that
 * compilers make of a negation under a sign test. */
inline ulong f32_magnitude(float f, int *e)
{
    const uint b = as_uint(f);
    const int ex = (int)(b >> 23 & 0xff);
    *e = (ex ? ex : 1) - 150;
    return (ulong)((b & 0x7fffff) | (ex ? 0x800000u : 0u));
}

/* hi + lo rounded once to binary64, exactly as a double addition of the
 * two would round. Both floats become integers times powers of two; the
 * one with the larger exponent is scaled by 2^38 (62 bits at most) and the
 * other aligned to it. An exponent gap past 38 shifts the smaller one's low
 * bits out; they are kept as a sticky bit: the larger one is then normal,
 * the sum has 61 or 62 bits and its significand ends at bit 8 or above, so
 * the rounding sees the right side of every halfway point. */
inline ulong ff_bits(float hi, float lo)
{
    const uint hb = as_uint(hi);
    if ((hb >> 23 & 0xff) == 0xff) /* infinity or NaN, kept as such */
        return (ulong)(hb >> 31) << 63 | 0x7ff0000000000000UL | (ulong)(hb & 0x7fffff) << 29;
    int ea, eb;
    ulong a = f32_magnitude(hi, &ea), b = f32_magnitude(lo, &eb);
    int na = (int)(hb >> 31), nb = (int)(as_uint(lo) >> 31);
    if (a == 0 || (b != 0 && eb > ea)) { /* a: the part with the larger exponent */
        const ulong t = a;
        a = b;
        b = t;
        const int te = ea, tn = na;
        ea = eb;
        eb = te;
        na = nb;
        nb = tn;
    }
    const int d = b != 0 ? ea - eb : 0;
    a <<= 38;
    int sticky = 0; /* b's shifted-out rest, in (0, 1), is left to add */
    if (d <= 38) {
        b <<= 38 - d;
    } else {
        const int s = d - 38;
        sticky = s < 40 ? (b & ((1UL << s) - 1)) != 0 : 1;
        b = s < 40 ? b >> s : 0;
    }
    ulong mag;
    int neg = na;
    if (na == nb) {
        mag = a + b;
    } else if (a >= b) {
        mag = a - b;
        if (sticky) /* a - b - rest = (a - b - 1) + (1 - rest) */
            mag--;
    } else { /* only without a sticky rest: b > a needs d == 0 */
        mag = b - a;
        neg = nb;
    }
    if (sticky) /* strictly between two integers: an odd one in between rounds the same */
        mag |= 1;
    return f64_bits(mag, ea - 38, neg);
}
#endif
#endif

/* Applied to each channel of a pixel, giving binary64 bits. */
#if CH == 1
#define EACH_CH(f, v) f(v)
#define EACH_FF(v)    ff_bits((v).s0, (v).s1)
#elif CH == 2
#define EACH_CH(f, v) ((ulong2)(f((v).s0), f((v).s1)))
#define EACH_FF(v)    ((ulong2)(ff_bits((v).s0, (v).s1), ff_bits((v).s2, (v).s3)))
#else
#define EACH_CH(f, v) ((ulong4)(f((v).s0), f((v).s1), f((v).s2), f((v).s3)))
#define EACH_FF(v)                                                                                 \
    ((ulong4)(ff_bits((v).s0, (v).s1), ff_bits((v).s2, (v).s3), ff_bits((v).s4, (v).s5),           \
              ff_bits((v).s6, (v).s7)))
#endif

/* ---- the sums' types and operations ------------------------------------------------------ */

/* accv: the running sums of a pixel, acc1 of one element (the carries);
 * ACC_SRC makes one of a source pixel; ACC_LOAD / ACC_STORE access pixel i
 * of the strips; TO_SUM gives the stored value, FROM_SUM reads one back
 * (integer sums only). */
#if ACC_FF
typedef ffv accv;
typedef ff1 acc1;
#define ACC_ZERO           ((ffv)0)
#define ACC1_ZERO          ((ff1)0)
#define ACC_ADD(a, b)      ff_addv(a, b)
#define ACC1_ADD(a, b)     ff_add1(a, b)
#define ACC_SRC(v)         FF_MAKE(v, (VEC(float))0)
#define ACC_LOAD(i, p)     FF_LOAD(i, p)
#define ACC_STORE(v, i, p) FF_STORE(v, i, p)
#if SUM_BITS
#define TO_SUM(v) EACH_FF(v)
#else
#define TO_SUM(v) ((v).even + (v).odd) /* the float nearest to each pair */
#endif
#else
typedef VEC(ACC) accv;
typedef ACC acc1;
#define TO_ACC(v)          CONVERT(VEC(ACC), v)
#define ACC_ZERO           ((accv)0)
#define ACC1_ZERO          ((acc1)0)
#define ACC_ADD(a, b)      ((a) + (b))
#define ACC1_ADD(a, b)     ((a) + (b))
#define ACC_SRC(v)         TO_ACC(v)
#define ACC_LOAD(i, p)     VLOAD(i, p)
#define ACC_STORE(v, i, p) VSTORE(v, i, p)
#if SUM_BITS
#define TO_SUM(v)   EACH_CH(u64_bits, v)
#define FROM_SUM(v) EACH_CH(bits_u64, v)
#else
#define TO_SUM(v)   CONVERT(VEC(SUM), v)
#define FROM_SUM(v) TO_ACC(v)
#endif
#endif

/* The same for the sums of squares: SQ_SQUARE(v) is the square of a source
 * pixel, TO_SQO / FROM_SQO convert to and from the sqsum buffer's type. */
#if SQSUM
#if SQ_FF
typedef ffv sqv;
typedef ff1 sq1;
#define SQ_ZERO           ((ffv)0)
#define SQ1_ZERO          ((ff1)0)
#define SQ_ADD(a, b)      ff_addv(a, b)
#define SQ1_ADD(a, b)     ff_add1(a, b)
#define SQ_SQUARE(v)      ff_square(v)
#define SQ_LOAD(i, p)     FF_LOAD(i, p)
#define SQ_STORE(v, i, p) FF_STORE(v, i, p)
#define TO_SQO(v)         EACH_FF(v)
#else
typedef VEC(SQ) sqv;
typedef SQ sq1;
#define TO_SQ(v)          CONVERT(VEC(SQ), v)
#define SQ_ZERO           ((sqv)0)
#define SQ1_ZERO          ((sq1)0)
#define SQ_ADD(a, b)      ((a) + (b))
#define SQ1_ADD(a, b)     ((a) + (b))
#define SQ_SQUARE(v)      (TO_SQ(v) * TO_SQ(v))
#define SQ_LOAD(i, p)     VLOAD(i, p)
#define SQ_STORE(v, i, p) VSTORE(v, i, p)
#if SQ_BITS
#define TO_SQO(v)   EACH_CH(u64_bits, v)
#define FROM_SQO(v) EACH_CH(bits_u64, v)
#else
#define TO_SQO(v)   (v)
#define FROM_SQO(v) (v)
#endif
#endif
#define SQ_ONLY(stmt) stmt /* a statement about the sums of squares */
#else
#define SQ_ONLY(stmt)
#endif
