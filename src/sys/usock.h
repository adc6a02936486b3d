/* usock.h - private Unix sockets for collviz's local connections (speaker notes, the UI's
 * link to a job): a directory only we can enter - $XDG_RUNTIME_DIR/collviz, else
 * ${TMPDIR:-/tmp}/collviz-UID - that must be a real directory (not a link), ours, mode 0700
 * (anything else is refused, never repaired), and sockets in it created 0600. `who` starts
 * every message ("notes", "serve"). */
#ifndef COLLVIZ_SYS_USOCK_H
#define COLLVIZ_SYS_USOCK_H

#include <stdbool.h>
#include <stddef.h>

/* The private directory into dir (size n); creates it when `create`. CV_OK, CV_EUNAVAIL when
 * it does not exist and !create, CV_EINVAL when it is not private (or cannot be made). */
int usock_dir(const char *who, bool create, char *dir, size_t n, char *err, size_t errlen);
/* CV_OK when dir is a real directory, ours, with no group/other access; else CV_EINVAL. */
int usock_dir_private(const char *who, const char *dir, char *err, size_t errlen);
/* Listen on path (in a private directory): an existing socket of ours that nobody answers
 * is replaced; one that answers, or a path that is not our socket, is refused (CV_EINVAL;
 * `busy` then says which). The socket is non-blocking and close-on-exec. */
int usock_listen(const char *who, const char *path, int *fd, bool *busy, char *err,
                 size_t errlen);
/* Connect to path: its directory must be private and the socket ours with mode 0600 (no
 * group/other bits), else CV_EINVAL; CV_EUNAVAIL when nobody listens. A blocking,
 * close-on-exec descriptor. */
int usock_connect(const char *who, const char *path, int *fd, char *err, size_t errlen);

#endif
