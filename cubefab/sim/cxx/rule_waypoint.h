// The waypoint rule of the misrouted check of fault-tolerant routers
// (cubefab.topology.references WaypointReference, AnyReference): the waypoint routes
// of the run's fault sets, read from its fault file (faults.h). Needs fabric.h; builds
// on flit.h and faults.h.
#pragma once
#include <cstdint>
#include "flit.h"
#include "faults.h"

// The port of the reference routing at node x toward target (NEXT, reduced by the
// translations as in rule_route.h).
static inline int reference_port(uint32_t x, uint32_t target) {
    const uint32_t t = target & TRANSLATION_MASK;
    return NEXT[REP_INDEX[target ^ t]][0][INDEX[x ^ t]];
}

// Whether flit f may leave the node of dense index `node` through `port`: its header
// names the waypoints of its pair, the node, the link and the next node are healthy,
// and the waypoint route of its pair takes that hop in the phase the flit carries, on
// VC phase * CLASSES + class (the class 0 on a new leg, up one on a wrap link).
static bool waypoint_allowed_in(const FaultReference& ref, int node, int port, const Flit& f) {
    if (INDEX[f.src] < 0 || INDEX[f.dest] < 0) return false;
    if (ref.faulty[INDEX[f.src]] || ref.faulty[INDEX[f.dest]]) return false;
    if (ref.faulty[node] || ref.faulty_channel[node * D + port]) return false;
    const uint64_t k = FaultReference::key(f.src, f.dest);
    if (ref.refused.count(k)) return false;
    auto it = ref.headers.find(k);
    const uint32_t count = it == ref.headers.end() ? 0 : (uint32_t)it->second.size();
    if (f.count != count) return false;
    for (uint32_t j = 0; j < count; ++j)
        if (f.waypoint[j] != it->second[j]) return false;
    const uint32_t here = ADDRESS[node];
    uint32_t x = f.src, phase = 0, vc_class = 0;
    for (int step = 0; step < (int)(WAYPOINTS + 1) * ROUTE_LIMIT; ++step) {
        bool advanced = false;
        while (phase < count && x == f.waypoint[phase]) { ++phase; advanced = true; }
        const uint32_t target = phase < count ? f.waypoint[phase] : f.dest;
        if (x == target) return false;   // delivered before reaching `here`
        const int u = INDEX[x];
        const int p = reference_port(x, target);
        vc_class = (advanced ? 0 : vc_class) + WRAPS[u][p];
        if (vc_class > CLASSES - 1) vc_class = CLASSES - 1;
        if (x == here && phase == f.phase)
            return p == port && f.vc == (((phase * CLASSES + vc_class) << LANE_BITS)
                                         | flow_lane(f.src, f.dest));
        x = ADDRESS[NEIGHBORS[u][p]];
    }
    return false;
}

// With links failing mid-run, the routing of any fault set of the run
// (cubefab.topology.references.AnyReference): their packets share the network.
static bool route_allowed(int node, int port, const Flit& f) {
    static const FaultReference fault_free;
    if (FAULTS.references.empty()) return waypoint_allowed_in(fault_free, node, port, f);
    for (const FaultReference& ref : FAULTS.references)
        if (waypoint_allowed_in(ref, node, port, f)) return true;
    return false;
}
