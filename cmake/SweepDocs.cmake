# API reference: Doxygen over the public headers (lib/sweep, without the
# backend internals under detail/, host/ and cuda/), with the README as the
# main page. Each header's opening comment becomes its file page through
# docs/header_filter.py, so the reference and the headers cannot disagree.
# Warnings fail the build: a broken reference, an unknown command or a
# dangling link in the public API is an error, as in the rest of Sweep.
#
#   cmake --build --preset openmp --target docs   ->  build/openmp/docs/html/index.html
find_package(Doxygen QUIET)
find_package(Python3 QUIET COMPONENTS Interpreter)
option(SWEEP_BUILD_DOCS "Add the docs target (API reference; needs Doxygen and Python 3)"
       ${DOXYGEN_FOUND})
if(NOT SWEEP_BUILD_DOCS)
  return()
endif()
if(NOT DOXYGEN_FOUND OR NOT Python3_Interpreter_FOUND)
  message(FATAL_ERROR "SWEEP_BUILD_DOCS needs Doxygen and Python 3 "
                      "(Debian: doxygen python3; cmake/bootstrap.sh installs them)")
endif()

file(GLOB _sweep_public_headers CONFIGURE_DEPENDS
     "${PROJECT_SOURCE_DIR}/lib/sweep/*.hpp"
     "${PROJECT_SOURCE_DIR}/lib/sweep/mpi/*.hpp"
     "${PROJECT_SOURCE_DIR}/lib/sweep/mpi/nbody/*.hpp"
     "${PROJECT_SOURCE_DIR}/lib/sweep/nbody/*.hpp"
     "${PROJECT_SOURCE_DIR}/lib/sweep/ocean/*.hpp"
     "${PROJECT_SOURCE_DIR}/lib/sweep/raytrace/*.hpp")

set(DOXYGEN_PROJECT_NAME "Sweep")
set(DOXYGEN_PROJECT_NUMBER "${PROJECT_VERSION}")
set(DOXYGEN_PROJECT_BRIEF "${PROJECT_DESCRIPTION}")
set(DOXYGEN_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/docs")
set(DOXYGEN_GENERATE_HTML YES)
set(DOXYGEN_GENERATE_LATEX NO)
set(DOXYGEN_USE_MDFILE_AS_MAINPAGE "${PROJECT_SOURCE_DIR}/README.md")
set(DOXYGEN_STRIP_FROM_PATH "${PROJECT_SOURCE_DIR}/lib" "${PROJECT_SOURCE_DIR}")
set(DOXYGEN_STRIP_FROM_INC_PATH "${PROJECT_SOURCE_DIR}/lib")
set(DOXYGEN_FULL_PATH_NAMES YES)
# The filter runs through its #! line (python3); README.md passes unchanged.
set(DOXYGEN_INPUT_FILTER "${PROJECT_SOURCE_DIR}/docs/header_filter.py")
set(DOXYGEN_JAVADOC_AUTOBRIEF YES)
set(DOXYGEN_EXTRACT_ALL YES)
set(DOXYGEN_EXTRACT_STATIC YES)
set(DOXYGEN_EXCLUDE_SYMBOLS "detail" "*::detail" "*::detail::*" "Kokkos")
set(DOXYGEN_ENABLE_PREPROCESSING YES)
set(DOXYGEN_MACRO_EXPANSION YES)
set(DOXYGEN_EXPAND_ONLY_PREDEF YES)
set(DOXYGEN_SEARCH_INCLUDES NO)
set(DOXYGEN_PREDEFINED
    "KOKKOS_INLINE_FUNCTION=inline" "KOKKOS_FUNCTION=" "KOKKOS_FORCEINLINE_FUNCTION=inline"
    "KOKKOS_LAMBDA=[=]" "SWEEP_DOXYGEN=1")
set(DOXYGEN_WARNINGS YES)
set(DOXYGEN_WARN_IF_DOC_ERROR YES)
set(DOXYGEN_WARN_IF_INCOMPLETE_DOC NO)
set(DOXYGEN_WARN_NO_PARAMDOC NO)
set(DOXYGEN_WARN_IF_UNDOCUMENTED NO)
set(DOXYGEN_WARN_AS_ERROR FAIL_ON_WARNINGS)
set(DOXYGEN_QUIET YES)
set(DOXYGEN_HAVE_DOT NO)
set(DOXYGEN_SOURCE_BROWSER YES)
set(DOXYGEN_RECURSIVE NO)

doxygen_add_docs(docs "${PROJECT_SOURCE_DIR}/README.md" ${_sweep_public_headers}
                 WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
                 COMMENT "sweep: API reference (Doxygen) -> ${PROJECT_BINARY_DIR}/docs/html/index.html")

# Every public header must open with the comment that becomes its page.
if(SWEEP_BUILD_TESTS)
  add_test(NAME docs.opening_comments
           COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/docs/header_filter.py"
                   --check ${_sweep_public_headers})
endif()
