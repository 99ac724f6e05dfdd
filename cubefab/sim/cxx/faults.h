// The fault configuration of a run of fault-tolerant routers (cubefab.sim.selfcheck_run
// FaultConfiguration, written by cubefab.sim.verilator_fabric as a file of numbers):
// the writes that load the source tables through the fabric's configuration port,
// the faulty nodes and channels, the header of every pair routed through waypoints
// and the refused pairs; and the misrouted check that follows the waypoint routes
// (cubefab.sim.checks.WaypointReference). Needs fabric.h and checks.h.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

struct FaultConfig {
    struct Write { uint64_t node, dest, entry; };
    std::vector<Write> writes;
    bool faulty[N] = {false};                 // by dense index
    bool faulty_channel[N][D] = {{false}};    // (dense index, port): the link or an end is faulty
    std::unordered_map<uint64_t, std::vector<uint32_t>> headers;   // pairs via waypoints
    std::unordered_set<uint64_t> refused;                          // healthy pairs refused

    static uint64_t key(uint32_t src, uint32_t dest) { return ((uint64_t)src << 32) | dest; }

    // Reads the file; false (with a message) when it is malformed.
    bool load(const std::string& path) {
        FILE* f = std::fopen(path.c_str(), "r");
        if (!f) { std::fprintf(stderr, "cannot open %s\n", path.c_str()); return false; }
        bool ok = read(f);
        std::fclose(f);
        if (!ok) std::fprintf(stderr, "malformed fault configuration %s\n", path.c_str());
        return ok;
    }

    bool read(FILE* f) {
        unsigned long long count, a, b, c;
        if (std::fscanf(f, " W %llu", &count) != 1) return false;
        for (unsigned long long i = 0; i < count; ++i) {
            if (std::fscanf(f, "%llu %llu %llu", &a, &b, &c) != 3) return false;
            writes.push_back({a, b, c});
        }
        if (std::fscanf(f, " F %llu", &count) != 1) return false;
        for (unsigned long long i = 0; i < count; ++i) {
            if (std::fscanf(f, "%llu", &a) != 1 || a >= (unsigned long long)N) return false;
            faulty[a] = true;
        }
        if (std::fscanf(f, " C %llu", &count) != 1) return false;
        for (unsigned long long i = 0; i < count; ++i) {
            if (std::fscanf(f, "%llu %llu", &a, &b) != 2 || a >= (unsigned long long)N
                    || b >= (unsigned long long)D) return false;
            faulty_channel[a][b] = true;
        }
        if (std::fscanf(f, " H %llu", &count) != 1) return false;
        for (unsigned long long i = 0; i < count; ++i) {
            if (std::fscanf(f, "%llu %llu %llu", &a, &b, &c) != 3) return false;
            std::vector<uint32_t>& ws = headers[key(a, b)];
            for (unsigned long long j = 0; j < c; ++j) {
                unsigned long long w;
                if (std::fscanf(f, "%llu", &w) != 1) return false;
                ws.push_back((uint32_t)w);
            }
        }
        if (std::fscanf(f, " R %llu", &count) != 1) return false;
        for (unsigned long long i = 0; i < count; ++i) {
            if (std::fscanf(f, "%llu %llu", &a, &b) != 2) return false;
            refused.insert(key(a, b));
        }
        return true;
    }
};

static FaultConfig FAULTS;

// The port of the reference routing at node x toward target (NEXT, reduced by the
// translations as in link_allowed).
static inline int reference_port(uint32_t x, uint32_t target) {
    const uint32_t t = target & TRANSLATION_MASK;
    return NEXT[REP_INDEX[target ^ t]][0][INDEX[x ^ t]];
}

// Whether flit f may leave the node of dense index `node` through `port`: its header
// names the waypoints of its pair, the node, the link and the next node are healthy,
// and the waypoint route of its pair takes that hop in the phase the flit carries, on
// VC phase * CLASSES + class (the class 0 on a new leg, up one on a wrap link).
static bool waypoint_allowed(int node, int port, const Flit& f) {
    if (INDEX[f.src] < 0 || INDEX[f.dest] < 0) return false;
    if (FAULTS.faulty[INDEX[f.src]] || FAULTS.faulty[INDEX[f.dest]]) return false;
    if (FAULTS.faulty[node] || FAULTS.faulty_channel[node][port]) return false;
    const uint64_t k = FaultConfig::key(f.src, f.dest);
    if (FAULTS.refused.count(k)) return false;
    auto it = FAULTS.headers.find(k);
    const uint32_t count = it == FAULTS.headers.end() ? 0 : (uint32_t)it->second.size();
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
