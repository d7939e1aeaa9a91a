// Reducing k6's raw samples to the latency histogram on the loadgen host
// (goal: at least 5 M samples per second per core). One request is 9 CSV
// rows in k6's `--out csv=` shape (http_reqs, http_req_duration, _blocked,
// _connecting, _tls_handshaking, _sending, _waiting, _receiving, _failed);
// items_per_second counts rows (k6 samples), one thread = one core.
//   build/tests/k6_samples_bench
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <random>
#include <string>

#include "support/engine/k6_samples.h"

namespace {

using fvbench::K6SampleReducer;

constexpr int kRequests = 100000;
constexpr const char* kMetrics[] = {"http_reqs", "http_req_duration", "http_req_blocked", "http_req_connecting",
                                    "http_req_tls_handshaking", "http_req_sending", "http_req_waiting",
                                    "http_req_receiving", "http_req_failed"};

// Timestamps in whole seconds (k6's default `unix`) or, with `micro`, in µs
// (unix_micro, what a synchronised run asks for), 100 µs apart.
std::string MakeCsv(bool micro) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> ms(-0.2, 0.6);
  std::string s =
      "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,"
      "scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n";
  for (int i = 0; i < kRequests; ++i) {
    for (const char* m : kMetrics) {
      s += fmt::format("{},{},{:.6f},,,,true,,GET,http://10.77.0.2:8080/,HTTP/1.1,measured,,200,,,"
                       "http://10.77.0.2:8080/,,\n",
                       m, micro ? 1733030000000000 + int64_t{i} * 100 : 1733030000 + i / 10000, ms(rng));
    }
  }
  return s;
}

const std::string& CsvText() {
  static const std::string text = MakeCsv(false);
  return text;
}

const std::string& CsvMicroText() {
  static const std::string text = MakeCsv(true);
  return text;
}

const std::string& JsonText() {
  static const std::string text = [] {
    std::mt19937_64 rng(5);
    std::lognormal_distribution<double> ms(-0.2, 0.6);
    std::string s;
    for (int i = 0; i < kRequests; ++i) {
      for (const char* m : kMetrics) {
        s += fmt::format(R"({{"type":"Point","data":{{"time":"2024-12-01T05:13:20.123456789Z","value":{:.6f},)"
                         R"("tags":{{"expected_response":"true","group":"","method":"GET","name":"http://10.77.0.2:8080/",)"
                         R"("proto":"HTTP/1.1","scenario":"measured","status":"200","tls_version":"","url":"http://10.77.0.2:8080/"}}}},"metric":"{}"}})"
                         "\n",
                         ms(rng), m);
      }
    }
    return s;
  }();
  return text;
}

void Reduce(benchmark::State& state, const std::string& text, K6SampleReducer::Format format) {
  for (auto _ : state) {
    auto h = fvbench::ReduceK6Samples(text, format, "bench");
    if (!h.ok()) {
      state.SkipWithError(h.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(h->recorded());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kRequests * 9);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

// The same, also per interval of 1 s from a whole second (k6_samples.h K6IntervalGrid).
void ReducePerInterval(benchmark::State& state, const std::string& text, K6SampleReducer::Format format) {
  for (auto _ : state) {
    auto r = fvbench::ReduceK6SamplesPerInterval(text, format, "bench", {1733030000000000, 1000000});
    if (!r.ok() || r->intervals.empty()) {
      state.SkipWithError(r.ok() ? r->intervals_absent.c_str() : r.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(r->intervals.latency.size());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kRequests * 9);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

void BM_ReduceK6Csv(benchmark::State& state) { Reduce(state, CsvText(), K6SampleReducer::Format::kCsv); }
void BM_ReduceK6Json(benchmark::State& state) { Reduce(state, JsonText(), K6SampleReducer::Format::kJson); }
void BM_ReduceK6CsvPerInterval(benchmark::State& state) {
  ReducePerInterval(state, CsvMicroText(), K6SampleReducer::Format::kCsv);
}
void BM_ReduceK6JsonPerInterval(benchmark::State& state) {
  ReducePerInterval(state, JsonText(), K6SampleReducer::Format::kJson);
}

BENCHMARK(BM_ReduceK6Csv)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReduceK6Json)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReduceK6CsvPerInterval)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReduceK6JsonPerInterval)->Unit(benchmark::kMillisecond);

}  // namespace
