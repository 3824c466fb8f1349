#include "dist/nats.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

namespace adaexplore::nats {
namespace {

int64_t Ms(double seconds) { return static_cast<int64_t>(std::llround(seconds * 1000)); }
int64_t Ns(double seconds) { return static_cast<int64_t>(std::llround(seconds * 1e9)); }

Status Error(natsStatus s, std::string_view what, jsErrCode js_error = static_cast<jsErrCode>(0)) {
  const char* last = nats_GetLastError(nullptr);
  std::string message = fmt::format("NATS: {}: {}", what, natsStatus_GetText(s));
  if (last != nullptr && *last != '\0') {
    message += fmt::format(" ({})", last);
  }
  if (js_error != 0) {
    message += fmt::format(" [JetStream error {}]", static_cast<int>(js_error));
  }
  if (s == NATS_TIMEOUT) {
    return TimeoutError(std::move(message));
  }
  if (s == NATS_CONNECTION_CLOSED || s == NATS_NO_SERVER || s == NATS_CONNECTION_DISCONNECTED ||
      s == NATS_NO_RESPONDERS || s == NATS_STALE_CONNECTION) {
    return Unavailable(std::move(message));
  }
  return IoError(std::move(message));
}

struct OptionsDeleter {
  void operator()(natsOptions* o) const { natsOptions_Destroy(o); }
};

Status EnsureStream(jsCtx* js, jsStreamConfig& config) {
  jsStreamInfo* info = nullptr;
  jsErrCode js_error = static_cast<jsErrCode>(0);
  natsStatus s = js_GetStreamInfo(&info, js, config.Name, nullptr, &js_error);
  if (s == NATS_OK) {
    jsStreamInfo_Destroy(info);
    return Status::Ok();
  }
  if (s != NATS_NOT_FOUND) {
    return Error(s, fmt::format("looking up stream {}", config.Name));
  }
  s = js_AddStream(&info, js, &config, nullptr, &js_error);
  if (s == NATS_OK) {
    jsStreamInfo_Destroy(info);
    return Status::Ok();
  }
  if (js_error == JSStreamNameExistErr) {
    return Status::Ok();  // Another process made it first.
  }
  return Error(s, fmt::format("creating stream {}", config.Name), js_error);
}

}  // namespace

std::string JobSubject(std::string_view queue) { return fmt::format("adx.jobs.{}", queue); }
std::string ResultSubject(std::string_view run) { return fmt::format("adx.results.{}", run); }
std::string ProgressSubject(std::string_view run) { return fmt::format("adx.progress.{}", run); }
std::string HelloSubject(std::string_view queue) {
  return queue.empty() ? "adx.hello" : fmt::format("adx.hello.{}", queue);
}

std::string QueueName(DeviceKind device_kind, std::string_view device_name) {
  if (device_kind != DeviceKind::kCuda) {
    return "cpu";
  }
  std::string out;
  for (char c : device_name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') {
    out.pop_back();
  }
  return out.empty() ? "gpu" : out;
}

std::string Data(const Message& m) {
  const char* data = natsMsg_GetData(m.get());
  return data == nullptr ? std::string()
                         : std::string(data, static_cast<size_t>(natsMsg_GetDataLength(m.get())));
}

std::string Header(const Message& m, const char* key) {
  const char* value = nullptr;
  if (natsMsgHeader_Get(m.get(), key, &value) != NATS_OK || value == nullptr) {
    return "";
  }
  return value;
}

int Delivered(const Message& m) {
  jsMsgMetaData* meta = nullptr;
  if (natsMsg_GetMetaData(&meta, m.get()) != NATS_OK || meta == nullptr) {
    return 0;
  }
  const int delivered = static_cast<int>(meta->NumDelivered);
  jsMsgMetaData_Destroy(meta);
  return delivered;
}

// The four answers a JetStream message takes.
static Status Answer(natsStatus (*answer)(natsMsg*, jsOptions*), const Message& m,
                     std::string_view what) {
  natsStatus s = answer(m.get(), nullptr);
  return s == NATS_OK ? Status::Ok() : Error(s, what);
}

Status Ack(const Message& m) { return Answer(natsMsg_Ack, m, "ack"); }
Status InProgress(const Message& m) { return Answer(natsMsg_InProgress, m, "heartbeat"); }
Status Term(const Message& m) { return Answer(natsMsg_Term, m, "terminating a message"); }
Status Nak(const Message& m) { return Answer(natsMsg_Nak, m, "handing a message back"); }

Status NakAfter(const Message& m, double delay_s) {
  natsStatus s = natsMsg_NakWithDelay(m.get(), Ms(delay_s), nullptr);
  return s == NATS_OK ? Status::Ok() : Error(s, "handing a message back");
}

Result<std::optional<Message>> Subscription::Next(double timeout_s) {
  natsMsg* raw = nullptr;
  natsStatus s = natsSubscription_NextMsg(&raw, sub_.get(), std::max<int64_t>(1, Ms(timeout_s)));
  if (s == NATS_TIMEOUT) {
    return std::optional<Message>();
  }
  if (s != NATS_OK) {
    return Error(s, "reading a subscription");
  }
  return std::optional<Message>(Message(raw));
}

Result<std::vector<Message>> PullConsumer::Fetch(int batch, double timeout_s) {
  natsMsgList list{};
  jsErrCode js_error = static_cast<jsErrCode>(0);
  natsStatus s = natsSubscription_Fetch(&list, sub_.get(), batch,
                                        std::max<int64_t>(1, Ms(timeout_s)), &js_error);
  std::vector<Message> out;
  for (int i = 0; i < list.Count; ++i) {
    out.emplace_back(list.Msgs[i]);
    list.Msgs[i] = nullptr;  // Owned by `out` now.
  }
  natsMsgList_Destroy(&list);
  if (s == NATS_OK || s == NATS_TIMEOUT || !out.empty()) {
    return out;
  }
  return Error(s, "fetching from a pull consumer", js_error);
}

Status PullConsumer::Delete() {
  natsStatus s = natsSubscription_Unsubscribe(sub_.get());
  return s == NATS_OK ? Status::Ok() : Error(s, "deleting a consumer");
}

void Connection::ConnectionDeleter::operator()(natsConnection* c) const {
  natsConnection_Close(c);
  natsConnection_Destroy(c);
}

Result<Connection> Connection::Connect(const ConnectOptions& options) {
  natsOptions* raw = nullptr;
  if (natsStatus s = natsOptions_Create(&raw); s != NATS_OK) {
    return Error(s, "options");
  }
  std::unique_ptr<natsOptions, OptionsDeleter> opts(raw);
  natsStatus s = natsOptions_SetURL(opts.get(), options.url.c_str());
  if (s == NATS_OK) {
    s = natsOptions_SetName(opts.get(), options.name.c_str());
  }
  if (s == NATS_OK) {
    s = natsOptions_SetMaxReconnect(opts.get(), -1);  // Forever.
  }
  if (s == NATS_OK) {
    s = natsOptions_SetReconnectWait(opts.get(), Ms(options.reconnect_wait_s));
  }
  if (s == NATS_OK) {
    s = natsOptions_SetTimeout(opts.get(), Ms(options.timeout_s));
  }
  // Buffer what is published while disconnected (8 MiB), sent on reconnect.
  if (s == NATS_OK) {
    s = natsOptions_SetReconnectBufSize(opts.get(), 8 << 20);
  }
  if (s != NATS_OK) {
    return Error(s, "setting connection options");
  }
  natsConnection* nc = nullptr;
  s = natsConnection_Connect(&nc, opts.get());
  if (s != NATS_OK) {
    return Error(s, "connecting to " + options.url);
  }
  Connection c;
  c.nc_.reset(nc);
  c.timeout_s_ = options.timeout_s;
  jsOptions js_options;
  jsOptions_Init(&js_options);
  js_options.Wait = Ms(options.timeout_s);
  jsCtx* js = nullptr;
  s = natsConnection_JetStream(&js, nc, &js_options);
  if (s != NATS_OK) {
    return Error(s, "opening JetStream");
  }
  c.js_.reset(js);
  return c;
}

Status Connection::EnsureStreams() {
  const char* job_subjects[] = {"adx.jobs.>"};
  jsStreamConfig jobs;
  jsStreamConfig_Init(&jobs);
  jobs.Name = kJobStream;
  jobs.Subjects = job_subjects;
  jobs.SubjectsLen = 1;
  jobs.Retention = js_WorkQueuePolicy;
  jobs.Storage = js_FileStorage;
  jobs.Duplicates = Ns(600);
  RETURN_IF_ERROR(EnsureStream(js_.get(), jobs));
  const char* result_subjects[] = {"adx.results.>"};
  jsStreamConfig results;
  jsStreamConfig_Init(&results);
  results.Name = kResultStream;
  results.Subjects = result_subjects;
  results.SubjectsLen = 1;
  results.Storage = js_FileStorage;
  results.MaxAge = Ns(24 * 3600);
  results.Duplicates = Ns(600);
  return EnsureStream(js_.get(), results);
}

Status Connection::Publish(const std::string& subject, const std::string& data,
                           const std::string& msg_id) {
  jsPubOptions options;
  jsPubOptions_Init(&options);
  options.MsgId = msg_id.c_str();
  options.MaxWait = Ms(timeout_s_);
  jsPubAck* ack = nullptr;
  jsErrCode js_error = static_cast<jsErrCode>(0);
  natsStatus s = js_Publish(&ack, js_.get(), subject.c_str(), data.data(),
                            static_cast<int>(data.size()), &options, &js_error);
  jsPubAck_Destroy(ack);
  return s == NATS_OK ? Status::Ok() : Error(s, "publishing to " + subject, js_error);
}

Status Connection::PublishCore(const std::string& subject, const std::string& data) {
  natsStatus s = natsConnection_Publish(nc_.get(), subject.c_str(), data.data(),
                                        static_cast<int>(data.size()));
  return s == NATS_OK ? Status::Ok() : Error(s, "publishing to " + subject);
}

Result<std::string> Connection::Request(const std::string& subject, const std::string& data,
                                        double timeout_s) {
  natsMsg* reply = nullptr;
  natsStatus s = natsConnection_Request(&reply, nc_.get(), subject.c_str(), data.data(),
                                        static_cast<int>(data.size()), Ms(timeout_s));
  if (s != NATS_OK) {
    return Error(s, "request on " + subject);
  }
  return Data(Message(reply));
}

Status Connection::Respond(const Message& request, const std::string& data) {
  const char* reply = natsMsg_GetReply(request.get());
  if (reply == nullptr || *reply == '\0') {
    return Status::Ok();
  }
  return PublishCore(reply, data);
}

Result<Subscription> Connection::Subscribe(const std::string& subject) {
  natsSubscription* sub = nullptr;
  natsStatus s = natsConnection_SubscribeSync(&sub, nc_.get(), subject.c_str());
  if (s != NATS_OK) {
    return Error(s, "subscribing to " + subject);
  }
  Subscription out;
  out.sub_.reset(sub);
  return out;
}

Result<PullConsumer> Connection::PullSubscribe(const ConsumerOptions& options) {
  jsSubOptions sub_options;
  jsSubOptions_Init(&sub_options);
  sub_options.Stream = options.stream.c_str();
  sub_options.Config.AckPolicy = js_AckExplicit;
  sub_options.Config.AckWait = Ns(options.ack_wait_s);
  sub_options.Config.MaxDeliver = options.max_deliver;
  sub_options.Config.MaxAckPending = options.max_ack_pending;
  natsSubscription* sub = nullptr;
  jsErrCode js_error = static_cast<jsErrCode>(0);
  natsStatus s = js_PullSubscribe(&sub, js_.get(), options.subject.c_str(), options.durable.c_str(),
                                  nullptr, &sub_options, &js_error);
  if (s != NATS_OK) {
    return Error(s, fmt::format("pull consumer {} on {}", options.durable, options.subject),
                 js_error);
  }
  PullConsumer out;
  out.sub_.reset(sub);
  return out;
}

bool Connection::connected() const {
  return natsConnection_Status(nc_.get()) == NATS_CONN_STATUS_CONNECTED;
}

bool Connection::Flush(double timeout_s) {
  return natsConnection_FlushTimeout(nc_.get(), Ms(timeout_s)) == NATS_OK;
}

}  // namespace adaexplore::nats
