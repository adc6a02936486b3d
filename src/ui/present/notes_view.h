/* notes_view.h - `collviz notes`: the speaker's own terminal. It follows a running presenter
 * over notes_ipc (reading only) and shows the current slide's speaker note, the next
 * slide's title, the slide number, the elapsed time and a wall clock; it waits for (and
 * reconnects to) the presenter, and restores the terminal on every exit. */
#ifndef COLLVIZ_UI_PRESENT_NOTES_VIEW_H
#define COLLVIZ_UI_PRESENT_NOTES_VIEW_H

#include <stdbool.h>

/* Follow the presenter called name (its --name) until q or a signal; no_color: monochrome,
 * ascii: ASCII drawing characters. Returns the exit status: 2 for a bad name or no
 * terminal. (`collviz notes` itself, its options, is cli/notes.c.) */
int notes_view_run(const char *name, bool no_color, bool ascii);

#endif
