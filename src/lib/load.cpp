// gpuperf::gpuperf: input detection, every reader and the loader, compiled once.
#include "gpuperf/trace/load_impl.hpp"
