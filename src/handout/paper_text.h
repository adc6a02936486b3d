/* paper_text.h - what a lesson's text becomes on paper (the PDF and HTML handouts).
 *
 * Paper has no keys. The narration is written for the player ("Press `o` to cycle the
 * operation"); on paper a sentence that names a key is left out, by the markup the player
 * itself reads (lessons/README.md): a "press" ("press", "presses", "pressing", "pressed"),
 * a key in a code span (one character, `o` `[` `O`, as the presenter retargets it; or a
 * key's name, `Enter` `Space` `PgDn` `→`), an arrow key after "with" ("with →", "with the
 * right arrow"). Where the key sits in a parenthesis inside a sentence, only the
 * parenthesis goes ("The size is 64 MiB here (`[` and `]` halve it)." keeps "The size is
 * 64 MiB here."); a sentence about "the key" after one that went, in the same paragraph,
 * goes too.
 * The rule reads the text, not a list of sentences: it holds for lessons not yet written.
 *
 * Numbers on paper: three significant digits, and a fraction where the answer is one
 * ("3/7 ≈ 0.429"). */
#ifndef COLLVIZ_HANDOUT_PAPER_TEXT_H
#define COLLVIZ_HANDOUT_PAPER_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson/lesson.h"

/* One piece of a paragraph: plain text, a code span's text, or markup (an HTML tag: kept,
 * never read). */
enum paper_piece_kind { PAPER_TEXT, PAPER_CODE, PAPER_MARKUP };
struct paper_piece {
    const char *s;
    size_t n;
    enum paper_piece_kind kind;
};

/* Which bytes of the paragraph paper keeps: keep[] has one entry per byte of the pieces
 * laid end to end (sum of n), false where a sentence (or parenthesis) naming a key is left
 * out; markup is always kept. Returns how many sentences or parentheses went. */
size_t paper_text_keep(const struct paper_piece *p, size_t np, bool *keep);

/* Whether one sentence (code spans between backticks) names a key. */
bool paper_text_names_key(const char *sentence, size_t n);

/* A narration block as paper prints it: *out a copy of b without the sentences that name
 * a key (its spans new strings; free with paper_text_block_free). Returns false when
 * nothing of it is left to print (then *out holds nothing to free). */
bool paper_text_block(const struct lesson_block *b, struct lesson_block *out);
void paper_text_block_free(struct lesson_block *b);

/* md4c's HTML of a slide as paper prints it (a new string): the same rule over each
 * paragraph, list item, cell or heading; <pre> blocks are not narration and stay; an
 * element left empty goes. */
char *paper_text_html(const char *html);

/* A number as paper writes it: 3 significant digits ("83.3", "0.0412", "2.5"), whole from
 * 100 up ("419", "1235"), integers in full ("524288"), and p/q first when x is a ratio of
 * small numbers (denominator <= 12, numerator < 100) that 3 digits would round ("3/7 ≈
 * 0.429", "1/3 ≈ 0.333"; "0.5", not "1/2 ≈ 0.5"). */
void paper_text_number(double x, char *buf, size_t n);

#endif
