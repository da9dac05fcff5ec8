# Runs a command and checks its exit code and output; used by ctest for the examples.
#   cmake -DCMD="prog|arg|arg" -DEXPECT_EXIT=1 -DEXPECT_REGEX="..." [-DFRESH_DIR=dir] -P expect-output.cmake
# FRESH_DIR, when given, is removed before the run.
if(FRESH_DIR)
  file(REMOVE_RECURSE "${FRESH_DIR}")
endif()
string(REPLACE "|" ";" command "${CMD}")
execute_process(COMMAND ${command} RESULT_VARIABLE rv OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT "${rv}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "exit code ${rv}, expected ${EXPECT_EXIT}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match: ${EXPECT_REGEX}")
endif()
