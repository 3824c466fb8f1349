#include "llm/client.h"

// Layout: the public LlmClient forwards to Impl, which owns the I/O thread. Everything below
// "I/O thread" runs on that thread only and needs no lock: the lanes (per-provider queues), the
// transfers on the wire, the calls waiting to retry, the cache and the random source. Other
// threads touch only `incoming_` and `completions_` (under mutex_) and the prepared providers
// and replay books (under setup_mutex_).

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>

#include "core/mutex.h"
#include "core/secrets.h"
#include "llm/pending_call.h"
#include "llm/recording.h"
#include "llm/response_cache.h"
#include "sys/fs.h"

namespace adaexplore {
namespace {

constexpr int kMaxPollMs = 1000;  // Upper bound on one wait, so a stop is never missed for long.

std::once_flag curl_global_once;

struct CurlMultiDeleter {
  void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
};

// Tries of a call to an endpoint that was never reached (and has not answered this run) before
// the provider stops: a server starting up gets about 3 s, a wrong port or host no more.
constexpr int kUnreachableAttempts = 3;

}  // namespace

class LlmClient::Impl {
 public:
  Impl(LlmClient& client, CURLM* multi, std::optional<ResponseCache> cache,
       std::unique_ptr<RecordingWriter> recorder)
      : client_(client),
        multi_(multi),
        cache_(std::move(cache)),
        recorder_(std::move(recorder)),
        random_(std::random_device{}()) {
    thread_ = std::thread([this] { Loop(); });
  }

  ~Impl() {
    {
      MutexLock lock(mutex_);
      stopping_ = true;
    }
    curl_multi_wakeup(multi_.get());
    thread_.join();
  }

  Status Prepare(const ModelSpec& model) {
    MutexLock lock(setup_mutex_);
    return PrepareLocked(model);
  }

  uint64_t Submit(ChatRequest request) {
    auto call = std::make_unique<PendingCall>();
    call->request = std::move(request);
    call->submitted = Clock::now();
    call->max_body = client_.options_.max_reply_bytes;
    uint64_t id = 0;
    {
      MutexLock lock(mutex_);
      id = call->id = ++next_id_;
      incoming_.push_back(std::move(call));
    }
    curl_multi_wakeup(multi_.get());
    return id;
  }

  std::vector<LlmCompletion> TakeCompletions() {
    client_.wakeup_.Drain();
    MutexLock lock(mutex_);
    return std::exchange(completions_, {});
  }

  std::vector<LlmRetry> TakeRetries() {
    MutexLock lock(mutex_);
    return std::exchange(retries_, {});
  }

  LlmCompletion Wait(uint64_t id) {
    MutexLock lock(mutex_);
    std::vector<LlmCompletion>::iterator found;
    completions_cv_.wait(lock, [&]() REQUIRES(mutex_) {  // Called with the lock held.
      found = std::find_if(completions_.begin(), completions_.end(),
                           [&](const LlmCompletion& c) { return c.id == id; });
      return found != completions_.end();
    });
    LlmCompletion completion = std::move(*found);
    completions_.erase(found);
    return completion;
  }

  int in_flight() const { return in_flight_.load(); }

 private:
  // ---- Setup (any thread, under setup_mutex_) ----

  Status PrepareLocked(const ModelSpec& model) REQUIRES(setup_mutex_) {
    if (model.replayed()) {
      if (!books_.contains(model.model)) {
        ASSIGN_OR_RETURN(books_[model.model], ReplayBook::Load(model.model));
      }
      return Status::Ok();
    }
    RETURN_IF_ERROR(client_.ledger_.CheckPriced(model));
    if (providers_.contains(model.provider)) {
      return Status::Ok();
    }
    auto configured = client_.options_.providers.find(model.provider);
    ProviderSettings settings = configured != client_.options_.providers.end()
                                    ? configured->second
                                    : ProviderSettings{.name = model.provider};
    settings.name = model.provider;
    ASSIGN_OR_RETURN(ProviderSettings resolved, ResolveProviderSettings(settings));
    ASSIGN_OR_RETURN(providers_[model.provider], MakeProvider(resolved));
    secrets_.push_back(resolved.api_key);
    return Status::Ok();
  }

  // ---- I/O thread ----

  void Loop() {
    while (true) {
      std::deque<std::unique_ptr<PendingCall>> arrived;
      {
        MutexLock lock(mutex_);
        if (stopping_) {
          break;
        }
        arrived.swap(incoming_);
      }
      for (std::unique_ptr<PendingCall>& call : arrived) {
        Route(std::move(call));
      }
      const TimePoint now = Clock::now();
      ReleaseDueRetries(now);
      StartReady(now);
      int running = 0;
      curl_multi_perform(multi_.get(), &running);
      if (CollectFinished() > 0) {
        continue;  // Slots came free: start what waits for them before sleeping.
      }
      curl_multi_poll(multi_.get(), nullptr, 0, PollTimeoutMs(Clock::now()), nullptr);
    }
    Shutdown();
  }

  void Route(std::unique_ptr<PendingCall> call) {
    const ModelSpec& model = call->request.model;
    if (model.replayed()) {
      Replay(std::move(call));
      return;
    }
    Status prepared;
    {
      MutexLock lock(setup_mutex_);
      prepared = PrepareLocked(model);
      if (prepared.ok()) {
        call->provider = providers_.at(model.provider).get();
      }
    }
    if (!prepared.ok()) {
      Fail(std::move(call), {.kind = LlmErrorKind::kAuth, .message = prepared.message()});
      return;
    }
    Result<HttpRequest> http = call->provider->Build(call->request);
    if (!http.ok()) {
      Fail(std::move(call),
           {.kind = LlmErrorKind::kBadRequest, .message = http.status().message()});
      return;
    }
    call->http = *std::move(http);
    if (cache_) {
      call->cache_key = CacheKey(call->request, call->provider->settings());
      Result<std::optional<ChatReply>> hit = cache_->Find(call->cache_key);
      if (hit.ok() && hit->has_value()) {
        Succeed(std::move(call), **std::move(hit), CallSource::kCache);
        return;
      }
      if (!hit.ok()) {
        client_.logger_->warn("LLM cache lookup failed, calling the provider: {}",
                              hit.status().ToString());
      }
    }
    ProviderLane& lane = Lane(model.provider, *call->provider);
    lane.pending.push_back(std::move(call));
  }

  ProviderLane& Lane(const std::string& name, const Provider& provider) {
    ProviderLane& lane = lanes_[name];
    lane.concurrency = provider.settings().concurrency;
    return lane;
  }

  void Replay(std::unique_ptr<PendingCall> call) {
    Result<ChatReply> reply = [&]() -> Result<ChatReply> {
      MutexLock lock(setup_mutex_);
      RETURN_IF_ERROR(PrepareLocked(call->request.model));
      return books_.at(call->request.model.model)->Next(call->request);
    }();
    if (!reply.ok()) {
      Fail(std::move(call),
           {.kind = LlmErrorKind::kReplayMiss, .message = reply.status().message()});
      return;
    }
    Succeed(std::move(call), *std::move(reply), CallSource::kReplay);
  }

  void ReleaseDueRetries(TimePoint now) {
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if ((*it)->due <= now) {
        const std::string& name = (*it)->request.model.provider;
        ProviderLane& lane = Lane(name, *(*it)->provider);
        lane.pending.push_front(std::move(*it));  // A retry goes before newer requests.
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
  }

  void StartReady(TimePoint now) {
    const std::optional<std::string> budget = client_.ledger_.BudgetExhausted();
    for (auto& [name, lane] : lanes_) {
      while (!lane.pending.empty()) {
        std::optional<LlmError> refusal = lane.fatal;
        if (!refusal && budget) {
          refusal = LlmError{.kind = LlmErrorKind::kBudget, .message = *budget};
        }
        if (refusal) {
          std::unique_ptr<PendingCall> call = std::move(lane.pending.front());
          lane.pending.pop_front();
          Fail(std::move(call), *refusal);
          continue;
        }
        if (lane.in_flight >= lane.concurrency || now < lane.paused_until) {
          break;
        }
        std::unique_ptr<PendingCall> call = std::move(lane.pending.front());
        lane.pending.pop_front();
        Start(lane, std::move(call));
      }
    }
  }

  void Start(ProviderLane& lane, std::unique_ptr<PendingCall> call) {
    const ProviderSettings& settings = call->provider->settings();
    call->ReleaseTransfer();
    call->body.clear();
    call->too_large = false;
    call->error_buffer[0] = '\0';
    call->easy = curl_easy_init();
    if (call->easy == nullptr) {
      Fail(std::move(call), {.kind = LlmErrorKind::kTransient, .message = "curl_easy_init failed"});
      return;
    }
    for (const std::string& header : call->http.headers) {
      call->headers = curl_slist_append(call->headers, header.c_str());
    }
    call->headers = curl_slist_append(call->headers, "Expect:");  // No 100-continue round trip.
    CURL* easy = call->easy;
    curl_easy_setopt(easy, CURLOPT_URL, call->http.url.c_str());
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, call->headers);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, call->http.body.data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(call->http.body.size()));
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, AppendBody);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, call.get());
    curl_easy_setopt(easy, CURLOPT_PRIVATE, call.get());
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, call->error_buffer);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(settings.timeout_s * 1000));
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(settings.connect_timeout_s * 1000));
    ++call->attempts;
    ++lane.in_flight;
    ++in_flight_;
    curl_multi_add_handle(multi_.get(), easy);
    running_[easy] = std::move(call);
  }

  int CollectFinished() {
    int finished = 0;
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_.get(), &left)) {
      if (message->msg != CURLMSG_DONE) {
        continue;
      }
      CURL* easy = message->easy_handle;
      const CURLcode code = message->data.result;
      curl_multi_remove_handle(multi_.get(), easy);
      auto it = running_.find(easy);
      CHECK(it != running_.end());  // Every easy handle we add is in running_.
      std::unique_ptr<PendingCall> call = std::move(it->second);
      running_.erase(it);
      --in_flight_;
      --lanes_[call->request.model.provider].in_flight;
      Finish(std::move(call), code);
      ++finished;
    }
    return finished;
  }

  void Finish(std::unique_ptr<PendingCall> call, CURLcode code) {
    const ProviderSettings& settings = call->provider->settings();
    HttpResponse response;
    curl_easy_getinfo(call->easy, CURLINFO_RESPONSE_CODE, &response.status);
    char* content_type = nullptr;
    curl_easy_getinfo(call->easy, CURLINFO_CONTENT_TYPE, &content_type);
    response.content_type = content_type != nullptr ? content_type : "";
    curl_header* retry_after = nullptr;
    if (curl_easy_header(call->easy, "Retry-After", 0, CURLH_HEADER, -1, &retry_after) ==
        CURLHE_OK) {
      response.retry_after_s = ParseRetryAfter(
          retry_after->value, static_cast<double>(std::chrono::system_clock::to_time_t(
                                  std::chrono::system_clock::now())));
    }
    call->ReleaseTransfer();
    response.body = std::move(call->body);

    ParsedReply parsed = LlmError{};
    if (code != CURLE_OK) {
      parsed = internal::ClassifyNetworkError(
          settings, call->error_buffer[0] != '\0' ? call->error_buffer : curl_easy_strerror(code),
          code == CURLE_OPERATION_TIMEDOUT, call->too_large ? client_.options_.max_reply_bytes : 0,
          code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST ||
              code == CURLE_COULDNT_RESOLVE_PROXY);
    } else {
      lanes_[call->request.model.provider].answered = true;
      parsed = call->provider->Parse(response);
    }
    if (auto* reply = std::get_if<ChatReply>(&parsed)) {
      Succeed(std::move(call), std::move(*reply), CallSource::kLive);
      return;
    }
    LlmError error = std::get<LlmError>(std::move(parsed));
    error.message = RedactSecrets(error.message, Secrets());
    Retry(std::move(call), std::move(error));
  }

  void Retry(std::unique_ptr<PendingCall> call, LlmError error) {
    const RetryPolicy& policy = client_.options_.retry;
    ProviderLane& lane = lanes_[call->request.model.provider];
    if (error.unreachable && !lane.answered && call->attempts >= kUnreachableAttempts) {
      error.kind = LlmErrorKind::kUnreachable;
      error.message = fmt::format(
          "{} (never reached in {} tries: check the endpoint, --llm and [llm] base_url, and that "
          "its server runs)",
          error.message, call->attempts);
    }
    if (error.kind == LlmErrorKind::kAuth || error.kind == LlmErrorKind::kUnreachable) {
      lane.fatal = error;  // Every queued and later request of this provider fails the same way.
    }
    if (error.kind != LlmErrorKind::kTransient || call->attempts >= policy.max_attempts) {
      if (error.kind == LlmErrorKind::kTransient) {
        error.message =
            fmt::format("gave up after {} attempts; last: {}", call->attempts, error.message);
      }
      Fail(std::move(call), std::move(error));
      return;
    }
    const double wait = BackoffSeconds(policy, call->attempts + 1, error.retry_after_s, random_);
    call->due = Clock::now() + Seconds(wait);
    if (error.retry_after_s) {
      // The server asked everyone to wait, not just this request.
      lane.paused_until = std::max(lane.paused_until, call->due);
    }
    client_.logger_->info("LLM call {} ({}) attempt {} failed, retrying in {:.1f} s: {}", call->id,
                          call->request.model.ToString(), call->attempts, wait, error.message);
    Notice({.id = call->id,
            .task = call->request.task,
            .model = call->request.model.ToString(),
            .attempt = call->attempts,
            .max_attempts = policy.max_attempts,
            .wait_s = wait,
            .cause = error.http_status != 0 ? fmt::format("HTTP {}", error.http_status)
                                            : error.message.substr(0, 120)});
    waiting_.push_back(std::move(call));
  }

  int PollTimeoutMs(TimePoint now) const {
    std::optional<TimePoint> next;
    for (const auto& call : waiting_) {
      next = Earliest(next, call->due);
    }
    for (const auto& [name, lane] : lanes_) {
      if (!lane.pending.empty() && lane.paused_until > now) {
        next = Earliest(next, lane.paused_until);
      }
    }
    if (!next) {
      return kMaxPollMs;
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*next - now).count();
    return static_cast<int>(std::clamp<int64_t>(ms + 1, 0, kMaxPollMs));
  }

  void Succeed(std::unique_ptr<PendingCall> call, ChatReply reply, CallSource source) {
    for (const std::string& warning : reply.warnings) {
      client_.logger_->warn("LLM call {} ({}, {}): {}", call->id, call->request.model.ToString(),
                            CallSourceName(source), warning);
    }
    if (source == CallSource::kLive && cache_ && !call->cache_key.empty()) {
      if (Status s = cache_->Store(call->cache_key, call->request.model, reply); !s.ok()) {
        client_.logger_->warn("LLM cache write failed: {}", s.ToString());
      }
    }
    if (recorder_ && source != CallSource::kReplay) {
      if (Status s = recorder_->Append(call->request, reply); !s.ok()) {
        client_.logger_->error("{}", s.ToString());
      }
    }
    LlmCompletion completion{.id = call->id,
                             .request = std::move(call->request),
                             .reply = std::move(reply),
                             .source = source,
                             .attempts = call->attempts};
    Deliver(std::move(completion), call->submitted);
  }

  void Fail(std::unique_ptr<PendingCall> call, LlmError error) {
    error.message = RedactSecrets(std::move(error.message), Secrets());
    LlmCompletion completion{.id = call->id,
                             .request = std::move(call->request),
                             .error = std::move(error),
                             .attempts = call->attempts};
    Deliver(std::move(completion), call->submitted);
  }

  void Notice(LlmRetry retry) {
    {
      MutexLock lock(mutex_);
      if (retries_.size() >= LlmClient::kMaxRetryNotices) {
        retries_.erase(retries_.begin());  // A caller that never takes them keeps the newest.
      }
      retries_.push_back(std::move(retry));
    }
    client_.wakeup_.Notify();
  }

  void Deliver(LlmCompletion completion, TimePoint submitted) {
    completion.latency_s = ToSeconds(Clock::now() - submitted);
    completion.cost_usd =
        client_.ledger_
            .Record({.role = completion.request.role,
                     .task = completion.request.task,
                     .model = completion.request.model,
                     .source = completion.source,
                     .usage = completion.reply ? completion.reply->usage : TokenUsage{},
                     .latency_s = completion.latency_s,
                     .attempts = completion.attempts,
                     .failed = !completion.reply})
            .cost_usd;
    {
      MutexLock lock(mutex_);
      completions_.push_back(std::move(completion));
    }
    completions_cv_.notify_all();
    client_.wakeup_.Notify();
  }

  std::vector<std::string> Secrets() {
    MutexLock lock(setup_mutex_);
    return secrets_;
  }

  void Shutdown() {
    for (auto& [easy, call] : running_) {
      curl_multi_remove_handle(multi_.get(), easy);
      Fail(std::move(call), {.kind = LlmErrorKind::kCancelled, .message = "the client stopped"});
    }
    running_.clear();
    in_flight_ = 0;
    auto cancel = [&](std::unique_ptr<PendingCall>& call) {
      Fail(std::move(call), {.kind = LlmErrorKind::kCancelled, .message = "the client stopped"});
    };
    std::for_each(waiting_.begin(), waiting_.end(), cancel);
    for (auto& [name, lane] : lanes_) {
      std::for_each(lane.pending.begin(), lane.pending.end(), cancel);
    }
    std::deque<std::unique_ptr<PendingCall>> arrived;
    {
      MutexLock lock(mutex_);
      arrived.swap(incoming_);
    }
    std::for_each(arrived.begin(), arrived.end(), cancel);
  }

  LlmClient& client_;
  std::unique_ptr<CURLM, CurlMultiDeleter> multi_;
  std::thread thread_;

  Mutex mutex_;
  std::condition_variable_any completions_cv_;
  bool stopping_ GUARDED_BY(mutex_) = false;
  uint64_t next_id_ GUARDED_BY(mutex_) = 0;
  std::deque<std::unique_ptr<PendingCall>> incoming_ GUARDED_BY(mutex_);
  std::vector<LlmCompletion> completions_ GUARDED_BY(mutex_);
  std::vector<LlmRetry> retries_ GUARDED_BY(mutex_);
  std::atomic<int> in_flight_ = 0;

  Mutex setup_mutex_;
  std::map<std::string, std::unique_ptr<Provider>> providers_ GUARDED_BY(setup_mutex_);
  std::map<std::string, std::unique_ptr<ReplayBook>> books_ GUARDED_BY(setup_mutex_);
  std::vector<std::string> secrets_ GUARDED_BY(setup_mutex_);

  // I/O thread only.
  std::optional<ResponseCache> cache_;
  std::unique_ptr<RecordingWriter> recorder_;
  std::mt19937_64 random_;
  std::map<std::string, ProviderLane> lanes_;
  std::map<CURL*, std::unique_ptr<PendingCall>> running_;
  std::vector<std::unique_ptr<PendingCall>> waiting_;
};

LlmClient::LlmClient(LlmOptions options, Logger logger, EventFd wakeup)
    : options_(std::move(options)),
      logger_(std::move(logger)),
      ledger_(options_.prices, options_.budget),
      wakeup_(std::move(wakeup)) {}

Result<std::unique_ptr<LlmClient>> LlmClient::Create(LlmOptions options, Logger logger) {
  std::call_once(curl_global_once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::optional<ResponseCache> cache;
  if (options.cache_enabled) {
    if (options.cache_path.empty()) {
      const std::string directory = DefaultCacheDirectory();
      RETURN_IF_ERROR(MakeDirectories(directory));
      options.cache_path = directory + "/llm-cache.sqlite";
    }
    ASSIGN_OR_RETURN(ResponseCache opened, ResponseCache::Open(options.cache_path));
    cache.emplace(std::move(opened));
  }
  std::unique_ptr<RecordingWriter> recorder;
  if (!options.record_path.empty()) {
    ASSIGN_OR_RETURN(recorder, RecordingWriter::Open(options.record_path));
  }
  CURLM* multi = curl_multi_init();
  if (multi == nullptr) {
    return InternalError("curl_multi_init failed");
  }
  ASSIGN_OR_RETURN(EventFd wakeup, EventFd::Create());
  std::unique_ptr<LlmClient> client(
      new LlmClient(std::move(options), std::move(logger), std::move(wakeup)));
  client->impl_ = std::make_unique<Impl>(*client, multi, std::move(cache), std::move(recorder));
  return client;
}

LlmClient::~LlmClient() { impl_.reset(); }

Status LlmClient::Prepare(const ModelSpec& model) { return impl_->Prepare(model); }

uint64_t LlmClient::Submit(ChatRequest request) { return impl_->Submit(std::move(request)); }

std::vector<LlmCompletion> LlmClient::TakeCompletions() { return impl_->TakeCompletions(); }

std::vector<LlmRetry> LlmClient::TakeRetries() { return impl_->TakeRetries(); }

LlmCompletion LlmClient::Wait(uint64_t id) { return impl_->Wait(id); }

LlmCompletion LlmClient::Call(ChatRequest request) {
  return impl_->Wait(impl_->Submit(std::move(request)));
}

int LlmClient::TEST_InFlight() const { return impl_->in_flight(); }

}  // namespace adaexplore
