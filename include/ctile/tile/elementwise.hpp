// All elementwise tile ops: operators, math, integer rules, casts and creation.
#pragma once
#include "ctile/tile/cast.hpp"
#include "ctile/tile/integer.hpp"
#include "ctile/tile/math.hpp"
#include "ctile/tile/operators.hpp"
