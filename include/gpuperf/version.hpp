// The one version source: CMake and the Python package read GPUPERF_VERSION from here.
#pragma once

#define GPUPERF_VERSION "0.1.0"

namespace gpuperf {
inline const char* version_string() { return GPUPERF_VERSION; }
}  // namespace gpuperf
