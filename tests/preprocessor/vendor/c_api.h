/* A C library's header found through -I: C linkage only for C++ readers. */
#ifndef VENDOR_C_API_H
#define VENDOR_C_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vendor_buf { float *data; size_t len; } vendor_buf;
int vendor_open(const char *name, vendor_buf *out);
void vendor_close(vendor_buf *buf);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
