#include "llm/recording.h"

#include <fmt/format.h>

#include <fstream>

#include "core/hash.h"
#include "core/json_text.h"
#include "llm/token_usage.h"

namespace adaexplore {
namespace {

using nlohmann::json;

constexpr size_t kPromptPreviewChars = 160;

json MessagesJson(const ChatRequest& request) {
  json messages = json::array();
  for (const ChatMessage& message : request.messages) {
    messages.push_back({{"role", message.role}, {"content", message.content}});
  }
  return messages;
}

std::string SlotKey(std::string_view task, std::string_view role, int64_t sample) {
  return fmt::format("{}\n{}\n{}", task, role, sample);
}

std::string Preview(const ChatRequest& request) {
  for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it) {
    if (it->role == "user") {
      std::string text = it->content.substr(0, kPromptPreviewChars);
      for (char& c : text) {
        c = c == '\n' ? ' ' : c;
      }
      return text;
    }
  }
  return "";
}

}  // namespace

std::string ContentKey(const ChatRequest& request) {
  Sha256Builder builder;
  builder.Add("adaexplore-chat-v1");
  for (const ChatMessage& message : request.messages) {
    builder.Add(message.role).Add(message.content);
  }
  builder.Add(std::to_string(request.sample));
  return builder.Finish();
}

std::string CacheKey(const ChatRequest& request, const ProviderSettings& settings) {
  Sha256Builder builder;
  builder.Add(ContentKey(request))
      .Add(settings.name)
      .Add(settings.base_url)
      .Add(request.model.model)
      .Add(std::to_string(request.max_output_tokens > 0 ? request.max_output_tokens
                                                        : settings.max_output_tokens))
      .Add(request.temperature ? fmt::format("{:.6f}", *request.temperature) : "default")
      .Add(request.reasoning_effort);
  return builder.Finish();
}

json ReplyToJson(const ChatReply& reply) {
  return {{"text", reply.text},
          {"finish_reason", reply.finish_reason},
          {"served_model", reply.served_model},
          {"usage", TokenUsageJson(reply.usage)}};
}

Result<ChatReply> ReplyFromJson(const json& value) {
  if (!value.is_object() || !value.contains("text") || !value["text"].is_string()) {
    return ParseError("a reply needs a string 'text'");
  }
  try {
    ChatReply reply;
    reply.text = value["text"].get<std::string>();
    reply.finish_reason = value.value("finish_reason", "");
    reply.served_model = value.value("served_model", "");
    // Written by any earlier build, or by hand: its counts are checked as a live reply's are.
    reply.usage = TokenUsageFromJson(value.value("usage", json::object()), reply.warnings);
    return reply;
  } catch (const json::exception& e) {
    return ParseError(std::string("a reply field has the wrong type: ") + e.what());
  }
}

Result<std::unique_ptr<RecordingWriter>> RecordingWriter::Open(const std::string& path) {
  Result<UniqueFd> fd = OpenForAppend(path);
  if (!fd.ok()) {
    return fd.status().WithContext("opening the recording");
  }
  return std::unique_ptr<RecordingWriter>(new RecordingWriter(path, *std::move(fd)));
}

Status RecordingWriter::Append(const ChatRequest& request, const ChatReply& reply) {
  json line = {{"key", ContentKey(request)},        {"model", request.model.ToString()},
               {"role", LlmRoleName(request.role)}, {"task", request.task},
               {"sample", request.sample},          {"messages", MessagesJson(request)},
               {"reply", ReplyToJson(reply)}};
  std::string text = JsonText(line) + "\n";
  MutexLock lock(mutex_);
  RETURN_IF_ERROR(failed_);
  failed_ = WriteAll(fd_.get(), text).WithContext("writing recording " + path_);
  return failed_;
}

Result<std::unique_ptr<ReplayBook>> ReplayBook::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return NotFound("recording " + path + " cannot be read");
  }
  auto book = std::make_unique<ReplayBook>();
  book->path_ = path;
  std::string line;
  size_t used = 0;
  while (std::getline(in, line)) {
    if (line.empty()) {
      continue;
    }
    json value = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!value.is_object() || !value.contains("key") || !value["key"].is_string() ||
        !value.contains("reply")) {
      ++book->skipped_lines_;
      continue;
    }
    Result<ChatReply> reply = ReplyFromJson(value["reply"]);
    if (!reply.ok()) {
      ++book->skipped_lines_;
      continue;
    }
    if (value.contains("task") && value["task"].is_string() && value.contains("role") &&
        value["role"].is_string() && value.contains("sample") &&
        value["sample"].is_number_integer()) {
      book->by_slot_[SlotKey(value["task"].get<std::string>(), value["role"].get<std::string>(),
                             value["sample"].get<int64_t>())]
          .push_back(*reply);
      book->by_role_[SlotKey(value["task"].get<std::string>(), value["role"].get<std::string>(),
                             -1)]
          .push_back(*reply);
    }
    book->replies_[value["key"].get<std::string>()].push_back(*std::move(reply));
    ++used;
  }
  if (used == 0) {
    return ParseError(fmt::format("recording {} holds no usable request/reply line ({} skipped)",
                                  path, book->skipped_lines_));
  }
  return book;
}

Result<ChatReply> ReplayBook::Next(const ChatRequest& request) {
  const std::string key = ContentKey(request);
  const std::vector<ChatReply>* replies = nullptr;
  std::string served_key;
  if (auto exact = replies_.find(key); exact != replies_.end()) {
    replies = &exact->second;
    served_key = key;
  } else if (auto slot =
                 by_slot_.find(SlotKey(request.task, LlmRoleName(request.role), request.sample));
             !request.task.empty() && slot != by_slot_.end()) {
    replies = &slot->second;
    served_key = "slot\n" + slot->first;
  } else if (auto role = by_role_.find(SlotKey(request.task, LlmRoleName(request.role), -1));
             !request.task.empty() && role != by_role_.end()) {
    replies = &role->second;
    served_key = "role\n" + role->first;
  }
  if (replies == nullptr) {
    return NotFound(fmt::format(
        "this request is not in the recording {} ({} recorded requests): role {}, task '{}', "
        "sample {}, prompt starting \"{}\" (key {}). The recording has no call with this "
        "prompt, nor any {} call for this task.",
        path_, replies_.size(), LlmRoleName(request.role), request.task, request.sample,
        Preview(request), key.substr(0, 16), LlmRoleName(request.role)));
  }
  MutexLock lock(mutex_);
  size_t& index = served_[served_key];
  const ChatReply& reply = (*replies)[std::min(index, replies->size() - 1)];
  ++index;
  return reply;
}

}  // namespace adaexplore
