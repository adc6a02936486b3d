/* lesson_draw.h - drawing the lesson player (lesson_draw.c). Its entry points, lesson_draw
 * and lesson_help, are declared in lesson_ui.h, the player's one public header. */
#ifndef COLLVIZ_UI_SCREENS_LESSON_LESSON_DRAW_H
#define COLLVIZ_UI_SCREENS_LESSON_LESSON_DRAW_H

#include "ui/screens/lesson/lesson_ui.h"

#endif
