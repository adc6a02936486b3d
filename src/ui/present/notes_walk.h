/* notes_walk.h - the notes terminal walked off-screen: every slide of a deck as the presenter
 * sends it (present_script: the presenter driven without a terminal), shown by the notes view
 * (notes_view.h) on a private curses screen of a given size (kit/svg.h), read back cell by cell
 * and checked, as the speaker would use it with the presenter's clicker in the other hand:
 *
 *   - every word of the slide's note, its answers and solutions and the narration the room's
 *     page leaves out is reachable: the body read from its top, one line key (↓) at a time,
 *     holds each of them whole and in order (whitespace aside: the view wraps);
 *   - a mark says where text goes on: "↓ more" with the key that shows it on every page with
 *     text below, "↑ more" on every page with text above, and neither where there is none;
 *   - the keys agree: ↓ and j scroll one line, PgDn and Space a page with no line skipped,
 *     PgUp back to the top, End the last page, Home the first;
 *   - the view follows the presenter: a new slide opens at the top of its notes (as a fresh
 *     view shows it), and the same slide sent again (the clock ticks every second) keeps the
 *     place the speaker scrolled to;
 *   - no row of the screen ends in "…" (a cut title, status or backend line);
 *   - the note has the screen: its body gets half the rows or more (the keys take one
 *     line, `?` shows them all);
 *   - every key the presenter sent is on the screen, or on the page `?` shows, and `?`
 *     again gives the note back where it was.
 * Used by tests/unit/test_notes_walk.c over the shipped deck and a lesson with long notes. */
#ifndef COLLVIZ_UI_PRESENT_NOTES_WALK_H
#define COLLVIZ_UI_PRESENT_NOTES_WALK_H

#include <stddef.h>
#include <stdio.h>

/* Slides walked, and slides with each kind of finding. */
struct notes_walk_counts {
    long slides;
    long long_notes; /* slides whose body needs more than one screen */
    long lost;       /* some words of the note, answers or narration not reachable */
    long unmarked;   /* a page with text below or above it and no mark saying so */
    long false_mark; /* a mark on a page with nothing below (or above) it */
    long keys_bad;   /* a key that does not scroll as it says */
    long not_reset;  /* a new slide not opened at the top of its notes */
    long jumped;     /* the same slide sent again moved the view */
    long cut_rows;   /* a row ending in "…" */
    long cramped;    /* the note's body got fewer than half the rows */
    long keylist;    /* a presenter's key neither shown nor behind ?, or ? not undone */
};

/* Walk every slide of path (a lesson file or a folder) with the presenter and the notes
 * terminal both cols x rows. Each finding is printed to log (NULL: not printed) as one line,
 * at most max_log of them. CV_OK, or an error in err. */
int notes_walk(const char *path, int cols, int rows, struct notes_walk_counts *c, FILE *log,
               int max_log, char *err, size_t errlen);

#endif
