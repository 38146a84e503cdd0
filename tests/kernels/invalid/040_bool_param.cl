// bool cannot be a kernel parameter type (its size is not portable).
// @error 3:22 kernel parameter 'flag' cannot have type 'bool'
__kernel void k(bool flag, __global int *out) { out[0] = flag; }
