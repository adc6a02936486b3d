/* present.h - `collviz --present PATH`: a lesson file (or a folder of them, in order) shown
 * full screen for a lecture hall and driven by a presentation clicker.
 *
 * Each slide: its title, its narration in a centred column (narr.h), and its scene
 * drawn by the scene's own screen into the rest of the terminal (through app_set_scene,
 * embedded: no key bar); a one-row footer holds slide x/N, the step, the elapsed time and
 * any message. Speaker notes are never drawn: they go to `collviz notes` over notes_ipc.
 * The lesson files are polled once a second and reloaded in place; a version that does not
 * validate leaves the previous one on screen and shows the error in the footer. */
#ifndef COLLVIZ_UI_PRESENT_PRESENT_H
#define COLLVIZ_UI_PRESENT_PRESENT_H

#include <stdbool.h>
#include <stddef.h>

/* What `collviz --present` was asked (its options: cli/present.c). */
struct present_opts {
    const char *path;        /* the lesson file or folder */
    const char *const *more; /* further lesson files or folders after it: one deck */
    int nmore;
    const char *name;       /* what `collviz notes --name` follows ("default") */
    double auto_s;          /* --auto: seconds per slide, 0 = off */
    const char *backend;    /* for the scenes' measurements ("auto") */
    const char *start;      /* --start N|TITLE, or NULL: slide 1 (or --resume) */
    bool resume;            /* --resume: where the deck was left, with its clock */
    int minutes;            /* --minutes: the talk's length for the countdown (0: the
                               lessons' minutes:) */
    const char *export_dir; /* --export-dir, or NULL: the default */
    bool no_measure, no_big_digits, no_color, ascii;
    /* present_script only: no notes terminal is taken to follow the talk (the footer tells
     * the speaker what the notes would), as a talk without `collviz notes` */
    bool script_alone;
};

/* The talk: load the deck, check the name, start the terminal, run until q or a signal.
 * Returns the exit status (2 for a bad name, lessons with errors or no terminal). */
int present_run(const struct present_opts *o);

/* The presenter without a terminal, for tests: the deck of o loaded, drawn into a private
 * off-screen curses screen of cols x rows (kit/svg.h; stdscr while it is open) as the room
 * would see it with a notes terminal following; keys fed one at a time (a play a key starts
 * is run to its stop at once); the notes terminal's status, demo mark, backend line and the
 * narration's key sentences read back. CV_OK, or an error in err. */
struct present_script;
struct notes_state;
int present_script_open(struct present_script **out, const struct present_opts *o, int cols,
                        int rows, char *err, size_t errlen);
void present_script_key(struct present_script *s, int ch);
/* The worker's results taken in, as the talk's loop takes them, waiting up to wait_s
 * seconds for the first; how many there were. */
int present_script_results(struct present_script *s, double wait_s);
void present_script_draw(struct present_script *s);
void present_script_where(const struct present_script *s, size_t *slide, size_t *nslides,
                          int *page, int *npages, long *step);
/* what the notes terminal is sent (status, demo, backend, minutes, answers, the note with the
 * narration's sentences that ask for a key) */
void present_script_notes(struct present_script *s, struct notes_state *st);
void present_script_close(struct present_script *s);

/* The deck walker (ui/walk.h): every slide of path shown by the presenter on the current
 * curses screen through a (set up by the caller: theme, glyphs, surface), each page and,
 * on the scene's page, each step drawn in turn, then all of it again after each press of r
 * (one exercise's answer revealed to the room), then, on a collectives scene, a live demo's
 * slice views (2 slices; 4 x 2 channels) at their start, first tick and end; fn is called
 * after each frame with the
 * slide's lesson, its index there, the page, the step (-1: a page without the scene) and
 * how many of the slide's exercises are revealed.
 * CV_OK, or CV_EINVAL with the deck's first error in err. */
struct app;
struct lesson;
typedef void (*present_walk_fn)(void *ctx, const struct lesson *L, size_t slide, int page,
                                long step, size_t revealed);
int present_walk(const char *path, struct app *a, present_walk_fn fn, void *ctx, char *err,
                 size_t errlen);

#endif
