/* frame.h - the whole terminal (frame.c): the current screen drawn into the terminal's
 * rect, the overlays over it, and the key bar helper screens use. */
#ifndef COLLVIZ_UI_FRAME_H
#define COLLVIZ_UI_FRAME_H

#include "ui/kit/rect.h"

struct app;

/* Erase, draw the current screen into the whole terminal, the open overlay, refresh. */
void frame_draw(struct app *a);
/* A screen's key bar in r (rows of keys_on); nothing when the screen is embedded in a frame
 * that draws its own bar. Remembers where it went, for mouse clicks. */
void frame_bar(struct app *a, struct rect r, unsigned keys_on);

#endif
