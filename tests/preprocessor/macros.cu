// Macro definition and expansion as a C preprocessor runs them.
#define BLOCK 256 // a comment after the value is not part of it
#define HALF (BLOCK / 2) /* nor is a block comment */
#define LONG_SUM(a, b, c) \
    ((a) +                \
     (b) +                \
     (c))
#define SQUARE(x) ((x) * (x))
#define TWICE(x) SQUARE(x) + SQUARE(x)
#define STR(x) #x
#define XSTR(x) STR(x)
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define LOG(fmt, ...) printf(fmt, __VA_ARGS__)
#define LOG0(fmt, ...) printf(fmt, ##__VA_ARGS__)
#define COUNT_ARGS(...) count(__VA_ARGS__)
#define EMPTY
#define ID(x) x
#define APPLY(f, x) f(x)
#define INDIRECT SQUARE
#define foo foo + 1
#define self(x) self(x * 2)
#define ping pong
#define pong ping
#define NOARGS() 42
#define FIRST(a, ...) a
#define SHARED_DECL(type, name, n) __shared__ type name[n]

__global__ void expand_all(float *out, const float *in, int n)
{
    SHARED_DECL(float, tile, BLOCK);
    int t = threadIdx.x;
    tile[t] = in[t] * HALF;
    out[t] = LONG_SUM(tile[t], in[t], HALF);
    out[t] += TWICE(t + 1);
    out[t] += SQUARE(SQUARE(2));
    const char *s1 = STR(BLOCK);
    const char *s2 = XSTR(BLOCK);
    const char *s3 = STR(  a   "quoted \"inner\"\n"   'c'  );
    const char *s4 = STR();
    int CAT(var, 1) = CAT(0x, 1F);
    int XCAT(lane_, BLOCK) = CAT(, 7) + CAT(8, );
    LOG("%d %d\n", t, n);
    LOG0("no args\n");
    LOG0("one %d\n", t);
    COUNT_ARGS();
    COUNT_ARGS(a, (b, c), d);
    out[t] EMPTY += ID() 1;
    out[t] += APPLY(SQUARE, 3) + APPLY(ID, (4, 5));
    out[t] += INDIRECT(6);
    int foo = 0;
    foo;
    self(3);
    ping; pong;
    out[t] += NOARGS() + NOARGS;
    out[t] += FIRST(1, 2, 3) + FIRST(9);
    out[t] += SQUARE(
        t +
        1);
    out[t] += ID(ID)(5);
}

#undef BLOCK
#define BLOCK 512
int after_redefine = BLOCK;
#undef HALF
int after_undef = HALF;
#define OBJ (1 + 2)
#define FUNC() (3)
int obj = OBJ, func = FUNC (), not_called = FUNC;
