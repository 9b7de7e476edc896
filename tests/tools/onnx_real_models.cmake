# Runs `clgather onnx-test` over every folder of libonnx-testdata's
# pytorch-converted and pytorch-operator sets (real exported models): the
# nn.Embedding folders, a Gather whose data is an initializer, must pass;
# every other folder holds a node clgather does not run and must be skipped;
# none may fail.
# Usage: cmake -DCLI=path/to/clgather -DMODELDATA=dir -P onnx_real_models.cmake
if(NOT CLI OR NOT MODELDATA)
  message(FATAL_ERROR "pass -DCLI=path/to/clgather -DMODELDATA=dir")
endif()
file(GLOB dirs LIST_DIRECTORIES true ${MODELDATA}/pytorch-converted/test_*
     ${MODELDATA}/pytorch-operator/test_*)
list(LENGTH dirs n)
if(n EQUAL 0)
  message(FATAL_ERROR "onnx_real_models: no folder under ${MODELDATA}/pytorch-*"
                      " (Debian: libonnx-testdata)")
endif()
execute_process(COMMAND ${CLI} onnx-test ${dirs}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
set(problems "")
foreach(name test_Embedding test_Embedding_sparse)
  string(REGEX MATCH "(^|\n)PASS ${name}\n" hit "${out}")
  if(NOT hit)
    string(APPEND problems "no 'PASS ${name}' line; ")
  endif()
endforeach()
string(REGEX MATCH "\n2 passed, 0 failed, [0-9]+ skipped\n?$" summary "${out}")
if(NOT summary)
  string(APPEND problems "summary is not '2 passed, 0 failed'; ")
endif()
if(NOT rc EQUAL 0)
  string(APPEND problems "exit status ${rc}; ")
endif()
if(problems)
  message(FATAL_ERROR "onnx_real_models: ${problems}")
endif()
