// The fault configuration of a run of fault-tolerant routers (cubefab.sim.selfcheck_run
// FaultConfiguration, written by cubefab.sim.verilator_fabric as a file of numbers):
// the writes that load the source tables through the fabric's configuration port,
// the faulty nodes and channels, the header of every pair routed through waypoints
// and the refused pairs (what the waypoint rule, rule_waypoint.h, checks by); the
// links failing mid-run, each with the writes that change and the reference of its new
// fault set; the flood of fault-tolerant replicating routers (rule_flood.h). Needs
// fabric.h; builds on flit.h (the rules build on it: no header here depends on them or
// on checks.h).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include "flit.h"

// The misrouted check's reference of one fault set's routing.
struct FaultReference {
    std::vector<bool> faulty = std::vector<bool>(N, false);            // by dense index
    std::vector<bool> faulty_channel = std::vector<bool>(N * D, false); // (index, port): the link or an end is faulty
    std::unordered_map<uint64_t, std::vector<uint32_t>> headers;   // pairs via waypoints
    std::unordered_set<uint64_t> refused;                          // healthy pairs refused

    static uint64_t key(uint32_t src, uint32_t dest) { return ((uint64_t)src << 32) | dest; }

    bool read(FILE* f) {
        unsigned long long count, a, b, c;
        if (std::fscanf(f, " F %llu", &count) != 1) return false;
        for (unsigned long long i = 0; i < count; ++i) {
            if (std::fscanf(f, "%llu", &a) != 1 || a >= (unsigned long long)N) return false;
            faulty[a] = true;
        }
        if (std::fscanf(f, " C %llu", &count) != 1) return false;
        for (unsigned long long i = 0; i < count; ++i) {
            if (std::fscanf(f, "%llu %llu", &a, &b) != 2 || a >= (unsigned long long)N
                    || b >= (unsigned long long)D) return false;
            faulty_channel[a * D + b] = true;
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

struct FaultConfig {
    struct Write { uint64_t node, dest, entry; };
    // a link failing mid-run: before run cycle `cycle` both its channels (dense index,
    // port) go down; before the next, `writes` rewrite the tables that change
    struct Failure { uint64_t cycle; int node[2], port[2]; std::vector<Write> writes; };
    std::vector<Write> writes;
    std::vector<FaultReference> references;   // the fault set's, then each failure's
    std::vector<Failure> failures;
    // the flood of fault-tolerant replicating routers (none without broadcast VCs): its
    // configuration writes (config_flood), its broadcast VC, per source the copies a
    // broadcast makes, per (source, node) the ports the node sends copies on
    std::vector<Write> flood_writes;
    bool flood = false;
    uint32_t flood_vc = 0;
    std::vector<int> flood_copies;
    std::vector<uint32_t> flood_children;

    // Reads the file; false (with a message) when it is malformed.
    bool load(const std::string& path) {
        FILE* f = std::fopen(path.c_str(), "r");
        if (!f) { std::fprintf(stderr, "cannot open %s\n", path.c_str()); return false; }
        bool ok = read(f);
        std::fclose(f);
        if (!ok) std::fprintf(stderr, "malformed fault configuration %s\n", path.c_str());
        return ok;
    }

    static bool read_writes(FILE* f, unsigned long long count, std::vector<Write>& out) {
        unsigned long long a, b, c;
        for (unsigned long long i = 0; i < count; ++i) {
            if (std::fscanf(f, "%llu %llu %llu", &a, &b, &c) != 3) return false;
            out.push_back({a, b, c});
        }
        return true;
    }

    bool read(FILE* f) {
        unsigned long long count;
        if (std::fscanf(f, " W %llu", &count) != 1 || !read_writes(f, count, writes))
            return false;
        references.emplace_back();
        if (!references.back().read(f)) return false;
        if (std::fscanf(f, " X %llu", &count) != 1) return false;
        for (unsigned long long i = 0; i < count; ++i) {
            unsigned long long cycle, a, p, b, q, k;
            if (std::fscanf(f, "%llu %llu %llu %llu %llu %llu", &cycle, &a, &p, &b, &q, &k) != 6
                    || a >= (unsigned long long)N || b >= (unsigned long long)N
                    || p >= (unsigned long long)D || q >= (unsigned long long)D)
                return false;
            Failure failure{cycle, {(int)a, (int)b}, {(int)p, (int)q}, {}};
            if (!read_writes(f, k, failure.writes)) return false;
            failures.push_back(failure);
            references.emplace_back();
            if (!references.back().read(f)) return false;
        }
        if (std::fscanf(f, " T %llu", &count) != 1 || !read_writes(f, count, flood_writes))
            return false;
        unsigned long long first;
        if (std::fscanf(f, " B %llu", &first) != 1) return true;   // no flood
        flood = true;
        flood_vc = (uint32_t)first;
        flood_copies.resize(N);
        flood_children.resize((std::size_t)N * N);
        for (int s = 0; s < N; ++s)
            if (std::fscanf(f, "%d", &flood_copies[s]) != 1) return false;
        for (std::size_t i = 0; i < (std::size_t)N * N; ++i)
            if (std::fscanf(f, "%u", &flood_children[i]) != 1) return false;
        return true;
    }
};

static FaultConfig FAULTS;
