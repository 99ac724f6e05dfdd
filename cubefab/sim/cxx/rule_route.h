// The deterministic rule of the misrouted check (cubefab.topology.references
// RouteReference): a flit may take only the hop the reference route of its flow takes
// from this node (NEXT, reduced by TRANSLATION_MASK), on the VC the VC-assignment
// function gives it. Needs fabric.h; builds on flit.h.
#pragma once
#include <cstdint>
#include "flit.h"

static bool route_allowed(int node, int port, const Flit& f) {
    const uint32_t here = ADDRESS[node];
    const uint32_t t = f.dest & TRANSLATION_MASK;
    const int rep = REP_INDEX[f.dest ^ t];
    const uint32_t key = KEYS > 1 ? f.src >> KEY_SHIFT : 0;
    uint32_t x = f.src, vc_class = 0;
    for (int step = 0; step < ROUTE_LIMIT && x != f.dest; ++step) {
        const int u = INDEX[x];
        const int p = NEXT[rep][key][INDEX[x ^ t]];
        vc_class += WRAPS[u][p];
        if (vc_class > CLASSES - 1) vc_class = CLASSES - 1;
        if (x == here)
            return p == port && f.vc == ((vc_class << LANE_BITS) | flow_lane(f.src, f.dest));
        x = ADDRESS[NEIGHBORS[u][p]];
    }
    return false;
}
