/* host_copies.h - the put/get of a test communicator whose working buffers are host
 * memory (comm.h's runtime side), shared by the unit tests that make one. */
#ifndef COLLVIZ_TEST_HOST_COPIES_H
#define COLLVIZ_TEST_HOST_COPIES_H

#include <string.h>

#include "backend/comm.h"
#include "core/util.h"

static inline int host_put(struct comm *c, int rank, float *buf, size_t off, const float *src,
                           size_t count)
{
    (void)c;
    (void)rank;
    memcpy(buf + off, src, count * sizeof(float));
    return CV_OK;
}

static inline int host_get(struct comm *c, int rank, const float *buf, size_t off, float *dst,
                           size_t count)
{
    (void)c;
    (void)rank;
    memcpy(dst, buf + off, count * sizeof(float));
    return CV_OK;
}

#endif
