/*
 * libFuzzer harness for the raw YUV 4:2:0 reader (.yuv): the input's first
 * three bytes choose the frame size (2 to 64 each way, even) and the frame
 * asked for (0 to 2), the rest is the file, read once as a file of known
 * size and once as a stream that cannot seek: both must agree. A frame
 * that reads is converted to RGBA as NV21, NV12 and I420 on the scalar
 * path, and back.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "imageio_private.h"

static clik_context *oracle(void)
{
    static clik_context *ctx;
    if (!ctx) {
        clik_context_options opt = fuzz_cpu_options();
        opt.cpu_path = CLIK_CPU_SCALAR;
        ctx = fuzz_create(&opt);
    }
    return ctx;
}

static void convert(const clik_image *img, int w, int h)
{
    static const clik_yuv_format formats[] = {CLIK_YUV_NV21, CLIK_YUV_NV12, CLIK_YUV_I420};
    clik_image rgba;
    if (clik_image_alloc(&rgba, w, h, 4, CLIK_U8) != CLIK_OK)
        return;
    for (int i = 0; i < 3; i++) {
        clik_yuv_image f;
        if (clik_yuv_wrap(&f, formats[i], w, h, img->data, img->stride) != CLIK_OK ||
            clik_yuv_to_rgb(oracle(), &f, &rgba, (clik_yuv_space)i) != CLIK_OK)
            abort();
        if (clik_rgb_to_yuv(oracle(), &rgba, &f, CLIK_YUV_BT709) != CLIK_OK)
            abort();
    }
    fuzz_check_image(&rgba); /* every byte written; frees it */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    const int w = 2 + 2 * (data[0] % 32), h = 2 + 2 * (data[1] % 32), index = data[2] % 3;
    data += 3;
    size -= 3;
    clik_image a = {0}, b = {0};
    int na = -1, nb = -1;
    char err[512];
    clik_status sa = CLIK_ERR_FILE_FORMAT, sb = CLIK_ERR_FILE_FORMAT;
    FILE *fp = fuzz_open(data, size);
    if (fp) {
        sa =
            clikio__yuv_read(fp, (int64_t)size, "fuzz.yuv", w, h, index, &a, &na, err, sizeof(err));
        fclose(fp);
    }
    fp = fuzz_open(data, size);
    if (fp) {
        sb = clikio__yuv_read(fp, -1, "fuzz.yuv", w, h, index, &b, &nb, err, sizeof(err));
        fclose(fp);
    }
    /* Known size or not, the same answer. */
    if (sa != sb || (sa == CLIK_OK && (na != nb || a.width != w || a.height != h / 2 * 3 ||
                                       memcmp(a.data, b.data, clik_yuv_size(w, h)) != 0)))
        abort();
    if (sa == CLIK_OK) {
        if ((size_t)na * clik_yuv_size(w, h) != size || index >= na)
            abort();
        convert(&a, w, h);
        fuzz_check_image(&a);
    } else if (a.data || b.data) {
        abort(); /* a failed read leaves no image */
    }
    clik_image_free(&b);
    return 0;
}
