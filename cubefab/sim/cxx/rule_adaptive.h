// The adaptive rule of the misrouted check (cubefab.topology.references
// AdaptiveReference): an offered adaptive port (OFFERED) on the flow's adaptive VC, or
// the escape port (ESCAPE) on the escape VC of the class the flit carries, which the
// hop can give. Needs fabric.h; builds on flit.h.
#pragma once
#include <cstdint>
#include "flit.h"

static bool route_allowed(int node, int port, const Flit& f) {
    const uint32_t here = ADDRESS[node];
    const uint32_t t = f.dest & TRANSLATION_MASK;
    const int rep = REP_INDEX[f.dest ^ t], u = INDEX[here ^ t];
    if (f.cls >= CLASSES || (f.cls == 0 && CLASSES > 1 && WRAPS[node][port])) return false;
    if (f.vc == ESCAPE_VCS + flow_lane(f.src, f.dest, ADAPTIVE_LANE_BITS))
        return (OFFERED[rep][u] >> port) & 1;
    return f.vc == ((f.cls << LANE_BITS) | flow_lane(f.src, f.dest)) && ESCAPE[rep][u] == port;
}
