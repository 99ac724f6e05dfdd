// cubefab.sim.verilator_engine: run a design with a clock, no reset, counters printed.
// design.h (generated) defines Top (the Verilator model), report_counters(),
// set_input(), is_input() and drained().
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>
#include "verilated.h"
#include "design.h"
#include "run_arguments.h"

double sc_time_stamp() { return 0; }

static void report(Top* top, uint64_t cycle) {
    std::printf("cycle=%" PRIu64, cycle);
    report_counters(top);
    std::printf("\n");
    std::fflush(stdout);
}

int main(int argc, char** argv) {
    RunArguments a;
    if (!parse_run_arguments(argc, argv, a)) return 2;
    VerilatedContext* context = new VerilatedContext;
    Top* top = new Top{context};
    for (auto& input : a.held) set_input(top, input.name, input.value);
    top->clk = 0;
    top->eval();
    for (uint64_t cycle = 1; cycle <= a.cycles; ++cycle) {
        auto range = a.changes.equal_range(cycle - 1);
        for (auto it = range.first; it != range.second; ++it)
            set_input(top, it->second.name, it->second.value);
        top->clk = 1;
        top->eval();
        top->clk = 0;
        top->eval();
        if (cycle >= a.stop_drained && cycle != a.cycles && drained(top)) {
            a.cycles = cycle;
            break;
        }
        if (cycle != a.cycles && ((a.every && cycle % a.every == 0) || a.reports.count(cycle)))
            report(top, cycle);
    }
    std::printf("final ");
    report(top, a.cycles);
    top->final();
    delete top;
    delete context;
    return 0;
}
