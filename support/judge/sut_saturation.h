// How busy the SUT's CPUs were during one measured phase, for
// LoadResult::sut_cpu_share and EngineLimitedReason (step_search.h): was
// the SUT saturated, or did the load generator stop short of it?
//
// Sources (PhaseObservation, phase_observation.h): the SUT nginx processes'
// CPU (ServiceUsage::cpu_cores, /proc/<pid>/stat utime+stime over the phase)
// and the CPUs of the SUT's cpuset (QuietOutcome::cpus: its cpuset, or every
// online CPU when unpinned). When the load generator shares those CPUs
// (`shares_cpus`, local mode unpinned or overlapping cpusets) the share is
// at least the load generator host's busy fraction of its cpuset
// (PhaseObservation::loadgen_busy, /proc/stat): CPUs busy with the engine are
// no room for the SUT, so a saturated shared machine never reads as
// "engine-limited".
#pragma once

#include <optional>

#include "support/core/phase_observation.h"

namespace fvbench {

// Fraction 0..1 (a value above 1 is kept: more CPU than the cpuset is a
// sampling artefact, still "saturated"); nullopt when the SUT's CPU or its
// CPU count was not measured.
std::optional<double> SutCpuShare(const PhaseObservation& obs, bool shares_cpus);

}  // namespace fvbench
