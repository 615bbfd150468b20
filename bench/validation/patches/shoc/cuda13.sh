# Run from the SHOC source root.  Small CUDA 13 API fixes:
# - cudaThreadSynchronize (deprecated since CUDA 4) was removed; cudaDeviceSynchronize
#   is its exact replacement.
grep -rl 'cudaThreadSynchronize' src/cuda | xargs -r sed -i 's/cudaThreadSynchronize/cudaDeviceSynchronize/g'
# - cudaDeviceProp::clockRate was removed; main.cpp only prints it in its device list.
sed -i '/deviceProp.clockRate/d' src/cuda/common/main.cpp
