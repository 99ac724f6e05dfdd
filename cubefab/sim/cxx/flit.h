// The flits the harness checks read (cubefab.sim.checks.FlitFields): a flit's fields
// decoded from its raw bits by the offsets of fabric.h, and a flow's lane (the low VC
// bits of its pair). Needs fabric.h; checks.h and faults.h both build on it.
#pragma once
#include <cstdint>
#include "words.h"

struct Flit {
    // every field starts at 0, as the hardware checkers' registers do: a body flit seen
    // where no head was (its head dropped by a defect) reads a zero head, not whatever
    // the stack held (Checks::open_head lives in main's frame)
    int node = 0;   // dense index of the node where it was seen
    bool head = false, tail = false, bcast = false, cut = false;
    uint32_t vc = 0, cls = 0, dest = 0, src = 0, stamp = 0;   // stamp: a head's timestamp bits (HEAD_STAMP_BITS)
    uint32_t data = 0;   // a later flit's first data bits (STAMP_DATA_BITS of them)
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
    f.stamp = (uint32_t)bits_of(raw, PAYLOAD_LO, HEAD_STAMP_BITS);
    if (STAMP_FLIT) f.data = (uint32_t)bits_of(raw, DATA_LO, STAMP_DATA_BITS);
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

// The timestamps of the packets whose flits pass a place one after another (an
// injection or ejection port; cubefab.sim.checks.PacketStamps): the head's bits, then
// the next flits' data up to flit STAMP_FLIT. read() calls use(head, bits) for the
// packet whose timestamp the flit ends (bits: TIMESTAMP_BITS), or that ended before
// its timestamp did (a tail or a cut too early, or the next head: the low bits read),
// the head's stamp set to the bits read.
struct PacketStamp {
    Flit head;
    bool open = false;
    int index = 0, bits = 0;
    template <typename Use> void read(const Flit& f, Use use) {
        if (f.head) {
            if (open) use(head, bits);   // the packet before ended early
            head = f;
            open = true;
            index = 0;
            bits = HEAD_STAMP_BITS;
        } else {
            if (!open) return;
            ++index;
            if (f.cut || (f.tail && index < STAMP_FLIT)) {
                open = false;
                use(head, bits);
                return;
            }
            const int width = TIMESTAMP_BITS - bits < STAMP_DATA_BITS ? TIMESTAMP_BITS - bits
                                                                      : STAMP_DATA_BITS;
            if (index <= STAMP_FLIT) head.stamp |= (uint32_t)field(f.data, 0, width) << bits;
            if (index <= STAMP_FLIT) bits += width;
        }
        if (index == STAMP_FLIT) {
            open = false;
            use(head, bits);
        }
    }
};
