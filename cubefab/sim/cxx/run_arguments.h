// The command line of cubefab's Verilator mains:
//   CYCLES REPORT_EVERY [threads=N] [skip=0|1] [window=FIRST:END]
//   [faults=PATH] [NAME=VALUE | NAME@CYCLE=VALUE | report@CYCLE | drained@CYCLE]...
// NAME=VALUE holds an input from the start; NAME@CYCLE=VALUE sets it after CYCLE
// cycles; report@CYCLE prints the counters then too; drained@CYCLE stops the run at
// the first cycle from CYCLE on after which the counters `created` and `delivered`
// are equal; window=FIRST:END is the measured window (cycles FIRST..END-1);
// faults=PATH names a fault configuration file (mains that read one: faults.h);
// skip=0 evaluates every node in every cycle (mains that leave quiet nodes alone: the
// same results, slower, for checks).
// Needs is_input(name) from the including main.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

struct Change { std::string name; uint64_t value; };

struct RunArguments {
    uint64_t cycles = 0, every = 0;
    int threads = 1;
    bool skip_quiet = true;
    std::vector<Change> held;                  // inputs held from the start
    std::multimap<uint64_t, Change> changes;   // inputs changed after a cycle
    std::map<uint64_t, bool> reports;
    uint64_t stop_drained = UINT64_MAX;
    uint64_t window_first = 0, window_end = UINT64_MAX;
    std::string faults;                        // fault configuration file, or empty
};

static bool is_input(const std::string& name);

// Parses the command line; prints why and returns false when it is wrong.
static bool parse_run_arguments(int argc, char** argv, RunArguments& a) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s CYCLES REPORT_EVERY [threads=N] [skip=0|1] [window=A:B] "
                     "[NAME[@CYCLE]=VALUE | report@CYCLE | drained@CYCLE]...\n", argv[0]);
        return false;
    }
    a.cycles = std::strtoull(argv[1], nullptr, 10);
    a.every = std::strtoull(argv[2], nullptr, 10);
    for (int i = 3; i < argc; ++i) {
        std::string arg = argv[i];
        size_t at = arg.find('@'), eq = arg.find('=');
        if (arg.rfind("report@", 0) == 0) {
            a.reports[std::strtoull(arg.c_str() + 7, nullptr, 10)] = true;
            continue;
        }
        if (arg.rfind("drained@", 0) == 0) {
            a.stop_drained = std::strtoull(arg.c_str() + 8, nullptr, 10);
            continue;
        }
        if (arg.rfind("faults=", 0) == 0) {
            a.faults = arg.substr(7);
            continue;
        }
        if (arg.rfind("window=", 0) == 0) {
            size_t colon = arg.find(':');
            if (colon == std::string::npos) {
                std::fprintf(stderr, "bad %s\n", argv[i]);
                return false;
            }
            a.window_first = std::strtoull(arg.c_str() + 7, nullptr, 10);
            a.window_end = std::strtoull(arg.c_str() + colon + 1, nullptr, 10);
            continue;
        }
        if (eq == std::string::npos) {
            std::fprintf(stderr, "bad argument %s\n", argv[i]);
            return false;
        }
        uint64_t value = std::strtoull(arg.c_str() + eq + 1, nullptr, 10);
        if (arg.rfind("threads=", 0) == 0) {
            a.threads = (int)value;
            if (a.threads < 1) { std::fprintf(stderr, "bad %s\n", argv[i]); return false; }
        } else if (arg.rfind("skip=", 0) == 0) {
            if (value > 1) { std::fprintf(stderr, "bad %s\n", argv[i]); return false; }
            a.skip_quiet = value;
        } else if (at != std::string::npos && at < eq) {
            uint64_t when = std::strtoull(arg.substr(at + 1, eq - at - 1).c_str(), nullptr, 10);
            a.changes.insert({when, Change{arg.substr(0, at), value}});
        } else {
            a.held.push_back(Change{arg.substr(0, eq), value});
        }
    }
    for (auto& change : a.changes)
        if (!is_input(change.second.name)) {
            std::fprintf(stderr, "no input %s\n", change.second.name.c_str());
            return false;
        }
    for (auto& input : a.held)
        if (!is_input(input.name)) {
            std::fprintf(stderr, "no input %s\n", input.name.c_str());
            return false;
        }
    return true;
}
