/* ui.h - the interactive program (ncurses). Runs on the main thread; owns the terminal. */
#ifndef COLLVIZ_UI_UI_H
#define COLLVIZ_UI_UI_H

/* argv[0] is the program name; parses the UI's own options (--ranks, --backend,
 * --no-color, --ascii, ...). Returns the exit status. */
int ui_main(int argc, char **argv);

/* `collviz lesson [FILE|ID] [options]` without a verb: the interactive lesson player (the
 * list of lessons, or one lesson at its saved slide). argv[0] is "lesson". */
int ui_lesson_main(int argc, char **argv);

#endif
