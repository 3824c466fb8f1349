// bench/llm_throughput: many LLM calls through the real client against the fake HTTP server on
// loopback, as the search makes them (many in flight). Reports throughput and what the client
// itself costs per call: its CPU time (the server runs in a child process, so the process's CPU
// time is the client's) and, in a sequential phase, the latency it adds beyond the server's
// scripted delay (loopback HTTP and the server's own work included, so an upper bound).
//
//   build/bench/llm_throughput --requests 2000 --concurrency 64 --server-delay-ms 20

#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/json_text.h"
#include "fake_llm_server.h"
#include "llm/client.h"
#include "sys/fs.h"
#include "sys/process.h"

namespace adaexplore {
namespace {

constexpr const char* kKeyVariable = "ADAEXPLORE_BENCH_KEY";

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The server process: serves until killed, after writing its port to `port_file`.
int Serve(const std::string& port_file, double delay_s, size_t reply_bytes) {
  const std::string text(reply_bytes, 'k');
  auto server = FakeLlmServer::Start([&](const FakeHttpRequest&, int) {
    return FakeReply{.body = OpenAiChatBody(text, 1500, 400, 1000), .delay_s = delay_s};
  });
  if (!server.ok()) {
    (void)std::fprintf(stderr, "%s\n", server.status().ToString().c_str());
    return 1;
  }
  if (!WriteFileAtomic(port_file, (*server)->base_url()).ok()) {
    return 1;
  }
  while (true) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

struct Phase {
  int requests = 0;
  int concurrency = 0;
  double wall_s = 0;
  double cpu_s = 0;
  std::vector<double> latencies;
  int failures = 0;
};

Phase RunPhase(const std::string& base_url, int requests, int concurrency, int offset) {
  LlmOptions options;
  options.providers["openai"] = ProviderSettings{.name = "openai",
                                                 .base_url = base_url,
                                                 .api_key_env = kKeyVariable,
                                                 .concurrency = concurrency};
  options.cache_enabled = false;
  options.prices.Set(
      "openai:bench",
      {.input_per_mtok = 0.25, .cached_input_per_mtok = 0.025, .output_per_mtok = 2.0});
  auto client = LlmClient::Create(options);
  if (!client.ok()) {
    (void)std::fprintf(stderr, "%s\n", client.status().ToString().c_str());
    std::exit(1);
  }
  Phase phase{.requests = requests, .concurrency = concurrency};
  const double cpu_start = CpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  std::vector<uint64_t> ids;
  auto record = [&](const LlmCompletion& done) {
    phase.failures += done.reply ? 0 : 1;
    phase.latencies.push_back(done.latency_s);
  };
  for (int i = 0; i < requests; ++i) {
    ChatRequest request{.model = {"openai", "bench"},
                        .messages = {{"system", std::string(2000, 's')},
                                     {"user", "prompt " + std::to_string(offset + i)}},
                        .role = LlmRole::kTuner,
                        .task = "bench"};
    const uint64_t id = (*client)->Submit(std::move(request));
    if (concurrency == 1) {
      record((*client)->Wait(id));  // One at a time: the latency is the call's own, no queueing.
    } else {
      ids.push_back(id);
    }
  }
  for (uint64_t id : ids) {
    record((*client)->Wait(id));
  }
  phase.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  phase.cpu_s = CpuSeconds() - cpu_start;
  const LedgerTotals total = (*client)->ledger().Total();
  if (total.calls != requests || total.input_tokens != int64_t{1500} * requests) {
    (void)std::fprintf(stderr, "ledger mismatch: %lld calls\n",
                       static_cast<long long>(total.calls));
    std::exit(1);
  }
  return phase;
}

double Percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(q * static_cast<double>(values.size() - 1))];
}

double Mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) {
    sum += v;
  }
  return sum / static_cast<double>(values.size());
}

}  // namespace
}  // namespace adaexplore

int main(int argc, char** argv) {
  using namespace adaexplore;  // NOLINT: a benchmark's main.
  CLI::App app{"LLM client throughput against the fake server on loopback"};
  int requests = 2000;
  int concurrency = 64;
  double delay_ms = 20;
  size_t reply_bytes = 4000;
  int sequential = 200;
  std::string serve;
  std::string json_out;
  app.add_option("--requests", requests, "Requests in the concurrent phase");
  app.add_option("--concurrency", concurrency, "Requests in flight");
  app.add_option("--server-delay-ms", delay_ms, "The server's scripted think time per reply");
  app.add_option("--reply-bytes", reply_bytes, "Reply text size");
  app.add_option("--sequential", sequential, "Requests in the one-at-a-time latency phase");
  app.add_option("--json-out", json_out, "Write the figures here");
  app.add_option("--serve", serve, "(internal) run the server, writing its URL to this file");
  CLI11_PARSE(app, argc, argv);
  if (!serve.empty()) {
    return Serve(serve, delay_ms / 1000, reply_bytes);
  }
  ::setenv(kKeyVariable, "sk-bench", 1);
  Result<TempDir> dir = TempDir::Create("llm-bench");
  const std::string port_file = dir->path() + "/url";
  Result<Process> server = Process::Spawn(
      {.argv = {"/proc/self/exe", "--serve", port_file, "--server-delay-ms",
                std::to_string(delay_ms), "--reply-bytes", std::to_string(reply_bytes)}});
  if (!server.ok()) {
    (void)std::fprintf(stderr, "%s\n", server.status().ToString().c_str());
    return 1;
  }
  Result<std::string> url = NotFound("");
  for (int i = 0; i < 500 && !url.ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    url = ReadFile(port_file);
  }
  if (!url.ok()) {
    (void)std::fprintf(stderr, "the server did not start\n");
    return 1;
  }
  RunPhase(*url, 64, concurrency, 1'000'000);  // Warm-up: connections, allocator.
  Phase wide = RunPhase(*url, requests, concurrency, 0);
  Phase one = RunPhase(*url, sequential, 1, 2'000'000);
  const double delay_s = delay_ms / 1000;
  const double ideal_s = delay_s * std::ceil(static_cast<double>(requests) / concurrency);
  nlohmann::json figures = {
      {"requests", requests},
      {"concurrency", concurrency},
      {"server_delay_ms", delay_ms},
      {"reply_bytes", reply_bytes},
      {"failures", wide.failures + one.failures},
      {"wall_s", wide.wall_s},
      {"ideal_wall_s", ideal_s},
      {"requests_per_s", requests / wide.wall_s},
      {"client_cpu_ms_per_call", 1000 * wide.cpu_s / requests},
      {"latency_incl_slot_wait_p50_ms", 1000 * Percentile(wide.latencies, 0.5)},
      {"latency_incl_slot_wait_p99_ms", 1000 * Percentile(wide.latencies, 0.99)},
      {"sequential_requests", sequential},
      {"sequential_added_latency_ms_mean", 1000 * (Mean(one.latencies) - delay_s)},
      {"sequential_added_latency_ms_p99", 1000 * (Percentile(one.latencies, 0.99) - delay_s)},
      {"sequential_client_cpu_ms_per_call", 1000 * one.cpu_s / sequential},
      {"hardware_threads", std::thread::hardware_concurrency()}};
  if (!json_out.empty()) {
    std::ofstream(json_out) << JsonText(figures, 2) << "\n";
  }
  std::printf("%-40s %s\n", "figure", "value");
  for (const auto& [name, value] : figures.items()) {
    std::printf("%-40s %s\n", name.c_str(), JsonText(value).c_str());
  }
  return wide.failures + one.failures == 0 ? 0 : 1;
}
