// The broadcast copies' rule of fault-tolerant replicating routers
// (cubefab.topology.references FloodReference): a copy may cross only a link of the
// flood of the healthy network's spanning tree from its source, on the one broadcast
// VC; a broadcast goes to the other healthy members of its group. The flood comes
// from the run's fault file (faults.h; none without: no copy is allowed). Needs
// fabric.h; builds on flit.h and faults.h.
#pragma once
#include <cstdint>
#include "flit.h"
#include "faults.h"

static bool copy_allowed(int node, int port, const Flit& f) {
    const int s = INDEX[f.src];
    return FAULTS.flood && ((FAULTS.flood_children[(std::size_t)s * N + node] >> port) & 1)
           && f.vc == FAULTS.flood_vc;
}

// a healthy node but the source receives its broadcasts (the run's fault set: links
// do not fail mid-run with replicating routers), within its group
static bool copy_receives(uint32_t src, int r) {
    const int s = INDEX[src];
    return FAULTS.flood && s >= 0 && ADDRESS[r] != src
           && ((ADDRESS[r] ^ src) & GROUP_MASK) == 0
           && !FAULTS.references[0].faulty[r] && !FAULTS.references[0].faulty[s];
}

static int copy_count(uint32_t src) { return FAULTS.flood ? FAULTS.flood_copies[INDEX[src]] : 0; }
