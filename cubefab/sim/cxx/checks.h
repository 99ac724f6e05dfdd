// The harness checks of a self-checking fabric run (cubefab.sim.checks, the same
// checks in Python for the Amaranth engine): misrouted flits against the reference
// routing tables of fabric.h, and the ledger of packets by flow (reordered,
// duplicated, and the packets still waiting at the end), and the exact latency
// histogram of the measured window. The reference rules are the router mode's
// (rules.h, generated: the headers its rules name, route_allowed for unicast flits,
// copy_allowed, copy_receives and copy_count for broadcast copies). Broadcast copies
// (BROADCAST): a broadcast is a packet in the flow from its source to each node that
// receives it; its latency is its last copy's. Needs fabric.h; builds on flit.h (the
// flit fields) and rules.h.
#pragma once
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <unordered_map>
#include "words.h"
#include "flit.h"
#include "rules.h"

// Header in the head flit only (HEAD_ONLY): a body or tail flit's header bits are data,
// so the checks read its packet's head, remembered where the flit is seen (per link
// and VC, per ejection port): the head's fields with the flit's own type bits and VC.
static inline Flit with_head(const Flit& f, Flit& remembered) {
    if (!HEAD_ONLY) return f;
    if (f.head) {
        remembered = f;
        return f;
    }
    Flit h = remembered;
    h.node = f.node;
    h.head = false;
    h.tail = f.tail;
    h.bcast = f.bcast;
    h.cut = f.cut;
    h.vc = f.vc;
    return h;
}

// Whether flit f may leave the node of dense index `node` through `port`: the router
// mode's reference rule allows it (rules.h: a copy's rule, copy_allowed, or a unicast
// flit's, route_allowed, both of flows between two nodes; cubefab.sim.checks).
static bool link_allowed(int node, int port, const Flit& f) {
    if (f.bcast) return INDEX[f.src] >= 0 && copy_allowed(node, port, f);
    if (INDEX[f.src] < 0 || INDEX[f.dest] < 0) return false;
    return route_allowed(node, port, f);
}

struct Checks {
    struct Waiting { uint32_t stamp; bool overtaken; };
    struct Flow { std::deque<Waiting> waiting; int64_t last = -1; };
    std::unordered_map<uint64_t, Flow> flows;
    uint64_t misrouted = 0, reordered = 0, duplicated = 0;
    std::map<uint64_t, uint64_t> latency;   // measured window: latency -> packets
    std::map<uint64_t, uint64_t> broadcast_latency;   // window: latency -> broadcasts
    std::unordered_map<uint64_t, int> copies_seen;    // (src, stamp) -> copies' tails
    uint32_t open_stamp[N] = {0};            // per node: stamp of the packet ejecting
    PacketStamp injecting[N], ejecting[N];   // per node: the timestamps read (flit.h)
    Flit open_head[HEAD_ONLY ? N : 1];       // (HEAD_ONLY) per node: its head
    // links failing mid-run: the latest failure's cycle (-1: none yet), packets lost to
    // a failure though created after its cycle, the latest creation of a lost packet
    bool failures = false;
    int64_t failed = -1, last_lost = -1;
    uint64_t late = 0;
    void lost_to_fault(uint32_t stamp) {
        if ((int64_t)stamp > last_lost) last_lost = stamp;
        if (failed < 0 || (int64_t)stamp > failed) ++late;
    }
    // a head dropped at a failed link: its packet leaves its flow's outstanding ones
    // (its timestamp's HEAD_STAMP_BITS low bits: the oldest outstanding packet with them)
    void drop(const Flit& f) {
        if (!f.head) return;
        const uint32_t stamp = resolve(key(f.src, f.dest), f.stamp, HEAD_STAMP_BITS);
        lost_to_fault(stamp);
        auto it = flows.find(key(f.src, f.dest));
        if (it != flows.end()) {
            std::deque<Waiting>& waiting = it->second.waiting;
            for (std::size_t i = 0; i < waiting.size(); ++i)
                if (waiting[i].stamp == stamp) {
                    waiting.erase(waiting.begin() + i);
                    return;
                }
        }
        ++duplicated;   // dropped, yet not outstanding
    }

    // the timestamp of the oldest outstanding packet of flow k whose low `bits` bits
    // are `stamp` (cubefab.sim.checks.Ledger.resolve), or `stamp`
    uint32_t resolve(uint64_t k, uint32_t stamp, int bits) const {
        if (bits >= TIMESTAMP_BITS) return stamp;
        const uint32_t mask = (1u << bits) - 1;
        auto it = flows.find(k);
        if (it != flows.end())
            for (const Waiting& w : it->second.waiting)
                if ((w.stamp & mask) == stamp) return w.stamp;
        return stamp;
    }

    // a flow's key; a broadcast's flow to each receiver is keyed apart (bit 63)
    static uint64_t key(uint32_t src, uint32_t dest, bool bcast = false) {
        return ((uint64_t)bcast << 63) | ((uint64_t)src << 32) | dest;
    }

    void push(uint64_t k, uint32_t stamp) {
        Flow& flow = flows[k];
        flow.waiting.push_back({stamp, false});
        flow.last = stamp;
    }

    // a flit injected: its packet enters the ledger with the flit where its timestamp ends
    // (a generator's packets are whole)
    void inject(const Flit& injected) {
        injecting[injected.node].read(injected, [this](const Flit& f, int) { enter(f); });
    }

    void enter(const Flit& f) {
        if (!f.bcast) {
            push(key(f.src, f.dest), f.stamp);
            return;
        }
        for (int r = 0; r < N; ++r)   // the nodes that receive the source's broadcasts
            if (copy_receives(f.src, r)) push(key(f.src, ADDRESS[r], true), f.stamp);
    }

    void eject(const Flit& ejected, uint64_t cycle, bool measured) {
        const Flit f = with_head(ejected, open_head[HEAD_ONLY ? ejected.node : 0]);
        if (f.bcast ? !copy_receives(f.src, f.node) : f.dest != ADDRESS[f.node]) ++misrouted;
        // the packet whose timestamp this flit ends (or that ended before it did: known
        // by its timestamp's low bits) leaves the ledger
        ejecting[f.node].read(ejected, [this](const Flit& head, int bits) {
            Flit h = head;
            if (bits < TIMESTAMP_BITS)
                h.stamp = resolve(flow_key(h), h.stamp, bits);
            open_stamp[h.node] = h.stamp;
            deliver(h);
        });
        if (f.cut) {   // a packet cut short by a failed link
            lost_to_fault(open_stamp[f.node]);
            return;
        }
        if (f.tail && measured)
            ++latency[(cycle - open_stamp[f.node]) & NOW_MASK];
        if (f.tail && f.bcast) last_copy(f.src, open_stamp[f.node], cycle, measured);
    }

    // a copy's tail of the broadcast (src, stamp): its latency when it is the last
    void last_copy(uint32_t src, uint32_t stamp, uint64_t cycle, bool measured) {
        const uint64_t k = key(src, stamp);
        if (++copies_seen[k] < copy_count(src)) return;
        copies_seen.erase(k);
        if (measured) ++broadcast_latency[(cycle - stamp) & NOW_MASK];
    }

    // the flow of a packet ejected: a copy's from its source to here
    static uint64_t flow_key(const Flit& f) {
        return f.bcast ? key(f.src, ADDRESS[f.node], true) : key(f.src, f.dest);
    }

    void deliver(const Flit& f) {
        auto it = flows.find(flow_key(f));
        if (it == flows.end()) return;   // never injected: a corrupted header
        std::deque<Waiting>& waiting = it->second.waiting;
        for (std::size_t i = 0; i < waiting.size(); ++i)
            if (waiting[i].stamp == f.stamp) {
                if (waiting[i].overtaken) ++reordered;
                for (std::size_t j = 0; j < i; ++j) waiting[j].overtaken = true;
                waiting.erase(waiting.begin() + i);
                return;
            }
        if ((int64_t)f.stamp <= it->second.last) ++duplicated;
    }

    void print() const {
        uint64_t overtaken = 0, waiting = 0;
        for (const auto& flow : flows)
            for (const Waiting& w : flow.second.waiting) ++(w.overtaken ? overtaken : waiting);
        std::printf("checks misrouted=%" PRIu64 " reordered=%" PRIu64 " duplicated=%" PRIu64
                    " waiting_overtaken=%" PRIu64 " waiting=%" PRIu64 "\n",
                    misrouted, reordered, duplicated, overtaken, waiting);
        if (failures)
            std::printf("checks late_losses=%" PRIu64 " last_lost_created=%" PRId64 "\n",
                        late, last_lost);
        std::printf("latency");
        for (const auto& entry : latency)
            std::printf(" %" PRIu64 ":%" PRIu64, entry.first, entry.second);
        std::printf("\n");
        if (!BROADCAST) return;
        std::printf("broadcast_latency");
        for (const auto& entry : broadcast_latency)
            std::printf(" %" PRIu64 ":%" PRIu64, entry.first, entry.second);
        std::printf("\n");
    }
};
