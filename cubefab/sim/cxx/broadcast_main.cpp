// cubefab.sim.verilator_broadcast: a fabric of address-strapped routers, one compiled
// router and a netlist, with a scripted injection at one node. router_fabric.h
// (generated) defines the router model (Node), the netlist (N nodes of D ports,
// SOURCE), each node's straps (set_straps), the port accessors (in_payload(n, p)...,
// local_in_payload(n)...), the flit's HEAD_LO and TAIL_LO and FLIT_WORDS.
//
// Command line: FLITS SOURCE EXPECTED LIMIT
//   FLITS     a file of flits, one a line: FLIT_WORDS 32-bit words, least significant
//             first, offered in order at local_in of node SOURCE (dense index) from
//             cycle 0 (valid/ready); every local_out is always ready
//   EXPECTED  tails to eject in all (the run stops once they have, and every flit is in)
//   LIMIT     most cycles to run
// Prints, for cycle c (after c clock edges; as the Amaranth testbench samples it):
//   L c i p   the first flit on link_out[p] of node i
//   H c i p   the first head flit on link_out[p] of node i
//   T c i     a tail leaving local_out of node i
//   I c       the last flit entered (c + 1 cycles to inject)
//   end c     the last cycle run
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>
#include "verilated.h"
#include "router_fabric.h"
#include "router_netlist.h"
#include "words.h"

double sc_time_stamp() { return 0; }

static bool read_flits(const char* path, std::vector<uint32_t>& words) {
    std::FILE* f = std::fopen(path, "r");
    if (!f) { std::fprintf(stderr, "cannot read %s\n", path); return false; }
    unsigned long w;
    while (std::fscanf(f, "%lu", &w) == 1) words.push_back((uint32_t)w);
    std::fclose(f);
    if (words.size() % FLIT_WORDS) {
        std::fprintf(stderr, "%s: not a whole number of flits\n", path);
        return false;
    }
    return true;
}

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s FLITS SOURCE EXPECTED LIMIT\n", argv[0]);
        return 2;
    }
    std::vector<uint32_t> words;
    if (!read_flits(argv[1], words)) return 2;
    const int source = std::atoi(argv[2]);
    const uint64_t expected = std::strtoull(argv[3], nullptr, 10);
    const uint64_t limit = std::strtoull(argv[4], nullptr, 10);
    if (source < 0 || source >= N) { std::fprintf(stderr, "no node %d\n", source); return 2; }
    const size_t flits = words.size() / FLIT_WORDS;
    VerilatedContext context;
    std::vector<Node*> nodes;
    std::vector<Outputs> snapshot;
    make_nodes(context, nodes, snapshot);
    std::vector<bool> crossed(N * D), headed(N * D);
    size_t sent = 0;
    uint64_t seen = 0, cycle = 0;
    for (; cycle < limit; ++cycle) {
        for (int i = 0; i < N; ++i) {
            Node* n = nodes[i];
            drive_links(n, i, snapshot);
            if (i == source) {
                if (sent < flits) set_words(local_in_payload(n), &words[sent * FLIT_WORDS]);
                local_in_valid(n) = sent < flits;
            }
            n->clk = 0;
            n->eval();
        }
        if (sent < flits && local_in_ready(nodes[source]) && ++sent == flits)
            std::printf("I %" PRIu64 "\n", cycle);
        for (int i = 0; i < N; ++i) {
            const Outputs& mine = snapshot[i];
            for (int p = 0; p < D; ++p) {
                if (!mine.valid[p]) continue;
                if (!crossed[i * D + p]) {
                    crossed[i * D + p] = true;
                    std::printf("L %" PRIu64 " %d %d\n", cycle, i, p);
                }
                if (!headed[i * D + p] && bits_of(mine.payload[p], HEAD_LO, 1)) {
                    headed[i * D + p] = true;
                    std::printf("H %" PRIu64 " %d %d\n", cycle, i, p);
                }
            }
            if (local_out_valid(nodes[i]) && bits_of(local_out_payload(nodes[i]), TAIL_LO, 1)) {
                std::printf("T %" PRIu64 " %d\n", cycle, i);
                ++seen;
            }
        }
        if (seen == expected && sent == flits) break;
        for (int i = 0; i < N; ++i) {
            nodes[i]->clk = 1;
            nodes[i]->eval();
            take_snapshot(nodes[i], snapshot[i]);
        }
    }
    std::printf("end %" PRIu64 "\n", cycle < limit ? cycle : limit - 1);
    free_nodes(nodes);
    return 0;
}
