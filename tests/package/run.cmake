# The package test: install the built ctile into a fresh prefix, configure and build the outside
# project in consumer/ against it, run it, and check what it prints. Run by CTest as
#   cmake -DCTILE_BUILD_DIR=... -DWORK_DIR=... -DGENERATOR=... -DBUILD_TYPE=... -DCXX_COMPILER=...
#         [-DCUDAToolkit_ROOT=...] [-DCUDA_COMPILER=... -DCUDA_ARCHITECTURES=...] -P run.cmake
# CUDA_COMPILER set means the consumer is compiled by nvcc; otherwise by the host compiler only.
cmake_minimum_required(VERSION 3.25)

foreach(var CTILE_BUILD_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run.cmake: -D${var}=... is required")
  endif()
endforeach()
set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")  # a stale prefix could hide a file the install forgot

# step(NAME COMMAND...): runs the command, stops the test with its output if it fails.
function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package test: ${name} failed (${rc}):\n${out}")
  endif()
  message(STATUS "package test: ${name}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(config_args)
if(BUILD_TYPE)
  list(APPEND config_args "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
  set(install_config --config "${BUILD_TYPE}")
endif()
if(CUDAToolkit_ROOT)  # the toolkit the library was built against, for find_dependency(CUDAToolkit)
  list(APPEND config_args "-DCUDAToolkit_ROOT=${CUDAToolkit_ROOT}")
endif()
if(CUDA_COMPILER)
  list(APPEND config_args -DCONSUMER_CUDA=ON "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}"
       "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}")
endif()

step(install ${CMAKE_COMMAND} --install "${CTILE_BUILD_DIR}" --prefix "${prefix}" ${install_config})
step(configure ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/consumer" -B "${build}" -G "${GENERATOR}"
     "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" ${config_args})
step(build ${CMAKE_COMMAND} --build "${build}")
step(run "${build}/consumer")

message(STATUS "${step_output}")
if(NOT step_output MATCHES "package consumer on [a-z0-9:]+: 100003 elements, 0 wrong")
  message(FATAL_ERROR "package test: unexpected output from the consumer:\n${step_output}")
endif()
