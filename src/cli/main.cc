#include <cstdio>

#include "cli/app.h"

int main(int argc, char** argv) {
  adaexplore::Result<int> code = adaexplore::RunCli(argc, argv);
  if (!code.ok()) {
    (void)std::fprintf(stderr, "adaexplore: %s\n", code.status().message().c_str());
    return adaexplore::ExitCodeFor(code.status());
  }
  return *code;
}
