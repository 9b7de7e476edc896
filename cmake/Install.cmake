# Installation: libraries, header, CLI (tools/), CMake package config and
# pkg-config file, so that find_package(clgather CONFIG) and
# `pkg-config --cflags --libs clgather` both work; with CLGATHER_BUILD_MPI
# also clgather_mpi: find_package(clgather CONFIG COMPONENTS mpi) (target
# clgather::clgather_mpi) and `pkg-config --cflags --libs clgather-mpi`.
include(CMakePackageConfigHelpers)

install(TARGETS clgather clgather_static
  EXPORT clgatherTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/clgather DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  PATTERN clgather_mpi.h EXCLUDE)
set(CLGATHER_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/clgather)
if(CLGATHER_BUILD_MPI)
  # The distributed library and its header (only with MPI), in an export set
  # of their own: clgatherConfig.cmake loads clgather_mpiTargets.cmake as the
  # optional component `mpi` only where MPI is found, so the core package
  # never needs MPI's development files.
  install(TARGETS clgather_mpi
    EXPORT clgather_mpiTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(FILES include/clgather/clgather_mpi.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/clgather)
  install(EXPORT clgather_mpiTargets NAMESPACE clgather::
    FILE clgather_mpiTargets.cmake DESTINATION ${CLGATHER_CMAKE_DIR})
endif()

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

if(CLGATHER_BUILD_MPI)
  # clgather-mpi.pc requires clgather and the pkg-config module of the MPI
  # that clgather_mpi was built with (the header includes <mpi.h>, so MPI is
  # a public requirement): ompi-c for Open MPI (Debian's libopenmpi-dev),
  # mpich for MPICH, else the mpi-c alternative.
  if(MPI_C_LIBRARIES MATCHES "openmpi" OR MPI_C_HEADER_DIR MATCHES "openmpi")
    set(_clgather_mpi_pc_default ompi-c)
  elseif(MPI_C_LIBRARIES MATCHES "mpich" OR MPI_C_HEADER_DIR MATCHES "mpich")
    set(_clgather_mpi_pc_default mpich)
  else()
    set(_clgather_mpi_pc_default mpi-c)
  endif()
  set(CLGATHER_MPI_PC_REQUIRES ${_clgather_mpi_pc_default} CACHE STRING
    "The pkg-config module of MPI that clgather-mpi.pc requires")
  configure_file(cmake/clgather-mpi.pc.in
    ${CMAKE_CURRENT_BINARY_DIR}/clgather-mpi.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/clgather-mpi.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
