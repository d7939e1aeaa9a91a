// ParseHostFacts (judge/host_facts.h) on probe outputs: this machine's
// (a KVM guest in a container, copied from a real run of the probe), a bare
// metal host with cpufreq, and absent and unreadable values.
#include "support/judge/host_facts.h"

#include <gtest/gtest.h>

namespace fvbench::host_facts_test {
namespace {

// The probe's output on the machine fvbench is developed on (cpufreq and
// boost not exposed, THP madvise, systemd-detect-virt says "docker").
const char kThisMachine[] = R"PROBE(@kernel_release
|6.18.44-fc-v1045

@kernel_cmdline
|mitigations=auto,no_guest_host,no_guest_guest console=ttyS0 quiet reboot=k panic=1 nomodule random.trust_cpu=1 swiotlb=noforce psi=1 nvproxy.enable=1 page_reporting.page_reporting_order=11 deferred_init=lazy clocksource=kvm-clock pti=on no_timer_check tsc=reliable pvm_no_zero_page=1 tsc=unstable rcupdate.rcu_cpu_stall_cputime=1 sched_vcpu_pack=15 rdinit=/process_api -- --firecracker-init --addr 0.0.0.0:2024 --max-ws-buffer-size 32768 --block-local-connections --log-vsock-port 5002 --control-vsock-port 5001 --listen-vsock-port 2024 --tcp-readiness-only --auth-required

@cpu_vulnerabilities
|gather_data_sampling:Not affected
|ghostwrite:Not affected
|indirect_target_selection:Not affected
|itlb_multihit:Not affected
|l1tf:Not affected
|mds:Not affected
|meltdown:Mitigation: PTI
|mmio_stale_data:Not affected
|old_microcode:Not affected
|reg_file_data_sampling:Not affected
|retbleed:Not affected
|spec_rstack_overflow:Vulnerable: No microcode
|spec_store_bypass:Vulnerable
|spectre_v1:Mitigation: usercopy/swapgs barriers and __user pointer sanitization
|spectre_v2:Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected
|srbds:Not affected
|tsa:Not affected
|tsx_async_abort:Not affected
|vmscape:Not affected
@clocksource
|kvm-clock

@detect_virt
|docker

@cpuinfo
|model name	: AMD EPYC

|flags		: fpu vme de pse tsc msr pae mce cx8 apic sep pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx mmxext lm constant_tsc rep_good nopl xtopology tsc_reliable nonstop_tsc cpuid extd_apicid tsc_known_freq pni pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand hypervisor lahf_lm cr8_legacy misalignsse 3dnowprefetch topoext pti        vmmcall bmi1 avx2 bmi2 erms avx512f avx512dq adx avx512ifma clflushopt clwb avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 avx_vnni avx512_bf16 clzero xsaveerptr arat avx512vbmi avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg avx512_vpopcntdq movdiri movdir64b fsrm avx512_vp2intersect

@smt
|0

@numa_nodes
|0

@cpu_governor
@boost
@no_turbo
@thp_enabled
|always [madvise] never

@thp_defrag
|always defer defer+madvise [madvise] never

@somaxconn
|4096

@tcp_max_syn_backlog
|2048

@ip_local_port_range
|32768	60999

@tcp_tw_reuse
|2

@tcp_fin_timeout
|60

@rmem_max
|4194304

@wmem_max
|4194304

@tcp_rmem
|4096	131072	33554432

@tcp_wmem
|4096	16384	4194304

@file_max
|2466112

@nofile
|20000

)PROBE";

TEST(HostFacts, ThisMachine) {
  const HostEnvironment e = ParseHostFacts(kThisMachine);
  EXPECT_EQ(e.Get("kernel_release"), "6.18.44-fc-v1045");
  EXPECT_EQ(e.Get("kernel_cmdline").rfind("mitigations=auto,no_guest_host,no_guest_guest console=ttyS0", 0), 0u);
  EXPECT_EQ(e.Get("cpu_vulnerabilities"),
            "meltdown: Mitigation: PTI; spec_rstack_overflow: Vulnerable: No microcode; spec_store_bypass: "
            "Vulnerable; spectre_v1: Mitigation: usercopy/swapgs barriers and __user pointer sanitization; "
            "spectre_v2: Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not "
            "affected");
  EXPECT_EQ(e.Get("clocksource"), "kvm-clock");
  EXPECT_EQ(e.Get("virtualization"), "docker");
  EXPECT_EQ(e.Get("cpu_model"), "AMD EPYC");
  EXPECT_EQ(e.Get("smt"), "0");
  EXPECT_EQ(e.Get("numa_nodes"), "0");
  EXPECT_EQ(e.Get("cpu_governor"), "");  // not exposed
  EXPECT_EQ(e.Get("cpu_boost"), "");
  EXPECT_EQ(e.Get("thp_enabled"), "madvise");
  EXPECT_EQ(e.Get("thp_defrag"), "madvise");
  EXPECT_EQ(e.Get("somaxconn"), "4096");
  EXPECT_EQ(e.Get("tcp_max_syn_backlog"), "2048");
  EXPECT_EQ(e.Get("ip_local_port_range"), "32768 60999");
  EXPECT_EQ(e.Get("tcp_tw_reuse"), "2");
  EXPECT_EQ(e.Get("tcp_rmem"), "4096 131072 33554432");
  EXPECT_EQ(e.Get("file_max"), "2466112");
  EXPECT_EQ(e.Get("nofile"), "20000");
  EXPECT_EQ(e.Get("nginx_build"), "");  // not the SUT's probe
  EXPECT_EQ(e.Get("luajit_version"), "");
  // Every key, in order.
  ASSERT_EQ(e.values.size(), std::size(kEnvironmentKeys));
  for (size_t i = 0; i < e.values.size(); ++i) EXPECT_EQ(e.values[i].key, kEnvironmentKeys[i].key);
}

// A bare-metal SUT host: cpufreq exposed, intel_pstate's no_turbo, no
// systemd-detect-virt (the hypervisor flag decides), nginx -V and LuaJIT.
TEST(HostFacts, BareMetalSut) {
  const HostEnvironment e = ParseHostFacts(
      "@cpu_vulnerabilities\n|/sys/devices/system/cpu/vulnerabilities/meltdown:Not affected\n"
      "|mds:Not affected\n"
      "@detect_virt\n"
      "@cpuinfo\n|model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\n|flags\t\t: fpu vme de pse tsc hypervisorx\n"
      "@cpu_governor\n|performance\n"
      "@boost\n"
      "@no_turbo\n|1\n"
      "@thp_enabled\n|[always] madvise never\n"
      "@nginx_v\n|nginx version: openresty/1.25.3.2\n|built with OpenSSL 3.0.13\n\n|configure arguments: "
      "--prefix=/usr/local/openresty/nginx --with-cc-opt=-O2\n"
      "@luajit\n|version=LuaJIT 2.1.1723681758\n|jit=on\n|gc64=yes\n");
  EXPECT_EQ(e.Get("cpu_vulnerabilities"), "all Not affected");
  EXPECT_EQ(e.Get("virtualization"), "none (no hypervisor CPU flag)");  // "hypervisorx" is another word
  EXPECT_EQ(e.Get("cpu_model"), "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
  EXPECT_EQ(e.Get("cpu_governor"), "performance");
  EXPECT_EQ(e.Get("cpu_boost"), "0");  // no_turbo 1: boost off
  EXPECT_EQ(e.Get("thp_enabled"), "always");
  EXPECT_EQ(e.Get("nginx_build"),
            "nginx version: openresty/1.25.3.2; built with OpenSSL 3.0.13; configure arguments: "
            "--prefix=/usr/local/openresty/nginx --with-cc-opt=-O2");
  EXPECT_EQ(e.Get("luajit_version"), "LuaJIT 2.1.1723681758");
  EXPECT_EQ(e.Get("luajit_jit"), "on");
  EXPECT_EQ(e.Get("luajit_gc64"), "yes");
  EXPECT_EQ(e.Get("nginx_worker_processes"), "");  // not this probe's
}

TEST(HostFacts, HypervisorFlagWithoutDetectVirt) {
  const HostEnvironment e = ParseHostFacts("@cpuinfo\n|flags : fpu hypervisor lahf_lm\n@boost\n|1\n@no_turbo\n|1\n");
  EXPECT_EQ(e.Get("virtualization"), "hypervisor (CPU flag)");
  EXPECT_EQ(e.Get("cpu_boost"), "1");  // cpufreq/boost wins
  EXPECT_EQ(e.Get("cpu_model"), "");
}

// Absent (a section with no lines, or no section at all) and unreadable
// (the probe printed nothing for it) are both "": not exposed.
TEST(HostFacts, AbsentAndUnreadableAreNotExposed) {
  const HostEnvironment e = ParseHostFacts("@kernel_release\n@somaxconn\n\n@cpu_vulnerabilities\n@luajit\n");
  ASSERT_EQ(e.values.size(), std::size(kEnvironmentKeys));
  for (const EnvironmentValue& v : e.values) EXPECT_EQ(v.value, "") << v.key;
  for (const EnvironmentValue& v : ParseHostFacts("").values) EXPECT_EQ(v.value, "") << v.key;
}

// A host's text is data: control characters and other bytes dropped, a
// line outside a section or of neither form ignored, a value bounded.
TEST(HostFacts, HostTextIsBoundedAndPrintable) {
  const std::string long_line(5000, 'x');
  const HostEnvironment e = ParseHostFacts("|orphan\n@kernel_release\n|6.1\x1b[31m-red\x07\r\n"
                                           "@kernel_cmdline\n|" + long_line + "\n@somaxconn\nnot a line\n|  128 \n"
                                           "@nginx_v\n|caf\xc3\xa9\n");
  EXPECT_EQ(e.Get("kernel_release"), "6.1[31m-red");
  EXPECT_EQ(e.Get("kernel_cmdline").size(), kMaxHostFactBytes);
  EXPECT_EQ(e.Get("somaxconn"), "128");
  EXPECT_EQ(e.Get("nginx_build"), "caf");
}

TEST(HostFacts, SelectedWord) {
  EXPECT_EQ(detail::SelectedWord("always defer defer+madvise [madvise] never"), "madvise");
  EXPECT_EQ(detail::SelectedWord("[never]"), "never");
  EXPECT_EQ(detail::SelectedWord(" madvise "), "madvise");
  EXPECT_EQ(detail::SelectedWord("[unclosed"), "[unclosed");
}

}  // namespace
}  // namespace fvbench::host_facts_test
