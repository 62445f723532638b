// `ctile demo`: runs examples 1-3 on a device, checks each against a float64 host reference and
// prints one table row per case.
#pragma once
#include <string>

#include <ctile/ctile.hpp>

namespace tool {

// Returns the number of cases whose error exceeded its tolerance.
int run_demo(const ct::device& dev);

}  // namespace tool
