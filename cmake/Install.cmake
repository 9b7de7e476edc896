# Installation: libraries, header, CLI (tools/), CMake package config and
# pkg-config file, so that find_package(clgather CONFIG) and
# `pkg-config --cflags --libs clgather` both work.
include(CMakePackageConfigHelpers)

install(TARGETS clgather clgather_static
  EXPORT clgatherTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/clgather DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  PATTERN clgather_mpi.h EXCLUDE)
if(CLGATHER_BUILD_MPI)
  # The distributed library and its header (only with MPI).
  install(TARGETS clgather_mpi
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(FILES include/clgather/clgather_mpi.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/clgather)
endif()

set(CLGATHER_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/clgather)
install(EXPORT clgatherTargets NAMESPACE clgather::
  FILE clgatherTargets.cmake DESTINATION ${CLGATHER_CMAKE_DIR})
configure_package_config_file(cmake/clgatherConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/clgatherConfig.cmake
  INSTALL_DESTINATION ${CLGATHER_CMAKE_DIR})
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/clgatherConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/clgatherConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/clgatherConfigVersion.cmake
  DESTINATION ${CLGATHER_CMAKE_DIR})

# The .pc file finds its prefix relative to itself, so `cmake --install
# --prefix P` relocates it.
file(RELATIVE_PATH CLGATHER_PC_TO_PREFIX
  /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
configure_file(cmake/clgather.pc.in ${CMAKE_CURRENT_BINARY_DIR}/clgather.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/clgather.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
