# Where Sweep's Kokkos comes from.
#
# 1. -DKokkos_ROOT=... (or Kokkos_DIR, or the environment's Kokkos_ROOT):
#    that Kokkos is used as it is, with whatever backend it was built for.
# 2. Otherwise a Kokkos that find_package() finds on its own is used when it
#    has the backend SWEEP_KOKKOS_BACKEND asks for (or when none is asked).
# 3. Otherwise cmake/bootstrap.sh builds Kokkos 3.4.1 + Kokkos Kernels for
#    SWEEP_KOKKOS_BACKEND (default openmp) into a cache outside the build
#    tree and that prefix is used.
# The CUDA backend is settled before project(), since its compiler is
# Kokkos' nvcc_wrapper.

set(SWEEP_KOKKOS_BACKEND "" CACHE STRING
    "Backend to bootstrap Kokkos for when no Kokkos is given: openmp, serial or cuda")
set(SWEEP_CUDA_ARCH "HOPPER90" CACHE STRING
    "Kokkos GPU architecture for a bootstrapped CUDA Kokkos (e.g. HOPPER90, AMPERE80)")
set_property(CACHE SWEEP_KOKKOS_BACKEND PROPERTY STRINGS "" openmp serial cuda)

function(_sweep_user_gave_kokkos out)
  if(DEFINED Kokkos_ROOT OR DEFINED Kokkos_DIR OR DEFINED ENV{Kokkos_ROOT})
    if(NOT DEFINED _SWEEP_BOOTSTRAPPED_KOKKOS_ROOT OR NOT Kokkos_ROOT STREQUAL _SWEEP_BOOTSTRAPPED_KOKKOS_ROOT)
      set(${out} ON PARENT_SCOPE)
      return()
    endif()
  endif()
  set(${out} OFF PARENT_SCOPE)
endfunction()

function(_sweep_run_bootstrap backend)
  message(STATUS "Sweep: bootstrapping Kokkos for '${backend}' (cmake/bootstrap.sh)")
  execute_process(
    COMMAND bash "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/bootstrap.sh" --kokkos-only
            --backend "${backend}" --arch "${SWEEP_CUDA_ARCH}" --print-prefix
    OUTPUT_VARIABLE out
    RESULT_VARIABLE rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "Sweep: cmake/bootstrap.sh --backend ${backend} failed (exit ${rc}); its messages are above")
  endif()
  string(REGEX REPLACE ".*\n" "" prefix "${out}")
  if(NOT EXISTS "${prefix}/.complete")
    message(FATAL_ERROR "Sweep: bootstrap printed '${prefix}', which is not a finished Kokkos prefix")
  endif()
  set(Kokkos_ROOT "${prefix}" CACHE PATH "Kokkos install prefix" FORCE)
  set(KokkosKernels_ROOT "${prefix}" CACHE PATH "Kokkos Kernels install prefix" FORCE)
  set(_SWEEP_BOOTSTRAPPED_KOKKOS_ROOT "${prefix}" CACHE INTERNAL "")
endfunction()

macro(sweep_kokkos_pre_project)
  _sweep_user_gave_kokkos(_sweep_user_kokkos)
  if(NOT _sweep_user_kokkos AND SWEEP_KOKKOS_BACKEND STREQUAL "cuda")
    _sweep_run_bootstrap(cuda)
    if(NOT CMAKE_CXX_COMPILER)
      # A wrapper around Kokkos' nvcc_wrapper that knows where nvcc is.
      set(CMAKE_CXX_COMPILER "${Kokkos_ROOT}/bin/sweep_nvcc_wrapper" CACHE FILEPATH "C++ compiler" FORCE)
    endif()
  endif()
endmacro()

macro(sweep_kokkos_find)
  _sweep_user_gave_kokkos(_sweep_user_kokkos)
  if(NOT _sweep_user_kokkos AND NOT DEFINED _SWEEP_BOOTSTRAPPED_KOKKOS_ROOT)
    find_package(Kokkos 3.4 QUIET CONFIG)
    if(Kokkos_FOUND AND SWEEP_KOKKOS_BACKEND)
      string(TOUPPER "${SWEEP_KOKKOS_BACKEND}" _sweep_want)
      if(NOT _sweep_want IN_LIST Kokkos_DEVICES)
        message(STATUS "Sweep: found Kokkos at ${Kokkos_DIR} without ${_sweep_want}; bootstrapping one")
        set(Kokkos_FOUND OFF)
        unset(Kokkos_DIR CACHE)
      endif()
    endif()
    if(NOT Kokkos_FOUND)
      if(SWEEP_KOKKOS_BACKEND)
        _sweep_run_bootstrap(${SWEEP_KOKKOS_BACKEND})
      else()
        _sweep_run_bootstrap(openmp)
      endif()
    endif()
  endif()
  find_package(Kokkos 3.4 REQUIRED CONFIG)
  message(STATUS "Sweep: Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR}, devices: ${Kokkos_DEVICES}")
  # Kokkos Kernels is optional for the library (KokkosBlas in the solvers,
  # a peer in the benchmarks); the bootstrap always provides it.
  if(NOT DEFINED KokkosKernels_ROOT AND DEFINED Kokkos_ROOT)
    set(KokkosKernels_ROOT "${Kokkos_ROOT}")
  endif()
  find_package(KokkosKernels QUIET CONFIG)
  if(KokkosKernels_FOUND)
    message(STATUS "Sweep: Kokkos Kernels ${KokkosKernels_VERSION} from ${KokkosKernels_DIR}")
  else()
    message(STATUS "Sweep: Kokkos Kernels not found; the parts that use it are left out")
  endif()
  set(SWEEP_HAVE_KOKKOSKERNELS ${KokkosKernels_FOUND})
  foreach(_sweep_dev SERIAL OPENMP THREADS CUDA HIP SYCL)
    if(_sweep_dev IN_LIST Kokkos_DEVICES)
      set(SWEEP_KOKKOS_HAS_${_sweep_dev} ON)
    else()
      set(SWEEP_KOKKOS_HAS_${_sweep_dev} OFF)
    endif()
  endforeach()
endmacro()
