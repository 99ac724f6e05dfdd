// A fabric of address-strapped routers as a netlist of Verilator models, shared by the
// harnesses that drive one (broadcast_main.cpp, trace_main.cpp). Include after
// "verilated.h" and router_fabric.h (generated: Node, N, D, SOURCE, set_straps and the
// port accessors).
#pragma once
#include <string>
#include <type_traits>
#include <vector>

using Payload = std::remove_reference_t<decltype(*out_payload(nullptr, 0))>;
using Valid = std::remove_reference_t<decltype(*out_valid(nullptr, 0))>;
using Credit = std::remove_reference_t<decltype(*in_credit(nullptr, 0))>;

// A node's link outputs after its last clock edge: what its neighbours read (they are
// registers, so each cycle is "inputs from the others' outputs, settle, clock edge").
struct Outputs { Payload payload[D]; Valid valid[D]; Credit credit[D]; };

static void take_snapshot(Node* n, Outputs& o) {
    for (int p = 0; p < D; ++p) {
        o.payload[p] = *out_payload(n, p);
        o.valid[p] = *out_valid(n, p);
        o.credit[p] = *in_credit(n, p);
    }
}

// The N nodes, their straps tied, every local_out ready, settled at reset.
static void make_nodes(VerilatedContext& context, std::vector<Node*>& nodes,
                       std::vector<Outputs>& snapshot) {
    nodes.resize(N);
    snapshot.resize(N);
    for (int i = 0; i < N; ++i) {
        Node* n = nodes[i] = new Node{&context, ("node" + std::to_string(i)).c_str()};
        set_straps(n, i);
        local_out_ready(n) = 1;
        n->clk = 0;
        n->eval();
        take_snapshot(n, snapshot[i]);
    }
}

// Node i's link inputs: its neighbours' outputs after their last clock edge.
static void drive_links(Node* n, int i, const std::vector<Outputs>& snapshot) {
    for (int p = 0; p < D; ++p) {
        const Outputs& from = snapshot[SOURCE[i][p][0]];
        int q = SOURCE[i][p][1];
        *in_payload(n, p) = from.payload[q];
        *in_valid(n, p) = from.valid[q];
        *out_credit(n, p) = from.credit[q];
    }
}

static void free_nodes(std::vector<Node*>& nodes) {
    for (Node* n : nodes) {
        n->final();
        delete n;
    }
}
