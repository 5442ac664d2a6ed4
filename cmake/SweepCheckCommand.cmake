# cmake -DCOMMAND=<;-list> -DEXPECT_RC=<n> [-DEXPECT_REGEX=<re>] [-DEXPECT_FILES=<;-list>]
#       [-DEXPECT_ABSENT=<;-list>] [-DCLEAN_DIR=<dir>] -P SweepCheckCommand.cmake
# Runs COMMAND and fails unless it exits with EXPECT_RC, its stdout+stderr
# match EXPECT_REGEX, every file in EXPECT_FILES exists afterwards and none
# in EXPECT_ABSENT does.
if(CLEAN_DIR)
  file(REMOVE_RECURSE "${CLEAN_DIR}")
endif()
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(NOT rc STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT_RC}\n${all}")
endif()
if(DEFINED EXPECT_REGEX AND NOT all MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}':\n${all}")
endif()
foreach(f IN LISTS EXPECT_FILES)
  if(NOT EXISTS "${f}")
    message(FATAL_ERROR "missing ${f}\n${all}")
  endif()
endforeach()
foreach(f IN LISTS EXPECT_ABSENT)
  if(EXISTS "${f}")
    message(FATAL_ERROR "${f} should not have been written\n${all}")
  endif()
endforeach()
