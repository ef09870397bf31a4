# Build-time step (cmake -P): writes the GLSL files named in INPUTS into OUTPUT as C++ raw strings,
# so the binary needs no shaders/ folder at run time. Looked up with se::embedded_shader(file name).
set(body "// Generated from shaders/ by shaders/embed_shaders.cmake; edit the .vert/.frag files instead.\n")
string(APPEND body "#include \"app/platform/shader_sources.hpp\"\n\nnamespace se {\n\n")
string(APPEND body "std::string_view embedded_shader(std::string_view file_name) {\n")
foreach(input IN LISTS INPUTS)
  file(READ ${input} text)
  get_filename_component(name ${input} NAME)
  string(APPEND body "  if (file_name == \"${name}\")\n    return R\"glsl(${text})glsl\";\n")
endforeach()
string(APPEND body "  return {};\n}\n\n} // namespace se\n")
file(WRITE ${OUTPUT} "${body}")
