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

/* What `collviz --present` was asked (its options: cli/present.c). */
struct present_opts {
    const char *path;       /* the lesson file or folder */
    const char *name;       /* what `collviz notes --name` follows ("default") */
    double auto_s;          /* --auto: seconds per slide, 0 = off */
    const char *backend;    /* for the scenes' measurements ("auto") */
    const char *start;      /* --start N|TITLE, or NULL: where the deck was left */
    const char *export_dir; /* --export-dir, or NULL: the default */
    bool no_measure, no_big_digits, no_color, ascii;
};

/* The talk: load the deck, check the name, start the terminal, run until q or a signal.
 * Returns the exit status (2 for a bad name, lessons with errors or no terminal). */
int present_run(const struct present_opts *o);

#endif
