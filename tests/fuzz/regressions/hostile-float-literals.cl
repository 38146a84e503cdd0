__kernel void k(__global float *o) { o[0] = 1.0e-999999999; o[1] = 0x.p1; o[2] = .e1; }
