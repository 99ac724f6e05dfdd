// The flits the harness checks read (cubefab.sim.checks.FlitFields): a flit's fields
// decoded from its raw bits by the offsets of fabric.h, and a flow's lane (the low VC
// bits of its pair). Needs fabric.h; checks.h and faults.h both build on it.
#pragma once
#include <cstdint>
#include "words.h"

struct Flit {
    int node;   // dense index of the node where it was seen
    bool head, tail, bcast, cut = false;
    uint32_t vc, cls, dest, src, stamp;
    uint32_t count = 0, phase = 0, waypoint[WAYPOINTS ? WAYPOINTS : 1] = {0};   // (waypoints: faults.h)
};

template <typename T> static inline Flit flit_of(const T& raw, int node) {
    Flit f;
    f.node = node;
    f.head = bits_of(raw, HEAD_LO, 1);
    f.tail = bits_of(raw, TAIL_LO, 1);
    f.bcast = BCAST_WIDTH ? bits_of(raw, BCAST_LO, 1) : false;
    f.vc = VC_WIDTH ? (uint32_t)bits_of(raw, VC_LO, VC_WIDTH) : 0;
    f.cls = CLS_WIDTH ? (uint32_t)bits_of(raw, CLS_LO, CLS_WIDTH) : 0;
    f.dest = (uint32_t)bits_of(raw, DEST_LO, ADDRESS_BITS);
    f.src = (uint32_t)bits_of(raw, SRC_LO, ADDRESS_BITS);
    f.stamp = (uint32_t)bits_of(raw, PAYLOAD_LO, TIMESTAMP_BITS);
    if (WAYPOINTS) {
        f.count = (uint32_t)bits_of(raw, WAYPOINT_COUNT_LO, WAYPOINT_FIELD_WIDTH);
        f.phase = (uint32_t)bits_of(raw, PHASE_LO, WAYPOINT_FIELD_WIDTH);
        f.cut = bits_of(raw, CUT_LO, 1);
        for (int j = 0; j < WAYPOINTS; ++j)
            f.waypoint[j] = (uint32_t)bits_of(raw, WAYPOINT_LO + j * ADDRESS_BITS, ADDRESS_BITS);
    }
    return f;
}

static inline uint32_t flow_lane(uint32_t src, uint32_t dest, int bits = LANE_BITS) {
    uint32_t x = src ^ dest, lane = 0;
    while (bits && x) {
        lane ^= x & ((1u << bits) - 1);
        x >>= bits;
    }
    return lane;
}
