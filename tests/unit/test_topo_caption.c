/* test_topo_caption.c - the topology screen's tree caption says what is drawn, for every
 * channel with a tree of every communicator of every record of the corpus (tests/records/):
 * "chain" exactly when no rank of the trees drawn (the channel's and its other half's) has
 * two children; "double binary tree" with N ranks that have "another parent" exactly when
 * N ranks of both halves have different parents; "the same tree" only when none has. The
 * facts are counted here from the trees' nodes, not asked of the code under test. The
 * corpus must hold both kinds (a single node's chains, a cluster's two trees), or the test
 * could not fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "records/recfile.h"
#include "records/records.h"
#include "records/recview.h"
#include "ui/screens/topology/topotext.h"

#include "record_names.h"

static int branching(const struct rec_tree *t)
{
    int n = 0;
    for (int r = 0; r < t->n; r++)
        n += t->node[r].set && t->node[r].ndown >= 2;
    return n;
}

static int other_parent(const struct rec_tree *a, const struct rec_tree *b)
{
    int n = 0;
    for (int r = 0; r < a->n && r < b->n; r++)
        if (a->node[r].set && b->node[r].set && a->node[r].up != b->node[r].up) n++;
    return n;
}

static int chains, mirrored;

/* Every channel with a tree in view V: its caption against its trees. */
static void check_view(const char *name, const struct rec_log *V)
{
    for (int ch = 0; ch < REC_MAX_CHANNELS; ch++) {
        if (V->trees[ch].n == 0) continue;
        int other = topo_tree_partner(V, ch);
        char buf[200];
        const char *cap = topo_tree_caption(V, ch, other, buf, sizeof buf);
        int br = branching(&V->trees[ch]) + (other >= 0 ? branching(&V->trees[other]) : 0);
        int moved = other >= 0 ? other_parent(&V->trees[ch], &V->trees[other]) : 0;
        bool says_chain = strstr(cap, "chain") != NULL;
        bool says_mirrored = strstr(cap, "double binary tree") != NULL;
        bool says_same = strstr(cap, "the same tree") != NULL;
        char count[48];
        snprintf(count, sizeof count, "where %d rank%s ha", moved, moved == 1 ? "" : "s");
        if (says_chain != (br == 0) ||
            (!says_chain && says_mirrored != (moved > 0 && strstr(cap, count) != NULL)) ||
            (says_same && moved > 0))
            fail_msg("%s channel %d (other half %d): \"%s\" but %d ranks with two children, "
                     "%d with another parent in the other half",
                     name, ch, other, cap, br, moved);
        chains += br == 0;
        mirrored += says_mirrored;
    }
}

static void test_topo_caption(void **state)
{
    (void)state;
    DIR *d = opendir(DIR_RECORDS);
    assert_non_null(d);
    char *names[256];
    int n = record_names(d, names, 256);
    assert_true(n >= 30);
    for (int i = 0; i < n; i++) {
        char path[600], err[400];
        snprintf(path, sizeof path, "%s/%s", DIR_RECORDS, names[i]);
        struct rec_log *L = rec_new();
        rec_read_file(L, path, err, sizeof err);
        rec_finish(L);
        for (int c = L->ncomms > 1 ? 0 : -1; c < L->ncomms; c++) {
            struct rec_view w;
            rec_view_make(L, c, &w);
            check_view(names[i], &w.v);
            rec_view_free(&w);
        }
        rec_free(L);
        free(names[i]);
    }
    printf("tree captions: %d channels of chains, %d of mirrored halves\n", chains, mirrored);
    assert_true(chains > 0);
    assert_true(mirrored > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_topo_caption)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
