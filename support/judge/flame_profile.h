// The frames that cost the most in a profile of folded stacks
// (core/folded_stacks.h), and the frames whose cost per request grew the
// most from a profile A to a profile B (the question a differential flame
// graph answers by eye). Pure.
//
// A frame is a name: the same function called from different stacks is one
// frame. Its `self` samples are those of the stacks it is the leaf of; its
// `total` samples those of the stacks it is on, counted once per stack
// however often it appears in it (a recursive function is not counted twice;
// as perf report --children and pprof's cum). Shares are of all samples of
// the profile, 0..1; a profile without samples has no frames.
//
// TopGrowth normalises both profiles per request: a frame's total samples
// divided by the requests its profile served (so a B that ran longer or at
// a higher rate compares fairly). delta_per_request = b - a;
// delta_share_of_a = delta / (all of A's samples per request): the growth as
// a share of A's whole cost per request (+0.05: this frame alone added 5 %
// of what a request cost in A); relative_change = delta / a (0 with new_in_b
// true when the frame is not in A). Frames are ordered by delta_per_request,
// largest first (shrinking frames last), ties by name. requests_a or
// requests_b 0 (nothing to normalise by) gives no frames. TopStackGrowth
// does the same per stack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/core/folded_stacks.h"

namespace fvbench {

struct FrameShare {
  std::string frame;
  uint64_t self = 0, total = 0;
  double self_share = 0, total_share = 0;
};

// At most n frames, by self (by_self) or total samples, largest first; ties by name.
std::vector<FrameShare> TopFrames(const FoldedStacks& f, size_t n, bool by_self);

struct FrameDelta {
  std::string frame;
  double a_per_request = 0, b_per_request = 0, delta_per_request = 0;
  double delta_share_of_a = 0;
  double relative_change = 0;  // delta / a; 0 when new_in_b
  bool new_in_b = false;       // on no stack of A
};

// At most n frames by growth of total samples per request.
std::vector<FrameDelta> TopGrowth(const FoldedStacks& a, uint64_t requests_a, const FoldedStacks& b,
                                  uint64_t requests_b, size_t n);

// As TopGrowth, by self samples (those of the stacks the frame is the leaf
// of: where the time itself went, what `perf diff` compares); new_in_b when
// the frame is the leaf of no stack of A.
std::vector<FrameDelta> TopSelfGrowth(const FoldedStacks& a, uint64_t requests_a, const FoldedStacks& b,
                                      uint64_t requests_b, size_t n);

// As TopGrowth, per stack: `frame` is the whole stack ("root;...;leaf"),
// its samples per request those of that exact stack.
std::vector<FrameDelta> TopStackGrowth(const FoldedStacks& a, uint64_t requests_a, const FoldedStacks& b,
                                       uint64_t requests_b, size_t n);

// Every frame of `f` with its self and total samples (shares of f.total()), by name.
std::vector<FrameShare> FrameShares(const FoldedStacks& f);

}  // namespace fvbench
