#pragma once

#define SCAN_BLOCK 256
#define SORT_N 512
#define REDUCE_BLOCK 128
