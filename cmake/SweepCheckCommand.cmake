# cmake -DCOMMAND=<;-list> -DEXPECT_RC=<n> [-DEXPECT_REGEX=<re>] [-DREJECT_REGEX=<re>]
#       [-DEXPECT_FILES=<;-list>] [-DEXPECT_ABSENT=<;-list>] [-DCLEAN_DIR=<dir>] [-DMERGE=ON]
#       [-DSAVE_STDOUT=<file>] [-DSAME_STDOUT_AS=<file> [-DIGNORE_REGEX=<re>]]
#       -P SweepCheckCommand.cmake
# Runs COMMAND and fails unless it exits with EXPECT_RC, its output matches
# EXPECT_REGEX and not REJECT_REGEX, every file in EXPECT_FILES exists
# afterwards and none in EXPECT_ABSENT does. The output is stdout followed
# by stderr, or with MERGE both as they were written into one pipe.
# Without MERGE, SAVE_STDOUT keeps stdout in a file, and SAME_STDOUT_AS
# fails unless stdout equals that file's text once every match of
# IGNORE_REGEX (timings, paths) is blanked in both.
if(CLEAN_DIR)
  file(REMOVE_RECURSE "${CLEAN_DIR}")
endif()
if(MERGE)
  execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE all ERROR_VARIABLE all)
else()
  execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
endif()
if(NOT rc STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT_RC}\n${all}")
endif()
if(DEFINED EXPECT_REGEX AND NOT all MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}':\n${all}")
endif()
if(REJECT_REGEX AND all MATCHES "${REJECT_REGEX}")
  message(FATAL_ERROR "output matches '${REJECT_REGEX}' ('${CMAKE_MATCH_0}'):\n${all}")
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
if(SAVE_STDOUT)
  file(WRITE "${SAVE_STDOUT}" "${out}")
endif()
if(SAME_STDOUT_AS)
  file(READ "${SAME_STDOUT_AS}" want)
  set(got "${out}")
  if(IGNORE_REGEX)
    string(REGEX REPLACE "${IGNORE_REGEX}" "*" want "${want}")
    string(REGEX REPLACE "${IGNORE_REGEX}" "*" got "${got}")
  endif()
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "stdout differs from ${SAME_STDOUT_AS} (matches of '${IGNORE_REGEX}' blanked):\n"
                        "--- got\n${got}--- expected\n${want}")
  endif()
endif()
