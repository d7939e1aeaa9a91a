// kernel_counters: /proc/net/netstat and /proc/net/snmp parsed from real
// recordings of this kind of machine (fixtures/proc/, see its README: a
// listen-queue overflow on loopback between the two readings), the delta of
// two readings, and malformed input.
#include "support/judge/kernel_counters.h"
#include "fvbench/source_dir.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::kernel_counters_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Fixture(const std::string& name) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  std::string path = std::string((dir && *dir) ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/proc/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open fixture " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Both files of one reading, as the phase monitor merges them.
KernelCounters Reading(const std::string& when) {
  KernelCounters all;
  for (const std::string& file : {"netstat_" + when + ".txt", "snmp_" + when + ".txt"}) {
    auto r = ParseKernelCounters(Fixture(file), file);
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (r) all.insert(r->begin(), r->end());
  }
  return all;
}

TEST(KernelCounters, NetstatGolden) {
  auto r = ParseKernelCounters(Fixture("netstat_before.txt"), "netstat_before.txt");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->size(), 135u + 18u + 76u);  // TcpExt, IpExt, MPTcpExt on this kernel
  EXPECT_EQ(r->at("TcpExt.ListenOverflows"), 0);
  EXPECT_EQ(r->at("TcpExt.TCPSynRetrans"), 1195);
  EXPECT_EQ(r->at("TcpExt.TCPTimeouts"), 1202);
  EXPECT_EQ(r->at("TcpExt.TW"), 11268733);
  EXPECT_EQ(r->at("IpExt.InOctets"), 31236450272);  // past 32 bits
  EXPECT_EQ(r->at("MPTcpExt.WinProbe"), 0);         // the last of its line
}

TEST(KernelCounters, SnmpGolden) {
  auto r = ParseKernelCounters(Fixture("snmp_before.txt"), "snmp_before.txt");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->at("Tcp.MaxConn"), -1);  // printed signed by the kernel
  EXPECT_EQ(r->at("Tcp.RetransSegs"), 2020);
  EXPECT_EQ(r->at("Tcp.ActiveOpens"), 16038696);
  EXPECT_EQ(r->at("IcmpMsg.InType3"), 49);
  EXPECT_EQ(r->at("Udp.InDatagrams"), 2808);
  EXPECT_EQ(r->at("UdpLite.MemErrors"), 0);
  EXPECT_EQ(r->count("Ip.Forwarding"), 1u);
}

TEST(KernelCounters, NetDevSumsEveryInterfacesErrorsAndDrops) {
  auto r = ParseNetDev(Fixture("net_dev.txt"), "net_dev.txt");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->size(), 4u);
  EXPECT_EQ(r->at("Dev.RxDrop"), 0);
  EXPECT_EQ(r->at("Dev.TxErrs"), 0);
  // Two interfaces, the second with its counter glued to the colon as old
  // kernels print large ones.
  const std::string text =
      "Inter-|   Receive |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls "
      "carrier compressed\n"
      "    lo: 100 10 1 2 0 0 0 0 100 10 3 4 0 0 0 0\n"
      "  eth0:9999999999 10 5 6 0 0 0 0 100 10 7 8 0 0 0 0\n";
  auto two = ParseNetDev(text, "dev");
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->at("Dev.RxErrs"), 6);
  EXPECT_EQ(two->at("Dev.RxDrop"), 8);
  EXPECT_EQ(two->at("Dev.TxErrs"), 10);
  EXPECT_EQ(two->at("Dev.TxDrop"), 12);
}

TEST(KernelCounters, NetDevMalformedIsAnErrorNamingTheLine) {
  EXPECT_THAT(ParseNetDev("", "dev").error().message, HasSubstr("dev: no interface lines"));
  EXPECT_THAT(ParseNetDev("  lo: 1 2 3\n", "dev").error().message,
              HasSubstr("dev: line 1: 3 fields after the interface, not 16"));
  EXPECT_THAT(ParseNetDev("  lo: 1 2 x 0 0 0 0 0 1 2 0 0 0 0 0 0\n", "dev").error().message,
              HasSubstr("dev: line 1: 'x' is not a count"));
  EXPECT_THAT(ParseNetDev("lo 1 2\n", "dev").error().message, HasSubstr("does not open with \"<interface>:\""));
}

TEST(KernelCounters, ConntrackStatSumsTheCpusLinesAndKeepsEntriesAsAGauge) {
  auto real = ParseConntrackStat(Fixture("nf_conntrack.txt"), "nf_conntrack.txt");
  ASSERT_TRUE(real.ok()) << real.error().message;
  EXPECT_EQ(real->at("Conntrack.drop"), 0);
  EXPECT_EQ(real->count("Conntrack.insert_failed"), 1u);
  const std::string text =
      "entries  found drop early_drop insert_failed\n"
      "0000002a  00000001 0000000a 00000000 00000001\n"
      "0000002a  00000002 000000ff 00000003 00000000\n";
  auto r = ParseConntrackStat(text, "ct");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->at("Conntrack.entries"), 42);  // the table, not 2 x 42
  EXPECT_EQ(r->at("Conntrack.drop"), 10 + 255);
  EXPECT_EQ(r->at("Conntrack.early_drop"), 3);
  EXPECT_TRUE(IsKernelGauge("Conntrack.entries"));
  KernelCounters after = *r;
  after["Conntrack.entries"] = 7;
  after["Conntrack.drop"] += 5;
  const CounterDelta d = KernelCounterDelta(*r, after);
  EXPECT_EQ(d.deltas.at("Conntrack.drop"), 5u);
  EXPECT_EQ(d.deltas.count("Conntrack.entries"), 0u);
  EXPECT_THAT(d.went_back, IsEmpty());
}

TEST(KernelCounters, ConntrackStatMalformedIsAnErrorNamingTheLine) {
  EXPECT_THAT(ParseConntrackStat("", "ct").error().message, HasSubstr("ct: empty"));
  EXPECT_THAT(ParseConntrackStat("found drop\n1 2\n", "ct").error().message, HasSubstr("ct: line 1"));
  EXPECT_THAT(ParseConntrackStat("entries drop\n1\n", "ct").error().message,
              HasSubstr("ct: line 2: 1 values for 2 names"));
  EXPECT_THAT(ParseConntrackStat("entries drop\n1 zz\n", "ct").error().message,
              HasSubstr("ct: line 2: drop is 'zz', not hexadecimal"));
  EXPECT_THAT(ParseConntrackStat("entries drop\n1 ffffffffffffffff\n1 1\n", "ct").error().message,
              HasSubstr("does not fit 64 bits"));
}

// The recorded overflow: backlog 1, 8 clients at once.
TEST(KernelCounters, DeltaOfTheRecordedListenOverflow) {
  CounterDelta d = KernelCounterDelta(Reading("before"), Reading("after"));
  EXPECT_THAT(d.went_back, IsEmpty());
  EXPECT_THAT(d.vanished, IsEmpty());
  EXPECT_EQ(d.deltas.at("TcpExt.ListenOverflows"), 36u);
  EXPECT_EQ(d.deltas.at("TcpExt.ListenDrops"), 36u);
  EXPECT_EQ(d.deltas.at("TcpExt.TCPSynRetrans"), 30u);
  EXPECT_EQ(d.deltas.at("Tcp.RetransSegs"), 30u);
  EXPECT_EQ(d.deltas.at("Tcp.ActiveOpens"), 8u);
  EXPECT_EQ(d.deltas.at("TcpExt.PruneCalled"), 0u);
  // Gauges and settings are no counters: not in a delta.
  EXPECT_EQ(d.deltas.count("Tcp.CurrEstab"), 0u);
  EXPECT_EQ(d.deltas.count("Tcp.MaxConn"), 0u);
  EXPECT_EQ(d.deltas.count("Ip.DefaultTTL"), 0u);
}

TEST(KernelCounters, ACounterThatWentBackOrVanishedIsNamedNotNegative) {
  KernelCounters before{{"TcpExt.A", 10}, {"TcpExt.B", 5}, {"TcpExt.C", 7}, {"Tcp.CurrEstab", 9}};
  KernelCounters after{{"TcpExt.A", 3}, {"TcpExt.B", 8}, {"TcpExt.D", 1}, {"Tcp.CurrEstab", 2}};
  CounterDelta d = KernelCounterDelta(before, after);
  EXPECT_EQ(d.deltas.size(), 1u);
  EXPECT_EQ(d.deltas.at("TcpExt.B"), 3u);
  EXPECT_THAT(d.went_back, ElementsAre("TcpExt.A 10 -> 3"));
  EXPECT_THAT(d.vanished, ElementsAre("TcpExt.C"));
}

Result<KernelCounters> Parse(const std::string& text) { return ParseKernelCounters(text, "/proc/net/snmp"); }

TEST(KernelCounters, MalformedInputIsAnErrorNamingTheFileAndLine) {
  struct Case {
    std::string text;
    std::string says;
  };
  const Case cases[] = {
      {"", "/proc/net/snmp: no counter lines (empty)"},
      {"\n  \n", "/proc/net/snmp: no counter lines (empty)"},
      {"Tcp: A B C\nTcp: 1 2\n", "line 2: 'Tcp:' has 3 names but 2 values"},
      {"Tcp: A B\nTcp: 1 2 3\n", "line 2: 'Tcp:' has 2 names but 3 values"},
      {"Tcp: A B\nTcp: 1 x\n", "line 2: Tcp.B is 'x', not an integer"},
      {"Tcp: A\nTcp: 1.5\n", "Tcp.A is '1.5', not an integer"},
      {"Tcp: A\nTcp: 99999999999999999999\n", "Tcp.A is '99999999999999999999', not an integer"},
      {"Tcp: A\nTcp: --1\n", "not an integer"},
      {"Tcp: A\n", "line 1: the header of 'Tcp:' has no value line after it"},
      {"Tcp: A\nUdp: 1\n", "line 2: the header of 'Tcp:' is followed by 'Udp: 1', not its values"},
      {"Tcp: A\nTcp: 1\nhello world\nx: 1\n", "line 3: 'hello world' does not open with \"<Prefix>:\""},
      {": A\n: 1\n", "does not open with"},
  };
  for (const Case& c : cases) {
    auto r = Parse(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_THAT(r.error().message, HasSubstr(c.says)) << c.text;
    EXPECT_EQ(r.error().message.rfind("/proc/net/snmp: ", 0), 0u) << r.error().message;
  }
}

TEST(KernelCounters, BlankLinesAndCarriageReturnsAreNoLines) {
  auto r = Parse("\nTcp: A B\r\nTcp: 1 -2\r\n\nUdp: C\nUdp: 3");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->at("Tcp.A"), 1);
  EXPECT_EQ(r->at("Tcp.B"), -2);
  EXPECT_EQ(r->at("Udp.C"), 3);
}

}  // namespace
}  // namespace fvbench::kernel_counters_test
