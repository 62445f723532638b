# ctile_warnings(target): the project's warning flags for host and device code of `target`.
function(ctile_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${CTILE_CXX_WARNINGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra>)
endfunction()
