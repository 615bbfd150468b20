// Force-included (nvcc -include) into every Rodinia translation unit.
// Why: CUDA 13 removed the long-deprecated cudaThread* calls that Rodinia 3.1
// still uses; these are the documented one-to-one replacements.
#pragma once
#include <cuda_runtime.h>
#define cudaThreadSynchronize cudaDeviceSynchronize
#define cudaThreadExit cudaDeviceReset
