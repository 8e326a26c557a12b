// Unions inside structs that are not `__shared__`: a thread's own copy of a
// struct holds its union member in the thread's memory, like a local
// union (private: never shared with another thread); a union member of a
// struct in global memory is not laid out by the model, and the kernel is
// not-verified naming the union.
//  * unpack_packets:       a local copy of a packet whose payload is an
//                          anonymous union, its float view staged through
//                          shared memory with a barrier: verified.
//  * unpack_packets_racy:  the same without the barrier: racy.
//  * flip_sign_bits:       a local `Cell` whose member is a named union
//                          (`Bits`), its sign bit flipped through the
//                          unsigned view: verified.
//  * gather_payload:       reads the union member straight from the packet
//                          array in global memory: not-verified, naming
//                          the union.
// syncscope-args: --block-dim 128 --grid-dim 32
// expect-kernel: unpack_packets verified
// expect-kernel: unpack_packets_racy racy
// expect-kernel: flip_sign_bits verified
// expect-kernel: gather_payload not-verified

#define BLOCK 128

struct Packet {
    int tag;
    union {
        float f[4];
        int i[4];
    } payload;
};

union Bits {
    float f;
    unsigned u;
};

struct Cell {
    Bits b;
    int count;
};

__global__ void unpack_packets(const Packet *__restrict__ in, float *__restrict__ out)
{
    __shared__ float stage[BLOCK];
    const int t = threadIdx.x;
    Packet p = in[blockIdx.x * BLOCK + t];
    p.payload.i[3] = p.tag;
    stage[t] = p.payload.f[0] + p.payload.f[1];
    __syncthreads();
    out[blockIdx.x * BLOCK + t] = stage[(t + 1) % BLOCK] - stage[t];
}

__global__ void unpack_packets_racy(const Packet *__restrict__ in, float *__restrict__ out)
{
    __shared__ float stage[BLOCK];
    const int t = threadIdx.x;
    Packet p = in[blockIdx.x * BLOCK + t];
    stage[t] = p.payload.f[0] + p.payload.f[1]; //~ data-race
    out[blockIdx.x * BLOCK + t] = stage[(t + 1) % BLOCK] - stage[t]; //~ data-race
}

__global__ void flip_sign_bits(const Cell *__restrict__ cells, float *__restrict__ out)
{
    const int g = blockIdx.x * BLOCK + threadIdx.x;
    Cell c = cells[g];
    c.b.u ^= 0x80000000u;
    out[g] = c.count > 0 ? c.b.f : 0.0f;
}

__global__ void gather_payload(const Packet *__restrict__ in, float *__restrict__ out)
{
    const int g = blockIdx.x * BLOCK + threadIdx.x;
    out[g] = in[g].payload.f[2]; //~ not-verified
}
