/* topotests.h - the topology screen's nccl-tests view (key T): one test of the record at a
 * time, busbw against size on a log-scale size axis, out-of-place and in-place as measured
 * (from the file), the α-β model fitted to the out-of-place rows (records/recfit.h, the
 * path of `collviz model --fit`) drawn as its curve and given as α, β and R², labelled
 * model. */
#ifndef COLLVIZ_UI_SCREENS_TOPOLOGY_TOPOTESTS_H
#define COLLVIZ_UI_SCREENS_TOPOLOGY_TOPOTESTS_H

#include "ui/kit/rect.h"

struct app;

/* Test k (0-based) of the screen's record (topo_record) into r. */
void topo_tests_draw(const struct app *a, struct rect r, int k);

#endif
