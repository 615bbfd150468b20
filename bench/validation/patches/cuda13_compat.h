// Force-included (nvcc -include) into every Rodinia and Parboil CUDA translation unit.
// Why: CUDA 13 removed the long-deprecated cudaThread* calls that both suites still use;
// these are the documented one-to-one replacements.
#pragma once
#include <cuda_runtime.h>
#define cudaThreadSynchronize cudaDeviceSynchronize
#define cudaThreadExit cudaDeviceReset
