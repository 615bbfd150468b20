# Runs `CLI ARGS` in SRC and checks its exit status is RC and that its stdout+stderr match REGEX.
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${CLI} ${args} WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc STREQUAL RC)
  message(FATAL_ERROR "gpuperf ${ARGS}: exit ${rc}, expected ${RC}\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "gpuperf ${ARGS}: output does not match '${REGEX}':\n${out}${err}")
endif()
