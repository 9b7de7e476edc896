# Runs `clgather onnx-test` over the installed ONNX test data and checks that
# every Gather, GatherElements and GatherND test passes and nothing fails.
# Usage: cmake -DCLI=path/to/clgather -DTESTDATA=dir -P onnx_conformance.cmake
if(NOT CLI)
  message(FATAL_ERROR "pass -DCLI=path/to/clgather")
endif()
if(TESTDATA)
  set(ENV{CLGATHER_ONNX_TESTDATA} "${TESTDATA}")
endif()
execute_process(COMMAND ${CLI} onnx-test
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
set(problems "")
foreach(name test_gather_0 test_gather_1 test_gather_2d_indices
             test_gather_negative_indices
             test_gather_elements_0 test_gather_elements_1
             test_gather_elements_negative_indices
             test_gathernd_example_float32 test_gathernd_example_int32
             test_gathernd_example_int32_batch_dim1)
  string(REGEX MATCH "(^|\n)PASS ${name}\n" hit "${out}")
  if(NOT hit)
    string(APPEND problems "no 'PASS ${name}' line; ")
  endif()
endforeach()
string(REGEX MATCH "\n[0-9]+ passed, 0 failed, [0-9]+ skipped\n?$" summary
       "${out}")
if(NOT summary)
  string(APPEND problems "summary line does not end the output with 0 failed; ")
endif()
if(NOT rc EQUAL 0)
  string(APPEND problems "exit status ${rc}; ")
endif()
if(problems)
  message(FATAL_ERROR "onnx_conformance: ${problems}")
endif()
