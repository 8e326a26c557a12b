// The block size the project launches `scale` with (syncscope.toml says so
// too), found next to its includer.
#pragma once
#define BLOCK 256
