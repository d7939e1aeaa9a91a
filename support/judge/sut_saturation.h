// How busy the SUT's CPUs were during one measured phase, for
// LoadResult::sut_cpu_share and EngineLimitedReason (step_search.h): was
// the SUT saturated, or did the load generator stop short of it?
//
// Sources (PhaseObservation, phase_observation.h): the SUT nginx processes'
// CPU (ServiceUsage::cpu_cores, /proc/<pid>/stat utime+stime over the phase)
// over the CPUs of the SUT's cpuset (QuietOutcome::cpus: its cpuset, or every
// online CPU when unpinned), and at least the busy share of those CPUs in
// /proc/stat (PhaseObservation::sut_busy): the kernel's network work for the
// SUT (softirq) is not in its processes' times, and measured on one pinned
// CPU at the knee the processes read 79 % while the SUT queued. When the load generator shares those CPUs
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

// From which share (0..1) n CPUs that the engine SHARES with the SUT count as
// saturated: (n - 1) / n, i.e. less than one whole CPU's time left idle. An
// engine thread needs at most one CPU; with less than that idle across the
// shared set, its threads waited behind the SUT's workers to run, and a send
// that fell behind was the shared CPUs' doing, not the engine's own limit.
// Measured on 2 shared CPUs (wrk, edge and its backend unpinned): sends
// 17-55 ms late at 84 % busy, while the SUT served every request sent.
// 0 for n <= 1 (one shared CPU: never told apart), 0.5 for 2, 0.875 for 8.
double SharedCpusSaturatedFrom(int cpus);

}  // namespace fvbench
