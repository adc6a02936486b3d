/* usock.c - private Unix sockets (usock.h): the directory checks, listen with stale-socket
 * replacement, connect after checking who owns the socket. */
#include "sys/usock.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/util.h"

#define USOCK_PATH_MAX sizeof(((struct sockaddr_un *)0)->sun_path)

int usock_dir_private(const char *who, const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        return cv_err(err, errlen, CV_EINVAL, "%s: %s: %s", who, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cv_err(err, errlen, CV_EINVAL, "%s: %s is not a directory: refusing to use it",
                      who, dir);
    if (st.st_uid != getuid() || (st.st_mode & 077) != 0)
        return cv_err(err, errlen, CV_EINVAL,
                      "%s: %s is not private (owner %u, mode %03o; need owner %u, mode "
                      "700): refusing to use it",
                      who, dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777),
                      (unsigned)getuid());
    return CV_OK;
}

int usock_dir(const char *who, bool create, char *dir, size_t n, char *err, size_t errlen)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && xdg[0] == '/') {
        snprintf(dir, n, "%s/collviz", xdg);
    } else {
        const char *tmp = getenv("TMPDIR");
        if (!tmp || tmp[0] != '/') tmp = "/tmp";
        snprintf(dir, n, "%s/collviz-%u", tmp, (unsigned)getuid());
    }
    if (create && mkdir(dir, 0700) != 0 && errno != EEXIST)
        return cv_err(err, errlen, CV_EINVAL, "%s: cannot create %s: %s", who, dir,
                      strerror(errno));
    if (!create && access(dir, F_OK) != 0)
        return cv_err(err, errlen, CV_EUNAVAIL, "%s: %s does not exist", who, dir);
    return usock_dir_private(who, dir, err, errlen);
}

static int usock_addr(const char *who, const char *path, struct sockaddr_un *a, char *err,
                      size_t errlen)
{
    if (strlen(path) >= USOCK_PATH_MAX)
        return cv_err(err, errlen, CV_EINVAL, "%s: socket path %s is too long", who, path);
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    snprintf(a->sun_path, sizeof a->sun_path, "%s", path);
    return CV_OK;
}

int usock_listen(const char *who, const char *path, int *out, bool *busy, char *err,
                 size_t errlen)
{
    *out = -1;
    if (busy) *busy = false;
    struct sockaddr_un a;
    int rc = usock_addr(who, path, &a, err, errlen);
    if (rc != CV_OK) return rc;
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode) || st.st_uid != getuid())
            return cv_err(err, errlen, CV_EINVAL, "%s: %s exists and is not our socket", who,
                          path);
        /* A server that answers still owns the path; a socket nobody answers is left over
         * from one that died. */
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (probe >= 0 && connect(probe, (struct sockaddr *)&a, sizeof a) == 0) {
            close(probe);
            if (busy) *busy = true;
            return cv_err(err, errlen, CV_EINVAL, "%s: %s is in use", who, path);
        }
        if (probe >= 0) close(probe);
        unlink(path);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return cv_err(err, errlen, CV_EINVAL, "%s: socket: %s", who, strerror(errno));
    /* The socket file is created 0600 by bind under this umask (and chmod'ed again: the
     * directory is private anyway, so no other user can reach it in between). */
    mode_t old = umask(0177);
    int b = bind(fd, (struct sockaddr *)&a, sizeof a);
    umask(old);
    if (b != 0 || chmod(path, 0600) != 0 || listen(fd, 16) != 0) {
        rc = cv_err(err, errlen, CV_EINVAL, "%s: cannot listen on %s: %s", who, path,
                    strerror(errno));
        close(fd);
        if (b == 0) unlink(path);
        return rc;
    }
    *out = fd;
    return CV_OK;
}

int usock_connect(const char *who, const char *path, int *out, char *err, size_t errlen)
{
    *out = -1;
    struct sockaddr_un a;
    int rc = usock_addr(who, path, &a, err, errlen);
    if (rc != CV_OK) return rc;
    char dcopy[USOCK_PATH_MAX];
    snprintf(dcopy, sizeof dcopy, "%s", path);
    if ((rc = usock_dir_private(who, dirname(dcopy), err, errlen)) != CV_OK) return rc;
    struct stat st;
    if (lstat(path, &st) != 0)
        return cv_err(err, errlen, CV_EUNAVAIL, "%s: nothing listens on %s (%s)", who, path,
                      strerror(errno));
    if (!S_ISSOCK(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077) != 0)
        return cv_err(err, errlen, CV_EINVAL,
                      "%s: %s is not our private socket (owner %u, mode %03o; need owner %u, "
                      "mode 600): refusing to use it",
                      who, path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777),
                      (unsigned)getuid());
    int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0) return cv_err(err, errlen, CV_EUNAVAIL, "%s: socket: %s", who, strerror(errno));
    if (connect(c, (struct sockaddr *)&a, sizeof a) != 0) {
        rc = cv_err(err, errlen, CV_EUNAVAIL, "%s: nothing listens on %s (%s)", who, path,
                    strerror(errno));
        close(c);
        return rc;
    }
    *out = c;
    return CV_OK;
}
