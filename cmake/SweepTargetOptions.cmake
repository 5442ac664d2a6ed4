# Per-target options for Sweep's own executables. Nothing here is global:
# the library target itself carries no flags to its users.

function(sweep_target_options target)
  set(_warn -Wall -Wextra -Wpedantic)
  if(SWEEP_WERROR)
    list(APPEND _warn -Werror)
  endif()
  if(SWEEP_KOKKOS_HAS_CUDA)
    # nvcc_wrapper forwards these to the host compiler; nvcc's own warnings
    # about Kokkos' headers are not ours to fix.
    set(_warn -Wall -Wextra)
    if(SWEEP_WERROR)
      list(APPEND _warn -Werror)
    endif()
  endif()
  target_compile_options(${target} PRIVATE ${_warn})
  target_compile_features(${target} PRIVATE cxx_std_20)
  if(SWEEP_SANITIZE)
    string(REPLACE ";" "," _san "${SWEEP_SANITIZE}")
    target_compile_options(${target} PRIVATE -fsanitize=${_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    target_link_options(${target} PRIVATE -fsanitize=${_san})
  endif()
  if(SWEEP_NATIVE AND NOT SWEEP_KOKKOS_HAS_CUDA)
    target_compile_options(${target} PRIVATE -march=native)
  endif()
endfunction()
