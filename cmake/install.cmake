# Installs headers, the runtime library and a CMake package: find_package(ctile CONFIG REQUIRED).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY include/ctile kernels/ctile DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set_target_properties(ctile_kernels PROPERTIES EXPORT_NAME kernels)
install(TARGETS ctile ctile_runtime ctile_kernels EXPORT ctileTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT ctileTargets NAMESPACE ctile:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ctile)

configure_package_config_file(cmake/ctileConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ctileConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ctile)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ctileConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ctileConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/ctileConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ctile)
