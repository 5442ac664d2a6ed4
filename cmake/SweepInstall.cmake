include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS sweep EXPORT SweepTargets)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/lib/sweep" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.hpp")
install(FILES "${PROJECT_BINARY_DIR}/generated/sweep/config.hpp"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/sweep")

set(_sweep_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/Sweep")
install(EXPORT SweepTargets NAMESPACE Sweep:: DESTINATION "${_sweep_cmake_dir}")
if(TARGET sweep_mpi)
  # A separate export set, so that Sweep::sweep's users need no MPI.
  install(TARGETS sweep_mpi EXPORT SweepMpiTargets)
  install(EXPORT SweepMpiTargets NAMESPACE Sweep:: DESTINATION "${_sweep_cmake_dir}")
endif()
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/SweepConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/SweepConfig.cmake"
  INSTALL_DESTINATION "${_sweep_cmake_dir}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/SweepConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/SweepConfig.cmake" "${PROJECT_BINARY_DIR}/SweepConfigVersion.cmake"
        DESTINATION "${_sweep_cmake_dir}")
