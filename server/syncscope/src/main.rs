fn main() {
    keep_freed_memory_for_reuse();
    let code = syncscope::cli::main_with_args(std::env::args_os().collect());
    std::process::exit(code);
}

/// Z3 allocates (and frees) most of a context's memory for every kernel
/// that reaches the solver: each kernel is verified in a fresh context, so
/// that its answers depend on its own queries only. With glibc's default
/// settings, each worker's heap grew and shrank by those megabytes again and
/// again, and the kernel zeroed the same pages anew each time: a file of
/// small kernels spent twice as long in page faults as in solving. Growing
/// a heap by 64 MiB more than asked keeps freed memory mapped for the next
/// kernel (the peak resident memory of such a run is unchanged).
fn keep_freed_memory_for_reuse() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes allocator parameters; called first
    // thing in `main`, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
    }
}
