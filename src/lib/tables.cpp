// gpuperf::gpuperf: the latency tables' loading and checking (JSON parsing), compiled once.
#include "gpuperf/arch/tables_load.hpp"
