// cubefab.build.multicast_sweep: an address-strapped subcube multicast children unit
// (MulticastChildren(topology, None, "subcube")) compiled by Verilator and compared with
// the model on every input. multicast_sweep.h (generated) defines the unit's model
// (Unit), A (address bits), N (nodes), D (ports), W (64-bit words of a node vector),
// NODES[N] (the addresses, dense order) and SUBTREE[s][h][p][W]: the node vector of the
// subtree of the child through port p of node h in the broadcast tree of node s, the
// source left out (zero when that neighbour is not a child), from the model.
//
// The reference: the members of (value, mask) are the nodes x with
// x & mask == value & mask; child bit p is set iff SUBTREE[s][h][p] holds a member.
//
// Command lines:
//   sweep FIRST LAST THREADS  every source node, every here node of dense index FIRST to
//                             LAST - 1, every value and mask (2^A each), on THREADS
//                             threads (a model each)
//   query                     lines "source here value mask" (addresses) on stdin
// Prints:
//   M s h v m got want        a mismatch (sweep: the first MAX_SHOWN; query: every case
//                             as "Q s h v m got want")
//   done CASES MISMATCHES     the sweep's total
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include "verilated.h"
#include "multicast_sweep.h"

double sc_time_stamp() { return 0; }

static const int MAX_SHOWN = 10;
static const uint64_t SUBCUBES = 1ULL << (2 * A);   // (value, mask) pairs

// MEMBERS[(value << A | mask) * W + w]: word w of the member vector of (value, mask).
static std::vector<uint64_t> member_table() {
    std::vector<uint64_t> members(SUBCUBES * W, 0);
    for (uint64_t vm = 0; vm < SUBCUBES; ++vm) {
        const uint64_t value = vm >> A, mask = vm & ((1ULL << A) - 1);
        for (int i = 0; i < N; ++i)
            if ((NODES[i] & mask) == (value & mask))
                members[vm * W + i / 64] |= 1ULL << (i % 64);
    }
    return members;
}

// The reference children of node index h for source index s and members vector m.
static inline uint64_t expected(int s, int h, const uint64_t* m) {
    uint64_t children = 0;
    for (int p = 0; p < D; ++p) {
        uint64_t meet = 0;
        for (int w = 0; w < W; ++w) meet |= m[w] & SUBTREE[s][h][p][w];
        children |= (uint64_t)(meet != 0) << p;
    }
    return children;
}

static inline uint64_t evaluate(Unit* unit, uint64_t s, uint64_t h, uint64_t v, uint64_t m) {
    unit->source = s;
    unit->here = h;
    unit->value = v;
    unit->mask = m;
    unit->eval();
    return (uint64_t)unit->children;
}

struct Mismatch { uint64_t s, h, v, m, got, want; };

struct Tally {
    std::mutex lock;
    uint64_t cases = 0, mismatches = 0;
    std::vector<Mismatch> shown;
};

// Every (value, mask) for the (source, here) pairs handed out by next (pair k: source
// index k % N, here index FIRST + k / N).
static void sweep_pairs(int first, uint64_t pairs, std::atomic<uint64_t>& next,
                        const std::vector<uint64_t>& members, Tally& tally) {
    auto context = std::make_unique<VerilatedContext>();
    auto unit = std::make_unique<Unit>(context.get());
    uint64_t cases = 0, mismatches = 0;
    std::vector<Mismatch> shown;
    for (uint64_t k; (k = next.fetch_add(1)) < pairs;) {
        const int s = (int)(k % N), h = first + (int)(k / N);
        for (uint64_t vm = 0; vm < SUBCUBES; ++vm) {
            const uint64_t v = vm >> A, m = vm & ((1ULL << A) - 1);
            const uint64_t got = evaluate(unit.get(), NODES[s], NODES[h], v, m);
            const uint64_t want = expected(s, h, &members[vm * W]);
            if (got != want) {
                ++mismatches;
                if (shown.size() < MAX_SHOWN)
                    shown.push_back({NODES[s], NODES[h], v, m, got, want});
            }
        }
        cases += SUBCUBES;
    }
    unit->final();
    std::lock_guard<std::mutex> guard(tally.lock);
    tally.cases += cases;
    tally.mismatches += mismatches;
    for (const auto& x : shown)
        if (tally.shown.size() < MAX_SHOWN) tally.shown.push_back(x);
}

static int sweep(int first, int last, int threads) {
    if (first < 0 || last > N || first >= last || threads < 1) {
        std::fprintf(stderr, "sweep: bad range %d..%d or threads %d\n", first, last, threads);
        return 2;
    }
    const std::vector<uint64_t> members = member_table();
    const uint64_t pairs = (uint64_t)(last - first) * N;
    std::atomic<uint64_t> next{0};
    Tally tally;
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
        workers.emplace_back(sweep_pairs, first, pairs, std::ref(next), std::cref(members),
                             std::ref(tally));
    for (auto& w : workers) w.join();
    for (const auto& x : tally.shown)
        std::printf("M %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                    x.s, x.h, x.v, x.m, x.got, x.want);
    std::printf("done %" PRIu64 " %" PRIu64 "\n", tally.cases, tally.mismatches);
    return 0;
}

static int index_of(uint64_t address) {
    for (int i = 0; i < N; ++i)
        if (NODES[i] == address) return i;
    return -1;
}

static int query() {
    const std::vector<uint64_t> members = member_table();
    VerilatedContext context;
    Unit unit(&context);
    uint64_t s, h, v, m;
    while (std::scanf("%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &s, &h, &v, &m) == 4) {
        const int si = index_of(s), hi = index_of(h);
        if (si < 0 || hi < 0 || v >> A || m >> A) {
            std::fprintf(stderr, "query: %" PRIu64 " %" PRIu64 " is not a node pair, or "
                         "%" PRIu64 " %" PRIu64 " not a subcube\n", s, h, v, m);
            return 2;
        }
        const uint64_t got = evaluate(&unit, s, h, v, m);
        std::printf("Q %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                    s, h, v, m, got, expected(si, hi, &members[(v << A | m) * W]));
    }
    unit.final();
    return 0;
}

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "sweep" && argc == 5)
        return sweep(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
    if (mode == "query" && argc == 2) return query();
    std::fprintf(stderr, "usage: %s sweep FIRST LAST THREADS | query\n", argv[0]);
    return 2;
}
