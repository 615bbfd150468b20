// gpuperf::gpuperf: the text and JSON views of a report, compiled once.
#include "gpuperf/report/json_view_impl.hpp"
#include "gpuperf/report/views_impl.hpp"
