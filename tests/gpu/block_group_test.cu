// The nvcc build of ops/block_group_test.cpp: the same tests, on cpu and cuda:0.
#include "../ops/block_group_test.cpp"
