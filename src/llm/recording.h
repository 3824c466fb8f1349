#pragma once

// Recordings and keys. A recording is a JSON-lines file of (request, reply) pairs written while a
// run talks to a live provider (`record`), which the replay provider later serves without any
// network (`replay:FILE`): demos, tests and exact re-runs of a search.
//
// Two keys identify a request:
//   ContentKey  the messages and the sample number: what the model was asked. Recordings use it,
//               so a recording made with one model replays under any model name.
//   CacheKey    ContentKey plus provider, endpoint, model and every generation parameter: the
//               response cache uses it, so a changed setting never returns a stale reply.
//
// Line format (one object per line; keys and the API key are never written):
//   {"key": "...", "model": "openai:gpt-5-mini", "role": "proposer", "task": "...", "sample": 0,
//    "messages": [{"role": "user", "content": "..."}],
//    "reply": {"text": "...", "finish_reason": "stop", "served_model": "...",
//              "usage": {"input": 1, "output": 2, "cached_input": 0, "reasoning": 0}}}

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "core/result.h"
#include "llm/chat.h"
#include "llm/provider.h"
#include "sys/unique_fd.h"

namespace adaexplore {

std::string ContentKey(const ChatRequest& request);
std::string CacheKey(const ChatRequest& request, const ProviderSettings& settings);

nlohmann::json ReplyToJson(const ChatReply& reply);
Result<ChatReply> ReplyFromJson(const nlohmann::json& value);

// Appends request/reply pairs to a recording file, one flushed line each, so a run killed at any
// moment leaves every finished call on disk (at worst a torn last line, which the reader skips).
// Thread-safe.
class RecordingWriter {
 public:
  static Result<std::unique_ptr<RecordingWriter>> Open(const std::string& path);
  Status Append(const ChatRequest& request, const ChatReply& reply);

 private:
  RecordingWriter(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  Mutex mutex_;
  std::string path_;
  UniqueFd fd_ GUARDED_BY(mutex_);    // Opened O_APPEND: each line goes out in one write.
  Status failed_ GUARDED_BY(mutex_);  // A writer that failed stays failed.
};

// The replies of a recording, by content key. A key recorded several times is served in order,
// the last reply repeating once they are used up. A request whose prompt differs from every
// recorded one (a search replayed on another machine shows the model other timings) is answered
// by the reply recorded for the same (non-empty) task, role and sample number, if there is one,
// else by the next reply recorded for that task and role (a search replayed elsewhere can take
// other paths); only a task or role never recorded is a miss. Thread-safe.
class ReplayBook {
 public:
  // Reads `path`. Malformed lines are skipped and counted (a torn last line from a killed run is
  // normal); a file with no usable line is an error.
  static Result<std::unique_ptr<ReplayBook>> Load(const std::string& path);

  // The next reply for `request`, or a message that says it was not recorded.
  Result<ChatReply> Next(const ChatRequest& request);

  size_t size() const { return replies_.size(); }
  size_t skipped_lines() const { return skipped_lines_; }

 private:
  std::string path_;
  Mutex mutex_;
  std::map<std::string, std::vector<ChatReply>> replies_;
  std::map<std::string, std::vector<ChatReply>> by_slot_;  // Task, role and sample.
  std::map<std::string, std::vector<ChatReply>> by_role_;  // Task and role, in recorded order.
  std::map<std::string, size_t> served_ GUARDED_BY(mutex_);
  size_t skipped_lines_ = 0;
};

}  // namespace adaexplore
