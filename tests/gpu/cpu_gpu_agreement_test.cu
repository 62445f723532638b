// The nvcc build of ops/cpu_gpu_agreement_test.cpp: the only build in which it runs.
#include "../ops/cpu_gpu_agreement_test.cpp"
