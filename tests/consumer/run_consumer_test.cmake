# Installs the Sweep build in SWEEP_BUILD_DIR into a scratch prefix, then
# configures, builds and runs tests/consumer against it.
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

run(${CMAKE_COMMAND} --install "${SWEEP_BUILD_DIR}" --prefix "${prefix}")
if(NOT EXISTS "${prefix}/include/sweep/sweep.hpp" OR NOT EXISTS "${prefix}/lib/cmake/Sweep/SweepConfig.cmake")
  message(FATAL_ERROR "install did not place include/sweep/sweep.hpp and lib/cmake/Sweep/SweepConfig.cmake")
endif()
run(${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run("${WORK_DIR}/build/consumer")
