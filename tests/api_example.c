/*
 * The README's C API example, built against the installed library through
 * pkg-config by tests/run.sh: equalizes a small image on the default
 * device and checks a few pixels. SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>

#include <clik.h>

int main(void)
{
    enum { width = 64, height = 16, stride = 64 };
    static unsigned char pixels[height * stride];
    for (int i = 0; i < height * stride; i++)
        pixels[i] = (unsigned char)(100 + i % 4); /* values 100..103 */

    clik_context *ctx;
    if (clik_context_create(&ctx, NULL) != CLIK_OK) /* $CLIK_DEVICE, else auto */
        return fprintf(stderr, "%s\n", clik_context_message(NULL)), 1;
    clik_image img;
    clik_image_wrap(&img, width, height, 1, CLIK_U8, pixels, stride);
    clik_status st = clik_hist_equalize(ctx, &img, &img); /* in place */
    if (st != CLIK_OK)
        fprintf(stderr, "%s: %s\n", clik_status_str(st), clik_context_message(ctx));
    printf("ran on %s\n", clik_backend_name(clik_context_last_backend(ctx)));
    clik_context_destroy(ctx);
    /* Four equal bins: 100 -> 0, 101 -> 85, 102 -> 170, 103 -> 255. */
    int ok =
        st == CLIK_OK && pixels[0] == 0 && pixels[1] == 85 && pixels[2] == 170 && pixels[3] == 255;
    printf("%s\n", ok ? "ok" : "wrong result");
    return ok ? 0 : 1;
}
