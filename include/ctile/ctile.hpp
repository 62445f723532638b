// The whole of ctile: the tile DSL (ct::tile, views, ops) and the host runtime (devices,
// tensors, partitions, launch).
#pragma once
#include "ctile/tile/atomic.hpp"
#include "ctile/tile/block_group.hpp"
#include "ctile/tile/debug.hpp"
#include "ctile/tile/elementwise.hpp"
#include "ctile/tile/gather.hpp"
#include "ctile/tile/hints.hpp"
#include "ctile/tile/mma.hpp"
#include "ctile/tile/pipeline.hpp"
#include "ctile/tile/reduce.hpp"
#include "ctile/tile/scan.hpp"
#include "ctile/tile/shape_ops.hpp"
#include "ctile/tile/view.hpp"
#include "ctile/runtime/launch.hpp"
