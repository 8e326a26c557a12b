// Scatters that are race-free only because of what an input array holds,
// which no launch site shows (issue 28 item 7): a permutation, the scan of
// a 0/1 array where the flag is set, sorted keys. The code states the
// fact with `__requires(__distinct(a))` or `__requires(__sorted(a))` (in
// the `#ifdef __SYNCSCOPE__` form nvcc compiles); the race queries assume
// it of the values two threads read. Without it each is a race whose
// witness needs two equal values of the array.
//  * gather_to_slots:          `dst[slot[i]]` with distinct slots: verified.
//  * gather_to_slots_unstated: the same, nothing stated: racy.
//  * keep_flagged:             `out[offs[i]]` only where `keep[i]` is set,
//                              offsets distinct where read: verified.
//  * run_heads:                `head[key[i]] = i` where a key differs from
//                              its left neighbour, keys sorted: verified.
//  * run_heads_unsorted:       the same, nothing stated: a possible race
//                              (`unconfirmed`): its two-thread witness
//                              reads `key[0]` twice with two values, which
//                              no memory holds (a real collision needs a
//                              third thread between the two).
//  * run_heads_any_left:       sorted keys compared with `key[0]`, not the
//                              neighbour: two threads of one run both
//                              write: racy.
//  * owners_sorted_only:       `owner[key[i]] = i` with sorted keys, which
//                              may repeat: racy.
//  * pair_slots:               distinct slots, but each thread writes two
//                              cells `slot[i]` and `slot[i] + 1`: another
//                              thread's slot may be the next cell: racy.
//  * halves:                   the colliding index is computed in the
//                              kernel (`i / 2`); what `slot` holds does
//                              not matter: racy.
//  * slots_rewritten:          the kernel writes `slot` itself, so the
//                              statement is no fact about what it reads
//                              (set aside, listed): racy.
//  * strided_slots:            a grid-stride loop over distinct slots (one
//                              read per iteration): verified.
//  * merge_places:             `out[rank[i] + i]` with sorted ranks (the
//                              places grow with i): verified.
//  * merge_places_distinct:    the same with distinct ranks, which may
//                              fall by more than one: racy.
//  * strictly_increasing:      `__sorted` and `__distinct` together: the
//                              gaps between keys hold the thread's cells
//                              `[key[i], key[i + 1])`: verified.
//  * not_distinct:             `!__distinct(slot)` is no fact to assume
//                              (the predicate only as a whole claim):
//                              not-verified, named.
// expect-kernel: gather_to_slots verified
// expect-kernel: gather_to_slots_unstated racy
// expect-kernel: keep_flagged verified
// expect-kernel: run_heads verified
// expect-kernel: run_heads_unsorted unknown
// expect-kernel: run_heads_any_left racy
// expect-kernel: owners_sorted_only racy
// expect-kernel: pair_slots racy
// expect-kernel: halves racy
// expect-kernel: slots_rewritten racy
// expect-kernel: strided_slots verified
// expect-kernel: merge_places verified
// expect-kernel: merge_places_distinct racy
// expect-kernel: strictly_increasing verified
// expect-kernel: not_distinct not-verified
// syncscope-args: --block-dim 128

__global__ void gather_to_slots(const int *slot, const float *src, float *dst, int n)
{
#ifdef __SYNCSCOPE__
    __requires(__distinct(slot));
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        dst[slot[i]] = 2.0f * src[i];
    }
}

__global__ void gather_to_slots_unstated(const int *slot, const float *src, float *dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        dst[slot[i]] = 2.0f * src[i]; //~ data-race
    }
}

__global__ void keep_flagged(const unsigned *keep, const unsigned *offs, unsigned *out, unsigned n)
{
#ifdef __SYNCSCOPE__
    __requires(__distinct(offs));
#endif
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && keep[i] != 0) {
        out[offs[i]] = i;
    }
}

__global__ void run_heads(const unsigned *key, int *head, int n)
{
#ifdef __SYNCSCOPE__
    __requires(__sorted(key));
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned k = key[i];
        if (i == 0 || k != key[i - 1]) {
            head[k] = i;
        }
    }
}

__global__ void run_heads_unsorted(const unsigned *key, int *head, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned k = key[i];
        if (i == 0 || k != key[i - 1]) {
            head[k] = i; //~ unconfirmed
        }
    }
}

__global__ void run_heads_any_left(const unsigned *key, int *head, int n)
{
#ifdef __SYNCSCOPE__
    __requires(__sorted(key));
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned k = key[i];
        if (i == 0 || k != key[0]) {
            head[k] = i; //~ data-race
        }
    }
}

__global__ void owners_sorted_only(const unsigned *key, int *owner, int n)
{
#ifdef __SYNCSCOPE__
    __requires(__sorted(key));
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        owner[key[i]] = i; //~ data-race
    }
}

__global__ void pair_slots(const int *slot, int *out, int n)
{
#ifdef __SYNCSCOPE__
    __requires(__distinct(slot));
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[slot[i]] = i; //~ data-race
        out[slot[i] + 1] = -i; //~ data-race
    }
}

__global__ void halves(const int *slot, int *out, int n)
{
#ifdef __SYNCSCOPE__
    __requires(__distinct(slot));
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i / 2] = slot[i]; //~ data-race
    }
}

__global__ void slots_rewritten(int *slot, int *out, int n)
{
#ifdef __SYNCSCOPE__
    __requires(__distinct(slot));
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        slot[i] = slot[i] / 2;
        out[slot[i]] = i; //~ data-race
    }
}

__global__ void strided_slots(const int *slot, const float *src, float *dst, int n)
{
#ifdef __SYNCSCOPE__
    __requires(__distinct(slot));
#endif
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        dst[slot[i]] = src[i];
    }
}

__global__ void merge_places(const int *rank, const float *in, float *out, int n)
{
#ifdef __SYNCSCOPE__
    __requires(__sorted(rank));
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[rank[i] + i] = in[i];
    }
}

__global__ void merge_places_distinct(const int *rank, const float *in, float *out, int n)
{
#ifdef __SYNCSCOPE__
    __requires(__distinct(rank));
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[rank[i] + i] = in[i]; //~ data-race
    }
}

__global__ void strictly_increasing(const int *key, float *cells, int n)
{
#ifdef __SYNCSCOPE__
    __requires(__sorted(key));
    __requires(__distinct(key));
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n) {
        for (int c = key[i]; c < key[i + 1]; ++c) {
            cells[c] = 1.0f;
        }
    }
}

__global__ void not_distinct(const int *slot, int *out, int n)
{
#ifdef __SYNCSCOPE__
    __requires(!__distinct(slot)); //~ not-verified
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = slot[i];
    }
}
