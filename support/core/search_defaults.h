// Defaults of the throughput search written once: Config
// (THROUGHPUT_SEARCH_MAX), the search parameters (judge/step_search.h,
// judge/throughput_search.h) and the result model's pass rule
// (scenario_result.h StepPassRule) take them from here.
#pragma once

namespace fvbench {

// THROUGHPUT_SEARCH_MAX, RPS: the seed's default cap (fairvisor/benchmark
// run-all.sh); the seed search's steps are percentages of it.
inline constexpr double kDefaultSearchMaxRps = 150000;

}  // namespace fvbench
