// gpuperf::gpuperf: the model's entry points (analyze, Predictor::predict, the what-if sweep),
// compiled once so that programs using them compile only their own code.
#include "gpuperf/model/analyze.hpp"
#include "gpuperf/model/predict.hpp"
#include "gpuperf/model/sweep.hpp"
