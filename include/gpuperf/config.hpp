// How the library is consumed (the fmt style). Linked as gpuperf::header_only, GPUPERF_HEADER_ONLY
// is defined and every function is an inline in the headers. Linked as gpuperf::gpuperf, the
// heavy parts (table loading and checking, the input readers and loader, the model's entry
// points and the report views) are compiled once in the library (src/lib/*.cpp) and the headers
// declare them only; their definitions are in the *_impl.hpp / *_load.hpp files and in
// model/analyze.hpp, predict.hpp and sweep.hpp, which only the library includes.
#pragma once

#ifdef GPUPERF_HEADER_ONLY
#define GPUPERF_FUNC inline
#else
#define GPUPERF_FUNC
#endif
