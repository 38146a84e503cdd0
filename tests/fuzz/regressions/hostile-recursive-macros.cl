#define A(x) A(x) x
A(A(A(A(1))))
