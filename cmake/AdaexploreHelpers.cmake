# adaexplore_add_library(NAME SOURCES ... DEPS ...): one static library per component, with the
# alias adaexplore::NAME, C++20, and src/ as the include root ("core/status.h").
function(adaexplore_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(adaexplore_${name} STATIC ${ARG_SOURCES})
  add_library(adaexplore::${name} ALIAS adaexplore_${name})
  target_compile_features(adaexplore_${name} PUBLIC cxx_std_20)
  target_include_directories(adaexplore_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(adaexplore_${name} PUBLIC ${ARG_DEPS})
endfunction()

# adaexplore_add_test(NAME SOURCES ... DEPS ... [LABELS ...]): a GoogleTest binary registered
# with CTest, one CTest entry per test case.
function(adaexplore_add_test name)
  if(NOT ADAEXPLORE_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  target_compile_definitions(${name} PRIVATE
    ADAEXPLORE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    ADAEXPLORE_BINARY_DIR="${PROJECT_BINARY_DIR}")
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "unit;${ARG_LABELS}")
endfunction()
