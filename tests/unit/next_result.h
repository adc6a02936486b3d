/* next_result.h - the unit tests' wait for a worker's next result (worker.h): poll() on
 * the worker's wake fd, at most timeout_s. 1 with *r filled, 0 on timeout. */
#ifndef COLLVIZ_TEST_NEXT_RESULT_H
#define COLLVIZ_TEST_NEXT_RESULT_H

#include <poll.h>

#include "core/util.h"
#include "worker/worker.h"

static inline int next_result(struct worker *w, struct result *r, double timeout_s)
{
    double deadline = now_s() + timeout_s;
    for (;;) {
        if (worker_poll(w, r)) return 1;
        double left = deadline - now_s();
        if (left <= 0) return 0;
        struct pollfd pfd = {.fd = worker_fd(w), .events = POLLIN};
        poll(&pfd, 1, (int)(left * 1000) + 1);
    }
}

#endif
