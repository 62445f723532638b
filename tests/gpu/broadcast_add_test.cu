// The nvcc build of cpu/broadcast_add_test.cpp: the same tests, on cpu and cuda:0.
#include "../cpu/broadcast_add_test.cpp"
