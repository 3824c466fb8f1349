#include "prompt/prompts.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "edits/code_block.h"
#include "eval/checks.h"
#include "sys/fs.h"
#include "task/task_file.h"
#include "task/task_prompt.h"

namespace adaexplore {
namespace {

const std::string kDir = std::string(ADAEXPLORE_SOURCE_DIR) + "/prompts";
constexpr const char* kTask =
    "import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n"
    "    def forward(self, x):\n        return torch.relu(x)\n";

PromptSet Load(KernelLanguage language = KernelLanguage::kTriton,
               const EvalProfile& profile = StrictProfile()) {
  Result<PromptSet> set = PromptSet::Load(kDir, language, profile);
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  return *std::move(set);
}

PromptInputs Inputs() {
  return PromptInputs{.task_name = "19_ReLU.py", .task_source = kTask, .hardware = "NVIDIA H200"};
}

KernelRecord Correct(int node, double speedup) {
  return KernelRecord{.node = node,
                      .code = "class ModelNew: pass  # v" + std::to_string(node),
                      .verdict = "correct",
                      .speedup = speedup,
                      .runtime_ms = 0.5,
                      .reference_ms = 0.5 * speedup};
}

TEST(PromptsTest, ProposerStatesTheTaskTheStrictRulesAndNoPoolFromTheRoot) {
  std::vector<ChatMessage> messages = Load().Proposer(Inputs());
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].role, "system");
  EXPECT_NE(messages[0].content.find("Triton kernels"), std::string::npos);
  EXPECT_NE(messages[0].content.find("NVIDIA H200"), std::string::npos);
  const std::string& user = messages[1].content;
  EXPECT_NE(user.find("# Task: 19_ReLU.py"), std::string::npos);
  EXPECT_NE(user.find("return torch.relu(x)"), std::string::npos);
  EXPECT_NE(user.find("input_precision=\"ieee\""), std::string::npos);
  EXPECT_NE(user.find("<= 0.0001 * max|ref| + 0.0001 * |ref|"), std::string::npos);
  EXPECT_NE(user.find("float64 reference, on 5 trials"), std::string::npos);
  EXPECT_NE(user.find("poisoned"), std::string::npos);
  EXPECT_EQ(user.find("Strong existing kernels"), std::string::npos);  // Empty pool.
  EXPECT_EQ(user.find("Common pitfalls"), std::string::npos);          // No memory.
  EXPECT_EQ(user.find("{{"), std::string::npos);
}

TEST(PromptsTest, ProposerShowsThePoolAndTheMemory) {
  PromptInputs inputs = Inputs();
  inputs.kernels = {Correct(3, 1.5), Correct(9, 2.25)};
  inputs.memory_rules = {"You cannot call tl.dot on 1-D blocks.",
                         "You cannot index a "
                         "constexpr with a tensor."};
  const std::string user = Load().Proposer(inputs)[1].content;
  EXPECT_NE(user.find("## Strong existing kernels"), std::string::npos);
  EXPECT_NE(user.find("### Kernel 2\n\n```python\nclass ModelNew: pass  # v9\n```"),
            std::string::npos);
  EXPECT_NE(user.find("Result: correct, 2.25x the reference (0.5 ms against 1.125 ms)."),
            std::string::npos);
  EXPECT_NE(user.find("- You cannot call tl.dot on 1-D blocks.\n- You cannot index"),
            std::string::npos);
}

// A speedup in GPU time says so, and the call's time on its stream's events beside it.
TEST(PromptsTest, AKernelsTimeSaysWhichTimeItIs) {
  PromptInputs inputs = Inputs();
  KernelRecord gpu = Correct(4, 114);
  gpu.runtime_ms = 0.024;
  gpu.reference_ms = 2.74;
  gpu.scope = "gpu";
  gpu.call_ms = 0.095;
  inputs.kernels = {gpu};
  const std::string user = Load().Proposer(inputs)[1].content;
  EXPECT_NE(user.find("Result: correct, 114x the reference in gpu time (0.024 ms against 2.74 "
                      "ms); the call on its stream's events: 0.095 ms."),
            std::string::npos)
      << user;
}

TEST(PromptsTest, ProposerStatesTheTasksSpeedOfLightOnceAGpuMeasuredIt) {
  PromptInputs inputs = Inputs();
  const std::string without = Load().Proposer(inputs)[1].content;
  EXPECT_EQ(without.find("speed of light"), std::string::npos);
  inputs.roofline =
      TaskRoofline{.speed_of_light_ms = 0.5, .io_bytes = 2.4e9, .flops = 3e12, .reference_ms = 2.0};
  const std::string user = Load().Proposer(inputs)[1].content;
  EXPECT_NE(user.find("## The speed of light\n\nNo kernel can run this task in less than about "
                      "0.5 ms on this GPU: its inputs and outputs are 2400 MB, read and written "
                      "once at the GPU's memory bandwidth. The reference takes 2 ms (4x that "
                      "bound). The reference does 3000 GFLOP of matrix work; algebra that does "
                      "less is allowed.\n\n## Writing"),
            std::string::npos)
      << user;
  // Without the roofline the sections around it read as before: one blank line between them.
  EXPECT_NE(without.find("on the same inputs.\n\n## Writing"), std::string::npos) << without;
  // The tuner and reviser are not told it (their kernel's own fraction is).
  EXPECT_EQ(Load().Tuner(inputs)[1].content.find("## The speed of light"), std::string::npos);
}

TEST(PromptsTest, ProposerShowsFailedContextKernelsApartFromThePool) {
  PromptInputs inputs = Inputs();
  KernelRecord wrong{.node = 5,
                     .code = "class ModelNew: pass  # wrong",
                     .verdict = "incorrect",
                     .reason = "max abs error 3 at [0, 1]"};
  inputs.kernels = {wrong, Correct(7, 1.5)};
  const std::string user = Load().Proposer(inputs)[1].content;
  const size_t pool = user.find("## Strong existing kernels");
  const size_t attempts = user.find("## Earlier attempts");
  ASSERT_NE(pool, std::string::npos);
  ASSERT_NE(attempts, std::string::npos);
  // The wrong kernel is Kernel 1, under the attempts; the correct one Kernel 2, in the pool.
  const size_t kernel1 = user.find("### Kernel 1\n\n```python\nclass ModelNew: pass  # wrong");
  const size_t result1 = user.find("Result: incorrect: max abs error 3 at [0, 1]");
  ASSERT_NE(kernel1, std::string::npos);
  ASSERT_NE(result1, std::string::npos);
  EXPECT_GT(kernel1, attempts);
  EXPECT_GT(result1, attempts);
  const size_t kernel2 = user.find("### Kernel 2");
  EXPECT_GT(kernel2, pool);
  EXPECT_LT(kernel2, attempts);
  // Only failures: no pool section claiming they are correct.
  inputs.kernels = {wrong};
  const std::string only_failed = Load().Proposer(inputs)[1].content;
  EXPECT_EQ(only_failed.find("Strong existing kernels"), std::string::npos);
  EXPECT_NE(only_failed.find("## Earlier attempts"), std::string::npos);
}

TEST(PromptsTest, ReviserSeesOnlyTheLatestKernelWithItsError) {
  PromptInputs inputs = Inputs();
  KernelRecord broken{.node = 4,
                      .code = "class ModelNew: pass  # broken",
                      .verdict = "compile_error",
                      .reason = "SyntaxError",
                      .error = std::string(10000, 'e') + "\nSyntaxError: invalid syntax"};
  inputs.kernels = {Correct(2, 1.1), broken};
  const std::string user = Load().Reviser(inputs)[1].content;
  EXPECT_EQ(user.find("# v2"), std::string::npos);
  EXPECT_NE(user.find("# broken"), std::string::npos);
  EXPECT_NE(user.find("Result: compile_error: SyntaxError"), std::string::npos);
  EXPECT_NE(user.find("SyntaxError: invalid syntax\n```"), std::string::npos);
  EXPECT_LT(user.size(), 10000u);  // The error is cut to its end.
}

TEST(PromptsTest, TunerShowsEveryVersionTheGuidanceAndTheEditFormat) {
  PromptInputs inputs = Inputs();
  inputs.kernels = {Correct(1, 1.0), Correct(5, 1.4)};
  inputs.guidance = "1. Fuse the two passes.";
  inputs.edit_feedback = "edit 2 was skipped: its old_str matches nothing in the kernel";
  const std::string user = Load().Tuner(inputs)[1].content;
  EXPECT_NE(user.find("### Version 1\n"), std::string::npos);
  EXPECT_NE(user.find("### Version 2 (latest: edit this one)"), std::string::npos);
  EXPECT_NE(user.find("## Advice from a reviewer\n\n1. Fuse the two passes."), std::string::npos);
  EXPECT_NE(user.find("edit 2 was skipped"), std::string::npos);
  EXPECT_NE(user.find("<old_str_1>"), std::string::npos);
  inputs.guidance.clear();
  inputs.edit_feedback.clear();
  const std::string plain = Load().Tuner(inputs)[1].content;
  EXPECT_EQ(plain.find("Advice from a reviewer"), std::string::npos);
  EXPECT_EQ(plain.find("Your previous edits"), std::string::npos);
}

TEST(PromptsTest, TheTunerAndReviserSeeWhyTheKernelIsSlow) {
  PromptInputs inputs = Inputs();
  KernelRecord profiled = Correct(3, 1.4);
  profiled.sol_fraction = 0.354;
  profiled.profile =
      "memory-bound at 41% of DRAM peak (SM 12%); occupancy 25%, limited by registers";
  inputs.kernels = {Correct(1, 1.0), profiled};
  const std::string profile_line =
      "Speed of light: 35% (the time to read the inputs and write the outputs once at this GPU's "
      "bandwidth, over this kernel's time).\nProfile: memory-bound at 41% of DRAM peak (SM 12%); "
      "occupancy 25%, limited by registers.\n";
  EXPECT_NE(Load().Tuner(inputs)[1].content.find(profile_line), std::string::npos);
  EXPECT_NE(Load().Reviser(inputs)[1].content.find(profile_line), std::string::npos);
  inputs.kernels = {Correct(1, 1.0)};  // Unprofiled: no line, nothing made up.
  EXPECT_EQ(Load().Tuner(inputs)[1].content.find("Profile:"), std::string::npos);
  EXPECT_EQ(Load().Tuner(inputs)[1].content.find("Speed of light:"), std::string::npos);
}

TEST(PromptsTest, ProfileAndLanguageChangeTheRequirements) {
  const std::string paper =
      PromptSet::Requirements(*ProfileByName("paper"), KernelLanguage::kTriton);
  EXPECT_NE(paper.find("torch.allclose(out, ref, atol=0.05, rtol=0.05)"), std::string::npos)
      << paper;
  // The timing rules are the profile's own: the reference release times a trimmed mean without
  // flushing L2. Paper keeps the integrity checks; the release's own check has none.
  EXPECT_NE(paper.find("trimmed mean of 100 timed runs after 10 warm-up runs, against"),
            std::string::npos)
      << paper;
  EXPECT_EQ(paper.find("L2"), std::string::npos);
  EXPECT_NE(paper.find("poisoned"), std::string::npos);
  EXPECT_NE(paper.find("kernel of your own"), std::string::npos);
  const std::string reference =
      PromptSet::Requirements(ReferenceProfile(), KernelLanguage::kTriton);
  EXPECT_EQ(reference.find("poisoned"), std::string::npos);
  EXPECT_EQ(reference.find("kernel of your own"), std::string::npos);
  const std::string strict = PromptSet::Requirements(StrictProfile(), KernelLanguage::kTriton);
  EXPECT_NE(strict.find("median of 20 to 100 timed runs after 10 warm-up runs, with the L2 cache"),
            std::string::npos);
  EXPECT_NE(strict.find("At least one kernel of your own must run"), std::string::npos);
  EvalProfile forbidden = StrictProfile();
  forbidden.pytorch_compute = PytorchCompute::kForbidden;
  EXPECT_NE(PromptSet::Requirements(forbidden, KernelLanguage::kTriton).find("at most 10%"),
            std::string::npos);
  EvalProfile unrestricted = StrictProfile();
  unrestricted.pytorch_compute = PytorchCompute::kUnrestricted;
  EXPECT_EQ(PromptSet::Requirements(unrestricted, KernelLanguage::kTriton).find("your own"),
            std::string::npos);
  EvalProfile bf16 = StrictProfile();
  SetPrecision(bf16, Precision::kBf16);
  EXPECT_NE(PromptSet::Requirements(bf16, KernelLanguage::kTriton).find("are bf16"),
            std::string::npos);
  const std::string user = Load(KernelLanguage::kCuda).Proposer(Inputs())[1].content;
  EXPECT_NE(user.find("load_inline"), std::string::npos);
  EXPECT_EQ(user.find("input_precision"), std::string::npos);
}

// The rules a prompt states are the integrity checks its profile runs (eval/checks.h).
TEST(PromptsTest, TheStatedRulesAreTheChecksTheProfileRuns) {
  for (std::string_view name : ProfileNames()) {
    const EvalProfile profile = *ProfileByName(name);
    const std::string rules = PromptSet::Requirements(profile, KernelLanguage::kTriton);
    for (const IntegrityCheck& check : IntegrityChecks()) {
      EXPECT_EQ(rules.find(check.catches) != std::string::npos, CheckApplies(check, profile))
          << name << ": " << check.name << "\n"
          << rules;
    }
  }
}

TEST(PromptsTest, TheLanguageExamplesAreThemselvesValidAnswers) {
  for (const char* file : {"triton.md", "cuda.md"}) {
    Result<std::string> notes = ReadFile(kDir + "/" + file);
    ASSERT_TRUE(notes.ok());
    Result<std::string> kernel = ExtractKernel(*notes);
    ASSERT_TRUE(kernel.ok()) << file << ": " << kernel.status().ToString();
    EXPECT_NE(kernel->find("class ModelNew"), std::string::npos) << file;
  }
}

TEST(PromptsTest, AFlashInferDefinitionAsksForItsEntryPointUnderItsOwnCheck) {
  Result<SourceFile> task =
      ReadTaskFile(std::string(ADAEXPLORE_SOURCE_DIR) +
                   "/examples/flashinfer/definitions/rmsnorm/rmsnorm_h64.json");
  ASSERT_TRUE(task.ok()) << task.status().ToString();
  const std::string source = PromptSource(*task);
  EXPECT_NE(source.find("# Entry point: run(hidden_states, weight) -> output"), std::string::npos)
      << source;
  EXPECT_NE(source.find("#   hidden_size = 64 (const)"), std::string::npos) << source;
  EXPECT_NE(source.find("# Workloads (3): {\"batch_size\":1}"), std::string::npos) << source;
  EXPECT_NE(source.find("def run(hidden_states, weight):"), std::string::npos);
  PromptInputs inputs = Inputs();
  inputs.task_name = "rmsnorm_h64.json";
  inputs.task_source = source;
  inputs.task_kind = TaskKind::kFlashInfer;
  const std::string user = Load().Proposer(inputs)[1].content;
  EXPECT_NE(user.find("as a Python function `run` (the entry point)"), std::string::npos) << user;
  EXPECT_NE(user.find("`def run(...)` taking the definition's input names"), std::string::npos);
  EXPECT_NE(user.find("dtypes the task gives them"), std::string::npos);
  EXPECT_NE(user.find("torch.allclose(out, ref, atol=0.01, rtol=0.01)"), std::string::npos) << user;
  EXPECT_EQ(user.find("`class ModelNew`. Nothing"), std::string::npos);
  // KernelBench's own wording is unchanged.
  const std::string kb = Load().Proposer(Inputs())[1].content;
  EXPECT_NE(kb.find("as a class `ModelNew` whose `forward`"), std::string::npos);
  EXPECT_NE(kb.find("imports, kernels, and `class ModelNew`"), std::string::npos);
}

TEST(PromptsTest, AnEditedTemplateWithATypoFailsToLoad) {
  Result<TempDir> dir = TempDir::Create("prompts");
  ASSERT_TRUE(dir.ok());
  for (const char* file : {"system.md", "reviser.md", "tuner.md", "triton.md", "cuda.md"}) {
    ASSERT_TRUE(WriteFileAtomic(dir->path() + "/" + file, *ReadFile(kDir + "/" + file)).ok());
  }
  ASSERT_TRUE(WriteFileAtomic(dir->path() + "/proposer.md", "Task {{task_nam}}\n").ok());
  Result<PromptSet> set = PromptSet::Load(dir->path(), KernelLanguage::kTriton, StrictProfile());
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("unknown placeholder 'task_nam'"), std::string::npos);
}

// Every role's user message begins with what all its calls for a task share, the part a prompt
// cache keeps: the same bytes whatever the kernels, and the kernels after it.
TEST(PromptsTest, EachRolesMessageStartsWithThePartItsStepsShare) {
  const PromptSet set = Load();
  PromptInputs one = Inputs();
  one.memory_rules = {"You cannot call tl.dot on 1-D blocks."};
  one.kernels = {Correct(3, 1.5)};
  PromptInputs two = one;
  two.kernels = {Correct(4, 1.25), Correct(9, 2.25)};
  two.guidance = "Fuse the two loads.";
  using Role = std::vector<ChatMessage> (PromptSet::*)(const PromptInputs&) const;
  for (const Role role : {&PromptSet::Proposer, &PromptSet::Reviser, &PromptSet::Tuner}) {
    const ChatMessage a = (set.*role)(one)[1];
    const ChatMessage b = (set.*role)(two)[1];
    ASSERT_GT(a.cache_prefix, 1000u) << a.content;
    ASSERT_LT(a.cache_prefix, a.content.size());
    const std::string stable = a.content.substr(0, a.cache_prefix);
    EXPECT_EQ(b.content.substr(0, b.cache_prefix), stable);
    EXPECT_NE(stable.find("return torch.relu(x)"), std::string::npos);
    EXPECT_NE(stable.find("You cannot call tl.dot"), std::string::npos);
    EXPECT_EQ(stable.find("ModelNew: pass"), std::string::npos);  // No kernel in it.
    EXPECT_NE(a.content.find("ModelNew: pass", a.cache_prefix), std::string::npos);
    EXPECT_EQ(a.content.find("<!--"), std::string::npos);  // The line itself is not sent.
  }
}

// A template without the line still loads, all of it the step's; a section across it does not.
TEST(PromptsTest, TheSharedPartsLineIsOptionalAndNoSectionSpansIt) {
  Result<TempDir> dir = TempDir::Create("prompts");
  ASSERT_TRUE(dir.ok());
  for (const char* file : {"system.md", "reviser.md", "tuner.md", "triton.md", "cuda.md"}) {
    ASSERT_TRUE(WriteFileAtomic(dir->path() + "/" + file, *ReadFile(kDir + "/" + file)).ok());
  }
  std::filesystem::copy(kDir + "/tasks", dir->path() + "/tasks");
  ASSERT_TRUE(WriteFileAtomic(dir->path() + "/proposer.md", "Task {{task_name}}\n").ok());
  Result<PromptSet> set = PromptSet::Load(dir->path(), KernelLanguage::kTriton, StrictProfile());
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const ChatMessage user = set->Proposer(Inputs())[1];
  EXPECT_EQ(user.content, "Task 19_ReLU.py");
  EXPECT_EQ(user.cache_prefix, 0u);
  ASSERT_TRUE(WriteFileAtomic(dir->path() + "/proposer.md",
                              "{{#pool}}\n<!-- the same in every step above this line -->\n"
                              "{{pool}}{{/pool}}\n")
                  .ok());
  EXPECT_FALSE(PromptSet::Load(dir->path(), KernelLanguage::kTriton, StrictProfile()).ok());
}

}  // namespace
}  // namespace adaexplore
