#define C(a,b) a##b
C(/,/) C(.,.) C(",") C(+,=) C(<<,=)
