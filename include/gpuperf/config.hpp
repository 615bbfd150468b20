// How the library is consumed (the fmt style). Linked as gpuperf::header_only, GPUPERF_HEADER_ONLY
// is defined and every function is an inline in the headers. Linked as gpuperf::gpuperf, the
// heavy parts (table loading and checking, the input readers and loader) are compiled once in
// the library (src/lib/*.cpp) and the headers declare them only.
#pragma once

#ifdef GPUPERF_HEADER_ONLY
#define GPUPERF_FUNC inline
#else
#define GPUPERF_FUNC
#endif
