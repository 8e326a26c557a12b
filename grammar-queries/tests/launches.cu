// Snippets for launches.scm; each capture is marked on its line (see syntax/queries/tests.rs).
void run(float *a, dim3 g, dim3 b, void **args, cudaStream_t s) {
    plain<<<g, b>>>(a); //~ @launch "plain<<<g, b>>>(a)" @launch.callee "plain" @launch.config "<<<g, b>>>"
    templated<16><<<1, 256, 0, s>>>(a); //~ @launch "templated<16><<<1, 256, 0, s>>>(a)" @launch.callee "templated<16>" @launch.config "<<<1, 256, 0, s>>>"
    ns::inside<<<g, b>>>(a); //~ @launch "ns::inside<<<g, b>>>(a)" @launch.callee "ns::inside" @launch.config "<<<g, b>>>"
    table[0]<<<g, b>>>(a); //~ @launch "table[0]<<<g, b>>>(a)" @launch.callee "table[0]" @launch.config "<<<g, b>>>"
    cudaLaunchKernel((void *)plain, g, b, args, 0, s); //~ @runtime "cudaLaunchKernel((void *)plain, g, b, args, 0, s)" @runtime.function "cudaLaunchKernel"
    ::cudaLaunchCooperativeKernel((void *)plain, g, b, args); //~ @runtime "::cudaLaunchCooperativeKernel((void *)plain, g, b, args)" @runtime.function "::cudaLaunchCooperativeKernel"
    // Not launches: a plain call, a kernel's attributes, a look-alike name.
    plain(a);
    cudaFuncSetAttribute(plain, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
    my_cudaLaunchKernel(plain);
}
