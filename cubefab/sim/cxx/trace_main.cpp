// cubefab.sim.verilator_trace: a trace's packets through a fabric of address-strapped
// routers, closed loop, with the bookkeeping of cubefab.sim.trace_plan.ClosedLoop.
// router_fabric.h (generated) defines the router model (Node), the netlist (N nodes of D
// ports, SOURCE), each node's straps (set_straps), the port accessors, HEAD_LO, TAIL_LO
// and FLIT_WORDS; trace_fields.h (generated) SRC_LO, SRC_BITS, PAYLOAD_LO, PAYLOAD_BITS.
//
// Command line: PLAN LIMIT [every]
//   PLAN   a text file: the head's and the other flits' checked-bit masks (FLIT_WORDS
//          32-bit words each, least significant first), the packet count, then per
//          packet a line "src dst release waits dependents... flits" (dense node
//          indices; release: the run cycle of its trace cycle; dependents: their count,
//          then their indices) followed by its flits, FLIT_WORDS words each
//   LIMIT  most cycles to run
//   every  evaluate every node in every cycle (the same results, slower: for checks)
// A node whose state and inputs did not change from one cycle to the next is a fixed
// point of its model: while its inputs stay the same it is not evaluated (its state and
// outputs are what evaluating it would give). Its state is the model's root object
// (ROOT, trace_fields.h), every signal and register of it. When no node is evaluated,
// offers a flit or ejects one, every cycle until the next packet's trace cycle is the
// same: the run goes there at once.
// Prints "P index inject deliver" per delivered packet, "X message" for a packet
// delivered that the plan did not send there intact (and stops), "end c" last.
#include <cinttypes>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <deque>
#include <queue>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>
#include "verilated.h"
#include "router_fabric.h"
#include "router_netlist.h"
#include "node_activity.h"
#include "trace_fields.h"
#include "words.h"

double sc_time_stamp() { return 0; }

using Flit = std::vector<uint32_t>;


// Which nodes need evaluating (node_activity.h): those whose state (the whole root) or
// inputs (links, and the flit offered at local_in) changed.
struct Activity : NodeActivity {
    std::vector<bool> local_changed;
    std::vector<const Flit*> last_offer;

    Activity(const StateLayout& layout, const std::vector<Node*>& nodes)
        : NodeActivity(layout, N), local_changed(N, true), last_offer(N, nullptr) {
        for (int i = 0; i < N; ++i) state_same(i, nodes[i]->rootp);
    }
    bool inputs_same(int i) const { return !local_changed[i] && links_same(i); }
    // after node i's clock edge: whether its state is the one before
    void clocked(int i, Node* n, bool inputs_were_same) {
        quiet[i] = state_same(i, n->rootp) && inputs_were_same;
    }
};


struct Packet {
    int src, dst;
    uint64_t release;
    int waits;
    std::vector<int> dependents;
    std::vector<Flit> flits;
    int64_t inject = -1, deliver = -1;
    bool released = false;
};

struct Plan {
    Flit head_mask, body_mask;
    std::vector<Packet> packets;
};

static bool read_flit(std::FILE* f, Flit& flit) {
    flit.assign(FLIT_WORDS, 0);
    for (auto& w : flit) {
        unsigned long v;
        if (std::fscanf(f, "%lu", &v) != 1) return false;
        w = (uint32_t)v;
    }
    return true;
}

static uint64_t flit_field(const Flit& flit, int lo, int width) {
    uint64_t v = 0;
    for (int b = 0; b < width; ++b)
        v |= (uint64_t)(flit[(lo + b) >> 5] >> ((lo + b) & 31) & 1) << b;
    return v;
}

static uint64_t key_of(const Flit& head) {
    return flit_field(head, SRC_LO, SRC_BITS) << 32 | flit_field(head, PAYLOAD_LO, PAYLOAD_BITS);
}

static bool read_packet(std::FILE* f, Packet& p) {
    unsigned long long release;
    int count, flits;
    if (std::fscanf(f, "%d %d %llu %d %d", &p.src, &p.dst, &release, &p.waits, &count) != 5)
        return false;
    p.release = release;
    p.dependents.resize(count);
    for (auto& d : p.dependents)
        if (std::fscanf(f, "%d", &d) != 1) return false;
    if (std::fscanf(f, "%d", &flits) != 1 || flits < 1) return false;
    p.flits.resize(flits);
    for (auto& flit : p.flits)
        if (!read_flit(f, flit)) return false;
    return true;
}

static bool read_plan(const char* path, Plan& plan) {
    std::FILE* f = std::fopen(path, "r");
    if (!f) { std::fprintf(stderr, "cannot read %s\n", path); return false; }
    size_t count = 0;
    bool ok = read_flit(f, plan.head_mask) && read_flit(f, plan.body_mask)
              && std::fscanf(f, "%zu", &count) == 1;
    plan.packets.resize(ok ? count : 0);
    for (size_t i = 0; ok && i < count; ++i) {
        ok = read_packet(f, plan.packets[i]);
    }
    std::fclose(f);
    if (!ok) std::fprintf(stderr, "%s: not a trace plan\n", path);
    return ok;
}

static bool same(const Flit& got, const Flit& want, const Flit& mask) {
    for (int w = 0; w < FLIT_WORDS; ++w)
        if ((got[w] ^ want[w]) & mask[w]) return false;
    return true;
}

// The run's state: what ClosedLoop keeps, in the same order.
struct Loop {
    Plan& plan;
    uint64_t cycle = 0, delivered = 0;
    using Timed = std::pair<uint64_t, int>;
    std::priority_queue<Timed, std::vector<Timed>, std::greater<Timed>> timed;
    std::vector<std::deque<int>> queue;
    std::vector<int> sending, next_flit;
    std::vector<std::vector<Flit>> receiving;
    std::unordered_map<uint64_t, int> in_flight;   // (src << 32 | sequence) -> packet

    explicit Loop(Plan& p) : plan(p), queue(N), sending(N, -1), next_flit(N, 0), receiving(N) {
        for (size_t i = 0; i < plan.packets.size(); ++i) timed.push({plan.packets[i].release, (int)i});
    }
    void release() {
        while (!timed.empty() && timed.top().first <= cycle) {
            int i = timed.top().second;
            timed.pop();
            plan.packets[i].released = true;
            if (!plan.packets[i].waits) queue[plan.packets[i].src].push_back(i);
        }
    }
    const Flit* offer(int node) {
        if (sending[node] < 0 && !queue[node].empty()) {
            sending[node] = queue[node].front();
            queue[node].pop_front();
            next_flit[node] = 0;
        }
        return sending[node] < 0 ? nullptr : &plan.packets[sending[node]].flits[next_flit[node]];
    }
    // false: the packet's source has as many packets in flight as its heads can name
    bool accepted(int node) {
        Packet& p = plan.packets[sending[node]];
        if (next_flit[node] == 0) {
            p.inject = (int64_t)cycle;
            if (!in_flight.emplace(key_of(p.flits[0]), sending[node]).second) {
                std::printf("X node %d has more packets in flight than its heads' sequence "
                            "numbers name\n", node);
                return false;
            }
        }
        if (++next_flit[node] == (int)p.flits.size()) sending[node] = -1;
        return true;
    }
    // false: the packet is not one the plan sent there intact (message printed)
    bool ejected(int node, const Flit& flit) {
        receiving[node].push_back(flit);
        if (!flit_field(flit, TAIL_LO, 1)) return true;
        std::vector<Flit> flits;
        flits.swap(receiving[node]);
        auto found = in_flight.find(key_of(flits[0]));
        int index = found == in_flight.end() ? -1 : found->second;
        if (found != in_flight.end()) in_flight.erase(found);
        if (index < 0 || !flit_field(flits[0], HEAD_LO, 1)) {
            std::printf("X node %d ejected a packet the run did not send or had delivered\n", node);
            return false;
        }
        Packet& p = plan.packets[index];
        bool intact = node == p.dst && flits.size() == p.flits.size();
        for (size_t k = 0; intact && k < flits.size(); ++k)
            intact = same(flits[k], p.flits[k], k ? plan.body_mask : plan.head_mask);
        if (!intact) {
            std::printf("X packet %d arrived at node %d not as it was sent\n", index, node);
            return false;
        }
        p.deliver = (int64_t)cycle;
        ++delivered;
        for (int d : p.dependents) {
            Packet& q = plan.packets[d];
            if (!--q.waits && q.released) queue[q.src].push_back(d);
        }
        return true;
    }
};

int main(int argc, char** argv) {
    if (argc != 3 && !(argc == 4 && std::string(argv[3]) == "every")) {
        std::fprintf(stderr, "usage: %s PLAN LIMIT [every]\n", argv[0]);
        return 2;
    }
    const bool every = argc == 4;
    Plan plan;
    if (!read_plan(argv[1], plan)) return 2;
    const uint64_t limit = std::strtoull(argv[2], nullptr, 10);
    VerilatedContext context;
    std::vector<Node*> nodes;
    std::vector<Outputs> snapshot;
    make_nodes(context, nodes, snapshot);
    Loop loop(plan);
    StateLayout root;
    root.whole(sizeof(ROOT));
    Activity activity(root, nodes);
    std::vector<bool> offered(N), evaluated(N), inputs_same(N);
    Flit flit(FLIT_WORDS);
    bool failed = false;
    uint64_t evaluations = 0;
    for (; loop.cycle < limit && loop.delivered < plan.packets.size() && !failed; ++loop.cycle) {
        loop.release();
        for (int i = 0; i < N; ++i) {
            Node* n = nodes[i];
            const Flit* offer = loop.offer(i);
            activity.local_changed[i] = offer != activity.last_offer[i];
            activity.last_offer[i] = offer;
            offered[i] = offer != nullptr;
            inputs_same[i] = activity.inputs_same(i);
            evaluated[i] = every || !(activity.quiet[i] && inputs_same[i]);
            if (!evaluated[i]) continue;
            ++evaluations;
            drive_links(n, i, snapshot);
            if (offer) set_words(local_in_payload(n), offer->data());
            local_in_valid(n) = offered[i];
            n->clk = 0;
            n->eval();
        }
        for (int i = 0; i < N && !failed; ++i)
            if (offered[i] && local_in_ready(nodes[i])) failed = !loop.accepted(i);
        bool idle = true;
        for (int i = 0; i < N && !failed; ++i) {
            idle = idle && !evaluated[i] && !offered[i];
            if (!local_out_valid(nodes[i])) continue;
            idle = false;
            get_words(local_out_payload(nodes[i]), flit.data());
            failed = !loop.ejected(i, flit);
        }
        if (idle && !failed && !every) {   // nothing changes before the next release
            uint64_t next = loop.timed.empty() ? limit : std::min<uint64_t>(loop.timed.top().first, limit);
            if (next > loop.cycle + 1) loop.cycle = next - 1;
            continue;
        }
        for (int i = 0; i < N; ++i) {
            activity.outputs_changed[i] = false;
            if (!evaluated[i]) continue;
            nodes[i]->clk = 1;
            nodes[i]->eval();
            activity.clocked(i, nodes[i], inputs_same[i]);
            Outputs before = snapshot[i];
            take_snapshot(nodes[i], snapshot[i]);
            activity.outputs_changed[i] = changed_ports(before, snapshot[i]);
        }
    }
    for (size_t i = 0; i < plan.packets.size(); ++i)
        if (plan.packets[i].deliver >= 0)
            std::printf("P %zu %" PRId64 " %" PRId64 "\n", i, plan.packets[i].inject,
                        plan.packets[i].deliver);
    std::printf("end %" PRIu64 " %" PRIu64 "\n", loop.cycle, evaluations);
    free_nodes(nodes);
    return 0;
}
