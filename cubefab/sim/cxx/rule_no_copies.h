// The copies' rule of routers that copy nothing (cubefab.topology.references
// NoCopies): no copy may cross a link, no node receives one.
#pragma once
#include <cstdint>
#include "flit.h"

static bool copy_allowed(int, int, const Flit&) { return false; }
static bool copy_receives(uint32_t, int) { return false; }
static int copy_count(uint32_t) { return 0; }
