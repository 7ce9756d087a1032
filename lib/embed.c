/*
 * Build-time tool: turns kernels/NAME.cl (with its includes resolved) into
 * C strings for the library.  Usage: embed OUTPUT.c KERNEL_DIR NAME...
 * With --blob, a binary file into a byte array: embed --blob OUTPUT.c
 * SYMBOL FILE defines `const unsigned char SYMBOL[]` and `const size_t
 * SYMBOL_size` (the LAPAR model, lib/models/).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void emit_literal(FILE *out, const char *text, size_t len)
{
    fputs("    \"", out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            fputs(i + 1 < len ? "\\n\"\n    \"" : "\\n", out);
        } else if (c == '\\' || c == '"') {
            fprintf(out, "\\%c", c);
        } else if (c == '\t') {
            fputs("\\t", out);
        } else if (c < 32 || c > 126) {
            fprintf(out, "\\%03o", c);
        } else {
            fputc(c, out);
        }
    }
    fputs("\"", out);
}

/* embed --blob OUTPUT.c SYMBOL FILE */
static int embed_blob(const char *output, const char *symbol, const char *path)
{
    FILE *in = fopen(path, "rb");
    if (!in) {
        perror(path);
        return 1;
    }
    FILE *out = fopen(output, "w");
    if (!out) {
        perror(output);
        fclose(in);
        return 1;
    }
    fprintf(out,
            "/* Generated from %s by lib/embed.c; do not edit. */\n"
            "#include <stddef.h>\n\n"
            "extern const unsigned char %s[];\nextern const size_t %s_size;\n"
            "const unsigned char %s[] = {",
            path, symbol, symbol, symbol);
    size_t n = 0;
    int c;
    while ((c = fgetc(in)) != EOF)
        fprintf(out, "%s%u,", n++ % 16 == 0 ? "\n    " : " ", (unsigned)c);
    int status = ferror(in) ? 1 : 0;
    /* An empty file still needs one element: the size says 0. */
    fprintf(out, "%s\n};\nconst size_t %s_size = %zu;\n", n == 0 ? "\n    0" : "", symbol, n);
    fclose(in);
    if (fclose(out) != 0)
        status = 1;
    if (status != 0)
        remove(output);
    return status;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--blob") == 0)
        return embed_blob(argv[2], argv[3], argv[4]);
    if (argc < 4) {
        fprintf(stderr, "usage: %s OUTPUT.c KERNEL_DIR NAME...\n", argv[0]);
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    fputs("/* Generated from kernels/ by lib/embed.c; do not edit. */\n"
          "#include \"internal.h\"\n\n",
          out);
    int status = 0;
    for (int i = 3; i < argc && status == 0; i++) {
        clik_strbuf src = {0};
        char err[512];
        if (clik__kernel_source_load(argv[2], argv[i], &src, err, sizeof(err)) != CLIK_OK) {
            fprintf(stderr, "embed: %s\n", err);
            status = 1;
        } else {
            fprintf(out, "static const char source_%d[] =\n", i - 3);
            emit_literal(out, src.data, src.len);
            fputs(";\n\n", out);
        }
        clik__sb_free(&src);
    }
    fputs("const clik_embedded_kernel clik__embedded_kernels[] = {\n", out);
    for (int i = 3; i < argc; i++)
        fprintf(out, "    {\"%s\", source_%d, sizeof(source_%d) - 1},\n", argv[i], i - 3, i - 3);
    fprintf(out, "};\n\nconst size_t clik__embedded_kernel_count = %d;\n", argc - 3);
    if (fclose(out) != 0)
        status = 1;
    if (status != 0)
        remove(argv[1]);
    return status;
}
