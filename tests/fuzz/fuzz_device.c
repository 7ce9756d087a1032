/*
 * libFuzzer harness for the device selection string ($CLIK_DEVICE, the
 * device option, --device): the input selects from a fixed list of three
 * devices on two platforms. Any input gives an entry of the list, the C
 * fallback, CLIK_ERR_DEVICE_SPEC or CLIK_ERR_NO_DEVICE, and *index is
 * written on success only.
 *
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static void fake(clik_device_info *d, int p, int i, const char *platform, const char *name,
                 clik_device_type type)
{
    memset(d, 0, sizeof(*d));
    d->platform_index = p;
    d->device_index = i;
    strcpy(d->platform_name, platform);
    strcpy(d->platform_vendor, platform);
    strcpy(d->name, name);
    strcpy(d->vendor, name);
    d->type = type;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clik_device_info list[3];
    fake(&list[0], 0, 0, "Portable Computing Language", "pthread-cpu", CLIK_DEVICE_CPU);
    fake(&list[1], 1, 0, "ARM Platform", "Mali-G78", CLIK_DEVICE_GPU);
    fake(&list[2], 1, 1, "ARM Platform", "Mali-G57", CLIK_DEVICE_GPU);
    char *spec = malloc(size + 1);
    if (!spec)
        return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';
    int index = 42;
    clik_status st = clik_device_select(list, 3, spec, &index);
    if (st == CLIK_OK ? index < -1 || index > 2
                      : (st != CLIK_ERR_DEVICE_SPEC && st != CLIK_ERR_NO_DEVICE) || index != 42)
        abort();
    /* The same on an empty list: never an entry. */
    index = 42;
    st = clik_device_select(NULL, 0, spec, &index);
    if (st == CLIK_OK && index != -1)
        abort();
    free(spec);
    return 0;
}
