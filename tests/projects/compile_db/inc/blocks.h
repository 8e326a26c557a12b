// Sizes the build passes through -DBLOCK=... (compile_commands.json); the
// default here is never used by that build.
#ifndef BLOCK
#define BLOCK 64
#endif
#define HALF (BLOCK / 2)
