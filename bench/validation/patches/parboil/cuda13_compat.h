// Force-included (nvcc -include) into every Parboil CUDA translation unit.
// Why: CUDA 13 removed the long-deprecated cudaThread* calls that Parboil
// still uses; these are the documented one-to-one replacements.
#pragma once
#include <cuda_runtime.h>
#define cudaThreadSynchronize cudaDeviceSynchronize
#define cudaThreadExit cudaDeviceReset
