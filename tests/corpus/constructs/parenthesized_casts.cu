// syncscope-args: --block-dim 128 --grid-dim 1
// A C cast of a parenthesised operand, `(T)(x)`, which the grammar reads as
// a call through `(T)` when it does not know `T` is a type: a standard scalar
// alias (`clock_t`) or a scalar typedef of the file is a conversion to that
// type (a narrow one wraps); a name bound to anything else stays a call.
// expect-kernel: elapsed_own_cell verified
// expect-kernel: narrowed_index_collides racy
// expect-kernel: narrowed_local_collides racy
// expect-kernel: wide_alias_distinct verified
// expect-kernel: parenthesized_pointer_call not-verified

typedef unsigned char byte_t;
typedef unsigned int word_t;
typedef word_t index_t;

// Each thread spins on the clock, then writes the time it spent to its own
// cell: the spin's `(clock_t)(now - start)` is a value, not a call.
__global__ void elapsed_own_cell(clock_t* out, clock_t budget) {
    unsigned int start = (unsigned int)clock();
    clock_t spent = 0;
    while (spent < budget) {
        unsigned int now = (unsigned int)clock();
        spent = (clock_t)(now - start);
    }
    out[threadIdx.x] = spent;
}

// `(byte_t)(256 * t)` wraps to 0: every thread writes one cell.
__global__ void narrowed_index_collides(int* out) {
    out[(byte_t)(threadIdx.x * 256)] = threadIdx.x; //~ data-race
}

// The same wrap through a local of the alias type (read as `256 * t`, one
// cell per thread, before typedefs of narrow types were resolved).
__global__ void narrowed_local_collides(int* out) {
    byte_t cell = threadIdx.x * 256;
    out[cell] = threadIdx.x; //~ data-race
}

// An alias of an alias of `unsigned int`: 4 * t stays below 512, distinct.
__global__ void wide_alias_distinct(int* out) {
    out[(index_t)(threadIdx.x * 4)] = threadIdx.x;
}

// `(op)(x)` with `op` a parameter: a call through a pointer the model does
// not follow, whatever the parentheses.
__global__ void parenthesized_pointer_call(int* out, int (*op)(int)) {
    out[threadIdx.x] = (op)(threadIdx.x); //~ not-verified
}
