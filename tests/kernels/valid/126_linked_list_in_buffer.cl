// A linked list in a __global buffer of nodes, built and walked by each
// work-item in its own segment (a sentinel and 8 nodes): sorted insertion
// through `p->next` (k steps that advance while the next node's value is
// not larger), 0 (NULL) at the end, then `for (q = s->next; q; q =
// q->next)`. The next pointers are device addresses on every target
// (uint64_t on Vulkan), stored and followed within one launch; the node
// buffer is scratch, not compared.
// @kernel walk
// @global 500
// @local 64
// @arg buffer long 500*9*2 fill 0
// @arg buffer int 500*8 random 0 1000
// @arg buffer int 500 output
// @arg value int 500
typedef struct node {
  int value;
  int order;
  __global struct node *next;
} node;

__kernel void walk(__global node *nodes, __global const int *values, __global int *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  __global node *sentinel = nodes + i * 9;
  sentinel->next = 0;
  for (int k = 0; k < 8; k++) {
    __global node *m = &sentinel[k + 1];
    m->value = values[i * 8 + k];
    m->order = k;
    __global node *p = sentinel;
    for (int t = 0; t < k; t++) /* at most k nodes before m */
      if (p->next != 0 && p->next->value <= m->value) p = p->next;
    m->next = p->next;
    p->next = m;
  }
  int acc = 0, pos = 0;
  for (__global node *q = sentinel->next; q; q = q->next) acc += (++pos) * q->order * 1000 + q->value;
  out[i] = acc;
}
