// The kernel's network counters of one host, from /proc/net/netstat and
// /proc/net/snmp, and how they moved over a phase. Pure.
//
// Both files are pairs of lines, a header and its values, per prefix
// (proc(5); net/ipv4/proc.c):
//   TcpExt: SyncookiesSent ... ListenOverflows ListenDrops ...
//   TcpExt: 0 ... 17 17 ...
// netstat holds TcpExt, IpExt, MPTcpExt; snmp Ip, Icmp, IcmpMsg, Tcp, Udp,
// UdpLite. Each value is named "<prefix>.<name>": "TcpExt.ListenOverflows",
// "Tcp.RetransSegs". Values are integers; Tcp.MaxConn is -1 on Linux.
//
// Most are counters since boot (per network namespace); a few are gauges or
// settings (Tcp.CurrEstab, Tcp.MaxConn, Tcp.Rto*, Ip.Forwarding,
// Ip.DefaultTTL, Conntrack.entries: IsKernelGauge) and are left out of a
// delta. The interfaces' drops (/proc/net/dev) and connection tracking's
// statistics (/proc/net/stat/nf_conntrack) join them under "Dev." and
// "Conntrack." (ParseNetDev, ParseConntrackStat).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "support/core/phase_observation.h"
#include "support/core/result.h"

namespace fvbench {

using KernelCounters = std::map<std::string, int64_t>;

// The counters of one file's text. Err, naming `source` and the line: no
// counter lines at all, a line without a "<Prefix>:" opening, a header
// without its value line (or a value line without its header), a header and
// values of different counts, a value that is not an integer (or does not
// fit 64 bits).
Result<KernelCounters> ParseKernelCounters(std::string_view text, std::string_view source);

// The interface counters of /proc/net/dev (proc(5)), summed over every
// interface of the host's network namespace: "Dev.RxErrs", "Dev.RxDrop",
// "Dev.TxErrs", "Dev.TxDrop" (packets the driver or the stack dropped).
// Err naming `source` and the line: an interface line without its 16
// fields, a field that is not a count, no interface at all.
Result<KernelCounters> ParseNetDev(std::string_view text, std::string_view source);

// Connection tracking's statistics, /proc/net/stat/nf_conntrack (present
// where nf_conntrack is loaded): a header of names, then one line per CPU of
// hexadecimal values, summed into "Conntrack.<name>" ("Conntrack.drop":
// packets dropped because the table was full; "Conntrack.early_drop",
// "Conntrack.insert_failed"). "Conntrack.entries" is the table's size, a
// gauge. Err naming `source` and the line.
Result<KernelCounters> ParseConntrackStat(std::string_view text, std::string_view source);

// True for the values that are not counters (see the header).
bool IsKernelGauge(std::string_view name);

// after - before for every counter in both (gauges left out); a counter lower
// at the end is named in went_back, one only in `before` in vanished: never a
// negative delta.
CounterDelta KernelCounterDelta(const KernelCounters& before, const KernelCounters& after);

// The counters a phase is judged on (validity.h): listen-queue drops on the
// SUT host, SYN retransmissions on a load-generator host.
inline constexpr std::string_view kListenOverflows = "TcpExt.ListenOverflows";
inline constexpr std::string_view kListenDrops = "TcpExt.ListenDrops";
inline constexpr std::string_view kSynRetrans = "TcpExt.TCPSynRetrans";

// Counters that distort a measurement without failing it, reported when they
// moved: retransmitted segments and retransmission timeouts (a lost packet
// costs a client at least the RTO, 200 ms), aborts and pressure from TCP's
// memory limit (tcp_mem), receive-queue pruning, SYN cookies and full
// request queues (a listen queue at its limit), TIME_WAIT buckets beyond
// tcp_max_tw_buckets, packets the interfaces dropped, and packets connection
// tracking dropped or failed to insert (a full nf_conntrack table: the
// connections it drops look like the SUT's timeouts).
inline constexpr std::array<std::string_view, 15> kDistortingCounters = {
    "Tcp.RetransSegs",           "TcpExt.TCPTimeouts",     "TcpExt.TCPAbortOnMemory",
    "TcpExt.TCPMemoryPressures", "TcpExt.PruneCalled",     "TcpExt.TCPBacklogDrop",
    "TcpExt.SyncookiesSent",     "TcpExt.TCPReqQFullDrop", "TcpExt.TCPReqQFullDoCookies",
    "TcpExt.TCPTimeWaitOverflow", "Dev.RxDrop",            "Dev.TxDrop",
    "Conntrack.drop",            "Conntrack.early_drop",   "Conntrack.insert_failed"};

// A threshold profile's maximum for one of kDistortingCounters (thresholds.h
// "kernel_counters"): the counter's delta over a measured phase, on each host
// it was read on, must be `op` ("<=" or "<") `limit`.
struct KernelCounterLimit {
  std::string counter;  // e.g. "Tcp.RetransSegs"
  std::string op;       // "<=" or "<"
  uint64_t limit = 0;
};

}  // namespace fvbench
