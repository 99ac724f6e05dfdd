// cubefab.sim.verilator_fabric: a self-checking fabric as one compiled node and a
// netlist. fabric.h (generated) defines the node model (Node), the netlist (N nodes of
// D ports, SOURCE, STRAPS), the node's port accessors, its events and the fabric's
// counters, the flit fields and the reference rules' tables (see checks.h);
// node_state.h (generated from the verilated node) node_registers, the members of the
// node's root object that are registers.
//
// Quiet nodes (SKIP_QUIET, unless the command line says skip=0) are left alone, as
// node_activity.h describes: a node whose registers did not change at its last clock
// edge, which had no event in that cycle and sends no flit is a fixed point while its
// link inputs and the run's inputs stay the same, but for two inputs that change every
// cycle: its generator's random state and the cycle counter `now`. Both act on a node's
// registers only through a packet created (which the harness foresees: the draw of the
// random state, which it steps itself, below the threshold) or delivered (which a fixed
// point does not do). So a quiet node is evaluated again only when a neighbour's output
// or a run input changes or its generator draws a packet; then its generator is given the
// random state it has reached (random_load, random_value). Every node evaluated checks
// the harness's foresight: its random state after the clock edge is the step the harness
// took, and it created a packet exactly when the harness foresaw one (else exit 3).
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>
#include "verilated.h"
#include "fabric.h"
#include "node_activity.h"
#include "node_state.h"
#include "run_arguments.h"
#include "words.h"
#include "flit.h"
#include "faults.h"
#include "checks.h"

double sc_time_stamp() { return 0; }

using Payload = std::remove_reference_t<decltype(*out_payload(nullptr, 0))>;
using Valid = std::remove_reference_t<decltype(*out_valid(nullptr, 0))>;
using Credit = std::remove_reference_t<decltype(*in_credit(nullptr, 0))>;

// A node's link outputs after its last clock edge: what its neighbours read.
struct Outputs { Payload payload[D]; Valid valid[D]; Credit credit[D]; };
static std::vector<Outputs> snapshot;

static void take_snapshot(Node* n, Outputs& o) {
    for (int p = 0; p < D; ++p) {
        o.payload[p] = *out_payload(n, p);
        o.valid[p] = *out_valid(n, p);
        o.credit[p] = *in_credit(n, p);
    }
}

static bool same_snapshot(Node* n, const Outputs& o) {
    for (int p = 0; p < D; ++p)
        if (!same_value(*out_payload(n, p), o.payload[p]) || *out_valid(n, p) != o.valid[p]
                || *in_credit(n, p) != o.credit[p])
            return false;
    return true;
}

static uint64_t counters[COUNTERS];

static void report(uint64_t cycle) {
    std::printf("cycle=%" PRIu64, cycle);
    for (int k = 0; k < COUNTERS; ++k)
        std::printf(" %s=%" PRIu64, COUNTER_NAMES[k], counters[k]);
    std::printf("\n");
    std::fflush(stdout);
}

// every packet created has arrived, or was lost to a failed link (dropped or cut)
static bool drained() {
    return counters[IDX_CREATED] == counters[IDX_DELIVERED]
        + (IDX_DROPPED >= 0 ? counters[IDX_DROPPED] : 0) + (IDX_CUT >= 0 ? counters[IDX_CUT] : 0);
}

// All workers wait until every one has arrived.
class Barrier {
    std::mutex mutex;
    std::condition_variable arrived;
    const int count;
    int waiting = 0;
    uint64_t generation = 0;
public:
    explicit Barrier(int count) : count(count) {}
    void wait() {
        if (count == 1) return;
        std::unique_lock<std::mutex> lock(mutex);
        uint64_t gen = generation;
        if (++waiting == count) {
            waiting = 0;
            ++generation;
            arrived.notify_all();
        } else {
            arrived.wait(lock, [&] { return gen != generation; });
        }
    }
};

// Worker w simulates nodes [first, last) on its own thread (worker 0 on the main one).
struct Worker {
    int first, last;
    VerilatedContext* context;
    uint64_t events[EVENTS];
    bool broken = false;
    bool mispredicted = false;             // a random state or draw the harness did not foresee
    uint64_t threshold = 0;                // the run's `threshold` input now
    uint64_t evaluations = 0;              // nodes evaluated in cycles of the run
    uint64_t misrouted = 0;
    std::vector<Flit> injected, ejected;   // this cycle's, in node order
    std::vector<Flit> dropped;             // flits dropped at failed links (the cycle before)
    bool configuring = false;              // its nodes' config_write is 1
};

static std::vector<Node*> nodes;
// (HEAD_ONLY) the head last seen on each link and VC (checks.h, with_head); a worker
// writes only its own nodes' links
static Flit link_heads[HEAD_ONLY ? N : 1][HEAD_ONLY ? D : 1][HEAD_ONLY ? 1 << VC_WIDTH : 1];
static inline Flit& link_head(int i, int p, uint32_t vc) {
    return HEAD_ONLY ? link_heads[i][p][vc] : link_heads[0][0][0];
}
static std::multimap<uint64_t, Change> changes;

// Leaving quiet nodes alone (see the top): per node, whether it is evaluated this cycle,
// whether it was left alone the cycle before, its generator's random state this cycle
// (once known: after its first clock edge), and whether its state was kept at its last
// clock edge (when that cycle made it a candidate for quiet: no event, no flit sent).
static bool skipping = false;
static StateLayout registers;
static NodeActivity* activity = nullptr;
static std::vector<char> evaluated, left_alone, known, kept, idle;
static std::vector<uint64_t> random_now;

static inline uint64_t xorshift64(uint64_t x) {
    x ^= x << 13;
    x ^= x >> 7;
    return x ^ (x << 17);
}

// whether node i's generator draws a packet this cycle (its random state known)
static inline bool draws(int i, uint64_t threshold) {
    return (random_now[i] & ((1u << RANDOM_RATE_BITS) - 1)) < threshold;
}

// whether node i must be evaluated this cycle (`inputs`: a run input changes)
static bool must_evaluate(int i, bool inputs, uint64_t threshold) {
    return !skipping || inputs || !known[i] || !activity->quiet[i] || !activity->links_same(i)
        || draws(i, threshold);
}

// after node i's clock edge (`before`: its outputs before it): the foresight checks, its
// random state, whether its outputs changed and whether it is quiet now
static void clocked(Worker& w, int i, const Outputs& before) {
    Node* n = nodes[i];
    const uint64_t random = random_state(n);
    if (known[i] && random != xorshift64(random_now[i])) w.mispredicted = true;
    random_now[i] = random;
    known[i] = 1;
    left_alone[i] = 0;
    activity->outputs_changed[i] = changed_ports(before, snapshot[i]);
    bool candidate = idle[i] && !dropped_ports(n);
    for (int p = 0; p < D; ++p) candidate = candidate && !snapshot[i].valid[p];
    const bool same = candidate && activity->state_same(i, n->rootp) && kept[i];
    kept[i] = candidate;
    activity->quiet[i] = same;
}

// One clock cycle of a worker's nodes, after `done` cycles: before the edge, each
// node's inputs from its neighbours' snapshots, then it settles, its events are added
// and its flits checked; its own outputs must not have moved (they are registers).
// Barrier. Then the clock edge and the new snapshot. With `write`, a configuration
// cycle (no cycle of the run): every node's configuration port writes it.
static void cycle_of(Worker& w, uint64_t done, Barrier& settled,
                     const FaultConfig::Write* write = nullptr) {
    auto range = changes.equal_range(done);
    bool inputs = range.first != range.second || write || w.configuring;
    for (auto it = range.first; it != range.second; ++it)
        if (it->second.name == "threshold") w.threshold = it->second.value;
    for (int i = w.first; i < w.last; ++i)
        for (auto it = range.first; it != range.second; ++it)
            set_input(nodes[i], it->second.name, it->second.value);
    for (const FaultConfig::Failure& failure : FAULTS.failures)
        if (failure.cycle == done) {   // the link fails at both ends
            inputs = true;
            for (int e = 0; e < 2; ++e)
                if (w.first <= failure.node[e] && failure.node[e] < w.last)
                    link_down(nodes[failure.node[e]], failure.port[e]);
        }
    if (write || w.configuring)
        for (int i = w.first; i < w.last; ++i) {
            set_input(nodes[i], "config_write", write != nullptr);
            if (write) {
                set_input(nodes[i], "config_node", write->node);
                set_input(nodes[i], "config_dest", write->dest);
                set_input(nodes[i], "config_entry", write->entry);
            }
        }
    w.configuring = write != nullptr;
    const uint64_t now = done & NOW_MASK;   // the fabric's cycle counter
    for (int k = 0; k < EVENTS; ++k) w.events[k] = 0;
    w.injected.clear();
    w.ejected.clear();
    w.dropped.clear();
    for (int i = w.first; i < w.last; ++i) {
        Node* n = nodes[i];
        evaluated[i] = must_evaluate(i, inputs, w.threshold);
        if (!evaluated[i]) {
            left_alone[i] = 1;
            continue;
        }
        if (!write) ++w.evaluations;
        load_random(n, left_alone[i], random_now[i]);
        for (int p = 0; p < D; ++p) {
            const Outputs& from = snapshot[SOURCE[i][p][0]];
            int q = SOURCE[i][p][1];
            *in_payload(n, p) = from.payload[q];
            *in_valid(n, p) = from.valid[q];
            *out_credit(n, p) = from.credit[q];
        }
        n->now = now;
        n->clk = 0;
        n->eval();
        node_events(n, w.events);
        idle[i] = node_idle(n);
        if (skipping && known[i] && node_draws(n) != draws(i, w.threshold)) w.mispredicted = true;
        const Outputs& mine = snapshot[i];
        const uint64_t dropped = dropped_ports(n);
        for (int p = 0; p < D; ++p) {
            if ((dropped >> p) & 1) w.dropped.push_back(flit_of(mine.payload[p], i));
            if (!mine.valid[p]) continue;
            Flit f = flit_of(mine.payload[p], i);
            if (HEAD_ONLY) f = with_head(f, link_head(i, p, f.vc));
            if (!link_allowed(i, p, f)) ++w.misrouted;
        }
        if (n->injected_flits) w.injected.push_back(flit_of(n->inject_flit, i));
        if (n->delivered_flits) w.ejected.push_back(flit_of(n->eject_flit, i));
        if (!same_snapshot(n, snapshot[i])) w.broken = true;
    }
    settled.wait();
    for (int i = w.first; i < w.last; ++i) {
        if (!evaluated[i]) {   // it keeps its state and outputs; its generator steps
            random_now[i] = xorshift64(random_now[i]);
            activity->outputs_changed[i] = 0;
            continue;
        }
        nodes[i]->clk = 1;
        nodes[i]->eval();
        const Outputs before = snapshot[i];
        take_snapshot(nodes[i], snapshot[i]);
        if (skipping) clocked(w, i, before);
        else activity->outputs_changed[i] = ~0ULL;
    }
}

// The fault configuration: every write through the configuration port, one clock
// cycle each, before the run (the generators stand still; no cycle of the run).
static bool configure(const std::string& path) {
    if (!is_input("config_write")) {
        std::fprintf(stderr, "faults= needs a node with a configuration port\n");
        return false;
    }
    if (!FAULTS.load(path)) return false;
    // the source tables, then (config_flood) the flood configuration
    for (int flood = 0; flood < 2; ++flood)
        for (const FaultConfig::Write& w : flood ? FAULTS.flood_writes : FAULTS.writes)
            for (int i = 0; i < N; ++i) {
                Node* n = nodes[i];
                set_input(n, "config_write", 1);
                set_input(n, "config_flood", flood);
                set_input(n, "config_node", w.node);
                set_input(n, "config_dest", w.dest);
                set_input(n, "config_entry", w.entry);
                n->clk = 0;
                n->eval();
                n->clk = 1;
                n->eval();
            }
    for (int i = 0; i < N; ++i) {
        set_input(nodes[i], "config_write", 0);
        set_input(nodes[i], "config_flood", 0);
        nodes[i]->clk = 0;
        nodes[i]->eval();
        take_snapshot(nodes[i], snapshot[i]);
    }
    return true;
}

int main(int argc, char** argv) {
    RunArguments a;
    if (!parse_run_arguments(argc, argv, a)) return 2;
    const uint64_t cycles = a.cycles, every = a.every;
    const int threads = a.threads;
    if (threads > N) { std::fprintf(stderr, "more threads than nodes\n"); return 2; }
    changes = a.changes;
    std::vector<Worker> workers(threads);
    nodes.resize(N);
    snapshot.resize(N);
    skipping = SKIP_QUIET && a.skip_quiet && a.faults.empty();
    for (std::vector<char>* v : {&evaluated, &left_alone, &known, &kept, &idle}) v->assign(N, 0);
    random_now.assign(N, 0);
    uint64_t threshold = 0;
    for (auto& input : a.held)
        if (input.name == "threshold") threshold = input.value;
    for (int w = 0; w < threads; ++w) {
        workers[w].first = (int)((int64_t)N * w / threads);
        workers[w].last = (int)((int64_t)N * (w + 1) / threads);
        workers[w].context = new VerilatedContext;
        workers[w].threshold = threshold;
        for (int i = workers[w].first; i < workers[w].last; ++i) {
            Node* n = nodes[i] = new Node{workers[w].context, ("node" + std::to_string(i)).c_str()};
            set_words(n->straps, STRAPS[i]);
            node_defaults(n);
            for (auto& input : a.held) set_input(n, input.name, input.value);
            n->clk = 0;
            n->eval();
            take_snapshot(n, snapshot[i]);
        }
    }
    if (!a.faults.empty() && !configure(a.faults)) return 2;
    node_registers(nodes[0]->rootp, [&](const void* member, std::size_t size) {
        registers.add(nodes[0]->rootp, member, size);
    });
    registers.finish();
    NodeActivity node_activity(registers, N);
    activity = &node_activity;
    Checks checks;
    checks.failures = !FAULTS.failures.empty();
    // the configuration writes before run cycle `done` (a failure's, the cycle after it)
    auto writes_at = [](uint64_t done) {
        std::vector<const FaultConfig::Write*> out;
        for (const FaultConfig::Failure& failure : FAULTS.failures)
            if (failure.cycle + 1 == done)
                for (const FaultConfig::Write& w : failure.writes) out.push_back(&w);
        return out;
    };
    Barrier settled(threads), finished(threads);
    bool broken = false, stop = false;   // written by worker 0 before a barrier
    uint64_t last = cycles;
    std::vector<std::thread> pool;
    for (int w = 1; w < threads; ++w)
        pool.emplace_back([&, w] {
            for (uint64_t done = 0; done < cycles; ++done) {
                for (const FaultConfig::Write* write : writes_at(done)) {
                    cycle_of(workers[w], done, settled, write);
                    finished.wait();
                }
                cycle_of(workers[w], done, settled);
                finished.wait();
                if (stop) break;
            }
        });
    // after worker 0's part of a clock cycle: every worker's events are final once
    // all have settled (until the barrier); the harness checks, node by node: drops,
    // injections, then ejections; the counters (`cycles` only in a cycle of the run)
    auto settle = [&](uint64_t done, bool run_cycle) {
        uint64_t events[EVENTS] = {0};
        for (Worker& w : workers) {
            for (int k = 0; k < EVENTS; ++k) events[k] += w.events[k];
            broken |= w.broken;
        }
        const bool measured = a.window_first <= done && done < a.window_end;
        for (Worker& w : workers)
            for (const Flit& f : w.dropped) checks.drop(f);
        for (Worker& w : workers)
            for (const Flit& f : w.injected) checks.inject(f);
        for (Worker& w : workers)
            for (const Flit& f : w.ejected) checks.eject(f, done, measured);
        if (run_cycle) counters[0] = (counters[0] + 1) & COUNTER_MASKS[0];
        for (int k = 0; k < EVENTS; ++k)
            counters[EVENT_COUNTER[k]] = (counters[EVENT_COUNTER[k]] + events[k])
                                         & COUNTER_MASKS[EVENT_COUNTER[k]];
    };
    for (uint64_t cycle = 1; cycle <= cycles; ++cycle) {
        for (const FaultConfig::Failure& failure : FAULTS.failures)
            if (failure.cycle + 1 == cycle - 1) checks.failed = (int64_t)failure.cycle;
        for (const FaultConfig::Write* write : writes_at(cycle - 1)) {
            cycle_of(workers[0], cycle - 1, settled, write);
            settle(cycle - 1, false);
            finished.wait();   // every worker's clock edge done
        }
        cycle_of(workers[0], cycle - 1, settled);
        settle(cycle - 1, true);
        stop = broken || (cycle >= a.stop_drained && cycle != cycles && drained());
        finished.wait();   // every worker's clock edge done
        if (stop) {
            last = cycle;
            break;
        }
        if (cycle != cycles && ((every && cycle % every == 0) || a.reports.count(cycle)))
            report(cycle);
    }
    for (std::thread& t : pool) t.join();
    if (broken) {
        std::fprintf(stderr, "a node's link output depends combinationally on its inputs; "
                     "the C++ netlist cannot run this node\n");
        return 3;
    }
    uint64_t evaluations = 0;
    for (Worker& w : workers) {
        if (w.mispredicted) {
            std::fprintf(stderr, "a generator's random state or draw is not the one the "
                         "harness foresaw: it cannot leave quiet nodes alone (skip=0 runs)\n");
            return 3;
        }
        evaluations += w.evaluations;
    }
    for (Worker& w : workers) checks.misrouted += w.misrouted;
    checks.print();
    std::printf("checks evaluations=%" PRIu64 "\n", evaluations);
    std::printf("final ");
    report(last);
    for (Node* n : nodes) {
        n->final();
        delete n;
    }
    for (Worker& w : workers) delete w.context;
    return 0;
}
