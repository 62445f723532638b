# Compiles one compile-fail case and passes only if the compile fails for the reason the case
# names: the text after "// expect: " in the source must appear in the compiler's output, and
# on its first error line (unless the case says "// first-error: later" and why).
# Variables: COMPILER, SOURCE, FLAGS (a ;-list).
file(STRINGS "${SOURCE}" expect_line REGEX "^// expect: ")
string(REGEX REPLACE "^// expect: " "" expected "${expect_line}")
if(expected STREQUAL "")
  message(FATAL_ERROR "${SOURCE}: no '// expect: <message>' line")
endif()
file(STRINGS "${SOURCE}" later_line REGEX "^// first-error: later")

execute_process(COMMAND ${COMPILER} ${FLAGS} "${SOURCE}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(log "${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "compiled without error, but should have failed with:\n  ${expected}")
endif()
string(FIND "${log}" "${expected}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "failed, but not with the expected message:\n  ${expected}\ncompiler output:\n${log}")
endif()
string(REGEX MATCH "[^\n]*error[^\n]*" first_error "${log}")
string(FIND "${first_error}" "${expected}" at_first)
if(at_first EQUAL -1 AND later_line STREQUAL "")
  message(FATAL_ERROR "the expected message is not on the first error line:\n  first: ${first_error}\n  expected: ${expected}")
endif()
message(STATUS "failed as expected: ${expected}")
