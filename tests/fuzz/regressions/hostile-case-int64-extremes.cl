__kernel void k(__global int *o) { switch (o[0]) { case -9223372036854775807L - 1: break; case 9223372036854775807L: break; } }
