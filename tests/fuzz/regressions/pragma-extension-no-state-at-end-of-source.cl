#pragma OPENCL EXTENSION cl_khr_fp64 :
