// Issue 26, hole 10: a race or divergence is reported as definite only when
// its witness is an execution that exists. The model's witness is run from
// source on the independent simulator; where it never races there, the
// finding is `unconfirmed` (a possible race, naming why) and the kernel is
// `unknown`, never `racy` on a witness that cannot happen.
//
// Tickets drawn with a weight: `atomicAdd(counter, t + 1)` returns strictly
// increasing values (every weight is at least 1), so two lanes of one warp
// never draw the same slot. The model knows distinct tickets only for
// constant increments, so its witness gives two lanes one ticket:
// unconfirmed. With a weight of `t` thread 0 adds nothing, and the thread
// after it draws the same ticket: a real race, confirmed from source.
// A coordinate pinned by an exchange: `atomicExch(flag, t + 1) == 0` can
// hold for the first exchange only; the witness's two winners never run.
// syncscope-args: --grid-dim 1
// expect-kernel: weighted_tickets unknown
// expect-kernel: weighted_tickets_zero_weight racy
// expect-kernel: first_exchange_wins unknown
// expect-kernel: any_exchange_wins racy

__global__ void weighted_tickets(int *counter, float *slots, const float *in)
{
    int t = threadIdx.x;
    int at = atomicAdd(counter, t + 1);
    slots[at] = in[t]; //~ unconfirmed
}

__global__ void weighted_tickets_zero_weight(int *counter, float *slots, const float *in)
{
    int t = threadIdx.x;
    int at = atomicAdd(counter, t);
    slots[at] = in[t]; //~ data-race
}

__global__ void first_exchange_wins(int *flag, int *winner)
{
    if (atomicExch(flag, (int)threadIdx.x + 2) == 0)
        winner[0] = threadIdx.x; //~ unconfirmed
}

__global__ void any_exchange_wins(int *flag, int *winner)
{
    // Thread 0 exchanges in 0: the flag stays 0 for the next thread too.
    if (atomicExch(flag, (int)threadIdx.x) == 0)
        winner[0] = threadIdx.x; //~ data-race
}
