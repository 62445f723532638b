# The op tests (tests/ops/): one file per op family, each kernel test running on the CPU and,
# in the nvcc build, on cuda:0 (through its wrapper gpu/<stem>.cu). Included from
# tests/CMakeLists.txt, which builds them into ctile_tests_host and ctile_tests_cuda.
list(APPEND ctile_kernel_tests
  ops/types_test
  ops/elementwise_ops_test
  ops/integer_ops_test
  ops/math_ops_test
  ops/reduction_ops_test
  ops/block_group_test
  ops/scan_ops_test
  ops/shape_ops_test
  ops/memory_ops_test
  ops/gather_scatter_test
  ops/atomic_ops_test
  ops/mma_ops_test
  ops/debug_ops_test
  ops/cpu_gpu_agreement_test
  ops/large_index_test)
