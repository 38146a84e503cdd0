__kernel void k(__global int *o) { o[0] = 'abcdefgh'; o[1] = '\777'; o[2] = '\x123456789'; }
