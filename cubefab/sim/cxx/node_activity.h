// Which nodes of a netlist of Verilator models need evaluating, shared by the harnesses
// that leave quiet nodes alone (trace_main.cpp, fabric_main.cpp). Include after
// "verilated.h" and the generated netlist header (N, D of at most 64 ports, SOURCE).
//
// A node whose state and inputs did not change from one cycle to the next is a fixed
// point of its model: while its inputs stay the same, evaluating it gives the same state
// and outputs again, so the harness need not evaluate it. Its state is a set of byte
// ranges of the model's root object (StateLayout: the whole root, or the members that
// are registers); its inputs are its neighbours' link outputs (and what the harness
// drives, which the harness compares itself).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

// (== on VlWide compares their addresses)
template <typename T> static inline bool same_value(const T& a, const T& b) { return a == b; }
template <std::size_t W> static inline bool same_value(const VlWide<W>& a, const VlWide<W>& b) {
    for (std::size_t i = 0; i < W; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

// The bytes of a model's root object that hold its state: (offset, size) ranges,
// sorted and merged.
class StateLayout {
    std::vector<std::pair<std::size_t, std::size_t>> ranges_;
    std::size_t bytes_ = 0;
public:
    // the member at `member` (of `size` bytes) of the root object at `root`
    void add(const void* root, const void* member, std::size_t size) {
        ranges_.emplace_back((const char*)member - (const char*)root, size);
    }
    void whole(std::size_t size) { ranges_.assign(1, {0, size}); finish(); }
    void finish() {
        std::sort(ranges_.begin(), ranges_.end());
        std::vector<std::pair<std::size_t, std::size_t>> merged;
        for (auto& r : ranges_) {
            if (!merged.empty() && r.first <= merged.back().first + merged.back().second)
                merged.back().second = std::max(merged.back().second,
                                                r.first + r.second - merged.back().first);
            else
                merged.push_back(r);
        }
        ranges_.swap(merged);
        bytes_ = 0;
        for (auto& r : ranges_) bytes_ += r.second;
    }
    std::size_t bytes() const { return bytes_; }
    // whether the state at `root` is the one in `saved`; `saved` becomes it
    bool same_and_keep(const void* root, unsigned char* saved) const {
        bool same = true;
        for (auto& r : ranges_) {
            const unsigned char* from = (const unsigned char*)root + r.first;
            if (same && std::memcmp(saved, from, r.second) == 0) {
                saved += r.second;
                continue;
            }
            same = false;
            std::memcpy(saved, from, r.second);
            saved += r.second;
        }
        return same;
    }
};

// Per node: its state after its last clock edge, which of its link outputs changed at that
// edge (a bit per port) and whether it is quiet (a fixed point: the harness decides what that needs besides
// the same state). Written for node i only by the thread that evaluates it, between the
// barriers that separate the clock edges from the reads of the next cycle.
// the ports whose link outputs differ between a and b (Outputs; a bit per port)
template <typename O> static inline uint64_t changed_ports(const O& a, const O& b) {
    uint64_t changed = 0;
    for (int p = 0; p < D; ++p)
        if (!same_value(a.payload[p], b.payload[p]) || a.valid[p] != b.valid[p]
                || a.credit[p] != b.credit[p])
            changed |= 1ULL << p;
    return changed;
}

struct NodeActivity {
    const StateLayout& layout;
    std::vector<unsigned char> states;
    std::vector<char> quiet;
    std::vector<uint64_t> outputs_changed;

    NodeActivity(const StateLayout& layout, int nodes)
        : layout(layout), states((std::size_t)nodes * layout.bytes()), quiet(nodes, 0),
          outputs_changed(nodes, ~0ULL) {}
    // whether node i's link inputs are those of the cycle before (no output that drives
    // one changed)
    bool links_same(int i) const {
        for (int p = 0; p < D; ++p)
            if (outputs_changed[SOURCE[i][p][0]] >> SOURCE[i][p][1] & 1) return false;
        return true;
    }
    // after node i's clock edge: whether its state is the one after its edge before
    bool state_same(int i, const void* root) {
        return layout.same_and_keep(root, &states[(std::size_t)i * layout.bytes()]);
    }
};
