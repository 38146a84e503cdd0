__kernel __attribute__((reqd_work_group_size(4294967295,4294967295,4294967295))) void k(__global int *o) { }
