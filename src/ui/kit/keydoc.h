/* keydoc.h - the key table written as documentation (see keydoc.c). */
#ifndef COLLVIZ_UI_KIT_KEYDOC_H
#define COLLVIZ_UI_KIT_KEYDOC_H

#include <stdio.h>

/* Every row of UI_KEY_TABLE as a Markdown table: its keys, its help text and the screens
 * it works on, in table order. */
void keys_doc_markdown(FILE *out);

#endif
