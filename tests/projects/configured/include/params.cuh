#pragma once
#define RADIUS 3
#ifndef BLOCK
#error "BLOCK comes from syncscope.toml (defines) or the build"
#endif
