/* notes_ipc.h - the presenter's speaker notes, published over a Unix socket to any number of
 * `collviz notes` terminals.
 *
 * The presenter (server) owns the socket $XDG_RUNTIME_DIR/collviz/NAME.sock (or
 * ${TMPDIR:-/tmp}/collviz-UID/NAME.sock when there is no runtime dir): the directory is
 * private (0700, ours, not a link: an existing one that is not is refused) and the socket is
 * 0600. It never reads from a client and never blocks on one: sends are non-blocking and a
 * client that cannot take a whole message at once is dropped (it reconnects and gets the
 * current state again). The notes side only reads.
 *
 * A message is a frame: the 4 bytes "CVN1", the payload length as 4 bytes big-endian
 * (at most NOTES_PAYLOAD_MAX), then a JSON object (cJSON) with every field of struct
 * notes_state. Frames are validated field by field; anything malformed is refused with a
 * message and the reader drops the connection. */
#ifndef COLLVIZ_PRESENT_NOTES_IPC_H
#define COLLVIZ_PRESENT_NOTES_IPC_H

#include <stdbool.h>
#include <stddef.h>

#define NOTES_MAGIC "CVN1"
#define NOTES_HDR 8
#define NOTES_PAYLOAD_MAX (64 * 1024)
#define NOTES_TEXT_MAX 256          /* lesson and slide titles, bytes with the NUL */
#define NOTES_NOTE_MAX (16 * 1024)  /* the speaker note, bytes with the NUL */
#define NOTES_ANSWER_MAX (8 * 1024) /* the slide's answers and solutions, with the NUL */
#define NOTES_KEYS_MAX 1024         /* the keys line, with the NUL */
#define NOTES_NARR_MAX (8 * 1024)   /* the narration the room's page leaves out, with the NUL */
#define NOTES_STATUS_MAX 512        /* the presenter's message or prompt, with the NUL */
#define NOTES_MINUTES_MAX 100000
#define NOTES_NAME_MAX 32 /* --name: [A-Za-z0-9._-], not starting with '.' */
#define NOTES_SLIDES_MAX 100000
#define NOTES_CLIENTS_MAX 16

/* What the speaker sees on the notes terminal. slide is 1-based; next is "" on the last
 * slide. */
struct notes_state {
    char lesson[NOTES_TEXT_MAX];
    int slide, nslides;
    char title[NOTES_TEXT_MAX];
    char note[NOTES_NOTE_MAX];
    char next[NOTES_TEXT_MAX];
    long elapsed_s;
    bool blanked;
    /* Optional in a message (absent: empty, 0): the slide's exercises' answers and worked
     * solutions (quiz.h), the presenter's keys that work now, and the minutes the deck's
     * lessons plan (their minutes:), for the countdown. */
    char answer[NOTES_ANSWER_MAX];
    char keys[NOTES_KEYS_MAX];
    int minutes;
    /* Also optional: what the presenter says to the speaker and never to the room (a
     * prompt being typed, the overview's choice, a key's answer, an error, a failed reload),
     * the backends that can measure here and why the others cannot (said once, here), and
     * whether the scene is a live demo rather than the slide's own (`0` brings it back). */
    char status[NOTES_STATUS_MAX];
    char backend[NOTES_TEXT_MAX];
    bool demo;
    /* Optional: what the scene's screen says of its own work, which the room does not see
     * (a measurement or training under way, a result being replaced, a check pending, what
     * its panel could not fit), the pieces apart by " · ". */
    char work[NOTES_STATUS_MAX];
    /* Optional too: the slide's narration that the page it opens on does not show the room (a
     * small terminal shows the scene with the narration's lead: the speaker says the rest, or
     * PageUp shows it), blocks apart by an empty line. */
    char narr[NOTES_NARR_MAX];
};

/* Copy src into dst (size n), cut at a UTF-8 character boundary when it is too long. */
void notes_copy(char *dst, size_t n, const char *src);

/* A frame for st in a new buffer (*out, free()), its size in *len. CV_OK or CV_EINVAL. */
int notes_encode(const struct notes_state *st, char **out, size_t *len, char *err,
                 size_t errlen);
/* Decode one payload (the JSON, without the header) into *st. CV_OK, or CV_EINVAL naming
 * the bad field. */
int notes_decode(const char *payload, size_t len, struct notes_state *st, char *err,
                 size_t errlen);

/* Reassembles frames from a byte stream. */
struct notes_reader {
    unsigned char *buf; /* NOTES_HDR + NOTES_PAYLOAD_MAX */
    size_t have;
};
void notes_reader_init(struct notes_reader *r);
void notes_reader_free(struct notes_reader *r);
void notes_reader_reset(struct notes_reader *r);
/* Take bytes from data; returns how many were taken (fewer than n only when a whole frame
 * is waiting: call notes_reader_next, then push the rest). */
size_t notes_reader_push(struct notes_reader *r, const void *data, size_t n);
/* The next complete frame: CV_OK with *got set (false: more bytes needed), or CV_EINVAL on a
 * bad header or payload (the stream is then unusable: drop the connection). */
int notes_reader_next(struct notes_reader *r, struct notes_state *st, bool *got, char *err,
                      size_t errlen);

/* Push all of data and decode every frame it completes: *got when at least one did, *st
 * then holds the latest. CV_EINVAL as notes_reader_next. */
int notes_reader_feed(struct notes_reader *r, const void *data, size_t n,
                      struct notes_state *st, bool *got, char *err, size_t errlen);

/* --name: CV_OK when usable, else CV_EINVAL with a message. */
int notes_name_check(const char *name, char *err, size_t errlen);
/* The socket path for name; creates the private directory when `create` (else only checks
 * an existing one). CV_OK, or CV_EINVAL with a message (a directory that is not private). */
int notes_socket_path(const char *name, bool create, char *path, size_t n, char *err,
                      size_t errlen);

struct notes_server;
/* Listen on NAME's socket. Refuses (CV_EINVAL) when a presenter with that name is already
 * listening; a stale socket of ours from a dead presenter is replaced. */
int notes_server_open(struct notes_server **out, const char *name, char *err, size_t errlen);
/* The listening descriptor, for poll(): readable when a client waits to be accepted. */
int notes_server_fd(const struct notes_server *s);
const char *notes_server_path(const struct notes_server *s);
/* Accept every waiting client; each is sent the last published state at once. */
void notes_server_accept(struct notes_server *s);
/* Send st to every client when it differs from the last state sent; drops clients that
 * cannot take it. */
void notes_server_publish(struct notes_server *s, const struct notes_state *st);
int notes_server_nclients(const struct notes_server *s);
/* Close the clients and the socket and remove the socket file. NULL is fine. */
void notes_server_close(struct notes_server *s);

/* Connect to NAME's presenter: CV_OK with a non-blocking descriptor in *fd, CV_EUNAVAIL when
 * none is listening (err says so), CV_EINVAL for a bad name or a directory not ours. */
int notes_client_connect(const char *name, int *fd, char *err, size_t errlen);

#endif
