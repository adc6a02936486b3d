/* present.h - `collviz --present PATH`: a lesson file (or a folder of them, in order) shown
 * full screen for a lecture hall and driven by a presentation clicker.
 *
 * Each slide: its title, its narration in a centred column (kit/narr.h), and its scene
 * drawn by the scene's own screen into the rest of the terminal (through app_set_scene,
 * embedded: no key bar); a one-row footer holds slide x/N, the step, the elapsed time and
 * any message. Speaker notes are never drawn: they go to `collviz notes` over notes_ipc.
 * The lesson files are polled once a second and reloaded in place; a version that does not
 * validate leaves the previous one on screen and shows the error in the footer. */
#ifndef COLLVIZ_PRESENT_PRESENT_H
#define COLLVIZ_PRESENT_PRESENT_H

/* True when argv asks for the presenter (an argument "--present" or "--present=PATH"). */
int present_wanted(int argc, char **argv);

/* The presenter's main. Returns the exit status (2 for bad options or lessons). */
int present_main(int argc, char **argv);

#endif
