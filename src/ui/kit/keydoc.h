/* keydoc.h - the key table written as documentation (see keydoc.c). */
#ifndef COLLVIZ_UI_KIT_KEYDOC_H
#define COLLVIZ_UI_KIT_KEYDOC_H

#include <stdio.h>

#include "ui/kit/keys.h"

/* The width of the keys' column in keys_doc_surface's lines. */
#define KEYDOC_KEYS_W 18

/* Every row of UI_KEY_TABLE as a Markdown table: its keys, its help text and the screens
 * it works on, in table order. */
void keys_doc_markdown(FILE *out);

/* The keys of surface s (the presenter, the player) as --help's plain text, from the same
 * table: "Keys:" and the surface's own rows, then under "On a collectives scene:" (and
 * parallelism, hierarchy) each scene row first shown there; one line a row, "  KEYS  help",
 * the keys column KEYDOC_KEYS_W wide, naming only the keys that do the row's action there
 * (ASCII names: "Right", "PgDn", "Shift+F5"). A row no key reaches there is left out. */
void keys_doc_surface(FILE *out, enum keys_surface s);

/* The rows shown where `on` (a KEYS_ON_* bit with rows of its own: the notes terminal's) as
 * --help's plain text: "Keys:", then one line a row as keys_doc_surface writes them, every
 * key of the row named. */
void keys_doc_rows(FILE *out, unsigned on);

#endif
