// perf_capture.h: the perf command lines (argv only, no value where an
// option is read), the check of the host's facts (perf runs, who may
// sample), the packages per OS, and PerfProfiler's sequence on a fake host.
#include "support/sut/perf_capture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/host/local_host.h"
#include "tests/unit/fake_host.h"

namespace fvbench::perf_capture_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_fakes::FakeHost;
namespace fs = std::filesystem;

TEST(PerfRecordArgv, EachValueIsItsOwnWordAfterAFixedOption) {
  auto a = detail::PerfRecordArgv(99, {1234, 1235}, "/b/run/fv/fv.perf.data", 10);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_THAT(*a, ElementsAre("perf", "record", "-e", "cpu-clock", "-F", "99", "--call-graph", "dwarf", "-N", "-p",
                              "1234,1235", "-o", "/b/run/fv/fv.perf.data", "--", "sleep", "10"));
  auto fp = detail::PerfRecordArgv(99, {1234}, "/d", 10, CallGraph::kFramePointers);
  ASSERT_TRUE(fp.ok());
  EXPECT_EQ(fp->at(7), "fp");
}

TEST(PerfRecordArgv, RefusesWhatCouldBeReadAsAnOptionOrIsNoWorker) {
  EXPECT_FALSE(detail::PerfRecordArgv(99, {}, "/d", 10).ok());
  EXPECT_THAT(detail::PerfRecordArgv(99, {1}, "/d", 10).error().message, HasSubstr("pid 1 is not a worker"));
  EXPECT_FALSE(detail::PerfRecordArgv(99, {-5}, "/d", 10).ok());
  EXPECT_THAT(detail::PerfRecordArgv(99, {10}, "-o/etc/x", 10).error().message, HasSubstr("not absolute"));
  EXPECT_FALSE(detail::PerfRecordArgv(99, {10}, "rel/x", 10).ok());
  EXPECT_FALSE(detail::PerfRecordArgv(99, {10}, "", 10).ok());
  EXPECT_FALSE(detail::PerfRecordArgv(0, {10}, "/d", 10).ok());
  EXPECT_FALSE(detail::PerfRecordArgv(1001, {10}, "/d", 10).ok());
  EXPECT_FALSE(detail::PerfRecordArgv(99, {10}, "/d", 0.5).ok());
  EXPECT_FALSE(detail::PerfRecordArgv(99, {10}, "/d", 2.5).ok());
}

TEST(PerfScriptArgv, PathsArePositionalParametersOfAFixedScript) {
  auto a = detail::PerfScriptArgv("/b/fv.perf.data", "/b/fv.perf.txt");
  ASSERT_TRUE(a.ok());
  EXPECT_THAT(*a, ElementsAre("sh", "-c", "exec perf script -i \"$1\" > \"$2\"", "sh", "/b/fv.perf.data",
                              "/b/fv.perf.txt"));
  EXPECT_FALSE(detail::PerfScriptArgv("-i", "/b/x").ok());
  EXPECT_FALSE(detail::PerfScriptArgv("/b/x", "x.txt").ok());
}

// The script really runs: a stand-in `perf` on PATH prints its argv, one
// word a line, to stdout; the file must hold exactly those words, whatever
// the paths hold (spaces, $(...), quotes, a leading dash inside a name).
TEST(PerfScriptArgv, RedirectsStdoutToTheFileWithoutReadingThePathsAsShell) {
  const fs::path dir = fs::temp_directory_path() / ("fvb-perfscript-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  {
    std::ofstream perf(dir / "bin" / "perf");
    perf << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n";
  }
  ::chmod((dir / "bin" / "perf").c_str(), 0755);
  const std::string data = (dir / "in $(touch pwned) 'q' -x.data").string();
  const std::string text = (dir / "out; rm -rf x.txt").string();
  auto argv = detail::PerfScriptArgv(data, text);
  ASSERT_TRUE(argv.ok());
  LocalHost host;
  Command c;
  c.argv = *argv;
  c.env["PATH"] = (dir / "bin").string() + ":/usr/bin:/bin";
  auto r = host.Run(c);
  ASSERT_TRUE(r.ok() && r->success()) << (r.ok() ? r->err : r.error().message);
  std::ifstream in(text);
  std::stringstream got;
  got << in.rdbuf();
  EXPECT_EQ(got.str(), "script\n-i\n" + data + "\n");
  EXPECT_FALSE(fs::exists(dir / "pwned"));
  EXPECT_FALSE(fs::exists(fs::current_path() / "pwned"));
  fs::remove_all(dir);
}

HostOs Os(const std::string& distro) {
  HostOs os;
  os.distro = os.id = distro;
  os.family = distro == "debian" || distro == "ubuntu" ? PackageFamily::kApt : PackageFamily::kDnf;
  return os;
}

TEST(PerfPackages, PerOsFamily) {
  EXPECT_THAT(*detail::PerfPackages(Os("debian"), "6.1.0-18-amd64"), ElementsAre("linux-perf"));
  EXPECT_THAT(*detail::PerfPackages(Os("ubuntu"), "6.8.0-1012-aws"),
              ElementsAre("linux-tools-common", "linux-tools-6.8.0-1012-aws"));
  EXPECT_THAT(*detail::PerfPackages(Os("amzn"), ""), ElementsAre("perf"));
  EXPECT_THAT(*detail::PerfPackages(Os("rhel"), ""), ElementsAre("perf"));
  // An Ubuntu release that is no package-name part (an option, a space) is refused.
  EXPECT_FALSE(detail::PerfPackages(Os("ubuntu"), "").ok());
  EXPECT_FALSE(detail::PerfPackages(Os("ubuntu"), "-oDebug::x=1").ok());
  EXPECT_FALSE(detail::PerfPackages(Os("ubuntu"), "6.8 x").ok());
}

const char kDebianRelease[] = "os_release.ID=debian\nos_release.VERSION_ID=\"12\"\nos_release.VERSION_CODENAME=bookworm\n";

TEST(PerfFacts, RootMayAlwaysSample) {
  auto f = detail::ParsePerfFacts(std::string("perf_rc=0\nperf_out=perf version 6.1\nuid=0\nparanoid=4\n") +
                                  kDebianRelease);
  EXPECT_EQ(f.uid, 0);
  EXPECT_EQ(f.paranoid, 4);
  EXPECT_EQ(f.os.id, "debian");
  EXPECT_TRUE(detail::JudgePerfFacts(f, "h").ok());
}

TEST(PerfFacts, MissingPerfNamesThePackageOfTheOs) {
  auto f = detail::ParsePerfFacts(std::string("perf_rc=127\nperf_out=sh: perf: not found\nuid=0\nparanoid=2\n") +
                                  kDebianRelease);
  auto j = detail::JudgePerfFacts(f, "root@sut");
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(j.error().message, HasSubstr("host root@sut"));
  EXPECT_THAT(j.error().message, HasSubstr("exited 127"));
  EXPECT_THAT(j.error().message, HasSubstr("install linux-perf (debian 12"));
  // Ubuntu's wrapper without the kernel's tools: exit 2, and the two packages named.
  auto u = detail::ParsePerfFacts(
      "perf_rc=2\nperf_out=WARNING: perf not found for kernel 6.8.0-1012\nuid=0\nparanoid=4\nuname_r=6.8.0-1012-aws\n"
      "os_release.ID=ubuntu\nos_release.VERSION_ID=\"24.04\"\nos_release.VERSION_CODENAME=noble\n");
  EXPECT_THAT(detail::JudgePerfFacts(u, "h").error().message,
              HasSubstr("install linux-tools-common linux-tools-6.8.0-1012-aws (ubuntu 24.04"));
}

TEST(PerfFacts, NonRootNeedsParanoidAtMostOne) {
  for (const char* p : {"-1", "0", "1"}) {
    auto f = detail::ParsePerfFacts(std::string("perf_rc=0\nuid=1000\nparanoid=") + p + "\n");
    EXPECT_TRUE(detail::JudgePerfFacts(f, "h").ok()) << p;
  }
  for (const char* p : {"2", "3", "4"}) {
    auto f = detail::ParsePerfFacts(std::string("perf_rc=0\nuid=1000\nparanoid=") + p + "\n");
    auto j = detail::JudgePerfFacts(f, "u@sut");
    ASSERT_FALSE(j.ok()) << p;
    EXPECT_THAT(j.error().message, HasSubstr(std::string("kernel.perf_event_paranoid is ") + p));
    EXPECT_THAT(j.error().message, HasSubstr("sysctl -w kernel.perf_event_paranoid=1"));
    EXPECT_THAT(j.error().message, HasSubstr("as root"));
  }
  auto unknown = detail::ParsePerfFacts("perf_rc=0\nuid=1000\nparanoid=\n");
  EXPECT_FALSE(detail::JudgePerfFacts(unknown, "h").ok());
  auto no_uid = detail::ParsePerfFacts("perf_rc=0\nparanoid=2\n");
  EXPECT_FALSE(detail::JudgePerfFacts(no_uid, "h").ok());
}

// Two /proc/<pid>/stat lines per worker of master 500, one of another master.
const char kProcScan[] =
    "500 (nginx) S 1 500 500 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0\n"
    "501 (nginx) S 500 500 500 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0\n"
    "502 (nginx) S 500 500 500 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0\n"
    "601 (nginx) S 600 600 600 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0\n";

ExecResult Out(const std::string& out, int rc = 0) {
  ExecResult r;
  r.exit_code = rc;
  r.out = out;
  return r;
}

TEST(PerfProfiler, RecordsTheWorkersThenScriptsFetchesAndRemoves) {
  FakeHost sut("root@sut");
  sut.On("perf --version", Out("perf_rc=0\nuid=0\nparanoid=2\n"));
  sut.On("/proc/[0-9]*/stat", Out(kProcScan));
  sut.On("perf script", [&](const Command&) -> Result<ExecResult> {
    sut.SetFile("/b/run/fv/fv.perf.txt", "nginx 501 [000] 1.0: cpu-clock:\n\tffff ngx_http_handler (/usr/sbin/nginx)\n");
    return Out("");
  });
  const fs::path local = fs::temp_directory_path() / ("fvb-perfprof-" + std::to_string(::getpid()));
  PerfProfiler p(sut, {{"fv", 500, "/b/run/fv"}}, PerfOptions{99, false});
  ASSERT_TRUE(p.Prepare().ok());
  ASSERT_TRUE(p.Start(5).ok());
  ProfileFetch got = p.Finish(local.string());
  EXPECT_TRUE(got.errors.empty()) << got.errors.front();
  ASSERT_EQ(got.files.size(), 1u);
  EXPECT_EQ(got.files[0].service, "fv");
  EXPECT_EQ(got.files[0].level, "cpu");
  EXPECT_EQ(got.files[0].path, (local / "fv.perf.txt").string());
  auto rec = sut.Find("perf record");
  ASSERT_TRUE(rec);
  EXPECT_THAT(rec->argv, ElementsAre("perf", "record", "-e", "cpu-clock", "-F", "99", "--call-graph", "dwarf", "-N",
                                     "-p", "501,502", "-o", "/b/run/fv/fv.perf.data", "--", "sleep", "5"));
  EXPECT_LT(sut.EventIndex("perf record"), sut.EventIndex("perf script"));
  EXPECT_LT(sut.EventIndex("perf script"), sut.EventIndex("fetch /b/run/fv/fv.perf.txt"));
  EXPECT_LT(sut.EventIndex("fetch /b/run/fv/fv.perf.txt"), sut.EventIndex("rm -f --"));
  EXPECT_TRUE(sut.Ran("rm -f -- /b/run/fv/fv.perf.data /b/run/fv/fv.perf.txt"));
  EXPECT_EQ(sut.Caps().back(), "perf script text");
  fs::remove_all(local);
}

TEST(PerfProfiler, ACheckThatFailsStopsBeforeAnyRecording) {
  FakeHost sut("u@sut");
  sut.On("perf --version", Out("perf_rc=0\nuid=1000\nparanoid=3\n"));
  PerfProfiler p(sut, {{"fv", 500, "/b/run/fv"}}, PerfOptions{});
  auto ok = p.Prepare();
  ASSERT_FALSE(ok.ok());
  EXPECT_THAT(ok.error().message, HasSubstr("kernel.perf_event_paranoid=1"));
  EXPECT_FALSE(sut.Ran("perf record"));
}

TEST(PerfProfiler, AFailedRecordingIsAnErrorAndItsFilesAreRemoved) {
  FakeHost sut("root@sut");
  sut.On("perf --version", Out("perf_rc=0\nuid=0\nparanoid=2\n"));
  sut.On("/proc/[0-9]*/stat", Out(kProcScan));
  ExecResult failed = Out("", 255);
  failed.err = "Error: No permission to enable cpu-clock event.";
  sut.On("perf record", failed);
  PerfProfiler p(sut, {{"fv", 500, "/b/run/fv"}, {"backend", 999, "/b/run/backend"}}, PerfOptions{});
  ASSERT_TRUE(p.Prepare().ok());  // backend has no worker: left out, fv still profiled
  ASSERT_TRUE(p.Start(5).ok());
  ProfileFetch got = p.Finish("/nonexistent-never-written");
  EXPECT_TRUE(got.files.empty());
  ASSERT_EQ(got.errors.size(), 1u);
  EXPECT_THAT(got.errors[0], HasSubstr("No permission to enable cpu-clock event"));
  EXPECT_FALSE(sut.Ran("perf script"));
  EXPECT_TRUE(sut.Ran("rm -f -- /b/run/fv/fv.perf.data"));
}

TEST(PerfProfiler, NoWorkerAtAllIsAnError) {
  FakeHost sut("root@sut");
  sut.On("perf --version", Out("perf_rc=0\nuid=0\nparanoid=2\n"));
  sut.On("/proc/[0-9]*/stat", Out(kProcScan));
  PerfProfiler p(sut, {{"fv", 777, "/b/run/fv"}}, PerfOptions{});
  auto ok = p.Prepare();
  ASSERT_FALSE(ok.ok());
  EXPECT_THAT(ok.error().message, HasSubstr("fv (master pid 777)"));
}

TEST(PerfScriptCap, GrowsWithRateLengthAndWorkers) {
  EXPECT_EQ(PerfScriptCap(99, 10, 2).max_bytes, static_cast<uint64_t>(99 * 15 * 2) * kPerfSampleBytes);
  EXPECT_EQ(PerfScriptCap(1, 1, 1).max_bytes, 1 * kMiB);
}

}  // namespace
}  // namespace fvbench::perf_capture_test
