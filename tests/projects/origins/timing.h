// Headers under branches the device pass does not take are not reported:
// `<windows.h>` and the missing `win32_clock.h` sit under `#if
// defined(WIN32)`; `<numa.h>` (the `#else`) and `<x86intrin.h>` (under
// `__CUDA_ARCH__`, defined on the device pass) are on the taken path.
#pragma once
#if defined(WIN32) || defined(_WIN32)
#include <windows.h>
#include "win32_clock.h"
#else
#include <numa.h>
#endif
#ifdef __CUDA_ARCH__
#include <x86intrin.h>
#endif
#ifndef __CUDA_ARCH__
#include <host_only_profiler.h>
#endif
