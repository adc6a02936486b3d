/* notes_view.h - `collviz notes`: the speaker's own terminal. It follows a running presenter
 * over notes_ipc (reading only) and shows the current slide's speaker note, the next
 * slide's title, the slide number, the elapsed time and a wall clock; it waits for (and
 * reconnects to) the presenter, and restores the terminal on every exit. A note (with the
 * slide's answers and the narration the room does not see) longer than the terminal is
 * wrapped to its width and scrolls with this terminal's own keys (the KEYS_ON_NOTES rows of
 * kit/keys.h; the presenter's keys are untouched), "more" marking where it goes on; a new
 * slide opens at the top of its note. */
#ifndef COLLVIZ_UI_PRESENT_NOTES_VIEW_H
#define COLLVIZ_UI_PRESENT_NOTES_VIEW_H

#include <stdbool.h>

/* Follow the presenter called name (its --name) until q or a signal; no_color: monochrome,
 * ascii: ASCII drawing characters. Returns the exit status: 2 for a bad name or no
 * terminal. (`collviz notes` itself, its options, is cli/notes.c.) */
int notes_view_run(const char *name, bool no_color, bool ascii);

/* The view itself, drawn on the current curses screen (stdscr): notes_view_run's, and an
 * off-screen one's for tests (notes_walk.h). new: after the screen started (its theme's
 * colours); name is kept, not copied. show: what the presenter sent, as if it came over the
 * socket (control characters cleaned, the note reflowed). key: one key pressed on this
 * terminal; true for quit. body: the rows the note, answers and unshown narration were
 * drawn in on the last draw (the first and how many). */
struct notes_view;
struct notes_state;
struct notes_view *notes_view_new(const char *name, bool utf8, bool color);
void notes_view_show(struct notes_view *v, const struct notes_state *st);
bool notes_view_key(struct notes_view *v, int ch);
void notes_view_draw(struct notes_view *v);
void notes_view_body(const struct notes_view *v, int *y0, int *h);
void notes_view_free(struct notes_view *v);

#endif
