/* recview.h - each communicator's own picture: its rings, trees and links, and the record
 * seen as that communicator alone (what the topology screen draws and the JSON gives of it).
 *
 * A record's rings, trees and links (records.h) keep the first of each channel and rank, so
 * with several communicators (rank numbers are each one's own) they would mix them. While
 * reading, each ring, tree entry and link keeps the unit (reccomm.h) whose line it is; after
 * the units are grouped, rec_ctopo_build gives each communicator what its units printed. A
 * record of one communicator is its own picture: nothing is copied (alias). */
#ifndef COLLVIZ_RECORDS_RECVIEW_H
#define COLLVIZ_RECORDS_RECVIEW_H

#include <stdbool.h>

#include "records/records.h"

struct rec_ctopo {
    bool alias;             /* the record's one communicator: its rings, trees, links, ranks */
    int nchan;              /* rings[] and trees[] hold channels 0..nchan-1 */
    struct rec_ring *rings; /* orders owned */
    struct rec_tree *trees; /* nodes owned */
    int *links;             /* indexes into L->links */
    int nlinks;
    int nranks;            /* host[], device[]: ranks 0..nranks-1 */
    int *host;             /* host id (reccomm.h), -1 unknown */
    int *device;           /* -1 unknown */
    bool rings_from_links; /* no ring line: its rings are its link lines' cycles */
};

/* After the units are grouped (rec_comm_finish): L->ctopo, one per communicator; a
 * connection's two lines (send and receive, two processes) of one communicator become one
 * link, and the links' comm is set. Called by rec_finish. */
void rec_ctopo_build(struct rec_log *L);
void rec_ctopo_free(struct rec_log *L);

/* The record as communicator comm alone: its rings, trees, links, ranks (hosts and devices
 * as its processes said), size and nodes; what is not per communicator (tests, warnings,
 * hosts' networks) is the record's. comm -1, or a record of one communicator: the record
 * itself. view.v is read-only: its pointers are the record's or the view's own. */
struct rec_view {
    struct rec_log v;
    struct rec_rank *ranks; /* owned (NULL: the record's) */
    struct rec_link *links; /* owned (NULL: the record's) */
};
void rec_view_make(const struct rec_log *L, int comm, struct rec_view *out);
/* The communicator the record's own rings and trees are taken from when one picture is
 * wanted (the JSON's top-level rings and trees, --ring-order-from): the largest (most ranks:
 * its nranks, else the ranks its lines name; the first of equal ones); -1 when it has none. */
int rec_main_comm(const struct rec_log *L);
void rec_view_free(struct rec_view *w);
/* Whether communicator comm's rings (its view's) were pieced from its link lines, no ring
 * line or a cut one having given them: the JSON's rings_from_links, the text's words. */
bool rec_rings_from_links(const struct rec_log *L, int comm);

/* Channel c's links (links[idx[i]], or links[i] when idx is NULL, i < n) as one ring: the
 * one cycle they make through every rank in them (each one successor, one predecessor; ranks
 * below slots), and through nranks ranks when that is known (nranks > 0). cut: a ring line
 * NCCL cut (its first ranks), NULL none: the cycle must follow it and starts where it does;
 * else it starts at its lowest rank. Returns the order (malloc'd, *len ranks), NULL none. */
int *rec_links_ring(const struct rec_link *links, const int *idx, int n, int c, int slots,
                    int nranks, const struct rec_ring *cut, int *len);

#endif
