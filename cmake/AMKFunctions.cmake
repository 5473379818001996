# amk_add_model: compiles an ONNX model into a library at build time.
#
#   amk_add_model(TARGET my_model MODEL path/to/model.onnx
#                 [PIPELINE "builtin.module(...)"]   # default: --target/--precision
#                 [TARGET_DEVICE cpu] [PRECISION fp32]
#                 [CALIBRATION_DATA dir] [RECORDS records.jsonl]
#                 [WORKERS n] [NAME c_name] [SHARED]
#                 [INPUT_SHAPES x=1x3x224x224 ...] [DIMS batch=8 ...])
#
# Gives the target `my_model` to link: the generated library (static by
# default) with its header `<NAME>.h` on the include path and AMK::runtime.
# The model is recompiled when the model file, the arguments (pipeline
# included), the RECORDS file or amk-compile change. Without PIPELINE the
# pipeline amk-tune chose for the model on this machine is taken from
# RECORDS when it holds one; without RECORDS no tuning records are read
# (a build does not depend on the user's cache). Errors that can be found at configure
# time are reported there: a missing model, a pipeline that does not parse,
# bad arguments. A model with dynamic dimensions is compiled for the sizes
# INPUT_SHAPES and DIMS give (amk-compile --input-shape/--dim): an input or
# dimension named again starts another shape set, and each set becomes a
# variant of the library that <NAME>_session_create_for_shapes selects.
# docs/integration.md has the details.

function(amk_add_model)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "SHARED"
    "TARGET;MODEL;PIPELINE;TARGET_DEVICE;PRECISION;WORKERS;NAME;CALIBRATION_DATA;RECORDS"
    "INPUT_SHAPES;DIMS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "amk_add_model: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_TARGET)
    message(FATAL_ERROR "amk_add_model: TARGET is required")
  endif()
  set(where "amk_add_model(${ARG_TARGET})")
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "${where}: MODEL is required")
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${model}" OR IS_DIRECTORY "${model}")
    message(FATAL_ERROR "${where}: the model '${model}' does not exist")
  endif()
  if(NOT TARGET AMK::amk-compile)
    message(FATAL_ERROR "${where}: AMK::amk-compile is not defined; call find_package(AMK) first")
  endif()
  if(ARG_NAME)
    set(name "${ARG_NAME}")
  else()
    string(MAKE_C_IDENTIFIER "${ARG_TARGET}" name)
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${where}: NAME '${name}' is not a C identifier")
  endif()
  if(ARG_WORKERS AND NOT ARG_WORKERS MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "${where}: WORKERS must be a positive number, not '${ARG_WORKERS}'")
  endif()

  set(args "${model}" --name=${name} --quiet)
  foreach(shape IN LISTS ARG_INPUT_SHAPES)
    list(APPEND args "--input-shape=${shape}")
  endforeach()
  foreach(dim IN LISTS ARG_DIMS)
    list(APPEND args "--dim=${dim}")
  endforeach()
  if(DEFINED ARG_PIPELINE)
    list(APPEND args "--pipeline=${ARG_PIPELINE}")
  endif()
  if(ARG_TARGET_DEVICE)
    list(APPEND args "--target=${ARG_TARGET_DEVICE}")
  endif()
  if(ARG_PRECISION)
    list(APPEND args "--precision=${ARG_PRECISION}")
  endif()
  if(ARG_CALIBRATION_DATA)
    get_filename_component(calib "${ARG_CALIBRATION_DATA}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND args "--calibration-data=${calib}")
    # New or changed samples recompile the model.
    file(GLOB_RECURSE calibFiles CONFIGURE_DEPENDS "${calib}/*")
  endif()
  if(ARG_WORKERS)
    list(APPEND args "--workers=${ARG_WORKERS}")
  endif()
  set(recordsFile)
  if(ARG_RECORDS)
    get_filename_component(recordsFile "${ARG_RECORDS}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${recordsFile}" OR IS_DIRECTORY "${recordsFile}")
      message(FATAL_ERROR "${where}: the records '${recordsFile}' do not exist")
    endif()
    list(APPEND args "--records=${recordsFile}")
  else()
    list(APPEND args --no-records)
  endif()

  # Configure time: the pipeline and the options must be accepted now, not
  # halfway through the build.
  get_target_property(compiler AMK::amk-compile LOCATION)
  execute_process(COMMAND "${compiler}" ${args} --check-pipeline
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(STRIP "${err}" err)
    message(FATAL_ERROR "${where}: ${err}")
  endif()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/amk_models/${ARG_TARGET}")
  if(ARG_SHARED)
    set(lib "${dir}/lib${name}.so")
  else()
    set(lib "${dir}/lib${name}.a")
  endif()
  set(header "${dir}/include/${name}.h")
  # The arguments as a file that changes only when they do: a new pipeline
  # recompiles the model, an unchanged one does not.
  string(REPLACE ";" "\n" argsText "${args}")
  file(CONFIGURE OUTPUT "${dir}/amk-compile.args" CONTENT "${argsText}\n")
  add_custom_command(
    OUTPUT "${lib}" "${header}"
    COMMAND AMK::amk-compile ${args} -o "${lib}" --header "${header}"
    DEPENDS "${model}" "${dir}/amk-compile.args" "$<TARGET_FILE:AMK::amk-compile>"
            ${calibFiles} ${recordsFile}
    COMMENT "Compiling model ${ARG_MODEL} with AMK (${name})"
    VERBATIM)
  add_custom_target(${ARG_TARGET}_amk_compile DEPENDS "${lib}" "${header}")
  add_library(${ARG_TARGET} INTERFACE)
  add_dependencies(${ARG_TARGET} ${ARG_TARGET}_amk_compile)
  target_include_directories(${ARG_TARGET} INTERFACE "${dir}/include")
  if(ARG_SHARED)
    # The shared library holds the runtime; only its headers are needed.
    target_include_directories(${ARG_TARGET} INTERFACE
      $<TARGET_PROPERTY:AMK::runtime,INTERFACE_INCLUDE_DIRECTORIES>)
    target_link_libraries(${ARG_TARGET} INTERFACE "${lib}")
  else()
    target_link_libraries(${ARG_TARGET} INTERFACE "${lib}" AMK::runtime)
  endif()
  set_target_properties(${ARG_TARGET} PROPERTIES
    AMK_MODEL_LIBRARY "${lib}" AMK_MODEL_HEADER "${header}")
endfunction()
