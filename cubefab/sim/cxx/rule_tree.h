// The broadcast copies' rule of replicating routers (cubefab.topology.references
// BroadcastReference): a copy may cross only a link of its source's tree (BCHILDREN),
// on the VC of BVC; a broadcast of src goes to the other members of its group
// (GROUP_MASK; 0: every other node), BCOPIES copies with groups. Needs fabric.h;
// builds on flit.h.
#pragma once
#include <cstdint>
#include "flit.h"

// a copy from the source of f.src (a node) leaving node `node` through `port`
static bool copy_allowed(int node, int port, const Flit& f) {
    const int s = INDEX[f.src];
    return ((BCHILDREN[s][node] >> port) & 1) && f.vc == BVC[s][NEIGHBORS[node][port]];
}

// whether the node of dense index r receives the broadcasts of address src
static bool copy_receives(uint32_t src, int r) {
    return INDEX[src] >= 0 && ADDRESS[r] != src && ((ADDRESS[r] ^ src) & GROUP_MASK) == 0;
}

// the copies a broadcast of address src (a node) makes
static int copy_count(uint32_t src) { return GROUP_MASK ? BCOPIES[INDEX[src]] : N - 1; }
