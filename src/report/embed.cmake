# Writes the HTML report template (IN) into a C++ source (OUT) as a raw string literal, so the
# binary carries it and the template stays a plain file to read and edit.
file(READ "${IN}" content)
string(FIND "${content}" ")ADX_HTML\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw-string delimiter )ADX_HTML\"")
endif()
file(WRITE "${OUT}" "// Generated from src/report/report.html by embed.cmake; do not edit.\n"
  "namespace adaexplore {\nextern const char kReportHtml[];\n"
  "const char kReportHtml[] = R\"ADX_HTML(${content})ADX_HTML\";\n}  // namespace adaexplore\n")
