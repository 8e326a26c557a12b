// Sizes of driver_sizes/: rows and their widths written over the block
// size `bs`, a local of the launching function (the preprocessor puts the
// body where the macro is used, so `bs` is that function's).
#pragma once

#define ROWS 64
#define ROW_WIDTH (2 * bs)
#define HALF_WIDTH (bs / 2)
