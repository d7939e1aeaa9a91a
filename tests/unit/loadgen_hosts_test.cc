// The load generators as one list (run/loadgen_hosts.h): each host's engine
// cpuset from ITS OWN CPUs, each process's part, hosts that are one machine
// (one boot_id), and the notes that name every host. Pure: entries built by
// hand. Testbed's use of them on hosts of different CPU sets: testbed_hosts_test.cc.
#include "support/run/loadgen_hosts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::loadgen_hosts_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<int> Cpus(int from, int to) {
  std::vector<int> v;
  for (int i = from; i <= to; ++i) v.push_back(i);
  return v;
}

LoadgenHost Entry(const std::string& target, std::vector<int> cpus, bool taskset = true,
                 const std::string& boot_id = "") {
  LoadgenHost h;
  h.target = target;
  h.info.cpus = std::move(cpus);
  h.info.cores = static_cast<int>(h.info.cpus.size());
  h.info.have_taskset = taskset;
  h.info.boot_id = boot_id;
  return h;
}

// A list of entries (move-only: they may own their connection).
template <typename... E>
std::vector<LoadgenHost> List(E&&... e) {
  std::vector<LoadgenHost> v;
  (v.push_back(std::move(e)), ...);
  return v;
}

Config Remote(const std::string& loadgen_cpuset = "") {
  Config c;
  c.fairvisor_remote = "root@sut";
  c.loadgen_remotes = {"root@a", "root@b", "root@c"};
  c.loadgen_cpuset = loadgen_cpuset;
  return c;
}

const std::string kBootA = "11111111-2222-3333-4444-555555555555";
const std::string kBootB = "66666666-7777-8888-9999-000000000000";

// Seen: the split of several loadgen hosts came from the first host's CPUs
// and was applied to all. Each host's automatic cpuset is the second half
// of its own CPUs (>= 8 and taskset), or none.
TEST(PinLoadgenHosts, EachHostFromItsOwnCpus) {
  std::vector<LoadgenHost> hosts = List(Entry("root@a", Cpus(0, 15)), Entry("root@b", Cpus(0, 7)), Entry("root@c", Cpus(0, 3)));
  ASSERT_TRUE(PinLoadgenHosts(Remote(), hosts).ok());
  EXPECT_EQ(hosts[0].cpuset, "8-15");
  EXPECT_EQ(hosts[1].cpuset, "4-7");
  EXPECT_EQ(hosts[2].cpuset, "");  // 4 CPUs: unpinned
  EXPECT_TRUE(hosts[0].cpuset_auto);
  EXPECT_FALSE(hosts[2].cpuset_auto);
  EXPECT_EQ(hosts[2].engine_cpus(), "0-3");
  EXPECT_EQ(LoadgenCpusetsText(hosts), "root@a: 8-15, root@b: 4-7, root@c: unpinned");
}

// K6_CPUSET as given applies on every host, each checked against its own
// CPUs; the host that lacks one is named.
TEST(PinLoadgenHosts, GivenCpusetCheckedOnEveryHost) {
  std::vector<LoadgenHost> hosts = List(Entry("root@a", Cpus(0, 15)), Entry("root@b", Cpus(0, 7)), Entry("root@c", Cpus(0, 3)));
  auto r = PinLoadgenHosts(Remote("6-7"), hosts);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("K6_CPUSET='6-7': CPU 6 does not exist or may not be used on loadgen "
                                           "host root@c (its processes may use CPUs 0-3"));
  hosts.pop_back();
  ASSERT_TRUE(PinLoadgenHosts(Remote("6-7"), hosts).ok());
  EXPECT_EQ(LoadgenCpusetsText(hosts), "6-7");
}

// A cpuset on a host without taskset is refused naming THAT host, whichever it is.
TEST(PinLoadgenHosts, TasksetCheckNamesEveryHost) {
  std::vector<LoadgenHost> hosts = List(Entry("root@a", Cpus(0, 7)), Entry("root@b", Cpus(0, 7), /*taskset=*/false));
  auto r = PinLoadgenHosts(Remote("4-5"), hosts);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("loadgen host root@b: K6_CPUSET=4-5 but taskset is not installed there"));
  // Automatic: a host without taskset stays unpinned, the other is split.
  std::vector<LoadgenHost> autos = List(Entry("root@a", Cpus(0, 7)), Entry("root@b", Cpus(0, 7), false));
  ASSERT_TRUE(PinLoadgenHosts(Remote(), autos).ok());
  EXPECT_EQ(autos[0].cpuset, "4-7");
  EXPECT_EQ(autos[1].cpuset, "");
}

// Local mode: Config's own split of this machine (config.h), never redone.
TEST(PinLoadgenHosts, LocalModeTakesConfigsSplit) {
  Config c;
  c.loadgen_cpuset = "4-7";
  c.cpusets_auto = true;
  std::vector<LoadgenHost> hosts = List(Entry("local", Cpus(0, 7)));
  ASSERT_TRUE(PinLoadgenHosts(c, hosts).ok());
  EXPECT_EQ(hosts[0].cpuset, "4-7");
  EXPECT_TRUE(hosts[0].cpuset_auto);
}

// Each process its own part of its host's cpuset (LOADGEN_PROCS_PER_HOST).
TEST(SplitProcessCpusets, EachHostSplitsItsOwnCpuset) {
  std::vector<LoadgenHost> hosts = List(Entry("root@a", Cpus(0, 15)), Entry("root@b", Cpus(0, 7)), Entry("root@c", Cpus(0, 3)));
  ASSERT_TRUE(PinLoadgenHosts(Remote(), hosts).ok());
  ASSERT_TRUE(SplitProcessCpusets(2, hosts).ok());
  EXPECT_THAT(hosts[0].process_cpusets, ElementsAre("8-11", "12-15"));
  EXPECT_THAT(hosts[1].process_cpusets, ElementsAre("4-5", "6-7"));
  EXPECT_THAT(hosts[2].process_cpusets, ElementsAre("", ""));  // unpinned
  ASSERT_TRUE(SplitProcessCpusets(1, hosts).ok());
  EXPECT_THAT(hosts[0].process_cpusets, ElementsAre("8-15"));
  // Too few CPUs for the processes: named with the numbers.
  std::vector<LoadgenHost> small = List(Entry("root@a", Cpus(0, 7)));
  ASSERT_TRUE(PinLoadgenHosts(Remote("4-5"), small).ok());
  auto r = SplitProcessCpusets(3, small);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("LOADGEN_PROCS_PER_HOST=3 on loadgen host root@a: 3 engine processes, "
                                           "but their cpuset 4-5 has 2 CPU(s)"));
}

// Hosts that are one machine (one boot_id: containers, namespaces) pinned to
// one cpuset split it among all their processes, as one host's processes
// do: pinned processes on one machine never share a CPU.
TEST(SplitProcessCpusets, OneMachineSplitsAmongAllItsProcesses) {
  std::vector<LoadgenHost> hosts = List(Entry("root@a", Cpus(0, 7), true, kBootA), Entry("root@b", Cpus(0, 7), true, kBootA),
                                 Entry("root@c", Cpus(0, 7), true, kBootB));
  ASSERT_TRUE(PinLoadgenHosts(Remote(), hosts).ok());
  ASSERT_TRUE(SplitProcessCpusets(1, hosts).ok());
  EXPECT_THAT(hosts[0].process_cpusets, ElementsAre("4-5"));
  EXPECT_THAT(hosts[1].process_cpusets, ElementsAre("6-7"));
  EXPECT_THAT(hosts[2].process_cpusets, ElementsAre("4-7"));  // its own machine
  auto r = SplitProcessCpusets(3, hosts);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("LOADGEN_PROCS_PER_HOST=3 on loadgen hosts root@a and root@b (one "
                                           "machine, boot_id 11111111): 6 engine processes, but their cpuset 4-7 has "
                                           "4 CPU(s)"));
}

// A loadgen host on the SUT's kernel shares its CPUs as local mode's engine
// does: the sharing names the machine; other hosts do not share.
TEST(SutSharing, LoadgenOnTheSutsKernel) {
  ProvisionInfo sut;
  sut.boot_id = kBootA;
  std::vector<LoadgenHost> apart = List(Entry("root@c", Cpus(0, 1), true, kBootB));
  EXPECT_EQ(*SutSharing(true, "", sut, apart), "");
  std::vector<LoadgenHost> same = List(Entry("root@c", Cpus(0, 1), true, kBootB), Entry("root@a", Cpus(0, 1), true, kBootA));
  EXPECT_EQ(*SutSharing(true, "", sut, same),
            "one machine (the SUT host and loadgen host root@a run one kernel, boot_id 11111111) without pinning: the "
            "load engine and the SUT share all cores");
  EXPECT_THAT(HostsOnSutKernel(same, sut), ElementsAre("root@a"));
  // Disjoint cpusets on one machine share no core.
  same[1].cpuset = "1";
  EXPECT_EQ(*SutSharing(true, "0", sut, same), "");
  // Unknown boot_ids are never one machine.
  ProvisionInfo unknown;
  std::vector<LoadgenHost> none = List(Entry("root@a", Cpus(0, 1)));
  EXPECT_EQ(*SutSharing(true, "", unknown, none), "");
  // Local mode: as ever.
  EXPECT_EQ(*SutSharing(false, "", sut, none), "local mode without pinning: the load engine and the SUT share all cores");
}

// Which hosts (and the controller) run one kernel; the pinning note names
// every host.
TEST(MachineNote, NamesTheHostsOfOneKernelAndEveryPinning) {
  ProvisionInfo sut;
  sut.boot_id = kBootA;
  sut.cores = 2;
  sut.have_taskset = true;
  std::vector<LoadgenHost> hosts = List(Entry("root@a", Cpus(0, 1), true, kBootA), Entry("root@b", Cpus(0, 1), true, kBootA));
  const std::string note = MachineNote("root@sut", sut, hosts, kBootA);
  EXPECT_EQ(note, "one machine: the SUT host root@sut, loadgen host root@a, loadgen host root@b and the controller run "
                  "one kernel (boot_id 11111111): they share its CPUs and its clock");
  EXPECT_EQ(MachineNote("root@sut", sut, hosts, kBootB),
            "one machine: the SUT host root@sut, loadgen host root@a and loadgen host root@b run one kernel (boot_id "
            "11111111): they share its CPUs and its clock");
  std::vector<LoadgenHost> apart = List(Entry("root@a", Cpus(0, 1), true, kBootB));
  EXPECT_EQ(MachineNote("root@sut", sut, apart, ""), "");
  ASSERT_TRUE(PinLoadgenHosts(Remote(), hosts).ok());
  ASSERT_TRUE(SplitProcessCpusets(1, hosts).ok());
  const std::string pinning = RemotePinningNote("root@sut", "", false, sut, hosts, note);
  EXPECT_THAT(pinning, HasSubstr("SUT root@sut: nginx unpinned (2 cores, taskset yes"));
  EXPECT_THAT(pinning, HasSubstr("loadgen root@a: engine unpinned (2 cores, taskset yes"));
  EXPECT_THAT(pinning, HasSubstr("loadgen root@b: engine unpinned (2 cores, taskset yes"));
  EXPECT_THAT(pinning, HasSubstr("; one machine: "));
}

}  // namespace
}  // namespace fvbench::loadgen_hosts_test
